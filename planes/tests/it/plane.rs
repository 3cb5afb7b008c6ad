//! Writing and reading planes: round trips, keys, lookups, replacement, deletion.

use drsg_planes::{EdgeSummary, Error, NodeData, PlaneBatch, PlaneKind, Store};
use serde_json::json;

use crate::fixture::{demo_plane, edge, expected_edges, meta, node, render_edges, search_keys};

/// Writes the demo plane through `store`, then reads it back through `reread` (the same store,
/// or the database opened again) and compares everything.
fn check_round_trip(mut store: Store, reread: impl FnOnce(Store) -> Store) {
    let (meta, nodes, edges) = demo_plane("demo");
    let written = store.replace_plane(&meta, &nodes, &edges).expect("write");
    assert_eq!((written.node_count, written.edge_count), (6, 6));
    let store = reread(store);

    let info = store.plane("demo").expect("plane").expect("demo exists");
    assert_eq!(info, written);
    assert_eq!(info.meta, meta);
    assert!(info.generation > 0);
    assert!(info.updated_at > 0);
    assert_eq!(store.plane_by_id(info.id).expect("by id"), Some(info.clone()));
    assert_eq!(store.planes().expect("planes"), vec![info.clone()]);

    let mut expected: Vec<NodeData> = nodes.clone();
    expected.sort_by(|a, b| a.key.cmp(&b.key));
    let read: Vec<NodeData> = store.nodes(info.id).expect("nodes").into_iter().map(|n| n.into_data()).collect();
    assert_eq!(read, expected);
    assert_eq!(render_edges(&store, info.id, None), expected_edges(&nodes, &edges));
}

#[test]
fn round_trip_on_disk() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    check_round_trip(Store::open(&db).expect("open"), |store| {
        drop(store);
        Store::open_existing(&db).expect("reopen")
    });
}

#[test]
fn round_trip_in_memory() {
    check_round_trip(Store::in_memory().expect("in memory"), |store| store);
}

#[test]
fn point_lookups_and_one_hop() {
    let mut store = Store::in_memory().expect("store");
    let (meta, nodes, edges) = demo_plane("demo");
    let plane = store.replace_plane(&meta, &nodes, &edges).expect("write").id;

    let serve = store.node_by_key(plane, "demo::HttpServer::serve").expect("lookup").expect("serve exists");
    assert_eq!(serve.label(), "Method");
    assert_eq!(serve.labels, ["Method", "Function"]);
    assert_eq!(store.node(serve.id).expect("node"), Some(serve.clone()));
    assert_eq!(store.node_by_key(plane, "demo::nothing").expect("lookup"), None);
    assert_eq!(store.node(-1).expect("lookup"), None);

    let keys = |found: Vec<drsg_planes::Node>| found.into_iter().map(|n| n.key).collect::<Vec<_>>();
    assert_eq!(keys(store.nodes_by_name(plane, "parseJSONBody").expect("by name")), ["demo::parseJSONBody"]);
    assert!(store.nodes_by_name(plane, "parsejsonbody").expect("by name").is_empty());
    assert_eq!(keys(store.nodes_by_name_ci(plane, "PARSEjsonbody").expect("ci")), ["demo::parseJSONBody"]);
    assert_eq!(keys(store.nodes_by_label(plane, "Struct").expect("by label")), ["demo::HttpServer"]);
    assert_eq!(
        keys(store.nodes_in_file(plane, "src/server.rs").expect("in file")),
        ["?::src/server.rs::frobnicate", "demo::HttpServer", "demo::HttpServer::serve"]
    );

    let render = |found: Vec<drsg_planes::Edge>| {
        found.iter().map(|e| crate::fixture::render_edge(&store, e)).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(
        render(store.edges_out(serve.id, None).expect("out")),
        "demo::HttpServer::serve -CALLS-> demo::parseJSONBody \
         {\"confidence\":\"high\",\"line\":7,\"ref\":\"parseJSONBody\",\"resolved_by\":\"scope\"}\n\
         demo::HttpServer::serve -CALLS-> ?::src/server.rs::frobnicate \
         {\"line\":8,\"reason\":\"name not found\",\"ref\":\"frobnicate\"}"
    );
    assert_eq!(
        render(store.edges_in(serve.id, None).expect("in")),
        "demo::HttpServer -HAS_METHOD-> demo::HttpServer::serve {}"
    );
    assert!(store.edges_in(serve.id, Some("CALLS")).expect("in").is_empty());
    assert_eq!(store.edges_out(serve.id, Some("CALLS")).expect("out").len(), 2);
    assert_eq!(store.degree(serve.id).expect("degree"), (1, 2));
    assert_eq!(
        render_edges(&store, plane, Some(&["HAS_METHOD", "CONTAINS"])),
        "demo -CONTAINS-> demo::parseJSONBody {}\n\
         demo -CONTAINS-> demo::HttpServer {}\n\
         demo::HttpServer -HAS_METHOD-> demo::HttpServer::serve {}"
    );
    assert_eq!(render_edges(&store, plane, Some(&[])), "");

    assert_eq!(
        store.label_counts(plane).expect("labels"),
        [("External", 1), ("Function", 1), ("Method", 1), ("Module", 1), ("Struct", 1), ("UnresolvedRef", 1)]
            .map(|(l, n)| (l.to_owned(), n))
    );
    let summary: Vec<String> = store
        .edge_summary(plane)
        .expect("summary")
        .into_iter()
        .map(|EdgeSummary { ty, src_label, dst_label, count }| format!("{src_label} -{ty}-> {dst_label}: {count}"))
        .collect();
    assert_eq!(
        summary,
        [
            "Function -CALLS-> External: 1",
            "Method -CALLS-> Function: 1",
            "Method -CALLS-> UnresolvedRef: 1",
            "Module -CONTAINS-> Function: 1",
            "Module -CONTAINS-> Struct: 1",
            "Struct -HAS_METHOD-> Method: 1",
        ]
    );
}

#[test]
fn keys_are_unique_per_plane() {
    let mut store = Store::in_memory().expect("store");
    let (meta_a, nodes, edges) = demo_plane("a");
    let a = store.replace_plane(&meta_a, &nodes, &edges).expect("write a").id;
    let b = store.replace_plane(&meta("b"), &nodes, &edges).expect("two planes may share keys").id;
    assert_ne!(a, b);
    let in_a = store.node_by_key(a, "demo").expect("lookup").expect("in a");
    let in_b = store.node_by_key(b, "demo").expect("lookup").expect("in b");
    assert_ne!(in_a.id, in_b.id);
    assert_eq!((in_a.plane, in_b.plane), (a, b));

    let mut duplicated = nodes.clone();
    duplicated.push(node("demo", &["Module"], None, None, json!({})));
    let err = store.replace_plane(&meta_a, &duplicated, &[]).expect_err("duplicate key");
    assert!(matches!(&err, Error::DuplicateKey { plane, key } if plane == "a" && key == "demo"), "{err:?}");
    assert_eq!(err.to_string(), "plane `a` has more than one node with key `demo`");
    // The failed write changed nothing.
    let info = store.plane("a").expect("plane").expect("a exists");
    assert_eq!((info.node_count, info.edge_count), (6, 6));
    assert_eq!(store.node_by_key(a, "demo").expect("lookup"), Some(in_a));
}

#[test]
fn invalid_input_is_refused() {
    let mut store = Store::in_memory().expect("store");
    let (meta, nodes, _) = demo_plane("demo");
    let err = store.replace_plane(&meta, &nodes, &[edge(0, 6, "CALLS", json!({}))]).expect_err("edge out of range");
    assert_eq!(err.to_string(), "invalid data for plane `demo`: edge 0 (0 -> 6) points outside the 6 nodes given");
    let unlabelled = vec![node("x", &[], None, None, json!({}))];
    let err = store.replace_plane(&meta, &unlabelled, &[]).expect_err("no label");
    assert_eq!(err.to_string(), "invalid data for plane `demo`: node `x` has no label");
    assert!(store.planes().expect("planes").is_empty());
}

#[test]
fn replace_removes_old_content() {
    let mut store = Store::in_memory().expect("store");
    let (mut meta, nodes, edges) = demo_plane("demo");
    let first = store.replace_plane(&meta, &nodes, &edges).expect("first write");
    let old = store.node_by_key(first.id, "demo::parseJSONBody").expect("lookup").expect("exists");

    meta.synced_commit = Some("fedcba9876543210fedcba9876543210fedcba98".to_owned());
    meta.kind = PlaneKind::Ops;
    let fresh = vec![node("workload:k8s.yaml#api", &["Workload"], Some("k8s.yaml"), Some(1), json!({}))];
    let second = store.replace_plane(&meta, &fresh, &[]).expect("second write");
    assert_eq!(second.id, first.id, "the plane keeps its id");
    assert!(second.generation > first.generation);
    assert_eq!(second.meta, meta);
    assert_eq!((second.node_count, second.edge_count), (1, 0));

    assert_eq!(store.node(old.id).expect("lookup"), None);
    let keys: Vec<String> = store.nodes(first.id).expect("nodes").into_iter().map(|n| n.key).collect();
    assert_eq!(keys, ["workload:k8s.yaml#api"]);
    assert_eq!(render_edges(&store, first.id, None), "");
    assert!(search_keys(&store, None, "parseJSONBody").is_empty());
    // Only code planes are searched: a deployment plane's nodes get no documents.
    assert!(search_keys(&store, Some(first.id), "api").is_empty());
}

#[test]
fn delete_plane_removes_only_that_plane() {
    let mut store = Store::in_memory().expect("store");
    let (meta_a, nodes, edges) = demo_plane("a");
    let a = store.replace_plane(&meta_a, &nodes, &edges).expect("write a").id;
    let b = store.replace_plane(&meta("b"), &nodes, &edges).expect("write b").id;
    let node_in_a = store.node_by_key(a, "demo").expect("lookup").expect("exists");

    assert!(store.delete_plane("a").expect("delete"));
    assert!(!store.delete_plane("a").expect("delete again"));
    assert_eq!(store.plane("a").expect("plane"), None);
    assert_eq!(store.node(node_in_a.id).expect("lookup"), None);
    assert!(store.nodes(a).expect("nodes").is_empty());
    assert!(store.edges(a, None).expect("edges").is_empty());
    let names: Vec<String> = store.planes().expect("planes").into_iter().map(|p| p.meta.name).collect();
    assert_eq!(names, ["b"]);
    assert_eq!(store.nodes(b).expect("nodes").len(), 6);
    assert_eq!(search_keys(&store, None, "parseJSONBody"), ["demo::parseJSONBody"]);
}

#[test]
fn a_plane_written_in_parts_equals_one_written_at_once() {
    let (meta, nodes, edges) = demo_plane("demo");
    let mut whole = Store::in_memory().expect("store");
    let a = whole.replace_plane(&meta, &nodes, &edges).expect("write at once");

    let mut parts = Store::in_memory().expect("store");
    // The symbols first, then the stand-ins (External, UnresolvedRef) in two batches.
    let (first, rest) = nodes.split_at(4);
    let (middle, last) = rest.split_at(1);
    let mut early = meta.clone();
    early.ledger = json!(null);
    // Edges come with the batch that completes their ends.
    let (early_edges, late_edges): (Vec<_>, Vec<_>) = edges.iter().cloned().partition(|e| e.src < 5 && e.dst < 5);
    let batches = vec![
        PlaneBatch { nodes: middle.to_vec(), edges: early_edges },
        PlaneBatch { nodes: last.to_vec(), edges: late_edges },
    ];
    let b = parts
        .replace_plane_streamed(&early, first.to_vec(), batches.into_iter(), || Some(meta.clone()))
        .expect("write in parts");
    assert_eq!(b.meta, meta, "the final meta wins");
    assert_eq!((b.node_count, b.edge_count), (a.node_count, a.edge_count));
    assert_eq!(render_edges(&parts, b.id, None), render_edges(&whole, a.id, None));
    assert_eq!(search_keys(&parts, None, "json body"), search_keys(&whole, None, "json body"));
}

#[test]
fn a_symbol_after_the_first_nodes_is_refused_and_changes_nothing() {
    let (meta, nodes, edges) = demo_plane("demo");
    let mut store = Store::in_memory().expect("store");
    let before = store.replace_plane(&meta, &nodes, &edges).expect("first write");
    // The text documents are all staged with the first nodes, so a batch may not bring a symbol.
    let late =
        PlaneBatch { nodes: vec![node("demo::late", &["Function"], Some("l.rs"), Some(1), json!({}))], edges: vec![] };
    let err = store
        .replace_plane_streamed(&meta, nodes[..1].to_vec(), std::iter::once(late), || Some(meta.clone()))
        .expect_err("a symbol in a batch");
    assert!(err.to_string().contains("only stand-ins may follow"), "{err}");
    let after = store.plane("demo").expect("plane").expect("still there");
    assert_eq!((after.generation, after.node_count), (before.generation, before.node_count));
    assert!(search_keys(&store, None, "late").is_empty(), "nothing of the refused write is searchable");
    assert_eq!(search_keys(&store, None, "parseJSONBody"), ["demo::parseJSONBody"]);
}

#[test]
fn a_writer_that_gives_up_leaves_the_old_plane() {
    let (meta, nodes, edges) = demo_plane("demo");
    let mut store = Store::in_memory().expect("store");
    let before = store.replace_plane(&meta, &nodes, &edges).expect("first write");
    let fresh = vec![node("other", &["Module"], Some("o.rs"), Some(1), json!({}))];
    let err = store.replace_plane_streamed(&meta, fresh, std::iter::empty(), || None).expect_err("the rest never came");
    assert!(err.to_string().contains("gave up"), "{err}");
    let after = store.plane("demo").expect("plane").expect("still there");
    assert_eq!(
        (after.generation, after.node_count, after.edge_count),
        (before.generation, before.node_count, before.edge_count)
    );
    assert!(search_keys(&store, None, "other").is_empty(), "staged text was dropped");
    assert!(!search_keys(&store, None, "parseJSONBody").is_empty(), "old text is intact");
}

#[test]
fn digests_tell_what_changed_between_two_writes() {
    let mut store = Store::in_memory().expect("store");
    let (meta, mut nodes, mut edges) = demo_plane("demo");
    store.replace_plane(&meta, &nodes, &edges).expect("write");
    let plane = store.plane("demo").expect("read").expect("demo");
    let before = store.plane_digest(plane.id).expect("digest");
    assert_eq!(before.nodes.len(), 6);
    assert_eq!(before.edges.values().sum::<u64>(), 6);
    assert_eq!(before.changes(&before), drsg_planes::DigestChanges::default());
    // One node's property changes, one node is added, one edge is dropped.
    nodes[1] = nodes[1].clone().with_props(&json!({"doc": "changed"}).as_object().expect("object").clone());
    nodes.push(node("demo::extra", &["Function"], Some("src/extra.rs"), Some(1), json!({})));
    edges.pop();
    store.replace_plane(&meta, &nodes, &edges).expect("write again");
    let after = store.plane_digest(plane.id).expect("digest");
    let changes = before.changes(&after);
    assert_eq!(
        (changes.nodes_added, changes.nodes_changed, changes.nodes_removed, changes.edges_added, changes.edges_removed),
        (1, 1, 0, 0, 1)
    );
}

/// Edges are written many to a statement: counts around that size (none, one short of a statement, exactly
/// one, several plus a remainder) read back in order, every end and property in its place.
#[test]
fn edges_read_back_whatever_their_count() {
    let nodes: Vec<NodeData> =
        (0..10).map(|i| node(&format!("m::f{i}"), &["Function"], Some("m.rs"), Some(i + 1), json!({}))).collect();
    for count in [0, 1, 63, 64, 65, 197] {
        let mut store = Store::in_memory().expect("store");
        let edges: Vec<_> = (0..count)
            .map(|i: usize| {
                let props = if i.is_multiple_of(3) { json!({}) } else { json!({"line": i, "reason": format!("r{i}")}) };
                edge(i % 10, (i * 7 + 3) % 10, if i.is_multiple_of(2) { "CALLS" } else { "REFERENCES" }, props)
            })
            .collect();
        let info = store.replace_plane(&meta("many"), &nodes, &edges).expect("write");
        assert_eq!(info.edge_count, count as u64);
        assert_eq!(render_edges(&store, info.id, None), expected_edges(&nodes, &edges), "{count} edges");
    }
}
