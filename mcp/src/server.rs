//! The MCP server: the verb table as tools (or one compact `drsg` tool), the guide and schema
//! resources, and the call gate every surface goes through: at most [`Limits::concurrent`] calls at
//! once process-wide, each with a deadline covering its wait and its run, on blocking threads,
//! against one open database behind one mutex (which is also the write gate).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use drsg_query::{Revisions, Session, SourceFiles, Store};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, InitializeResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use tokio::sync::Semaphore;

use crate::verbs::{self, CallError, Env, VERBS};

/// Short guidance sent with `initialize`: which verb answers which question.
pub const INSTRUCTIONS: &str = "drsg answers structural questions about this repository from a graph kept in step with git. \
Start with `context` for any symbol (callers, callees, unresolved calls). Before changing a symbol, run `impact`. \
For \"how does A reach B\", `trace`. Unknown name: `search`; plain text: `grep`; source: `snippet`. \
Old code: `recall` with a revision. Answers are bounded and say when they truncate.";

/// The guide resource.
pub const GUIDE_URI: &str = "drsg://guide";
/// The schema resource template.
pub const SCHEMA_TEMPLATE: &str = "drsg://planes/{plane}/schema";

/// Which tools the server lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolSet {
    /// One tool per verb.
    Full,
    /// A single `drsg` tool taking `{verb, args}` or `{help: verb}`.
    Compact,
}

/// Re-parses a plane from its own tree: the one write the tools offer. The binary supplies it (the
/// indexer is not a dependency of this crate); a server without one answers `rebuild` with an error.
pub trait Rebuild: Send + Sync {
    /// Rebuilds plane `plane`, recording `source` (who asked) on it; a one-line summary.
    fn rebuild(&self, store: &mut Store, plane: &str, source: &str) -> Result<String, String>;
}

/// What the server reads: the database, the tree's files and its revisions.
pub struct Backend {
    /// Shared with whatever else writes the database in this process (the watch loop): the mutex
    /// is the write gate.
    pub store: Arc<Mutex<Store>>,
    pub files: Box<dyn SourceFiles + Send>,
    pub revisions: Box<dyn Revisions + Send>,
    pub cwd: Option<PathBuf>,
    pub rebuild: Option<Box<dyn Rebuild>>,
}

/// How many calls run at once and how long one may take.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub concurrent: usize,
    /// Covers the wait for a turn and the run; `None`: no deadline.
    pub deadline: Option<Duration>,
}

/// Calls running at once, process-wide.
pub const MAX_CONCURRENT_CALLS: usize = 16;
/// The default deadline of a call.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(300);

impl Limits {
    /// The limits, the deadline from `DRSG_MCP_TOOL_DEADLINE_SECS` (seconds; 0 = none).
    pub fn from_env() -> Result<Limits, String> {
        let deadline = match std::env::var("DRSG_MCP_TOOL_DEADLINE_SECS") {
            Err(_) => Some(DEFAULT_DEADLINE),
            Ok(text) => match text.trim().parse::<f64>() {
                Ok(0.0) => None,
                Ok(secs) if secs > 0.0 => Some(Duration::try_from_secs_f64(secs).map_err(|_| {
                    format!("DRSG_MCP_TOOL_DEADLINE_SECS is too large (`{text}`); 0 means no deadline")
                })?),
                _ => {
                    return Err(format!("DRSG_MCP_TOOL_DEADLINE_SECS is a number of seconds (0 = none), not `{text}`"));
                }
            },
        };
        Ok(Limits { concurrent: MAX_CONCURRENT_CALLS, deadline })
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits { concurrent: MAX_CONCURRENT_CALLS, deadline: Some(DEFAULT_DEADLINE) }
    }
}

/// Why a call gave no answer.
#[derive(Debug)]
pub enum Failure {
    /// The call itself is wrong (unknown verb, bad arguments, unknown symbol's plane…).
    Invalid(CallError),
    /// No such verb.
    UnknownVerb(CallError),
    /// The deadline passed, waiting for a turn or running.
    Deadline(String),
    /// drsg failed (a panic in the verb).
    Internal(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Invalid(e) | Failure::UnknownVerb(e) => f.write_str(&e.0),
            Failure::Deadline(m) | Failure::Internal(m) => f.write_str(m),
        }
    }
}

struct Shared {
    backend: Backend,
    calls: Arc<Semaphore>,
    limits: Limits,
    /// Read-only handles on the database (none for one in memory): read verbs run on these, beside
    /// each other and beside a fold or a rebuild holding the store.
    readers: std::sync::Mutex<Vec<Store>>,
    returned: std::sync::Condvar,
    /// Whether there are reader handles at all.
    reads_apart: bool,
}

/// Reader handles a server keeps.
const READERS: usize = 4;

/// The drsg MCP server (cheap to clone: sessions share the backend and the call gate).
#[derive(Clone)]
pub struct DrsgServer {
    shared: Arc<Shared>,
    tools: ToolSet,
}

impl DrsgServer {
    pub fn new(backend: Backend, tools: ToolSet, limits: Limits) -> DrsgServer {
        let calls = Arc::new(Semaphore::new(limits.concurrent.max(1)));
        let readers = {
            let store = backend.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let mut readers = Vec::new();
            for _ in 0..READERS {
                match store.reader() {
                    Ok(Some(reader)) => readers.push(reader),
                    Ok(None) => break,
                    Err(err) => {
                        tracing::warn!(%err, "no reader handle: reads share the writing handle");
                        break;
                    }
                }
            }
            readers
        };
        let reads_apart = !readers.is_empty();
        let readers = std::sync::Mutex::new(readers);
        let returned = std::sync::Condvar::new();
        let shared = Shared { backend, calls, limits, readers, returned, reads_apart };
        DrsgServer { shared: Arc::new(shared), tools }
    }

    /// Runs `read` on a reader handle's snapshot, waiting (until `until`) for a free one; on the
    /// writing handle when there are none (a database in memory). `Err` when the deadline passed.
    fn reading<R>(&self, until: Option<Instant>, read: impl FnOnce(&Store) -> R) -> Result<R, Failure> {
        let shared = &self.shared;
        if !shared.reads_apart {
            let store = shared.backend.store.lock().unwrap_or_else(|p| p.into_inner());
            if until.is_some_and(|until| Instant::now() >= until) {
                return Err(Failure::Deadline("abandoned: the database was held past the deadline".into()));
            }
            return Ok(read(&store));
        }
        let mut free = shared.readers.lock().unwrap_or_else(|p| p.into_inner());
        let reader = loop {
            if let Some(reader) = free.pop() {
                break reader;
            }
            free = match until {
                None => shared.returned.wait(free).unwrap_or_else(|p| p.into_inner()),
                Some(until) => {
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(Failure::Deadline("abandoned: no reader was free before the deadline".into()));
                    }
                    shared.returned.wait_timeout(free, left).unwrap_or_else(|p| p.into_inner()).0
                }
            };
        };
        drop(free);
        let out = reader.snapshot(read);
        shared.readers.lock().unwrap_or_else(|p| p.into_inner()).push(reader);
        shared.returned.notify_one();
        out.map_err(|err| Failure::Internal(format!("reading the database failed: {err}")))
    }

    /// The tools this server lists.
    pub fn tools(&self) -> Vec<Tool> {
        match self.tools {
            ToolSet::Full => VERBS
                .iter()
                .map(|v| {
                    // The spec gives `destructiveHint` and `idempotentHint` meaning only for tools that
                    // write: read-only tools leave them out, which keeps the list small.
                    let hints = ToolAnnotations::new().read_only(v.read_only);
                    let hints = if v.read_only { hints } else { hints.destructive(false).idempotent(true) };
                    Tool::new(v.name, v.description, Arc::new(v.input_schema().clone())).with_annotations(hints)
                })
                .collect(),
            ToolSet::Compact => {
                let names: Vec<&str> = VERBS.iter().filter(|v| v.read_only).map(|v| v.name).collect();
                let schema: Map<String, Value> = serde_json::from_value(serde_json::json!({
                    "type": "object",
                    "properties": {
                        "verb": {"enum": names},
                        "args": {"type": "object"},
                        "help": {"type": "string", "description": "a verb: its arguments"}
                    }
                }))
                .expect("an object");
                let description = "Code graph of this repository. {verb, args}; {help: verb} lists a verb's args. \
                    context first; impact before a change; trace A to B; search/grep to find.";
                vec![
                    Tool::new("drsg", description, Arc::new(schema))
                        .with_annotations(ToolAnnotations::new().read_only(true)),
                ]
            }
        }
    }

    /// Runs one tool call through the gate: waits for a turn and runs on a blocking thread, both
    /// within the deadline. `source` labels the caller in the log and on anything the call writes.
    pub async fn call(&self, tool: &str, args: Map<String, Value>, source: &str) -> Result<verbs::Reply, Failure> {
        self.logged(tool, args, source, self.tools).await
    }

    /// Runs verb `verb` through the same gate, whatever the tool set (`/rpc`'s methods are the verbs).
    pub async fn call_verb(&self, verb: &str, args: Map<String, Value>, source: &str) -> Result<verbs::Reply, Failure> {
        self.logged(verb, args, source, ToolSet::Full).await
    }

    async fn logged(
        &self,
        tool: &str,
        args: Map<String, Value>,
        source: &str,
        tools: ToolSet,
    ) -> Result<verbs::Reply, Failure> {
        let started = Instant::now();
        let outcome = self.gated(tool, args, source, tools, started).await;
        let ms = started.elapsed().as_millis() as u64;
        match &outcome {
            Ok(reply) => tracing::info!(source, tool, ms, found = reply.found, "call"),
            Err(failure) => tracing::warn!(source, tool, ms, error = %failure, "call failed"),
        }
        outcome
    }

    async fn gated(
        &self,
        tool: &str,
        args: Map<String, Value>,
        source: &str,
        tools: ToolSet,
        started: Instant,
    ) -> Result<verbs::Reply, Failure> {
        let deadline = self.shared.limits.deadline;
        let waiting = self.shared.limits.concurrent - self.shared.calls.available_permits();
        let acquire = self.shared.calls.clone().acquire_owned();
        let permit = match deadline {
            None => acquire.await,
            Some(limit) => match tokio::time::timeout(limit, acquire).await {
                Ok(permit) => permit,
                Err(_) => {
                    return Err(Failure::Deadline(format!(
                        "drsg was busy: {waiting} calls were running and this one waited {} s for a turn without \
                         getting one (at most {} run at once); try again shortly",
                        limit.as_secs_f64().round(),
                        self.shared.limits.concurrent
                    )));
                }
            },
        }
        .map_err(|_| Failure::Internal("the server is shutting down".into()))?;
        let server = self.clone();
        let (tool_name, source_label) = (tool.to_owned(), source.to_owned());
        let running = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let gate = Gate { running: running.clone(), until: deadline.map(|d| started + d) };
        // The permit moves into the blocking task: a call abandoned at its deadline keeps its turn
        // until it really ends, so no more than the limit ever run.
        let task = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            server.run_blocking(&tool_name, args, &source_label, tools, &gate)
        });
        let joined = match deadline {
            None => task.await,
            Some(limit) => {
                let left = limit.saturating_sub(started.elapsed());
                match tokio::time::timeout(left, task).await {
                    Ok(joined) => joined,
                    Err(_) if !running.load(std::sync::atomic::Ordering::Acquire) => {
                        return Err(Failure::Deadline(busy_database(limit)));
                    }
                    Err(_) => {
                        return Err(Failure::Deadline(format!(
                            "the call was slow: it ran past the {} s deadline (DRSG_MCP_TOOL_DEADLINE_SECS) and its \
                             answer was dropped; ask a narrower question (a smaller depth, a path, a lower k)",
                            limit.as_secs_f64().round()
                        )));
                    }
                }
            }
        };
        joined.map_err(|join| Failure::Internal(format!("the call failed inside drsg: {join}")))?
    }

    /// Runs one call on the calling thread (a blocking thread, never the async runtime).
    fn run_blocking(
        &self,
        tool: &str,
        args: Map<String, Value>,
        source: &str,
        tools: ToolSet,
        gate: &Gate,
    ) -> Result<verbs::Reply, Failure> {
        let (verb, args) = match (tools, tool) {
            (ToolSet::Compact, "drsg") => match compact_call(args).map_err(Failure::Invalid)? {
                Compact::Help(text) => return Ok(verbs::Reply { text, found: true }),
                // The compact tool is read-only (its annotation says so): the write stays out.
                Compact::Call(verb, _) if verbs::find(&verb).is_some_and(|v| !v.read_only) => {
                    return Err(Failure::Invalid(CallError(format!(
                        "`{verb}` writes, and the compact `drsg` tool only reads: run `drsg {verb}` in the repository"
                    ))));
                }
                Compact::Call(verb, args) => (verb, args),
            },
            (ToolSet::Compact, other) => {
                return Err(Failure::UnknownVerb(CallError(format!("unknown tool `{other}`; the tool is `drsg`"))));
            }
            (ToolSet::Full, verb) => (verb.to_owned(), args),
        };
        if verbs::find(&verb).is_none() {
            return Err(Failure::UnknownVerb(CallError(format!(
                "unknown verb `{verb}`; verbs: {}",
                verbs::verb_names()
            ))));
        }
        let backend = &self.shared.backend;
        if verb == "rebuild" {
            // The one write: through the write gate, which a fold may hold.
            let mut store = backend.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if gate.until.is_some_and(|until| Instant::now() >= until) {
                return Err(Failure::Deadline("abandoned: the database was held past the deadline".into()));
            }
            gate.running.store(true, std::sync::atomic::Ordering::Release);
            return self.rebuild(&mut store, args, source).map_err(Failure::Invalid);
        }
        self.reading(gate.until, |store| {
            gate.running.store(true, std::sync::atomic::Ordering::Release);
            let env = Env {
                session: Session { store, cwd: backend.cwd.as_deref(), files: &*backend.files },
                revisions: &*backend.revisions,
            };
            verbs::call(&env, &verb, args).map_err(Failure::Invalid)
        })?
    }

    fn rebuild(&self, store: &mut Store, args: Map<String, Value>, source: &str) -> Result<verbs::Reply, CallError> {
        let plane = verbs::check_rebuild(args)?;
        let backend = &self.shared.backend;
        let writer = backend
            .rebuild
            .as_ref()
            .ok_or_else(|| CallError("this server cannot rebuild; run `drsg rebuild` in the repository".into()))?;
        let name = drsg_query::choose_plane(store, plane.as_deref(), backend.cwd.as_deref())
            .map_err(|e| CallError(e.to_string()))?
            .meta
            .name;
        let text = writer.rebuild(store, &name, source).map_err(CallError)?;
        Ok(verbs::Reply { text, found: true })
    }

    /// The guide: when to use which verb, and each verb's arguments.
    pub fn guide(&self) -> String {
        let mut out = format!("# drsg\n\n{INSTRUCTIONS}\n\n## Verbs\n\n");
        for verb in VERBS {
            // Required arguments first, in the table's order; then the optional ones.
            let mut args: Vec<String> = verb.required.iter().map(|a| a.to_string()).collect();
            args.extend(
                verb.own_arguments().iter().filter(|a| !verb.required.contains(&a.as_str())).map(|a| format!("{a}?")),
            );
            let writes = if verb.read_only { "" } else { " (writes)" };
            out.push_str(&format!("- `{}({})`{writes}: {}\n", verb.name, args.join(", "), verb.description));
        }
        out.push_str(
            "\nEvery verb also takes `plane` (default: the only code plane, or the one holding the working \
             directory), `format` (`text`, or `json` for the structured answer) and `budget` (characters of a \
             text answer, default 8000). A miss is an answer that says so; an error says what to change.\n\
             Each plane's labels and edge types: the resource `drsg://planes/{plane}/schema`.\n",
        );
        out
    }

    fn read(&self, uri: &str) -> Result<String, McpError> {
        if uri == GUIDE_URI {
            return Ok(self.guide());
        }
        let plane = uri
            .strip_prefix("drsg://planes/")
            .and_then(|rest| rest.strip_suffix("/schema"))
            .filter(|p| !p.is_empty() && !p.contains('/'))
            .ok_or_else(|| {
                McpError::resource_not_found(
                    format!("no resource `{uri}`; there are {GUIDE_URI} and {SCHEMA_TEMPLATE}"),
                    None,
                )
            })?;
        let params = drsg_query::SchemaParams { plane: Some(plane), cwd: None };
        let schema = self
            .reading(None, |store| drsg_query::schema(store, &params).map(|schema| schema.render()))
            .map_err(|failure| McpError::internal_error(failure.to_string(), None))?;
        schema.map_err(|err| McpError::resource_not_found(err.to_string(), None))
    }
}

/// What a call's blocking task needs to know of its deadline.
struct Gate {
    /// Set once the call holds the database and runs.
    running: Arc<std::sync::atomic::AtomicBool>,
    until: Option<Instant>,
}

fn busy_database(limit: Duration) -> String {
    format!(
        "drsg was busy: the call did not start within its {} s deadline (DRSG_MCP_TOOL_DEADLINE_SECS): every \
         reader was in use, or a fold or rebuild held the database; try again shortly",
        limit.as_secs_f64().round()
    )
}

/// The source label of an MCP client: its `clientInfo.name` trimmed, lowercased, with runs of
/// anything but ASCII letters and digits turned into one `-`, as `mcp:<name>` (`mcp` when empty).
pub fn source_label(client: Option<&str>) -> String {
    let mut name = String::new();
    for c in client.unwrap_or_default().trim().chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.ends_with('-') {
            name.push('-');
        }
    }
    let name = name.trim_matches('-');
    if name.is_empty() { "mcp".to_owned() } else { format!("mcp:{name}") }
}

enum Compact {
    Help(String),
    Call(String, Map<String, Value>),
}

fn compact_call(mut args: Map<String, Value>) -> Result<Compact, CallError> {
    if let Some(help) = args.get("help").and_then(Value::as_str) {
        let verb = verbs::find(help).ok_or_else(|| CallError(format!("no verb `{help}`")))?;
        let schema = Value::Object(verb.input_schema().clone());
        return Ok(Compact::Help(format!("{}: {}\narguments: {}", verb.name, verb.description, schema)));
    }
    let verb = args.get("verb").and_then(Value::as_str).map(str::to_owned).ok_or_else(|| {
        CallError(format!("pass `verb` (one of: {}) and `args`, or `help` with a verb", verbs::verb_names()))
    })?;
    let call_args = match args.remove("args") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map,
        Some(_) => return Err(CallError("`args` is an object of the verb's arguments".into())),
    };
    Ok(Compact::Call(verb, call_args))
}

impl ServerHandler for DrsgServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("drsg", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let client = context.peer.peer_info();
        let source = source_label(client.as_ref().map(|info| info.client_info.name.as_str()));
        let args = request.arguments.unwrap_or_default();
        let result = match self.call(&request.name, args, &source).await {
            Ok(reply) => CallToolResult::success(vec![ContentBlock::text(reply.text)]),
            Err(failure) => CallToolResult::error(vec![ContentBlock::text(failure.to_string())]),
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let guide = Resource::new(GUIDE_URI, "guide")
            .with_description("Which drsg verb answers which question, and each verb's arguments")
            .with_mime_type("text/markdown");
        Ok(ListResourcesResult::with_all_items(vec![guide]))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let schema = ResourceTemplate::new(SCHEMA_TEMPLATE, "plane schema")
            .with_description("A plane's labels with counts, edge types with endpoint labels, key prefixes")
            .with_mime_type("text/plain");
        Ok(ListResourceTemplatesResult::with_all_items(vec![schema]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let server = self.clone();
        let uri = request.uri;
        let text = tokio::task::spawn_blocking({
            let uri = uri.clone();
            move || server.read(&uri)
        })
        .await
        .map_err(|e| McpError::internal_error(format!("reading the resource failed: {e}"), None))??;
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri)]).into())
    }
}

/// Serves `server` over stdin and stdout until the client hangs up.
pub fn serve_stdio(server: DrsgServer) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async move {
        let running = rmcp::ServiceExt::serve(server, rmcp::transport::stdio())
            .await
            .map_err(|e| std::io::Error::other(format!("starting the MCP session: {e}")))?;
        running.waiting().await.map_err(|e| std::io::Error::other(format!("the MCP session ended badly: {e}")))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::source_label;

    #[test]
    fn client_names_become_source_labels() {
        assert_eq!(source_label(Some("  Claude Code  ")), "mcp:claude-code");
        assert_eq!(source_label(Some("VS Code / Copilot++")), "mcp:vs-code-copilot");
        assert_eq!(source_label(Some("--")), "mcp");
        assert_eq!(source_label(Some("")), "mcp");
        assert_eq!(source_label(None), "mcp");
        assert_eq!(source_label(Some("Zed 0.1")), "mcp:zed-0-1");
    }
}
