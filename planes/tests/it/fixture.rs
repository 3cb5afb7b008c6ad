//! Small planes to write, and compact renderings of what the store returns.

use drsg_planes::{NewEdge, NodeData, PlaneKind, PlaneMeta, Props, Store};
use serde_json::{Value, json};

pub fn props(value: Value) -> Props {
    match value {
        Value::Object(map) => map,
        other => panic!("props must be an object, got {other}"),
    }
}

pub fn node(key: &str, labels: &[&str], file: Option<&str>, line: Option<u32>, props_value: Value) -> NodeData {
    let name = key.rsplit("::").next().unwrap_or(key).to_owned();
    NodeData {
        key: key.to_owned(),
        labels: labels.iter().map(|l| (*l).to_owned()).collect(),
        name,
        file: file.map(str::to_owned),
        line,
        end_line: line.map(|l| l + 2),
        props_json: String::new(),
    }
    .with_props(&props(props_value))
}

pub fn edge(src: usize, dst: usize, ty: &str, props_value: Value) -> NewEdge {
    NewEdge::new(src, dst, ty.to_owned(), &props(props_value))
}

pub fn meta(name: &str) -> PlaneMeta {
    PlaneMeta {
        name: name.to_owned(),
        kind: PlaneKind::Code,
        synced_commit: Some("0123456789abcdef0123456789abcdef01234567".to_owned()),
        synced_root: Some("/src/demo".to_owned()),
        built_by: json!({"rust": "1"}),
        ledger: json!({"files": {"rust": 2}, "skipped": []}),
    }
}

/// A database directory on disk holding plane `demo` (the [`demo_plane`]), with its store still open.
pub fn demo_database() -> (tempfile::TempDir, std::path::PathBuf, Store) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    let mut store = Store::open(&db).expect("open");
    let (meta, nodes, edges) = demo_plane("demo");
    store.replace_plane(&meta, &nodes, &edges).expect("write the demo plane");
    (tmp, db, store)
}

/// A small code plane: a module, a function, a struct with a method, an external and an
/// unresolved stand-in.
pub fn demo_plane(name: &str) -> (PlaneMeta, Vec<NodeData>, Vec<NewEdge>) {
    let nodes = vec![
        node("demo", &["Module"], Some("src/lib.rs"), Some(1), json!({})),
        node(
            "demo::parseJSONBody",
            &["Function"],
            Some("src/lib.rs"),
            Some(3),
            json!({"signature": "fn parseJSONBody(input: &str) -> Body", "doc": "Parses the body of a request.", "visibility": "pub"}),
        ),
        node("demo::HttpServer", &["Struct"], Some("src/server.rs"), Some(1), json!({"is_test": false})),
        node("demo::HttpServer::serve", &["Method", "Function"], Some("src/server.rs"), Some(5), json!({})),
        node("std::fs::read", &["External"], None, None, json!({})),
        node("?::src/server.rs::frobnicate", &["UnresolvedRef"], Some("src/server.rs"), None, json!({})),
    ];
    let edges = vec![
        edge(0, 1, "CONTAINS", json!({})),
        edge(0, 2, "CONTAINS", json!({})),
        edge(2, 3, "HAS_METHOD", json!({})),
        edge(3, 1, "CALLS", json!({"line": 7, "ref": "parseJSONBody", "resolved_by": "scope", "confidence": "high"})),
        edge(1, 4, "CALLS", json!({"line": 4, "ref": "std::fs::read"})),
        edge(3, 5, "CALLS", json!({"line": 8, "ref": "frobnicate", "reason": "name not found"})),
    ];
    (meta(name), nodes, edges)
}

/// The edges of a plane as `src -TYPE-> dst {props}` lines, by edge id.
pub fn render_edges(store: &Store, plane_id: i64, types: Option<&[&str]>) -> String {
    let edges = store.edges(plane_id, types).expect("edges");
    edges.iter().map(|e| render_edge(store, e)).collect::<Vec<_>>().join("\n")
}

pub fn render_edge(store: &Store, edge: &drsg_planes::Edge) -> String {
    let key = |id| store.node(id).expect("node").expect("edge end exists").key;
    format!("{} -{}-> {} {}", key(edge.src), edge.ty, key(edge.dst), Value::Object(edge.props.clone()))
}

/// What the input edges should read back as.
pub fn expected_edges(nodes: &[NodeData], edges: &[NewEdge]) -> String {
    edges
        .iter()
        .map(|e| {
            let props: Value = if e.props_json.is_empty() {
                Value::Object(Props::new())
            } else {
                serde_json::from_str(&e.props_json).expect("JSON")
            };
            format!("{} -{}-> {} {}", nodes[e.src].key, e.ty, nodes[e.dst].key, props)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The keys of the nodes found by a search, best first.
pub fn search_keys(store: &Store, plane_id: Option<i64>, query: &str) -> Vec<String> {
    let hits = store.search(plane_id, query, 10).expect("search");
    hits.iter().map(|(id, _)| store.node(*id).expect("node").expect("hit exists").key).collect()
}
