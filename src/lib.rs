//! The wiring the `drsg` binaries share: finding the database, opening the store, progress bars,
//! terminal output and exit codes. The logic lives in the member crates.
//!
//! It sets the global allocator of every program linking it: jemalloc, which also takes the C
//! code's `malloc` (tree-sitter's and SQLite's); the raw-parse baseline links it too, so the
//! comparison stays like for like. It holds the database path, opening for read (never creating) or
//! for write, the progress bar (stderr, terminals only), `emit` (a closed pipe exits quietly),
//! error chains and the index summary.
//!
//! The verbs read the tree through `files::DiskFiles`. Besides confining paths (`files::confine`:
//! absolute paths only under the root, no `..`, nothing under `.git`, and the canonical path under
//! the canonical root, so symlinks cannot lead out), it walks the tree for `grep` in parallel and
//! ignore-aware (links not followed; with ignore rules on, a scope is walked from the root so that
//! the rules apply to it), gives file modification times for the edited-file warning, and reads the
//! checkout's HEAD (reused for 500 ms) for the note that a plane is behind.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

pub mod cli;
pub mod config;
pub mod files;
pub mod init;
pub mod logline;
pub mod report;
pub mod revisions;
pub mod serving;
pub mod watching;

/// Exit codes: found, nothing found, error.
pub const EXIT_FOUND: i32 = 0;
pub const EXIT_NOTHING: i32 = 1;
pub const EXIT_ERROR: i32 = 2;

/// The allocator of every drsg program (and, linking this crate, of the benchmarks that measure them):
/// jemalloc, which also serves the C code's `malloc` (tree-sitter's trees, SQLite's pages) in place of
/// the C library's.
///
/// Indexing allocates and frees millions of small blocks from several threads: tree-sitter's subtrees
/// and parse stacks, the facts kept per file, the rows and documents of the store. Under glibc's
/// allocator that cost a tenth of the run in `malloc`/`free` and their heaps' page faults. Measured on
/// Django's repository (`LD_PRELOAD` of the same jemalloc 5.3, interleaved runs): CPU time of
/// `drsg index` about 10 % lower, the raw-parse baseline about 2 % lower, peak RSS unchanged (259–270 MiB).
/// mimalloc 2.3 and 3.3 were as fast but peaked at 325–335 MiB.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The database path: `--db`, else `$DRSG_DB`, else `graph.drsg` in the working directory.
pub fn database_path(flag: Option<PathBuf>) -> PathBuf {
    flag.or_else(|| std::env::var_os("DRSG_DB").filter(|v| !v.is_empty()).map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(drsg_planes::DEFAULT_DB_NAME))
}

/// Open (creating if missing) the database for a writing command.
pub fn open_for_write(path: &Path) -> anyhow::Result<drsg_planes::Store> {
    drsg_planes::Store::open(path).with_context(|| format!("cannot open database {}", path.display()))
}

/// Open an existing database, for reads and for the writes that need a plane (`fold`, `rebuild`);
/// never creates one.
pub fn open_for_read(path: &Path) -> anyhow::Result<drsg_planes::Store> {
    Ok(drsg_planes::Store::open_existing(path)?)
}

/// A progress bar on a terminal's stderr; nothing when stderr is not a terminal.
pub struct Bar {
    bar: Option<indicatif::ProgressBar>,
}

impl Bar {
    pub fn new() -> Bar {
        let bar = (std::io::stderr().is_terminal() && verbosity() >= 0).then(|| {
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} {elapsed}")
                    .expect("the template is valid")
                    .progress_chars("=> "),
            );
            bar
        });
        Bar { bar }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Default for Bar {
    fn default() -> Self {
        Bar::new()
    }
}

impl drsg_indexer::Progress for Bar {
    fn phase(&self, name: &'static str, total: u64) {
        if let Some(bar) = &self.bar {
            bar.set_prefix(name);
            bar.set_length(total);
            bar.set_position(0);
        }
    }

    fn advance(&self, n: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(n);
        }
    }
}

/// Runs a future to its end on a runtime of its own (the binaries' few HTTP calls).
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime builds")
        .block_on(future)
}

/// How much the binaries say on stderr beside their answers: `-q` (-1), default (0), `-v` (1+).
static VERBOSITY: std::sync::atomic::AtomicI8 = std::sync::atomic::AtomicI8::new(0);

/// Sets the verbosity from the count of `-v` and `-q` flags.
pub fn set_verbosity(verbose: u8, quiet: bool) {
    let level = if quiet { -1 } else { verbose.min(3) as i8 };
    VERBOSITY.store(level, std::sync::atomic::Ordering::Relaxed);
}

/// The verbosity: -1 quiet, 0 default, 1+ verbose.
pub fn verbosity() -> i8 {
    VERBOSITY.load(std::sync::atomic::Ordering::Relaxed)
}

/// A note on stderr, shown with `-v` only (where an answer came from, say).
pub fn note(line: &str) {
    if verbosity() > 0 {
        eprintln!("drsg: {line}");
    }
}

/// Write to stdout; a closed pipe (`drsg … | head`) ends the process quietly.
pub fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(err) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        exit_on_io_error(err);
    }
}

pub fn exit_on_io_error(err: std::io::Error) -> ! {
    if err.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(EXIT_FOUND);
    }
    eprintln!("error: cannot write output: {err}");
    std::process::exit(EXIT_ERROR);
}

/// Print an error chain as `error:` and `caused by:` lines.
pub fn report_error(err: &anyhow::Error) {
    eprintln!("error: {err}");
    for cause in err.chain().skip(1) {
        eprintln!("caused by: {cause}");
    }
}

/// The closing summary of `drsg index`.
pub fn render_index_summary(report: &drsg_indexer::RunReport, db: &Path) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let langs: Vec<String> = report.files_by_language.iter().map(|(l, n)| format!("{l} {n}")).collect();
    let _ = writeln!(
        out,
        "indexed {}: {} files ({}), {:.1} MB in {:.2} s",
        report.plane,
        report.files,
        if langs.is_empty() { "none".to_owned() } else { langs.join(", ") },
        report.bytes as f64 / 1e6,
        report.seconds
    );
    let _ = writeln!(out, "  symbols {} · nodes {} · edges {}", report.symbols, report.nodes, report.edges);
    let a = &report.accounting;
    let pct = |n: u64| if a.call_sites == 0 { 0.0 } else { n as f64 * 100.0 / a.call_sites as f64 };
    let _ = writeln!(
        out,
        "  call sites {}: resolved {} ({:.1} %), external {} ({:.1} %), unresolved {} ({:.1} %)",
        a.call_sites,
        a.resolved,
        pct(a.resolved),
        a.external,
        pct(a.external),
        a.unresolved,
        pct(a.unresolved)
    );
    if !a.unresolved_by_reason.is_empty() {
        let mut reasons: Vec<(&String, &u64)> = a.unresolved_by_reason.iter().collect();
        reasons.sort_by(|x, y| y.1.cmp(x.1).then(x.0.cmp(y.0)));
        let top: Vec<String> = reasons.iter().take(4).map(|(r, n)| format!("{r}: {n}")).collect();
        let more =
            if reasons.len() > 4 { format!(" … and {} more reasons", reasons.len() - 4) } else { String::new() };
        let _ = writeln!(out, "  unresolved by reason: {}{more}", top.join("; "));
    }
    if !report.skipped.is_empty() {
        let skipped: Vec<String> = report.skipped.iter().map(|(r, n)| format!("{r} {n}")).collect();
        let _ = writeln!(out, "  skipped: {}", skipped.join(", "));
    }
    if report.parse_error_files > 0 {
        let _ = writeln!(out, "  files with syntax errors: {} (what parsed is indexed)", report.parse_error_files);
    }
    if let Some((path, line, why)) = report.cut_files.first() {
        let more = match report.cut_files.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        let _ = writeln!(
            out,
            "  files not read in full: {} ({path}:{line}: {why}{more}); answers about calls are lower bounds",
            report.cut_files.len()
        );
    }
    if let Some(h) = &report.history {
        let capped = if h.capped { " (capped by --max-commits)" } else { "" };
        let _ = writeln!(
            out,
            "  history: {} commits{capped}, {} branches, {} tags, {} rebases · plane {}",
            h.commits, h.branches, h.tags, h.rebases, h.plane
        );
    }
    if let Some(err) = &report.history_error {
        let _ = writeln!(out, "  history: not recorded: {err}");
    }
    if let Some(ops) = &report.ops {
        let _ = writeln!(out, "  deployments: {}", ops_line(ops));
    }
    let synced = match &report.synced_commit {
        Some(sha) => {
            format!("commit {} (the committed tree; uncommitted edits are not indexed)", drsg_query::short_sha(sha))
        }
        None => "directory on disk (not a tracked part of a git checkout)".to_owned(),
    };
    let _ = writeln!(out, "  synced: {synced} · plane {} in {}", report.plane, db.display());
    out.push_str(&manifest_lines(&report.manifest_errors));
    out
}

/// The summary of a fold, one line (two when it did work).
pub fn render_fold(report: &drsg_indexer::FoldReport) -> String {
    let to = drsg_query::short_sha(&report.to);
    if report.in_sync {
        return format!("plane {} is in sync at commit {to}\n", report.plane);
    }
    let from = report.from.as_deref().map(drsg_query::short_sha).unwrap_or("(no commit)");
    let mut line = format!(
        "folded {} from {from} to {to} in {} ms{}: {} files parsed, {} reused, {} of {} resolved{} · nodes +{} ~{} −{} · edges +{} −{} ({} → {})\n",
        report.plane,
        report.millis,
        match report.state_from {
            "kept" => " (state read from the records kept beside the plane)",
            "tree" => " (state built from the whole tree)",
            _ => "",
        },
        report.files_parsed,
        report.files_reused,
        report.files_resolved,
        report.files,
        if report.whole { ", plane written whole" } else { "" },
        report.nodes_added,
        report.nodes_changed,
        report.nodes_removed,
        report.edges_added,
        report.edges_removed,
        report.edges_before,
        report.edges_after
    );
    if !report.skipped.is_empty() {
        let counts: Vec<String> = report.skipped.iter().map(|(why, n)| format!("{n} {why}")).collect();
        let named: Vec<String> = report.skipped_files.iter().map(|(path, why)| format!("{path} ({why})")).collect();
        let total: u64 = report.skipped.values().sum();
        let more = if total as usize > named.len() { " …" } else { "" };
        line.push_str(&format!("  skipped: {} · {}{more}\n", counts.join(", "), named.join(", ")));
    }
    line.push_str(&manifest_lines(&report.manifest_errors));
    if let Some(err) = &report.history_error {
        line.push_str(&format!("warning: the history plane was not refreshed: {err}\n"));
    }
    if let Some(err) = &report.kept_error {
        line.push_str(&format!(
            "warning: the fold's state was not kept beside the plane ({err}): the next fold in another process reads the whole tree again\n"
        ));
    }
    if let Some(ops) = &report.ops
        && ops.issues > 0
    {
        line.push_str(&format!("  deployments: {}\n", ops_line(ops)));
    }
    line
}

/// What an `_ops` plane holds, in one line.
fn ops_line(ops: &drsg_indexer::OpsSummary) -> String {
    let issues = match ops.issues {
        0 => String::new(),
        1 => " · 1 part not read (`drsg deployed` names it)".to_owned(),
        n => format!(" · {n} parts not read (`drsg deployed` names them)"),
    };
    format!(
        "{} manifests: {} workloads, {} images, {} Dockerfiles{issues} · plane {}",
        ops.files, ops.workloads, ops.images, ops.dockerfiles, ops.plane
    )
}

/// A line per manifest that could not be read, saying what its package's keys fall back to.
fn manifest_lines(errors: &[(String, String)]) -> String {
    errors
        .iter()
        .map(|(file, error)| {
            let fallback = if file.ends_with("Cargo.toml") {
                "; its package is keyed by its directory's name, with no known dependency"
            } else {
                "; its package's settings are not applied"
            };
            format!("warning: manifest {file} could not be read: {error}{fallback}\n")
        })
        .collect()
}

/// A log line on stderr, stamped with the UTC time.
pub fn log_line(line: &str) {
    if verbosity() < 0 {
        return;
    }
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (h, m, s) = (now / 3600 % 24, now / 60 % 60, now % 60);
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{h:02}:{m:02}:{s:02} {line}");
}
