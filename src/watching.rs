//! The watch loop: keep a code plane at its repository's HEAD, folding on every move, until asked to
//! stop. `drsg watch` runs it in the foreground; `drsg serve … watch` runs it beside the server, the
//! store's mutex being the write gate: each fold holds it, calls wait for it.

use std::path::Path;
use std::sync::MutexGuard;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context as _;
use drsg_indexer::{FactsCache, FoldReport, IndexOptions, Repo, Silent};
use drsg_planes::{SharedStore, Store};
use drsg_watch::{Event, GitWatch, Mode};

/// How often the loop looks at the stop flag while no event comes.
const TICK: Duration = Duration::from_millis(200);

/// Folds plane `plane` to HEAD now and on every HEAD move until `stop` is set. Each fold (and the
/// start-up reconciliation) is reported through `log`, one line each.
pub fn watch_plane(
    store: &SharedStore,
    registry: &drsg_parsers::Registry,
    plane: &str,
    mode: Mode,
    stop: &AtomicBool,
    log: &mut dyn FnMut(&str),
) -> anyhow::Result<()> {
    let info = lock(store).plane(plane)?.with_context(|| format!("no plane named `{plane}`"))?;
    let root = info.meta.synced_root.clone().with_context(|| format!("plane `{plane}` records no source tree"))?;
    let repo = Repo::discover(Path::new(&root))
        .with_context(|| format!("{root} is not in a git checkout; `drsg watch` follows commits, so it needs one"))?;
    let cache = FactsCache::default();
    // Watch before reconciling and warming up: a commit made meanwhile is an event the loop below
    // folds, not a move missed until the next one.
    let watch = GitWatch::start(&repo.git_dirs(), mode)?;
    reconcile(&mut lock(store), registry, plane, &repo, &root, &cache, log)?;
    // Build the synced tree's state once now (from the records kept beside the plane, or by parsing and
    // resolving it), so the first fold parses and resolves only what the commit reaches.
    match drsg_indexer::warm_cache(&mut lock(store), registry, plane, &cache)? {
        (0, _, _) => {}
        (files, parsed, true) => {
            log(&format!("state of {files} files read from the records kept beside the plane ({parsed} parsed)"))
        }
        (files, _, false) => log(&format!("{files} files parsed and resolved for the next folds")),
    }
    log(&format!("watching {} ({}) for plane {plane}", repo.git_dirs()[0].display(), watch.backend()));
    while !stop.load(Ordering::Relaxed) {
        match watch.next(TICK) {
            None => continue,
            Some(Event::Error(err)) => log(&format!("watch error (still watching): {err}")),
            Some(Event::Moved) => {
                watch.drain();
                if let Err(err) = follow_head(&mut lock(store), registry, plane, &repo, &cache, log) {
                    log(&format!("fold failed, the plane is unchanged: {err:#}"));
                }
            }
        }
    }
    watch.stop();
    log("stopped");
    Ok(())
}

fn lock(store: &SharedStore) -> MutexGuard<'_, Store> {
    store.lock()
}

/// The code plane read from `root` (a canonical path), if any.
pub fn plane_of_root(store: &Store, root: &Path) -> anyhow::Result<Option<String>> {
    let root_text = root.to_string_lossy();
    let plane = store
        .planes()?
        .into_iter()
        .find(|p| p.meta.kind == drsg_planes::PlaneKind::Code && p.meta.synced_root.as_deref() == Some(&*root_text));
    Ok(plane.map(|p| p.meta.name))
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
    let root_text = root.to_string_lossy().into_owned();
    let existing = store
        .planes()?
        .into_iter()
        .find(|p| p.meta.kind == drsg_planes::PlaneKind::Code && p.meta.synced_root.as_deref() == Some(&root_text));
    if let Some(plane) = existing {
        return Ok(plane.meta.name);
    }
    let options = IndexOptions { source: Some("watch".into()), ..IndexOptions::default() };
    let report = drsg_indexer::index_tree(root, registry, store, &options, &drsg_indexer::Silent)?;
    log(&format!("no plane for {} yet: indexed it as {}", root.display(), report.plane));
    Ok(report.plane)
}

/// Start-up: in sync; the recorded commit is known (fold the gap); or unknown, history having been
/// rewritten (rebuild from HEAD).
fn reconcile(
    store: &mut Store,
    registry: &drsg_parsers::Registry,
    plane: &str,
    repo: &Repo,
    root: &str,
    cache: &FactsCache,
    log: &mut dyn FnMut(&str),
) -> anyhow::Result<()> {
    let info = store.plane(plane)?.with_context(|| format!("no plane named `{plane}`"))?;
    let Some(head) = repo.head().commit else {
        log("the repository has no commits yet; waiting for the first");
        return Ok(());
    };
    match info.meta.synced_commit.as_deref() {
        Some(synced) if synced == head => {
            log(&format!("in sync at {}", drsg_query::short_sha(&head)));
            Ok(())
        }
        Some(synced) if repo.has_commit(synced) => follow_head(store, registry, plane, repo, cache, log),
        None if !repo.tracks(&head, &repo.tree_prefix(Path::new(root)).unwrap_or_default()) => anyhow::bail!(
            "plane `{plane}` was read from disk ({root} is not tracked at HEAD); `drsg watch` follows commits of a tracked tree"
        ),
        recorded => {
            let what = match recorded {
                Some(sha) => format!(
                    "recorded commit {} is not in the repository (history rewritten?)",
                    drsg_query::short_sha(sha)
                ),
                None => "the plane records no commit".to_owned(),
            };
            let recorded = IndexOptions::recorded(&info.meta.ledger).unwrap_or_default();
            let options = IndexOptions { plane: Some(plane.to_owned()), source: Some("watch".into()), ..recorded };
            let report = drsg_indexer::index_tree(Path::new(root), registry, store, &options, &Silent)?;
            log(&format!(
                "{what}: rebuilt from HEAD {} in {:.0} ms ({} files)",
                drsg_query::short_sha(&head),
                report.seconds * 1000.0,
                report.files
            ));
            Ok(())
        }
    }
}

/// Fold to HEAD when it moved.
fn follow_head(
    store: &mut Store,
    registry: &drsg_parsers::Registry,
    plane: &str,
    repo: &Repo,
    cache: &FactsCache,
    log: &mut dyn FnMut(&str),
) -> anyhow::Result<()> {
    let Some(head) = repo.head().commit else { return Ok(()) };
    let info = store.plane(plane)?.with_context(|| format!("no plane named `{plane}`"))?;
    if info.meta.synced_commit.as_deref() == Some(head.as_str()) {
        // Refs moved without moving HEAD's commit (a branch created or checked out at the same
        // commit, a tag): only the history changed.
        let max_commits = IndexOptions::recorded(&info.meta.ledger).and_then(|o| o.max_commits);
        let history = drsg_indexer::history::index_history(repo, store, plane, max_commits)?;
        log(&format!(
            "refs moved, HEAD still at {}: history refreshed ({} branches, {} tags)",
            drsg_query::short_sha(&head),
            history.branches,
            history.tags
        ));
        return Ok(());
    }
    let options = IndexOptions { source: Some("watch".into()), ..IndexOptions::default() };
    let report: FoldReport = drsg_indexer::fold(store, registry, plane, Some(&head), &options, cache, &Silent)?;
    log(crate::render_fold(&report).trim_end());
    Ok(())
}
