//! `schema`: a plane's soft schema, scanned from what is stored: labels with their properties,
//! edge types with endpoint labels, key prefixes in use.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use drsg_planes::Store;
use serde::Serialize;

use crate::{Result, choose_plane, freshness};

pub struct SchemaParams<'a> {
    pub plane: Option<&'a str>,
    pub cwd: Option<&'a Path>,
}

#[derive(Debug, Serialize)]
pub struct SchemaOutput {
    pub plane: String,
    pub freshness: String,
    pub labels: Vec<LabelRow>,
    pub edges: Vec<EdgeRow>,
    pub key_prefixes: Vec<PrefixRow>,
    /// Prefixes beyond the cap, counted.
    pub more_prefixes: usize,
}

#[derive(Debug, Serialize)]
pub struct LabelRow {
    pub label: String,
    pub count: u64,
    /// Property name → (how many nodes have it, JSON type).
    pub props: BTreeMap<String, (u64, &'static str)>,
}

#[derive(Debug, Serialize)]
pub struct EdgeRow {
    #[serde(rename = "type")]
    pub ty: String,
    pub src_label: String,
    pub dst_label: String,
    pub count: u64,
}

#[derive(Debug, Serialize)]
pub struct PrefixRow {
    pub prefix: String,
    pub nodes: u64,
}

/// How many key prefixes are listed; the rest are counted.
const MAX_PREFIXES: usize = 30;

pub fn schema(store: &Store, params: &SchemaParams<'_>) -> Result<SchemaOutput> {
    let plane = choose_plane(store, params.plane, params.cwd)?;
    let nodes = store.nodes(plane.id)?;
    let mut labels: BTreeMap<String, LabelRow> = BTreeMap::new();
    let mut prefixes: BTreeMap<String, u64> = BTreeMap::new();
    for node in &nodes {
        let row = labels.entry(node.label().to_owned()).or_insert_with(|| LabelRow {
            label: node.label().to_owned(),
            count: 0,
            props: BTreeMap::new(),
        });
        row.count += 1;
        for (name, present) in
            [("file", node.file.is_some()), ("line", node.line.is_some()), ("end_line", node.end_line.is_some())]
        {
            if present {
                let kind = if name == "file" { "string" } else { "number" };
                row.props.entry(name.to_owned()).or_insert((0, kind)).0 += 1;
            }
        }
        for (name, value) in &node.props {
            row.props.entry(name.clone()).or_insert((0, json_type(value))).0 += 1;
        }
        *prefixes.entry(key_prefix(&node.key, node.props.get("language").and_then(|l| l.as_str()))).or_insert(0) += 1;
    }
    let mut labels: Vec<LabelRow> = labels.into_values().collect();
    labels.sort_by(|a, b| b.count.cmp(&a.count).then(a.label.cmp(&b.label)));
    let edges = store
        .edge_summary(plane.id)?
        .into_iter()
        .map(|e| EdgeRow { ty: e.ty, src_label: e.src_label, dst_label: e.dst_label, count: e.count })
        .collect();
    let mut key_prefixes: Vec<PrefixRow> =
        prefixes.into_iter().map(|(prefix, nodes)| PrefixRow { prefix, nodes }).collect();
    key_prefixes.sort_by(|a, b| b.nodes.cmp(&a.nodes).then(a.prefix.cmp(&b.prefix)));
    let more_prefixes = key_prefixes.len().saturating_sub(MAX_PREFIXES);
    key_prefixes.truncate(MAX_PREFIXES);
    Ok(SchemaOutput {
        freshness: freshness(&plane),
        plane: plane.meta.name,
        labels,
        edges,
        key_prefixes,
        more_prefixes,
    })
}

fn json_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "bool",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// The part of a key that names its package or crate: `my_crate`, `@acme/web`, `pkg`, `ext::`, `?::`.
pub fn key_prefix(key: &str, language: Option<&str>) -> String {
    if key.starts_with("ext::") {
        return "ext::".to_owned();
    }
    if key.starts_with("?::") {
        return "?::".to_owned();
    }
    let key = key.trim_start_matches('<');
    match language {
        Some("rust") => key.split("::").next().unwrap_or(key).to_owned(),
        Some("python") => key.split('.').next().unwrap_or(key).to_owned(),
        Some(_) => {
            let mut parts = key.splitn(3, '/');
            let first = parts.next().unwrap_or(key);
            if first.starts_with('@') {
                let second = parts.next().unwrap_or("");
                format!("{first}/{}", second.split('.').next().unwrap_or(second))
            } else {
                first.split('.').next().unwrap_or(first).to_owned()
            }
        }
        None => key.split(['/', '.', ':']).next().unwrap_or(key).to_owned(),
    }
}

impl SchemaOutput {
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "plane {} · {}", self.plane, self.freshness);
        let _ = writeln!(out, "labels:");
        for l in &self.labels {
            let props: Vec<String> = l.props.iter().map(|(name, (n, ty))| format!("{name}:{ty} {n}")).collect();
            let _ = writeln!(out, "  {}  {}  [{}]", l.label, l.count, props.join(", "));
        }
        let _ = writeln!(out, "edge types:");
        for e in &self.edges {
            let _ = writeln!(out, "  {}  {} → {}  {}", e.ty, e.src_label, e.dst_label, e.count);
        }
        let _ = writeln!(out, "key prefixes in use:");
        for p in &self.key_prefixes {
            let _ = writeln!(out, "  {}  {}", p.prefix, p.nodes);
        }
        if self.more_prefixes > 0 {
            let _ = writeln!(out, "  … and {} more", self.more_prefixes);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::key_prefix;

    #[test]
    fn prefixes() {
        assert_eq!(key_prefix("my_crate::net::Client", Some("rust")), "my_crate");
        assert_eq!(key_prefix("<my_crate::T as other::Tr>::m", Some("rust")), "my_crate");
        assert_eq!(key_prefix("@acme/web/src/api.Client", Some("typescript")), "@acme/web");
        assert_eq!(key_prefix("zod/lib/types.ZodType", Some("typescript")), "zod");
        assert_eq!(key_prefix("pkg.core.utils", Some("python")), "pkg");
        assert_eq!(key_prefix("ext::std::vec::Vec", None), "ext::");
    }
}
