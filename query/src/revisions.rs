//! Access to a repository's revisions for `recall` and `report`: this crate does no I/O, so the caller
//! supplies an implementation (the `drsg` binaries read git through the indexer's gix module and parse
//! with the language plugins).
//!
//! The binaries' implementation is `GitRevisions` (`src/revisions.rs`); the files of a revision it
//! gives are `TreeAt`, a commit's tree read through gix, with the same confinement as the tree on
//! disk.

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

    /// The newest common ancestor of commits `a` and `b`; `None` when their histories do not meet.
    fn merge_base(&self, root: &Path, a: &str, b: &str) -> Result<Option<String>, RevisionError>;

    /// Whether the repository's history is cut (a shallow clone), so older revisions may be missing.
    fn shallow(&self, root: &Path) -> bool;

    /// The files below the tree each of the newest `limit` commits reachable from `tip` changed (paths
    /// relative to the tree), newest first; root commits are left out.
    fn commit_files(&self, root: &Path, tip: &str, limit: usize) -> Result<Vec<Vec<String>>, RevisionError>;

    /// The files below the tree that differ between commits `base` and `head`, with git's renames,
    /// by their paths relative to the tree.
    fn changed_files(&self, root: &Path, base: &str, head: &str) -> Result<Vec<FileChange>, RevisionError>;

    /// The definitions of `text`, a revision of file `path`, as its language's plugin reads them;
    /// `None` when no plugin reads such a file.
    fn outline(&self, path: &str, text: &str) -> Option<Outline>;

    /// The Cargo package a Rust file of the tree belongs to at `sha`: the name in the nearest
    /// `Cargo.toml` above it that declares a `[package]`.
    fn cargo_package(&self, root: &Path, sha: &str, path: &str) -> Option<String>;
}

/// A file that differs between two revisions: its path at each (`None` where it does not exist).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub old: Option<String>,
    pub new: Option<String>,
}

/// A file's definitions as a plugin reads them, in the order it declares them.
#[derive(Debug, Clone, Default)]
pub struct Outline {
    pub defs: Vec<OutlineDef>,
    /// Syntax errors the parser recovered from.
    pub syntax_errors: u32,
    /// Whether the file is a test file by its path.
    pub test_file: bool,
    /// The separator of its language's keys (`::` or `.`).
    pub separator: &'static str,
}

/// One definition of an [`Outline`].
#[derive(Debug, Clone)]
pub struct OutlineDef {
    pub name: String,
    /// Its node label (`Function`, `Method`, `Class`, …).
    pub label: &'static str,
    /// The enclosing definition, by index.
    pub parent: Option<usize>,
    pub line: u32,
    pub end_line: u32,
    pub signature: String,
    /// `pub`, exported, or a Python name without a leading underscore.
    pub public: bool,
    pub is_test: bool,
    /// Rust: the self type and the trait of the `impl` it sits in, their last segments as written.
    pub impl_of: Option<(String, Option<String>)>,
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
