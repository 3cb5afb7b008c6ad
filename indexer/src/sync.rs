//! A code plane's life cycle in one place, for every caller (`drsg fold`, `drsg watch`, a server's
//! watch and `rebuild` tool, `drsg init`): what moving a plane needs (its row, its tree's root, the
//! repository holding it and the options it was built with) is read once per move as a [`Tracked`],
//! then the plane is folded to HEAD, has only its history refreshed when refs moved without moving
//! HEAD's commit, or is rebuilt from its tree when its commit is gone ([`sync`]); a tree with no plane
//! is indexed first ([`index_if_missing`]), and a plane is rebuilt with its recorded options
//! ([`rebuild`]).

use std::path::Path;

use drsg_parsers::Registry;
use drsg_planes::{PlaneKind, Store};

pub use crate::fold::Tracked;
use crate::fold::{FactsCache, FoldError, FoldReport, code_row, fold_tracked, recorded_options};
use crate::history::{HistorySummary, index_history};
use crate::pipeline::options::{IndexOptions, Progress, Silent};
use crate::run::{RunReport, index_tree};

/// What [`sync`] did.
#[derive(Debug)]
pub enum Synced {
    /// The repository has no commit yet.
    NoCommits,
    /// The plane was at HEAD already.
    InSync { commit: String },
    /// HEAD's commit did not move but refs did: only the history was refreshed.
    RefsMoved { commit: String, history: HistorySummary },
    /// The plane was folded to HEAD.
    Folded(Box<FoldReport>),
    /// The plane's commit is not in the repository (history rewritten) or it records none: it was built
    /// again from the tree at HEAD with its recorded options; `why` says which.
    Rebuilt { why: String, report: Box<RunReport> },
}

/// Brings plane `tracked` to its repository's HEAD: a fold from its commit, or a rebuild when that
/// commit is gone; at the same commit nothing, or with `refs_moved` the history refreshed.
pub fn sync(
    store: &mut Store,
    registry: &Registry,
    tracked: &Tracked,
    cache: &FactsCache,
    refs_moved: bool,
) -> Result<Synced, FoldError> {
    let Some(head) = tracked.repo.head().commit else { return Ok(Synced::NoCommits) };
    let plane = tracked.name();
    match tracked.info.meta.synced_commit.as_deref() {
        Some(synced) if synced == head && !refs_moved => Ok(Synced::InSync { commit: head }),
        Some(synced) if synced == head => {
            let history = index_history(&tracked.repo, store, plane, tracked.options.max_commits)?;
            Ok(Synced::RefsMoved { commit: head, history })
        }
        Some(synced) if tracked.repo.has_commit(synced) => {
            Ok(Synced::Folded(Box::new(fold_tracked(store, registry, tracked, Some(&head), cache, &Silent)?)))
        }
        None if !tracked.repo.tracks(&head, &tracked.repo.tree_prefix(&tracked.root).unwrap_or_default()) => {
            Err(FoldError::NotGit { plane: plane.to_owned(), root: tracked.root.to_string_lossy().into_owned() })
        }
        recorded => {
            let why = match recorded {
                Some(sha) => format!(
                    "recorded commit {} is not in the repository (history rewritten?)",
                    sha.get(..12).unwrap_or(sha)
                ),
                None => "the plane records no commit".to_owned(),
            };
            let options = IndexOptions { plane: Some(plane.to_owned()), ..tracked.options.clone() };
            let report = index_tree(&tracked.root, registry, store, &options, &Silent)?;
            Ok(Synced::Rebuilt { why, report: Box::new(report) })
        }
    }
}

/// The code plane read from `root` (a canonical path), if any.
pub fn plane_of_root(store: &Store, root: &Path) -> Result<Option<String>, crate::Error> {
    let root_text = root.to_string_lossy();
    let plane = store
        .planes()?
        .into_iter()
        .find(|p| p.meta.kind == PlaneKind::Code && p.meta.synced_root.as_deref() == Some(&*root_text));
    Ok(plane.map(|p| p.meta.name))
}

/// The code plane read from `root` (a canonical path), indexing the tree with `options` first when
/// there is none (then its report too).
pub fn index_if_missing(
    store: &mut Store,
    registry: &Registry,
    root: &Path,
    options: &IndexOptions,
    progress: &dyn Progress,
) -> Result<(String, Option<RunReport>), crate::Error> {
    if let Some(plane) = plane_of_root(store, root)? {
        return Ok((plane, None));
    }
    let report = index_tree(root, registry, store, options, progress)?;
    Ok((report.plane.clone(), Some(report)))
}

/// Re-indexes plane `plane` from the tree it records, with the options it was built with, for `source`.
pub fn rebuild(
    store: &mut Store,
    registry: &Registry,
    plane: &str,
    source: &str,
    progress: &dyn Progress,
) -> Result<RunReport, FoldError> {
    let info = code_row(store, plane)?;
    let root = info.meta.synced_root.clone().ok_or_else(|| FoldError::NoTree(plane.to_owned()))?;
    if !Path::new(&root).is_dir() {
        return Err(FoldError::TreeGone { plane: plane.to_owned(), root });
    }
    let options = IndexOptions { plane: Some(plane.to_owned()), ..recorded_options(&info, Some(source.to_owned())) };
    Ok(index_tree(Path::new(&root), registry, store, &options, progress)?)
}
