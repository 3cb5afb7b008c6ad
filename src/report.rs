//! `drsg report`: a change's impact report for CI. In a fresh checkout it indexes the head into a
//! temporary database of its own, removed when the report is written, when it fails, and on Ctrl-C
//! or SIGTERM; with `--db` it reads a database whose plane is already at the head.
//!
//! The steps: both revisions checked; the head indexed into a `TempDb` (a directory under the
//! temporary directory, removed on drop and by a thread waiting for Ctrl-C or SIGTERM) unless
//! `--db` names a database at the head; `query::report`; Markdown within 60,000 characters, or
//! JSON, written to stdout or `--out`; exit 3 on a risk `--fail-on` names.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use drsg_query::{ReportOutput, ReportParams, Session};

use crate::{EXIT_FOUND, files::DiskFiles, revisions::GitRevisions};

/// Exit code of a report that holds a risk named by `--fail-on`.
pub const EXIT_RISK: i32 = 3;

/// Risk kinds `--fail-on` takes (those a report can hold).
pub const RISK_KINDS: &[&str] =
    &["removed-referenced", "public-change", "untested-public-change", "untested-change", "unparsed", "co-change"];

/// Budget of the Markdown form: a pull-request comment holds 65,536 characters.
const MARKDOWN_BUDGET: usize = 60_000;

pub struct ReportArgs {
    pub dir: PathBuf,
    pub base: String,
    pub head: Option<String>,
    pub depth: Option<u32>,
    pub json: bool,
    /// A database whose plane is at the head; `None`: index the head into a temporary one.
    pub db: Option<PathBuf>,
    pub out: Option<PathBuf>,
    pub fail_on: Vec<String>,
}

/// Writes the report; the exit code ([`EXIT_RISK`] when a risk of `--fail-on` is found).
pub fn run(args: &ReportArgs) -> anyhow::Result<i32> {
    for kind in &args.fail_on {
        if !RISK_KINDS.contains(&kind.as_str()) {
            anyhow::bail!("--fail-on takes {}, not `{kind}`", RISK_KINDS.join(", "));
        }
    }
    let root =
        args.dir.canonicalize().with_context(|| format!("cannot read the checkout at {}", args.dir.display()))?;
    if drsg_indexer::Repo::discover(&root).is_none() {
        anyhow::bail!(
            "{} is not in a git checkout; `drsg report` compares two commits, so it needs one",
            root.display()
        );
    }
    let registry = crate::config::registry_for(&root);
    let revisions = GitRevisions { registry };
    // Both revisions are checked before the head is indexed.
    let resolve = |spec: &str| drsg_query::Revisions::resolve(&revisions, &root, spec);
    resolve(&args.base).map_err(|e| anyhow::anyhow!("{e}"))?;
    let head = match &args.head {
        Some(spec) => Some(resolve(spec).map_err(|e| anyhow::anyhow!("--head: {e}"))?.sha),
        None => None,
    };
    let report = match &args.db {
        Some(db) => {
            let store = crate::open_for_read(db)?;
            report_on(&store, &root, &revisions, args, None)?
        }
        None => {
            let temp = TempDb::create()?;
            let reported = (|| {
                let mut store = crate::open_for_write(&temp.db())?;
                let plane = index_head(&mut store, registry, &root, head.as_deref())?;
                report_on(&store, &root, &revisions, args, Some(plane))
            })();
            if reported.is_err() {
                await_interruption();
            }
            reported?
            // `temp` is removed here.
        }
    };
    let text = if args.json {
        format!("{}\n", serde_json::to_string_pretty(&report)?)
    } else {
        let mut text = drsg_query::render(&report, Some(MARKDOWN_BUDGET));
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    };
    match &args.out {
        Some(path) => std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?,
        None => crate::emit(&text),
    }
    let failing: Vec<&str> =
        report.risks.iter().map(|r| r.kind).filter(|k| args.fail_on.iter().any(|f| f == k)).collect();
    if let Some(first) = failing.first() {
        eprintln!("drsg report: {} risks of a kind --fail-on names (first: {first})", failing.len());
        return Ok(EXIT_RISK);
    }
    Ok(EXIT_FOUND)
}

fn report_on(
    store: &drsg_planes::Store,
    root: &Path,
    revisions: &GitRevisions<'_>,
    args: &ReportArgs,
    plane: Option<String>,
) -> anyhow::Result<ReportOutput> {
    let session = Session { store, cwd: Some(root), files: &DiskFiles };
    let plane = match plane {
        Some(plane) => plane,
        None => drsg_query::choose_plane(store, None, Some(root))?.meta.name,
    };
    let params =
        ReportParams { base: args.base.clone(), head: args.head.clone(), depth: args.depth, plane: Some(plane) };
    Ok(drsg_query::report(&session, revisions, &params)?)
}

/// Indexes the checkout's committed tree, then folds it to `head` when that is another commit; the
/// plane's name.
fn index_head(
    store: &mut drsg_planes::Store,
    registry: &drsg_parsers::Registry,
    root: &Path,
    head: Option<&str>,
) -> anyhow::Result<String> {
    let options = drsg_indexer::IndexOptions {
        // The report reads history from git itself; the history plane needs only the tip.
        max_commits: Some(1),
        source: Some("report".into()),
        ..Default::default()
    };
    let bar = crate::Bar::new();
    let indexed = drsg_indexer::index_tree(root, registry, store, &options, &bar);
    bar.finish();
    let report = indexed.with_context(|| format!("indexing the head of {} failed", root.display()))?;
    let plane = report.plane.clone();
    if let Some(head) = head {
        let synced = store.plane(&plane)?.and_then(|p| p.meta.synced_commit);
        if synced.as_deref() != Some(head) {
            let cache = drsg_indexer::FactsCache::for_temporary_database();
            let bar = crate::Bar::new();
            drsg_indexer::fold(store, registry, &plane, Some(head), &options, &cache, &bar)
                .with_context(|| format!("moving the temporary plane to --head {head} failed"))?;
            bar.finish();
        }
    }
    Ok(plane)
}

/// Set when Ctrl-C or SIGTERM came: the work failing under the removed database then waits for the
/// signal thread to end the process with 130, rather than report its own error.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Waits for the end the signal thread brings when an interruption is under way; returns otherwise.
fn await_interruption() {
    if INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
}

/// A database directory under the system's temporary directory, removed on drop and when the
/// process is interrupted (Ctrl-C, SIGTERM).
struct TempDb {
    dir: PathBuf,
}

impl TempDb {
    fn create() -> anyhow::Result<TempDb> {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!("drsg-report-{}-{nanos}", std::process::id()));
        let removed = dir.clone();
        // The signal thread removes the directory and ends the process; a normal end drops `TempDb`. Its
        // handlers are in place before the directory exists, so no signal can leave it behind.
        let (ready, listening) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            crate::block_on(async move {
                let interrupted = interruption();
                let _ = ready.send(());
                interrupted.await;
            });
            INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
            // The index may still be writing in it: remove it until it stays gone, then end.
            for _ in 0..50 {
                let _ = std::fs::remove_dir_all(&removed);
                std::thread::sleep(std::time::Duration::from_millis(20));
                if !removed.exists() {
                    break;
                }
            }
            eprintln!("drsg report: interrupted; the temporary database is removed");
            std::process::exit(130);
        });
        listening.recv().context("the signal thread of the report did not start")?;
        std::fs::create_dir(&dir)
            .with_context(|| format!("cannot create a temporary database at {}", dir.display()))?;
        Ok(TempDb { dir })
    }

    fn db(&self) -> PathBuf {
        self.dir.join("graph.drsg")
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A future that ends on Ctrl-C or SIGTERM, its handlers registered when it is made (not when first polled).
fn interruption() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let term = signal(SignalKind::terminate());
        let int = signal(SignalKind::interrupt());
        async move {
            match (term, int) {
                (Ok(mut term), Ok(mut int)) => {
                    tokio::select! {
                        _ = term.recv() => {}
                        _ = int.recv() => {}
                    }
                }
                _ => std::future::pending::<()>().await,
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
