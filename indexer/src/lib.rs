//! drsg-indexer: builds code planes from source trees.
//!
//! It owns the walk (the `ignore` crate), the layout of packages and module keys, the symbol table,
//! import- and scope-aware resolution, and the translation into nodes and edges written through
//! `drsg-planes`. It is the only writer of planes. Git is read in one module (`git`) that yields
//! plain values. The language registry comes from the caller; this crate names no plugin.
//!
//! Main entry: [`index_tree`].

mod builtins;
mod dates;
mod fold;
mod git;
mod graph;
pub mod history;
mod layout;
pub mod ops;
mod pipeline;
mod resolve;
mod routes;
mod run;
pub mod source;
pub mod sync;
mod table;
pub mod walk;
mod warm;

use std::path::PathBuf;

pub use fold::{FactsCache, FoldError, FoldReport, fold, warm_cache};
pub use git::{
    BlobReader, Checkout, CommitInfo, EntryKind, GitError, Head, Listing, LocalBlobs, PathChange, RefInfo, RefKind,
    ReflogEntry, Repo, TreeEntry, checkout,
};
pub use graph::{Accounting, reason_category};
pub use ops::OpsSummary;
pub use pipeline::options::{IndexOptions, Progress, Silent};
pub use pipeline::parse::{is_test_path, prepare_announced_dialects};
pub use run::{RunReport, index_tree};
pub use walk::SkipReason;

/// What stops an indexing run. Bad files never do: they are skipped and counted.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read the tree at {path}")]
    Root {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a directory")]
    RootNotADirectory { path: PathBuf },
    #[error(transparent)]
    Store(#[from] drsg_planes::Error),
    #[error("cannot start the resolution thread")]
    Thread {
        #[source]
        source: std::io::Error,
    },
    #[error("resolution failed unexpectedly (a bug in drsg); the database is unchanged")]
    ResolvePanicked,
    /// The tree holds no file a language plugin reads: nothing was written.
    #[error("nothing to index in {path}: {why}")]
    NothingToIndex { path: PathBuf, why: String },
    /// HEAD's commit or tree cannot be read: nothing was written.
    #[error("cannot read HEAD's committed tree in {path}: {error}")]
    Commit { path: PathBuf, error: GitError },
}
