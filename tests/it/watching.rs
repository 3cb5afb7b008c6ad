//! The watch loop in process: it reconciles on start, folds on every HEAD move (commit, branch
//! switch, switch back), and stops when asked.
#![allow(clippy::unwrap_used, reason = "a failed unwrap is a failed test, with its value shown")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use drsg_planes::Store;
use drsg_testdata::Fixture;
use drsg_watch::Mode;

const APP: &str = "//- /a.py\ndef a():\n    pass\n//- /b.py\nfrom a import a\n\ndef b():\n    return a()\n";

fn index(fx: &Fixture, db: &std::path::Path) {
    let mut store = Store::open(db).unwrap();
    let options = drsg_indexer::IndexOptions::default();
    drsg_indexer::index_tree(fx.path(), &drsg_plugins::builtin(), &mut store, &options, &drsg_indexer::Silent).unwrap();
}

/// Runs the loop on a thread; returns its log lines, the stop flag and the thread (which hands the
/// store back).
fn start(db: &std::path::Path, mode: Mode) -> (Receiver<String>, Arc<AtomicBool>, std::thread::JoinHandle<Store>) {
    let (tx, rx) = channel();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let db = db.to_path_buf();
    let thread = std::thread::spawn(move || {
        let store = drsg_planes::SharedStore::single(Store::open(&db).unwrap());
        let registry = drsg_plugins::builtin();
        drsg::watching::watch_plane(&store, &registry, "repo", mode, &flag, &mut |line| {
            let _ = tx.send(line.to_owned());
        })
        .unwrap();
        store.into_inner()
    });
    (rx, stop, thread)
}

/// Waits for a log line containing `needle`; returns every line seen until then.
fn wait_for(rx: &Receiver<String>, needle: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(100)) {
            let hit = line.contains(needle);
            seen.push(line);
            if hit {
                return seen;
            }
        }
    }
    panic!("no log line with `{needle}` within 20 s; saw {seen:#?}");
}

fn short(fx: &Fixture, rev: &str) -> String {
    fx.git(&["rev-parse", "--short=12", rev]).trim().to_owned()
}

/// Node keys and edge count of the plane against a fresh index of HEAD (the fold's own property test
/// compares every property).
fn assert_matches_fresh(store: &Store, fx: &Fixture) {
    let mut fresh = Store::in_memory().unwrap();
    let options = drsg_indexer::IndexOptions::default();
    drsg_indexer::index_tree(fx.path(), &drsg_plugins::builtin(), &mut fresh, &options, &drsg_indexer::Silent).unwrap();
    let summary = |s: &Store| {
        let p = s.plane("repo").unwrap().unwrap();
        let mut keys: Vec<String> = s.nodes(p.id).unwrap().into_iter().map(|n| n.key).collect();
        keys.sort();
        (p.meta.synced_commit, keys, p.edge_count)
    };
    assert_eq!(summary(store), summary(&fresh));
}

#[test]
fn the_loop_folds_every_head_move_and_stops_cleanly() {
    for mode in [Mode::Events, Mode::Poll(Duration::from_millis(50))] {
        let fx = Fixture::inline(APP);
        let db = fx.outside().join("w.drsg");
        index(&fx, &db);
        let (rx, stop, thread) = start(&db, mode);
        wait_for(&rx, "in sync at");
        let start = wait_for(&rx, "watching");
        // The index kept the files' facts beside the plane: none is parsed again.
        let kept = "state of 2 files read from the records kept beside the plane (0 parsed)";
        assert!(start.iter().any(|l| l == kept), "{start:?}");
        fx.write("c.py", "def c():\n    pass\n");
        fx.commit_all("add c");
        let lines = wait_for(&rx, &format!(" to {} in ", short(&fx, "HEAD")));
        // The loop built the synced tree's state at start: the first fold parses and resolves the new file only.
        assert!(lines.last().unwrap().contains(": 1 files parsed, 2 reused, 1 of 3 resolved ·"), "{mode:?} {lines:?}");
        fx.git(&["checkout", "-q", "-b", "other", "HEAD~1"]);
        fx.write("d.py", "def d():\n    pass\n");
        fx.commit_all("add d");
        // The checkout and the commit may be folded one by one or together.
        wait_for(&rx, &format!(" to {} in ", short(&fx, "HEAD")));
        fx.git(&["checkout", "-q", "main"]);
        let lines = wait_for(&rx, &format!(" to {} in ", short(&fx, "main")));
        // Back on main: every file's facts are already known.
        assert!(lines.last().unwrap().contains(": 0 files parsed, 3 reused"), "{mode:?} {lines:?}");
        // A tag moves no commit: only the history is refreshed.
        fx.git(&["tag", "v1"]);
        // (Late events of the checkout may refresh it once more before the tag exists.)
        let lines = wait_for(&rx, "1 tags)");
        assert!(lines.last().unwrap().ends_with("history refreshed (2 branches, 1 tags)"), "{lines:?}");
        // With nothing moving the loop stays quiet: its own reads of HEAD are no events (they once
        // woke it, refreshing the history several times a second).
        let until = Instant::now() + Duration::from_secs(2);
        let mut late = Vec::new();
        while Instant::now() < until {
            late.extend(rx.recv_timeout(Duration::from_millis(100)).ok());
        }
        assert!(late.len() <= 1, "{mode:?}: the loop kept waking with nothing moving: {late:?}");
        stop.store(true, Ordering::Relaxed);
        let store = thread.join().unwrap();
        wait_for(&rx, "stopped");
        assert_matches_fresh(&store, &fx);
    }
}

#[test]
fn on_start_the_loop_folds_the_gap_or_rebuilds_after_rewritten_history() {
    let fx = Fixture::inline(APP);
    let db = fx.outside().join("w.drsg");
    index(&fx, &db);
    // Commits made while nothing watched: the gap is folded at start.
    fx.write("c.py", "def c():\n    pass\n");
    fx.commit_all("add c");
    let (rx, stop, thread) = start(&db, Mode::Events);
    wait_for(&rx, &format!(" to {} in ", short(&fx, "HEAD")));
    stop.store(true, Ordering::Relaxed);
    let store = thread.join().unwrap();
    assert_matches_fresh(&store, &fx);
    drop(store);
    // History rewritten and the old commit gone: the plane is rebuilt, and the log says so.
    fx.write("c.py", "def c2():\n    pass\n");
    fx.git(&["add", "-A"]);
    fx.git(&["commit", "-q", "--amend", "-m", "rewritten"]);
    fx.git(&["reflog", "expire", "--expire=now", "--all"]);
    fx.git(&["gc", "-q", "--prune=now"]);
    let (rx, stop, thread) = start(&db, Mode::Events);
    let lines = wait_for(&rx, "rebuilt from HEAD");
    assert!(lines.last().unwrap().contains("is not in the repository (history rewritten?)"), "{lines:?}");
    stop.store(true, Ordering::Relaxed);
    let store = thread.join().unwrap();
    assert_matches_fresh(&store, &fx);
}

/// A commit made after the start-up reconciliation and before the loop watches (while it warms up)
/// is folded, not missed until the next move.
#[test]
fn a_commit_made_while_the_loop_starts_is_folded() {
    let fx = Fixture::inline(APP);
    let db = fx.outside().join("w.drsg");
    index(&fx, &db);
    let (tx, rx) = channel();
    let stop = Arc::new(AtomicBool::new(false));
    let (flag, repo) = (Arc::clone(&stop), fx.path().to_path_buf());
    let thread = std::thread::spawn(move || {
        let store = drsg_planes::SharedStore::single(Store::open(&db).unwrap());
        let registry = drsg_plugins::builtin();
        let mut committed = false;
        drsg::watching::watch_plane(&store, &registry, "repo", Mode::Events, &flag, &mut |line| {
            if line.starts_with("in sync at") && !committed {
                committed = true;
                std::fs::write(repo.join("late.py"), "def late():\n    pass\n").unwrap();
                let git = |args: &[&str]| {
                    let ok = std::process::Command::new("git").args(args).current_dir(&repo).status().unwrap();
                    assert!(ok.success(), "git {args:?}");
                };
                git(&["add", "-A"]);
                git(&["-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-qm", "late"]);
            }
            let _ = tx.send(line.to_owned());
        })
        .unwrap();
        store.into_inner()
    });
    wait_for(&rx, "watching");
    wait_for(&rx, &format!(" to {} in ", short(&fx, "HEAD")));
    stop.store(true, Ordering::Relaxed);
    let store = thread.join().unwrap();
    assert_matches_fresh(&store, &fx);
}
