//! A plane's life cycle through `sync`: in sync, refs moved, folded, rebuilt after rewritten history;
//! a tree indexed only when it has no plane; a rebuild with the recorded options.
#![allow(clippy::unwrap_used, reason = "a failed unwrap is a failed test, with its value shown")]

use drsg_indexer::sync::{Synced, Tracked, index_if_missing, rebuild, sync};
use drsg_indexer::{FactsCache, FoldError, IndexOptions, Silent};
use drsg_planes::Store;
use drsg_testdata::Fixture;

use crate::plane_lines;

fn tracked(store: &Store) -> Tracked {
    Tracked::read(store, "repo", Some("test")).unwrap()
}

#[test]
fn sync_folds_refreshes_history_and_rebuilds_after_rewritten_history() {
    let fx = Fixture::inline("//- /a.py\ndef a():\n    pass\n//- /b.py\ndef b():\n    return a()\n");
    let registry = drsg_plugins::builtin();
    let root = fx.path().canonicalize().unwrap();
    let options = IndexOptions { max_commits: Some(50), ..IndexOptions::default() };
    let mut store = Store::in_memory().unwrap();
    let (plane, indexed) = index_if_missing(&mut store, &registry, &root, &options, &Silent).unwrap();
    assert_eq!((plane.as_str(), indexed.is_some()), ("repo", true));
    // A tree with a plane is not indexed again.
    let (_, again) = index_if_missing(&mut store, &registry, &root, &options, &Silent).unwrap();
    assert!(again.is_none());
    let cache = FactsCache::default();

    let head = fx.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let plane = tracked(&store);
    match sync(&mut store, &registry, &plane, &cache, false).unwrap() {
        Synced::InSync { commit } => assert_eq!(commit, head),
        other => panic!("{other:?}"),
    }
    fx.git(&["tag", "v1"]);
    let plane = tracked(&store);
    match sync(&mut store, &registry, &plane, &cache, true).unwrap() {
        Synced::RefsMoved { commit, history } => assert_eq!((commit, history.tags), (head.clone(), 1)),
        other => panic!("{other:?}"),
    }

    fx.write("c.py", "def c():\n    return b()\n");
    fx.commit_all("c");
    let plane = tracked(&store);
    match sync(&mut store, &registry, &plane, &cache, true).unwrap() {
        Synced::Folded(report) => assert_eq!((report.files, report.files_parsed), (3, 1)),
        other => panic!("{other:?}"),
    }

    // History rewritten: the plane's commit is gone from the repository; the plane is built again from
    // HEAD with the options it recorded.
    fx.git(&["checkout", "-q", "--orphan", "fresh"]);
    fx.commit_all("rewritten");
    fx.git(&["branch", "-D", "-q", "main"]);
    fx.git(&["tag", "-d", "v1"]);
    fx.git(&["reflog", "expire", "--expire=now", "--all"]);
    fx.git(&["gc", "-q", "--prune=now"]);
    let tracked = tracked(&store);
    assert_eq!(tracked.options.max_commits, Some(50));
    match sync(&mut store, &registry, &tracked, &cache, true).unwrap() {
        Synced::Rebuilt { why, report } => {
            assert!(why.contains("is not in the repository"), "{why}");
            assert_eq!(report.synced_commit.as_deref(), Some(fx.git(&["rev-parse", "HEAD"]).trim()));
        }
        other => panic!("{other:?}"),
    }
    let mut fresh = Store::in_memory().unwrap();
    let options = IndexOptions { source: Some("test".into()), ..options };
    drsg_indexer::index_tree(&root, &registry, &mut fresh, &options, &Silent).unwrap();
    assert_eq!(plane_lines(&store, "repo"), plane_lines(&fresh, "repo"));
}

#[test]
fn rebuild_reads_the_plane_again_with_its_options_and_refuses_other_planes() {
    let fx = Fixture::inline("//- /a.py\ndef a():\n    pass\n");
    let registry = drsg_plugins::builtin();
    let root = fx.path().canonicalize().unwrap();
    let mut store = Store::in_memory().unwrap();
    let options = IndexOptions { max_file_size: 4096, ..IndexOptions::default() };
    drsg_indexer::index_tree(&root, &registry, &mut store, &options, &Silent).unwrap();
    fx.write("big.py", &format!("X = '{}'\n", "x".repeat(5000)));
    fx.commit_all("big");
    let report = rebuild(&mut store, &registry, "repo", "test", &Silent).unwrap();
    // The size limit the plane was built with still holds.
    assert_eq!((report.plane.as_str(), report.files), ("repo", 1), "{report:?}");
    assert_eq!(report.skipped.get("too_large"), Some(&1), "{report:?}");
    assert!(matches!(rebuild(&mut store, &registry, "repo_git", "test", &Silent), Err(FoldError::NotCode(_))));
    assert!(matches!(rebuild(&mut store, &registry, "nope", "test", &Silent), Err(FoldError::UnknownPlane(_))));
}
