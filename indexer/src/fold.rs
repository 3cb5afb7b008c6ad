//! The fold: move a code plane from its `synced_commit` to another commit of its repository.
//!
//! The plane's warm state (see `warm`) is kept in the [`FactsCache`] between folds of one process; a
//! fold without one first loads the state of the plane's commit. Moving the state to the target commit
//! parses only files whose blob is new and resolves again only the files a change can reach; the
//! difference is applied in one SQLite transaction that also stamps the new `synced_commit`, so a fold
//! interrupted at any point leaves the previous commit's plane. When the difference is a large part of
//! the plane, or does not apply, the plane is written whole from the new state instead.
//!
//! A fold writes in one transaction the code plane's difference and, when the history only grew, the
//! `_git` plane's (`history::appended_diff`), then the text documents of the nodes touched. The plane
//! is written whole instead when more than 20,000 edges and more than a quarter of the plane's change,
//! or when the difference does not apply. Then `Warm::keep` stores the records of the files made dirty
//! or removed (all of them when the state does not derive from the stored ones), under the plane's new
//! generation. `history::index_history` runs when the history was not written with the code, also on a
//! fold already in sync, since refs may have moved.
//!
//! A fold needs a repository: its source is a commit's tree read through `git`. Its tests
//! (`tests/it/fold.rs`: 200 random histories over Python, TypeScript and a Rust crate, branch switches
//! and targeted cases) build real repositories with `drsg_testdata::Fixture` and the real `git`, and
//! check the plane and its `_ops` plane against a fresh index of each commit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use drsg_parsers::Registry;
use drsg_planes::{PlaneInfo, PlaneKind, PlaneMeta, Store};
use foldhash::HashMap;

use crate::git::{GitError, Repo};
use crate::history::{appended_diff, index_history};
use crate::pipeline::ledger::built_by;
use crate::pipeline::options::{IndexOptions, Progress, tree_name};
use crate::pipeline::parse::BlobFacts;
use crate::source::{CommitTree, Source};
use crate::warm::Warm;

/// Facts already parsed, by blob id and path, so that a fold, or a branch switch back, parses no file
/// twice; and each plane's warm state (its symbol table and per-file output at its synced commit), so
/// that the next fold resolves only what changed.
#[derive(Default)]
pub struct FactsCache {
    facts: BlobFacts,
    warm: std::sync::Mutex<HashMap<String, Warm>>,
    /// Set when the database is thrown away after this process: folds then write no state beside the
    /// plane for later processes.
    no_kept_state: bool,
}

impl FactsCache {
    /// A cache that keeps nothing.
    pub fn off() -> FactsCache {
        FactsCache { facts: BlobFacts::off(), ..FactsCache::default() }
    }

    /// A cache for folds into a database no later process reads (a report's temporary one): they do not
    /// write their state beside the plane.
    pub fn for_temporary_database() -> FactsCache {
        FactsCache { no_kept_state: true, ..FactsCache::default() }
    }

    /// Takes plane `plane`'s warm state out of the cache.
    fn take_warm(&self, plane: &str) -> Option<Warm> {
        self.warm.lock().ok()?.remove(plane)
    }

    fn put_warm(&self, plane: &str, warm: Warm) {
        if self.facts.is_off() {
            return;
        }
        if let Ok(mut states) = self.warm.lock() {
            states.insert(plane.to_owned(), warm);
        }
    }

    /// Number of files held.
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A code plane with what moving it needs, read once.
pub struct Tracked {
    /// The plane's row as read.
    pub info: PlaneInfo,
    /// The tree it was read from.
    pub root: PathBuf,
    /// The repository whose work tree holds it.
    pub repo: Repo,
    /// The options it was built with (size limit, commit cap), with the caller as the source.
    pub options: IndexOptions,
}

impl Tracked {
    /// Plane `plane` of `store`, asked for by `source` (`cli`, `watch`, …).
    pub fn read(store: &Store, plane: &str, source: Option<&str>) -> Result<Tracked, FoldError> {
        Tracked::of(code_row(store, plane)?, source)
    }

    /// The plane of row `info`.
    pub fn of(info: PlaneInfo, source: Option<&str>) -> Result<Tracked, FoldError> {
        let plane = info.meta.name.clone();
        if info.meta.kind != PlaneKind::Code {
            return Err(FoldError::NotCode(plane));
        }
        let root_text = info.meta.synced_root.clone().unwrap_or_default();
        let root = PathBuf::from(&root_text);
        if !root.is_dir() {
            return Err(FoldError::TreeGone { plane, root: root_text });
        }
        let repo = Repo::discover(&root).ok_or_else(|| FoldError::NotGit { plane, root: root_text })?;
        let options = recorded_options(&info, source.map(str::to_owned));
        Ok(Tracked { info, root, repo, options })
    }

    /// Reads the plane's row (and the options it records) again, after a write; the repository stands.
    pub fn refresh(&mut self, store: &Store) -> Result<(), FoldError> {
        let info = code_row(store, self.name())?;
        self.options = recorded_options(&info, self.options.source.take());
        self.info = info;
        Ok(())
    }

    /// The plane's name.
    pub fn name(&self) -> &str {
        &self.info.meta.name
    }
}

/// Plane `plane`'s row, which must be a code plane's.
pub(crate) fn code_row(store: &Store, plane: &str) -> Result<PlaneInfo, FoldError> {
    let info =
        store.plane(plane).map_err(crate::Error::from)?.ok_or_else(|| FoldError::UnknownPlane(plane.to_owned()))?;
    if info.meta.kind != PlaneKind::Code {
        return Err(FoldError::NotCode(plane.to_owned()));
    }
    Ok(info)
}

/// The options plane `info` was built with (size limit, commit cap), asked for by `source`.
pub(crate) fn recorded_options(info: &PlaneInfo, source: Option<String>) -> IndexOptions {
    IndexOptions { source, ..IndexOptions::recorded(&info.meta.ledger).unwrap_or_default() }
}

/// What a fold did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FoldReport {
    pub plane: String,
    /// The commit the plane reflected before (`None`: it was not synced to a commit).
    pub from: Option<String>,
    pub to: String,
    /// True when the plane already reflected `to`: nothing was done.
    pub in_sync: bool,
    /// Source files parsed, and taken from the cache of parsed blobs.
    pub files_parsed: u64,
    pub files_reused: u64,
    pub nodes_added: u64,
    pub nodes_removed: u64,
    /// Nodes whose key stayed but whose labels, span or properties changed.
    pub nodes_changed: u64,
    pub edges_added: u64,
    pub edges_removed: u64,
    pub edges_before: u64,
    pub edges_after: u64,
    /// Source files in the plane after the fold, and how many were resolved again.
    pub files: u64,
    pub files_resolved: u64,
    /// True when the plane was written whole rather than by difference.
    pub whole: bool,
    /// False when the symbol table was kept: the same files declare the same definitions.
    pub table_rebuilt: bool,
    pub millis: u64,
    /// Seconds per phase (`load`, `read`, `table`, `dirty`, `resolve`, `compare`, `write`, `keep`,
    /// `history`).
    pub phases: BTreeMap<&'static str, f64>,
    /// Why the `_git` plane could not be refreshed (the code plane is folded all the same).
    pub history_error: Option<String>,
    /// True when the `_git` plane's difference was written in the code plane's transaction (the history
    /// only grew); otherwise it was written after, by difference or whole.
    pub history_with_code: bool,
    /// The `_ops` plane as written for the commit folded to (`None` when the tree holds no manifest).
    pub ops: Option<crate::OpsSummary>,
    /// Source files of the commit that were not read, by reason (`unreadable`: a blob that cannot be
    /// read, `too large`, `binary`, …), as `index` counts them.
    pub skipped: BTreeMap<&'static str, u64>,
    /// The first of them, with their reasons.
    pub skipped_files: Vec<(String, &'static str)>,
    /// Manifests of the commit that could not be read, with the line and the error.
    pub manifest_errors: Vec<(String, String)>,
    /// Records of the fold's state written beside the plane for the next fold (see `warm::kept`), and why
    /// they could not be (the next fold of another process then builds the state from the tree).
    pub kept_records: u64,
    pub kept_error: Option<String>,
    /// Where the state of the plane's commit came from: `memory` (this process's last fold), `kept` (the
    /// records kept beside the plane), `tree` (the tree parsed and resolved), or `none` (no state: the new
    /// commit's plane was built and written whole).
    pub state_from: &'static str,
}

/// Skipped files a fold report names.
const SKIPPED_NAMED: usize = 20;

/// Why a fold could not run. The plane is unchanged in every case.
#[derive(Debug, thiserror::Error)]
pub enum FoldError {
    #[error("no plane named `{0}`")]
    UnknownPlane(String),
    #[error("plane `{0}` is not a code plane")]
    NotCode(String),
    #[error(
        "plane `{plane}` was not indexed from a commit ({root} is not a tracked part of a git checkout); run `drsg index` to rebuild it instead"
    )]
    NotGit { plane: String, root: String },
    #[error("the tree of plane `{plane}` ({root}) no longer exists on disk; index its new place with `drsg index`")]
    TreeGone { plane: String, root: String },
    #[error("`{prefix}` does not exist at {commit}: folding plane `{plane}` there would leave it empty")]
    Untracked { plane: String, prefix: String, commit: String },
    #[error("the new plane has an edge to no node (a bug in drsg); the plane is unchanged")]
    Inconsistent,
    #[error("plane `{0}` records no source tree")]
    NoTree(String),
    #[error(transparent)]
    History(#[from] crate::history::HistoryError),
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Index(#[from] crate::Error),
}

/// Fold plane `plane_name` to `to` (a revision; `None` for HEAD). `cache` keeps parsed files between
/// folds of one process.
pub fn fold(
    store: &mut Store,
    registry: &Registry,
    plane_name: &str,
    to: Option<&str>,
    options: &IndexOptions,
    cache: &FactsCache,
    progress: &dyn Progress,
) -> Result<FoldReport, FoldError> {
    let tracked = Tracked::read(store, plane_name, options.source.as_deref())?;
    fold_tracked(store, registry, &tracked, to, cache, progress)
}

/// [`fold`] of a plane read once with what moving it needs.
pub(crate) fn fold_tracked(
    store: &mut Store,
    registry: &Registry,
    tracked: &Tracked,
    to: Option<&str>,
    cache: &FactsCache,
    progress: &dyn Progress,
) -> Result<FoldReport, FoldError> {
    let started = Instant::now();
    let plane = &tracked.info;
    let plane_name = tracked.name();
    let root = tracked.root.to_string_lossy().into_owned();
    let not_git = || FoldError::NotGit { plane: plane_name.to_owned(), root: root.clone() };
    // A plane read from disk (not a tracked part of a checkout) has no commit to fold from.
    let Some(from) = plane.meta.synced_commit.clone() else { return Err(not_git()) };
    let repo = &tracked.repo;
    let target = repo.resolve(to.unwrap_or("HEAD"))?;
    let mut report = FoldReport {
        plane: plane_name.to_owned(),
        from: Some(from.clone()),
        to: target.clone(),
        in_sync: from == target,
        files_parsed: 0,
        files_reused: 0,
        nodes_added: 0,
        nodes_removed: 0,
        nodes_changed: 0,
        edges_added: 0,
        edges_removed: 0,
        edges_before: plane.edge_count,
        edges_after: plane.edge_count,
        files: 0,
        files_resolved: 0,
        whole: false,
        table_rebuilt: true,
        millis: 0,
        phases: BTreeMap::new(),
        history_error: None,
        history_with_code: false,
        ops: None,
        skipped: BTreeMap::new(),
        skipped_files: Vec::new(),
        manifest_errors: Vec::new(),
        kept_records: 0,
        kept_error: None,
        state_from: "none",
    };
    if report.in_sync {
        // Refs may have moved without the commit (a tag, a branch): the history follows them.
        let t0 = Instant::now();
        if let Err(err) = index_history(repo, store, plane_name, tracked.options.max_commits) {
            report.history_error = Some(err.to_string());
        }
        report.phases.insert("history", t0.elapsed().as_secs_f64());
        report.millis = started.elapsed().as_millis() as u64;
        return Ok(report);
    }
    let root_path = Path::new(&root);
    let prefix = repo.tree_prefix(root_path).ok_or_else(not_git)?;
    let tree_name = tree_name(root_path);
    if !repo.tracks(&target, &prefix) {
        return Err(FoldError::Untracked { plane: plane_name.to_owned(), prefix, commit: target[..12].to_owned() });
    }
    // The plane keeps the options it was built with (size limit, commit cap); the source is this fold's.
    let options = &tracked.options;
    let same_plugins = plane.meta.built_by == built_by(registry);
    let mut warm = cache
        .take_warm(plane_name)
        .filter(|w| w.generation == plane.generation && w.commit == from && w.max_file_size == options.max_file_size);
    if warm.is_some() {
        report.state_from = "memory";
    }
    if warm.is_none() && same_plugins {
        let t0 = Instant::now();
        progress.phase("load", 0);
        let kept = Some((&*store, plane_name, plane.generation));
        if let Some((loaded, parsed, restored)) =
            load_synced(repo, root_path, &prefix, &from, registry, options, cache, kept)?
        {
            report.state_from = if restored { "kept" } else { "tree" };
            warm = Some(loaded);
            report.files_parsed = parsed;
            report.phases.insert("load", t0.elapsed().as_secs_f64());
        }
    }
    let warm = warm.filter(|_| same_plugins);
    progress.phase("fold", 0);
    let tree = CommitTree::after(
        repo.clone(),
        target.clone(),
        prefix.clone(),
        warm.as_ref().and_then(|w| w.listing(&prefix)),
    )?;
    let source = Source::Commit(Box::new(tree));
    report.phases.insert("setup", started.elapsed().as_secs_f64() - report.phases.get("load").copied().unwrap_or(0.0));
    // Set when the `_git` plane's difference was written with the code plane's (`history_seconds` to plan it).
    let (mut history_written, mut history_seconds) = (false, 0.0);
    // A state whose kept records do not read back is no state.
    let advanced = warm.and_then(|warm| warm.advance(&source, &target, &tree_name, registry, &cache.facts));
    let (mut next, info) = match advanced {
        Some((next, changes, advance)) => {
            report.phases.extend(advance.phases);
            report.files_parsed += advance.files_parsed;
            report.files_reused = advance.files_reused;
            report.files_resolved = advance.files_dirty;
            report.table_rebuilt = advance.table_rebuilt;
            report.nodes_added = changes.nodes_added;
            report.nodes_changed = changes.upsert_nodes.len() as u64 - changes.nodes_added;
            report.nodes_removed = changes.remove_nodes.len() as u64;
            report.edges_added = changes.add_edges.len() as u64;
            report.edges_removed = changes.remove_edges.len() as u64;
            let t0 = Instant::now();
            let meta = next.meta(plane_name, &root, registry, options);
            // Past a point, deleting and inserting row by row costs more than writing the plane afresh.
            let large = changes.remove_edges.len() + changes.add_edges.len() > 20_000
                && changes.remove_edges.len() + changes.add_edges.len() > next.edge_count() / 4;
            let written = if large {
                None
            } else {
                // The `_git` plane's difference, when the history only grew, goes in the same transaction.
                let t1 = Instant::now();
                let git = match &source {
                    Source::Commit(tree) => {
                        appended_diff(&tree.repo, store, plane_name, options.max_commits).ok().flatten()
                    }
                    Source::Disk { .. } => None,
                };
                history_seconds = t1.elapsed().as_secs_f64();
                let code = changes.into_diff(meta.clone(), plane.generation);
                let both = git.as_ref().and_then(|(git, _)| store.apply_plane_diffs(&[&code, git]).ok());
                match both {
                    Some(mut infos) => {
                        history_written = true;
                        Some(infos.swap_remove(0))
                    }
                    None => store.apply_plane_diff(&code).ok(),
                }
            };
            let (next, info) = match written {
                Some(info) => (next, info),
                None => {
                    report.whole = true;
                    match write_whole(store, &next, &meta) {
                        Ok(info) => (next, info),
                        // A state that does not add up is built again from the commit.
                        Err(FoldError::Inconsistent) => {
                            let next = Warm::load(&source, &target, &tree_name, registry, options, &cache.facts).0;
                            let meta = next.meta(plane_name, &root, registry, options);
                            let info = write_whole(store, &next, &meta)?;
                            (next, info)
                        }
                        Err(err) => return Err(err),
                    }
                }
            };
            report.phases.insert("write", t0.elapsed().as_secs_f64());
            (next, info)
        }
        None => {
            // No state of the old commit (history rewritten, other plugins): build the new one and write it whole.
            report.state_from = "none";
            let t0 = Instant::now();
            let before = store.plane_digest(plane.id).map_err(crate::Error::from)?;
            let (next, parsed) = Warm::load(&source, &target, &tree_name, registry, options, &cache.facts);
            report.phases.insert("load", t0.elapsed().as_secs_f64());
            let t0 = Instant::now();
            let meta = next.meta(plane_name, &root, registry, options);
            let info = write_whole(store, &next, &meta)?;
            report.phases.insert("write", t0.elapsed().as_secs_f64());
            let changes = before.changes(&store.plane_digest(info.id).map_err(crate::Error::from)?);
            report.whole = true;
            report.files_parsed = parsed;
            report.files_reused = next.files() as u64 - parsed;
            report.files_resolved = next.files() as u64;
            report.nodes_added = changes.nodes_added;
            report.nodes_changed = changes.nodes_changed;
            report.nodes_removed = changes.nodes_removed;
            report.edges_added = changes.edges_added;
            report.edges_removed = changes.edges_removed;
            (next, info)
        }
    };
    next.generation = info.generation;
    // The state is kept beside the plane for the next fold of another process; failing that only costs
    // that fold the time to build it again.
    let t0 = Instant::now();
    if let Source::Commit(_) = &source
        && !cache.no_kept_state
    {
        match next.keep(store, plane_name) {
            Ok(records) => report.kept_records = records as u64,
            Err(err) => report.kept_error = Some(err.to_string()),
        }
    }
    report.phases.insert("keep", t0.elapsed().as_secs_f64());
    let t0 = Instant::now();
    report.files = next.files() as u64;
    report.manifest_errors = next.manifest_errors().to_vec();
    report.skipped = crate::walk::count_skips(next.skipped());
    report.skipped_files = next.skipped().iter().take(SKIPPED_NAMED).map(|(p, r)| (p.clone(), r.as_str())).collect();
    report.edges_after = info.edge_count;
    cache.put_warm(plane_name, next);
    // The history, unless it went with the code plane's difference.
    report.history_with_code = history_written;
    if let Source::Commit(tree) = &source
        && !history_written
        && let Err(err) = index_history(&tree.repo, store, plane_name, options.max_commits)
    {
        report.history_error = Some(err.to_string());
    }
    report.phases.insert("history", history_seconds + t0.elapsed().as_secs_f64());
    // The `_ops` plane is a function of the tree's manifests: read again only when their blobs changed.
    let t0 = Instant::now();
    if let Source::Commit(tree) = &source {
        report.ops = crate::ops::refold(&source, &tree.ops_files(), store, plane_name, &target, &root)?;
    }
    report.phases.insert("ops", t0.elapsed().as_secs_f64());
    report.millis = started.elapsed().as_millis() as u64;
    Ok(report)
}

/// Writes the plane of state `next` whole, with `meta`.
fn write_whole(store: &mut Store, next: &Warm, meta: &PlaneMeta) -> Result<PlaneInfo, FoldError> {
    let (nodes, edges) = next.whole().ok_or(FoldError::Inconsistent)?;
    Ok(store.replace_plane(meta, &nodes, &edges).map_err(crate::Error::from)?)
}

/// The warm state of the tree at `root` (below `prefix` of its repository) at commit `synced`, the
/// files parsed for it, and whether it was read from the kept records; `None` when the repository no
/// longer has that commit or it lacks the tree.
///
/// The state kept in the database (`kept`: the store, the plane and its generation) is read back when it
/// is that commit's; otherwise the tree is parsed and resolved whole.
#[allow(clippy::too_many_arguments, reason = "the plane's repository, tree and options, and where its state may be")]
fn load_synced(
    repo: &Repo,
    root: &Path,
    prefix: &str,
    synced: &str,
    registry: &Registry,
    options: &IndexOptions,
    cache: &FactsCache,
    kept: Option<(&Store, &str, u64)>,
) -> Result<Option<(Warm, u64, bool)>, FoldError> {
    if !repo.has_commit(synced) || !repo.tracks(synced, prefix) {
        return Ok(None);
    }
    let source = Source::Commit(Box::new(CommitTree::new(repo.clone(), synced.to_owned(), prefix.to_owned())?));
    let tree_name = tree_name(root);
    let restored = kept.and_then(|(store, plane, generation)| {
        let max = options.max_file_size;
        Warm::restore(store, plane, generation, &source, synced, &tree_name, registry, max, &cache.facts)
    });
    Ok(Some(match restored {
        Some((warm, parsed)) => (warm, parsed, true),
        None => {
            let (warm, parsed) = Warm::load(&source, synced, &tree_name, registry, options, &cache.facts);
            (warm, parsed, false)
        }
    }))
}

/// Build the warm state of plane `tracked` at its synced commit into `cache`, so that the first fold of
/// a long-running process parses and resolves only what changed; the plane is not written, but the
/// state kept beside it is brought up to date (outputs an index left out, records that did not read), so
/// that the first fold does not pay for it. Returns the files in the state (0 when the plane cannot be
/// folded), how many were parsed for it, and whether it was read from the records kept beside the plane.
pub fn warm_cache(
    store: &mut Store,
    registry: &Registry,
    tracked: &Tracked,
    cache: &FactsCache,
) -> Result<(u64, u64, bool), FoldError> {
    let plane = &tracked.info;
    let plane_name = tracked.name();
    let Some(synced) = plane.meta.synced_commit.clone() else {
        return Err(FoldError::NotGit {
            plane: plane_name.to_owned(),
            root: tracked.root.to_string_lossy().into_owned(),
        });
    };
    let prefix = tracked.repo.tree_prefix(&tracked.root).unwrap_or_default();
    if plane.meta.built_by != built_by(registry) {
        return Ok((0, 0, false));
    }
    let kept = Some((&*store, plane_name, plane.generation));
    let loaded = load_synced(&tracked.repo, &tracked.root, &prefix, &synced, registry, &tracked.options, cache, kept)?;
    let Some((mut warm, parsed, restored)) = loaded else {
        return Ok((0, 0, false));
    };
    warm.generation = plane.generation;
    if !cache.no_kept_state {
        // A failure here costs the first fold the writing, which it retries.
        let _ = warm.keep(store, plane_name);
    }
    let files = warm.files() as u64;
    cache.put_warm(plane_name, warm);
    Ok((files, parsed, restored))
}
