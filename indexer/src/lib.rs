//! drsg-indexer: builds code planes from source trees.
//!
//! It owns the walk (the `ignore` crate), the layout of packages and module keys, the symbol table,
//! import- and scope-aware resolution, and the translation into nodes and edges written through
//! `drsg-planes`. It is the only writer of planes. Git is read in one module (`git`) that yields
//! plain values. The language registry comes from the caller; this crate names no plugin.
//!
//! Main entry: [`index_tree`].
//!
//! A run's flow: `prepare_announced_dialects` starts compiling the queries of the dialects the
//! tree's top level announces while the store opens and the tree is walked; `index_tree` walks the
//! tree, loads the layout, parses on rayon, builds the symbol table, then resolves on one thread
//! while the store writes on another (see `run`). After the code plane come the `_git` plane
//! (`history::index_history`, for a git checkout) and the `_ops` plane (`ops::write`, from the
//! manifests the walk found).
//!
//! Hash maps and sets are foldhash's: randomly seeded per process, like the standard library's, and
//! cheaper than SipHash on short keys and names (the resolution thread's CPU time on Django fell by
//! about a fifth); nothing depends on their iteration order.
//!
//! What a run cannot read is counted and named, never a failure: a file part of which a plugin did
//! not read (`Diagnostic::cut`: nesting deeper than it walks, a query limit) is named in the run
//! report and the ledger's `cut`, and while a plane has one, `context`, `impact` and `trace` call
//! their answers lower bounds. A submodule, and a name that is not UTF-8 (escaped, `bad\xff.py`),
//! are skipped and counted like other unread files; a bare repository and a revision past a shallow
//! clone's cut are said to be so. A source file that could not be read (an unreadable blob) is
//! counted and named in the fold report (`FoldReport::skipped_files`) as in the index summary, and
//! the query crate names it on a miss. HEAD's commit or tree that cannot be read fails `index`
//! (`Error::Commit`, naming the object), never a read of the directory on disk instead; a revision
//! whose ref points at an unreadable object says so (`Repo::unreadable_target`). An import that
//! cannot be bound is an `IMPORTS` edge to an UnresolvedRef named by what it binds, with the
//! reason; a Rust `use` whose head is no dependency of the package is one.
//!
//! The `_ops` plane is written whole by `index` (`ops::collect`, then `ops::plane`, then
//! `ops::write`) and removed when the tree holds no manifest. A fold (`ops::refold`) reads the
//! manifests again only when their fingerprint (paths and blob ids, kept in the ledger) changed;
//! otherwise it only moves the plane's commit with an empty difference. The walk lists YAML files
//! and Dockerfiles apart, and a tree with manifests and no source file is indexed with an empty
//! code plane. YAML is read with saphyr (scalars as written, every node with its line), Dockerfiles
//! with `parse-dockerfile`; neither is ever read with patterns over the text. What cannot be read
//! (YAML that does not parse, an unknown kind, a Dockerfile without `FROM`, a path out of the tree,
//! a file over 1 MiB) is a ledger entry with its file and line, never a failed run; a chart's
//! `templates/` are Go templates and are not read as YAML.
//!
//! `git` can read a tree listing by difference from another, copying the subtrees whose id did not
//! change.

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
pub use graph::Accounting;
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
