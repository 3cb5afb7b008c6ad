//! Crash safety of the fold: a real `drsg fold` child process killed at random points leaves the plane
//! exactly at the previous commit or at the new one (never between), and the next fold completes.
#![allow(clippy::unwrap_used, reason = "a failed unwrap is a failed test, with its value shown")]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use drsg_testdata::Fixture;

use crate::cli::drsg;

const KILLS: usize = 50;

/// The plane as sorted JSON lines (nodes and edges) with its synced commit.
fn dump(db: &Path, cwd: &Path) -> (String, Vec<String>) {
    let planes = drsg(db, &["planes", "--json"], cwd);
    assert!(planes.status.success(), "drsg planes: {}", String::from_utf8_lossy(&planes.stderr));
    let planes: serde_json::Value = serde_json::from_slice(&planes.stdout).unwrap();
    let commit = planes["planes"].as_array().unwrap().iter().find(|p| p["name"] == "repo").unwrap()["synced_commit"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = drsg(
        db,
        &[
            "export",
            "--plane",
            "repo",
            "--nodes",
            "--edges",
            "CONTAINS,HAS_METHOD,CALLS,REFERENCES,IMPORTS,IMPLEMENTS,EXTENDS,INSTANTIATES",
        ],
        cwd,
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut lines: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(str::to_owned).collect();
    lines.sort();
    (commit, lines)
}

/// The next number of a xorshift sequence (the kill points: random, and the same on every run).
fn next(rng: &mut u64) -> u64 {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    *rng
}

/// Starts `drsg --db DB ARGS…` in `cwd` and kills it after `delay` (if it is still running).
fn run_killed(db: &Path, args: &[&str], cwd: &Path, delay: Duration) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_drsg"))
        .arg("--db")
        .arg(db)
        .args(args)
        .current_dir(cwd)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let _ = child.kill();
    let _ = child.wait();
}

/// A repository whose second commit touches many files, so a fold takes long enough to be cut.
fn repository() -> (Fixture, String, String) {
    let mut spec = String::from("//- /pkg/__init__.py\n");
    for i in 0..60 {
        spec.push_str(&format!(
            "//- /pkg/m{i}.py\nfrom pkg.m{} import f{}\n\n\ndef f{i}(x):\n    return f{}(x)\n",
            (i + 1) % 60,
            (i + 1) % 60,
            (i + 1) % 60
        ));
    }
    let fx = Fixture::inline(&spec);
    let a = fx.git(&["rev-parse", "HEAD"]).trim().to_owned();
    for i in 0..60 {
        fx.write(
            &format!("pkg/m{i}.py"),
            &format!("def g{i}(x):\n    return x\n\n\ndef f{i}(x):\n    return g{i}(x)\n"),
        );
    }
    let b = fx.commit_all("rewrite every module");
    (fx, a, b)
}

#[test]
fn a_fold_killed_at_any_point_leaves_the_previous_plane_and_the_next_fold_resumes() {
    let (fx, a, b) = repository();
    let cwd = fx.outside();
    // Reference planes: fresh indexes at A and at B.
    let reference = |rev: &str, name: &str| {
        fx.git(&["checkout", "-q", rev]);
        let db = cwd.join(name);
        assert!(drsg(&db, &["index", fx.path().to_str().unwrap()], cwd).status.success());
        dump(&db, cwd)
    };
    let at_a = reference(&a, "a.drsg");
    let at_b = reference(&b, "b.drsg");
    fx.git(&["checkout", "-q", "main"]);
    assert_ne!(at_a, at_b);

    let db = cwd.join("crash.drsg");
    assert!(drsg(&db, &["index", fx.path().to_str().unwrap()], cwd).status.success());
    // How long an uninterrupted fold takes, to spread the kills over it.
    assert!(drsg(&db, &["fold", "--to", &a], cwd).status.success());
    let started = Instant::now();
    assert!(drsg(&db, &["fold", "--to", &b], cwd).status.success());
    let span = started.elapsed().as_micros().max(1000) as u64;

    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let (mut left_at_a, mut left_at_b) = (0, 0);
    for kill in 0..KILLS {
        assert!(drsg(&db, &["fold", "--to", &a], cwd).status.success(), "kill {kill}: reset to A");
        let delay = Duration::from_micros(next(&mut rng) % (span + span / 5));
        run_killed(&db, &["fold", "--to", &b], cwd, delay);
        let state = dump(&db, cwd);
        if state == at_a {
            left_at_a += 1;
        } else if state == at_b {
            left_at_b += 1;
        } else {
            panic!(
                "kill {kill} after {delay:?}: the plane is neither the previous nor the new commit's (synced {})",
                state.0
            );
        }
        // The next fold finishes the job.
        assert!(drsg(&db, &["fold"], cwd).status.success());
        assert_eq!(dump(&db, cwd), at_b, "kill {kill}: the next fold did not resume");
    }
    // Both outcomes happened, so the kills did land before and after the commit point.
    assert!(left_at_a > 0 && left_at_b > 0, "kills left the plane at A {left_at_a} times and at B {left_at_b} times");
}

/// Kills of a first index into a new database.
const FIRST_INDEX_KILLS: usize = 20;

#[test]
fn a_first_index_killed_at_any_point_leaves_a_database_that_the_next_index_completes() {
    // A first write into an empty database goes through a rollback journal rather than the log: a kill
    // must leave either no plane or the whole plane, never a damaged file.
    let (fx, _, _) = repository();
    let cwd = fx.outside();
    let tree = fx.path().to_str().unwrap().to_owned();
    let reference_db = cwd.join("first.drsg");
    let started = Instant::now();
    assert!(drsg(&reference_db, &["index", &tree], cwd).status.success());
    let span = started.elapsed().as_micros().max(1000) as u64;
    let reference = dump(&reference_db, cwd);

    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let (mut empty, mut whole) = (0, 0);
    for kill in 0..FIRST_INDEX_KILLS {
        let db = cwd.join(format!("first-{kill}.drsg"));
        let delay = Duration::from_micros(next(&mut rng) % span);
        run_killed(&db, &["index", &tree], cwd, delay);
        // `drsg planes` lists what is there (exit 1 when nothing), or says there is no database yet.
        let planes = drsg(&db, &["planes", "--json"], cwd);
        if let Ok(listed) = serde_json::from_slice::<serde_json::Value>(&planes.stdout) {
            let has_code = listed["planes"].as_array().unwrap().iter().any(|p| p["name"] == "repo");
            if has_code {
                assert_eq!(dump(&db, cwd), reference, "kill {kill} after {delay:?}: a partial plane");
                whole += 1;
            } else {
                empty += 1;
            }
        } else {
            // Killed before the database file was made.
            let stderr = String::from_utf8_lossy(&planes.stderr);
            assert!(stderr.contains("no drsg database"), "kill {kill} after {delay:?}: {stderr}");
            empty += 1;
        }
        assert!(drsg(&db, &["index", &tree], cwd).status.success(), "kill {kill}: the next index failed");
        assert_eq!(dump(&db, cwd), reference, "kill {kill}: the next index differs");
    }
    assert!(empty > 0, "no kill landed before the commit ({whole} after it)");
}
