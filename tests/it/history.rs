//! The `_git` plane written by `drsg index` on a checkout, and the `history` verb over it.
#![allow(clippy::unwrap_used, reason = "a failed unwrap is a failed test, with its value shown")]

use drsg::files::DiskFiles;
use drsg_planes::Store;
use drsg_query::{self as q, Session};
use drsg_testdata::Fixture;

/// Two branches, a lightweight and an annotated tag, a rebase, then a merge.
fn repository() -> Fixture {
    let fx = Fixture::inline("//- /a.py\ndef a():\n    pass\n");
    fx.git(&["tag", "v0.1"]);
    fx.git(&["checkout", "-q", "-b", "feature"]);
    fx.write("b.py", "def b():\n    pass\n");
    fx.commit_all("feature work");
    fx.git(&["checkout", "-q", "main"]);
    fx.write("c.py", "def c():\n    pass\n");
    fx.commit_all("main work");
    fx.git(&["tag", "-a", "v1.0", "-m", "release"]);
    fx.git(&["checkout", "-q", "feature"]);
    // Later dates than the pinned default, so the rebased commit and the merge are the newest.
    let later = |args: &[&str], date: &str| {
        let out = fx.command(args).env("GIT_COMMITTER_DATE", date).env("GIT_AUTHOR_DATE", date).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    later(&["rebase", "-q", "main"], "1704067500 +0000");
    fx.git(&["checkout", "-q", "main"]);
    later(&["merge", "-q", "--no-ff", "feature", "-m", "merge feature"], "1704067800 +0000");
    fx
}

fn index(fx: &Fixture, store: &mut Store) -> drsg_indexer::RunReport {
    let options = drsg_indexer::IndexOptions::default();
    drsg_indexer::index_tree(fx.path(), &drsg_plugins::builtin(), store, &options, &drsg_indexer::Silent).unwrap()
}

fn check_history(store: &Store, limit: Option<usize>) -> (String, serde_json::Value) {
    let s = Session { store, cwd: None, files: &DiskFiles };
    let answer = q::history(&s, &q::HistoryParams { limit, plane: None }).unwrap();
    (q::render(&answer, None), serde_json::to_value(&answer).unwrap())
}

#[test]
fn history_shows_head_branches_tags_rebases_and_commits() {
    let fx = repository();
    let mut store = Store::open(&fx.outside().join("g.drsg")).unwrap();
    let report = index(&fx, &mut store);
    let summary = report.history.expect("a checkout gets a history plane");
    assert_eq!((summary.plane.as_str(), summary.branches, summary.tags, summary.rebases), ("repo_git", 2, 2, 1));
    let (text, json) = check_history(&store, None);
    insta::assert_snapshot!(text);
    assert_eq!(json["status"], "found");
    assert_eq!(json["unreachable"], 1, "the feature commit the rebase replaced");
    // The plane's edges: parents with their order, tips, tags, and the rebase's two ends.
    let plane = store.plane("repo_git").unwrap().unwrap();
    let summary: Vec<String> = store
        .edge_summary(plane.id)
        .unwrap()
        .iter()
        .map(|e| format!("{} {}→{} {}", e.ty, e.src_label, e.dst_label, e.count))
        .collect();
    assert_eq!(
        summary,
        [
            "ONTO Rebase→Commit 1",
            "PARENT Commit→Commit 5",
            "REPLACED Rebase→Commit 1",
            "TAGS Tag→Commit 2",
            "TIP Branch→Commit 2"
        ]
    );
    let merge = store.nodes_by_label(plane.id, "Commit").unwrap().into_iter().find(|c| c.labels.len() == 2).unwrap();
    assert_eq!(merge.labels, ["Commit", "Merge"]);
    let orders: Vec<u64> =
        store.edges_out(merge.id, Some("PARENT")).unwrap().iter().map(|e| e.props["order"].as_u64().unwrap()).collect();
    assert_eq!(orders, [0, 1]);
}

#[test]
fn detached_head_and_a_capped_history() {
    let fx = repository();
    fx.git(&["checkout", "-q", "--detach", "v1.0"]);
    let mut store = Store::open(&fx.outside().join("g.drsg")).unwrap();
    let options = drsg_indexer::IndexOptions { max_commits: Some(2), ..Default::default() };
    let report =
        drsg_indexer::index_tree(fx.path(), &drsg_plugins::builtin(), &mut store, &options, &drsg_indexer::Silent)
            .unwrap();
    assert!(report.history.unwrap().capped);
    let (text, _) = check_history(&store, Some(1));
    assert!(text.starts_with("HEAD detached at "), "{text}");
    assert!(text.contains("the index recorded only the newest (--max-commits)"), "{text}");
    assert!(text.contains("  … and 1 more\n"), "{text}");
}

#[test]
fn a_plane_without_history_says_so() {
    let fx = Fixture::new();
    fx.write("a.py", "def a():\n    pass\n");
    let mut store = Store::open(&fx.outside().join("g.drsg")).unwrap();
    let report = index(&fx, &mut store);
    assert!(report.history.is_none());
    let (text, json) = check_history(&store, None);
    assert_eq!(json["status"], "no_history");
    assert!(text.starts_with("plane repo has no history"), "{text}");
    let s = Session { store: &store, cwd: None, files: &DiskFiles };
    let err = q::history(&s, &q::HistoryParams { limit: Some(0), plane: None }).unwrap_err();
    assert_eq!(err.to_string(), "limit must be 1 to 200 (got 0)");
}
