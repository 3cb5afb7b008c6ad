//! The state kept beside a plane: a fold in a fresh process reads it instead of the whole tree, writes
//! back only what it changed, and falls back to the tree when the records are not the plane's or do not
//! read; the plane is the same as a fresh index's whichever way the state was had.
#![allow(clippy::unwrap_used, reason = "a failed unwrap is a failed test, with its value shown")]

use drsg_indexer::{FactsCache, FoldReport, IndexOptions, Silent, fold, index_tree};
use drsg_planes::{KeptFile, KeptWrite, Store};
use drsg_testdata::Fixture;

use crate::plane_lines;

fn fresh_index(fx: &Fixture) -> Store {
    let mut store = Store::in_memory().expect("store");
    index_tree(fx.path(), &drsg_plugins::builtin(), &mut store, &IndexOptions::default(), &Silent).expect("index");
    store
}

/// Commits an edit of `path`, folds `store` in a process of its own (a new cache) and checks the plane
/// against a fresh index.
fn edit_and_fold(fx: &Fixture, store: &mut Store, path: &str, text: &str) -> FoldReport {
    fx.write(path, text);
    fx.commit_all(&format!("edit {path}"));
    let registry = drsg_plugins::builtin();
    let report =
        fold(store, &registry, "repo", None, &IndexOptions::default(), &FactsCache::default(), &Silent).expect("fold");
    assert_eq!(report.kept_error, None);
    let fresh = fresh_index(fx);
    assert_eq!(plane_lines(store, "repo"), plane_lines(&fresh, "repo"), "after {path}: {report:?}");
    report
}

fn fixture() -> Fixture {
    Fixture::inline(concat!(
        "//- /pkg/__init__.py\n",
        "//- /pkg/a.py\nclass A:\n    def run(self):\n        return 1\n",
        "//- /pkg/b.py\nfrom pkg.a import A\n\n\ndef go():\n    return A().run()\n",
        "//- /web/t.ts\nexport function t(x: number): number {\n  return x;\n}\n",
        "//- /web/u.ts\nimport { t } from './t';\n\nexport function u(): number {\n  return t(1);\n}\n",
    ))
}

#[test]
fn a_fresh_process_folds_from_the_kept_state_parsing_only_the_change() {
    let fx = fixture();
    let mut store = fresh_index(&fx);
    // An index keeps each file's facts: the first fold parses only the change, resolves every file once
    // and keeps every file's record with its output.
    let check_header = |store: &Store| {
        let header = store.kept_header("repo").unwrap().expect("kept");
        let plane = store.plane("repo").unwrap().unwrap();
        let synced = plane.meta.synced_commit.unwrap();
        assert_eq!((header.generation, header.commit), (plane.generation, synced));
    };
    check_header(&store);
    assert_eq!(store.kept_files("repo").unwrap().len(), 5);
    let first =
        edit_and_fold(&fx, &mut store, "pkg/b.py", "from pkg.a import A\n\n\ndef go():\n    return A().run() + 1\n");
    assert_eq!((first.state_from, first.files_parsed, first.kept_records), ("kept", 1, 5));
    check_header(&store);

    // The next process reads the records back: only the changed file is parsed, and only the records of
    // the files the fold resolved again are written.
    let second = edit_and_fold(
        &fx,
        &mut store,
        "pkg/a.py",
        "class A:\n    def run(self):\n        return 2\n\n    def stop(self):\n        pass\n",
    );
    assert_eq!((second.state_from, second.files_parsed), ("kept", 1));
    assert_eq!(second.kept_records, second.files_resolved, "{second:?}");
    assert!(second.kept_records < 5, "{second:?}");

    // A file removed takes its record along.
    fx.git(&["rm", "-q", "web/u.ts"]);
    fx.commit_all("remove u.ts");
    let registry = drsg_plugins::builtin();
    let third =
        fold(&mut store, &registry, "repo", None, &IndexOptions::default(), &FactsCache::default(), &Silent).unwrap();
    assert_eq!((third.state_from, third.files_parsed), ("kept", 0));
    let paths: Vec<String> = store.kept_files("repo").unwrap().into_iter().map(|f| f.path).collect();
    assert_eq!(paths, ["pkg/__init__.py", "pkg/a.py", "pkg/b.py", "web/t.ts"]);
    assert_eq!(plane_lines(&store, "repo"), plane_lines(&fresh_index(&fx), "repo"));

    // Indexing the plane again replaces the records, which were the old plane's.
    index_tree(fx.path(), &registry, &mut store, &IndexOptions::default(), &Silent).unwrap();
    check_header(&store);
    assert_eq!(store.kept_files("repo").unwrap().len(), 4);
}

#[test]
fn records_that_are_not_the_planes_or_do_not_read_are_not_used() {
    let fx = fixture();
    let mut store = fresh_index(&fx);
    edit_and_fold(&fx, &mut store, "pkg/b.py", "from pkg.a import A\n\n\ndef go():\n    return 3\n");

    // Records of another generation (a plane written since by another build) are passed over.
    let mut header = store.kept_header("repo").unwrap().unwrap();
    let files = store.kept_files("repo").unwrap();
    header.generation += 100;
    assert!(store.keep("repo", &header, KeptWrite::Whole(files)).unwrap());
    let report =
        edit_and_fold(&fx, &mut store, "web/t.ts", "export function t(x: number): number {\n  return x + 1;\n}\n");
    assert_eq!(report.state_from, "tree");

    // Records that do not read are parsed again, file by file; the plane comes out right.
    let header = store.kept_header("repo").unwrap().unwrap();
    let damaged: Vec<KeptFile> = store
        .kept_files("repo")
        .unwrap()
        .into_iter()
        .map(|f| if f.path == "pkg/a.py" { KeptFile { record: vec![0xff; 7], ..f } } else { f })
        .collect();
    assert!(store.keep("repo", &header, KeptWrite::Whole(damaged)).unwrap());
    let report = edit_and_fold(
        &fx,
        &mut store,
        "web/u.ts",
        "import { t } from './t';\n\nexport function u(): number {\n  return t(2);\n}\n",
    );
    assert_eq!((report.state_from, report.files_parsed), ("kept", 2), "{report:?}");
    // The damaged record is written again with the rest of what the fold changed.
    let report = edit_and_fold(&fx, &mut store, "pkg/__init__.py", "X = 1\n");
    assert_eq!((report.state_from, report.files_parsed), ("kept", 1), "{report:?}");

    // A record of another blob than the tree's (a record that does not match its header) is read
    // neither for its facts nor for its output, and a record of a file the tree lacks is dropped.
    let header = store.kept_header("repo").unwrap().unwrap();
    let mut files = store.kept_files("repo").unwrap();
    for file in &mut files {
        if file.path == "web/t.ts" {
            file.blob = "0".repeat(40);
        }
    }
    let stray = KeptFile { path: "gone.py".to_owned(), ..files[0].clone() };
    files.push(stray);
    assert!(store.keep("repo", &header, KeptWrite::Whole(files)).unwrap());
    let report = edit_and_fold(&fx, &mut store, "pkg/a.py", "class A:\n    def run(self):\n        return 5\n");
    assert_eq!((report.state_from, report.files_parsed), ("kept", 2), "{report:?}");
    let paths: Vec<String> = store.kept_files("repo").unwrap().into_iter().map(|f| f.path).collect();
    assert!(!paths.contains(&"gone.py".to_owned()), "{paths:?}");
}
