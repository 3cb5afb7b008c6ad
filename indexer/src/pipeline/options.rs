//! The options of a run, how it reports its progress, and what a tree's plane is named after.

use std::path::Path;

use serde_json::Value;

/// Settings of a run.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Plane name; defaults to the directory's name.
    pub plane: Option<String>,
    /// Files larger than this are skipped (default 2 MiB).
    pub max_file_size: u64,
    /// Most commits the `_git` plane records, newest first (default: all).
    pub max_commits: Option<usize>,
    /// Who asked for the build (`cli`, `watch`, `mcp:<client>`…), recorded in the ledger.
    pub source: Option<String>,
}

impl IndexOptions {
    /// The options a plane was built with, as its ledger records them (a fold keeps them).
    pub fn recorded(ledger: &Value) -> Option<IndexOptions> {
        let o = ledger.get("options")?;
        Some(IndexOptions {
            plane: None,
            max_file_size: o.get("max_file_size")?.as_u64()?,
            max_commits: o.get("max_commits").and_then(Value::as_u64).map(|n| n as usize),
            source: None,
        })
    }
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions { plane: None, max_file_size: 2 * 1024 * 1024, max_commits: None, source: None }
    }
}

/// Where a run is; the binary draws a progress bar from it (or nothing on a pipe).
pub trait Progress: Sync {
    fn phase(&self, _name: &'static str, _total: u64) {}
    fn advance(&self, _n: u64) {}
}

/// No progress output.
pub struct Silent;
impl Progress for Silent {}

/// What a tree's plane is named after: its directory's name.
pub(crate) fn tree_name(root: &Path) -> String {
    root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "root".to_owned())
}
