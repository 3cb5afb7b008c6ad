//! `drsg-mcp`: the MCP server over stdio. stdout carries only JSON-RPC; messages go to stderr.
//!
//!     drsg-mcp [--db PATH | PATH] [--tools full|compact]
//!
//! With no database named, it relays to a live server its checkout's `.mcp.json` declares
//! (`drsg_mcp::relay`). Otherwise it finds the database as `drsg` does but never creates one, opens
//! it (the lock refuses a second process) and serves it with `drsg_mcp::serve_stdio`.
#![allow(clippy::print_stdout, reason = "--help and --version print to stdout before any session starts")]

use std::path::PathBuf;

const USAGE: &str = "drsg-mcp: drsg's MCP server over stdio

usage: drsg-mcp [--db PATH | PATH] [--tools full|compact]

  --db PATH       the database (default: $DRSG_DB, else graph.drsg); never created here:
                  build one with `drsg index` or `drsg init`
  --tools compact one `drsg` tool taking {verb, args} instead of one tool per verb
  --help, --version";

fn main() {
    match run() {
        Ok(()) => {}
        Err(message) => {
            eprintln!("drsg-mcp: {message}");
            std::process::exit(2);
        }
    }
}

fn run() -> Result<(), String> {
    let mut db: Option<PathBuf> = None;
    let mut tools = drsg_mcp::ToolSet::Full;
    let mut tools_chosen = false;
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--help" | "-h") => {
                println!("{USAGE}");
                return Ok(());
            }
            Some("--version" | "-V") => {
                println!("drsg-mcp {}", env!("CARGO_PKG_VERSION"));
                return Ok(());
            }
            Some("--db") => db = Some(args.next().ok_or("--db needs a path")?.into()),
            Some("--tools") => {
                tools_chosen = true;
                tools = match args.next().as_ref().and_then(|t| t.to_str()) {
                    Some("full") => drsg_mcp::ToolSet::Full,
                    Some("compact") => drsg_mcp::ToolSet::Compact,
                    _ => return Err("--tools is `full` or `compact`".into()),
                }
            }
            Some(flag) if flag.starts_with('-') => return Err(format!("unknown option `{flag}`\n\n{USAGE}")),
            _ if db.is_none() => db = Some(arg.into()),
            _ => return Err(format!("one database only\n\n{USAGE}")),
        }
    }
    // No database named: a server declared in the repository's `.mcp.json` that answers gets the
    // session (it holds the database); otherwise the database opens here. A chosen tool set is
    // served here: the server has its own.
    let named = db.is_some() || std::env::var_os("DRSG_DB").is_some_and(|v| !v.is_empty()) || tools_chosen;
    // Flushes the log file until the process ends.
    let mut log_guard = None;
    if !named && let Ok(cwd) = std::env::current_dir() {
        let (target, skipped) = drsg_mcp::relay::find_target(&cwd);
        let logs = target.as_ref().and_then(|t| {
            let dir = t.declared_in.parent()?.join(drsg_planes::DEFAULT_DB_NAME).join(drsg_planes::LOGS_DIR);
            dir.is_dir().then_some(dir)
        });
        if target.is_some() {
            log_guard = drsg::serving::start_logging(logs.as_deref(), "mcp");
        }
        for skip in &skipped {
            eprintln!("drsg-mcp: skipped {}: {}", skip.file.display(), skip.reason);
        }
        if let Some(target) = target {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            if runtime.block_on(drsg_mcp::relay::health(&target.authority)) {
                tracing::info!(url = %target.url(), from = %target.declared_in.display(), "relaying to the server");
                return runtime.block_on(drsg_mcp::relay::relay_stdio(target)).map_err(|e| format!("relay: {e}"));
            }
            tracing::info!(url = %target.url(), "the declared server does not answer; opening the database here");
        }
    }
    let db = drsg::database_path(db);
    if !db.exists() {
        return Err(format!(
            "no database at {}; build one with `drsg index DIR --db {0}` (or `drsg init` in the repository)",
            db.display()
        ));
    }
    let store = drsg::open_for_read(&db).map_err(|e| format!("{e:#}"))?;
    let logs = store.location().map(|d| d.join(drsg_planes::LOGS_DIR));
    let _log_guard = log_guard.or_else(|| drsg::serving::start_logging(logs.as_deref(), "mcp"));
    let limits = drsg_mcp::Limits::from_env()?;
    let backend = drsg::serving::backend(std::sync::Arc::new(drsg_planes::SharedStore::new(store)));
    drsg_mcp::serve_stdio(drsg_mcp::DrsgServer::new(backend, tools, limits)).map_err(|e| e.to_string())
}
