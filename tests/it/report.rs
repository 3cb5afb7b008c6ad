//! `drsg report` end to end on real git fixtures: the changed definitions of each kind, what reaches
//! them, the tests to run with their runners' filters, the risks, `--fail-on`, the temporary database
//! that leaves nothing behind, `--db`, merge bases and shallow clones.
#![allow(clippy::unwrap_used, reason = "a failed unwrap is a failed test, with its value shown")]

use std::path::Path;
use std::process::{Command, Output};

use drsg_testdata::Fixture;
use serde_json::Value;

/// `drsg report ARGS` in `cwd` with no database named and the temporary directory at `tmp`.
fn report(cwd: &Path, tmp: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_drsg"))
        .arg("report")
        .args(args)
        .arg("-q")
        .current_dir(cwd)
        .env_remove("DRSG_DB")
        .env("TMPDIR", tmp)
        .output()
        .expect("run drsg report")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn json_report(fx: &Fixture, args: &[&str]) -> Value {
    let tmp = fx.outside().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = report(fx.path(), &tmp, &all);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The changed definitions as `change key`, in the report's order.
fn changes(r: &Value) -> Vec<String> {
    r["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{} {}", c["change"].as_str().unwrap(), c["key"].as_str().unwrap()))
        .collect()
}

fn changed<'a>(r: &'a Value, key: &str) -> &'a Value {
    r["changed"].as_array().unwrap().iter().find(|c| c["key"] == key).unwrap_or_else(|| panic!("{key} in {r:#}"))
}

const PYTHON: &str = r#"
//- /pkg/__init__.py
//- /pkg/core.py
def helper(x):
    return x + 1


def compute(a):
    return helper(a) * 2


def outer():
    def inner():
        return 1
    return inner()


def old_name(v):
    total = v * 3
    return total - 1


def gone():
    return 0


def _private():
    return 3
//- /pkg/api.py
from pkg.core import compute, gone, old_name


def serve(n):
    return compute(n) + old_name(n)


def drop():
    return gone()
//- /tests/test_core.py
from pkg.core import compute, outer
from pkg.api import serve


def test_compute():
    assert compute(1) == 4


class TestApi:
    def test_serve(self):
        assert serve(1) == 6

    def test_outer(self):
        assert outer() == 1
"#;

/// The head of [`PYTHON`]: a signature, a nested body, a rename, a removal, an addition, and a body
/// change that no test reaches.
const PYTHON_CHANGE: &str = r#"
//- commit: change
//- /pkg/core.py
def helper(x, y=0):
    return x + 1 + y


def compute(a):
    return helper(a) * 2


def outer():
    def inner():
        return 2
    return inner()


def new_name(v):
    total = v * 3
    return total - 1


def added():
    return _private()


def _private():
    return 4
"#;

#[test]
fn a_python_change_lists_definitions_callers_tests_and_risks() {
    let fx = Fixture::inline(PYTHON);
    let base = fx.git(&["rev-parse", "HEAD"]).trim().to_owned();
    fx.apply_inline(PYTHON_CHANGE);
    let r = json_report(&fx, &["--base", "HEAD~1"]);
    assert_eq!(r["base"]["commit"], base.as_str());
    assert_eq!(
        changes(&r),
        [
            "signature pkg.core.helper",
            "body pkg.core.outer",
            "body pkg.core.outer.inner",
            "renamed pkg.core.new_name",
            "added pkg.core.added",
            "removed pkg.core.gone",
            "body pkg.core._private",
        ],
        "{r:#}"
    );
    // Both sides' places.
    let renamed = changed(&r, "pkg.core.new_name");
    assert_eq!((renamed["old_key"].as_str(), renamed["old_line"].as_u64()), (Some("pkg.core.old_name"), Some(15)));
    let private = changed(&r, "pkg.core._private");
    assert_eq!(
        (private["line"].as_u64(), private["old_line"].as_u64(), private["public"].as_bool()),
        (Some(24), Some(24), Some(false))
    );
    // Impact: helper is reached by compute (production) and, through it and serve, by two tests.
    let helper = changed(&r, "pkg.core.helper");
    assert_eq!(helper["impact"]["complete"], true, "{helper:#}");
    assert!(helper["impact"]["production"].as_u64().unwrap() >= 2, "{helper:#}");
    let tests: Vec<&str> = helper["tests"].as_array().unwrap().iter().map(|t| t["key"].as_str().unwrap()).collect();
    assert_eq!(tests, ["test_core.TestApi.test_serve", "test_core.test_compute"]);
    // Tests to run: one pytest command with node ids, every test that reaches a change.
    let runs = r["tests_to_run"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{r:#}");
    assert_eq!(runs[0]["file"], "tests/test_core.py");
    let filter = runs[0]["filter"].as_str().unwrap();
    for id in [
        "tests/test_core.py::TestApi::test_serve",
        "tests/test_core.py::test_compute",
        "tests/test_core.py::TestApi::test_outer",
    ] {
        assert!(filter.starts_with("pytest ") && filter.contains(id), "{id} in {filter}");
    }
    assert_eq!((r["tests_complete"].as_bool(), r["whole_suite"].as_bool()), (Some(true), Some(false)));
    // Risks: a removed function still named at head; the untested public addition; the untested body.
    let risks: Vec<String> = r["risks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| format!("{} {}", k["kind"].as_str().unwrap(), k["key"].as_str().unwrap_or("")))
        .collect();
    assert!(risks.contains(&"removed-referenced pkg.core.gone".to_owned()), "{risks:?}");
    assert!(risks.contains(&"untested-public-change pkg.core.added".to_owned()), "{risks:?}");
    assert!(risks.contains(&"untested-change pkg.core._private".to_owned()), "{risks:?}");
    assert!(!risks.iter().any(|r| r.ends_with("pkg.core.helper")), "helper is tested: {risks:?}");
}

#[test]
fn the_markdown_form_fail_on_and_out_and_nothing_left_behind() {
    let fx = Fixture::inline(PYTHON);
    fx.apply_inline(PYTHON_CHANGE);
    let tmp = fx.outside().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let out = report(fx.path(), &tmp, &["--base", "HEAD~1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let md = text(&out.stdout);
    assert!(md.starts_with("<!-- drsg report -->\n## drsg report: `"), "{md}");
    assert!(md.contains("**7 definitions changed** in 1 files"), "{md}");
    assert!(md.contains("```sh\npytest tests/test_core.py::"), "{md}");
    assert!(md.contains("- **removed-referenced** `pkg.core.gone`"), "{md}");
    assert!(md.contains("```mermaid\ngraph LR\n"), "{md}");

    // --fail-on: exit 3 with the report still written, to --out.
    let file = fx.outside().join("report.md");
    let failed = report(
        fx.path(),
        &tmp,
        &["--base", "HEAD~1", "--fail-on", "untested-public-change", "--out", file.to_str().unwrap()],
    );
    assert_eq!(failed.status.code(), Some(3), "{}", text(&failed.stderr));
    assert!(failed.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), md);
    // A risk kind that does not occur passes; an unknown kind is an error.
    let passed = report(fx.path(), &tmp, &["--base", "HEAD~1", "--fail-on", "public-change"]);
    assert_eq!(passed.status.code(), Some(0), "{}", text(&passed.stderr));
    let unknown = report(fx.path(), &tmp, &["--base", "HEAD~1", "--fail-on", "scary"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(text(&unknown.stderr).contains("--fail-on takes removed-referenced, "), "{}", text(&unknown.stderr));

    // No database stays in the temporary directory or the checkout, which git still sees clean.
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "the temporary database is removed");
    assert_eq!(fx.git(&["status", "--porcelain", "--ignored"]), "");
}

#[test]
fn bad_revisions_fail_before_indexing_and_leave_nothing() {
    let fx = Fixture::inline(PYTHON);
    let tmp = fx.outside().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let out = report(fx.path(), &tmp, &["--base", "no-such-branch"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("error: unknown revision `no-such-branch`"), "{}", text(&out.stderr));
    let out = report(fx.path(), &tmp, &["--base", "HEAD", "--head", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--head: unknown revision `nope`"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
    // Outside a checkout.
    let plain = fx.outside().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let out = report(&plain, &tmp, &["--base", "HEAD"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not in a git checkout"), "{}", text(&out.stderr));
}

#[test]
fn a_moved_base_branch_reports_from_the_merge_base_and_head_may_be_another_commit() {
    let fx = Fixture::inline(PYTHON);
    let fork = fx.git(&["rev-parse", "HEAD"]).trim().to_owned();
    fx.git(&["checkout", "-q", "-b", "feature"]);
    fx.apply_inline("//- commit: feature\n//- /pkg/extra.py\ndef extra():\n    return 1\n");
    let feature = fx.git(&["rev-parse", "HEAD"]).trim().to_owned();
    fx.git(&["checkout", "-q", "main"]);
    fx.apply_inline("//- commit: main moves on\n//- /pkg/later.py\ndef later():\n    return 2\n");
    fx.git(&["checkout", "-q", "feature"]);
    let r = json_report(&fx, &["--base", "main"]);
    // main's own later commit is not the feature's change.
    assert_eq!(changes(&r), ["added pkg.extra", "added pkg.extra.extra"], "{r:#}");
    assert_eq!(r["base"]["commit"], fork.as_str());
    assert!(r["base"]["tip"].is_string(), "{r:#}");
    // --head names another commit than the checkout's: the temporary plane is folded to it.
    fx.git(&["checkout", "-q", "main"]);
    let r = json_report(&fx, &["--base", &fork, "--head", &feature]);
    assert_eq!(r["head"]["commit"], feature.as_str());
    assert_eq!(changes(&r), ["added pkg.extra", "added pkg.extra.extra"], "{r:#}");
}

#[test]
fn a_database_at_head_is_reused_and_one_elsewhere_is_refused() {
    let fx = Fixture::inline(PYTHON);
    fx.apply_inline(PYTHON_CHANGE);
    let db = fx.outside().join("graph.drsg");
    let indexed = crate::cli::drsg(&db, &["index", "."], fx.path());
    assert!(indexed.status.success(), "{}", text(&indexed.stderr));
    let out = crate::cli::drsg(&db, &["report", "--base", "HEAD~1", "--format", "json"], fx.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["counts"]["renamed"], 1, "{r:#}");
    // The plane is at HEAD, not at the asked head.
    let out = crate::cli::drsg(&db, &["report", "--base", "HEAD~1", "--head", "HEAD~1"], fx.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("run `drsg fold --to HEAD~1` first"), "{}", text(&out.stderr));
}

#[test]
fn a_shallow_clone_says_how_to_fetch_the_base() {
    let fx = Fixture::inline(PYTHON);
    fx.apply_inline(PYTHON_CHANGE);
    fx.apply_inline("//- commit: third\n//- /pkg/more.py\ndef more():\n    return 3\n");
    let clone = fx.outside().join("shallow");
    let url = format!("file://{}", fx.path().display());
    let mut git = Command::new("git");
    drsg_testdata::pin_git_env(&mut git);
    let out = git.args(["clone", "-q", "--depth", "1", &url]).arg(&clone).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let tmp = fx.outside().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let out = report(&clone, &tmp, &["--base", "HEAD~2"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("shallow clone") && err.contains("git fetch --deepen"), "{err}");
}

#[test]
fn rust_and_typescript_tests_get_their_runners_filters() {
    let fx = Fixture::inline(
        r#"
//- /Cargo.toml
[package]
name = "calc"
version = "0.1.0"
edition = "2021"
//- /src/lib.rs
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    #[test]
    fn adds() {
        assert_eq!(super::add(1, 2), 3);
    }
}
//- /tests/api.rs
#[test]
fn adds_from_outside() {
    assert_eq!(calc::add(2, 2), 4);
}
//- /web/package.json
{"name": "web", "devDependencies": {"vitest": "1.0.0"}}
//- /web/src/sum.ts
export function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
//- /web/src/sum.test.ts
import { sum } from "./sum";
import { test, expect } from "vitest";

test("sums", () => {
  expect(sum([1, 2])).toBe(3);
});
"#,
    );
    fx.apply_inline(
        "//- commit: change\n//- /src/lib.rs\npub fn add(a: i32, b: i32) -> i32 {\n    b + a\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(1, 2), 3);\n    }\n}\n//- /web/src/sum.ts\nexport function sum(xs: number[]): number {\n  return xs.reduce((a, b) => b + a, 0);\n}\n",
    );
    let r = json_report(&fx, &["--base", "HEAD~1"]);
    let filters: Vec<&str> =
        r["tests_to_run"].as_array().unwrap().iter().map(|t| t["filter"].as_str().unwrap()).collect();
    assert!(filters.contains(&"cargo test -p calc -- tests::adds"), "{filters:?}");
    assert!(filters.contains(&"cargo test -p calc --test api -- adds_from_outside"), "{filters:?}");
    assert!(filters.contains(&"npx vitest run web/src/sum.test.ts"), "{filters:?}");
}

#[test]
fn the_report_verb_answers_over_the_servers_backend() {
    let fx = Fixture::inline(PYTHON);
    fx.apply_inline(PYTHON_CHANGE);
    let db = fx.outside().join("graph.drsg");
    let indexed = crate::cli::drsg(&db, &["index", "."], fx.path());
    assert!(indexed.status.success(), "{}", text(&indexed.stderr));
    let store = drsg_planes::Store::open(&db).unwrap();
    let backend = drsg::serving::backend(std::sync::Arc::new(drsg_planes::SharedStore::single(store)));
    let args = |v: Value| v.as_object().unwrap().clone();
    let reply = backend.call("report", args(serde_json::json!({"base": "HEAD~1"})), "test", None, &|| {}).unwrap();
    assert!(reply.text.starts_with("<!-- drsg report -->\n## drsg report: `"), "{}", reply.text);
    assert!(reply.text.contains("**7 definitions changed**"), "{}", reply.text);
    // Within the answer budget of every verb, saying so when cut.
    let small = backend
        .call("report", args(serde_json::json!({"base": "HEAD~1", "budget": 400})), "test", None, &|| {})
        .unwrap();
    assert!(small.text.len() < 700, "{}", small.text);
    let bad = backend.call("report", args(serde_json::json!({"base": "nope"})), "test", None, &|| {});
    assert!(bad.is_err());
}

/// A history with each kind of change the report names: a leaf called from two production paths and
/// a test, a public signature with callers in another module, a rename, a removal still referenced, an
/// untested change, a nested function, and a file that no longer parses.
const SHOP: &str = r#"
//- /shop/__init__.py
//- /shop/prices.py
def rate():
    return 2


def price(item, qty):
    return item * qty * rate()


def discount(total):
    return total - 1


def legacy(total):
    return total


def wrap(total):
    def inner(x):
        return x + 1
    return inner(total)
//- /shop/cart.py
from shop.prices import price, discount


def checkout(item):
    return discount(price(item, 1))


def estimate(item):
    return price(item, 2)
//- /shop/broken.py
def fine():
    return 1
//- /tests/test_cart.py
from shop.cart import checkout


def test_checkout():
    assert checkout(3) == 5
"#;

const SHOP_CHANGE: &str = r#"
//- commit: the change
//- /shop/prices.py
def rate():
    return 3


def price(item, qty, tax=0):
    return item * qty * rate() + tax


def reduce(total):
    return total - 1


def wrap(total):
    def inner(x):
        return x + 2
    return inner(total)
//- /shop/cart.py
from shop.prices import price, reduce, legacy


def checkout(item):
    return reduce(price(item, 1))


def estimate(item):
    return price(item, 2) + legacy(item)
//- /shop/broken.py
def fine(:
    return 1
"#;

#[test]
fn the_report_of_every_kind_of_change_as_markdown_and_json() {
    let fx = Fixture::inline(SHOP);
    fx.apply_inline(SHOP_CHANGE);
    let tmp = fx.outside().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let out = report(fx.path(), &tmp, &["--base", "HEAD~1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    insta::assert_snapshot!("report_markdown", text(&out.stdout));
    let r = json_report(&fx, &["--base", "HEAD~1"]);
    insta::assert_json_snapshot!("report_json", r);
    // What a careful reading of the diff finds.
    let rate = changed(&r, "shop.prices.rate");
    let tests: Vec<&str> = rate["tests"].as_array().unwrap().iter().map(|t| t["key"].as_str().unwrap()).collect();
    assert_eq!(tests, ["test_cart.test_checkout"], "the leaf reaches the test through checkout and price");
    assert!(rate["impact"]["production"].as_u64().unwrap() >= 3, "price, checkout, estimate: {rate:#}");
    assert_eq!(changed(&r, "shop.prices.price")["change"], "signature");
    assert_eq!(changed(&r, "shop.prices.reduce")["old_key"], "shop.prices.discount");
    assert_eq!(changed(&r, "shop.prices.wrap.inner")["change"], "body");
    assert_eq!(changed(&r, "shop.prices.wrap")["change"], "body");
    let risks: Vec<String> = r["risks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| format!("{} {}", k["kind"].as_str().unwrap(), k["key"].as_str().or(k["file"].as_str()).unwrap_or("")))
        .collect();
    for expected in [
        "removed-referenced shop.prices.legacy",
        "public-change shop.prices.price",
        "untested-public-change shop.prices.wrap",
        "unparsed shop/broken.py",
    ] {
        assert!(risks.contains(&expected.to_owned()), "{expected} in {risks:?}");
    }
    assert_eq!(r["unparsed"], serde_json::json!(["shop/broken.py"]));
}

#[test]
fn the_ci_script_writes_the_comment_fails_on_risks_and_leaves_nothing_on_error() {
    let fx = Fixture::inline(SHOP);
    fx.git(&["checkout", "-q", "-b", "feature"]);
    fx.apply_inline(SHOP_CHANGE);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci/drsg-report.sh");
    let bin = Path::new(env!("CARGO_BIN_EXE_drsg")).parent().unwrap().to_owned();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let tmp = fx.outside().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let run = |base: &str, fail_on: &str| {
        Command::new("sh")
            .arg(&script)
            .arg(base)
            .arg(fx.outside().join("comment.md"))
            .current_dir(fx.path())
            .env("PATH", &path)
            .env("TMPDIR", &tmp)
            .env("DRSG_FAIL_ON", fail_on)
            .env_remove("DRSG_DB")
            .output()
            .unwrap()
    };
    let comment = fx.outside().join("comment.md");
    let out = run("main", "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let md = std::fs::read_to_string(&comment).unwrap();
    assert!(md.starts_with("<!-- drsg report -->\n## drsg report: "), "{md}");
    let out = run("main", "removed-referenced,unparsed");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(comment.exists(), "a failing report is still posted");
    let out = run("no-such-base", "");
    assert_eq!(out.status.code(), Some(2));
    assert!(!comment.exists(), "no report, no comment: {}", text(&out.stderr));
    assert_eq!(fx.git(&["status", "--porcelain"]), "");
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
    // The workflow kept in the repository runs this script.
    let workflow =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci/drsg-report.yml")).unwrap();
    assert!(workflow.contains("sh docs/ci/drsg-report.sh \"origin/${{ github.base_ref }}\" drsg-report.md"));
    assert!(workflow.contains("startswith(\"<!-- drsg report -->\")"), "the sticky comment's marker");
}

#[test]
fn pytest_collects_what_the_report_lists_and_fixtures_make_a_lower_bound() {
    let fx = Fixture::inline(
        r#"
//- /app/__init__.py
//- /app/core.py
class Store:
    def get(self, key):
        return key

    def test_client(self):
        return self.get(1)


def load():
    return 1
//- /tests/conftest.py
from app.core import load


def make():
    return load()
//- /tests/test_core.py
from app.core import Store


def test_nested():
    def inner():
        return Store().test_client()
    assert inner() == 1


def test_by_type():
    assert Store.get(Store(), 2) == 2
"#,
    );
    fx.apply_inline(
        "//- commit: change\n//- /app/core.py\nclass Store:\n    def test_client(self):\n        return 2\n\n\ndef load():\n    return 2\n",
    );
    let r = json_report(&fx, &["--base", "HEAD~1"]);
    let runs: Vec<&str> = r["tests_to_run"].as_array().unwrap().iter().map(|t| t["filter"].as_str().unwrap()).collect();
    // `test_client` of a module is no test; the function nested in a test runs as that test, once; the
    // class changed (a method went), so the test that makes one runs too.
    assert_eq!(runs, ["pytest tests/test_core.py::test_by_type tests/test_core.py::test_nested"], "{r:#}");
    // conftest's fixture reaches `load`: the tests using it are not traced, so the list is a lower bound.
    assert_eq!(r["tests_complete"], false);
    let notes = r["incomplete"].to_string();
    assert!(notes.contains("test helpers or fixtures"), "{notes}");
    // The removed method is still named through its type (`Store.get`), not merely as any `.get(…)`.
    let risk = r["risks"].as_array().unwrap().iter().find(|k| k["kind"] == "removed-referenced").unwrap();
    assert_eq!(risk["key"], "app.core.Store.get");
    assert!(risk["detail"].as_str().unwrap().contains("1 unbound references"), "{risk:#}");
}

/// The same kinds of change in Rust and in TypeScript, each with its runner's tests.
#[test]
fn rust_and_typescript_changes_of_every_kind() {
    let fx = Fixture::inline(
        r#"
//- /Cargo.toml
[package]
name = "shop"
version = "0.1.0"
edition = "2021"
//- /src/lib.rs
pub mod prices;
pub mod cart;
//- /src/prices.rs
pub fn rate() -> u32 {
    2
}

pub fn price(item: u32) -> u32 {
    item * rate()
}

pub fn discount(total: u32) -> u32 {
    total - 1
}

pub fn legacy(total: u32) -> u32 {
    total
}

pub fn wrap(total: u32) -> u32 {
    fn inner(x: u32) -> u32 {
        x + 1
    }
    inner(total)
}
//- /src/cart.rs
use crate::prices::{discount, price};

pub fn checkout(item: u32) -> u32 {
    discount(price(item))
}

#[cfg(test)]
mod tests {
    #[test]
    fn checks_out() {
        assert_eq!(super::checkout(3), 5);
    }
}
//- /web/package.json
{"name": "web", "devDependencies": {"vitest": "1.0.0"}}
//- /web/src/total.ts
export function total(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

export function unused(): number {
  return 0;
}
//- /web/src/total.test.ts
import { total } from "./total";
import { test, expect } from "vitest";

test("totals", () => {
  expect(total([1, 2])).toBe(3);
});
"#,
    );
    fx.apply_inline(
        r#"
//- commit: the change
//- /src/prices.rs
pub fn rate() -> u32 {
    3
}

pub fn price(item: u32, tax: u32) -> u32 {
    item * rate() + tax
}

pub fn reduce(total: u32) -> u32 {
    total - 1
}

pub fn wrap(total: u32) -> u32 {
    fn inner(x: u32) -> u32 {
        x + 2
    }
    inner(total)
}
//- /src/cart.rs
use crate::prices::{legacy, price, reduce};

pub fn checkout(item: u32) -> u32 {
    reduce(price(item, 0)) + legacy(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn checks_out() {
        assert_eq!(super::checkout(3), 8);
    }
}
//- /web/src/total.ts
export function total(xs: number[]): number {
  return xs.reduce((a, b) => b + a, 0);
}

export function unused(: number {
  return 1;
}
"#,
    );
    let r = json_report(&fx, &["--base", "HEAD~1"]);
    assert_eq!(changed(&r, "shop::prices::rate")["change"], "body");
    assert_eq!(changed(&r, "shop::prices::price")["change"], "signature");
    assert_eq!(changed(&r, "shop::prices::reduce")["old_key"], "shop::prices::discount");
    assert_eq!(changed(&r, "shop::prices::legacy")["change"], "removed");
    assert_eq!(changed(&r, "shop::prices::wrap::inner")["change"], "body");
    assert_eq!(changed(&r, "shop::prices::wrap")["change"], "body");
    let rate_tests: Vec<&str> = changed(&r, "shop::prices::rate")["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["key"].as_str().unwrap())
        .collect();
    assert_eq!(rate_tests, ["shop::cart::tests::checks_out"], "the leaf reaches the test through price and checkout");
    let filters: Vec<&str> =
        r["tests_to_run"].as_array().unwrap().iter().map(|t| t["filter"].as_str().unwrap()).collect();
    assert_eq!(
        filters,
        ["cargo test -p shop -- cart::tests::checks_out", "npx vitest run web/src/total.test.ts"],
        "{r:#}"
    );
    let risks: Vec<String> = r["risks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| format!("{} {}", k["kind"].as_str().unwrap(), k["key"].as_str().or(k["file"].as_str()).unwrap_or("")))
        .collect();
    for expected in [
        "removed-referenced shop::prices::legacy",
        "untested-public-change shop::prices::wrap",
        "unparsed web/src/total.ts",
    ] {
        assert!(risks.contains(&expected.to_owned()), "{expected} in {risks:?}");
    }
    assert!(!risks.iter().any(|r| r.ends_with("shop::prices::rate")), "rate is tested: {risks:?}");
}

#[test]
fn an_interrupted_report_removes_its_temporary_database() {
    let fx = Fixture::inline(PYTHON);
    // Enough files that the index of the head is still running when the signal comes.
    for i in 0..400 {
        let body: String = (0..40).map(|j| format!("def f_{i}_{j}(x):\n    return x + {j}\n\n\n")).collect();
        fx.write(&format!("gen/m{i}.py"), &body);
    }
    fx.commit_all("many files");
    fx.apply_inline(PYTHON_CHANGE);
    let tmp = fx.outside().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_drsg"))
        .args(["report", "--base", "HEAD~1", "-q"])
        .current_dir(fx.path())
        .env_remove("DRSG_DB")
        .env("TMPDIR", &tmp)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the temporary database, then interrupt.
    let started = std::time::Instant::now();
    while std::fs::read_dir(&tmp).unwrap().count() == 0 && started.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 1, "the report made its database");
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    // Interrupted (130), or finished just before the signal arrived (0); never killed by the signal
    // with its database left behind.
    assert!(matches!(status.code(), Some(130 | 0)), "interrupted (or just done), never killed: {status:?}");
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "the temporary database is removed");
    assert_eq!(fx.git(&["status", "--porcelain"]), "");
}

#[test]
fn many_risks_are_listed_up_to_a_bound_and_counted_by_kind() {
    let fx = Fixture::inline("//- /pkg/__init__.py\n//- /pkg/a.py\ndef a():\n    return 1\n");
    let added: String = (0..40).map(|i| format!("\n\ndef added_{i}():\n    return {i}\n")).collect();
    fx.write("pkg/a.py", &format!("def a():\n    return 1\n{added}"));
    fx.commit_all("forty untested functions");
    let tmp = fx.outside().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let out = report(fx.path(), &tmp, &["--base", "HEAD~1"]);
    let md = text(&out.stdout);
    assert_eq!(md.lines().filter(|l| l.starts_with("- **untested-public-change**")).count(), 25, "{md}");
    assert!(md.contains("- … and 15 more (15 untested-public-change): the JSON form lists them"), "{md}");
    assert_eq!(json_report(&fx, &["--base", "HEAD~1"])["risks"].as_array().map(Vec::len), Some(40));
}

#[test]
fn a_file_that_always_changed_with_a_touched_one_and_did_not_is_a_co_change_risk() {
    let fx = Fixture::inline(
        "//- /db/schema.sql\ncreate table a (x int);\n//- /web/migrations.ts\nexport const m = 0;\n//- /web/other.ts\nexport const o = 0;\n",
    );
    for i in 1..=6 {
        fx.write("db/schema.sql", &format!("create table a (x int, y{i} int);\n"));
        fx.write("web/migrations.ts", &format!("export const m = {i};\n"));
        if i == 3 {
            fx.write("web/other.ts", "export const o = 3;\n");
        }
        fx.commit_all(&format!("schema {i}"));
    }
    fx.write("db/schema.sql", "create table a (x int, z int);\n");
    fx.commit_all("schema alone");
    let r = json_report(&fx, &["--base", "HEAD~1"]);
    let co: Vec<String> = r["risks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["kind"] == "co-change")
        .map(|k| format!("{} {}", k["file"].as_str().unwrap(), k["detail"].as_str().unwrap()))
        .collect();
    assert_eq!(
        co,
        ["db/schema.sql changed without `web/migrations.ts`, which changed with it in 6 of its 6 commits"],
        "{r:#}"
    );
}
