//! A plane of realistic size goes through one write.

use drsg_planes::{NewEdge, NodeData, PlaneKind, PlaneMeta, Props, Store};
use serde_json::json;

#[test]
fn bulk_write_of_20k_nodes_and_50k_edges() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(&tmp.path().join("graph.drsg")).expect("open");
    let node_count = 20_000;
    let nodes: Vec<NodeData> = (0..node_count)
        .map(|i: usize| {
            let label = if i.is_multiple_of(10) { "Module" } else { "Function" };
            let mut props = Props::new();
            props.insert("signature".into(), json!(format!("fn handler{i}(request: Request) -> Response")));
            NodeData {
                key: format!("crate::m{}::handler{i}", i / 100),
                labels: vec![label.to_owned()],
                name: format!("handler{i}"),
                file: Some(format!("src/m{}.rs", i / 100)),
                line: Some(u32::try_from(i % 100).expect("small") + 1),
                end_line: None,
                props_json: String::new(),
            }
            .with_props(&props)
        })
        .collect();
    let edges: Vec<NewEdge> = (0..50_000)
        .map(|i: usize| {
            let ty = if i.is_multiple_of(5) { "CONTAINS" } else { "CALLS" };
            NewEdge::new(i % node_count, (i * 7 + 1) % node_count, ty, &Props::new())
        })
        .collect();
    let meta = PlaneMeta {
        name: "big".into(),
        kind: PlaneKind::Code,
        synced_commit: None,
        synced_root: None,
        built_by: json!(null),
        ledger: json!(null),
    };
    let info = store.replace_plane(&meta, &nodes, &edges).expect("bulk write");
    assert_eq!((info.node_count, info.edge_count), (20_000, 50_000));
    assert_eq!(
        store.label_counts(info.id).expect("labels"),
        [("Function".to_owned(), 18_000), ("Module".to_owned(), 2_000)]
    );
    assert_eq!(store.edges(info.id, Some(&["CONTAINS"])).expect("edges").len(), 10_000);
    let hits = store.search(Some(info.id), "handler12345", 5).expect("search");
    let top = store.node(hits[0].0).expect("node").expect("exists");
    assert_eq!(top.name, "handler12345");

    // Replacing a big plane with a big plane.
    let info = store.replace_plane(&meta, &nodes[..10_000], &[]).expect("second write");
    assert_eq!((info.node_count, info.edge_count), (10_000, 0));
}
