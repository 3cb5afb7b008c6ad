//! The fold: move a code plane from its `synced_commit` to another commit of its repository.
//!
//! Files come from the target commit's tree; a file whose blob was parsed before (at any commit, in
//! this process) is not parsed again (`FactsCache`). Resolution then runs over the whole table and
//! the plane is written in one SQLite transaction that also stamps the new `synced_commit`, so a fold
//! interrupted at any point leaves the previous commit's plane, and the result equals a fresh index
//! of the target commit by construction. Re-resolving only the references whose binding can change is
//! the next step (see the README's known gaps).

use std::path::Path;
use std::time::Instant;

use drsg_parsers::Registry;
use drsg_planes::{PlaneKind, Store};

use crate::git::{GitError, Repo};
use crate::run::{FactsCache, IndexOptions, Progress, RunReport, run_source};
use crate::source::{CommitTree, Source};

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
    pub millis: u64,
    /// The run behind the fold, when there was one.
    #[serde(skip)]
    pub run: Option<RunReport>,
}

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
    let started = Instant::now();
    let plane = store
        .plane(plane_name)
        .map_err(crate::Error::from)?
        .ok_or_else(|| FoldError::UnknownPlane(plane_name.to_owned()))?;
    if plane.meta.kind != PlaneKind::Code {
        return Err(FoldError::NotCode(plane_name.to_owned()));
    }
    let root = plane.meta.synced_root.clone().unwrap_or_default();
    let not_git = || FoldError::NotGit { plane: plane_name.to_owned(), root: root.clone() };
    // A plane read from disk (not a tracked part of a checkout) has no commit to fold from.
    let Some(from) = plane.meta.synced_commit.clone() else { return Err(not_git()) };
    if !Path::new(&root).is_dir() {
        return Err(FoldError::TreeGone { plane: plane_name.to_owned(), root: root.clone() });
    }
    let repo = Repo::discover(Path::new(&root)).ok_or_else(not_git)?;
    let target = repo.resolve(to.unwrap_or("HEAD"))?;
    let from = Some(from);
    let mut report = FoldReport {
        plane: plane_name.to_owned(),
        from: from.clone(),
        to: target.clone(),
        in_sync: from.as_deref() == Some(target.as_str()),
        files_parsed: 0,
        files_reused: 0,
        nodes_added: 0,
        nodes_removed: 0,
        nodes_changed: 0,
        edges_added: 0,
        edges_removed: 0,
        edges_before: plane.edge_count,
        edges_after: plane.edge_count,
        millis: 0,
        run: None,
    };
    if report.in_sync {
        report.millis = started.elapsed().as_millis() as u64;
        return Ok(report);
    }
    let root_path = Path::new(&root);
    let prefix = repo.tree_prefix(root_path).ok_or_else(not_git)?;
    let tree_name =
        root_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "root".to_owned());
    let before = match cache.digest(plane_name, plane.generation) {
        Some(digest) => digest,
        None => store.plane_digest(plane.id).map_err(crate::Error::from)?,
    };
    if !repo.tracks(&target, &prefix) {
        return Err(FoldError::Untracked { plane: plane_name.to_owned(), prefix, commit: target[..12].to_owned() });
    }
    let source = Source::Commit(Box::new(CommitTree::new(repo, target, prefix)?));
    // The plane keeps the options it was built with (size limit, commit cap).
    let options = IndexOptions::recorded(&plane.meta.ledger).unwrap_or_else(|| options.clone());
    let run = run_source(&source, root_path, &tree_name, plane_name, registry, store, &options, progress, cache)?;
    let after = store
        .plane(plane_name)
        .map_err(crate::Error::from)?
        .ok_or_else(|| FoldError::UnknownPlane(plane_name.to_owned()))?;
    let now = store.plane_digest(after.id).map_err(crate::Error::from)?;
    let changes = before.changes(&now);
    cache.put_digest(plane_name, after.generation, now);
    report.nodes_added = changes.nodes_added;
    report.nodes_changed = changes.nodes_changed;
    report.nodes_removed = changes.nodes_removed;
    report.edges_added = changes.edges_added;
    report.edges_removed = changes.edges_removed;
    report.edges_after = after.edge_count;
    report.files_reused = run.files_reused;
    report.files_parsed = run.files - run.files_reused;
    report.millis = started.elapsed().as_millis() as u64;
    report.run = Some(run);
    Ok(report)
}

/// Parse the files of plane `plane_name` at its synced commit into `cache`, writing nothing, so that
/// the first fold of a long-running process parses only what changed. Returns the files parsed.
pub fn warm_cache(store: &Store, registry: &Registry, plane_name: &str, cache: &FactsCache) -> Result<u64, FoldError> {
    let plane = store
        .plane(plane_name)
        .map_err(crate::Error::from)?
        .ok_or_else(|| FoldError::UnknownPlane(plane_name.to_owned()))?;
    let root = plane.meta.synced_root.clone().unwrap_or_default();
    let not_git = || FoldError::NotGit { plane: plane_name.to_owned(), root: root.clone() };
    let synced = plane.meta.synced_commit.clone().ok_or_else(not_git)?;
    let repo = Repo::discover(Path::new(&root)).ok_or_else(not_git)?;
    let prefix = repo.tree_prefix(Path::new(&root)).ok_or_else(not_git)?;
    if !repo.has_commit(&synced) || !repo.tracks(&synced, &prefix) {
        return Ok(0);
    }
    let options = IndexOptions::recorded(&plane.meta.ledger).unwrap_or_default();
    let source = Source::Commit(Box::new(CommitTree::new(repo, synced, prefix)?));
    let walked = source.walk(registry, options.max_file_size);
    let (outcomes, reused) =
        crate::run::parse_all(&source, &walked.candidates, registry, options.max_file_size, cache, &crate::Silent);
    Ok(outcomes.iter().filter(|o| o.is_ok()).count() as u64 - reused)
}
