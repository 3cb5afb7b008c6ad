//! What a run reads: the committed tree of HEAD in a git checkout (never uncommitted edits), the
//! directory on disk elsewhere.

use drsg_indexer::{IndexOptions, RunReport, Silent, index_tree};
use drsg_planes::Store;
use drsg_testdata::Fixture;

fn run_at(dir: &std::path::Path) -> (RunReport, Store) {
    let mut store = Store::in_memory().expect("store");
    let report = index_tree(dir, &drsg_plugins::builtin(), &mut store, &IndexOptions::default(), &Silent)
        .expect("the run finishes");
    (report, store)
}

fn names(store: &Store) -> Vec<String> {
    let plane = store.planes().expect("planes").remove(0);
    let mut names: Vec<String> = store
        .nodes(plane.id)
        .expect("nodes")
        .into_iter()
        .filter(|n| matches!(n.label(), "Function" | "Module"))
        .map(|n| n.key)
        .collect();
    names.sort();
    names
}

#[test]
fn a_checkout_is_indexed_as_committed() {
    let fx = Fixture::inline("//- /a.py\ndef committed():\n    pass\n");
    let head = fx.git(&["rev-parse", "HEAD"]).trim().to_owned();
    // An uncommitted edit, an untracked file, a deleted file: none of them is what HEAD holds.
    fx.write("a.py", "def edited():\n    pass\n");
    fx.write("b.py", "def untracked():\n    pass\n");
    let (report, store) = run_at(fx.path());
    assert_eq!(report.synced_commit.as_deref(), Some(head.as_str()));
    assert_eq!(names(&store), ["a", "a.committed"]);
    fx.remove("a.py");
    let (_, store) = run_at(fx.path());
    assert_eq!(names(&store), ["a", "a.committed"]);
}

#[test]
fn a_tracked_subdirectory_is_indexed_from_the_commit_with_its_own_keys() {
    let fx = Fixture::inline(
        "//- /svc/api/handlers.py\ndef handle():\n    pass\n//- /svc/api/__init__.py\n//- /other/x.py\ndef x():\n    pass\n",
    );
    fx.write("svc/api/extra.py", "def not_committed():\n    pass\n");
    let (report, store) = run_at(&fx.path().join("svc"));
    assert!(report.synced_commit.is_some());
    assert_eq!(report.plane, "svc");
    assert_eq!(names(&store), ["api", "api.handlers", "api.handlers.handle"]);
}

#[test]
fn an_untracked_directory_inside_a_checkout_is_read_from_disk_without_a_commit() {
    let fx = Fixture::inline("//- /.gitignore\nvendor/\n//- /a.py\ndef a():\n    pass\n");
    fx.write("vendor/lib/v.py", "def vendored():\n    pass\n");
    let (report, store) = run_at(&fx.path().join("vendor"));
    assert_eq!(report.synced_commit, None, "an ignored directory is not part of any commit");
    // `lib/` has no `__init__.py`: `v.py` is a loose script, keyed by its stem.
    assert_eq!(names(&store), ["v", "v.vendored"]);
}

#[test]
fn committed_links_binaries_and_huge_blobs_are_skipped_and_counted() {
    let fx = Fixture::new();
    fx.write("ok.py", "def ok():\n    pass\n");
    fx.write_bytes("blob.py", b"def x():\n\x00\x01 binary\n");
    fx.write("huge.py", &"x = 1\n".repeat(500_000));
    std::os::unix::fs::symlink("ok.py", fx.path().join("link.py")).expect("symlink");
    fx.commit_all("mixed");
    let (report, store) = run_at(fx.path());
    assert!(report.synced_commit.is_some());
    assert_eq!(names(&store), ["ok", "ok.ok"]);
    let skipped = serde_json::to_value(&report.skipped).expect("json");
    assert_eq!(skipped, serde_json::json!({"binary": 1, "symlink": 1, "too_large": 1}));
}

#[test]
fn a_repository_without_commits_is_read_from_disk() {
    let fx = Fixture::new();
    fx.write("a.py", "def a():\n    pass\n");
    let (report, store) = run_at(fx.path());
    assert_eq!(report.synced_commit, None);
    assert_eq!(names(&store), ["a", "a.a"]);
}
