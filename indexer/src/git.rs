//! Git access (gix), turned into plain values. The only module of the crate that reads a repository.

use std::path::{Path, PathBuf};

/// Where a tree sits in git: the repository's work tree and the commit HEAD points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    pub workdir: PathBuf,
    /// Full hex id of HEAD's commit; `None` for a repository with no commits yet.
    pub head: Option<String>,
}

/// The checkout containing `dir`, if `dir` is inside a git work tree.
pub fn checkout(dir: &Path) -> Option<Checkout> {
    let repo = gix::discover(dir).ok()?;
    let workdir = repo.workdir()?.to_path_buf();
    let head = repo.head_id().ok().map(|id| id.to_string());
    Some(Checkout { workdir, head })
}
