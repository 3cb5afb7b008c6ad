//! drsg-query: the read verbs of SPEC §6, one module per verb (`Params` in, `Output` out),
//! plane defaulting, and text rendering.
//!
//! Verbs never write and do no file, process or environment access: the caller passes the store and
//! the working directory. Every `Output` serialises to the stable JSON form and renders to compact text.

mod export;
mod plane;
mod planes;
mod schema;

pub use export::{ExportParams, export};
pub use plane::{choose_plane, freshness};
pub use planes::{PlanesOutput, planes};
pub use schema::{SchemaOutput, SchemaParams, schema};

use std::path::PathBuf;

/// Why a verb could not answer. A miss (nothing found) is not an error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the database holds no code plane yet; run `drsg index DIR` first")]
    NoPlanes,
    #[error("no plane named `{name}`; planes: {}", .available.join(", "))]
    UnknownPlane { name: String, available: Vec<String> },
    #[error("several code planes and none holds the working directory{}; pass --plane with one of: {}", .cwd.as_ref().map(|c| format!(" ({})", c.display())).unwrap_or_default(), .available.join(", "))]
    AmbiguousPlane { cwd: Option<PathBuf>, available: Vec<String> },
    #[error(
        "unknown edge type `{0}`; edge types: CONTAINS, HAS_METHOD, CALLS, REFERENCES, IMPORTS, IMPLEMENTS, EXTENDS, INSTANTIATES, SERVES, REQUESTS"
    )]
    UnknownEdgeType(String),
    #[error(transparent)]
    Store(#[from] drsg_planes::Error),
    #[error("cannot write the answer")]
    Io(#[from] std::io::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The first 12 characters of a commit id.
pub fn short_sha(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}
