//! The tests a report asks to run: which reached test nodes are test cases (or whole test files), and
//! the command that runs them, one per file.
//!
//! A test case is, in Python, a test function or method named `test…` (or a test file's module code);
//! in Rust, a test function taking no arguments (`#[test]` is not recorded apart from `cfg(test)`);
//! in TypeScript and JavaScript, a test file (calls inside `it(…)`/`test(…)` callbacks belong to its
//! module). Commands run from the plane's root: `pytest FILE::Class::test`, `cargo test -p PACKAGE
//! [--test TARGET] -- PATH…` (libtest's substring filters, so a superset may run), and `npx vitest run
//! FILE`, `npx jest FILE` or `npx mocha FILE` as the nearest `package.json` names the runner.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use drsg_planes::Node;
use serde::Serialize;

use super::{Changed, TestRef};
use crate::files::SourceFiles;
use crate::is_test;
use crate::revisions::Revisions;

/// The tests of one file to run, and the command that runs them.
#[derive(Debug, Clone, Serialize)]
pub struct TestRun {
    pub file: String,
    /// A shell command, run from the plane's root.
    pub filter: String,
    /// The test cases' keys (the file's module key when the whole file runs).
    pub tests: Vec<String>,
    /// The changed definitions they reach.
    pub reaches: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Rust,
    Python,
    Js,
}

fn family(file: &str) -> Option<Family> {
    let ext = file.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "rs" => Family::Rust,
        "py" | "pyi" => Family::Python,
        "ts" | "tsx" | "mts" | "cts" | "js" | "jsx" | "mjs" | "cjs" => Family::Js,
        _ => return None,
    })
}

pub(super) struct Runner<'a> {
    store: &'a drsg_planes::Store,
    plane: i64,
    revisions: &'a dyn Revisions,
    root: &'a Path,
    sha: &'a str,
    files: &'a dyn SourceFiles,
    packages: HashMap<String, Option<String>>,
    js_runners: HashMap<String, &'static str>,
    /// Module keys of test files, by file.
    modules: HashMap<String, Option<String>>,
}

impl<'a> Runner<'a> {
    pub fn new(
        store: &'a drsg_planes::Store,
        plane: i64,
        revisions: &'a dyn Revisions,
        root: &'a Path,
        sha: &'a str,
        files: &'a dyn SourceFiles,
    ) -> Runner<'a> {
        Runner {
            store,
            plane,
            revisions,
            root,
            sha,
            files,
            packages: HashMap::new(),
            js_runners: HashMap::new(),
            modules: HashMap::new(),
        }
    }

    /// The test case `node` is, or the test file it is the module of.
    pub fn test_case(&mut self, node: &Node) -> crate::Result<Option<TestRef>> {
        let Some(file) = node.file.clone().filter(|_| is_test(node)) else { return Ok(None) };
        let Some(lang) = family(&file) else { return Ok(None) };
        let label = node.label();
        let case = match lang {
            // pytest collects `test*` functions and methods of `test_*.py` and `*_test.py` files; other
            // files under `tests/` are helpers and fixtures, and `test_client` in a module is no test.
            Family::Python if !pytest_file(&file) => false,
            Family::Python => matches!(label, "Module" | "Function" | "Method"),
            Family::Rust => {
                matches!(label, "Function" | "Method")
                    && node
                        .props
                        .get("signature")
                        .and_then(|v| v.as_str())
                        .is_some_and(|sig| sig.contains(&format!("fn {}()", node.name)))
            }
            Family::Js => label == "Module",
        };
        if !case {
            return Ok(None);
        }
        // What the runner names it by: the key below its file's module (Python), below its crate or
        // test target (Rust); nothing when the whole file runs.
        let id = match lang {
            _ if label == "Module" => String::new(),
            Family::Python => {
                let module = self.module_key(&file)?;
                match module.and_then(|m| node.key.strip_prefix(&format!("{m}.")).map(str::to_owned)) {
                    // A function nested in a test runs with it: the test is the case.
                    Some(rest) => match test_path(&rest) {
                        Some(path) => path,
                        None => return Ok(None),
                    },
                    None => String::new(),
                }
            }
            Family::Rust => node.key.split_once("::").map_or(node.key.as_str(), |(_, rest)| rest).to_owned(),
            Family::Js => String::new(),
        };
        Ok(Some(TestRef { key: node.key.clone(), file, line: node.line.unwrap_or(1), id }))
    }

    fn module_key(&mut self, file: &str) -> crate::Result<Option<String>> {
        if let Some(known) = self.modules.get(file) {
            return Ok(known.clone());
        }
        let module = self
            .store
            .nodes_in_file(self.plane, file)?
            .into_iter()
            .filter(|n| n.label() == "Module")
            .map(|n| n.key)
            .min_by_key(|k| (k.len(), k.clone()));
        self.modules.insert(file.to_owned(), module.clone());
        Ok(module)
    }

    /// The tests to run for `changed`, one command per file, by file.
    pub fn group<'c>(&mut self, changed: impl Iterator<Item = &'c Changed>) -> Vec<TestRun> {
        // file → test (key, runner id) → the changed keys it reaches.
        let mut by_file: BTreeMap<String, BTreeMap<(String, String), BTreeSet<String>>> = BTreeMap::new();
        for c in changed {
            for t in &c.tests {
                let tests = by_file.entry(t.file.clone()).or_default();
                tests.entry((t.key.clone(), t.id.clone())).or_default().insert(c.key.clone());
            }
        }
        let mut out = Vec::new();
        for (file, tests) in by_file {
            // A test and the functions nested in it run as one id.
            let mut ids: Vec<&str> = tests.keys().map(|(_, id)| id.as_str()).collect();
            ids.sort_unstable();
            ids.dedup();
            let first_key = tests.keys().next().map(|(key, _)| key.as_str()).unwrap_or_default();
            let filter = self.command(&file, first_key, &ids);
            let keys: Vec<String> = tests.keys().map(|(key, _)| key.clone()).collect();
            let reaches: BTreeSet<String> = tests.into_values().flatten().collect();
            out.push(TestRun { file, filter, tests: keys, reaches: reaches.into_iter().collect() });
        }
        out
    }

    /// The command running tests `ids` of `file` (an empty id: the whole file); `key` is one of
    /// their keys.
    fn command(&mut self, file: &str, key: &str, ids: &[&str]) -> String {
        let whole = ids.iter().any(|id| id.is_empty());
        match family(file) {
            Some(Family::Python) if whole => format!("pytest {}", quote(file)),
            Some(Family::Python) => {
                let ids: Vec<String> = ids.iter().map(|id| quote(&format!("{file}::{id}"))).collect();
                format!("pytest {}", ids.join(" "))
            }
            Some(Family::Rust) => {
                let package = self.package(file);
                let integration = integration_target(file, key);
                let mut command = String::from("cargo test");
                if let Some(package) = package {
                    command.push_str(&format!(" -p {}", quote(&package)));
                }
                if let Some(target) = &integration {
                    command.push_str(&format!(" --test {}", quote(target)));
                }
                if !whole {
                    command.push_str(" --");
                    for id in ids {
                        command.push(' ');
                        command.push_str(&quote(id));
                    }
                }
                command
            }
            Some(Family::Js) => format!("{} {}", self.js_runner(file), quote(file)),
            None => format!("# run the tests of {file}"),
        }
    }

    /// The Cargo package holding a Rust file, once per directory.
    fn package(&mut self, file: &str) -> Option<String> {
        let dir = file.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
        if let Some(known) = self.packages.get(&dir) {
            return known.clone();
        }
        let found = self.revisions.cargo_package(self.root, self.sha, file);
        self.packages.insert(dir, found.clone());
        found
    }

    /// The test runner the nearest `package.json` above `file` depends on.
    fn js_runner(&mut self, file: &str) -> &'static str {
        let mut dir = file.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
        let start = dir.clone();
        if let Some(known) = self.js_runners.get(&start) {
            return known;
        }
        let found = loop {
            let manifest = if dir.is_empty() { "package.json".to_owned() } else { format!("{dir}/package.json") };
            if let Ok(bytes) = self.files.read(self.root, &manifest)
                && let Ok(value) = serde_json::from_slice::<serde_json::Value>(&bytes)
            {
                let named = |name: &str| {
                    ["dependencies", "devDependencies"]
                        .iter()
                        .any(|section| value.get(section).and_then(|d| d.get(name)).is_some())
                        || value.pointer("/scripts/test").and_then(|t| t.as_str()).is_some_and(|t| t.contains(name))
                };
                if named("vitest") {
                    break "npx vitest run";
                }
                if named("jest") {
                    break "npx jest";
                }
                if named("mocha") {
                    break "npx mocha";
                }
            }
            match dir.rsplit_once('/') {
                Some((up, _)) => dir = up.to_owned(),
                None if !dir.is_empty() => dir.clear(),
                None => break "npx vitest run",
            }
        };
        self.js_runners.insert(start, found);
        found
    }
}

/// The pytest node id below its file of the test a definition keyed `rest` below its module is or sits
/// in (`TestA.test_b.helper` → `TestA::test_b`); `None` when it is in no test.
fn test_path(rest: &str) -> Option<String> {
    let mut path = Vec::new();
    for segment in rest.split('.') {
        path.push(segment);
        if segment.starts_with("test") {
            return Some(path.join("::"));
        }
    }
    None
}

/// Whether a Python test file's definitions are test cases pytest runs (`test_*.py`, `*_test.py`),
/// not fixtures and helpers (`conftest.py`, an app under `tests/`).
pub(super) fn collected(file: &str) -> bool {
    family(file) != Some(Family::Python) || pytest_file(file)
}

/// Whether pytest collects tests from `file` by default (`test_*.py`, `*_test.py`).
fn pytest_file(file: &str) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
}

/// For a Rust integration test (a file under a package's `tests/`), its target: the first segment of
/// its keys.
fn integration_target(file: &str, key: &str) -> Option<String> {
    let under_tests = file.split('/').take_while(|part| *part != "src").any(|part| part == "tests");
    if !under_tests {
        return None;
    }
    // A target whose name another package shares is keyed `<target>@<package crate>`.
    let first = key.split("::").next()?;
    let target = first.split_once('@').map_or(first, |(target, _)| target);
    (!target.is_empty()).then(|| target.to_owned())
}

/// `s` quoted for a POSIX shell when it holds anything but safe characters.
fn quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=@+,".contains(c)) {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_definition_nested_in_a_test_runs_as_that_test() {
        assert_eq!(test_path("TestA.test_b.helper").as_deref(), Some("TestA::test_b"));
        assert_eq!(test_path("test_robust.app_signal").as_deref(), Some("test_robust"));
        assert_eq!(test_path("make_app.inner"), None);
        assert!(pytest_file("tests/test_x.py") && pytest_file("pkg/x_test.py"));
        assert!(!pytest_file("tests/conftest.py") && !pytest_file("src/flask/app.py"));
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(quote("tests/test_app.py::TestX::test_y"), "tests/test_app.py::TestX::test_y");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote("a b"), "'a b'");
    }

    #[test]
    fn integration_tests_are_files_under_a_tests_directory_outside_src() {
        let key = "it::fold::folds";
        assert_eq!(integration_target("tests/it/fold.rs", key), Some("it".into()));
        assert_eq!(integration_target("crates/core/tests/x.rs", key), Some("it".into()));
        assert_eq!(integration_target("src/tests/mod.rs", key), None);
    }
}
