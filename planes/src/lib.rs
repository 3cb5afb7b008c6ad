//! drsg-planes: the database of drsg.
//!
//! A database is a directory (by default `graph.drsg`, its path always given by the caller)
//! holding `graph.sqlite` (SQLite in WAL mode: the planes, their nodes and edges), `text/` (a
//! Tantivy index of node names, keys, signatures and docs), `LOCK` (held by the one process that
//! has the database open, and holding its pid) and `logs/` (created here, written by the binaries).
//!
//! This crate owns the SQLite schema and its format version, the Tantivy schema and tokenizer,
//! transactions, plane lifecycle and the lock. It knows nothing of parsing, git or verbs: planes
//! come in as [`NodeData`] and [`NewEdge`] values and go out as [`Node`] and [`Edge`] values.
//! It touches no file outside the database directory.
//!
//! The main type is [`Store`]: [`Store::open`] / [`Store::open_existing`] for a directory and
//! [`Store::in_memory`] for tests. Writes replace a whole plane in one SQLite transaction
//! ([`Store::replace_plane`]), or by difference ([`Store::apply_plane_diff`]); the text index follows and, because SQLite is the source of truth,
//! is reconciled to it on open ([`Store::reconcile_text`]).

mod bound;
mod diff;
mod edge_type;
mod error;
mod kept;
mod lock;
mod model;
mod read;
pub mod routes;
mod rows;
mod schema;
mod shared;
mod store;
mod text;
mod tokenizer;
mod write;

pub use diff::{KeyedEdge, PlaneDiff};
pub use edge_type::{EdgeType, names as edge_names};
pub use error::{Error, Result};
pub use kept::{KeptFile, KeptHeader, KeptWrite};
pub use lock::{LockState, lock_state};
pub use model::{
    Adjacent, DigestChanges, Direction, Edge, EdgeSummary, NewEdge, Node, NodeData, PlaneBatch, PlaneDigest, PlaneInfo,
    PlaneKind, PlaneMeta, Props,
};
pub use schema::FORMAT_VERSION;
pub use shared::{Busy, SharedStore};
pub use store::{LOGS_DIR, SERVE_RECORD, SQLITE_FILE, Store, TEXT_DIR};
pub use text::lower_thread_priority;
pub use tokenizer::identifier_terms;

/// Default name of a database directory.
pub const DEFAULT_DB_NAME: &str = "graph.drsg";
