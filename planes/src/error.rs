//! The crate's error type: every failure names the database it happened in.

use std::path::{Path, PathBuf};

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while opening, reading or writing a store.
///
/// Callers branch on the open-time variants (`Locked`, `Missing`, …) to tell the user what to do;
/// the wrapped SQLite and Tantivy errors carry what the store was doing when they occurred.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The path given for the database is a regular file.
    #[error("{} is a file, not a drsg database directory", .path.display())]
    NotADirectory {
        /// The path as given by the caller.
        path: PathBuf,
    },
    /// The directory exists, holds files, and is not a drsg database.
    #[error("{} is not empty and is not a drsg database; choose another database path", .path.display())]
    NotADatabase {
        /// The path as given by the caller.
        path: PathBuf,
    },
    /// `Store::open_existing` found no database.
    #[error("no drsg database at {}; run `drsg index` or `drsg init` first", .path.display())]
    Missing {
        /// The path as given by the caller.
        path: PathBuf,
    },
    /// Another process (or another handle in this process) holds the database lock.
    #[error(
        "database {} is in use by another drsg process{}; a database is opened by one process at a time: \
         run `drsg serve` there and connect to it instead",
        .path.display(),
        pid_suffix(*.pid)
    )]
    Locked {
        /// The path as given by the caller.
        path: PathBuf,
        /// The holder's process id, when its `LOCK` file could be read.
        pid: Option<u32>,
    },
    /// The database was written by a newer drsg.
    #[error(
        "database {} has format version {found}, newer than version {supported} that this drsg supports; upgrade drsg",
        .path.display()
    )]
    FormatTooNew {
        /// The path as given by the caller.
        path: PathBuf,
        /// The version recorded in the database.
        found: i64,
        /// The newest version this build reads.
        supported: i64,
    },
    /// The recorded format version is missing or not a version at all.
    #[error("database {} has an unreadable format version ({found})", .path.display())]
    UnknownFormat {
        /// The path as given by the caller.
        path: PathBuf,
        /// What was found instead of a version.
        found: String,
    },
    /// The database holds a value this build cannot interpret.
    #[error("database {} is damaged: {detail}", .path.display())]
    Corrupt {
        /// The path as given by the caller.
        path: PathBuf,
        /// What was wrong.
        detail: String,
    },
    /// The caller handed over data that cannot be stored (a bug in the caller).
    #[error("invalid data for plane `{plane}`: {detail}")]
    InvalidInput {
        /// The plane being written.
        plane: String,
        /// What was wrong.
        detail: String,
    },
    /// A difference computed against one generation of a plane met another.
    #[error("plane `{plane}` changed while a difference was being computed (generation {found}, expected {expected})")]
    Stale {
        /// The plane being written.
        plane: String,
        /// The generation the difference was computed against.
        expected: u64,
        /// The generation found.
        found: u64,
    },
    /// Two nodes of one plane share a key.
    #[error("plane `{plane}` has more than one node with key `{key}`")]
    DuplicateKey {
        /// The plane being written.
        plane: String,
        /// The repeated key.
        key: String,
    },
    /// A file-system operation on the database directory failed.
    #[error("cannot {action} {}", .path.display())]
    Io {
        /// What the store was doing, e.g. "create the database directory".
        action: &'static str,
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// SQLite failed.
    #[error("sqlite failed while {context} in {}", .path.display())]
    Sqlite {
        /// The database path (`:memory:` for an in-memory store).
        path: PathBuf,
        /// What the store was doing.
        context: String,
        /// The underlying error.
        #[source]
        source: rusqlite::Error,
    },
    /// The Tantivy text index failed.
    #[error("text index failed while {context} in {}", .path.display())]
    Text {
        /// The database path (`:memory:` for an in-memory store).
        path: PathBuf,
        /// What the store was doing.
        context: String,
        /// The underlying error.
        #[source]
        source: Box<tantivy::TantivyError>,
    },
}

fn pid_suffix(pid: Option<u32>) -> String {
    pid.map(|pid| format!(" (pid {pid})")).unwrap_or_default()
}

/// Attaches the database path and what the store was doing to a SQLite error.
pub(crate) trait SqlContext<T> {
    fn ctx(self, shown: &Path, context: &str) -> Result<T>;
}

impl<T> SqlContext<T> for rusqlite::Result<T> {
    fn ctx(self, shown: &Path, context: &str) -> Result<T> {
        self.map_err(|source| Error::Sqlite { path: shown.to_path_buf(), context: context.to_owned(), source })
    }
}
