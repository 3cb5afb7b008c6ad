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

/// The nice value and name of each thread of this process (Linux `/proc`).
#[cfg(target_os = "linux")]
fn threads() -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").expect("/proc/self/task") {
        let dir = task.expect("task").path();
        let (Ok(comm), Ok(stat)) =
            (std::fs::read_to_string(dir.join("comm")), std::fs::read_to_string(dir.join("stat")))
        else {
            continue; // the thread ended meanwhile
        };
        // Fields after the parenthesised name; the nice value is the 19th field of the line.
        let rest = stat.rsplit_once(')').expect("stat has a name").1;
        let nice = rest.split_whitespace().nth(16).expect("nice field").parse().expect("a number");
        out.push((comm.trim().to_owned(), nice));
    }
    out
}

/// The nice value of the calling thread.
#[cfg(target_os = "linux")]
fn own_nice() -> i64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("own stat");
    stat.rsplit_once(')').expect("a name").1.split_whitespace().nth(16).expect("nice").parse().expect("a number")
}

#[cfg(target_os = "linux")]
#[test]
fn a_bulk_write_runs_the_text_index_threads_at_a_lower_priority_than_its_caller() {
    let before = own_nice();
    // A first write, which is a bulk one.
    let (_tmp, _db, _store) = crate::fixture::demo_database();
    // The writer's segment builders, started again by this write's commit, outlive it; they yield to the row
    // writer.
    assert_lowered_builder(before);
    // The caller's own thread keeps its priority.
    assert_eq!(own_nice(), before);
}

/// Asserts that a text index segment builder of this process runs 10 nice steps below `caller`. A thread
/// just started bears its parent's name until it runs and names itself, so the name may take a moment to
/// show. (Tests run in parallel: another test's builder would do as well.)
#[cfg(target_os = "linux")]
fn assert_lowered_builder(caller: i64) {
    let lowered = |threads: &[(String, i64)]| {
        threads.iter().any(|(name, nice)| name.starts_with("thrd-tantivy") && *nice == (caller + 10).min(19))
    };
    let mut seen = threads();
    for _ in 0..200 {
        if lowered(&seen) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        seen = threads();
    }
    panic!("caller at {caller}, threads: {seen:?}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_warmed_up_first_write_has_its_text_writer_made_ahead_at_the_lower_priority() {
    let before = own_nice();
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(&tmp.path().join("graph.drsg")).expect("open");
    store.warm_up_first_write();
    // Before any write, the writer and its segment builder exist, lowered.
    assert_lowered_builder(before);
    assert_eq!(own_nice(), before);
    // The write then goes on as any first write.
    let (meta, nodes, edges) = crate::fixture::demo_plane("demo");
    let info = store.replace_plane(&meta, &nodes, &edges).expect("write after the warm-up");
    let hits = store.search(Some(info.id), "parseJSONBody", 3).expect("search");
    let top = store.node(hits[0].0).expect("node").expect("exists");
    assert_eq!(top.key, "demo::parseJSONBody");
}
