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
fn commits_once_recorded_stay_when_no_ref_reaches_them() {
    let fx = Fixture::inline("//- /a.py\ndef a():\n    pass\n");
    fx.write("b.py", "def b():\n    pass\n");
    fx.commit_all("second");
    let amended_away = fx.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let mut store = Store::open(&fx.outside().join("g.drsg")).unwrap();
    index(&fx, &mut store);
    // Amend the commit, then drop it from the reflog too: only the plane still knows it.
    fx.write("b.py", "def b():\n    return 1\n");
    fx.git(&["add", "-A"]);
    fx.git(&["commit", "-q", "--amend", "-m", "second, amended"]);
    fx.git(&["reflog", "expire", "--expire=now", "--all"]);
    let registry = drsg_plugins::builtin();
    let cache = drsg_indexer::FactsCache::default();
    let options = drsg_indexer::IndexOptions::default();
    drsg_indexer::fold(&mut store, &registry, "repo", None, &options, &cache, &drsg_indexer::Silent).unwrap();
    let plane = store.plane("repo_git").unwrap().unwrap();
    let old =
        store.node_by_key(plane.id, &format!("commit:{amended_away}")).unwrap().expect("the amended commit stays");
    assert_eq!(old.props["reachable"], false);
    assert_eq!(old.props["summary"], "second");
    let parent = store.edges_out(old.id, Some("PARENT")).unwrap();
    assert_eq!(parent.len(), 1, "its parent edge stays too");
    let (text, json) = check_history(&store, None);
    assert_eq!(json["unreachable"], 1, "{text}");
    assert!(text.contains("commits: 2 reachable"), "{text}");
    // Once git has deleted the object, indexing again keeps the commit as the plane recorded it.
    fx.git(&["gc", "-q", "--prune=now"]);
    index(&fx, &mut store);
    let plane = store.plane("repo_git").unwrap().unwrap();
    let kept = store.node_by_key(plane.id, &format!("commit:{amended_away}")).unwrap().expect("still there");
    assert_eq!((kept.props["summary"].as_str(), kept.props["reachable"].as_bool()), (Some("second"), Some(false)));
    assert_eq!(store.edges_out(kept.id, Some("PARENT")).unwrap().len(), 1);
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

fn check_recall(store: &Store, p: q::RecallParams) -> q::Result<(String, bool)> {
    let registry = drsg_plugins::builtin();
    let revisions = drsg::revisions::GitRevisions { registry: &registry };
    let s = Session { store, cwd: None, files: &DiskFiles };
    let answer = q::recall(&s, &revisions, &p)?;
    Ok((q::render(&answer, None), q::Answer::found(&answer)))
}

fn at(rev: &str) -> q::RecallParams {
    q::RecallParams { at: rev.into(), ..Default::default() }
}

#[test]
fn recall_reads_files_directories_symbols_searches_and_diffs_at_a_revision() {
    let fx = repository();
    let mut store = Store::open(&fx.outside().join("g.drsg")).unwrap();
    index(&fx, &mut store);
    let v01 = fx.git(&["rev-parse", "--short=12", "v0.1"]).trim().to_owned();
    // A directory then and now.
    let (then, _) = check_recall(&store, q::RecallParams { path: Some(".".into()), ..at("v0.1") }).unwrap();
    assert!(then.starts_with(&format!("./ at {v01} (2024-01-01, initial): 1 entries\n  a.py\n")), "{then}");
    let (now, _) = check_recall(&store, q::RecallParams { path: Some(".".into()), ..at("main") }).unwrap();
    assert!(now.contains(": 3 entries\n  a.py\n  b.py\n  c.py\n"), "{now}");
    // A file and a range.
    let (file, _) = check_recall(&store, q::RecallParams { path: Some("c.py:1-1".into()), ..at("v1.0") }).unwrap();
    assert!(file.contains("\n1  def c():\n"), "{file}");
    // A symbol of the plane, re-parsed from the revision; absent before it existed.
    let (symbol, found) = check_recall(&store, q::RecallParams { name: Some("c.c".into()), ..at("HEAD") }).unwrap();
    assert!(found && symbol.starts_with("c.c in c.py:1-2 at "), "{symbol}");
    let (absent, found) = check_recall(&store, q::RecallParams { name: Some("c.c".into()), ..at("v0.1") }).unwrap();
    assert!(!found && absent.contains("no file `c.py` at"), "{absent}");
    // A diff of a file between revisions.
    let (diff, _) =
        check_recall(&store, q::RecallParams { path: Some("c.py".into()), vs: Some("v0.1".into()), ..at("main") })
            .unwrap();
    assert!(diff.contains("(+2 −0 lines)") && diff.contains("\n+def c():\n"), "{diff}");
    // A search of an older tree.
    let (search, _) = check_recall(&store, q::RecallParams { pattern: Some("def ".into()), ..at("v0.1") }).unwrap();
    assert!(search.contains("1 matching lines in 1 files\na.py\n1:def a():"), "{search}");
    // Revision forms: a prefix, `~n`, `^n`, a date, a reflog date.
    for spec in [&v01[..6], "main~2", "~2", "HEAD^1^1", "2024-01-01T00:01:30Z", "main@{2024-01-01T00:00:30Z}"] {
        let (text, _) = check_recall(&store, q::RecallParams { path: Some("a.py".into()), ..at(spec) }).unwrap();
        assert!(text.contains(&format!("at {v01} ")), "{spec}: {text}");
    }
}

#[test]
fn recall_refuses_bad_revisions_and_paths_out_of_the_tree() {
    let fx = repository();
    let mut store = Store::open(&fx.outside().join("g.drsg")).unwrap();
    index(&fx, &mut store);
    // Before the reflog begins, `<ref>@{<date>}` knows nothing (a plain date before history is an
    // error too).
    let err =
        check_recall(&store, q::RecallParams { path: Some("a.py".into()), ..at("main@{2020-01-01}") }).unwrap_err();
    assert!(
        err.to_string().starts_with("`main@{2020-01-01}`: the reflog of main only goes back to 2024-01-01"),
        "{err}"
    );
    let err = check_recall(&store, q::RecallParams { path: Some("a.py".into()), ..at("no-such-rev") }).unwrap_err();
    assert!(err.to_string().starts_with("unknown revision `no-such-rev`; accepted: a full sha"), "{err}");
    for path in ["../secret", "/etc/passwd", ".git/config"] {
        let err = check_recall(&store, q::RecallParams { path: Some(path.into()), ..at("main") }).unwrap_err();
        assert!(
            matches!(err, q::Error::File(q::FileError::Escapes { .. } | q::FileError::GitDir { .. })),
            "{path}: {err}"
        );
    }
    let err = check_recall(&store, q::RecallParams { pattern: Some("x".into()), name: Some("a".into()), ..at("main") });
    assert!(err.unwrap_err().to_string().starts_with("give one of `name`"));
}

#[test]
fn an_octopus_merge_keeps_every_parent_in_order() {
    let fx = Fixture::inline("//- /a.py\ndef a():\n    pass\n");
    let mut branches = Vec::new();
    for i in 0..8 {
        let name = format!("topic{i}");
        fx.git(&["checkout", "-q", "-b", &name, "main"]);
        fx.write(&format!("t{i}.py"), &format!("def t{i}():\n    pass\n"));
        fx.commit_all(&name);
        branches.push(name);
    }
    fx.git(&["checkout", "-q", "main"]);
    let mut args = vec!["merge", "-q", "--no-ff", "-m", "octopus"];
    args.extend(branches.iter().map(String::as_str));
    fx.git(&args);
    let mut store = Store::open(&fx.outside().join("g.drsg")).unwrap();
    let report = index(&fx, &mut store);
    assert_eq!(report.files, 9);
    let plane = store.plane("repo_git").unwrap().unwrap();
    // `Merge` is a second label; the primary one is `Commit`.
    let merge = store
        .nodes_by_label(plane.id, "Commit")
        .unwrap()
        .into_iter()
        .find(|c| c.labels.iter().any(|l| l == "Merge"))
        .unwrap();
    let mut parents: Vec<(u64, String)> = store
        .edges_out(merge.id, Some("PARENT"))
        .unwrap()
        .iter()
        .map(|e| {
            (
                e.props["order"].as_u64().unwrap(),
                store.node(e.dst).unwrap().unwrap().props["summary"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    parents.sort();
    let summaries: Vec<&str> = parents.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(summaries, ["initial", "topic0", "topic1", "topic2", "topic3", "topic4", "topic5", "topic6", "topic7"]);
    // (The merge carries the fixture's default date, older than the topics: it is listed last.)
    let (text, _) = check_history(&store, Some(10));
    assert!(text.contains("  octopus  (merge)"), "{text}");
}

#[test]
fn recall_tells_trait_impls_of_one_method_apart() {
    let spec = "//- /Cargo.toml\n[package]\nname = \"demo\"\nversion = \"0.1.0\"\n//- /src/lib.rs\npub struct X;\npub trait A {\n    fn f(&self) -> u8;\n}\npub trait B {\n    fn f(&self) -> u8;\n}\nimpl A for X {\n    fn f(&self) -> u8 {\n        1\n    }\n}\nimpl B for X {\n    fn f(&self) -> u8 {\n        2\n    }\n}\n";
    let fx = Fixture::inline(spec);
    let mut store = Store::open(&fx.outside().join("g.drsg")).unwrap();
    index(&fx, &mut store);
    let (a, _) =
        check_recall(&store, q::RecallParams { name: Some("<demo::X as demo::A>::f".into()), ..at("HEAD") }).unwrap();
    assert!(a.contains("        1\n") && !a.contains("        2\n"), "{a}");
    let (b, _) =
        check_recall(&store, q::RecallParams { name: Some("<demo::X as demo::B>::f".into()), ..at("HEAD") }).unwrap();
    assert!(b.contains("        2\n") && !b.contains("        1\n"), "{b}");
}

#[test]
fn recall_tells_a_module_from_a_function_of_its_name() {
    // The module keeps the path (its items are keyed below it); the function of the same name is `#2`.
    let spec = "//- /Cargo.toml\n[package]\nname = \"k\"\nversion = \"0.1.0\"\n//- /src/lib.rs\nmod search {\n    pub fn run() {}\n}\npub fn search() {\n    search::run();\n}\n";
    let fx = Fixture::inline(spec);
    let mut store = Store::open(&fx.outside().join("g.drsg")).unwrap();
    index(&fx, &mut store);
    let (function, _) =
        check_recall(&store, q::RecallParams { name: Some("k::search#2".into()), ..at("HEAD") }).unwrap();
    assert!(function.contains("pub fn search() {") && !function.contains("mod search"), "{function}");
    let (module, _) = check_recall(&store, q::RecallParams { name: Some("k::search".into()), ..at("HEAD") }).unwrap();
    assert!(module.contains("mod search {") && !module.contains("pub fn search()"), "{module}");
    let (by_call, _) = check_recall(&store, q::RecallParams { name: Some("search()".into()), ..at("HEAD") }).unwrap();
    assert_eq!(by_call, function);
}
