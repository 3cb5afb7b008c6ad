//! The stdio relay: `drsg-mcp` started in a repository whose `.mcp.json` names a live drsg server
//! passes the client's session to it message by message instead of opening the database (which
//! the server holds). Each line from stdin is POSTed to the server's `/mcp`; each JSON-RPC message
//! in the answer (plain JSON, or the events of an SSE stream) becomes one line on stdout.
//!
//! The relay keeps the session id the server assigns and the protocol version it negotiates. When
//! the server answers 404 (the session was reaped while the client idled), it opens a new session
//! by replaying the client's `initialize` and carries on, so the client never sees the gap.
//!
//! The declared server is found by `find_target` (`.mcp.json` up to the repository's root, its
//! owner and mode checked) and must answer `/health` within 1.5 s.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header;
use hyper::{Method, Request, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tokio::sync::Mutex;

/// How long `/health` may take for the server to count as live.
pub const HEALTH_TIMEOUT: Duration = Duration::from_millis(1500);

/// A drsg server declared in a `.mcp.json`.
#[derive(Debug, Clone)]
pub struct Target {
    /// `host:port` of the server.
    pub authority: String,
    /// The path of its MCP endpoint (`/mcp`).
    pub path: String,
    /// The `Authorization` header to send, as declared.
    pub authorization: Option<String>,
    /// The `.mcp.json` it came from.
    pub declared_in: PathBuf,
}

impl Target {
    pub fn url(&self) -> String {
        format!("http://{}{}", self.authority, self.path)
    }
}

/// Why a `.mcp.json` was passed over (for the log).
#[derive(Debug)]
pub struct Skipped {
    pub file: PathBuf,
    pub reason: String,
}

/// Looks for a `.mcp.json` declaring a drsg HTTP server, from `start` up to the repository's root
/// (the first directory holding `.git`; only `start` itself when there is none). Files not owned by
/// this user, or writable by group or others, are skipped: anyone who can write one could point the
/// relay (and the Authorization it carries) elsewhere.
pub fn find_target(start: &Path) -> (Option<Target>, Vec<Skipped>) {
    let mut skipped = Vec::new();
    let root = start.ancestors().find(|dir| dir.join(".git").exists());
    for dir in start.ancestors() {
        let file = dir.join(".mcp.json");
        if file.is_file() {
            match read_target(&file) {
                Ok(Some(target)) => return (Some(target), skipped),
                Ok(None) => {}
                Err(reason) => skipped.push(Skipped { file, reason }),
            }
        }
        if root.is_none_or(|root| root == dir) {
            break;
        }
    }
    (None, skipped)
}

fn read_target(file: &Path) -> Result<Option<Target>, String> {
    check_owner(file)?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("unreadable: {e}"))?;
    let config: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let Some(server) = config.pointer("/mcpServers/drsg") else { return Ok(None) };
    if server.get("type").and_then(Value::as_str).is_some_and(|t| t != "http") {
        return Ok(None);
    }
    let Some(url) = server.get("url").and_then(Value::as_str) else { return Ok(None) };
    let (authority, path) =
        split_url(url).ok_or_else(|| format!("url `{url}` is not http://<loopback host>:PORT/PATH"))?;
    let authorization = server.pointer("/headers/Authorization").and_then(Value::as_str).map(str::to_owned);
    Ok(Some(Target { authority, path, authorization, declared_in: file.to_path_buf() }))
}

#[cfg(unix)]
fn check_owner(file: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(file).map_err(|e| format!("unreadable: {e}"))?;
    let me = own_uid();
    if me.is_some_and(|me| me != meta.uid()) {
        return Err(format!("owned by uid {}, not this user", meta.uid()));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(format!("writable by group or others (mode {:o})", meta.mode() & 0o777));
    }
    Ok(())
}

/// This process's user id, portably and without `unsafe`: the owner of a file it creates (in the
/// temporary directory, removed at once). `None` when no file can be made there.
#[cfg(unix)]
fn own_uid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?.subsec_nanos();
    let probe = std::env::temp_dir().join(format!(".drsg-uid-{}-{nanos}", std::process::id()));
    let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&probe).ok()?;
    let uid = file.metadata().map(|m| m.uid()).ok();
    drop(file);
    let _ = std::fs::remove_file(&probe);
    uid
}

#[cfg(not(unix))]
fn check_owner(_file: &Path) -> Result<(), String> {
    Ok(())
}

/// `http://host:port/path` → (`host:port`, `/path`). Only plain HTTP to a loopback host: the relay
/// talks to the server `drsg init` started on this machine, never to one a checkout points elsewhere.
fn split_url(url: &str) -> Option<(String, String)> {
    let rest = url.strip_prefix("http://")?;
    let (authority, path) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => authority.split(':').next()?,
    };
    if !matches!(host, "127.0.0.1" | "localhost" | "::1") {
        return None;
    }
    let authority = if authority.rsplit_once(':').is_some_and(|(_, p)| p.parse::<u16>().is_ok()) {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    Some((authority, path.to_owned()))
}

/// Whether a drsg server answers `GET /health` at `authority` (`host:port`) within [`HEALTH_TIMEOUT`].
pub async fn health(authority: &str) -> bool {
    served_by(authority).await.is_some()
}

/// The process id of the drsg server answering `GET /health` at `authority` within
/// [`HEALTH_TIMEOUT`], if one does.
pub async fn served_by(authority: &str) -> Option<u32> {
    let probe = async {
        let request = Request::get("/health").header(header::HOST, authority).body(Full::new(Bytes::new())).ok()?;
        let response = send(authority, request).await.ok()?;
        if response.status() != StatusCode::OK {
            return None;
        }
        let body = response.into_body().collect().await.ok()?.to_bytes();
        let health: Value = serde_json::from_slice(&body).ok()?;
        if health.get("name").and_then(Value::as_str) != Some("drsg") {
            return None;
        }
        health.get("pid").and_then(Value::as_u64).map(|pid| pid as u32)
    };
    tokio::time::timeout(HEALTH_TIMEOUT, probe).await.ok().flatten()
}

/// Asks the drsg server at `authority` to stop (`POST /shutdown`, what `drsg stop` does).
pub async fn shutdown(authority: &str, authorization: Option<&str>) -> Result<(), String> {
    let mut request =
        Request::post("/shutdown").header(header::HOST, authority).header(header::CONTENT_TYPE, "application/json");
    if let Some(auth) = authorization {
        request = request.header(header::AUTHORIZATION, auth);
    }
    let request = request.body(Full::new(Bytes::new())).map_err(|e| e.to_string())?;
    let response = tokio::time::timeout(Duration::from_secs(5), send(authority, request))
        .await
        .map_err(|_| "the server did not answer within 5 s".to_owned())??;
    match response.status() {
        StatusCode::ACCEPTED => Ok(()),
        status => Err(format!("the server refused to stop: {status}")),
    }
}

/// What a server answered to one `/rpc` call.
#[derive(Debug)]
pub enum RpcAnswer {
    /// The verb answered: whether it found something, and its answer as written (a JSON string
    /// for a text answer).
    Found { found: bool, answer: Box<serde_json::value::RawValue> },
    /// The call failed: the JSON-RPC error's code and sentence.
    Failed { code: i64, message: String },
}

#[derive(serde::Deserialize)]
struct RpcResponse {
    result: Option<RpcResult>,
    error: Option<RpcError>,
}

#[derive(serde::Deserialize)]
struct RpcResult {
    found: bool,
    answer: Box<serde_json::value::RawValue>,
}

#[derive(serde::Deserialize)]
struct RpcError {
    code: i64,
    message: String,
}

/// Calls verb `method` with `params` on the drsg server at `authority` (`POST /rpc`), with no
/// deadline of its own: the server's call deadline bounds it.
pub async fn rpc(
    authority: &str,
    authorization: Option<&str>,
    method: &str,
    params: serde_json::Map<String, Value>,
) -> Result<RpcAnswer, String> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let mut request =
        Request::post("/rpc").header(header::HOST, authority).header(header::CONTENT_TYPE, "application/json");
    if let Some(auth) = authorization {
        request = request.header(header::AUTHORIZATION, auth);
    }
    let request = request.body(Full::new(Bytes::from(body))).map_err(|e| e.to_string())?;
    let response = send(authority, request).await?;
    let status = response.status();
    let body = response.into_body().collect().await.map_err(|e| format!("reading the answer: {e}"))?.to_bytes();
    if status != StatusCode::OK {
        return Err(format!("{status}: {}", String::from_utf8_lossy(&body).trim()));
    }
    let response: RpcResponse =
        serde_json::from_slice(&body).map_err(|e| format!("an answer that is not JSON-RPC: {e}"))?;
    match (response.result, response.error) {
        (Some(result), _) => Ok(RpcAnswer::Found { found: result.found, answer: result.answer }),
        (None, Some(error)) => Ok(RpcAnswer::Failed { code: error.code, message: error.message }),
        (None, None) => Err("an answer with neither result nor error".into()),
    }
}

async fn send(
    authority: &str,
    request: Request<Full<Bytes>>,
) -> Result<hyper::Response<hyper::body::Incoming>, String> {
    let stream = tokio::net::TcpStream::connect(authority).await.map_err(|e| format!("cannot connect: {e}"))?;
    let io = hyper_util::rt::TokioIo::new(stream);
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(io).await.map_err(|e| format!("HTTP handshake: {e}"))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    sender.send_request(request).await.map_err(|e| format!("request failed: {e}"))
}

/// What the relay remembers of the session.
#[derive(Default)]
struct SessionState {
    id: Option<String>,
    protocol: Option<String>,
    /// The client's `initialize` request and `initialized` notification, replayed on 404.
    initialize: Option<Value>,
    initialized: Option<Value>,
}

struct Relay {
    target: Target,
    session: Mutex<SessionState>,
    /// Held while a new session is opened, so requests that all met the same 404 open one.
    reopening: Mutex<()>,
    out: Mutex<tokio::io::Stdout>,
}

/// Relays stdin/stdout to `target` until stdin closes, then ends the server session.
pub async fn relay_stdio(target: Target) -> std::io::Result<()> {
    let relay = Arc::new(Relay {
        target,
        session: Mutex::new(SessionState::default()),
        reopening: Mutex::new(()),
        out: Mutex::new(tokio::io::stdout()),
    });
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut tasks = tokio::task::JoinSet::new();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(err) => {
                relay.write(&json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": format!("parse error: {err}")}})).await?;
                continue;
            }
        };
        match message.get("method").and_then(Value::as_str) {
            // The handshake goes first and alone: the session id comes with its answer.
            Some("initialize") => {
                relay.session.lock().await.initialize = Some(message.clone());
                relay.forward(message).await?;
            }
            Some("notifications/initialized") => {
                relay.session.lock().await.initialized = Some(message.clone());
                relay.forward(message).await?;
            }
            _ => {
                let relay = relay.clone();
                tasks.spawn(async move { relay.forward(message).await });
                while let Some(done) = tasks.try_join_next() {
                    done.map_err(std::io::Error::other)??;
                }
            }
        }
    }
    while let Some(done) = tasks.join_next().await {
        done.map_err(std::io::Error::other)??;
    }
    relay.end_session().await;
    Ok(())
}

impl Relay {
    async fn write(&self, message: &Value) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut out = self.out.lock().await;
        out.write_all(&line).await?;
        out.flush().await
    }

    /// Sends one message and writes what comes back; on 404 opens a new session and retries once.
    async fn forward(&self, message: Value) -> std::io::Result<()> {
        let is_initialize = message.get("method").and_then(Value::as_str) == Some("initialize");
        match self.post(&message, !is_initialize).await {
            Ok(()) => Ok(()),
            Err(Posted::SessionGone(gone)) if !is_initialize => match self.reinitialize(&gone).await {
                Ok(()) => match self.post(&message, true).await {
                    Ok(()) => Ok(()),
                    Err(failure) => self.fail(&message, &failure.to_string()).await,
                },
                Err(failure) => self.fail(&message, &failure.to_string()).await,
            },
            Err(failure) => self.fail(&message, &failure.to_string()).await,
        }
    }

    /// A JSON-RPC error for a request the server could not answer (a notification gets none).
    async fn fail(&self, message: &Value, why: &str) -> std::io::Result<()> {
        tracing::warn!(%why, "relay failed a message");
        match message.get("id") {
            Some(id) if message.get("method").is_some() => {
                let text = format!("drsg-mcp relay to {}: {why}", self.target.url());
                self.write(&json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": text}})).await
            }
            _ => Ok(()),
        }
    }

    /// Opens a new session in place of `gone`, unless another request already did.
    async fn reinitialize(&self, gone: &str) -> Result<(), Posted> {
        let _one_at_a_time = self.reopening.lock().await;
        let (initialize, initialized) = {
            let mut session = self.session.lock().await;
            if session.id.as_deref() != Some(gone) {
                return Ok(());
            }
            tracing::info!("the server ended the session; opening a new one");
            session.id = None;
            (session.initialize.clone(), session.initialized.clone())
        };
        let initialize = initialize.ok_or(Posted::Failed("no initialize to replay".into()))?;
        self.post_quiet(&initialize).await?;
        if let Some(initialized) = initialized {
            self.post_quiet(&initialized).await?;
        }
        Ok(())
    }

    /// Posts a replayed handshake message; its answer is for the relay, not the client.
    async fn post_quiet(&self, message: &Value) -> Result<(), Posted> {
        let response = self.request(message, true).await?;
        let status = response.status();
        self.remember(&response).await;
        let body = response.into_body().collect().await.map_err(|e| Posted::Failed(e.to_string()))?.to_bytes();
        if !status.is_success() {
            return Err(Posted::Failed(format!(
                "the server answered {status}: {}",
                String::from_utf8_lossy(&body).trim()
            )));
        }
        for message in messages_of(&body) {
            self.note_protocol(&message).await;
        }
        Ok(())
    }

    async fn request(
        &self,
        message: &Value,
        with_session: bool,
    ) -> Result<hyper::Response<hyper::body::Incoming>, Posted> {
        let body = serde_json::to_vec(message).map_err(|e| Posted::Failed(e.to_string()))?;
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(&self.target.path)
            .header(header::HOST, &self.target.authority)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream");
        if let Some(auth) = &self.target.authorization {
            request = request.header(header::AUTHORIZATION, auth);
        }
        {
            let session = self.session.lock().await;
            if with_session && let Some(id) = &session.id {
                request = request.header("mcp-session-id", id);
            }
            for (name, value) in protocol_headers(message, session.protocol.as_deref()) {
                request = request.header(name, value);
            }
        }
        let request = request.body(Full::new(Bytes::from(body))).map_err(|e| Posted::Failed(e.to_string()))?;
        send(&self.target.authority, request).await.map_err(Posted::Failed)
    }

    async fn remember(&self, response: &hyper::Response<hyper::body::Incoming>) {
        if let Some(id) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
            self.session.lock().await.id = Some(id.to_owned());
        }
    }

    async fn note_protocol(&self, message: &Value) {
        if let Some(version) = message.pointer("/result/protocolVersion").and_then(Value::as_str) {
            self.session.lock().await.protocol = Some(version.to_owned());
        }
    }

    async fn post(&self, message: &Value, with_session: bool) -> Result<(), Posted> {
        let sent_with = if with_session { self.session.lock().await.id.clone() } else { None };
        let response = self.request(message, with_session).await?;
        let status = response.status();
        if status == StatusCode::NOT_FOUND
            && let Some(gone) = sent_with
        {
            return Err(Posted::SessionGone(gone));
        }
        self.remember(&response).await;
        if status == StatusCode::ACCEPTED {
            return Ok(());
        }
        let is_sse = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("text/event-stream"));
        let mut body = response.into_body();
        if !status.is_success() {
            let bytes = body.collect().await.map_err(|e| Posted::Failed(e.to_string()))?.to_bytes();
            return Err(Posted::Failed(format!(
                "the server answered {status}: {}",
                String::from_utf8_lossy(&bytes).trim()
            )));
        }
        // A request expects its answer: a stream that ends without it would leave the client waiting.
        let expects = message.get("method").and(message.get("id")).cloned();
        let mut answered = false;
        if !is_sse {
            let bytes = body.collect().await.map_err(|e| Posted::Failed(e.to_string()))?.to_bytes();
            for answer in messages_of(&bytes) {
                answered |= answers(&answer, expects.as_ref());
                self.note_protocol(&answer).await;
                self.write(&answer).await.map_err(|e| Posted::Failed(e.to_string()))?;
            }
            return match (expects, answered) {
                (Some(_), false) => Err(Posted::Failed("the server answered without a response".into())),
                _ => Ok(()),
            };
        }
        // An event stream: pass each event's message on as it arrives.
        let mut pending: Vec<u8> = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| Posted::Failed(format!("the stream broke: {e}")))?;
            let Ok(data) = frame.into_data() else { continue };
            pending.extend_from_slice(&data);
            while let Some((event, rest)) = split_event(&pending) {
                let event = event.to_vec();
                pending = rest.to_vec();
                if let Some(answer) = event_message(&event) {
                    answered |= answers(&answer, expects.as_ref());
                    self.note_protocol(&answer).await;
                    self.write(&answer).await.map_err(|e| Posted::Failed(e.to_string()))?;
                }
            }
        }
        match (expects, answered) {
            (Some(_), false) => Err(Posted::Failed("the server closed the stream without answering".into())),
            _ => Ok(()),
        }
    }

    /// Ends the server's session (`DELETE`), best effort.
    async fn end_session(&self) {
        let Some(id) = self.session.lock().await.id.clone() else { return };
        let mut request = Request::builder()
            .method(Method::DELETE)
            .uri(&self.target.path)
            .header(header::HOST, &self.target.authority)
            .header("mcp-session-id", id);
        if let Some(auth) = &self.target.authorization {
            request = request.header(header::AUTHORIZATION, auth);
        }
        if let Ok(request) = request.body(Full::new(Bytes::new())) {
            let _ = tokio::time::timeout(Duration::from_secs(2), send(&self.target.authority, request)).await;
        }
    }
}

/// The first protocol revision whose requests carry their version in `_meta` and name their method
/// (and target) in headers.
const STATELESS_REVISION: &str = "2026-07-28";

/// The protocol headers an HTTP client sends with `message`, which arrived over stdio with none:
/// `MCP-Protocol-Version` (the version the request states in its `_meta`, else the one negotiated
/// by `initialize`), and from the 2026-07-28 revision on `Mcp-Method` and `Mcp-Name` (the tool,
/// resource or task a request is about).
fn protocol_headers(message: &Value, negotiated: Option<&str>) -> Vec<(&'static str, String)> {
    let mut headers = Vec::new();
    let method = message.get("method").and_then(Value::as_str);
    let stated = message.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion").and_then(Value::as_str);
    // `initialize` negotiates the version: its request carries none (a replayed one would
    // otherwise carry the old session's, which may differ from what its body asks).
    let version = stated.or(negotiated.filter(|_| method != Some("initialize")));
    let Some(version) = version else { return headers };
    headers.push(("mcp-protocol-version", version.to_owned()));
    // Revisions are dates: they compare as text.
    if version < STATELESS_REVISION {
        return headers;
    }
    let Some(method) = method else { return headers };
    headers.push(("mcp-method", method.to_owned()));
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return headers,
    };
    if let Some(name) = message.get("params").and_then(|p| p.get(key)).and_then(Value::as_str) {
        headers.push(("mcp-name", header_text(name)));
    }
    headers
}

/// A value as an HTTP header carries it: as it is when it is printable ASCII without surrounding
/// blanks, else wrapped as `=?base64?…?=`.
fn header_text(value: &str) -> String {
    let blank_ends = value.starts_with([' ', '\t']) || value.ends_with([' ', '\t']);
    let printable = value.chars().all(|c| (' '..='~').contains(&c));
    let wrapped = value.starts_with("=?base64?") && value.ends_with("?=");
    if printable && !blank_ends && !wrapped {
        value.to_owned()
    } else {
        use base64::Engine as _;
        format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(value))
    }
}

/// Whether `message` is the response to request id `expects`.
fn answers(message: &Value, expects: Option<&Value>) -> bool {
    expects.is_some_and(|id| {
        message.get("id") == Some(id) && (message.get("result").is_some() || message.get("error").is_some())
    })
}

#[derive(Debug)]
enum Posted {
    /// The server no longer knows the session with this id.
    SessionGone(String),
    Failed(String),
}

impl std::fmt::Display for Posted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Posted::SessionGone(_) => f.write_str("the server no longer knows this session"),
            Posted::Failed(why) => f.write_str(why),
        }
    }
}

/// The JSON-RPC messages of a plain JSON body (one message or a batch).
fn messages_of(body: &[u8]) -> Vec<Value> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Array(batch)) => batch,
        Ok(one) => vec![one],
        Err(_) => {
            // Not JSON: maybe a whole event stream read at once.
            let mut out = Vec::new();
            let mut rest = body;
            while let Some((event, tail)) = split_event(rest) {
                out.extend(event_message(event));
                rest = tail;
            }
            out.extend(event_message(rest));
            out
        }
    }
}

/// The first complete event of an SSE buffer and the rest (events end with a blank line).
fn split_event(buffer: &[u8]) -> Option<(&[u8], &[u8])> {
    let lf = buffer.windows(2).position(|w| w == b"\n\n").map(|at| (at, 2));
    let crlf = buffer.windows(4).position(|w| w == b"\r\n\r\n").map(|at| (at, 4));
    let (at, len) = match (lf, crlf) {
        (Some(a), Some(b)) => {
            if a.0 <= b.0 {
                a
            } else {
                b
            }
        }
        (Some(a), None) => a,
        (None, Some(b)) => b,
        (None, None) => return None,
    };
    Some((&buffer[..at], &buffer[at + len..]))
}

/// The JSON message in an SSE event's `data:` lines, if any (priming events carry none).
fn event_message(event: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(event).ok()?;
    let data: Vec<&str> =
        text.lines().filter_map(|line| line.strip_prefix("data:")).map(|d| d.strip_prefix(' ').unwrap_or(d)).collect();
    if data.is_empty() {
        return None;
    }
    serde_json::from_str(&data.join("\n")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_over_stdio_get_the_headers_of_their_revision() {
        let listing = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        assert_eq!(protocol_headers(&listing, None), vec![]);
        assert_eq!(protocol_headers(&listing, Some("2025-06-18")), vec![("mcp-protocol-version", "2025-06-18".into())]);
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}});
        assert_eq!(protocol_headers(&initialize, Some("2025-06-18")), vec![]);
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "context", "arguments": {}, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
        }});
        assert_eq!(
            protocol_headers(&call, Some("2025-06-18")),
            vec![
                ("mcp-protocol-version", "2026-07-28".into()),
                ("mcp-method", "tools/call".into()),
                ("mcp-name", "context".into())
            ]
        );
        let read = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {
            "uri": "drsg://planes/caf\u{e9}/schema", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
        }});
        let headers = protocol_headers(&read, None);
        assert_eq!(headers[2], ("mcp-name", "=?base64?ZHJzZzovL3BsYW5lcy9jYWbDqS9zY2hlbWE=?=".into()));
    }

    #[test]
    fn urls_split_into_authority_and_path() {
        assert_eq!(split_url("http://127.0.0.1:7700/mcp"), Some(("127.0.0.1:7700".into(), "/mcp".into())));
        assert_eq!(split_url("http://localhost/mcp"), Some(("localhost:80".into(), "/mcp".into())));
        assert_eq!(split_url("http://[::1]:7700/mcp"), Some(("[::1]:7700".into(), "/mcp".into())));
        assert_eq!(split_url("https://example.com/mcp"), None);
        assert_eq!(split_url("http://example.com:7700/mcp"), None);
        assert_eq!(split_url("http://user@evil/mcp"), None);
        assert_eq!(split_url("http://127.0.0.1.evil.example/mcp"), None);
    }

    #[test]
    fn sse_events_yield_their_messages() {
        let stream =
            b"id: 0\nretry: 3000\ndata:\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        let messages = messages_of(stream);
        assert_eq!(messages, vec![json!({"jsonrpc": "2.0", "id": 1, "result": {}})]);
        let (first, rest) = split_event(b"data: 1\r\n\r\ndata: 2\n\n").expect("an event");
        assert_eq!(first, b"data: 1");
        assert_eq!(event_message(first), Some(json!(1)));
        assert_eq!(split_event(rest).map(|(e, _)| e), Some(&b"data: 2"[..]));
    }
}
