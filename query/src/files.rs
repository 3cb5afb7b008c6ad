//! Access to the source tree a plane was parsed from, for the verbs that show text (`grep`,
//! `snippet`). This crate does no I/O: the caller supplies an implementation that confines every
//! read to the tree (the `drsg` binaries' one checks canonical paths).
//!
//! The implementations are the binaries' `DiskFiles` (the tree on disk) and `TreeAt` (a revision's
//! tree, for `recall`), and `NoFiles`, a tree without files for callers that never show text;
//! `SlowFiles` in `tests/it/mcp.rs` is a test double. Through this trait the freshness line also
//! learns the installed plugins' `built_by`: a code plane built by other plugins says "plugins
//! changed since this plane was built".

use std::path::Path;

/// Why a file of the tree could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    #[error(
        "`{path}` is outside the tree {root}; paths are relative to the tree and may not use `..` or lead out through a symlink"
    )]
    Escapes { path: String, root: String },
    #[error("`{path}` is inside `.git`; only the tree's files can be read")]
    GitDir { path: String },
    #[error("no file `{path}` in the tree {root}")]
    NotFound { path: String, root: String },
    #[error("`{path}` is not a text file")]
    NotText { path: String },
    #[error("cannot read `{path}`: {message}")]
    Io { path: String, message: String },
}

/// Reads the files of a tree, confined to it.
pub trait SourceFiles: Sync {
    /// The bytes of `path` (relative to `root`). Absolute paths, `..` segments and symlinks that
    /// resolve outside `root` are refused with [`FileError::Escapes`].
    fn read(&self, root: &Path, path: &str) -> Result<Vec<u8>, FileError>;

    /// Calls `visit(relative path, bytes)` for every file under `root/scope` (the whole tree without a
    /// scope), skipping what `.gitignore`-style rules exclude unless `all_files`. Calls may come from
    /// several threads, in any order.
    fn visit(
        &self,
        root: &Path,
        scope: Option<&str>,
        all_files: bool,
        visit: &(dyn Fn(&str, &[u8]) + Sync),
    ) -> Result<(), FileError>;

    /// When `path` was last modified, in seconds since the Unix epoch; `None` when unknown. Verbs
    /// compare it with the plane's last write to say that a file was edited since.
    fn modified(&self, root: &Path, path: &str) -> Option<i64>;

    /// The commit HEAD points at in the checkout holding `root`, when it is one. Verbs compare it with
    /// the plane's commit to say when the plane is behind.
    fn head(&self, _root: &Path) -> Option<String> {
        None
    }

    /// [`SourceFiles::head`] read afresh, for an implementation that answers `head` from a cache: an
    /// answer says that HEAD has moved only from a fresh read (a cached HEAD from before a fold would
    /// name an older commit).
    fn head_now(&self, root: &Path) -> Option<String> {
        self.head(root)
    }

    /// What the reader's plugins would record in a plane's `built_by`, when known: a code plane built by
    /// other plugins says so in every answer.
    fn built_by(&self) -> Option<serde_json::Value> {
        None
    }
}

/// A tree without files, for callers that never show text.
pub struct NoFiles;

impl SourceFiles for NoFiles {
    fn read(&self, root: &Path, path: &str) -> Result<Vec<u8>, FileError> {
        Err(FileError::NotFound { path: path.to_owned(), root: root.display().to_string() })
    }

    fn visit(&self, _: &Path, _: Option<&str>, _: bool, _: &(dyn Fn(&str, &[u8]) + Sync)) -> Result<(), FileError> {
        Ok(())
    }

    fn modified(&self, _: &Path, _: &str) -> Option<i64> {
        None
    }
}
