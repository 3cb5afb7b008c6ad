//! The watch loop: keep a code plane at its repository's HEAD, folding on every move, until asked to
//! stop. `drsg watch` runs it in the foreground; `drsg serve … watch` runs it beside the server, the
//! store's mutex being the write gate: each fold holds it, calls wait for it.
//!
//! `watch_plane` takes a `SharedStore` and holds its write gate per fold, so a server answers
//! between folds. It starts watching, reconciles (`drsg_indexer::sync::sync`: in sync, fold the gap,
//! or rebuild after rewritten history) and warms up, then syncs on every `drsg_watch::Event::Moved`
//! (a move of HEAD, a ref, `packed-refs` or a reflog), one log line each. It discovers the
//! repository once and reads the plane's row once per fold (`Tracked::refresh`). Watching starts
//! before the reconciliation, so a commit made while the loop starts is an event, not a move missed.

use std::path::Path;
use std::sync::MutexGuard;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use drsg_indexer::sync::{Synced, Tracked, sync};
use drsg_indexer::{FactsCache, FoldError, IndexOptions, Repo, Silent};
use drsg_planes::{SharedStore, Store};
use drsg_watch::{Event, GitWatch, Mode};

/// How often the loop looks at the stop flag while no event comes.
const TICK: Duration = Duration::from_millis(200);

/// Folds plane `plane` to HEAD now and on every HEAD move until `stop` is set. Each fold (and the
/// start-up reconciliation) is reported through `log`, one line each. The plane's row is read once per
/// fold, the repository once (`drsg_indexer::sync::Tracked`).
pub fn watch_plane(
    store: &SharedStore,
    registry: &drsg_parsers::Registry,
    plane: &str,
    mode: Mode,
    stop: &AtomicBool,
    log: &mut dyn FnMut(&str),
) -> anyhow::Result<()> {
    let mut tracked = Tracked::read(&lock(store), plane, Some("watch")).map_err(|err| match err {
        FoldError::NotGit { root, .. } => {
            anyhow::anyhow!("{root} is not in a git checkout; `drsg watch` follows commits, so it needs one")
        }
        other => anyhow::Error::new(other),
    })?;
    let cache = FactsCache::default();
    // Watch before reconciling and warming up: a commit made meanwhile is an event the loop below
    // folds, not a move missed until the next one.
    let watch = GitWatch::start(&tracked.repo.git_dirs(), mode)?;
    let synced = sync(&mut lock(store), registry, &tracked, &cache, false).map_err(|err| match err {
        FoldError::NotGit { root, .. } => anyhow::anyhow!(
            "plane `{plane}` was read from disk ({root} is not tracked at HEAD); `drsg watch` follows commits of a tracked tree"
        ),
        other => anyhow::Error::new(other),
    })?;
    log_synced(&synced, log);
    // Build the synced tree's state once now (from the records kept beside the plane, or by parsing and
    // resolving it), so the first fold parses and resolves only what the commit reaches.
    tracked.refresh(&lock(store))?;
    if tracked.info.meta.synced_commit.is_some() {
        match drsg_indexer::warm_cache(&mut lock(store), registry, &tracked, &cache)? {
            (0, _, _) => {}
            (files, parsed, true) => {
                log(&format!("state of {files} files read from the records kept beside the plane ({parsed} parsed)"))
            }
            (files, _, false) => log(&format!("{files} files parsed and resolved for the next folds")),
        }
    }
    log(&format!("watching {} ({}) for plane {plane}", tracked.repo.git_dirs()[0].display(), watch.backend()));
    while !stop.load(Ordering::Relaxed) {
        match watch.next(TICK) {
            None => continue,
            Some(Event::Error(err)) => log(&format!("watch error (still watching): {err}")),
            Some(Event::Moved) => {
                watch.drain();
                let mut store = lock(store);
                let moved = tracked.refresh(&store).and_then(|()| sync(&mut store, registry, &tracked, &cache, true));
                match moved {
                    // Nothing to fold until the first commit.
                    Ok(Synced::NoCommits) => {}
                    Ok(synced) => log_synced(&synced, log),
                    Err(err) => log(&format!("fold failed, the plane is unchanged: {:#}", anyhow::Error::new(err))),
                }
            }
        }
    }
    watch.stop();
    log("stopped");
    Ok(())
}

/// One line on what [`sync`] did.
fn log_synced(synced: &Synced, log: &mut dyn FnMut(&str)) {
    match synced {
        Synced::NoCommits => log("the repository has no commits yet; waiting for the first"),
        Synced::InSync { commit } => log(&format!("in sync at {}", drsg_query::short_sha(commit))),
        Synced::RefsMoved { commit, history } => log(&format!(
            "refs moved, HEAD still at {}: history refreshed ({} branches, {} tags)",
            drsg_query::short_sha(commit),
            history.branches,
            history.tags
        )),
        Synced::Folded(report) => log(crate::render_fold(report).trim_end()),
        Synced::Rebuilt { why, report } => log(&format!(
            "{why}: rebuilt from HEAD {} in {:.0} ms ({} files)",
            report.synced_commit.as_deref().map(drsg_query::short_sha).unwrap_or("?"),
            report.seconds * 1000.0,
            report.files
        )),
    }
}

fn lock(store: &SharedStore) -> MutexGuard<'_, Store> {
    store.lock()
}

/// How to watch: polling every `poll_ms` milliseconds when given, else file-system events.
pub fn mode(poll_ms: Option<u64>) -> Mode {
    match poll_ms {
        Some(ms) => Mode::Poll(Duration::from_millis(ms.max(10))),
        None => Mode::Events,
    }
}

/// The code plane built from `root` (a canonical path), indexing the tree first when there is none.
pub fn plane_for_root(
    store: &mut Store,
    registry: &drsg_parsers::Registry,
    root: &Path,
    log: &mut dyn FnMut(&str),
) -> anyhow::Result<String> {
    if Repo::discover(root).is_none() {
        anyhow::bail!("{} is not in a git checkout; watching follows commits, so it needs one", root.display());
    }
    let options = IndexOptions { source: Some("watch".into()), ..IndexOptions::default() };
    let (plane, indexed) = drsg_indexer::sync::index_if_missing(store, registry, root, &options, &Silent)?;
    if indexed.is_some() {
        log(&format!("no plane for {} yet: indexed it as {plane}", root.display()));
    }
    Ok(plane)
}
