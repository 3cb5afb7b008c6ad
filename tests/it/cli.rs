//! The `drsg` binary end to end: index a real git fixture, read it back, and the bad-input paths.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use drsg_testdata::Fixture;

pub(crate) fn drsg(db: &Path, args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_drsg"))
        .arg("--db")
        .arg(db)
        .args(args)
        .current_dir(cwd)
        .env_remove("DRSG_DB")
        .output()
        .expect("run drsg")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const APP: &str = r#"
//- commit: first
//- /Cargo.toml
[package]
name = "tiny-app"
version = "0.1.0"
edition = "2021"
//- /src/main.rs
mod greet;

fn main() {
    greet::hello();
}
//- /src/greet.rs
pub fn hello() {
    println!("hi");
}
"#;

#[test]
fn index_then_planes_schema_and_export() {
    let fx = Fixture::inline(APP);
    let head = fx.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let db = fx.outside().join("graph.drsg");
    let out = drsg(&db, &["index", fx.path().to_str().expect("utf-8 path")], fx.outside());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary = text(&out.stdout);
    assert!(summary.starts_with("indexed repo: 2 files (rust 2)"), "{summary}");
    assert!(summary.contains("call sites 2: resolved 1 (50.0 %), external 1 (50.0 %), unresolved 0"), "{summary}");
    assert!(summary.contains(&format!("synced: commit {}", &head[..12])), "{summary}");

    let planes = drsg(&db, &["planes"], fx.outside());
    assert!(text(&planes.stdout).starts_with("repo  code  "), "{}", text(&planes.stdout));

    let schema = drsg(&db, &["schema"], fx.outside());
    let schema = text(&schema.stdout);
    assert!(schema.contains("CALLS  Function → Function  1"), "{schema}");
    assert!(schema.contains("key prefixes in use:\n  tiny_app  "), "{schema}");

    let export = drsg(&db, &["export", "--edges", "CALLS"], fx.outside());
    assert!(export.status.success());
    let lines: Vec<serde_json::Value> =
        text(&export.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
    assert_eq!(lines.len(), 2, "two call edges");
    let call = lines.iter().find(|l| l["dst"]["key"] == "tiny_app::greet::hello").expect("main calls hello");
    assert_eq!(call["type"], "CALLS");
    assert_eq!(call["src"]["key"], "tiny_app::main");
    assert_eq!(call["src"]["file"], "src/main.rs");
    assert_eq!(call["site_line"], 4);
    assert_eq!(call["ref"], "greet::hello", "the text as written");
    assert_eq!(call["resolved_by"], "path");
    assert_eq!(call["confidence"], "high");
    assert_eq!(call["dst"]["labels"], serde_json::json!(["Function"]));
    let external = lines.iter().find(|l| l["dst"]["key"] == "ext::std::println!").expect("println is external");
    assert_eq!(external["dst"]["labels"], serde_json::json!(["External"]));

    let nodes = drsg(&db, &["export", "--nodes"], fx.outside());
    let first: serde_json::Value =
        serde_json::from_str(text(&nodes.stdout).lines().next().expect("a node")).expect("JSON");
    for field in ["key", "labels", "file", "line", "end_line"] {
        assert!(first.get(field).is_some(), "node line lacks {field}: {first}");
    }
    // Node properties too: an export holds the whole plane.
    let hello = text(&nodes.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
        .find(|n| n["key"] == "tiny_app::greet::hello")
        .expect("hello is exported");
    assert_eq!(hello["props"]["signature"], "pub fn hello()");
    assert_eq!(hello["props"]["visibility"], "public");
}

#[test]
fn exit_codes_and_bad_arguments() {
    let fx = Fixture::inline(APP);
    let db = fx.outside().join("graph.drsg");
    // No database yet: reading verbs refuse to create one.
    let out = drsg(&db, &["planes"], fx.outside());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("run `drsg index` or `drsg init` first"), "{}", text(&out.stderr));
    assert!(!db.exists(), "a read must not create the database");
    // Nor do the writes that need a plane.
    for write in [&["fold"][..], &["rebuild"]] {
        let out = drsg(&db, write, fx.outside());
        assert_eq!(out.status.code(), Some(2), "{write:?}");
        assert!(text(&out.stderr).contains("no drsg database at"), "{write:?}: {}", text(&out.stderr));
        assert!(!db.exists(), "`drsg {write:?}` must not create the database");
    }

    assert!(drsg(&db, &["index", "repo"], fx.outside()).status.success());
    let out = drsg(&db, &["export", "--edges", "CALS"], fx.outside());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown edge type `CALS`"), "{}", text(&out.stderr));
    let out = drsg(&db, &["schema", "--plane", "nope"], fx.outside());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no plane named `nope`; planes: repo"), "{}", text(&out.stderr));
}

#[test]
fn a_missing_tree_is_refused_before_any_database_is_made() {
    let fx = Fixture::inline(APP);
    let db = fx.outside().join("graph.drsg");
    let out = drsg(&db, &["index", "no-such-dir"], fx.outside());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read the tree at no-such-dir"), "{}", text(&out.stderr));
    let out = drsg(&db, &["index", "repo/Cargo.toml"], fx.outside());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not a directory"), "{}", text(&out.stderr));
    assert!(!db.exists(), "no database is created for a run that cannot start");
}

#[test]
fn a_db_path_that_is_a_file_is_refused_and_left_alone() {
    let fx = Fixture::inline(APP);
    let db = fx.outside().join("not-a-db");
    std::fs::write(&db, "precious").expect("write");
    let out = drsg(&db, &["index", "repo"], fx.outside());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is a file, not a drsg database directory"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&db).expect("read"), "precious");
}

#[test]
fn a_database_open_elsewhere_is_refused_and_stays_intact() {
    let fx = Fixture::inline(APP);
    let db = fx.outside().join("graph.drsg");
    assert!(drsg(&db, &["index", "repo"], fx.outside()).status.success());
    let before = text(&drsg(&db, &["export"], fx.outside()).stdout);
    let holder = drsg_planes::Store::open(&db).expect("hold the database");
    let out = drsg(&db, &["index", "repo"], fx.outside());
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("in use by another drsg process") && err.contains("drsg serve"), "{err}");
    drop(holder);
    assert_eq!(text(&drsg(&db, &["export"], fx.outside()).stdout), before);
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let fx = Fixture::inline(APP);
    let db = fx.outside().join("graph.drsg");
    assert!(drsg(&db, &["index", "repo"], fx.outside()).status.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_drsg"))
        .arg("--db")
        .arg(&db)
        .arg("export")
        .current_dir(fx.outside())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn verbs_from_the_command_line_with_exit_codes() {
    let fx = Fixture::inline(APP);
    let db = fx.outside().join("graph.drsg");
    let out = drsg(&db, &["index", fx.path().to_str().expect("utf-8 path")], fx.outside());
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Found: exit 0, plain text on a pipe (no colour codes).
    let context = drsg(&db, &["context", "hello"], fx.outside());
    assert_eq!(context.status.code(), Some(0), "{}", text(&context.stderr));
    let shown = text(&context.stdout);
    assert!(shown.starts_with("tiny_app::greet::hello  Function  src/greet.rs:1-3\n"), "{shown}");
    assert!(shown.contains("  tiny_app::main  Function  src/main.rs:3  line 4"), "{shown}");
    assert!(!shown.contains('\x1b'), "{shown}");
    // The JSON form of the same answer.
    let json = drsg(&db, &["context", "greet::hello", "--json"], fx.outside());
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON answer");
    assert_eq!(value["status"], "found");
    assert_eq!(value["callers"]["sites"], 1);
    // Nothing found: exit 1 with the nearest names.
    let miss = drsg(&db, &["context", "helo"], fx.outside());
    assert_eq!(miss.status.code(), Some(1));
    assert!(text(&miss.stdout).contains("nearest names:\n  tiny_app::greet::hello"), "{}", text(&miss.stdout));
    // Bad input: exit 2 and a sentence on stderr.
    let bad = drsg(&db, &["impact", "hello", "--depth", "9"], fx.outside());
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).starts_with("error: depth must be 1 to 6 (got 9)"), "{}", text(&bad.stderr));
    let escape = drsg(&db, &["snippet", "../graph.drsg/LOCK:1"], fx.outside());
    assert_eq!(escape.status.code(), Some(2));
    assert!(text(&escape.stderr).contains("is outside the tree"), "{}", text(&escape.stderr));
    // Every other verb answers from the command line.
    for args in [
        &["describe", "hello"][..],
        &["file", "src/main.rs"],
        &["search", "hello"],
        &["grep", "hello"],
        &["snippet", "hello"],
        &["trace", "main", "hello"],
        &["impact", "hello"],
        &["fathom", "hello"],
        &["node", "tiny_app::main"],
        &["traverse", "main", "--edge-type", "CALLS"],
    ] {
        let out = drsg(&db, args, fx.outside());
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}{}", text(&out.stdout), text(&out.stderr));
        assert!(text(&out.stdout).contains("tiny_app"), "{args:?}: {}", text(&out.stdout));
    }
}

#[test]
fn nothing_to_index_is_an_error_that_creates_nothing() {
    let fx = Fixture::inline("//- commit: docs only\n//- /README.md\n# nothing to parse\n");
    let db = fx.outside().join("graph.drsg");
    let out = drsg(&db, &["index", fx.path().to_str().expect("utf-8 path")], fx.outside());
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("nothing to index in") && err.contains("no Rust, TypeScript, JavaScript or Python file"),
        "{err}"
    );
    assert!(!db.exists(), "no database is left behind");
    // `watch` likewise: the sentence, exit 2, and no database.
    let out = drsg(&db, &["watch", "--dir", fx.path().to_str().expect("utf-8 path")], fx.outside());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nothing to index in"), "{}", text(&out.stderr));
    assert!(!db.exists(), "watch leaves no database behind");

    // An empty repository: said as such, by `index` and by `init`, and nothing is written.
    let empty = tempfile::tempdir().expect("a folder");
    let repo = empty.path().join("fresh");
    std::fs::create_dir(&repo).expect("mkdir");
    assert!(Command::new("git").args(["init", "-q"]).current_dir(&repo).status().expect("git").success());
    let out = drsg(&db, &["index", repo.to_str().expect("utf-8 path")], empty.path());
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("a git repository with no commits yet") && err.contains("commit first"), "{err}");
    assert!(!db.exists());
    let out = Command::new(env!("CARGO_BIN_EXE_drsg"))
        .arg("init")
        .current_dir(&repo)
        .env_remove("DRSG_DB")
        .output()
        .expect("init");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no commits yet"), "{err}");
    let left: Vec<String> = std::fs::read_dir(&repo)
        .expect("read")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, vec![".git".to_owned()], "init wrote nothing into the checkout");
}

#[test]
fn a_huge_file_let_through_a_raised_size_limit_is_read_in_part_within_a_memory_bound() {
    // 40 MB of Python: a syntax tree and its facts would take gigabytes; only the first 4 MiB are read.
    let fx = Fixture::new();
    let mut big = String::with_capacity(41_000_000);
    let mut i = 0u64;
    while big.len() < 40_000_000 {
        big.push_str(&format!("def f_{i}():\n    return g_{i}(1)\n\n"));
        i += 1;
    }
    fx.write("huge.py", &big);
    fx.write("small.py", "def small():\n    return 1\n");
    let db = fx.outside().join("g.drsg");
    let mut child = Command::new(env!("CARGO_BIN_EXE_drsg"))
        .arg("--db")
        .arg(&db)
        .args(["index", "--max-file-size", "100000000", "--json"])
        .arg(fx.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run drsg");
    // The child's peak resident memory, read while it runs.
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    while child.try_wait().expect("wait").is_none() {
        if let Ok(text) = std::fs::read_to_string(&status)
            && let Some(kb) =
                text.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        {
            peak_kb = peak_kb.max(kb);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    assert!(out.status.success());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let cut = &report["cut_files"];
    assert_eq!(cut.as_array().map(Vec::len), Some(1), "{cut}");
    assert_eq!(cut[0][0], "huge.py");
    assert!(cut[0][2].as_str().is_some_and(|why| why.starts_with("file larger than 4 MiB")), "{cut}");
    assert!(peak_kb < 700 * 1024, "peak resident memory {} MB", peak_kb / 1024);
    // A symbol beyond the cut is no plain miss: the answer names the file read in part.
    let last = format!("f_{}", i - 1);
    let miss = text(&drsg(&db, &["context", &last], fx.path()).stdout);
    assert!(miss.contains("it may lie in a part of a file that was not read: huge.py:"), "{miss}");
}

#[test]
fn small_bad_inputs_are_said() {
    // A file whose lines end with a lone carriage return is searched line by line.
    let fx = Fixture::inline("//- /seed.py\ndef seed():\n    pass\n");
    fx.write_bytes("cr.py", b"def a():\r    return 1\rdef b():\r    return 2\r");
    fx.commit_all("a file with carriage returns");
    let db = fx.outside().join("graph.drsg");
    assert!(drsg(&db, &["index", "."], fx.path()).status.success());
    let grep = text(&drsg(&db, &["grep", "return 2"], fx.path()).stdout);
    assert!(grep.contains("\n4:    return 2  ← cr.b\n"), "{grep}");
    let recall = text(&drsg(&db, &["recall", "HEAD", "--pattern", "return 2"], fx.path()).stdout);
    assert!(recall.contains("\n4:    return 2\n"), "{recall}");

    // A revision past a shallow clone's cut says so.
    fx.write("more.py", "def more():\n    pass\n");
    fx.commit_all("more");
    let clone = fx.outside().join("shallow");
    let url = format!("file://{}", fx.path().display());
    let mut git = Command::new("git");
    drsg_testdata::pin_git_env(&mut git);
    assert!(git.args(["clone", "-q", "--depth", "1", &url]).arg(&clone).status().expect("git").success());
    let shallow_db = fx.outside().join("shallow.drsg");
    assert!(drsg(&shallow_db, &["index", "."], &clone).status.success());
    let out = drsg(&shallow_db, &["recall", "HEAD~1", "--path", "seed.py"], &clone);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not in this shallow clone's history"), "{}", text(&out.stderr));

    // A submodule is a ledger entry.
    let sub = Fixture::inline("//- /lib.py\ndef lib():\n    pass\n");
    let sub_url = format!("file://{}", sub.path().display());
    let out = fx
        .command(&["-c", "protocol.file.allow=always", "submodule", "add", "-q", &sub_url, "vendor/lib"])
        .output()
        .expect("git submodule");
    assert!(out.status.success(), "{}", text(&out.stderr));
    fx.commit_all("a submodule");
    let out = drsg(&db, &["index", ".", "--json"], fx.path());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["skipped"]["submodule"], 1, "{report:#}");

    // A bare repository is said to be one.
    let bare = fx.outside().join("bare.git");
    let mut git = Command::new("git");
    drsg_testdata::pin_git_env(&mut git);
    assert!(git.args(["clone", "-q", "--bare"]).arg(fx.path()).arg(&bare).status().expect("git").success());
    let bare_db = fx.outside().join("bare.drsg");
    for args in [&["index", "."][..], &["watch", "--dir", "."][..]] {
        let out = drsg(&bare_db, args, &bare);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains("is a bare repository"), "{args:?}: {}", text(&out.stderr));
        assert!(!bare_db.exists(), "{args:?} leaves no database");
    }
}

/// Overwrites the loose object `id` of `fx`'s repository with bytes that are no object.
fn corrupt(fx: &Fixture, id: &str) {
    let path = fx.path().join(".git/objects").join(&id[..2]).join(&id[2..]);
    let mut perms = std::fs::metadata(&path).expect("a loose object").permissions();
    #[allow(clippy::permissions_set_readonly_false, reason = "a test's own file")]
    perms.set_readonly(false);
    std::fs::set_permissions(&path, perms).expect("writable");
    std::fs::write(&path, b"not an object").expect("overwrite");
}

#[test]
fn a_corrupt_head_commit_or_tree_is_an_error_that_changes_nothing() {
    for what in ["commit", "tree"] {
        let fx = Fixture::inline(APP);
        let db = fx.outside().join("graph.drsg");
        let out = drsg(&db, &["index", "."], fx.path());
        assert!(out.status.success(), "{}", text(&out.stderr));
        let before = text(&drsg(&db, &["planes"], fx.path()).stdout);
        fx.write("src/greet.rs", "pub fn hello() {}\n");
        fx.commit_all("second");
        let id = fx.git(&["rev-parse", if what == "commit" { "HEAD" } else { "HEAD^{tree}" }]).trim().to_owned();
        corrupt(&fx, &id);
        for command in ["index", "fold"] {
            let args: &[&str] = if command == "index" { &["index", "."] } else { &["fold"] };
            let out = drsg(&db, args, fx.path());
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{what} {command}: {err}");
            assert!(
                err.contains(&format!("objects/{}/{}", &id[..2], &id[2..])),
                "{what} {command} names the object: {err}"
            );
            assert!(!err.contains("unknown revision"), "{what} {command}: {err}");
            assert_eq!(
                text(&drsg(&db, &["planes"], fx.path()).stdout),
                before,
                "{what} {command}: the plane is unchanged"
            );
        }
    }
}

#[test]
fn a_fold_says_which_file_it_could_not_read_and_answers_name_it() {
    let fx = Fixture::inline("//- /a.py\ndef a():\n    pass\n//- /b.py\ndef url_for():\n    return 1\n");
    let db = fx.outside().join("graph.drsg");
    assert!(drsg(&db, &["index", "."], fx.path()).status.success());
    fx.write("b.py", "def url_for():\n    return 2\n");
    fx.commit_all("edit b");
    let blob = fx.git(&["rev-parse", "HEAD:b.py"]).trim().to_owned();
    corrupt(&fx, &blob);
    let out = drsg(&db, &["fold", "--json"], fx.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["skipped"]["unreadable"], 1, "{report:#}");
    assert_eq!(report["skipped_files"][0], serde_json::json!(["b.py", "unreadable"]));
    let context = text(&drsg(&db, &["context", "url_for"], fx.path()).stdout);
    assert!(
        context.contains("files of this plane that could not be read, whose symbols are missing: b.py"),
        "{context}"
    );
    let file = text(&drsg(&db, &["file", "b.py"], fx.path()).stdout);
    assert!(file.starts_with("`b.py` is in plane repo's tree but could not be read"), "{file}");
    // The text summary of a fold says it too.
    fx.write("a.py", "def a():\n    return 3\n");
    fx.commit_all("edit a");
    let out = drsg(&db, &["fold"], fx.path());
    assert!(text(&out.stdout).contains("  skipped: 1 unreadable · b.py (unreadable)\n"), "{}", text(&out.stdout));
}

#[test]
fn a_malformed_manifest_is_said_with_its_line_and_its_package_keys_fall_back() {
    let fx = Fixture::inline(concat!(
        "//- /rs/Cargo.toml\n[package\nname = \"rscase\"\n",
        "//- /rs/src/lib.rs\npub fn helper() {}\npub fn run() {\n    crate::helper();\n}\n",
        "//- /web/package.json\n{\"name\": \"web\",\n  \"version\": }\n",
        "//- /web/index.ts\nexport function w() {}\n",
        "//- /py/pyproject.toml\n[project\nname = \"pyc\"\n",
        "//- /py/m.py\ndef p():\n    pass\n",
    ));
    let db = fx.outside().join("graph.drsg");
    let out = drsg(&db, &["index", "."], fx.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary = text(&out.stdout);
    for expected in [
        "warning: manifest rs/Cargo.toml could not be read: line 1: unclosed table, expected `]`; its package is keyed by its directory's name",
        "warning: manifest web/package.json could not be read: ",
        "expected value at line 2 column 14",
        "warning: manifest py/pyproject.toml could not be read: line 1: ",
    ] {
        assert!(summary.contains(expected), "{expected} in {summary}");
    }
    // The package's keys fall back to its directory's name, and `crate::` still binds within it.
    let context = text(&drsg(&db, &["context", "rs::helper"], fx.path()).stdout);
    assert!(context.starts_with("rs::helper  Function  rs/src/lib.rs:1"), "{context}");
    assert!(context.contains("rs::run  Function"), "crate::helper() binds: {context}");
    assert!(context.contains("manifest rs/Cargo.toml could not be read (line 1: "), "every answer says so: {context}");
    // The JSON run report and a fold name them too.
    let json = drsg(&db, &["index", ".", "--json"], fx.path());
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(report["manifest_errors"].as_array().map(Vec::len), Some(3), "{report:#}");
    fx.write("rs/src/lib.rs", "pub fn helper() {}\n");
    fx.commit_all("edit");
    let fold = text(&drsg(&db, &["fold"], fx.path()).stdout);
    assert!(fold.contains("warning: manifest rs/Cargo.toml could not be read: line 1"), "{fold}");
}
