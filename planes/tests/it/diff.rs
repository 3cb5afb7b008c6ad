//! Writing a plane by difference: what changes, what stays (row ids, text documents), and bad
//! differences refused with nothing changed.
#![allow(clippy::unwrap_used, reason = "a failed unwrap is a failed test, with its value shown")]

use drsg_planes::{Error, KeyedEdge, NewEdge, NodeData, PlaneDiff, Store};
use serde_json::json;

use crate::fixture::{demo_database, demo_plane, node, render_edges, search_keys};

fn keyed(nodes: &[NodeData], e: &NewEdge) -> KeyedEdge {
    KeyedEdge {
        src: nodes[e.src].key.clone(),
        dst: nodes[e.dst].key.clone(),
        ty: e.ty.clone(),
        props_json: e.props_json.clone(),
    }
}

fn empty_diff(meta: drsg_planes::PlaneMeta, base_generation: u64) -> PlaneDiff {
    PlaneDiff {
        meta,
        base_generation,
        remove_nodes: Vec::new(),
        upsert_nodes: Vec::new(),
        remove_edges: Vec::new(),
        add_edges: Vec::new(),
    }
}

#[test]
fn a_difference_changes_only_what_it_names() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    let mut store = Store::open(&db).expect("open");
    let (mut meta, nodes, edges) = demo_plane("demo");
    let before = store.replace_plane(&meta, &nodes, &edges).expect("write");
    let server_id = store.node_by_key(before.id, "demo::HttpServer").unwrap().unwrap().id;
    let parse_id = store.node_by_key(before.id, "demo::parseJSONBody").unwrap().unwrap().id;

    meta.synced_commit = Some("b".repeat(40));
    let mut diff = empty_diff(meta.clone(), before.generation);
    // parseJSONBody stops reading files and calls a new helper; its signature changes.
    diff.remove_edges.push(keyed(&nodes, &edges[4]));
    diff.remove_nodes.push("std::fs::read".into());
    let mut parse = nodes[1].clone();
    parse.props_json = json!({"signature": "fn parseJSONBody(input: &[u8]) -> Body"}).to_string();
    diff.upsert_nodes.push(parse);
    diff.upsert_nodes.push(node("demo::decodeHelper", &["Function"], Some("src/lib.rs"), Some(9), json!({})));
    diff.add_edges.push(KeyedEdge {
        src: "demo::parseJSONBody".into(),
        dst: "demo::decodeHelper".into(),
        ty: "CALLS".into(),
        props_json: json!({"line": 4, "ref": "decodeHelper"}).to_string(),
    });
    store.planes().expect("the plane list is cached");
    let after = store.apply_plane_diff(&diff).expect("apply");

    assert!(after.generation > before.generation);
    // The cached counts were updated, not left stale.
    let counted = (store.nodes(after.id).unwrap().len() as u64, store.edges(after.id, None).unwrap().len() as u64);
    assert_eq!((after.node_count, after.edge_count), counted);
    assert_eq!(store.plane("demo").unwrap().unwrap(), after);
    assert_eq!(after.meta.synced_commit, meta.synced_commit);
    assert_eq!((after.node_count, after.edge_count), (6, 6));
    // Nodes that stay keep their ids; a changed node keeps its id too.
    assert_eq!(store.node_by_key(after.id, "demo::HttpServer").unwrap().unwrap().id, server_id);
    assert_eq!(store.node_by_key(after.id, "demo::parseJSONBody").unwrap().unwrap().id, parse_id);
    assert_eq!(store.node_by_key(after.id, "std::fs::read").unwrap(), None);
    let rendered = render_edges(&store, after.id, Some(&["CALLS"]));
    assert!(rendered.contains("demo::parseJSONBody -CALLS-> demo::decodeHelper"), "{rendered}");
    assert!(!rendered.contains("std::fs::read"), "{rendered}");
    // The text index follows: the new node is found, the changed one by its new signature only.
    assert_eq!(search_keys(&store, Some(after.id), "decodeHelper"), ["demo::decodeHelper"]);
    assert_eq!(search_keys(&store, Some(after.id), "u8").first().map(String::as_str), Some("demo::parseJSONBody"));
    // Its old document is gone: it is found once, and no longer by the doc comment it lost.
    assert_eq!(search_keys(&store, Some(after.id), "parseJSONBody"), ["demo::parseJSONBody"]);
    assert!(search_keys(&store, Some(after.id), "request").is_empty());
    drop(store);
    // Both halves were committed together: opening again rebuilds no text documents.
    let store = Store::open_existing(&db).expect("reopen");
    assert!(store.text_reconciled_planes().is_empty(), "{:?}", store.text_reconciled_planes());
}

#[test]
fn a_plane_s_counts_follow_differences_into_its_row() {
    let (_tmp, db, mut store) = demo_database();
    let meta = demo_plane("demo").0;
    let written = store.plane("demo").unwrap().unwrap();
    // Two nodes and three edges more, then one node and two edges fewer.
    let mut grow = empty_diff(meta.clone(), written.generation);
    for name in ["demo::a", "demo::b"] {
        grow.upsert_nodes.push(node(name, &["Function"], Some("src/lib.rs"), Some(20), json!({})));
    }
    for (src, dst) in [("demo::a", "demo::b"), ("demo::b", "demo::a"), ("demo", "demo::a")] {
        let ty = "CALLS".into();
        grow.add_edges.push(KeyedEdge { src: src.into(), dst: dst.into(), ty, props_json: String::new() });
    }
    let grown = store.apply_plane_diff(&grow).expect("grow");
    assert_eq!((grown.node_count, grown.edge_count), (8, 9));
    let mut shrink = empty_diff(meta, grown.generation);
    shrink.remove_edges = grow.add_edges[..2].to_vec();
    shrink.remove_nodes.push("demo::b".into());
    let shrunk = store.apply_plane_diff(&shrink).expect("shrink");
    assert_eq!((shrunk.node_count, shrunk.edge_count), (7, 7));
    drop(store);
    // The counts are the row's, read by a new process, and they are the rows there are.
    let store = Store::open_existing(&db).expect("reopen");
    let plane = store.plane("demo").unwrap().unwrap();
    assert_eq!((plane.node_count, plane.edge_count), (7, 7));
    assert_eq!(store.nodes(plane.id).unwrap().len(), 7);
    assert_eq!(store.edges(plane.id, None).unwrap().len(), 7);
}

#[test]
fn a_difference_that_does_not_match_the_plane_changes_nothing() {
    let mut store = Store::in_memory().expect("store");
    let (meta, nodes, edges) = demo_plane("demo");
    let info = store.replace_plane(&meta, &nodes, &edges).expect("write");
    let snapshot = |store: &Store| (store.plane("demo").unwrap(), render_edges(store, info.id, None));
    let start = snapshot(&store);

    let stale = empty_diff(meta.clone(), info.generation + 7);
    assert!(matches!(store.apply_plane_diff(&stale), Err(Error::Stale { .. })));

    let mut missing_edge = empty_diff(meta.clone(), info.generation);
    let mut wrong = keyed(&nodes, &edges[3]);
    wrong.props_json = json!({"line": 99}).to_string();
    missing_edge.remove_edges.push(wrong);
    assert!(matches!(store.apply_plane_diff(&missing_edge), Err(Error::InvalidInput { .. })));

    let mut attached = empty_diff(meta.clone(), info.generation);
    attached.remove_nodes.push("demo::HttpServer".into());
    let err = store.apply_plane_diff(&attached).unwrap_err();
    assert!(err.to_string().contains("edges left"), "{err}");

    let mut dangling = empty_diff(meta.clone(), info.generation);
    dangling.upsert_nodes.push(node("demo::x", &["Function"], None, None, json!({})));
    dangling.add_edges.push(KeyedEdge {
        src: "demo::x".into(),
        dst: "demo::nowhere".into(),
        ty: "CALLS".into(),
        props_json: String::new(),
    });
    assert!(store.apply_plane_diff(&dangling).is_err());

    assert_eq!(snapshot(&store), start, "a refused difference left a trace");
    assert_eq!(store.node_by_key(info.id, "demo::x").unwrap(), None);
}

#[test]
fn a_difference_that_moves_lines_only_commits_its_text_stamp_at_close() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    let mut store = Store::open(&db).expect("open");
    let (meta, nodes, edges) = demo_plane("demo");
    let before = store.replace_plane(&meta, &nodes, &edges).expect("write");
    let payload = || -> serde_json::Value {
        let text = std::fs::read_to_string(db.join("text/meta.json")).expect("meta.json");
        let meta: serde_json::Value = serde_json::from_str(&text).expect("json");
        serde_json::from_str(meta["payload"].as_str().expect("payload")).expect("payload json")
    };
    let mut diff = empty_diff(meta.clone(), before.generation);
    let mut moved = nodes[1].clone();
    moved.line = Some(30);
    diff.upsert_nodes.push(moved);
    let after = store.apply_plane_diff(&diff).expect("apply");
    assert_eq!(store.node_by_key(after.id, "demo::parseJSONBody").unwrap().unwrap().line, Some(30));
    // No text changed: the index was not committed, and still finds the node.
    assert_eq!(payload()["planes"]["demo"]["generation"], before.generation);
    assert_eq!(search_keys(&store, Some(after.id), "parseJSONBody"), ["demo::parseJSONBody"]);
    drop(store);
    // Closing committed the stamp: opening again rebuilds nothing.
    assert_eq!(payload()["planes"]["demo"]["generation"], after.generation);
    let store = Store::open_existing(&db).expect("reopen");
    assert!(store.text_reconciled_planes().is_empty(), "{:?}", store.text_reconciled_planes());
}

#[test]
fn differences_of_two_planes_apply_together_or_not_at_all() {
    let mut store = Store::in_memory().expect("store");
    let (meta_a, nodes, edges) = demo_plane("a");
    let (meta_b, nodes_b, edges_b) = demo_plane("b");
    let a = store.replace_plane(&meta_a, &nodes, &edges).expect("write a");
    let b = store.replace_plane(&meta_b, &nodes_b, &edges_b).expect("write b");
    let added = |plane: &str| node(&format!("{plane}::added"), &["Function"], Some("src/lib.rs"), Some(3), json!({}));

    // The second difference is stale: neither is written.
    let mut diff_a = empty_diff(meta_a.clone(), a.generation);
    diff_a.upsert_nodes.push(added("a"));
    let mut diff_b = empty_diff(meta_b.clone(), b.generation + 1);
    diff_b.upsert_nodes.push(added("b"));
    let err = store.apply_plane_diffs(&[&diff_a, &diff_b]).unwrap_err();
    assert!(matches!(err, Error::Stale { .. }), "{err}");
    assert!(store.node_by_key(a.id, "a::added").unwrap().is_none());
    assert_eq!(store.plane("a").unwrap().unwrap().generation, a.generation);

    // Both current: both written, each plane at a new generation, in the order given.
    diff_b.base_generation = b.generation;
    let infos = store.apply_plane_diffs(&[&diff_a, &diff_b]).expect("apply");
    assert_eq!(infos.iter().map(|i| i.meta.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    assert!(infos[0].generation > a.generation && infos[1].generation > b.generation);
    assert!(store.node_by_key(a.id, "a::added").unwrap().is_some());
    assert!(store.node_by_key(b.id, "b::added").unwrap().is_some());
    let mut found = search_keys(&store, None, "added");
    found.sort();
    assert_eq!(found, ["a::added", "b::added"]);
}
