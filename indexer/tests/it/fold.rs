//! The fold's invariant, over random histories made with the real git: after every fold from A to B,
//! the plane equals a plane freshly indexed at B (same keys, labels, properties, edges, ledger).
//!
//! `DRSG_FOLD_HISTORIES` sets how many histories run (default 200, as CI runs it); each history has
//! `STEPS` steps drawn from: add, edit (whole file), body-only edit, retype (a signature names another
//! class), re-export (`__init__.py`, barrel `index.ts`, `pub use`), delete, rename, move between
//! packages, branch switch, rebase; over Python, TypeScript and a Rust crate whose files call, import,
//! inherit, construct and put methods on each other's names. Beside it, the `_git` plane written by
//! difference where the history only grew equals the one written whole every step.
#![allow(clippy::unwrap_used, reason = "a failed unwrap is a failed test, with its value shown")]

use drsg_indexer::history::{index_history, rewrite_history};
use drsg_indexer::{FactsCache, IndexOptions, Repo as GitRepo, Silent, fold, index_tree};
use drsg_planes::Store;
use drsg_testdata::Fixture;

use crate::plane_lines;

const STEPS: usize = 6;

/// The code plane and its `_ops` plane as comparable text: sorted nodes and edges (by key, not id) and
/// the meta.
fn canonical(store: &Store) -> (Vec<String>, Vec<String>, String) {
    let mut out = plane_lines(store, "repo").expect("plane repo");
    if let Some((nodes, edges, meta)) = plane_lines(store, "repo_ops") {
        out.0.extend(nodes.into_iter().map(|l| format!("ops {l}")));
        out.1.extend(edges.into_iter().map(|l| format!("ops {l}")));
        out.2.push_str(&meta);
    }
    out
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

/// Where source files of each language live.
const DIRS: [&str; 4] = ["pkg", "pkg/sub", "web", "rs/src"];

fn ext_of(dir: &str) -> &'static str {
    match dir {
        "web" => "ts",
        "rs/src" => "rs",
        _ => "py",
    }
}

/// The names a file defines at its top level or in a class/impl (`def f1`, `class C2`, `pub fn make3`, …).
fn defined(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        for lead in ["def ", "class ", "export function ", "export class ", "pub fn ", "pub struct "] {
            if let Some(rest) = line.strip_prefix(lead) {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        }
    }
    out
}

impl Repo<'_> {
    /// Source files other than the Rust crate root, which the history keeps in step itself.
    fn files(&self) -> Vec<String> {
        let out = self.fx.git(&["ls-files"]);
        out.lines()
            .filter(|l| [".py", ".ts", ".rs"].iter().any(|e| l.ends_with(e)))
            .filter(|l| !l.ends_with("lib.rs") && !l.ends_with("__init__.py") && !l.ends_with("index.ts"))
            .map(str::to_owned)
            .collect()
    }

    fn fresh(&mut self) -> usize {
        self.counter += 1;
        self.counter
    }

    fn pick<'a>(&mut self, list: &'a [String]) -> Option<&'a String> {
        (!list.is_empty()).then(|| &list[self.rng.below(list.len())])
    }

    /// A name among `known` starting with `prefix` (often), or one that may exist nowhere.
    fn name(&mut self, known: &[String], prefix: &str) -> String {
        let matching: Vec<String> = known.iter().filter(|n| n.starts_with(prefix)).cloned().collect();
        match self.pick(&matching) {
            Some(name) if self.rng.below(4) != 0 => name.clone(),
            _ => format!("{prefix}{}", self.rng.below(self.counter + 1)),
        }
    }

    /// A module: imports of names other modules of its language define, then functions, classes with
    /// methods (some inheriting an imported class), factories with a declared return type, and
    /// functions calling methods on typed parameters and on factories' results; Rust files also put
    /// methods on other files' types.
    fn module_text(&mut self, path: &str) -> String {
        let ext = path.rsplit('.').next().unwrap_or("py").to_owned();
        let others: Vec<String> =
            self.files().into_iter().filter(|o| o != path && o.ends_with(&format!(".{ext}"))).collect();
        let mut text = String::new();
        let mut known: Vec<String> = Vec::new();
        for _ in 0..self.rng.below(4) {
            let Some(other) = self.pick(&others).cloned() else { break };
            let names = defined(&std::fs::read_to_string(self.fx.path().join(&other)).unwrap_or_default());
            let Some(name) = self.pick(&names).cloned() else { continue };
            let stem = other.rsplit('/').next().unwrap_or(&other).split('.').next().unwrap_or("").to_owned();
            match ext.as_str() {
                "py" => {
                    let module = other.trim_end_matches(".py").replace('/', ".");
                    text.push_str(&format!("from {module} import {name}\n"));
                }
                "ts" => {
                    let barrel = self.fx.path().join("web/index.ts").exists() && self.rng.below(3) == 0;
                    let from = if barrel { "./index".to_owned() } else { format!("./{stem}") };
                    text.push_str(&format!("import {{ {name} }} from \"{from}\";\n"));
                }
                _ => text.push_str(&format!("use crate::{stem}::{name};\n")),
            }
            known.push(name);
        }
        for _ in 0..1 + self.rng.below(3) {
            let id = self.fresh();
            let callee = self.name(&known, "f");
            let cls = self.name(&known, "C");
            let maker = self.name(&known, "make");
            let meth = if self.rng.below(2) == 0 { "m".to_owned() } else { self.name(&known, "n") };
            let base = known.iter().find(|n| n.starts_with('C')).cloned().filter(|_| self.rng.below(2) == 0);
            let kind = self.rng.below(if ext == "rs" { 5 } else { 4 });
            let def = match (ext.as_str(), kind) {
                ("py", 0) => format!("def f{id}(x):\n    return {callee}(x)\n"),
                ("py", 1) => format!(
                    "class C{id}({}):\n    def m(self):\n        return self.{meth}()\n\n    def n{id}(self):\n        return {callee}(1)\n",
                    base.unwrap_or_default()
                ),
                ("py", 2) => format!("def make{id}() -> {cls}:\n    return {cls}()\n"),
                ("py", _) => {
                    format!("def use{id}(x: {cls}):\n    y = {maker}()\n    return x.m() + y.{meth}()\n")
                }
                ("ts", 0) => format!("export function f{id}(x: number): number {{\n  return {callee}(x);\n}}\n"),
                ("ts", 1) => format!(
                    "export class C{id}{} {{\n  m(): number {{\n    return this.{meth}();\n  }}\n  n{id}(): number {{\n    return {callee}(1);\n  }}\n}}\n",
                    base.map(|b| format!(" extends {b}")).unwrap_or_default()
                ),
                ("ts", 2) => format!("export function make{id}(): {cls} {{\n  return new {cls}();\n}}\n"),
                ("ts", _) => format!(
                    "export function use{id}(x: {cls}): number {{\n  const y = {maker}();\n  return x.m() + y.{meth}();\n}}\n"
                ),
                (_, 0) => format!("pub fn f{id}(x: u32) -> u32 {{\n    {callee}(x)\n}}\n"),
                (_, 1) => format!(
                    "pub struct C{id};\n\nimpl C{id} {{\n    pub fn m(&self) -> u32 {{\n        self.{meth}()\n    }}\n\n    pub fn n{id}(&self) -> u32 {{\n        {callee}(1)\n    }}\n}}\n"
                ),
                (_, 2) => format!("pub fn make{id}() -> {cls} {{\n    {cls}\n}}\n"),
                (_, 3) => {
                    format!("pub fn use{id}(x: &{cls}) -> u32 {{\n    let y = {maker}();\n    x.m() + y.{meth}()\n}}\n")
                }
                (_, _) => {
                    format!("impl {cls} {{\n    pub fn n{id}(&self) -> u32 {{\n        {callee}(2)\n    }}\n}}\n")
                }
            };
            text.push('\n');
            text.push_str(&def);
            known.push(format!("f{id}"));
        }
        text
    }

    /// Keeps the Rust crate root declaring every module of `rs/src`, with `reexports` (module stem, name).
    fn sync_crate_root(&mut self, reexports: &[(String, String)]) {
        let mut stems: Vec<String> = self
            .files()
            .iter()
            .filter_map(|f| f.strip_prefix("rs/src/").and_then(|f| f.strip_suffix(".rs")).map(str::to_owned))
            .collect();
        stems.sort();
        let mut text: String = stems.iter().map(|s| format!("pub mod {s};\n")).collect();
        for (stem, name) in reexports.iter().filter(|(s, _)| stems.contains(s)) {
            text.push_str(&format!("pub use crate::{stem}::{name};\n"));
        }
        self.fx.write("rs/src/lib.rs", &text);
    }

    fn commit(&mut self, message: &str) {
        self.sync_crate_root(&[]);
        self.fx.git(&["add", "-A"]);
        self.fx.commit(message);
    }

    /// Replaces the name before the `(` of one call line of `text` (a body-only edit), or the class
    /// named in one signature or base list (`-> C3`, `: C3`, `class C4(C3)`, `extends C3`); `None` when
    /// the text has no such line.
    fn tweak(&mut self, text: &str, signature: bool) -> Option<String> {
        let lines: Vec<&str> = text.lines().collect();
        let is_sig = |l: &str| ["def ", "export function ", "pub fn "].iter().any(|p| l.trim_start().starts_with(p));
        let candidates: Vec<usize> = (0..lines.len())
            .filter(|&i| {
                let l = lines[i];
                let is_base = l.starts_with("class ") && l.contains("(C") || l.contains("extends C");
                if signature {
                    (is_sig(l) && (l.contains("-> C") || l.contains(": C") || l.contains(": &C"))) || is_base
                } else {
                    !is_sig(l) && (l.contains("(x)") || l.contains("(1)"))
                }
            })
            .collect();
        let &i = candidates.get(self.rng.below(candidates.len()))?;
        let line = lines[i];
        let new_name = if signature {
            format!("C{}", self.rng.below(self.counter + 1))
        } else {
            format!("f{}", self.rng.below(self.counter + 1))
        };
        let replaced = if signature {
            let at = [("-> C", 3), (": C", 2), (": &C", 3), ("(C", 1), ("extends C", 8)]
                .iter()
                .find_map(|(pat, skip)| line.find(pat).map(|p| p + skip))?;
            let end = at + 1 + line[at + 1..].chars().take_while(|c| c.is_ascii_digit()).count();
            format!("{}{new_name}{}", &line[..at], &line[end..])
        } else {
            let open = line.rfind('(')?;
            let start = line[..open].rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |p| p + 1);
            format!("{}{new_name}{}", &line[..start], &line[open..])
        };
        let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
        out[i] = replaced;
        Some(out.join("\n") + "\n")
    }

    /// Writes or deletes a deployment manifest: a Kubernetes file, a compose file with an include, the
    /// file it includes, a Dockerfile, or YAML that does not parse.
    fn manifest_step(&mut self) -> String {
        let tag = format!("v{}", self.fresh());
        let (path, text) = match self.rng.below(6) {
            0 => (
                "deploy/app.yaml",
                format!(
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: ghcr.io/acme/app:{tag}\n---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: nightly\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n            - name: job\n              image: acme/job@sha256:{}\n",
                    "ab".repeat(32)
                ),
            ),
            1 => (
                "compose.yaml",
                format!(
                    "include:\n  - ops/extra.yml\nservices:\n  api:\n    build: ./pkg\n    image: acme/api:{tag}\n  db:\n    image: postgres:16\n"
                ),
            ),
            2 => ("ops/extra.yml", format!("services:\n  worker:\n    image: acme/worker:{tag}\n")),
            3 => {
                ("pkg/Dockerfile", format!("FROM python:3.12 AS base\nLABEL org.opencontainers.image.version={tag}\n"))
            }
            4 => ("deploy/broken.yaml", "apiVersion: v1\nkind: Pod\nspec: [unclosed\n".to_owned()),
            _ => {
                let existing: Vec<String> = ["deploy/app.yaml", "compose.yaml", "ops/extra.yml", "pkg/Dockerfile"]
                    .iter()
                    .filter(|p| self.fx.path().join(p).exists())
                    .map(|p| (*p).to_owned())
                    .collect();
                let Some(path) = self.pick(&existing).cloned() else { return "no manifest to delete".into() };
                self.fx.git(&["rm", "-q", &path]);
                self.commit(&format!("delete {path}"));
                return format!("delete manifest {path}");
            }
        };
        if let Some((dir, _)) = path.rsplit_once('/') {
            std::fs::create_dir_all(self.fx.path().join(dir)).expect("create the manifest's directory");
        }
        self.fx.write(path, &text);
        self.commit(&format!("manifest {path}"));
        format!("manifest {path} {tag}")
    }

    /// Writes HTTP code: a FastAPI router whose prefix is a constant, a module mounting it under another
    /// constant, and a TypeScript module requesting its routes; each of them random.
    fn wire_step(&mut self) -> String {
        let n = self.fresh();
        let (path, text) = match self.rng.below(4) {
            0 => (
                "pkg/api.py",
                format!(
                    "from fastapi import APIRouter\n\nPREFIX = \"/v{}\"\nrouter = APIRouter(prefix=PREFIX)\n\n\n@router.get(\"/items/{{item_id}}\")\ndef item{n}(item_id):\n    return item_id\n\n\n@router.post(\"/items\")\ndef create{n}():\n    return 1\n",
                    self.rng.below(3)
                ),
            ),
            1 => (
                "pkg/app.py",
                format!(
                    "from fastapi import FastAPI\n\nfrom pkg import api\n\nBASE = \"/api{}\"\napp = FastAPI()\napp.include_router(api.router, prefix=BASE)\n",
                    self.rng.below(3)
                ),
            ),
            2 => (
                "web/calls.ts",
                format!(
                    "export function load{n}(id: number) {{\n  return fetch(`/api{}/v{}/items/${{id}}`);\n}}\n\nexport function make{n}() {{\n  return fetch(\"/api/v0/items\", {{ method: \"POST\" }});\n}}\n",
                    self.rng.below(3),
                    self.rng.below(3)
                ),
            ),
            _ => {
                let existing: Vec<String> = ["pkg/api.py", "pkg/app.py", "web/calls.ts"]
                    .iter()
                    .filter(|p| self.fx.path().join(p).exists())
                    .map(|p| (*p).to_owned())
                    .collect();
                let Some(path) = self.pick(&existing).cloned() else { return "no HTTP file to delete".into() };
                self.fx.git(&["rm", "-q", &path]);
                self.commit(&format!("delete {path}"));
                return format!("delete HTTP file {path}");
            }
        };
        self.fx.write(path, &text);
        self.commit(&format!("http {path}"));
        format!("http {path}")
    }

    /// One random step; returns what it did.
    fn step(&mut self) -> String {
        let files = self.files();
        let choice = if files.len() < 2 { 0 } else { self.rng.below(13) };
        match choice {
            0 | 1 => {
                let dir = DIRS[self.rng.below(DIRS.len())];
                let path = format!("{dir}/m{}.{}", self.fresh(), ext_of(dir));
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
            7 | 8 => {
                // A body-only edit, or a signature naming another class.
                let signature = choice == 8;
                let path = files[self.rng.below(files.len())].clone();
                let Some(text) =
                    self.tweak(&std::fs::read_to_string(self.fx.path().join(&path)).unwrap_or_default(), signature)
                else {
                    return "nothing to tweak".into();
                };
                self.fx.write(&path, &text);
                self.commit(&format!("tweak {path}"));
                format!("{} {path}", if signature { "retype" } else { "tweak" })
            }
            9 => {
                // Re-exports: a package's `__init__.py`, a barrel `index.ts`, `pub use` in the crate root.
                let which = self.rng.below(3);
                let dir = ["pkg", "web", "rs/src"][which];
                let members: Vec<String> = files
                    .iter()
                    .filter(|f| f.starts_with(&format!("{dir}/")) && !f[dir.len() + 1..].contains('/'))
                    .cloned()
                    .collect();
                let mut lines = Vec::new();
                for _ in 0..1 + self.rng.below(3) {
                    let Some(member) = self.pick(&members).cloned() else { break };
                    let names = defined(&std::fs::read_to_string(self.fx.path().join(&member)).unwrap_or_default());
                    let Some(name) = self.pick(&names).cloned() else { continue };
                    let stem = member.rsplit('/').next().unwrap_or("").split('.').next().unwrap_or("").to_owned();
                    lines.push((stem, name));
                }
                match which {
                    0 => {
                        let text: String = lines.iter().map(|(s, n)| format!("from .{s} import {n}\n")).collect();
                        self.fx.write("pkg/__init__.py", &text);
                    }
                    1 => {
                        let text: String = lines
                            .iter()
                            .map(|(s, n)| {
                                if self.rng.below(2) == 0 {
                                    format!("export {{ {n} }} from \"./{s}\";\n")
                                } else {
                                    format!("export * from \"./{s}\";\n")
                                }
                            })
                            .collect();
                        self.fx.write("web/index.ts", &text);
                    }
                    _ => {
                        self.sync_crate_root(&lines);
                        self.fx.git(&["add", "-A"]);
                        self.fx.commit("re-export");
                        return format!("re-export in {dir}: {lines:?}");
                    }
                }
                self.commit("re-export");
                format!("re-export in {dir}: {lines:?}")
            }
            10 => self.manifest_step(),
            12 => self.wire_step(),
            3 => {
                let path = files[self.rng.below(files.len())].clone();
                self.fx.git(&["rm", "-q", &path]);
                self.commit(&format!("delete {path}"));
                format!("delete {path}")
            }
            4 => {
                let path = files[self.rng.below(files.len())].clone();
                let (dir, ext) =
                    (path.rsplit_once('/').map_or("", |(d, _)| d), path.rsplit('.').next().unwrap_or("py"));
                let to = if self.rng.below(2) == 0 || ext != "py" {
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
    // Route nodes and REQUESTS edges seen after folds: the route layer is exercised.
    let (mut routes, mut requests) = (0, 0);
    // Folds that resolved only part of the tree and wrote a difference: the incremental path itself.
    let mut partial = 0;
    // Folds that kept the symbol table (the same files declare the same definitions).
    let mut kept = 0;
    // History updates written by difference.
    let mut appends = 0;
    // Folds whose old state was read from the records kept beside the plane.
    let mut restored = 0;
    // Folds that wrote the history's difference in the code plane's transaction.
    let mut with_code = 0;
    for seed in 1..=histories {
        let fx = Fixture::inline(concat!(
            "//- /pkg/__init__.py\n//- /pkg/sub/__init__.py\n//- /pkg/m0.py\ndef f0(x):\n    return x\n",
            "//- /web/m0t.ts\nexport function f0(x: number): number {\n  return x;\n}\n",
            "//- /rs/Cargo.toml\n[package]\nname = \"rsx\"\nversion = \"0.1.0\"\n",
            "//- /rs/src/lib.rs\npub mod m0r;\n//- /rs/src/m0r.rs\npub fn f0(x: u32) -> u32 {\n    x\n}\n",
        ));
        let mut repo = Repo {
            fx: &fx,
            rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
            counter: 0,
            branches: vec!["main".into()],
        };
        let mut folded = fresh_index(&fx);
        let cache = FactsCache::default();
        let mut log = Vec::new();
        // The history written by difference where it can be, and whole every time: the same plane.
        let git = GitRepo::discover(fx.path()).expect("a git repository");
        let mut appended = Store::in_memory().expect("store");
        let mut rewritten = Store::in_memory().expect("store");
        index_history(&git, &mut appended, "repo", None).expect("history");
        rewrite_history(&git, &mut rewritten, "repo", None).expect("history");
        for _ in 0..STEPS {
            log.push(repo.step());
            let git = GitRepo::discover(fx.path()).expect("a git repository");
            appends += u64::from(index_history(&git, &mut appended, "repo", None).expect("history").appended);
            rewrite_history(&git, &mut rewritten, "repo", None).expect("history");
            let (a, b) = (plane_lines(&appended, "repo_git"), plane_lines(&rewritten, "repo_git"));
            assert!(
                a == b,
                "seed {seed}: the appended history differs from the rewritten one after {log:?}:\n{a:#?}\n{b:#?}"
            );
            // A fold in a fresh process reads the state kept beside the plane by the fold before.
            let fresh_process = repo.rng.below(3) == 0;
            let own = FactsCache::default();
            let cache = if fresh_process { &own } else { &cache };
            let report = fold(&mut folded, &registry, "repo", None, &IndexOptions::default(), cache, &Silent)
                .unwrap_or_else(|e| panic!("seed {seed}: fold failed after {log:?}: {e}"));
            assert_eq!(report.kept_error, None, "seed {seed}: the state was not kept after {log:?}");
            // The fold's history, written with the code plane's difference or after it, is the rewrite's.
            with_code += u64::from(report.history_with_code);
            let (a, b) = (plane_lines(&folded, "repo_git"), plane_lines(&rewritten, "repo_git"));
            assert!(a == b, "seed {seed}: the folded history differs from the rewritten one after {log:?}");
            restored += u64::from(report.state_from == "kept");
            reused += report.files_reused;
            if !report.in_sync && !report.whole && report.files_resolved < report.files {
                partial += 1;
            }
            if !report.in_sync && !report.table_rebuilt {
                kept += 1;
            }
            let fresh = fresh_index(&fx);
            let (a, b) = (canonical(&folded), canonical(&fresh));
            routes += a.0.iter().filter(|l| l.starts_with("route:")).count();
            requests += a.1.iter().filter(|l| l.starts_with("REQUESTS")).count();
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
    assert!(histories < 10 || partial * 2 > steps, "only {partial} of {steps} folds were incremental");
    assert!(histories < 10 || kept * 30 > steps, "only {kept} of {steps} folds kept the symbol table");
    assert!(histories < 10 || appends * 3 > steps, "only {appends} of {steps} history updates were appended");
    assert!(histories < 10 || restored * 8 > steps, "only {restored} of {steps} folds read the kept state");
    assert!(
        histories < 10 || with_code * 4 > steps,
        "only {with_code} of {steps} folds wrote the history with the code"
    );
    assert!(
        histories < 10 || (routes > 0 && requests > 0),
        "no fold made a route ({routes}) and a request ({requests})"
    );
    eprintln!(
        "{steps} folds: {partial} incremental, {kept} kept the symbol table, {appends} appended history, {restored} from the kept state, {with_code} with the history in the code's transaction; {routes} routes, {requests} requests seen"
    );
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
    // The first fold reads the state of main the index kept beside the plane (the plane was built by
    // another process) and parses c.py alone; a.py and b.py are kept from that state.
    let first = fold(&mut store, &registry, "repo", None, &IndexOptions::default(), &cache, &Silent).unwrap();
    assert_eq!((first.files_parsed, first.files_reused, first.nodes_added), (1, 2, 2));
    assert_eq!(first.state_from, "kept");
    assert_eq!((first.files, first.files_resolved, first.whole), (3, 1, false), "only c.py is resolved again");
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
    assert_eq!(report.files, 1, "big.py stays skipped");
}

/// Fold `fx`'s plane in `store` to HEAD and check it against a fresh index; `what` names the step.
fn fold_and_compare(store: &mut Store, cache: &FactsCache, fx: &Fixture, what: &str) -> drsg_indexer::FoldReport {
    let registry = drsg_plugins::builtin();
    let report = fold(store, &registry, "repo", None, &IndexOptions::default(), cache, &Silent).unwrap();
    let (a, b) = (canonical(store), canonical(&fresh_index(fx)));
    let only_folded: Vec<&String> = a.1.iter().filter(|l| !b.1.contains(l)).collect();
    let only_fresh: Vec<&String> = b.1.iter().filter(|l| !a.1.contains(l)).collect();
    assert!(
        a == b,
        "{what}: the fold differs from a fresh index\nonly folded: {only_folded:#?}\nonly fresh: {only_fresh:#?}"
    );
    report
}

#[test]
fn a_change_reaches_files_that_only_name_what_depends_on_it() {
    // f.py names neither C3 nor b.py: it reaches C1.n1 through make5's return type (a.py) and C3's
    // base (b.py), and through the type of K's field `c` (k.py). Changing C3's base must resolve it again.
    let fx = Fixture::inline(concat!(
        "//- /pkg/__init__.py\n",
        "//- /pkg/b.py\nclass C1:\n    def n1(self):\n        return 1\n\n\nclass C2:\n    def n2(self):\n        return 2\n\n\nclass C3(C1):\n    pass\n",
        "//- /pkg/a.py\nfrom pkg.b import C3\n\n\ndef make5() -> C3:\n    return C3()\n",
        "//- /pkg/k.py\nfrom pkg.b import C3\n\n\nclass K:\n    def __init__(self):\n        self.c = C3()\n",
        "//- /pkg/f.py\nfrom pkg.a import make5\nfrom pkg.k import K\n\n\ndef use():\n    y = make5()\n    return y.n1()\n\n\ndef field(k: K):\n    return k.c.n1()\n",
        "//- /web/a.ts\nexport class C {\n  m(): number {\n    return 1;\n  }\n}\n",
        "//- /web/b.ts\nexport class C {\n  m(): number {\n    return 2;\n  }\n}\n",
        "//- /web/index.ts\nexport { C } from \"./a\";\n",
        "//- /web/f.ts\nimport { C } from \"./index\";\n\nexport function run(): number {\n  return new C().m();\n}\n",
        "//- /rs/Cargo.toml\n[package]\nname = \"rsx\"\nversion = \"0.1.0\"\n",
        "//- /rs/src/lib.rs\npub mod a;\npub mod b;\npub mod c;\n",
        "//- /rs/src/a.rs\npub struct S;\n",
        "//- /rs/src/b.rs\nuse crate::a::S;\n\nimpl S {\n    pub fn go(&self) {}\n}\n",
        "//- /rs/src/c.rs\nuse crate::a::S;\n\npub fn run(s: &S) {\n    s.go();\n}\n",
    ));
    let mut store = fresh_index(&fx);
    let cache = FactsCache::default();
    let edges = |store: &Store| canonical(store).1;
    assert!(edges(&store).iter().any(|e| e.starts_with("CALLS pkg.f.use -> pkg.b.C1.n1")), "{:#?}", edges(&store));
    assert!(edges(&store).iter().any(|e| e.starts_with("CALLS pkg.f.field -> pkg.b.C1.n1")));

    fx.write("pkg/b.py", &std::fs::read_to_string(fx.path().join("pkg/b.py")).unwrap().replace("C3(C1)", "C3(C2)"));
    fx.commit_all("C3 extends C2");
    let report = fold_and_compare(&mut store, &cache, &fx, "C3's base changed");
    assert!(report.files_resolved < report.files, "resolved {} of {}", report.files_resolved, report.files);
    assert!(
        !edges(&store).iter().any(|e| e.starts_with("CALLS") && e.contains("-> pkg.b.C1.n1")),
        "stale edges to C1.n1 remain: {:#?}",
        edges(&store)
    );

    // Edits that keep every definition keep the symbol table: a body, then a return type another file relies on.
    fx.write("pkg/f.py", &std::fs::read_to_string(fx.path().join("pkg/f.py")).unwrap().replace("y.n1()", "y.n2()"));
    fx.commit_all("a body edit");
    let report = fold_and_compare(&mut store, &cache, &fx, "a body edit");
    assert!(!report.table_rebuilt && report.files_resolved == 1, "{report:?}");
    assert!(edges(&store).iter().any(|e| e.starts_with("CALLS pkg.f.use -> pkg.b.C2.n2")), "{:#?}", edges(&store));
    fx.write("pkg/a.py", &std::fs::read_to_string(fx.path().join("pkg/a.py")).unwrap().replace("-> C3", "-> C1"));
    fx.commit_all("make5 returns a C1");
    let report = fold_and_compare(&mut store, &cache, &fx, "a return type changed");
    assert!(!report.table_rebuilt && report.files_resolved == 2, "a.py and f.py: {report:?}");

    // A new definition is put in place too, and what named it elsewhere is resolved again.
    let f = std::fs::read_to_string(fx.path().join("pkg/f.py")).unwrap();
    fx.write("pkg/f.py", &format!("{f}\n\ndef later():\n    return use()\n"));
    fx.write(
        "pkg/k.py",
        &std::fs::read_to_string(fx.path().join("pkg/k.py"))
            .unwrap()
            .replace("self.c = C3()", "self.c = C3()\n        later()"),
    );
    fx.commit_all("a function added, and called from k.py");
    let report = fold_and_compare(&mut store, &cache, &fx, "a function added");
    assert!(!report.table_rebuilt, "{report:?}");
    // A definition whose key a submodule holds (`pkg.f` in pkg/__init__.py) needs the table rebuilt.
    fx.write("pkg/__init__.py", "def f():\n    pass\n");
    fx.commit_all("pkg.f defined twice");
    let report = fold_and_compare(&mut store, &cache, &fx, "a key held by a submodule");
    assert!(report.table_rebuilt, "{report:?}");

    fx.write("web/index.ts", "export { C } from \"./b\";\n");
    fx.commit_all("the barrel re-exports b's C");
    fold_and_compare(&mut store, &cache, &fx, "the barrel changed");
    assert!(
        edges(&store).iter().any(|e| e.starts_with("CALLS repo/web/f.run -> repo/web/b.C.m")),
        "{:#?}",
        edges(&store)
    );

    fx.write("rs/src/a.rs", "pub struct T;\n");
    fx.commit_all("S renamed");
    fold_and_compare(&mut store, &cache, &fx, "S renamed to T");

    fx.write("rs/src/a.rs", "pub struct S;\n\nimpl S {\n    pub fn go(&self) {}\n}\n");
    fx.commit_all("S back, with a second go");
    fold_and_compare(&mut store, &cache, &fx, "S back with a duplicate method");
}

#[test]
fn a_macros_body_and_what_it_calls_reach_the_files_invoking_it() {
    let fx = Fixture::inline(concat!(
        "//- /Cargo.toml\n[package]\nname = \"m\"\nversion = \"0.1.0\"\n",
        "//- /src/lib.rs\n#[macro_use]\nmod macros;\nmod util;\nmod user;\n",
        "//- /src/macros.rs\nmacro_rules! go {\n    () => {\n        crate::util::first();\n    };\n}\n",
        "//- /src/util.rs\npub fn first() {}\n\npub fn second() {}\n",
        "//- /src/user.rs\npub fn run() {\n    go!();\n}\n",
    ));
    let mut store = fresh_index(&fx);
    let cache = FactsCache::default();
    let edges = |store: &Store| canonical(store).1;
    assert!(
        edges(&store).iter().any(|e| e.starts_with("CALLS m::user::run -> m::util::first")),
        "{:#?}",
        edges(&store)
    );
    // The body changes: user.rs, which names neither function, is resolved again.
    fx.write("src/macros.rs", "macro_rules! go {\n    () => {\n        crate::util::second();\n    };\n}\n");
    fx.commit_all("the macro calls second");
    fold_and_compare(&mut store, &cache, &fx, "the macro's body changed");
    assert!(
        edges(&store).iter().any(|e| e.starts_with("CALLS m::user::run -> m::util::second")),
        "{:#?}",
        edges(&store)
    );
    // What the body calls moves away: the invocation's site is resolved again.
    fx.write("src/util.rs", "pub fn first() {}\n");
    fx.commit_all("second is gone");
    fold_and_compare(&mut store, &cache, &fx, "the called function is gone");
}
