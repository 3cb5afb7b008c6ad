//! The fold's invariant, over random histories made with the real git: after every fold from A to B,
//! the plane equals a plane freshly indexed at B (same keys, labels, properties, edges, ledger).
//!
//! `DRSG_FOLD_HISTORIES` sets how many histories run (default 200, as CI runs it); each history has
//! `STEPS` steps drawn from: add, edit, delete, rename, move between packages, branch switch, rebase.
#![allow(clippy::unwrap_used, reason = "a failed unwrap is a failed test, with its value shown")]

use std::collections::BTreeMap;

use drsg_indexer::{FactsCache, IndexOptions, Silent, fold, index_tree};
use drsg_planes::Store;
use drsg_testdata::Fixture;

const STEPS: usize = 6;

/// A plane as comparable text: sorted nodes and edges (by key, not id) and the meta.
fn canonical(store: &Store) -> (Vec<String>, Vec<String>, String) {
    let plane = store.plane("repo").expect("read").expect("plane repo");
    let nodes = store.nodes(plane.id).expect("nodes");
    let keys: BTreeMap<i64, &str> = nodes.iter().map(|n| (n.id, n.key.as_str())).collect();
    let mut node_lines: Vec<String> = nodes
        .iter()
        .map(|n| {
            format!(
                "{} {:?} {} {:?} {:?} {:?} {}",
                n.key,
                n.labels,
                n.name,
                n.file,
                n.line,
                n.end_line,
                serde_json::Value::Object(n.props.clone())
            )
        })
        .collect();
    node_lines.sort();
    let mut edge_lines: Vec<String> = store
        .edges(plane.id, None)
        .expect("edges")
        .iter()
        .map(|e| {
            format!("{} {} -> {} {}", e.ty, keys[&e.src], keys[&e.dst], serde_json::Value::Object(e.props.clone()))
        })
        .collect();
    edge_lines.sort();
    let meta = serde_json::json!({
        "commit": plane.meta.synced_commit,
        "root": plane.meta.synced_root,
        "ledger": plane.meta.ledger,
        "built_by": plane.meta.built_by,
    });
    (node_lines, edge_lines, meta.to_string())
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A history under construction: the files of the checked-out branch and the names they define.
struct Repo<'f> {
    fx: &'f Fixture,
    rng: Rng,
    counter: usize,
    branches: Vec<String>,
}

impl Repo<'_> {
    fn files(&self) -> Vec<String> {
        let out = self.fx.git(&["ls-files"]);
        out.lines().filter(|l| l.ends_with(".py") || l.ends_with(".ts")).map(str::to_owned).collect()
    }

    fn fresh(&mut self) -> usize {
        self.counter += 1;
        self.counter
    }

    /// A module: a few functions, each calling names that may or may not exist elsewhere, some
    /// through imports of other modules.
    fn module_text(&mut self, path: &str) -> String {
        let others = self.files();
        let mut text = String::new();
        let py = path.ends_with(".py");
        let n = 1 + self.rng.below(3);
        let mut imported = Vec::new();
        for _ in 0..self.rng.below(3) {
            if others.is_empty() {
                break;
            }
            let other = &others[self.rng.below(others.len())];
            if other == path || other.ends_with(".py") != py {
                continue;
            }
            let name = format!("f{}", self.rng.below(self.counter + 1));
            if py {
                let module = other.trim_end_matches(".py").replace('/', ".");
                text.push_str(&format!("from {module} import {name}\n"));
            } else {
                let rel = other.trim_end_matches(".ts");
                let depth = path.matches('/').count();
                let up = if depth == 0 { "./".to_owned() } else { "../".repeat(depth) };
                text.push_str(&format!("import {{ {name} }} from \"{up}{rel}\";\n"));
            }
            imported.push(name);
        }
        for _ in 0..n {
            let id = self.fresh();
            let callee = if !imported.is_empty() && self.rng.below(2) == 0 {
                imported[self.rng.below(imported.len())].clone()
            } else {
                format!("f{}", self.rng.below(self.counter + 1))
            };
            if py {
                text.push_str(&format!("\n\ndef f{id}(x):\n    return {callee}(x)\n"));
                if self.rng.below(3) == 0 {
                    text.push_str(&format!("\n\nclass C{id}:\n    def m(self):\n        return self.m()\n"));
                }
            } else {
                text.push_str(&format!("\nexport function f{id}(x: number): number {{\n  return {callee}(x);\n}}\n"));
            }
        }
        text
    }

    fn commit(&mut self, message: &str) {
        self.fx.git(&["add", "-A"]);
        self.fx.commit(message);
    }

    /// One random step; returns what it did.
    fn step(&mut self) -> String {
        let files = self.files();
        let choice = if files.len() < 2 { 0 } else { self.rng.below(8) };
        match choice {
            0 | 1 => {
                let dir = ["pkg", "pkg/sub", "web"][self.rng.below(3)];
                let ext = if dir == "web" { "ts" } else { "py" };
                let path = format!("{dir}/m{}.{ext}", self.fresh());
                let text = self.module_text(&path);
                self.fx.write(&path, &text);
                self.commit(&format!("add {path}"));
                format!("add {path}")
            }
            2 => {
                let path = files[self.rng.below(files.len())].clone();
                let text = self.module_text(&path);
                self.fx.write(&path, &text);
                self.commit(&format!("edit {path}"));
                format!("edit {path}")
            }
            3 => {
                let path = files[self.rng.below(files.len())].clone();
                self.fx.git(&["rm", "-q", &path]);
                self.commit(&format!("delete {path}"));
                format!("delete {path}")
            }
            4 => {
                let path = files[self.rng.below(files.len())].clone();
                let (dir, ext) =
                    (path.rsplit_once('/').map_or("", |(d, _)| d), if path.ends_with(".py") { "py" } else { "ts" });
                let to = if self.rng.below(2) == 0 || ext == "ts" {
                    format!("{dir}/r{}.{ext}", self.fresh())
                } else {
                    // Move between packages.
                    let other = if dir == "pkg" { "pkg/sub" } else { "pkg" };
                    format!("{other}/r{}.{ext}", self.fresh())
                };
                if let Some((parent, _)) = to.rsplit_once('/') {
                    std::fs::create_dir_all(self.fx.path().join(parent)).expect("create the target directory");
                }
                self.fx.git(&["mv", &path, &to]);
                self.commit(&format!("move {path} {to}"));
                format!("move {path} -> {to}")
            }
            5 => {
                // Branch from an earlier commit, or switch to an existing branch.
                let log = self.fx.git(&["rev-list", "HEAD"]);
                let commits: Vec<&str> = log.lines().collect();
                if self.rng.below(2) == 0 || self.branches.len() < 2 {
                    let at = commits[self.rng.below(commits.len())].to_owned();
                    let name = format!("b{}", self.fresh());
                    self.fx.git(&["checkout", "-q", "-b", &name, &at]);
                    self.branches.push(name.clone());
                    format!("branch {name} at {}", &at[..8])
                } else {
                    let name = self.branches[self.rng.below(self.branches.len())].clone();
                    self.fx.git(&["checkout", "-q", &name]);
                    format!("switch to {name}")
                }
            }
            _ => {
                // Rebase the current branch onto another; a conflicting rebase is abandoned.
                let onto = self.branches[self.rng.below(self.branches.len())].clone();
                let ok =
                    self.fx.command(&["rebase", "-q", "-X", "theirs", &onto]).output().expect("git").status.success();
                if ok {
                    format!("rebase onto {onto}")
                } else {
                    let _ = self.fx.command(&["rebase", "--abort"]).output();
                    format!("rebase onto {onto} (conflict, abandoned)")
                }
            }
        }
    }
}

fn fresh_index(fx: &Fixture) -> Store {
    let mut store = Store::in_memory().expect("store");
    index_tree(fx.path(), &drsg_plugins::builtin(), &mut store, &IndexOptions::default(), &Silent).expect("index");
    store
}

#[test]
fn a_folded_plane_equals_a_fresh_index_after_every_step_of_random_histories() {
    let histories: u64 = std::env::var("DRSG_FOLD_HISTORIES").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let registry = drsg_plugins::builtin();
    let mut steps = 0;
    let mut reused = 0;
    for seed in 1..=histories {
        let fx = Fixture::inline(
            "//- /pkg/__init__.py\n//- /pkg/sub/__init__.py\n//- /pkg/m0.py\ndef f0(x):\n    return x\n",
        );
        let mut repo = Repo {
            fx: &fx,
            rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
            counter: 0,
            branches: vec!["main".into()],
        };
        let mut folded = fresh_index(&fx);
        let cache = FactsCache::default();
        let mut log = Vec::new();
        for _ in 0..STEPS {
            log.push(repo.step());
            let report = fold(&mut folded, &registry, "repo", None, &IndexOptions::default(), &cache, &Silent)
                .unwrap_or_else(|e| panic!("seed {seed}: fold failed after {log:?}: {e}"));
            reused += report.files_reused;
            let fresh = fresh_index(&fx);
            let (a, b) = (canonical(&folded), canonical(&fresh));
            if a != b {
                let only_folded: Vec<&String> =
                    a.0.iter().chain(&a.1).filter(|l| !b.0.contains(l) && !b.1.contains(l)).collect();
                let only_fresh: Vec<&String> =
                    b.0.iter().chain(&b.1).filter(|l| !a.0.contains(l) && !a.1.contains(l)).collect();
                panic!(
                    "seed {seed}: the folded plane differs from a fresh index after {log:?}\nonly folded: {only_folded:#?}\nonly fresh: {only_fresh:#?}\nmeta: {}\n   vs {}",
                    a.2, b.2
                );
            }
            steps += 1;
        }
    }
    assert_eq!(steps, histories * STEPS as u64);
    // Folds reuse the facts of files they have seen (the property of the cache, not a timing).
    assert!(histories == 0 || reused > 0, "no fold reused a parsed file");
}

#[test]
fn switching_back_to_a_branch_parses_nothing() {
    let fx = Fixture::inline("//- /a.py\ndef a():\n    pass\n//- /b.py\ndef b():\n    return a()\n");
    let registry = drsg_plugins::builtin();
    let mut store = fresh_index(&fx);
    let cache = FactsCache::default();
    fx.git(&["checkout", "-q", "-b", "other"]);
    fx.write("c.py", "def c():\n    pass\n");
    fx.commit_all("c");
    // The first fold parses every file once (the plane was built by another process's cache).
    let first = fold(&mut store, &registry, "repo", None, &IndexOptions::default(), &cache, &Silent).unwrap();
    assert_eq!((first.files_parsed, first.files_reused, first.nodes_added), (3, 0, 2));
    fx.git(&["checkout", "-q", "main"]);
    let back = fold(&mut store, &registry, "repo", None, &IndexOptions::default(), &cache, &Silent).unwrap();
    assert_eq!((back.files_parsed, back.files_reused, back.nodes_removed), (0, 2, 2));
    let again = fold(&mut store, &registry, "repo", None, &IndexOptions::default(), &cache, &Silent).unwrap();
    assert!(again.in_sync);
    // Folding to a named revision, then back.
    let to_other =
        fold(&mut store, &registry, "repo", Some("other"), &IndexOptions::default(), &cache, &Silent).unwrap();
    assert_eq!(to_other.files_parsed, 0);
    let plane = store.plane("repo").unwrap().unwrap();
    assert_eq!(plane.meta.synced_commit.as_deref(), Some(fx.git(&["rev-parse", "other"]).trim()));
}

#[test]
fn bad_folds_change_nothing() {
    let fx = Fixture::inline("//- /a.py\ndef a():\n    pass\n");
    let registry = drsg_plugins::builtin();
    let mut store = fresh_index(&fx);
    let before = canonical(&store);
    let cache = FactsCache::default();
    let opts = IndexOptions::default();
    let err = fold(&mut store, &registry, "repo", Some("no-such-branch"), &opts, &cache, &Silent).unwrap_err();
    assert!(err.to_string().starts_with("unknown revision `no-such-branch`; revisions are"), "{err}");
    let err = fold(&mut store, &registry, "nope", None, &opts, &cache, &Silent).unwrap_err();
    assert_eq!(err.to_string(), "no plane named `nope`");
    let tree = fx.git(&["rev-parse", "HEAD^{tree}"]);
    let err = fold(&mut store, &registry, "repo", Some(tree.trim()), &opts, &cache, &Silent).unwrap_err();
    assert!(err.to_string().contains("names a tree, not a commit"), "{err}");
    assert_eq!(canonical(&store), before);
}

#[test]
fn a_plane_read_from_disk_is_not_folded_and_a_fold_keeps_the_plane_options() {
    // An ignored directory is indexed from disk, without a commit: a fold must not empty it.
    let fx = Fixture::inline(
        "//- /.gitignore
vendor/
//- /a.py
def a():
    pass
",
    );
    fx.write(
        "vendor/v.py",
        "def v():
    pass
",
    );
    let registry = drsg_plugins::builtin();
    let mut store = Store::in_memory().unwrap();
    index_tree(&fx.path().join("vendor"), &registry, &mut store, &IndexOptions::default(), &Silent).unwrap();
    let err = fold(&mut store, &registry, "vendor", None, &IndexOptions::default(), &FactsCache::default(), &Silent)
        .unwrap_err();
    assert!(err.to_string().contains("was not indexed from a commit"), "{err}");
    assert_eq!(store.plane("vendor").unwrap().unwrap().node_count, 2);

    // A size limit given at index time holds for every fold.
    let fx = Fixture::inline(
        "//- /small.py
def s():
    pass
//- /big.py
# padding padding padding padding
def b():
    pass
",
    );
    let mut store = Store::in_memory().unwrap();
    let options = IndexOptions { max_file_size: 30, ..IndexOptions::default() };
    let first = index_tree(fx.path(), &registry, &mut store, &options, &Silent).unwrap();
    assert_eq!(first.files, 1);
    fx.write("small.py", "def s2():\n    pass\n");
    fx.commit_all("edit");
    let report =
        fold(&mut store, &registry, "repo", None, &IndexOptions::default(), &FactsCache::default(), &Silent).unwrap();
    assert_eq!(report.run.unwrap().files, 1, "big.py stays skipped");
}
