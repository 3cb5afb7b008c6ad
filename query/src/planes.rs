//! `planes`: every plane with its counts, sync point and root.

use std::fmt::Write as _;

use drsg_planes::{PlaneInfo, Store};
use serde::Serialize;

use crate::{Result, short_sha};

#[derive(Debug, Serialize)]
pub struct PlanesOutput {
    pub planes: Vec<PlaneRow>,
}

#[derive(Debug, Serialize)]
pub struct PlaneRow {
    pub name: String,
    pub kind: String,
    pub nodes: u64,
    pub edges: u64,
    pub synced_commit: Option<String>,
    pub synced_root: Option<String>,
    /// Files per language from the ledger, when the plane has one.
    pub files: serde_json::Value,
}

pub fn planes(store: &Store) -> Result<PlanesOutput> {
    let planes = store.planes()?.into_iter().map(row).collect();
    Ok(PlanesOutput { planes })
}

fn row(p: PlaneInfo) -> PlaneRow {
    PlaneRow {
        files: p.meta.ledger.get("files").cloned().unwrap_or(serde_json::Value::Null),
        name: p.meta.name,
        kind: p.meta.kind.as_str().to_owned(),
        nodes: p.node_count,
        edges: p.edge_count,
        synced_commit: p.meta.synced_commit,
        synced_root: p.meta.synced_root,
    }
}

impl PlanesOutput {
    pub fn is_empty(&self) -> bool {
        self.planes.is_empty()
    }

    pub fn render(&self) -> String {
        if self.planes.is_empty() {
            return "no planes; run `drsg index DIR` to build one\n".to_owned();
        }
        let mut out = String::new();
        for p in &self.planes {
            let commit = p.synced_commit.as_deref().map(short_sha).unwrap_or("-");
            let _ = writeln!(out, "{}  {}  {} nodes  {} edges  commit {}", p.name, p.kind, p.nodes, p.edges, commit);
            if let Some(root) = &p.synced_root {
                let _ = writeln!(out, "  root: {root}");
            }
            if let Some(files) = p.files.as_object().filter(|f| !f.is_empty()) {
                let list: Vec<String> = files.iter().map(|(lang, n)| format!("{lang} {n}")).collect();
                let _ = writeln!(out, "  files: {}", list.join(", "));
            }
        }
        out
    }
}
