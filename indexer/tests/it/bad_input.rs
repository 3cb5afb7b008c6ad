//! Bad input: each gets a ledger entry or a clear error, and the run finishes.

use drsg_indexer::{IndexOptions, Silent, index_tree};
use drsg_planes::Store;
use drsg_testdata::Fixture;

fn run(fixture: &Fixture) -> (drsg_indexer::RunReport, Store) {
    let mut store = Store::in_memory().expect("store");
    let report = index_tree(fixture.path(), &drsg_plugins::builtin(), &mut store, &IndexOptions::default(), &Silent)
        .expect("the run finishes");
    (report, store)
}

fn ledger(store: &Store) -> serde_json::Value {
    store.planes().expect("planes").remove(0).meta.ledger
}

#[test]
fn binary_invalid_utf8_and_huge_files_are_skipped_and_counted() {
    let fx = Fixture::new();
    fx.write("src/ok.py", "def ok():\n    return 1\n");
    fx.write_bytes("src/blob.py", b"def x():\n\x00\x01\x02 binary\n");
    fx.write_bytes("src/latin1.py", b"# caf\xe9\ndef y():\n    pass\n");
    // A 50 MB generated file: skipped by size without being read.
    fx.write("gen/huge.ts", &"export const a = 1;\n".repeat(2_700_000));
    fx.write("dist/app.min.js", "var a=1;");
    let (report, store) = run(&fx);
    assert_eq!(report.files, 1, "only ok.py is parsed");
    let skipped = &ledger(&store)["skipped"];
    assert_eq!(skipped["binary"], 1);
    assert_eq!(skipped["not_utf8"], 1);
    assert_eq!(skipped["too_large"], 1);
    assert_eq!(skipped["generated"], 1);
    let examples = ledger(&store)["skipped_examples"].to_string();
    assert!(examples.contains("gen/huge.ts") && examples.contains("too_large"), "{examples}");
}

#[test]
fn deeply_nested_sources_do_not_overflow_the_stack() {
    let fx = Fixture::new();
    let depth = 100_000;
    fx.write("deep.py", &format!("x = {}1{}\ndef after():\n    pass\n", "(".repeat(depth), ")".repeat(depth)));
    fx.write(
        "deep.ts",
        &format!("export const x = {}1{};\nexport function after() {{}}\n", "[".repeat(depth), "]".repeat(depth)),
    );
    fx.write(
        "deep.rs",
        &format!("fn f() {{ let x = {}1{}; }}\nfn after() {{}}\n", "(".repeat(depth), ")".repeat(depth)),
    );
    // A file with 100,000 unclosed brackets: a parse error, not a crash.
    fx.write("open.py", &format!("y = {}\ndef later():\n    pass\n", "[".repeat(depth)));
    let (report, store) = run(&fx);
    assert_eq!(report.files, 4);
    assert!(report.parse_error_files >= 1, "the unclosed file has syntax errors");
    // The files cut below the plugins' depth limits are named, in the report and in the ledger.
    let cut: Vec<&str> = report.cut_files.iter().map(|(path, _, _)| path.as_str()).collect();
    assert!(cut.contains(&"deep.py") && cut.contains(&"deep.ts"), "{:?}", report.cut_files);
    assert!(report.cut_files.iter().all(|(_, line, why)| *line >= 1 && why.contains("nesting deeper than")));
    assert_eq!(ledger(&store)["cut"]["files"], report.cut_files.len());
}

#[test]
fn syntax_errors_keep_what_parsed_and_are_counted() {
    let fx = Fixture::new();
    fx.write("m.py", "def good():\n    return 1\n\ndef broken(:\n    pass\n\ndef also_good():\n    good()\n");
    let (report, store) = run(&fx);
    assert_eq!(report.parse_error_files, 1);
    let plane = store.planes().expect("planes").remove(0);
    let names: Vec<String> = store.nodes(plane.id).expect("nodes").into_iter().map(|n| n.key).collect();
    assert!(names.contains(&"m.good".to_owned()) && names.contains(&"m.also_good".to_owned()), "{names:?}");
    assert_eq!(ledger(&store)["parse_errors"]["files"], 1);
}

#[test]
fn symlink_loops_and_links_out_of_the_tree_are_not_followed() {
    let fx = Fixture::new();
    fx.write("a.py", "def a():\n    pass\n");
    std::fs::write(fx.outside().join("secret.py"), "def secret():\n    pass\n").expect("write outside");
    let root = fx.path();
    std::os::unix::fs::symlink(root.join("loop"), root.join("loop")).expect("self loop");
    std::os::unix::fs::symlink(root, root.join("up")).expect("dir loop");
    std::os::unix::fs::symlink(fx.outside().join("secret.py"), root.join("secret.py")).expect("link out");
    let (report, store) = run(&fx);
    assert_eq!(report.files, 1);
    let plane = store.planes().expect("planes").remove(0);
    let keys: Vec<String> = store.nodes(plane.id).expect("nodes").into_iter().map(|n| n.key).collect();
    assert!(!keys.iter().any(|k| k.contains("secret")), "{keys:?}");
    assert_eq!(ledger(&store)["skipped"]["symlink"], 1);
}

#[test]
fn unreadable_files_are_skipped_with_a_reason() {
    use std::os::unix::fs::PermissionsExt;
    let fx = Fixture::new();
    fx.write("a.py", "def a():\n    pass\n");
    fx.write("locked.py", "def locked():\n    pass\n");
    let locked = fx.path().join("locked.py");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let readable_anyway = std::fs::read(&locked).is_ok(); // true when the tests run as root
    let (report, store) = run(&fx);
    if readable_anyway {
        // FIXME: root reads any file, so this machine cannot make one unreadable; it is indexed.
        assert_eq!(report.files, 2);
    } else {
        assert_eq!(report.files, 1);
        assert_eq!(ledger(&store)["skipped"]["unreadable"], 1);
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).expect("chmod back");
}

#[test]
fn a_tree_with_nothing_to_index_is_an_error_and_writes_nothing() {
    // A fixture is a repository; with no commit yet, that is the reason given.
    let fx = Fixture::new();
    fx.write("notes.txt", "no source here\n");
    let mut store = Store::in_memory().expect("store");
    let err = index_tree(fx.path(), &drsg_plugins::builtin(), &mut store, &IndexOptions::default(), &Silent)
        .expect_err("nothing to index");
    assert!(
        err.to_string().contains("nothing to index in")
            && err.to_string().contains("no commits yet, and drsg indexes what is committed"),
        "{err}"
    );
    assert!(store.planes().expect("planes").is_empty(), "no plane is written");
}

#[test]
fn a_root_that_is_not_a_directory_is_an_error_and_writes_nothing() {
    let fx = Fixture::new();
    fx.write("file.py", "x = 1\n");
    let mut store = Store::in_memory().expect("store");
    let err =
        index_tree(&fx.path().join("file.py"), &drsg_plugins::builtin(), &mut store, &IndexOptions::default(), &Silent)
            .expect_err("a file is not a tree");
    assert!(err.to_string().contains("is not a directory"), "{err}");
    assert!(store.planes().expect("planes").is_empty());
}

#[test]
fn self_referential_types_terminate_unresolved() {
    let fx = Fixture::new();
    fx.write(
        "loop.py",
        "class Loop:\n    def __init__(self):\n        self.a = self.a.b()\n\n    def go(self):\n        self.a.c()\n",
    );
    fx.write(
        "chain.rs",
        "struct S { s: S }\nimpl S {\n    fn go(&self) {\n        let x = x.y();\n        self.s.s.s.go();\n    }\n}\n",
    );
    let (report, _store) = run(&fx);
    assert_eq!(report.files, 2);
    let a = &report.accounting;
    assert_eq!(a.call_sites, a.resolved + a.external + a.unresolved);
}

#[cfg(unix)]
#[test]
fn file_names_that_are_not_utf8_are_skipped_and_said_never_merged() {
    use std::os::unix::ffi::OsStrExt as _;
    let fx = Fixture::new();
    fx.write("ok.py", "def ok():\n    return 1\n");
    fx.write("pkg/keep.py", "def keep():\n    return 2\n");
    for name in [&b"bad\xff.py"[..], &b"bad\xfe.py"[..]] {
        std::fs::write(fx.path().join(std::ffi::OsStr::from_bytes(name)), "def lost():\n    pass\n").expect("write");
    }
    std::fs::create_dir(fx.path().join(std::ffi::OsStr::from_bytes(b"dir\xff"))).expect("mkdir");
    std::fs::write(
        fx.path().join(std::ffi::OsStr::from_bytes(b"dir\xff")).join("inner.py"),
        "def inner():\n    pass\n",
    )
    .expect("write");
    // On disk (no commit yet) and from a commit, alike.
    for from_commit in [false, true] {
        if from_commit {
            fx.commit_all("names");
        }
        let (report, store) = run(&fx);
        assert_eq!(report.files, 2, "ok.py and pkg/keep.py (from a commit: {from_commit})");
        let ledger = ledger(&store);
        assert_eq!(ledger["skipped"]["name_not_utf8"], 3, "{ledger:#}");
        let examples = ledger["skipped_examples"].to_string();
        for shown in [r"bad\\xff.py", r"bad\\xfe.py", r"dir\\xff"] {
            assert!(examples.contains(shown), "{shown} in {examples}");
        }
    }
}
