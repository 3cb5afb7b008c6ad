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
        /// Print the run report as JSON instead of the summary.
        #[arg(long)]
        json: bool,
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
    let db = drsg::database_path(cli.db);
    let cwd = std::env::current_dir().ok();
    match cli.command {
        Command::Index { dir, plane, max_file_size, json } => {
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
            let mut store = drsg::open_for_write(&db)?;
            let registry = drsg_plugins::builtin();
            let options = drsg_indexer::IndexOptions { plane, max_file_size };
            let bar = drsg::Bar::new();
            let report = drsg_indexer::index_tree(&dir, &registry, &mut store, &options, &bar)
                .with_context(|| format!("indexing {} failed; the database is unchanged", dir.display()))?;
            bar.finish();
            if json {
                emit(&format!("{}\n", serde_json::to_string_pretty(&report)?));
            } else {
                emit(&drsg::render_index_summary(&report, &db));
            }
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
