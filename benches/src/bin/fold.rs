//! Fold benchmark, in process: on a repository prepared by `benches/fold.sh` (a corpus committed as
//! tag `base`, then tags `n1`, `n10`, `n100` each adding a function to that many files on top of `base`,
//! and `e1` editing one file without changing its definitions), prints
//! the median time of a fold from `base` to each (facts of unchanged files reused), a branch switch
//! back and forth, and the time from a commit to the watch loop having folded it.
//!
//!     fold REPO DB [RUNS [TARGETS]]
//!
//! With `TARGETS` (comma-separated tags, e.g. `n1`), only those warm folds run: a mode for profilers.
#![allow(clippy::print_stdout, reason = "a benchmark prints its figures")]

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use drsg_indexer::{FactsCache, IndexOptions, Silent, fold, index_tree};
use drsg_planes::Store;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn git(repo: &PathBuf, args: &[&str]) {
    let status = Command::new("git").args(args).current_dir(repo).status().expect("run git");
    assert!(status.success(), "git {args:?}");
}

fn main() {
    let mut args = std::env::args().skip(1);
    let repo = PathBuf::from(args.next().expect("usage: fold REPO DB [RUNS]"));
    let db = PathBuf::from(args.next().expect("usage: fold REPO DB [RUNS]"));
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5);
    let only: Option<Vec<String>> = args.next().map(|t| t.split(',').map(str::to_owned).collect());
    let registry = drsg_plugins::builtin();
    let _ = std::fs::remove_dir_all(&db);
    let mut store = Store::open(&db).expect("open the database");
    git(&repo, &["checkout", "-q", "base"]);
    let t = Instant::now();
    let report = index_tree(&repo, &registry, &mut store, &IndexOptions::default(), &Silent).expect("index");
    println!("index of base: {} files in {:.2} s", report.files, t.elapsed().as_secs_f64());
    let plane = report.plane.clone();
    let cache = FactsCache::default();
    let opts = IndexOptions::default();
    // Warm the cache: every file of base and of each target parsed once.
    for rev in ["n100", "n10", "n1", "e1", "base"] {
        fold(&mut store, &registry, &plane, Some(rev), &opts, &cache, &Silent).expect("fold");
    }
    println!("{:<28} {:>10} {:>10} {:>8} {:>8}", "fold", "median ms", "min ms", "parsed", "reused");
    let targets: Vec<String> = only.clone().unwrap_or_else(|| ["e1", "n1", "n10", "n100"].map(str::to_owned).to_vec());
    for target in targets.iter().map(String::as_str) {
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..runs {
            let r = fold(&mut store, &registry, &plane, Some(target), &opts, &cache, &Silent).expect("fold");
            times.push(r.millis as f64);
            last = Some(r);
            fold(&mut store, &registry, &plane, Some("base"), &opts, &cache, &Silent).expect("fold back");
        }
        let last = last.expect("at least one run");
        let phases: Vec<String> = last.phases.iter().map(|(k, v)| format!("{k} {:.1} ms", v * 1000.0)).collect();
        println!(
            "    where the time goes: {} · {} of {} files resolved again{}{}",
            phases.join(", "),
            last.files_resolved,
            last.files,
            if last.table_rebuilt { "" } else { " · symbol table kept" },
            if last.whole { " · written whole" } else { "" }
        );
        let min = times.iter().copied().fold(f64::MAX, f64::min);
        println!(
            "{:<28} {:>10.0} {:>10.0} {:>8} {:>8}",
            format!("base → {target} (cache warm)"),
            median(times),
            min,
            last.files_parsed,
            last.files_reused
        );
    }
    if only.is_some() {
        return;
    }
    // A first fold with an empty cache (a fresh `drsg fold` process) reads the state the folds before
    // kept beside the plane.
    let cold = FactsCache::default();
    let r = fold(&mut store, &registry, &plane, Some("n1"), &opts, &cold, &Silent).expect("fold");
    println!(
        "{:<28} {:>10} {:>10} {:>8} {:>8}",
        format!("base → n1 (new process: state {})", r.state_from),
        r.millis,
        "",
        r.files_parsed,
        r.files_reused
    );
    fold(&mut store, &registry, &plane, Some("base"), &opts, &cache, &Silent).expect("fold back");

    // Commit to folded: the watch loop on its own thread, a real `git commit`, the log line.
    git(&repo, &["checkout", "-q", "-B", "bench", "base"]);
    fold(&mut store, &registry, &plane, None, &opts, &cache, &Silent).expect("sync");
    drop(store);
    let (tx, rx) = channel::<String>();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let loop_db = db.clone();
    let loop_plane = plane.clone();
    let watcher = std::thread::spawn(move || {
        let store = drsg_planes::SharedStore::single(Store::open(&loop_db).expect("open"));
        let registry = drsg_plugins::builtin();
        drsg::watching::watch_plane(&store, &registry, &loop_plane, drsg_watch::Mode::Events, &flag, &mut |line| {
            let _ = tx.send(line.to_owned());
        })
        .expect("watch");
    });
    let wait = |needle: &str| loop {
        let line = rx.recv_timeout(Duration::from_secs(120)).expect("the watch loop logs");
        if line.contains(needle) {
            break;
        }
    };
    wait("watching");
    let mut latencies = Vec::new();
    for i in 0..runs {
        let file = repo.join(format!("drsg_bench_{i}.py"));
        std::fs::write(&file, format!("def bench_{i}():\n    return {i}\n")).expect("write");
        git(&repo, &["add", "-A"]);
        let t = Instant::now();
        git(&repo, &["-c", "user.name=bench", "-c", "user.email=bench@drsg.invalid", "commit", "-q", "-m", "bench"]);
        wait("folded");
        latencies.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    stop.store(true, Ordering::Relaxed);
    let _ = watcher.join();
    println!(
        "commit → folded by the watch loop: median {:.0} ms over {runs} commits (1 new file each)",
        median(latencies)
    );
    git(&repo, &["checkout", "-q", "base"]);
}
