//! The MCP server: the verb table as tools (or one compact `drsg` tool), the guide and schema
//! resources, and the call gate every surface goes through: at most [`Limits::concurrent`] calls at
//! once process-wide, each with a deadline covering its wait and its run, on blocking threads,
//! answered by the query crate's [`Backend`] (a shared store: reader handles and one write gate).
//!
//! The gate has two doors: `DrsgServer::call`, for MCP tool calls under the server's tool set, and
//! `DrsgServer::call_verb`, for `/rpc`'s methods, by verb whatever the tool set; both run through
//! the same private `logged` and `gated` steps, which allow at most 16 calls at once, put a
//! deadline over queue and run, run the call on a blocking thread, and write the log line with its
//! source. A write (`rebuild`) goes through the shared store's writing handle to the `Writer` the
//! binary supplies; bad arguments are a tool result with `isError` and a sentence, a miss a normal
//! answer.

use std::sync::Arc;
use std::time::{Duration, Instant};

use drsg_query::verbs::{Backend, CallError, Failure, Registry, Reply, Verb};
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

struct Shared {
    backend: Backend,
    calls: Arc<Semaphore>,
    limits: Limits,
}

/// The drsg MCP server (cheap to clone: sessions share the backend and the call gate).
#[derive(Clone)]
pub struct DrsgServer {
    shared: Arc<Shared>,
    tools: ToolSet,
}

impl DrsgServer {
    pub fn new(backend: Backend, tools: ToolSet, limits: Limits) -> DrsgServer {
        let calls = Arc::new(Semaphore::new(limits.concurrent.max(1)));
        DrsgServer { shared: Arc::new(Shared { backend, calls, limits }), tools }
    }

    /// The verb table the server answers from.
    pub fn verbs(&self) -> &Registry {
        &self.shared.backend.verbs
    }

    /// The verbs offered as tools.
    fn tool_verbs(&self) -> impl Iterator<Item = &Verb> {
        self.shared.backend.verbs.iter().filter(|v| v.tool)
    }

    /// The tools this server lists.
    pub fn tools(&self) -> Vec<Tool> {
        match self.tools {
            ToolSet::Full => self
                .tool_verbs()
                .map(|v| {
                    // The spec gives `destructiveHint` and `idempotentHint` meaning only for tools that
                    // write: read-only tools leave them out, which keeps the list small.
                    let hints = ToolAnnotations::new().read_only(v.read_only());
                    let hints = if v.read_only() { hints } else { hints.destructive(false).idempotent(true) };
                    Tool::new(v.name, v.summary, Arc::new(v.input_schema())).with_annotations(hints)
                })
                .collect(),
            ToolSet::Compact => {
                let names: Vec<&str> = self.tool_verbs().filter(|v| v.read_only()).map(|v| v.name).collect();
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
    pub async fn call(&self, tool: &str, args: Map<String, Value>, source: &str) -> Result<Reply, Failure> {
        self.logged(tool, args, source, self.tools).await
    }

    /// Runs verb `verb` through the same gate, whatever the tool set (`/rpc`'s methods are the verbs).
    pub async fn call_verb(&self, verb: &str, args: Map<String, Value>, source: &str) -> Result<Reply, Failure> {
        self.logged(verb, args, source, ToolSet::Full).await
    }

    async fn logged(
        &self,
        tool: &str,
        args: Map<String, Value>,
        source: &str,
        tools: ToolSet,
    ) -> Result<Reply, Failure> {
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
    ) -> Result<Reply, Failure> {
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
    ) -> Result<Reply, Failure> {
        let verbs = &self.shared.backend.verbs;
        let (verb, args) = match (tools, tool) {
            (ToolSet::Compact, "drsg") => match self.compact_call(args).map_err(Failure::Invalid)? {
                Compact::Help(text) => return Ok(Reply { text, found: true }),
                Compact::Call(verb, args) => (verb, args),
            },
            (ToolSet::Compact, other) => {
                return Err(Failure::UnknownVerb(CallError(format!("unknown tool `{other}`; the tool is `drsg`"))));
            }
            (ToolSet::Full, verb) => (verb.to_owned(), args),
        };
        if tools == ToolSet::Compact && verbs.find(&verb).is_some_and(|v| !v.read_only()) {
            // The compact tool is read-only (its annotation says so): the write stays out.
            return Err(Failure::Invalid(CallError(format!(
                "`{verb}` writes, and the compact `drsg` tool only reads: run `drsg {verb}` in the repository"
            ))));
        }
        let holding = || gate.running.store(true, std::sync::atomic::Ordering::Release);
        self.shared.backend.call(&verb, args, source, gate.until, &holding)
    }

    /// The guide: when to use which verb, and each verb's arguments.
    pub fn guide(&self) -> String {
        let mut out = format!("# drsg\n\n{INSTRUCTIONS}\n\n## Verbs\n\n");
        for verb in self.tool_verbs() {
            let writes = if verb.read_only() { "" } else { " (writes)" };
            out.push_str(&format!("- `{}`{writes}: {}\n", verb.signature(), verb.summary));
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
            .shared
            .backend
            .read(|store| drsg_query::schema(store, &params).map(|schema| schema.render()))
            .map_err(|failure| McpError::internal_error(failure.to_string(), None))?;
        schema.map_err(|err| McpError::resource_not_found(err.to_string(), None))
    }

    /// The compact tool's call: `{help: verb}`, `{verb, args}`, or the verb's arguments beside `verb`.
    fn compact_call(&self, mut args: Map<String, Value>) -> Result<Compact, CallError> {
        let verbs = &self.shared.backend.verbs;
        if let Some(help) = args.get("help").and_then(Value::as_str) {
            let verb = verbs.find(help).filter(|v| v.tool).ok_or_else(|| CallError(format!("no verb `{help}`")))?;
            let schema = Value::Object(verb.input_schema());
            return Ok(Compact::Help(format!("{}: {}\narguments: {}", verb.name, verb.summary, schema)));
        }
        let verb = args.remove("verb").and_then(|v| v.as_str().map(str::to_owned)).ok_or_else(|| {
            CallError(format!("pass `verb` (one of: {}) and `args`, or `help` with a verb", verbs.names()))
        })?;
        let mut call_args = match args.remove("args") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(map)) => map,
            Some(_) => return Err(CallError("`args` is an object of the verb's arguments".into())),
        };
        // Arguments put beside `verb` count as the verb's own; the same one twice is refused.
        for (name, value) in args {
            if call_args.contains_key(&name) {
                return Err(CallError(format!("`{name}` is given twice, beside `verb` and under `args`: keep one")));
            }
            call_args.insert(name, value);
        }
        Ok(Compact::Call(verb, call_args))
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
