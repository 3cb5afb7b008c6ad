//! `drsg-mcp`: the MCP server over stdio. stdout carries only JSON-RPC; messages go to stderr.
//!
//!     drsg-mcp [--db PATH | PATH] [--tools full|compact]
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
    let db = drsg::database_path(db);
    if !db.exists() {
        return Err(format!(
            "no database at {}; build one with `drsg index DIR --db {0}` (or `drsg init` in the repository)",
            db.display()
        ));
    }
    let store = drsg::open_for_read(&db).map_err(|e| format!("{e:#}"))?;
    // The registry lives as long as the process: the server answers until the client hangs up.
    let registry: &'static drsg_parsers::Registry = Box::leak(Box::new(drsg_plugins::builtin()));
    let backend = drsg_mcp::Backend {
        store,
        files: Box::new(drsg::files::DiskFiles),
        revisions: Box::new(drsg::revisions::GitRevisions { registry }),
        cwd: std::env::current_dir().ok(),
    };
    drsg_mcp::serve_stdio(drsg_mcp::DrsgServer::new(backend, tools)).map_err(|e| e.to_string())
}
