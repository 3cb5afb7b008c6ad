//! The MCP server: the verb table as tools (or one compact `drsg` tool), calls run on blocking
//! threads against one open database.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use drsg_query::{Revisions, Session, SourceFiles, Store};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use crate::verbs::{self, CallError, Env, VERBS};

/// Short guidance sent with `initialize`: which verb answers which question.
pub const INSTRUCTIONS: &str = "drsg answers structural questions about this repository from a graph kept in step with git. \
Start with `context` for any symbol (callers, callees, unresolved calls). Before changing a symbol, run `impact`. \
For \"how does A reach B\", `trace`. Unknown name: `search`; plain text: `grep`; source: `snippet`. \
Old code: `recall` with a revision. Answers are bounded and say when they truncate.";

/// Which tools the server lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolSet {
    /// One tool per verb.
    Full,
    /// A single `drsg` tool taking `{verb, args}` or `{help: verb}`.
    Compact,
}

/// What the server reads: the database, the tree's files and its revisions.
pub struct Backend {
    pub store: Store,
    pub files: Box<dyn SourceFiles + Send>,
    pub revisions: Box<dyn Revisions + Send>,
    pub cwd: Option<PathBuf>,
}

/// The drsg MCP server (cheap to clone: sessions share the backend).
#[derive(Clone)]
pub struct DrsgServer {
    backend: Arc<Mutex<Backend>>,
    tools: ToolSet,
}

impl DrsgServer {
    pub fn new(backend: Backend, tools: ToolSet) -> DrsgServer {
        DrsgServer { backend: Arc::new(Mutex::new(backend)), tools }
    }

    /// The tools this server lists.
    pub fn tools(&self) -> Vec<Tool> {
        match self.tools {
            ToolSet::Full => VERBS
                .iter()
                .map(|v| {
                    // For a read-only tool the spec gives `destructiveHint` no meaning: it is left out,
                    // which keeps the list small.
                    let hints = ToolAnnotations::new().read_only(v.read_only).idempotent(true);
                    let hints = if v.read_only { hints } else { hints.destructive(false) };
                    Tool::new(v.name, v.description, Arc::new(v.input_schema().clone())).with_annotations(hints)
                })
                .collect(),
            ToolSet::Compact => {
                let names: Vec<&str> = VERBS.iter().map(|v| v.name).collect();
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
                        .with_annotations(ToolAnnotations::new().read_only(true).idempotent(true)),
                ]
            }
        }
    }

    /// Runs one tool call on the calling thread (block here, not on the async runtime).
    pub fn run_tool(&self, name: &str, args: Map<String, Value>) -> Result<verbs::Reply, CallError> {
        let (verb, args) = match (self.tools, name) {
            (ToolSet::Compact, "drsg") => match compact_call(args)? {
                Compact::Help(text) => return Ok(verbs::Reply { text, found: true }),
                Compact::Call(verb, args) => (verb, args),
            },
            (ToolSet::Compact, other) => return Err(CallError(format!("unknown tool `{other}`; the tool is `drsg`"))),
            (ToolSet::Full, verb) => (verb.to_owned(), args),
        };
        let backend = self.backend.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let env = Env {
            session: Session { store: &backend.store, cwd: backend.cwd.as_deref(), files: &*backend.files },
            revisions: &*backend.revisions,
        };
        verbs::call(&env, &verb, args)
    }
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
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
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
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let server = self.clone();
        let name = request.name.to_string();
        let args = request.arguments.unwrap_or_default();
        let outcome = tokio::task::spawn_blocking(move || server.run_tool(&name, args)).await;
        let result = match outcome {
            Ok(Ok(reply)) => CallToolResult::success(vec![ContentBlock::text(reply.text)]),
            Ok(Err(err)) => CallToolResult::error(vec![ContentBlock::text(err.0)]),
            Err(join) => {
                CallToolResult::error(vec![ContentBlock::text(format!("the call failed inside drsg: {join}"))])
            }
        };
        Ok(result.into())
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
