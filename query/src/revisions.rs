//! Access to a repository's revisions for `recall`: this crate does no I/O, so the caller supplies
//! an implementation (the `drsg` binaries read git through the indexer's gix module).

use std::path::Path;

use crate::files::SourceFiles;

/// A commit a revision named.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Revision {
    /// What the caller wrote.
    pub spec: String,
    pub sha: String,
    pub summary: String,
    /// Committer date, ISO 8601 UTC.
    pub date: String,
}

/// An entry of a directory at a revision.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DirEntry {
    pub name: String,
    pub is_dir: bool,
}

/// Why a revision could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RevisionError {
    #[error(
        "unknown revision `{0}`; accepted: a full sha, a sha prefix of at least 4 characters, a tag, a branch, `HEAD`, `<rev>~n`, `<rev>^n`, a date (`2024-01-31` or `2024-01-31T12:00:00Z`, the newest commit of HEAD's history at that time), or `<rev>@{{<date>}}` (where the ref pointed then, from the reflog)"
    )]
    Unknown(String),
    /// A revision the repository cannot answer for, and why (a sentence).
    #[error("{0}")]
    Invalid(String),
    #[error("{0} is not in a git checkout, so it has no revisions")]
    NoRepository(String),
    #[error("reading the repository: {0}")]
    Read(String),
    #[error(transparent)]
    File(#[from] crate::files::FileError),
}

/// A repository's revisions, below the tree a plane was parsed from.
pub trait Revisions: Sync {
    /// The commit `spec` names.
    fn resolve(&self, root: &Path, spec: &str) -> Result<Revision, RevisionError>;

    /// The entries of directory `dir` (`""` for the tree's root) at `sha`; `None` when it is not a
    /// directory there.
    fn list(&self, root: &Path, sha: &str, dir: &str) -> Result<Option<Vec<DirEntry>>, RevisionError>;

    /// The files of the tree at `sha`, with the same confinement as the working tree's.
    fn files_at(&self, root: &Path, sha: &str) -> Result<Box<dyn SourceFiles + '_>, RevisionError>;

    /// Lines (`line`, `end_line`) of the definition `wanted`, found by parsing `text`, a revision of file
    /// `path`; `None` when it holds no such definition.
    fn declaration(&self, path: &str, text: &str, wanted: &Declared<'_>) -> Option<(u32, u32)>;
}

/// A definition looked for in a revision of its file.
#[derive(Debug, Clone, Copy)]
pub struct Declared<'a> {
    /// The end of its name path (`Client.load`).
    pub names: &'a [String],
    /// For a Rust trait-impl method, the trait its `impl` is of.
    pub impl_trait: Option<&'a str>,
    /// Whether it is a module (`mod search;`), or anything else of that name (`fn search`).
    pub module: bool,
}
