//! drsg-query: the read verbs of SPEC §6, one module per verb (`Params` in, `Output` out), symbol
//! lookup, plane defaulting, and text rendering.
//!
//! Verbs never write and do no file, process or environment access: the caller passes the store,
//! the working directory and a [`SourceFiles`] that reads the tree. Every answer serialises to a
//! stable JSON form and renders to compact text within a character budget ([`render`]).
//!
//! A verb's path: `choose_plane` (the plane asked for, else the only code plane, else the one whose
//! root holds the working directory), `find_symbol` (key, key segments, any case; candidates or
//! nearest names), store reads (point lookups, `Store::adjacent` walks), an `Output`, and its text
//! within a budget. `grep` and `snippet` read the tree only through `SourceFiles`; `recall` reads a
//! revision's tree through `Revisions::files_at`. `lookup::inherited` finds `Type.member` on the
//! nearest base (through `EXTENDS`) that defines it, when no key ends so.
//!
//! Dispatch (`dispatch`): a constructor (`constructor`, `__init__`) is called by its class's
//! instantiations, which `context` lists among its callers and `impact` walks (`walk::Also`), at
//! the start and at every node the walk goes through (`dispatch::also_of`). An interface or trait
//! method lists its `IMPLEMENTS`-linked implementations in `context`; an implementation's callers
//! are a lower bound while call sites bind to the method it implements, and `impact` walks those
//! `via interface`. `trace` searches call edges and dispatch steps (`dispatch::steps`) alike,
//! anywhere on the path.
//!
//! Unresolved sites (`unresolved`): the unresolved call sites named like the symbols an answer
//! passed through are counted (`context` with depth above 1 and `impact` count those of the callers
//! above the last level too) and listed by file and line when asked (`--unresolved`), paged like
//! the answer's other lists. While a plane has a file read only in part, `context`, `impact` and
//! `trace` call their answers lower bounds (`unresolved::CutFiles`); a miss names the files read
//! only in part (a symbol may lie beyond the cut) and those that could not be read
//! (`lookup::unread_files`).

mod across;
mod context;
mod deployed;
mod describe;
mod dispatch;
mod export;
mod fathom;
mod file;
mod files;
mod grep;
mod history;
mod impact;
mod lookup;
mod node;
mod plane;
mod planes;
mod recall;
mod render;
mod report;
mod revisions;
mod schema;
mod search;
mod snippet;
mod trace;
mod traverse;
mod unresolved;
pub mod verbs;
mod walk;
mod wire;

pub use context::{ContextOutput, ContextParams, context};
pub use deployed::{DeployedOutput, DeployedParams, deployed};
pub use describe::{DescribeOutput, DescribeParams, describe};
pub use export::{ExportParams, export};
pub use fathom::{FathomOutput, FathomParams, fathom};
pub use file::{FileOutput, FileParams, file};
pub use files::{FileError, NoFiles, SourceFiles};
pub use grep::{GrepOutput, GrepParams, grep};
pub use history::{HistoryOutput, HistoryParams, history};
pub use impact::{ImpactOutput, ImpactParams, impact};
pub use lookup::{Candidates, Lookup, Missing, find_symbol};
pub use node::{NodeOutput, NodeParams, node};
pub use plane::{choose_plane, freshness};
pub use planes::{PlanesOutput, planes};
pub use recall::{RecallOutput, RecallParams, Recalled, recall};
pub use render::{DEFAULT_BUDGET, Group, MAX_PAGE, NodeLine, Page, Surface, Text};
pub use report::{ChangeKind, ReportOutput, ReportParams, report};
pub use revisions::{Declared, DirEntry, FileChange, Outline, OutlineDef, Revision, RevisionError, Revisions};
pub use schema::{SchemaOutput, SchemaParams, schema};
pub use search::{SearchOutput, SearchParams, search};
pub use snippet::{SnippetOutput, SnippetParams, snippet};
pub use trace::{TraceOutput, TraceParams, trace};
pub use traverse::{TraverseOutput, TraverseParams, traverse};
pub use unresolved::UnresolvedSite;
pub use wire::{WireOutput, WireParams, wire};

use drsg_planes::EdgeType;
use std::path::{Path, PathBuf};

pub use drsg_planes::{SharedStore, Store};
use serde::Serialize;

/// What every verb reads from: the store, the caller's working directory (for plane defaulting) and
/// the tree's files.
#[derive(Clone, Copy)]
pub struct Session<'a> {
    pub store: &'a Store,
    pub cwd: Option<&'a Path>,
    pub files: &'a dyn SourceFiles,
}

impl Session<'_> {
    /// The freshness line, with a note when the checkout's HEAD has moved past the plane's commit.
    pub fn freshness(&self, plane: &drsg_planes::PlaneInfo) -> String {
        let mut line = freshness(plane);
        if plane.meta.kind == drsg_planes::PlaneKind::Code
            && let Some(installed) = self.files.built_by()
            && !plane.meta.built_by.is_null()
            && plane.meta.built_by != installed
        {
            line.push_str("; plugins changed since this plane was built; `rebuild` re-reads the tree");
        }
        let (Some(synced), Some(root)) = (&plane.meta.synced_commit, &plane.meta.synced_root) else { return line };
        let root = Path::new(root);
        let moved = match self.files.head(root) {
            Some(head) if &head != synced => self.files.head_now(root),
            _ => None,
        };
        match moved {
            Some(head) if &head != synced => format!(
                "{line} (HEAD has moved to {}: run `drsg fold`, or keep `drsg watch` running, to bring the plane up to date)",
                short_sha(&head)
            ),
            _ => line,
        }
    }

    /// The plane a verb answers from (see [`choose_plane`]).
    pub fn plane(&self, requested: Option<&str>) -> Result<drsg_planes::PlaneInfo> {
        choose_plane(self.store, requested, self.cwd)
    }
}

/// A verb's answer: a stable JSON form (`Serialize`) and a compact text form.
pub trait Answer: Serialize {
    /// Writes the text form.
    fn render_to(&self, t: &mut Text);

    /// Whether the verb found what it was asked for (exit 0) or nothing (exit 1).
    fn found(&self) -> bool {
        true
    }
}

/// The text form of an answer within `budget` characters (default [`DEFAULT_BUDGET`]), its hints in
/// the command line's terms.
pub fn render(answer: &impl Answer, budget: Option<usize>) -> String {
    render_on(answer, budget, Surface::Cli)
}

/// The text form of an answer as read on `surface`.
pub fn render_on(answer: &impl Answer, budget: Option<usize>, surface: Surface) -> String {
    let mut t = Text::on(budget, surface);
    answer.render_to(&mut t);
    t.finish()
}

/// Why a verb could not answer. A miss (nothing found) is not an error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the database holds no code plane yet; run `drsg index DIR` first")]
    NoPlanes,
    #[error("no plane named `{name}`; planes: {}", .available.join(", "))]
    UnknownPlane { name: String, available: Vec<String> },
    #[error("several code planes and none holds the working directory{}; name one as `plane` (--plane on the command line): {}", .cwd.as_ref().map(|c| format!(" ({})", c.display())).unwrap_or_default(), .available.join(", "))]
    AmbiguousPlane { cwd: Option<PathBuf>, available: Vec<String> },
    #[error(
        "unknown edge type `{0}`; edge types: CONTAINS, HAS_METHOD, CALLS, REFERENCES, IMPORTS, IMPLEMENTS, EXTENDS, INSTANTIATES, SERVES, REQUESTS"
    )]
    UnknownEdgeType(String),
    /// An argument the caller can fix; the sentence says how.
    #[error("{0}")]
    InvalidArgument(String),
    #[error(transparent)]
    File(#[from] FileError),
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

/// The edge types a code plane may hold.
pub const EDGE_TYPES: &[&str] = &drsg_planes::edge_names(EdgeType::CODE);

/// Edge types that are calls: a call site binds to a function, or to a type it instantiates.
pub(crate) const CALL_TYPES: &[&str] = &[EdgeType::Calls.as_str(), EdgeType::Instantiates.as_str()];

/// Checks edge type names given by a caller, accepting any case.
pub fn edge_types(names: &[String]) -> Result<Vec<&'static str>> {
    names
        .iter()
        .map(|name| {
            EDGE_TYPES
                .iter()
                .find(|ty| ty.eq_ignore_ascii_case(name.trim()))
                .copied()
                .ok_or_else(|| Error::UnknownEdgeType(name.clone()))
        })
        .collect()
}

/// Whether a node belongs to tests: its `is_test` property.
pub fn is_test(node: &drsg_planes::Node) -> bool {
    node.props.get("is_test").and_then(|v| v.as_bool()).unwrap_or(false)
}
