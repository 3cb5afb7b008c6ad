//! `drsg serve`'s HTTP side: `POST /mcp` (MCP Streamable HTTP, rmcp's service behind our guard),
//! `POST /rpc` (JSON-RPC 2.0, the verbs as methods), `GET /health` (no auth, no database work) and
//! `POST /shutdown` (what `drsg stop` calls), on hyper's HTTP/1.1.
//!
//! The guard, in order: the `Host` header (against DNS rebinding: loopback names always, with a
//! token also the bound address and `DRSG_ALLOWED_HOSTS`), then without a token the peer must be on
//! loopback, with one `Authorization: Bearer <token>` must match (compared in constant time).
//!
//! At most 512 connections are open; one that has made no request the guard lets through is closed
//! after 5 s, and at the cap the oldest such connection is closed for the new one (`Waiting`), so
//! idle or slow clients cannot starve authenticated ones. `/mcp` is rmcp's `StreamableHttpService`
//! over `Sessions`, which are reaped; it answers ending an unknown session with 404, and JSON that
//! rmcp takes for no message (a batch) with 400 and `-32600`. `/rpc` calls `DrsgServer::call_verb`,
//! the same gate as MCP.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, SessionConfig};
use rmcp::transport::streamable_http_server::session::{RestoreOutcome, ServerSseMessage, SessionId, SessionManager};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::server::DrsgServer;

mod rpc;

type Body = BoxBody<Bytes, Infallible>;

/// The default address of `drsg serve`.
pub const DEFAULT_ADDR: &str = "127.0.0.1:7700";
/// Request bodies larger than this get 413 (default; `DRSG_MAX_REQUEST_BYTES`).
pub const DEFAULT_MAX_BODY: usize = 4 * 1024 * 1024;
/// Sessions idle this long are ended (default; `DRSG_SESSION_IDLE_SECS`).
pub const SESSION_IDLE: Duration = Duration::from_secs(600);
/// Sessions that have not completed `initialize` this long after opening are ended.
pub const SESSION_INIT: Duration = Duration::from_secs(60);
/// Connections open at once; more wait to be accepted.
const MAX_CONNECTIONS: usize = 512;
/// Time a client has to send a request's headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(30);
/// Time a new connection has to make its first request the guard lets through (headers, and a body
/// whole); past it, it is closed.
const FIRST_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// A request's body arrives whole within this long, or the request is answered 408.
const BODY_TIMEOUT: Duration = Duration::from_secs(5);

/// How the HTTP server is guarded and bounded.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// `DRSG_TOKEN`: required as a bearer token when set.
    pub token: Option<String>,
    /// `DRSG_ALLOWED_HOSTS`: further `Host` values (host or host:port), honoured with a token.
    pub allowed_hosts: Vec<String>,
    pub max_body: usize,
    pub session_idle: Duration,
    pub session_init: Duration,
}

impl HttpOptions {
    /// The options from the environment.
    pub fn from_env() -> Result<HttpOptions, String> {
        let token = std::env::var("DRSG_TOKEN").ok().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
        if let Some(token) = &token
            && token.len() < 16
        {
            return Err(format!("DRSG_TOKEN is {} characters; use at least 16 (drsg init makes 64)", token.len()));
        }
        let allowed_hosts = std::env::var("DRSG_ALLOWED_HOSTS")
            .unwrap_or_default()
            .split(',')
            .map(|h| h.trim().to_ascii_lowercase())
            .filter(|h| !h.is_empty())
            .collect();
        let number = |name: &str, default: u64| -> Result<u64, String> {
            match std::env::var(name) {
                Err(_) => Ok(default),
                Ok(text) => text.trim().parse().map_err(|_| format!("{name} is a whole number, not `{text}`")),
            }
        };
        let session_idle = Duration::from_secs(number("DRSG_SESSION_IDLE_SECS", SESSION_IDLE.as_secs())?.max(1));
        Ok(HttpOptions {
            token,
            allowed_hosts,
            max_body: number("DRSG_MAX_REQUEST_BYTES", DEFAULT_MAX_BODY as u64)? as usize,
            session_idle,
            // A shorter idle limit (tests) shortens the wait for `initialize` with it.
            session_init: SESSION_INIT.min(session_idle),
        })
    }

    /// Refuses to serve a non-loopback address without a token.
    pub fn check_bind(&self, addr: &SocketAddr) -> Result<(), String> {
        if self.token.is_none() && !addr.ip().is_loopback() {
            return Err(format!(
                "refusing to serve {addr} without a token: anyone who can reach it could read the code. \
                 Set DRSG_TOKEN (clients then send `Authorization: Bearer <token>`), or bind 127.0.0.1"
            ));
        }
        Ok(())
    }
}

/// Serves until `stop` is cancelled (by the caller or by `POST /shutdown`).
pub async fn serve(
    listener: TcpListener,
    server: DrsgServer,
    options: HttpOptions,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let bound = listener.local_addr()?;
    let sessions = Arc::new(Sessions::new(options.session_idle, options.session_init));
    let config = StreamableHttpServerConfig::default()
        // Our guard checks `Host` before rmcp sees the request, with the rule above.
        .disable_allowed_hosts()
        .with_max_request_body_bytes(options.max_body)
        .with_cancellation_token(stop.child_token());
    let mcp = {
        let server = server.clone();
        StreamableHttpService::new(move || Ok(server.clone()), sessions.clone(), config)
    };
    let state = Arc::new(State { server, mcp, sessions: sessions.clone(), options, bound, stop: stop.clone() });
    let reaper = tokio::spawn(reap(sessions, stop.clone()));
    let mut connections = tokio::task::JoinSet::new();
    let open = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let waiting = Arc::new(Waiting::default());
    loop {
        // At the cap, the oldest connection that has made no request the guard lets through is closed
        // for the new one (idle or slow clients cannot starve the others); with none, new connections
        // wait in the kernel's backlog until one closes.
        let slot = match open.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                waiting.evict_oldest();
                let Ok(slot) = open.clone().acquire_owned().await else { break };
                slot
            }
        };
        let (stream, peer) = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(err) => {
                    tracing::warn!(%err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let state = state.clone();
        let (id, evicted) = waiting.admit();
        let waiting = waiting.clone();
        connections.spawn(async move {
            let _slot = slot;
            let served = waiting.clone();
            let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
                let state = state.clone();
                // `/health` is answered to anyone (and the guard's refusal would log a warning for it).
                if request.uri().path() == "/health" {
                    served.served(id);
                } else if refusal(&state, &request, peer).is_none() {
                    // A request with a body is let through once its body has arrived (`read_body`): until
                    // then the connection may be closed like an idle one.
                    if request.method() == Method::POST {
                        request.extensions_mut().insert(ServedMark(served.clone(), id));
                    } else {
                        served.served(id);
                    }
                }
                async move { Ok::<_, Infallible>(route(&state, request, peer).await) }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            // A client that does not finish its headers in time is dropped (before any guard runs).
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(io, service);
            // A connection whose first request the guard let through has no further deadline here.
            let first_request = async {
                tokio::time::sleep(FIRST_REQUEST_TIMEOUT).await;
                if !waiting.is_waiting(id) {
                    std::future::pending::<()>().await;
                }
            };
            tokio::select! {
                ended = connection => {
                    if let Err(err) = ended {
                        tracing::debug!(%err, %peer, "connection ended with an error");
                    }
                }
                () = evicted.cancelled() => tracing::debug!(%peer, "connection closed for a new one: it made no request"),
                () = first_request => tracing::debug!(%peer, "connection closed: no request within the deadline"),
            }
            waiting.served(id);
        });
        while connections.try_join_next().is_some() {}
    }
    reaper.abort();
    // Let answers in flight finish, briefly; sessions' streams end with the cancelled token.
    let _ =
        tokio::time::timeout(Duration::from_secs(2), async { while connections.join_next().await.is_some() {} }).await;
    Ok(())
}

/// Marks a connection's request let through once its body has been read.
#[derive(Clone)]
struct ServedMark(Arc<Waiting>, u64);

/// The open connections that have made no request the guard lets through, oldest first.
#[derive(Default)]
struct Waiting {
    next: std::sync::atomic::AtomicU64,
    list: Mutex<std::collections::VecDeque<(u64, CancellationToken)>>,
}

impl Waiting {
    fn admit(&self) -> (u64, CancellationToken) {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let token = CancellationToken::new();
        self.lock().push_back((id, token.clone()));
        (id, token)
    }

    fn served(&self, id: u64) {
        self.lock().retain(|(waiting, _)| *waiting != id);
    }

    fn is_waiting(&self, id: u64) -> bool {
        self.lock().iter().any(|(waiting, _)| *waiting == id)
    }

    fn evict_oldest(&self) {
        if let Some((_, token)) = self.lock().pop_front() {
            token.cancel();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<(u64, CancellationToken)>> {
        self.list.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

struct State {
    server: DrsgServer,
    mcp: StreamableHttpService<DrsgServer, Sessions>,
    sessions: Arc<Sessions>,
    options: HttpOptions,
    bound: SocketAddr,
    stop: CancellationToken,
}

async fn route(state: &State, request: Request<Incoming>, peer: SocketAddr) -> Response<Body> {
    let path = request.uri().path();
    if path == "/health" {
        return match *request.method() {
            Method::GET | Method::HEAD => json_response(
                StatusCode::OK,
                &json!({"name": "drsg", "version": env!("CARGO_PKG_VERSION"), "status": "ok", "pid": std::process::id()}),
            ),
            _ => method_not_allowed("GET"),
        };
    }
    if !matches!(path, "/mcp" | "/rpc" | "/shutdown") {
        return text_response(StatusCode::NOT_FOUND, "not found: drsg serves /mcp, /rpc and /health\n");
    }
    if let Some(refused) = refusal(state, &request, peer) {
        return refused;
    }
    // A page in a browser can POST to loopback, but only as a "simple" request: never with a JSON
    // content type, which is what every client of ours sends (rmcp insists on it for /mcp too).
    if request.method() == Method::POST && !is_json(&request) {
        return text_response(StatusCode::UNSUPPORTED_MEDIA_TYPE, "send Content-Type: application/json\n");
    }
    match path {
        "/mcp" if request.method() == Method::POST => match read_body(request, state.options.max_body).await {
            // rmcp answers malformed JSON with 415 and text; a JSON-RPC client expects a parse error.
            Ok((parts, body)) => match serde_json::from_slice::<Value>(&body) {
                Ok(message) => {
                    let response = state.mcp.handle(Request::from_parts(parts, Full::new(body))).await;
                    // JSON that is no message rmcp takes (a batch, an id out of range) is answered 415
                    // too: the content type was right, so it is an invalid request.
                    if response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
                        let id = message.get("id").cloned().unwrap_or(Value::Null);
                        return json_response(
                            StatusCode::BAD_REQUEST,
                            &rpc_error(
                                id,
                                -32600,
                                "invalid request: not a JSON-RPC 2.0 request or notification (batches are not taken)",
                            ),
                        );
                    }
                    response
                }
                Err(err) => json_response(
                    StatusCode::BAD_REQUEST,
                    &rpc_error(Value::Null, -32700, &format!("parse error: {err}")),
                ),
            },
            Err(refused) => refused,
        },
        "/mcp" => {
            let ending = request.method() == Method::DELETE;
            // Ending a session that does not exist (or has ended) is a 404, as for any request naming it.
            if ending {
                let id = request.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(SessionId::from);
                if let Some(id) = id
                    && !state.sessions.has_session(&id).await.unwrap_or(false)
                {
                    return text_response(StatusCode::NOT_FOUND, "no such session: it has ended or never began\n");
                }
            }
            let mut response = state.mcp.handle(request).await;
            // rmcp acknowledges a session's end with 202; clients (the Python SDK) expect 200 or 204.
            if ending && response.status() == StatusCode::ACCEPTED {
                *response.status_mut() = StatusCode::OK;
            }
            response
        }
        "/rpc" if request.method() == Method::POST => rpc::rpc(state, request).await,
        "/rpc" => method_not_allowed("POST"),
        _ if request.method() == Method::POST => {
            tracing::info!(%peer, "shutdown requested over HTTP");
            state.stop.cancel();
            text_response(StatusCode::ACCEPTED, "stopping\n")
        }
        _ => method_not_allowed("POST"),
    }
}

fn is_json(request: &Request<Incoming>) -> bool {
    request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

/// A request's body, at most `limit` bytes (413 beyond, whatever `Content-Length` says).
async fn read_body(
    request: Request<Incoming>,
    limit: usize,
) -> Result<(hyper::http::request::Parts, Bytes), Response<Body>> {
    let too_large = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
        .is_some_and(|n| n > limit as u64);
    if too_large {
        return Err(too_large_response(limit));
    }
    let (parts, body) = request.into_parts();
    // A body that trickles in is cut off like a client that never sends its request.
    let Ok(collected) = tokio::time::timeout(BODY_TIMEOUT, Limited::new(body, limit).collect()).await else {
        return Err(text_response(
            StatusCode::REQUEST_TIMEOUT,
            &format!("the request body did not arrive within {} s\n", BODY_TIMEOUT.as_secs()),
        ));
    };
    match collected {
        Ok(collected) => {
            if let Some(mark) = parts.extensions.get::<ServedMark>() {
                mark.0.served(mark.1);
            }
            Ok((parts, collected.to_bytes()))
        }
        Err(err) if err.is::<http_body_util::LengthLimitError>() => Err(too_large_response(limit)),
        Err(err) => Err(text_response(StatusCode::BAD_REQUEST, &format!("could not read the request: {err}\n"))),
    }
}

/// The answer refusing `request`, if the guard refuses it.
fn refusal(state: &State, request: &Request<Incoming>, peer: SocketAddr) -> Option<Response<Body>> {
    let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok());
    // A browser names the page that sends a request: only pages this server could serve may.
    let origin = request.headers().get(header::ORIGIN).and_then(|h| h.to_str().ok());
    if let Some(origin) = origin
        && !origin_allowed(origin, &state.options, state.bound)
    {
        tracing::warn!(%peer, origin, "refused: Origin not allowed");
        return Some(text_response(StatusCode::FORBIDDEN, "forbidden: requests from this Origin are not served\n"));
    }
    if !host_allowed(host, &state.options, state.bound) {
        tracing::warn!(%peer, host = host.unwrap_or("(none)"), "refused: Host not allowed");
        return Some(text_response(
            StatusCode::FORBIDDEN,
            "forbidden: this Host is not served (loopback names always; others through DRSG_ALLOWED_HOSTS with a token)\n",
        ));
    }
    match &state.options.token {
        None if !peer.ip().is_loopback() => {
            tracing::warn!(%peer, "refused: not loopback and no token set");
            Some(text_response(
                StatusCode::FORBIDDEN,
                "forbidden: without DRSG_TOKEN only loopback clients are served\n",
            ))
        }
        None => None,
        Some(token) => {
            // The scheme is case-insensitive (RFC 7235).
            let given = request
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.split_once(' '))
                .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
                .map(|(_, token)| token)
                .unwrap_or_default();
            if same_secret(given.trim().as_bytes(), token.as_bytes()) {
                None
            } else {
                tracing::warn!(%peer, "refused: missing or wrong bearer token");
                let mut response =
                    text_response(StatusCode::UNAUTHORIZED, "unauthorized: send Authorization: Bearer <DRSG_TOKEN>\n");
                response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                Some(response)
            }
        }
    }
}

/// Compares two secrets in time that depends only on their lengths.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    let mut differ = u8::from(given.len() != expected.len());
    for (i, e) in expected.iter().enumerate() {
        differ |= e ^ given.get(i).copied().unwrap_or(!e);
    }
    differ == 0
}

/// Whether `Host` names this server: loopback names always; with a token also the bound address
/// and the allowed entries (`host` matches any port, `host:port` that port).
fn host_allowed(host: Option<&str>, options: &HttpOptions, bound: SocketAddr) -> bool {
    let Some(host) = host.map(str::to_ascii_lowercase) else { return false };
    let (name, port) = split_host(&host);
    if matches!(name, "localhost" | "127.0.0.1" | "::1") {
        return true;
    }
    if options.token.is_none() {
        return false;
    }
    let bound_ip = bound.ip();
    if !bound_ip.is_unspecified() && name.parse::<IpAddr>().ok() == Some(bound_ip) {
        return true;
    }
    options.allowed_hosts.iter().any(|entry| {
        let (entry_name, entry_port) = split_host(entry);
        entry_name == name && (entry_port.is_none() || entry_port == port)
    })
}

/// Whether a browser `Origin` (`scheme://host[:port]`, or `null`) names a host this server accepts.
fn origin_allowed(origin: &str, options: &HttpOptions, bound: SocketAddr) -> bool {
    let Some((scheme, host)) = origin.split_once("://") else { return false };
    matches!(scheme, "http" | "https") && host_allowed(Some(host), options, bound)
}

/// `host[:port]`, `[v6][:port]` → (host, port).
fn split_host(host: &str) -> (&str, Option<&str>) {
    if let Some(rest) = host.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((name, tail)) => (name, tail.strip_prefix(':')),
            None => (host, None),
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') => (name, Some(port)),
        _ => (host, None),
    }
}

fn rpc_error(id: Value, code: i32, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn empty() -> Body {
    Full::new(Bytes::new()).boxed()
}

fn text_response(status: StatusCode, text: &str) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Full::new(Bytes::from(text.to_owned())).boxed())
        .expect("a valid response")
}

fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    json_text_response(status, value.to_string())
}

fn json_text_response(status: StatusCode, text: String) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(text)).boxed())
        .expect("a valid response")
}

fn too_large_response(limit: usize) -> Response<Body> {
    text_response(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("payload too large: requests are limited to {limit} bytes (DRSG_MAX_REQUEST_BYTES)\n"),
    )
}

fn method_not_allowed(allowed: &'static str) -> Response<Body> {
    let mut response = text_response(StatusCode::METHOD_NOT_ALLOWED, &format!("method not allowed; use {allowed}\n"));
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allowed));
    response
}

/// rmcp's in-memory sessions, with our reaping: a session idle for `idle` (no request in flight,
/// none for that long), or open for `init` without a successful `initialize`, is closed and
/// forgotten, so its id then gets 404 and the client starts again. (rmcp's own idle timer stops a
/// session's worker but keeps its id, which would answer errors instead of 404.)
pub struct Sessions {
    inner: LocalSessionManager,
    seen: Arc<Mutex<HashMap<SessionId, Seen>>>,
    idle: Duration,
    init: Duration,
}

struct Seen {
    last: Instant,
    initialized: bool,
    /// Requests whose answer stream is still open.
    in_flight: usize,
}

impl Sessions {
    fn new(idle: Duration, init: Duration) -> Sessions {
        let mut inner = LocalSessionManager::default();
        let mut config = SessionConfig::default();
        config.keep_alive = None;
        config.init_timeout = None;
        inner.session_config = config;
        Sessions { inner, seen: Arc::new(Mutex::new(HashMap::new())), idle, init }
    }

    fn touch(&self, id: &SessionId) {
        touch(&self.seen, id, 0);
    }

    /// The sessions due to end now.
    fn expired(&self) -> Vec<SessionId> {
        let seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        seen.iter()
            .filter(|(_, s)| s.in_flight == 0 && s.last.elapsed() >= if s.initialized { self.idle } else { self.init })
            .map(|(id, _)| id.clone())
            .collect()
    }

    fn forget(&self, id: &SessionId) {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
    }
}

/// Notes activity on session `id`, with `in_flight` requests starting (+1) or ending (-1).
fn touch(seen: &Mutex<HashMap<SessionId, Seen>>, id: &SessionId, in_flight: isize) {
    let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
    let entry = seen.entry(id.clone()).or_insert(Seen { last: Instant::now(), initialized: false, in_flight: 0 });
    entry.last = Instant::now();
    entry.in_flight = entry.in_flight.saturating_add_signed(in_flight);
}

/// A request's answer stream; while it is open, its session is not idle.
struct Tracked {
    inner: std::pin::Pin<Box<dyn futures_core::Stream<Item = ServerSseMessage> + Send + Sync>>,
    seen: Arc<Mutex<HashMap<SessionId, Seen>>>,
    id: SessionId,
}

impl futures_core::Stream for Tracked {
    type Item = ServerSseMessage;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<ServerSseMessage>> {
        self.inner.as_mut().poll_next(cx)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        touch(&self.seen, &self.id, -1);
    }
}

async fn reap(sessions: Arc<Sessions>, stop: CancellationToken) {
    let tick = (sessions.init.min(sessions.idle) / 4).clamp(Duration::from_millis(250), Duration::from_secs(5));
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(tick) => {}
        }
        for id in sessions.expired() {
            tracing::info!(session = %id, "session reaped");
            if let Err(err) = sessions.close_session(&id).await {
                tracing::warn!(session = %id, %err, "closing a reaped session failed");
            }
        }
    }
}

impl SessionManager for Sessions {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        self.touch(&id);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        let answer = self.inner.initialize_session(id, message).await?;
        if let Some(seen) = self.seen.lock().unwrap_or_else(|p| p.into_inner()).get_mut(id) {
            seen.initialized = true;
        }
        Ok(answer)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.forget(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl futures_core::Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        touch(&self.seen, id, 1);
        match self.inner.create_stream(id, message).await {
            Ok(stream) => Ok(Tracked { inner: Box::pin(stream), seen: self.seen.clone(), id: id.clone() }),
            Err(err) => {
                touch(&self.seen, id, -1);
                Err(err)
            }
        }
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.touch(id);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl futures_core::Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // The standing GET stream stays open for the session's life: it does not keep it from idling.
        self.touch(id);
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl futures_core::Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.resume(id, last_event_id).await
    }

    async fn restore_session(&self, id: SessionId) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.inner.restore_session(id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(token: Option<&str>, hosts: &[&str]) -> HttpOptions {
        HttpOptions {
            token: token.map(str::to_owned),
            allowed_hosts: hosts.iter().map(|h| h.to_string()).collect(),
            max_body: DEFAULT_MAX_BODY,
            session_idle: SESSION_IDLE,
            session_init: SESSION_INIT,
        }
    }

    #[test]
    fn hosts_are_checked_against_dns_rebinding() {
        let bound: SocketAddr = "10.1.2.3:7700".parse().expect("an address");
        let open = options(None, &["code.example"]);
        let guarded = options(Some("0123456789abcdef"), &["code.example", "other.example:8080"]);
        for host in ["localhost", "localhost:7700", "127.0.0.1:7700", "[::1]:7700", "LOCALHOST"] {
            assert!(host_allowed(Some(host), &open, bound), "{host}");
            assert!(host_allowed(Some(host), &guarded, bound), "{host}");
        }
        for host in ["evil.example", "code.example", "10.1.2.3:7700", "127.0.0.1.evil.example"] {
            assert!(!host_allowed(Some(host), &open, bound), "{host} without a token");
        }
        assert!(!host_allowed(None, &open, bound));
        assert!(host_allowed(Some("10.1.2.3:7700"), &guarded, bound));
        assert!(host_allowed(Some("code.example:443"), &guarded, bound));
        assert!(host_allowed(Some("other.example:8080"), &guarded, bound));
        assert!(!host_allowed(Some("other.example:9090"), &guarded, bound));
        assert!(!host_allowed(Some("evil.example"), &guarded, bound));
        assert!(origin_allowed("http://localhost:5173", &open, bound));
        assert!(!origin_allowed("https://evil.example", &open, bound));
        assert!(!origin_allowed("null", &open, bound));
        assert!(origin_allowed("https://code.example", &guarded, bound));
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"0123456789abcdef", b"0123456789abcdef"));
        assert!(!same_secret(b"0123456789abcdeX", b"0123456789abcdef"));
        assert!(!same_secret(b"0123456789abcde", b"0123456789abcdef"));
        assert!(!same_secret(b"0123456789abcdef0", b"0123456789abcdef"));
        assert!(!same_secret(b"", b"0123456789abcdef"));
    }

    #[test]
    fn a_public_address_needs_a_token() {
        let public: SocketAddr = "0.0.0.0:7700".parse().expect("an address");
        let loopback: SocketAddr = "127.0.0.1:7700".parse().expect("an address");
        assert!(options(None, &[]).check_bind(&public).is_err());
        assert!(options(None, &[]).check_bind(&loopback).is_ok());
        assert!(options(Some("0123456789abcdef"), &[]).check_bind(&public).is_ok());
    }
}
