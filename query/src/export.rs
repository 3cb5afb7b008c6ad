//! `drsg export`: a plane as JSON Lines, the stable format other tools and our accuracy checks read.
//!
//! Nodes: `{key, labels, file, line, end_line, props}`.
//! Edges: `{type, src: {key, file, line}, dst: {key, file, line, labels}, site_line, ref, resolved_by,
//! confidence, reason}`, and `props` with any other property the edge has. Together they hold the
//! whole plane.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use drsg_planes::{Node, Store};
use serde_json::{Value, json};

use crate::{EDGE_TYPES, Error, Result, choose_plane};

pub struct ExportParams<'a> {
    pub plane: Option<&'a str>,
    pub cwd: Option<&'a Path>,
    /// Edge types to write; empty: all.
    pub edges: Vec<String>,
    /// Write nodes (when neither nodes nor edge types are asked for, both are written).
    pub nodes: bool,
}

/// Edge properties written under their own names.
const NAMED: &[&str] = &["line", "ref", "resolved_by", "confidence", "reason"];

/// Write the plane; returns the number of lines written.
pub fn export(store: &Store, params: &ExportParams<'_>, out: &mut dyn Write) -> Result<u64> {
    for ty in &params.edges {
        if !EDGE_TYPES.contains(&ty.as_str()) {
            return Err(Error::UnknownEdgeType(ty.clone()));
        }
    }
    let plane = choose_plane(store, params.plane, params.cwd)?;
    let nodes = store.nodes(plane.id)?;
    let write_nodes = params.nodes || params.edges.is_empty();
    let write_edges = !params.edges.is_empty() || !params.nodes;
    let mut lines = 0u64;
    if write_nodes {
        for n in &nodes {
            let line = json!({
                "key": n.key, "labels": n.labels, "file": n.file, "line": n.line, "end_line": n.end_line,
                "props": n.props,
            });
            writeln!(out, "{line}")?;
            lines += 1;
        }
    }
    if write_edges {
        let by_id: HashMap<i64, &Node> = nodes.iter().map(|n| (n.id, n)).collect();
        let types: Vec<&str> = params.edges.iter().map(String::as_str).collect();
        let edges = store.edges(plane.id, if types.is_empty() { None } else { Some(&types) })?;
        for e in &edges {
            let (Some(src), Some(dst)) = (by_id.get(&e.src), by_id.get(&e.dst)) else { continue };
            let prop = |name: &str| e.props.get(name).cloned().unwrap_or(Value::Null);
            let mut line = json!({
                "type": e.ty,
                "src": {"key": src.key, "file": src.file, "line": src.line},
                "dst": {"key": dst.key, "file": dst.file, "line": dst.line, "labels": dst.labels},
                "site_line": prop("line"),
                "ref": prop("ref"),
                "resolved_by": prop("resolved_by"),
                "confidence": prop("confidence"),
                "reason": prop("reason"),
            });
            let rest: serde_json::Map<String, Value> = e
                .props
                .iter()
                .filter(|(k, _)| !NAMED.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if !rest.is_empty() {
                line["props"] = Value::Object(rest);
            }
            writeln!(out, "{line}")?;
            lines += 1;
        }
    }
    Ok(lines)
}
