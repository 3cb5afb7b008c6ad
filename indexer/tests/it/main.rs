//! Indexer tests: fixture repositories (real git) indexed into an in-memory store, checked through
//! the edges they produce.

mod accounting;
mod bad_input;
mod fold;
mod frameworks;
mod git;
mod kept;
mod ops;
mod resolve_python;
mod resolve_rust;
mod resolve_ts;
mod source;
mod sync;
mod wire;

use std::collections::{BTreeMap, HashMap};

use drsg_indexer::{IndexOptions, RunReport, Silent, index_tree};
use drsg_planes::Store;
use drsg_testdata::Fixture;

/// An indexed fixture: the store and the run report.
pub struct Indexed {
    pub fixture: Fixture,
    pub store: Store,
    pub report: RunReport,
}

pub fn index(spec: &str) -> Indexed {
    let fixture = Fixture::inline(spec);
    let mut store = Store::in_memory().expect("in-memory store");
    let report = index_tree(fixture.path(), &drsg_plugins::builtin(), &mut store, &IndexOptions::default(), &Silent)
        .expect("index the fixture");
    Indexed { fixture, store, report }
}

impl Indexed {
    /// Call-like edges (CALLS, INSTANTIATES) as `src -> dst [resolved_by]` or `src -> ?name (reason)`, sorted.
    pub fn calls(&self) -> Vec<String> {
        self.edges_of(&["CALLS", "INSTANTIATES"])
    }

    pub fn edges_of(&self, types: &[&str]) -> Vec<String> {
        let plane = self.store.planes().expect("planes").into_iter().next().expect("one plane");
        let nodes: HashMap<i64, drsg_planes::Node> =
            self.store.nodes(plane.id).expect("nodes").into_iter().map(|n| (n.id, n)).collect();
        let mut out: Vec<String> = self
            .store
            .edges(plane.id, Some(types))
            .expect("edges")
            .into_iter()
            .map(|e| {
                let src = &nodes[&e.src].key;
                let dst = &nodes[&e.dst];
                let prop = |k: &str| e.props.get(k).and_then(|v| v.as_str()).unwrap_or("").to_owned();
                let line = e.props.get("line").and_then(|v| v.as_u64()).map(|l| format!(" L{l}")).unwrap_or_default();
                if dst.label() == "UnresolvedRef" {
                    format!("{} {src} -> ?{}{line} ({})", e.ty, dst.name, prop("reason"))
                } else {
                    format!("{} {src} -> {}{line} [{}]", e.ty, dst.key, prop("resolved_by"))
                }
            })
            .collect();
        out.sort();
        out
    }

    pub fn keys(&self) -> Vec<String> {
        let plane = self.store.planes().expect("planes").into_iter().next().expect("one plane");
        let mut keys: Vec<String> = self
            .store
            .nodes(plane.id)
            .expect("nodes")
            .into_iter()
            .map(|n| format!("{} {}", n.label(), n.key))
            .collect();
        keys.sort();
        keys
    }
}

/// Assert that every expected line is among the actual ones (the rest may hold other edges).
#[track_caller]
pub fn assert_has(actual: &[String], expected: &[&str]) {
    let missing: Vec<&&str> = expected.iter().filter(|e| !actual.iter().any(|a| a == *e)).collect();
    assert!(
        missing.is_empty(),
        "missing:\n  {}\nactual:\n  {}",
        missing.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("\n  "),
        actual.join("\n  ")
    );
}

/// Assert that no line starts with the given prefix (e.g. no edge from a caller to a tree symbol).
#[track_caller]
pub fn assert_none(actual: &[String], forbidden_prefix: &str) {
    let bad: Vec<&String> = actual.iter().filter(|a| a.starts_with(forbidden_prefix)).collect();
    assert!(bad.is_empty(), "unexpected:\n  {}", bad.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n  "));
}

/// A plane as comparable text: sorted nodes and edges (by key, not id) and the meta.
pub fn plane_lines(store: &Store, name: &str) -> Option<(Vec<String>, Vec<String>, String)> {
    let plane = store.plane(name).expect("read")?;
    let nodes = store.nodes(plane.id).expect("nodes");
    let keys: BTreeMap<i64, &str> = nodes.iter().map(|n| (n.id, n.key.as_str())).collect();
    let mut node_lines: Vec<String> = nodes
        .iter()
        .map(|n| {
            format!(
                "{} {:?} {} {:?} {:?} {:?} {}",
                n.key,
                n.labels,
                n.name,
                n.file,
                n.line,
                n.end_line,
                serde_json::Value::Object(n.props.clone())
            )
        })
        .collect();
    node_lines.sort();
    let mut edge_lines: Vec<String> = store
        .edges(plane.id, None)
        .expect("edges")
        .iter()
        .map(|e| {
            format!("{} {} -> {} {}", e.ty, keys[&e.src], keys[&e.dst], serde_json::Value::Object(e.props.clone()))
        })
        .collect();
    edge_lines.sort();
    let meta = serde_json::json!({
        "commit": plane.meta.synced_commit,
        "root": plane.meta.synced_root,
        "ledger": plane.meta.ledger,
        "built_by": plane.meta.built_by,
    });
    Some((node_lines, edge_lines, meta.to_string()))
}
