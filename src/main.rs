//! `drsg`: the command line. Thin: parses arguments, opens the store, calls a member crate, prints.
#![allow(clippy::print_stdout, reason = "the binary writes its answers to stdout through `emit`")]

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use drsg::{EXIT_ERROR, EXIT_FOUND, EXIT_NOTHING, emit};

#[derive(Parser)]
#[command(name = "drsg", version, about = "Code-intelligence indexer: a graph of symbols kept in step with git")]
struct Cli {
    /// Database directory (default: $DRSG_DB, else graph.drsg).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
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
    /// Re-parse a code plane from its own recorded tree.
    Rebuild {
        #[arg(long)]
        plane: Option<String>,
    },
    /// List the planes with their counts and sync points.
    Planes {
        #[arg(long)]
        json: bool,
    },
    /// A plane's soft schema: labels, edge types with endpoint labels, key prefixes in use.
    Schema {
        #[arg(long)]
        plane: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// What a symbol is, who calls it (with lines), what it calls, what could not be resolved and why.
    Context {
        /// A key, a key segment (`Client.connect`, `src/App`) or a name.
        name: String,
        /// Levels of callers to list (1-3).
        #[arg(long)]
        depth: Option<u32>,
        #[command(flatten)]
        common: Common,
    },
    /// A symbol's properties alone.
    Describe {
        name: String,
        #[command(flatten)]
        common: Common,
    },
    /// A file's module, declared symbols, imports and importers.
    File {
        /// Path relative to the tree's root.
        path: String,
        #[command(flatten)]
        common: Common,
    },
    /// Symbols ranked for words or identifiers (names split on case and `_`, keys, signatures, docs).
    Search {
        query: String,
        /// Number of results.
        #[arg(short, long)]
        k: Option<usize>,
        #[command(flatten)]
        common: Common,
    },
    /// Text search over the tree, ripgrep-style, each hit with its enclosing symbol.
    Grep {
        pattern: String,
        /// Treat the pattern as a regular expression (default: literal).
        #[arg(short = 'e', long)]
        regex: bool,
        #[arg(short = 'i', long)]
        ignore_case: bool,
        /// A file or directory of the tree to search in.
        #[arg(long)]
        path: Option<String>,
        /// Lines of context around each hit.
        #[arg(short = 'C', long)]
        context: Option<usize>,
        #[arg(short = 'm', long)]
        max_results: Option<usize>,
        /// Also search ignored and hidden files.
        #[arg(long)]
        all_files: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Source of a symbol (its exact declaration) or of `path:start-end`, numbered.
    Snippet {
        name: String,
        /// Most lines shown.
        #[arg(long)]
        lines: Option<u32>,
        #[command(flatten)]
        common: Common,
    },
    /// Shortest call path from one symbol to another, or where the chain breaks.
    Trace {
        from: String,
        to: String,
        #[command(flatten)]
        common: Common,
    },
    /// Everything that can reach a symbol, by distance, tests apart.
    Impact {
        name: String,
        /// Hops walked back (default 3, at most 6).
        #[arg(long)]
        depth: Option<u32>,
        /// `attached` or `all`: other planes that reach it.
        #[arg(long)]
        across: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Composition of the region around a symbol: counts per hop, labels, edge types, hubs.
    Fathom {
        name: String,
        #[arg(long)]
        depth: Option<u32>,
        #[command(flatten)]
        common: Common,
    },
    /// One node as JSON, by exact key or by id.
    Node {
        /// Exact key.
        key: Option<String>,
        #[arg(long)]
        id: Option<i64>,
        #[command(flatten)]
        common: Common,
    },
    /// Nodes reached from a symbol along edges.
    Traverse {
        from: String,
        /// out, in or both.
        #[arg(long, default_value = "out")]
        direction: String,
        /// Edge types, comma-separated (default: all).
        #[arg(long)]
        edge_type: Option<String>,
        #[arg(long)]
        min: Option<u32>,
        #[arg(long)]
        max: Option<u32>,
        #[command(flatten)]
        common: Common,
    },
    /// HEAD, branches with their tips, tags, rebases (from the reflog) and the newest commits.
    History {
        /// Newest commits listed.
        #[arg(long)]
        limit: Option<usize>,
        #[command(flatten)]
        common: Common,
    },
    /// Code at a revision: a file, a range, a directory, a symbol's declaration, a search, or a diff.
    Recall {
        /// The revision: sha, prefix, tag, branch, HEAD~n, <rev>^n, a date (2024-01-31), <rev>@{<date>}.
        at: String,
        /// A symbol of the plane, shown as it was declared then.
        #[arg(long)]
        name: Option<String>,
        /// A file, `path:start-end`, or a directory.
        #[arg(long)]
        path: Option<String>,
        /// Search that revision's tree (within --path when given).
        #[arg(long)]
        pattern: Option<String>,
        /// Treat the pattern as a regular expression.
        #[arg(short = 'e', long)]
        regex: bool,
        /// An older revision: print the diff of --name or --path from it to AT.
        #[arg(long)]
        vs: Option<String>,
        #[arg(long)]
        lines: Option<u32>,
        #[command(flatten)]
        common: Common,
    },
    /// Write a plane as JSON Lines: nodes and/or edges.
    Export {
        #[arg(long)]
        plane: Option<String>,
        /// Only these edge types (comma-separated, e.g. CALLS,IMPORTS).
        #[arg(long, value_delimiter = ',')]
        edges: Vec<String>,
        /// Write nodes (alone unless --edges is given too).
        #[arg(long)]
        nodes: bool,
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

/// Options every read verb takes.
#[derive(clap::Args)]
struct Common {
    /// The plane to read (default: the only code plane, or the one holding the working directory).
    #[arg(long)]
    plane: Option<String>,
    /// Print the structured answer as JSON.
    #[arg(long)]
    json: bool,
    /// Size of a text answer in characters (default 8000).
    #[arg(long)]
    budget: Option<usize>,
}

fn main() {
    let cli = Cli::parse();
    let code = match run(cli) {
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
            let registry = drsg::serving::registry();
            drsg_indexer::prepare_announced_dialects(&dir, registry);
            let mut store = drsg::open_for_write(&db)?;
            let options = drsg_indexer::IndexOptions { plane, max_file_size, max_commits, source: Some("cli".into()) };
            let bar = drsg::Bar::new();
            let report = drsg_indexer::index_tree(&dir, registry, &mut store, &options, &bar)
                .with_context(|| format!("indexing {} failed; the database is unchanged", dir.display()))?;
            bar.finish();
            if json {
                emit(&format!("{}\n", serde_json::to_string_pretty(&report)?));
            } else {
                emit(&drsg::render_index_summary(&report, &db));
            }
            Ok(EXIT_FOUND)
        }
        Command::Fold { to, plane, json } => {
            let mut store = drsg::open_for_write(&db)?;
            let plane = drsg_query::choose_plane(&store, plane.as_deref(), cwd.as_deref())?.meta.name;
            let registry = drsg_plugins::builtin();
            let cache = drsg_indexer::FactsCache::default();
            let bar = drsg::Bar::new();
            let options = drsg_indexer::IndexOptions { source: Some("cli".into()), ..Default::default() };
            let report = drsg_indexer::fold(&mut store, &registry, &plane, to.as_deref(), &options, &cache, &bar)
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
                anyhow::bail!(
                    "{} is not in a git checkout; `drsg watch` follows commits, so it needs one",
                    root.display()
                );
            }
            let mut store = drsg::open_for_write(&db)?;
            let registry = drsg_plugins::builtin();
            let plane = drsg::watching::plane_for_root(&mut store, &registry, &root, &mut |l| drsg::log_line(l))?;
            let stop = std::sync::atomic::AtomicBool::new(false);
            let store = std::sync::Mutex::new(store);
            drsg::watching::watch_plane(
                &store,
                &registry,
                &plane,
                drsg::watching::mode(poll_ms),
                &stop,
                &mut |line| drsg::log_line(line),
            )?;
            Ok(EXIT_FOUND)
        }
        Command::Init { dir } => {
            let root = drsg::init::checkout(&dir.unwrap_or_else(|| PathBuf::from(".")))?;
            let db = drsg::init::database_for(&root, db_flag);
            let done = drsg::init::init(&root, &db)?;
            let how = if done.reused { "already running, reused" } else { "started" };
            let plane = done.plane.map(|p| format!("plane {p} · ")).unwrap_or_default();
            emit(&format!(
                "drsg is serving {plane}{} ({how}, pid {}), folding every commit of {}\n  clients: {} declares it \
                 (drsg-mcp relays to it too)\n  log: {}\n  stop it with `drsg stop`\n",
                done.url,
                done.pid,
                root.display(),
                done.mcp_json.display(),
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
        Command::Rebuild { plane } => {
            let mut store = drsg::open_for_write(&db)?;
            let plane = drsg_query::choose_plane(&store, plane.as_deref(), cwd.as_deref())?.meta.name;
            let report = drsg::serving::rebuild_plane(&mut store, &plane, "cli")?;
            emit(&drsg::render_index_summary(&report, &db));
            Ok(EXIT_FOUND)
        }
        Command::Planes { json } => {
            let store = drsg::open_for_read(&db)?;
            let out = drsg_query::planes(&store)?;
            emit(&if json { format!("{}\n", serde_json::to_string_pretty(&out)?) } else { out.render() });
            Ok(if out.is_empty() { EXIT_NOTHING } else { EXIT_FOUND })
        }
        Command::Schema { plane, json } => {
            let store = drsg::open_for_read(&db)?;
            let params = drsg_query::SchemaParams { plane: plane.as_deref(), cwd: cwd.as_deref() };
            let out = drsg_query::schema(&store, &params)?;
            emit(&if json { format!("{}\n", serde_json::to_string_pretty(&out)?) } else { out.render() });
            Ok(EXIT_FOUND)
        }
        Command::Context { name, depth, common } => {
            let p = drsg_query::ContextParams { name, depth, plane: common.plane.clone() };
            verb(&db, cwd.as_deref(), &common, |s| drsg_query::context(s, &p))
        }
        Command::Describe { name, common } => {
            let p = drsg_query::DescribeParams { name, plane: common.plane.clone() };
            verb(&db, cwd.as_deref(), &common, |s| drsg_query::describe(s, &p))
        }
        Command::File { path, common } => {
            let p = drsg_query::FileParams { path, plane: common.plane.clone() };
            verb(&db, cwd.as_deref(), &common, |s| drsg_query::file(s, &p))
        }
        Command::Search { query, k, common } => {
            let p = drsg_query::SearchParams { query, k, plane: common.plane.clone() };
            verb(&db, cwd.as_deref(), &common, |s| drsg_query::search(s, &p))
        }
        Command::Grep { pattern, regex, ignore_case, path, context, max_results, all_files, common } => {
            let p = drsg_query::GrepParams {
                pattern,
                regex: Some(regex),
                ignore_case: Some(ignore_case),
                path,
                context,
                max_results,
                all_files: Some(all_files),
                plane: common.plane.clone(),
            };
            verb(&db, cwd.as_deref(), &common, |s| drsg_query::grep(s, &p))
        }
        Command::Snippet { name, lines, common } => {
            let p = drsg_query::SnippetParams { name, lines, plane: common.plane.clone() };
            verb(&db, cwd.as_deref(), &common, |s| drsg_query::snippet(s, &p))
        }
        Command::Trace { from, to, common } => {
            let p = drsg_query::TraceParams { from, to, plane: common.plane.clone() };
            verb(&db, cwd.as_deref(), &common, |s| drsg_query::trace(s, &p))
        }
        Command::Impact { name, depth, across, common } => {
            let p = drsg_query::ImpactParams { name, depth, across, plane: common.plane.clone() };
            verb(&db, cwd.as_deref(), &common, |s| drsg_query::impact(s, &p))
        }
        Command::Fathom { name, depth, common } => {
            let p = drsg_query::FathomParams { name, depth, plane: common.plane.clone() };
            verb(&db, cwd.as_deref(), &common, |s| drsg_query::fathom(s, &p))
        }
        Command::Node { key, id, common } => {
            let p = drsg_query::NodeParams { key, id, plane: common.plane.clone() };
            verb(&db, cwd.as_deref(), &common, |s| drsg_query::node(s, &p))
        }
        Command::Traverse { from, direction, edge_type, min, max, common } => {
            let p = drsg_query::TraverseParams {
                from,
                direction: Some(direction),
                edge_type,
                min,
                max,
                plane: common.plane.clone(),
            };
            verb(&db, cwd.as_deref(), &common, |s| drsg_query::traverse(s, &p))
        }
        Command::History { limit, common } => {
            let p = drsg_query::HistoryParams { limit, plane: common.plane.clone() };
            verb(&db, cwd.as_deref(), &common, |s| drsg_query::history(s, &p))
        }
        Command::Recall { at, name, path, pattern, regex, vs, lines, common } => {
            let registry = drsg_plugins::builtin();
            let revisions = drsg::revisions::GitRevisions { registry: &registry };
            let p = drsg_query::RecallParams {
                at,
                name,
                path,
                pattern,
                regex: Some(regex),
                vs,
                lines,
                plane: common.plane.clone(),
            };
            verb(&db, cwd.as_deref(), &common, |s| drsg_query::recall(s, &revisions, &p))
        }
        Command::Export { plane, edges, nodes } => {
            let store = drsg::open_for_read(&db)?;
            let params = drsg_query::ExportParams { plane: plane.as_deref(), cwd: cwd.as_deref(), edges, nodes };
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            let lines = match drsg_query::export(&store, &params, &mut out) {
                Err(drsg_query::Error::Io(err)) => drsg::exit_on_io_error(err),
                other => other?,
            };
            if let Err(err) = std::io::Write::flush(&mut out) {
                drsg::exit_on_io_error(err);
            }
            Ok(if lines == 0 { EXIT_NOTHING } else { EXIT_FOUND })
        }
    }
}

/// Runs a read verb and prints its text (or JSON) answer; exit 0 when it found something, else 1.
fn verb<A: drsg_query::Answer>(
    db: &std::path::Path,
    cwd: Option<&std::path::Path>,
    common: &Common,
    run: impl FnOnce(&drsg_query::Session<'_>) -> drsg_query::Result<A>,
) -> anyhow::Result<i32> {
    let store = drsg::open_for_read(db)?;
    let session = drsg_query::Session { store: &store, cwd, files: &drsg::files::DiskFiles };
    let answer = run(&session)?;
    if common.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&answer)?));
    } else {
        emit(&drsg_query::render(&answer, common.budget));
    }
    Ok(if answer.found() { EXIT_FOUND } else { EXIT_NOTHING })
}
