//! `drsg`: the command line. Thin: parses arguments, opens the store, calls a member crate, prints.
//!
//! The verbs' subcommands are those of the verbs whose `Verb::cli` is set, built by
//! `cli::verb_commands`; `report` is a verb with flags of its own, so it is a `Command` too.
#![allow(clippy::print_stdout, reason = "the binary writes its answers to stdout through `emit`")]

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use drsg::{EXIT_ERROR, EXIT_FOUND, EXIT_NOTHING, emit};

#[derive(Parser)]
#[command(name = "drsg", version, about = "Code-intelligence indexer: a graph of symbols kept in step with git")]
struct Cli {
    /// Database directory (default: $DRSG_DB, else graph.drsg).
    #[arg(long, global = true, display_order = 100)]
    db: Option<PathBuf>,
    /// The repository's settings (default: drsg.toml at the root of the tree).
    #[arg(long, global = true, display_order = 103)]
    config: Option<PathBuf>,
    /// Say more on stderr: where an answer came from, debug logs (repeat for more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count, display_order = 101)]
    verbose: u8,
    /// Say nothing on stderr but errors: no progress bars, no log lines.
    #[arg(short, long, global = true, conflicts_with = "verbose", display_order = 102)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse a tree into a code plane (replacing it if it exists).
    Index {
        /// The tree to index (default: the working directory).
        dir: Option<PathBuf>,
        /// Plane name (default: the directory's name).
        #[arg(long)]
        plane: Option<String>,
        /// Skip files larger than this many bytes.
        #[arg(long, default_value_t = 2 * 1024 * 1024)]
        max_file_size: u64,
        /// Record at most this many commits (newest first) in the history plane.
        #[arg(long)]
        max_commits: Option<usize>,
        /// Print the run report as JSON instead of the summary.
        #[arg(long)]
        json: bool,
    },
    /// Move a code plane from its synced commit to another commit (default: HEAD), re-parsing only
    /// files whose blobs it has not seen.
    Fold {
        /// The revision to fold to (sha, tag, branch, HEAD~n, …; default HEAD).
        #[arg(long)]
        to: Option<String>,
        #[arg(long)]
        plane: Option<String>,
        /// Print the fold report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Follow a repository: fold its plane on every HEAD move, logging each fold (runs until stopped).
    Watch {
        /// The checkout to follow (default: the working directory). Indexed first if it has no plane.
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Poll every this many milliseconds instead of using file-system events.
        #[arg(long)]
        poll_ms: Option<u64>,
    },
    /// Set a repository up for coding agents: index it, start `drsg serve … watch` in the background,
    /// and write `.mcp.json` (reuses a live server; restarts a dead one on the same address and token).
    Init {
        /// The checkout (default: the working directory).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Stop the server `drsg init` started for a checkout.
    Stop {
        /// The checkout (default: the working directory).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Serve the database to MCP clients and programs: POST /mcp (Streamable HTTP), POST /rpc
    /// (JSON-RPC), GET /health. `DRSG_TOKEN` requires a bearer token; without one only loopback
    /// clients are served.
    Serve {
        #[arg(long, default_value = drsg_mcp::http::DEFAULT_ADDR)]
        addr: String,
        /// `full` (one tool per verb) or `compact` (one `drsg` tool).
        #[arg(long, default_value = "full")]
        tools: String,
        #[command(subcommand)]
        watch: Option<ServeWatch>,
    },
    /// A change's impact report for CI: the definitions changed since BASE, what reaches each, the
    /// tests to run and the risks, as Markdown (a pull-request comment) or JSON. Without --db it
    /// indexes the head into a temporary database it removes afterwards.
    Report {
        /// The revision the change starts from: a pull request's base branch (its merge base with
        /// head is used), a sha, a tag, HEAD~n.
        #[arg(long)]
        base: String,
        /// The revision the change ends at (default: HEAD).
        #[arg(long)]
        head: Option<String>,
        /// `md` (Markdown) or `json`.
        #[arg(long, default_value = "md", value_parser = ["md", "json"])]
        format: String,
        /// Hops walked back from each changed definition (1-6).
        #[arg(long, default_value_t = 3)]
        depth: u32,
        /// The checkout (default: the working directory).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Write the report to FILE instead of standard output.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Exit 3 when the report holds a risk of these kinds (comma-separated):
        /// removed-referenced, public-change, untested-public-change, untested-change, unparsed,
        /// co-change.
        #[arg(long, value_delimiter = ',', value_name = "KINDS")]
        fail_on: Vec<String>,
    },
}

#[derive(Subcommand)]
enum ServeWatch {
    /// Also follow a checkout: fold its plane on every HEAD move while serving.
    Watch {
        /// The checkout (default: the working directory). Indexed first if it has no plane.
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Poll every this many milliseconds instead of using file-system events.
        #[arg(long)]
        poll_ms: Option<u64>,
    },
}

fn main() {
    let verbs = drsg_query::verbs::Registry::builtin();
    let matches = <Cli as clap::CommandFactory>::command().subcommands(drsg::cli::verb_commands(&verbs)).get_matches();
    drsg::set_verbosity(matches.get_count("verbose"), matches.get_flag("quiet"));
    drsg::config::set_explicit(matches.get_one::<PathBuf>("config").cloned());
    let outcome = match matches.subcommand() {
        Some((name, sub)) if verbs.find(name).is_some_and(|verb| verb.cli) => {
            let verb = verbs.get(name).expect("checked");
            let args = drsg::cli::arguments(verb, sub);
            let db = drsg::database_path(matches.get_one::<PathBuf>("db").cloned());
            drsg::cli::run_verb(verbs, name, args, &db, &mut drsg::cli::Stdout)
        }
        _ => match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
            Ok(cli) => run(cli),
            Err(err) => err.exit(),
        },
    };
    let code = match outcome {
        Ok(code) => code,
        Err(err) => {
            drsg::report_error(&err);
            EXIT_ERROR
        }
    };
    std::process::exit(code);
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    let db_flag = cli.db.clone();
    let db = drsg::database_path(cli.db);
    let cwd = std::env::current_dir().ok();
    match cli.command {
        Command::Index { dir, plane, max_file_size, max_commits, json } => {
            let dir = dir.unwrap_or_else(|| PathBuf::from("."));
            // Refuse a missing tree before the database is created or opened for writing.
            match std::fs::metadata(&dir) {
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => {
                    anyhow::bail!("{} is not a directory; `drsg index` takes the root of a source tree", dir.display())
                }
                Err(err) => {
                    return Err(anyhow::Error::new(err).context(format!("cannot read the tree at {}", dir.display())));
                }
            }
            let registry = drsg::config::registry_for(&dir);
            drsg_indexer::prepare_announced_dialects(&dir, registry);
            let existed = db.exists();
            let mut store = drsg::cli::open_for_owned_write(&db, "index", true)?;
            let options = drsg_indexer::IndexOptions { plane, max_file_size, max_commits, source: Some("cli".into()) };
            let bar = drsg::Bar::new();
            let indexed = drsg_indexer::index_tree(&dir, registry, &mut store, &options, &bar);
            bar.finish();
            let report = match indexed {
                Ok(report) => report,
                Err(err) => {
                    // A database this run created holds nothing: it goes too.
                    drop(store);
                    if !existed {
                        let _ = std::fs::remove_dir_all(&db);
                    }
                    return Err(match err {
                        nothing @ drsg_indexer::Error::NothingToIndex { .. } => anyhow::Error::new(nothing),
                        other => anyhow::Error::new(other)
                            .context(format!("indexing {} failed; the database is unchanged", dir.display())),
                    });
                }
            };
            if json {
                emit(&format!("{}\n", serde_json::to_string_pretty(&report)?));
            } else {
                emit(&drsg::render_index_summary(&report, &db));
            }
            Ok(EXIT_FOUND)
        }
        Command::Fold { to, plane, json } => {
            let mut store = drsg::cli::open_for_owned_write(&db, "fold", false)?;
            let chosen = drsg_query::choose_plane(&store, plane.as_deref(), cwd.as_deref())?;
            let root = chosen.meta.synced_root.clone().map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
            let plane = chosen.meta.name;
            let registry = drsg::config::registry_for(&root);
            let cache = drsg_indexer::FactsCache::default();
            let bar = drsg::Bar::new();
            let options = drsg_indexer::IndexOptions { source: Some("cli".into()), ..Default::default() };
            let report = drsg_indexer::fold(&mut store, registry, &plane, to.as_deref(), &options, &cache, &bar)
                .with_context(|| format!("folding plane {plane} failed; the plane is unchanged"))?;
            bar.finish();
            if json {
                emit(&format!("{}\n", serde_json::to_string_pretty(&report)?));
            } else {
                emit(&drsg::render_fold(&report));
            }
            Ok(EXIT_FOUND)
        }
        Command::Watch { dir, poll_ms } => {
            let dir = dir.unwrap_or_else(|| PathBuf::from("."));
            let root = dir.canonicalize().with_context(|| format!("cannot read the tree at {}", dir.display()))?;
            if drsg_indexer::Repo::discover(&root).is_none() {
                let why = if drsg_indexer::Repo::is_bare(&root) {
                    "is a bare repository, with no work tree to follow; watch a clone or a worktree of it"
                } else {
                    "is not in a git checkout; `drsg watch` follows commits, so it needs one"
                };
                anyhow::bail!("{} {why}", root.display());
            }
            let existed = db.exists();
            let mut store = drsg::cli::open_for_owned_write(&db, "watch", true)?;
            let registry = drsg::config::registry_for(&root);
            let plane = match drsg::watching::plane_for_root(&mut store, registry, &root, &mut |l| drsg::log_line(l)) {
                Ok(plane) => plane,
                Err(err) => {
                    // A database this run created holds nothing: it goes too.
                    drop(store);
                    if !existed {
                        let _ = std::fs::remove_dir_all(&db);
                    }
                    return Err(err);
                }
            };
            let stop = std::sync::atomic::AtomicBool::new(false);
            let store = drsg_planes::SharedStore::single(store);
            drsg::watching::watch_plane(&store, registry, &plane, drsg::watching::mode(poll_ms), &stop, &mut |line| {
                drsg::log_line(line)
            })?;
            Ok(EXIT_FOUND)
        }
        Command::Init { dir } => {
            let root = drsg::init::checkout(&dir.unwrap_or_else(|| PathBuf::from(".")))?;
            let db = drsg::init::database_for(&root, db_flag);
            let done = drsg::init::init(&root, &db)?;
            let how = if done.reused { "already running, reused" } else { "started" };
            let plane = done.plane.map(|p| format!("plane {p} · ")).unwrap_or_default();
            emit(&format!(
                "drsg is serving {plane}{} ({how}, pid {}), folding every commit of {}\n  clients read it from {} \
                 (drsg-mcp relays to it too)\n  log: {}\n  stop it with `drsg stop`\n",
                done.url,
                done.pid,
                root.display(),
                done.editor_files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
                done.log.display()
            ));
            Ok(EXIT_FOUND)
        }
        Command::Stop { dir } => {
            let root = drsg::init::checkout(&dir.unwrap_or_else(|| PathBuf::from(".")))?;
            let db = drsg::init::database_for(&root, db_flag);
            if drsg::init::stop(&db)? {
                emit(&format!("stopped the server of {}\n", db.display()));
                Ok(EXIT_FOUND)
            } else {
                emit(&format!("no server of {} is running\n", db.display()));
                Ok(EXIT_NOTHING)
            }
        }
        Command::Report { base, head, format, depth, dir, out, fail_on } => {
            drsg::report::run(&drsg::report::ReportArgs {
                dir: dir.unwrap_or_else(|| PathBuf::from(".")),
                base,
                head,
                depth: Some(depth),
                json: format == "json",
                db: db_flag,
                out,
                fail_on,
            })
        }
        Command::Serve { addr, tools, watch } => {
            let tools = match tools.as_str() {
                "full" => drsg_mcp::ToolSet::Full,
                "compact" => drsg_mcp::ToolSet::Compact,
                other => anyhow::bail!("--tools is `full` or `compact`, not `{other}`"),
            };
            let watch =
                watch.map(|ServeWatch::Watch { dir, poll_ms }| (dir.unwrap_or_else(|| PathBuf::from(".")), poll_ms));
            drsg::serving::serve(&db, drsg::serving::ServeOptions { addr, tools, watch })?;
            Ok(EXIT_FOUND)
        }
    }
}
