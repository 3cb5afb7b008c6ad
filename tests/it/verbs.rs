//! The read verbs over planes indexed from real git fixtures: one `check_<verb>` helper per verb,
//! snapshots of the text and JSON forms, the hard cases of lookup and call graphs, and confinement.
#![allow(clippy::unwrap_used, reason = "a failed unwrap is a failed test, with its value shown")]

use std::fmt::Write as _;

use drsg::files::DiskFiles;
use drsg_planes::Store;
use drsg_query::{self as q, Answer, Session};
use drsg_testdata::Fixture;

/// A fixture repository indexed into a database beside it.
struct World {
    fixture: Fixture,
    store: Store,
}

impl World {
    fn new(spec: &str) -> World {
        let fixture = Fixture::inline(spec);
        let mut store = Store::open(&fixture.outside().join("graph.drsg")).expect("open store");
        let registry = drsg_plugins::builtin();
        drsg_indexer::index_tree(
            fixture.path(),
            &registry,
            &mut store,
            &drsg_indexer::IndexOptions::default(),
            &drsg_indexer::Silent,
        )
        .expect("index the fixture");
        World { fixture, store }
    }

    fn session(&self) -> Session<'_> {
        Session { store: &self.store, cwd: None, files: &DiskFiles }
    }
}

/// Text form, then a blank line, then the JSON form: what a snapshot records.
fn both(answer: &impl Answer, budget: Option<usize>) -> String {
    let mut out = q::render(answer, budget);
    let _ = write!(out, "\n{}", serde_json::to_string_pretty(answer).expect("answers serialize"));
    out
}

fn check_context(w: &World, name: &str, depth: Option<u32>) -> (String, bool) {
    let p = q::ContextParams { name: name.into(), depth, ..Default::default() };
    let answer = q::context(&w.session(), &p).expect("context answers");
    (q::render(&answer, None), answer.found())
}

fn check_describe(w: &World, name: &str) -> String {
    let p = q::DescribeParams { name: name.into(), plane: None };
    q::render(&q::describe(&w.session(), &p).expect("describe answers"), None)
}

fn check_file(w: &World, path: &str) -> String {
    let p = q::FileParams { path: path.into(), plane: None };
    q::render(&q::file(&w.session(), &p).expect("file answers"), None)
}

fn check_search(w: &World, query: &str) -> String {
    let p = q::SearchParams { query: query.into(), k: Some(5), ..Default::default() };
    q::render(&q::search(&w.session(), &p).expect("search answers"), None)
}

fn check_grep(w: &World, p: q::GrepParams) -> q::Result<String> {
    q::grep(&w.session(), &p).map(|a| q::render(&a, None))
}

fn check_snippet(w: &World, name: &str, lines: Option<u32>) -> q::Result<String> {
    let p = q::SnippetParams { name: name.into(), lines, plane: None };
    q::snippet(&w.session(), &p).map(|a| q::render(&a, None))
}

fn check_trace(w: &World, from: &str, to: &str) -> String {
    let p = q::TraceParams { from: from.into(), to: to.into(), plane: None };
    both(&q::trace(&w.session(), &p).expect("trace answers"), None)
}

fn check_impact(w: &World, name: &str, depth: Option<u32>) -> String {
    let p = q::ImpactParams { name: name.into(), depth, ..Default::default() };
    both(&q::impact(&w.session(), &p).expect("impact answers"), None)
}

fn check_fathom(w: &World, name: &str) -> String {
    let p = q::FathomParams { name: name.into(), depth: Some(2), plane: None };
    q::render(&q::fathom(&w.session(), &p).expect("fathom answers"), None)
}

fn check_node(w: &World, key: &str) -> (String, bool) {
    let p = q::NodeParams { key: Some(key.into()), id: None, plane: None };
    let answer = q::node(&w.session(), &p).expect("node answers");
    (q::render(&answer, None), answer.found())
}

fn check_traverse(w: &World, from: &str, direction: &str, edge_type: Option<&str>, max: u32) -> String {
    let p = q::TraverseParams {
        from: from.into(),
        direction: Some(direction.into()),
        edge_type: edge_type.map(str::to_owned),
        max: Some(max),
        ..Default::default()
    };
    q::render(&q::traverse(&w.session(), &p).expect("traverse answers"), None)
}

/// A Python package with the hard cases: two `validate`s in different modules, a recursive function,
/// a chain broken by an untyped receiver, a function only tests call, and (added by `popular`) a
/// function with 200 callers.
const APP: &str = r#"
//- commit: app
//- /app/__init__.py
//- /app/core.py
"""Core rules."""


def validate(x):
    """Accept anything truthy."""
    return bool(x)


def helper():
    return validate(1)


def fact(n):
    return 1 if n == 0 else n * fact(n - 1)


def only_in_tests():
    return 42


def popular():
    return 0
//- /app/other.py
def validate(x):
    return not x


def use_other():
    return validate(0)
//- /app/flow.py
def start():
    middle(make())


def make():
    return None


def middle(handler):
    handler.process()


class Processor:
    def process(self):
        finish()


def finish():
    pass
//- /tests/test_core.py
from app.core import helper, only_in_tests


def test_helper():
    assert helper() is True


def test_only():
    assert only_in_tests() == 42
//- /web/package.json
{"name": "@acme/web"}
//- /web/src/App.tsx
export function App() {
  return <div />;
}
//- /web/src/main.tsx
import { App } from "./App";

export function mount() {
  return <App />;
}
"#;

fn app() -> World {
    World::new(APP)
}

#[test]
fn context_of_a_name_defined_twice_lists_candidates() {
    let w = app();
    let (text, found) = check_context(&w, "validate", None);
    assert!(!found);
    insta::assert_snapshot!(text, @r"
    `validate` matches 2 symbols in plane repo; ask again with one of these keys:
      app.core.validate  Function  app/core.py:4  (1 refs)
      app.other.validate  Function  app/other.py:1  (1 refs)
    synced: commit d75391e2eb3c
    ");
}

#[test]
fn context_of_each_same_named_symbol_shows_only_its_own_callers() {
    let w = app();
    let (core, found) = check_context(&w, "core.validate", None);
    assert!(found);
    insta::assert_snapshot!(core);
    let (other, _) = check_context(&w, "app.other.validate", None);
    assert!(other.contains("app.other.use_other  Function  app/other.py:5  line 6"), "{other}");
    assert!(!other.contains("app.core.helper"), "{other}");
    assert!(!core.contains("use_other"), "{core}");
}

#[test]
fn context_json_is_stable() {
    let w = app();
    let p = q::ContextParams { name: "app.flow.middle".into(), ..Default::default() };
    let answer = q::context(&w.session(), &p).expect("context answers");
    insta::assert_snapshot!(both(&answer, None));
}

#[test]
fn recursive_function_is_its_own_caller_and_trace_stops() {
    let w = app();
    let (text, _) = check_context(&w, "fact", None);
    assert!(text.contains("callers: 1 call sites from 1 symbols (complete)"), "{text}");
    assert!(text.contains("  app.core.fact  Function  app/core.py:13  line 14"), "{text}");
    let trace = check_trace(&w, "fact", "fact");
    assert!(trace.starts_with("0 hops from app.core.fact to app.core.fact"), "{trace}");
    let impact = check_impact(&w, "fact", Some(6));
    assert!(impact.contains("0 symbols reach it within 6 hops"), "{impact}");
}

#[test]
fn lookup_by_key_segment_case_and_miss() {
    let w = app();
    // `src/App` names the TSX module; `Processor.process` and `Processor::process` the method.
    assert!(check_describe(&w, "src/App").starts_with("@acme/web/src/App  Module  web/src/App.tsx:1"));
    for name in ["Processor.process", "Processor::process", "processor.PROCESS"] {
        let text = check_describe(&w, name);
        assert!(text.starts_with("app.flow.Processor.process  Method  app/flow.py:14"), "{name}: {text}");
    }
    let (miss, found) = check_context(&w, "proces", None);
    assert!(!found);
    insta::assert_snapshot!(miss, @r"
    no symbol `proces` in plane repo
    nearest names:
      app.flow.Processor.process  Method  app/flow.py:14
      app.flow.Processor  Class  app/flow.py:13
    keys in this plane start with: app, @acme/web, test_core (a key segment such as `Type.method` or `module::fn` also works)
    synced: commit d75391e2eb3c
    ");
}

#[test]
fn trace_finds_the_path_and_its_reverse() {
    let w = app();
    insta::assert_snapshot!(check_trace(&w, "test_helper", "app.core.validate"));
    let reverse = check_trace(&w, "app.core.validate", "test_helper");
    assert!(
        reverse.starts_with(
            "2 hops from test_core.test_helper to app.core.validate (no path forward; this is the reverse)"
        ),
        "{reverse}"
    );
}

#[test]
fn trace_says_where_a_chain_breaks() {
    let w = app();
    insta::assert_snapshot!(check_trace(&w, "start", "finish"));
}

#[test]
fn impact_separates_tests_from_production() {
    let w = app();
    insta::assert_snapshot!(check_impact(&w, "app.core.validate", None));
    let only = check_impact(&w, "only_in_tests", None);
    // The test function, and apart from it the test module that imports; no production code.
    assert!(only.contains("2 symbols reach it within 3 hops (0 production, 1 tests, 1 modules by import"), "{only}");
    assert!(
        only.contains("  tests: 1\n    test_core.test_only  Function  tests/test_core.py:8  via CALLS\n  modules that import: 1\n    test_core  Module  tests/test_core.py:1\n"),
        "{only}"
    );
}

#[test]
fn the_unresolved_sites_behind_a_lower_bound_are_listed_with_file_and_line() {
    let w = app();
    // `handler.process()` in `middle` has no receiver type: it may call `Processor.process`.
    let (text, _) = check_context(&w, "Processor.process", None);
    assert!(text.contains("(lower bound: 1 unresolved call sites named `process` elsewhere may also call it, not counted (--unresolved lists them))"), "{text}");
    let listed = |p: q::ContextParams| q::render(&q::context(&w.session(), &p).expect("context answers"), None);
    let p = q::ContextParams { name: "Processor.process".into(), unresolved: Some(true), ..Default::default() };
    let text = listed(p.clone());
    assert!(
        text.contains("unresolved sites that may reach it: 1 (by file and line)\n  app/flow.py:10  in app.flow.middle  `handler.process`  (method call: receiver type unknown)\n"),
        "{text}"
    );
    // Paged like the callers: a page past the end holds none and says there are no more.
    let past = q::context(&w.session(), &q::ContextParams { offset: Some(1), ..p }).expect("context answers");
    let json = serde_json::to_value(&past).unwrap();
    assert_eq!(json["callers"]["unresolved"]["total"], 1, "{json}");
    assert_eq!(json["callers"]["unresolved"]["items"].as_array().map(Vec::len), Some(0), "{json}");
    assert_eq!(json["callers"]["unresolved"]["more"], false, "{json}");

    // `finish` has one caller, whose own callers may include that site: complete at depth 1 only.
    let (one, _) = check_context(&w, "finish", None);
    assert!(one.contains("callers: 1 call sites from 1 symbols (complete)"), "{one}");
    let (two, _) = check_context(&w, "finish", Some(2));
    assert!(
        two.contains("(lower bound: 1 unresolved call sites named like these callers elsewhere may also call it"),
        "{two}"
    );
    let p = q::ImpactParams { name: "finish".into(), unresolved: Some(true), ..Default::default() };
    let impact = q::render(&q::impact(&w.session(), &p).expect("impact answers"), None);
    assert!(impact.contains("lower bound: 1 unresolved call sites named like these symbols may also reach it (not counted)\nunresolved sites that may reach it: 1 (by file and line)\n  app/flow.py:10  in app.flow.middle"), "{impact}");
}

#[test]
fn a_constructor_is_called_by_its_class_instantiations() {
    let w = World::new(
        r#"
//- commit: ctor
//- /app/shop.py
class Cart:
    def __init__(self, owner):
        self.owner = owner


def checkout():
    return Cart("ann")


def test_cart():
    assert Cart("bob")
//- /web/package.json
{"name": "web"}
//- /web/src/cart.ts
export class Basket {
  constructor(public owner: string) {}
}

export function open(): Basket {
  return new Basket("ann");
}
"#,
    );
    for (ctor, caller) in [
        ("Cart.__init__", "  shop.checkout  Function  app/shop.py:6  line 7"),
        ("Basket.constructor", "  web/src/cart.open  Function  web/src/cart.ts:5  line 6"),
    ] {
        let (text, found) = check_context(&w, ctor, None);
        assert!(found, "{text}");
        assert!(text.contains(caller), "{ctor}: {text}");
        assert!(text.contains("(a constructor: the instantiations of "), "{ctor}: {text}");
    }
    let (py, _) = check_context(&w, "Cart.__init__", None);
    assert!(py.contains("callers: 2 call sites from 2 symbols (complete)"), "{py}");
    // `impact` walks from the constructor to what instantiates its class, tests apart.
    let impact = check_impact(&w, "Cart.__init__", None);
    assert!(impact.contains("2 symbols reach it within 3 hops (1 production, 1 tests"), "{impact}");
    let trace = check_trace(&w, "checkout", "Cart.__init__");
    assert!(
        trace.starts_with("2 hops from shop.checkout to shop.Cart.__init__\n  shop.checkout  Function  app/shop.py:6\n  → shop.Cart  Class  app/shop.py:1  (INSTANTIATES at line 7, by scope)\n  → shop.Cart.__init__  Method  app/shop.py:2  (the constructor of the class above)\n"),
        "{trace}"
    );
    assert!(impact.contains("    shop.checkout  Function  app/shop.py:6  via INSTANTIATES"), "{impact}");
}

#[test]
fn an_interface_method_lists_its_implementations_and_they_are_reached_through_it() {
    let w = World::new(
        r#"
//- commit: traits
//- /Cargo.toml
[package]
name = "tr"
version = "0.1.0"
edition = "2021"
//- /src/lib.rs
pub trait Speak { fn speak(&self); }
pub struct Dog;
impl Speak for Dog { fn speak(&self) {} }
pub fn talk(s: &dyn Speak) { s.speak(); }
//- /web/package.json
{"name": "web"}
//- /web/src/shape.ts
export interface Shape { area(): number; }
export class Sq implements Shape { area(): number { return 1; } }
export function total(s: Shape) { return s.area(); }
"#,
    );
    for (interface, implementation, caller) in [
        ("tr::Speak::speak", "<tr::Dog as tr::Speak>::speak", "tr::talk  Function  src/lib.rs:4"),
        ("Shape.area", "web/src/shape.Sq.area", "web/src/shape.total  Function  web/src/shape.ts:3"),
    ] {
        let (text, _) = check_context(&w, interface, None);
        assert!(
            text.contains(&format!("implemented by: 1 (calls bound to it may run these)\n  {implementation}  Method")),
            "{text}"
        );
        // The implementation's callers are not complete: the interface's call sites may run it.
        let (text, _) = check_context(&w, implementation, None);
        assert!(text.contains("callers: none (a lower bound: 1 call sites bound to "), "{text}");
        let impact = check_impact(&w, implementation, None);
        assert!(impact.contains(&format!("    {caller}  via interface")), "{impact}");
        // `trace` from the caller ends with the hop through the interface.
        let from = caller.split_whitespace().next().unwrap();
        let trace = check_trace(&w, from, implementation);
        assert!(trace.starts_with(&format!("2 hops from {from} to {implementation}\n")), "{trace}");
        let last = trace.lines().nth(3).unwrap_or_default();
        assert!(last.starts_with(&format!("  → {implementation}  Method  ")), "{trace}");
        assert!(last.ends_with("(via interface: it implements the method above)"), "{trace}");
    }
}

#[test]
fn walks_go_through_an_interface_and_a_constructor_in_the_middle_of_a_path() {
    let w = World::new(
        r#"
//- commit: dispatch
//- /Cargo.toml
[package]
name = "tr"
version = "0.1.0"
edition = "2021"
//- /src/lib.rs
pub trait Speak { fn speak(&self); }
pub struct Dog;
impl Speak for Dog { fn speak(&self) { wag() } }
pub fn wag() {}
pub fn talk(s: &dyn Speak) { s.speak(); }
pub fn run() { talk(&Dog); }
//- /app/shop.py
class Cart:
    def __init__(self):
        self.load()

    def load(self):
        pass


def checkout():
    return Cart()
"#,
    );
    // The implementation's callee is reached through the trait method the caller's call is bound to.
    let trace = check_trace(&w, "tr::run", "tr::wag");
    let hops: Vec<&str> = trace.lines().skip(2).take(4).collect();
    assert!(trace.starts_with("4 hops from tr::run to tr::wag\n"), "{trace}");
    assert!(hops[0].starts_with("  → tr::talk  Function") && hops[0].contains("(CALLS at line 6"), "{trace}");
    assert!(hops[1].starts_with("  → tr::Speak::speak  Method"), "{trace}");
    assert!(hops[2].starts_with("  → <tr::Dog as tr::Speak>::speak  Method"), "{trace}");
    assert!(hops[2].ends_with("(via interface: it implements the method above)"), "{trace}");
    assert!(hops[3].starts_with("  → tr::wag  Function") && hops[3].contains("(CALLS at line 3"), "{trace}");
    let impact = check_impact(&w, "tr::wag", None);
    assert!(impact.contains("    tr::talk  Function  src/lib.rs:5  via interface"), "{impact}");
    assert!(impact.contains("    tr::run  Function  src/lib.rs:6  via CALLS"), "{impact}");
    // A method the constructor calls is reached from what instantiates the class.
    let trace = check_trace(&w, "checkout", "Cart.load");
    assert!(
        trace.starts_with("3 hops from shop.checkout to shop.Cart.load\n  shop.checkout  Function  app/shop.py:9\n  → shop.Cart  Class  app/shop.py:1  (INSTANTIATES at line 10, by scope)\n  → shop.Cart.__init__  Method  app/shop.py:2  (the constructor of the class above)\n  → shop.Cart.load  Method  app/shop.py:5  (CALLS at line 3, by "),
        "{trace}"
    );
    let impact = check_impact(&w, "Cart.load", None);
    assert!(impact.contains("    shop.checkout  Function  app/shop.py:9  via INSTANTIATES"), "{impact}");
}

#[test]
fn a_module_keeps_its_path_and_the_function_of_its_name_is_found_by_calling_it() {
    let w = World::new(
        r#"
//- commit: names
//- /Cargo.toml
[package]
name = "k"
version = "0.1.0"
edition = "2021"
//- /src/lib.rs
mod search;
pub fn search() { search::run(); }
pub fn main() { search(); }
//- /src/search.rs
pub fn run() {}
"#,
    );
    let (module, _) = check_context(&w, "k::search", None);
    assert!(module.starts_with("k::search  Module  src/search.rs:1"), "{module}");
    let (function, found) = check_context(&w, "search()", None);
    assert!(found && function.starts_with("k::search#2  Function  src/lib.rs:2"), "{function}");
    // A bare name matches both: context lists them, the walks along calls take the function and say so.
    let (both, found) = check_context(&w, "search", None);
    assert!(!found && both.contains("`search` matches 2 symbols"), "{both}");
    let note = "`search` names k::search#2 and module k::search: this answer is about the function";
    let trace = check_trace(&w, "main", "search");
    assert!(trace.starts_with(&format!("{note}\n1 hops from k::main to k::search#2\n")), "{trace}");
    let trace = check_trace(&w, "main", "run");
    assert!(trace.starts_with("2 hops from k::main to k::search::run\n"), "{trace}");
    let impact = check_impact(&w, "search", None);
    assert!(impact.starts_with(&format!("{note}\nimpact of k::search#2  Function")), "{impact}");
}

#[test]
fn a_module_given_to_trace_or_impact_is_said_to_be_one_and_its_functions_are_tried() {
    let w = World::new(
        r#"
//- commit: a module and a function of one key
//- /Cargo.toml
[package]
name = "k"
version = "0.1.0"
edition = "2021"
//- /src/main.rs
mod search;
mod other;
fn search() { search::run(); }
fn main() { search(); }
//- /src/search.rs
pub fn run() { crate::other::leaf(); }
//- /src/other.rs
pub fn leaf() {}
pub fn lonely() {}
"#,
    );
    // `k::search` is the module's key exactly, and `k::search#2` the function's.
    let trace = check_trace(&w, "k::search", "leaf");
    let note = "`k::search` names module k::search and function k::search#2: this answer is about the function";
    assert!(trace.starts_with(&format!("{note}\n2 hops from k::search#2 to k::other::leaf\n")), "{trace}");
    let impact = check_impact(&w, "k::search", None);
    assert!(impact.starts_with(&format!("{note}\nimpact of k::search#2  Function")), "{impact}");
    // A module alone: the path of one of its functions, said so.
    let trace = check_trace(&w, "k::other", "k::main");
    assert!(
        trace.starts_with(
            "`k::other` is a module: the path is the shortest of its 2 functions', through k::other::leaf\n"
        ),
        "{trace}"
    );
    assert!(trace.contains("(no path forward; this is the reverse)"), "{trace}");
    // A module none of whose functions is joined: never "not connected", its functions named.
    let trace = check_trace(&w, "k::other::lonely", "k::search::run");
    assert!(trace.contains("not connected by calls"), "a function pair may say so: {trace}");
    let trace = check_trace(&w, "k::search::run", "k::other");
    assert!(trace.contains("k::other::leaf"), "{trace}");
    let impact = check_impact(&w, "k::other", None);
    assert!(
        impact.contains("k::other is a module: what follows reaches the module itself (imports, references); its code is called through its 2 functions"),
        "{impact}"
    );
    assert!(impact.contains("  k::other::leaf  Function"), "{impact}");
}

#[test]
fn a_call_in_an_item_another_files_macro_declares_keeps_callers_from_claiming_completeness() {
    let w = World::new(
        r#"
//- commit: items in macros
//- /Cargo.toml
[package]
name = "sk"
version = "0.1.0"
edition = "2021"
//- /src/lib.rs
pub fn inner() -> u32 { 1 }
bitflags! { pub struct F: u32 { const A = inner(); } }
pub fn user() { inner(); }
"#,
    );
    let (text, found) = check_context(&w, "inner", None);
    assert!(found, "{text}");
    assert!(
        text.contains("callers: 1 call sites from 1 symbols (lower bound: 1 unresolved call sites named `inner` elsewhere may also call it"),
        "{text}"
    );
}

#[test]
fn a_file_cut_below_the_depth_limit_makes_answers_about_calls_lower_bounds() {
    let deep = format!("from app.core import f\n\nz = {}1{}\n", "f(".repeat(100_000), ")".repeat(100_000));
    let w = World::new(&format!(
        "//- commit: deep\n//- /app/__init__.py\n//- /app/core.py\ndef f(x):\n    return x\n\n\ndef g():\n    return f(1)\n//- /app/deep.py\n{deep}"
    ));
    let (text, found) = check_context(&w, "app.core.f", None);
    assert!(found, "{text}");
    assert!(text.contains("(a lower bound: 1 files were not read in full, app/deep.py:"), "{text}");
    assert!(!text.contains("complete"), "{text}");
    let impact = check_impact(&w, "app.core.f", None);
    assert!(impact.contains("lower bound: 1 files were not read in full, app/deep.py:"), "{impact}");
    assert!(!impact.contains("complete:"), "{impact}");
    let trace = check_trace(&w, "app.core.g", "app.core.f");
    assert!(trace.starts_with("1 hops"), "{trace}");
}

#[test]
fn lone_carriage_returns_end_lines_and_a_byte_order_mark_is_not_shown() {
    let w = World::new(
        "//- commit: endings\n//- /app/__init__.py\n//- /app/mac.py\ndef a():\r    return 1\r\rdef b():\r    return a()\r\n//- /app/bom.py\n\u{feff}def c():\n    return 2\n",
    );
    let (text, _) = check_context(&w, "app.mac.b", None);
    assert!(text.starts_with("app.mac.b  Function  app/mac.py:4"), "{text}");
    let (text, _) = check_context(&w, "app.mac.a", None);
    assert!(text.contains("app.mac.b  Function  app/mac.py:4  line 5"), "{text}");
    let snippet = check_snippet(&w, "app.mac.b", None).unwrap();
    assert!(
        !snippet.contains('\r') && snippet.contains("4  def b():\n") && snippet.contains("5      return a()"),
        "{snippet:?}"
    );
    let snippet = check_snippet(&w, "app.bom.c", None).unwrap();
    assert!(!snippet.contains('\u{feff}') && snippet.contains("1  def c():"), "{snippet:?}");
}

#[test]
fn two_hundred_callers_are_capped_with_exact_counts() {
    let mut spec = String::from(APP);
    spec.push_str("//- /app/many.py\nfrom app.core import popular\n");
    for i in 0..200 {
        let _ = write!(spec, "\n\ndef caller_{i:03}():\n    return popular()\n");
    }
    let w = World::new(&spec);
    let (text, _) = check_context(&w, "popular", None);
    assert!(text.contains("callers: 200 call sites from 200 symbols (complete)"), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains("app.many.caller_")).count(), 50, "{text}");
    assert!(text.contains("  … and 150 more (--offset 50)\n"), "{text}");
    let p = q::ContextParams { name: "popular".into(), ..Default::default() };
    let json = serde_json::to_value(q::context(&w.session(), &p).unwrap()).unwrap();
    assert_eq!(json["callers"]["by_symbol"]["total"], 200);
    assert_eq!(json["callers"]["by_symbol"]["items"].as_array().unwrap().len(), 50);
    assert_eq!(
        (&json["callers"]["by_symbol"]["offset"], &json["callers"]["by_symbol"]["more"]),
        (&0.into(), &true.into())
    );
    // A script pages through the whole list: every caller once, in order, the last page saying so.
    let mut keys = Vec::new();
    for offset in [0, 80, 160] {
        let page = q::ContextParams { limit: Some(80), offset: Some(offset), ..p.clone() };
        let json = serde_json::to_value(q::context(&w.session(), &page).unwrap()).unwrap();
        let group = &json["callers"]["by_symbol"];
        assert_eq!(
            (&group["total"], &group["offset"], &group["more"]),
            (&200.into(), &offset.into(), &(offset < 160).into())
        );
        keys.extend(group["items"].as_array().unwrap().iter().map(|c| c["key"].as_str().unwrap().to_owned()));
    }
    let expected: Vec<String> = (0..200).map(|i| format!("app.many.caller_{i:03}")).collect();
    assert_eq!(keys, expected);
    let last =
        q::render(&q::context(&w.session(), &q::ContextParams { offset: Some(190), ..p.clone() }).unwrap(), None);
    assert!(last.contains("  (items 191-200 of 200)\n") && !last.contains("more (--offset"), "{last}");
    let bad = q::context(&w.session(), &q::ContextParams { limit: Some(0), ..p.clone() }).unwrap_err();
    assert_eq!(bad.to_string(), "`limit` is at least 1");
    // A small budget keeps the callers that fit and says where to read on; what still does not fit is cut, saying so.
    let answer = q::context(&w.session(), &p).unwrap();
    let small = q::render(&answer, Some(1_000));
    assert!(small.len() <= 1_000 && small.contains("  app.many.caller_011  Function"), "{small}");
    assert!(small.contains("\n  … and 188 more (--offset 12)\ncalls: none\n"), "{small}");
    let tiny = q::render(&answer, Some(400));
    assert!(tiny.len() <= 400 && tiny.contains("\n  … and 199 more (--offset 1)\n"), "{tiny}");
    // Its next page starts there, and its header says what it shows.
    let next =
        q::render(&q::context(&w.session(), &q::ContextParams { offset: Some(12), ..p.clone() }).unwrap(), Some(1_000));
    assert!(next.contains("  (items 13-") && next.contains("  app.many.caller_012  Function"), "{next}");
    let impact = check_impact(&w, "popular", Some(1));
    // 200 callers, and apart from them the module that imports it.
    assert!(
        impact.contains("201 symbols reach it within 1 hops (200 production, 0 tests, 1 modules by import"),
        "{impact}"
    );
    assert!(impact.contains("\n  … and 170 more (--offset 30)\n"), "{impact}");
    assert!(impact.contains("  modules that import: 1\n    app.many  Module"), "{impact}");
    // The JSON form keeps to the budget the same way, its page saying what it holds and that more follows.
    let World { fixture, store } = w;
    drop(store);
    let db = fixture.outside().join("graph.drsg");
    let out = crate::cli::drsg(&db, &["context", "popular", "--json", "--budget", "2000"], fixture.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json.to_string().len() <= 2_000, "{json}");
    let page = &json["callers"]["by_symbol"];
    let shown = page["items"].as_array().unwrap().len();
    assert!(shown > 0 && shown < 50, "{json}");
    assert_eq!((&page["total"], &page["more"]), (&200.into(), &true.into()));
    assert_eq!(json["cut_to_budget"]["items_left_out"], 50 - shown);
}

#[test]
fn describe_file_search_fathom_node_traverse() {
    let w = app();
    insta::assert_snapshot!(check_describe(&w, "app.core.validate"), @r"
    app.core.validate  Function  app/core.py:4
      end_line: 6
      doc: Accept anything truthy.
      is_test: false
      language: python
      signature: def validate(x):
      visibility: public
    synced: commit d75391e2eb3c
    ");
    insta::assert_snapshot!(check_file(&w, "tests/test_core.py"));
    let missing = check_file(&w, "core");
    assert!(missing.starts_with("no indexed file `core`") && missing.contains("  app/core.py"), "{missing}");
    insta::assert_snapshot!(check_search(&w, "validate"));
    insta::assert_snapshot!(check_fathom(&w, "app.core.helper"));
    let (node, found) = check_node(&w, "app.core.fact");
    assert!(found && node.contains("\"key\": \"app.core.fact\""), "{node}");
    let (none, found) = check_node(&w, "fact");
    assert!(!found && none.starts_with("no node fact; `node` takes an exact key"), "{none}");
    insta::assert_snapshot!(check_traverse(&w, "test_helper", "out", Some("CALLS"), 3), @r"
    from test_core.test_helper  Function  tests/test_core.py:4
    3 nodes reached out over CALLS, 1..3 hops
      [1] app.core.helper  Function  app/core.py:9  via CALLS
      [2] app.core.validate  Function  app/core.py:4  via CALLS
      [3] ext::bool  External  via CALLS
    synced: commit d75391e2eb3c
    ");
}

#[test]
fn snippet_shows_a_declaration_and_ranges() {
    let w = app();
    insta::assert_snapshot!(check_snippet(&w, "Processor", None).unwrap(), @r"
    app/flow.py:13-15  in app.flow.Processor  Class  app/flow.py:13
    13  class Processor:
    14      def process(self):
    15          finish()
    synced: commit d75391e2eb3c
    ");
    insta::assert_snapshot!(check_snippet(&w, "app/flow.py:9-10", Some(1)).unwrap(), @r"
    app/flow.py:9-9  in app.flow.middle  Function  app/flow.py:9
    9  def middle(handler):
    … read on: `drsg snippet app/flow.py:10-10` (19 lines in the file)
    synced: commit d75391e2eb3c
    ");
}

#[test]
fn grep_shows_hits_with_their_symbols_like_rg() {
    let w = app();
    let p = q::GrepParams { pattern: "validate(".into(), ..Default::default() };
    insta::assert_snapshot!(check_grep(&w, p).unwrap(), @r"
    4 matching lines in 2 files
    app/core.py
    4:def validate(x):  ← app.core.validate
    10:    return validate(1)  ← app.core.helper
    app/other.py
    1:def validate(x):  ← app.other.validate
    6:    return validate(0)  ← app.other.use_other
    synced: commit d75391e2eb3c
    ");
    let regex =
        q::GrepParams { pattern: r"def \w+_in_\w+".into(), regex: Some(true), context: Some(1), ..Default::default() };
    insta::assert_snapshot!(check_grep(&w, regex).unwrap(), @r"
    1 matching lines in 1 files
    app/core.py
    16-
    17:def only_in_tests():  ← app.core.only_in_tests
    18-    return 42
    synced: commit d75391e2eb3c
    ");
    let capped =
        q::GrepParams { pattern: "def".into(), max_results: Some(2), path: Some("app".into()), ..Default::default() };
    let text = check_grep(&w, capped).unwrap();
    assert!(
        text.starts_with(
            "matching lines 1-2 of 12 shown (3 files); narrow with --path DIR, or read on with --offset 2\n"
        ),
        "{text}"
    );
    // The next page, and the last, with the context of its hits only.
    let next = q::GrepParams {
        pattern: "def".into(),
        max_results: Some(2),
        offset: Some(2),
        path: Some("app".into()),
        ..Default::default()
    };
    let text = check_grep(&w, next).unwrap();
    assert!(text.starts_with("matching lines 3-4 of 12 shown (3 files)"), "{text}");
    assert!(!text.contains("4:def validate(x)") && !text.contains("9:def helper()"), "{text}");
    let last = q::GrepParams {
        pattern: "def".into(),
        offset: Some(11),
        context: Some(1),
        path: Some("app".into()),
        ..Default::default()
    };
    let text = check_grep(&w, last).unwrap();
    assert!(text.starts_with("matching lines 12-12 of 12 shown (3 files)\n"), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains(":def ")).count(), 1, "{text}");
    let bad = q::GrepParams { pattern: "(".into(), regex: Some(true), ..Default::default() };
    let err = check_grep(&w, bad).unwrap_err().to_string();
    assert!(err.starts_with("bad regular expression"), "{err}");
}

#[test]
fn grep_honours_ignore_rules_unless_all_files() {
    let w = app();
    w.fixture.write(".gitignore", "build/\n");
    w.fixture.write("build/gen.py", "def validate_generated(): pass\n");
    let p = q::GrepParams { pattern: "validate_generated".into(), ..Default::default() };
    assert!(check_grep(&w, p.clone()).unwrap().starts_with("no line matches"));
    let all = q::GrepParams { all_files: Some(true), ..p.clone() };
    let text = check_grep(&w, all).unwrap();
    assert!(text.starts_with("1 matching lines in 1 files\nbuild/gen.py\n"), "{text}");
    assert!(text.contains("\n1:def validate_generated"), "{text}");
    // Asked for by name, an ignored directory stays ignored; `all_files` opens it.
    let scoped = q::GrepParams { path: Some("build".into()), ..p.clone() };
    assert!(check_grep(&w, scoped).unwrap().starts_with("no line matches"));
    let scoped_all = q::GrepParams { path: Some("build".into()), all_files: Some(true), ..p.clone() };
    assert!(check_grep(&w, scoped_all).unwrap().starts_with("1 matching lines in 1 files"));
    // A binary file is counted when the pattern occurs in it, and not listed; one that cannot match
    // goes unsaid.
    w.fixture.write_bytes("app/other.bin", b"\0nothing to see\n");
    assert!(!check_grep(&w, p.clone()).unwrap().contains("binary"));
    w.fixture.write_bytes("app/blob.bin", b"\0validate_generated\n");
    let text = check_grep(&w, p).unwrap();
    assert!(text.contains("1 binary files also hold the pattern (not listed"), "{text}");
}

#[test]
fn grep_and_snippet_stay_inside_the_tree() {
    let w = app();
    std::fs::write(w.fixture.outside().join("secret.py"), "TOKEN = 'outside'\n").unwrap();
    std::os::unix::fs::symlink(w.fixture.outside(), w.fixture.path().join("escape")).unwrap();
    std::os::unix::fs::symlink(w.fixture.outside().join("secret.py"), w.fixture.path().join("secret_link.py")).unwrap();
    let refused = |r: q::Result<String>| match r {
        Err(q::Error::File(q::FileError::Escapes { .. })) => {}
        other => panic!("expected a refusal, got {other:?}"),
    };
    for name in ["../secret.py:1", "/etc/passwd:1", "escape/secret.py:1", "secret_link.py:1", "app/../../secret.py:1"] {
        refused(check_snippet(&w, name, None));
    }
    for path in ["..", "/etc", "escape", "secret_link.py", "app/../.."] {
        let p = q::GrepParams { pattern: "TOKEN".into(), path: Some(path.into()), ..Default::default() };
        refused(check_grep(&w, p));
    }
    // A whole-tree search does not follow links out of the tree, even with all_files.
    let p = q::GrepParams { pattern: "outside".into(), all_files: Some(true), ..Default::default() };
    assert!(check_grep(&w, p).unwrap().starts_with("no line matches"));
    // `.git` is not part of the tree.
    match check_snippet(&w, ".git/config:1", None) {
        Err(q::Error::File(q::FileError::GitDir { .. })) => {}
        other => panic!("expected a refusal, got {other:?}"),
    }
    // An absolute path inside the tree is the same file.
    let absolute = format!("{}/app/flow.py:9", w.fixture.path().display());
    assert!(check_snippet(&w, &absolute, None).unwrap().starts_with("app/flow.py:9-9  in app.flow.middle"));
    // A missing file is its own error.
    match check_snippet(&w, "app/nope.py:1", None) {
        Err(q::Error::File(q::FileError::NotFound { .. })) => {}
        other => panic!("expected not found, got {other:?}"),
    }
}

#[test]
fn an_edited_file_is_said_to_be_edited() {
    let w = app();
    // Make the edit visibly later than the plane's write (timestamps are in seconds).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    w.fixture.write("app/flow.py", "# a new first line\ndef start():\n    pass\n");
    let text = check_snippet(&w, "app.flow.middle", None).unwrap();
    assert!(text.contains("warning: `app/flow.py` was edited after the plane was synced"), "{text}");
    let p = q::GrepParams { pattern: "def start".into(), ..Default::default() };
    let text = check_grep(&w, p).unwrap();
    assert!(text.contains("app/flow.py\n  (warning: `app/flow.py` was edited after the plane was synced"), "{text}");
    // Untouched files carry no warning.
    assert!(!check_snippet(&w, "app.core.fact", None).unwrap().contains("warning"));
}

#[test]
fn bad_arguments_are_errors_that_say_what_to_do() {
    let w = app();
    let s = w.session();
    let err = |r: q::Result<String>| r.unwrap_err().to_string();
    assert_eq!(
        err(q::impact(&s, &q::ImpactParams { name: "fact".into(), depth: Some(9), ..Default::default() })
            .map(|a| q::render(&a, None))),
        "depth must be 1 to 6 (got 9)"
    );
    assert!(
        err(q::traverse(
            &s,
            &q::TraverseParams { from: "fact".into(), edge_type: Some("CALL".into()), ..Default::default() }
        )
        .map(|a| q::render(&a, None)))
        .starts_with("unknown edge type `CALL`")
    );
    assert!(
        err(q::context(&s, &q::ContextParams { name: " ".into(), ..Default::default() }).map(|a| q::render(&a, None)))
            .starts_with("the symbol name is empty")
    );
    assert!(
        err(q::context(
            &s,
            &q::ContextParams { name: "fact".into(), plane: Some("nope".into()), ..Default::default() }
        )
        .map(|a| q::render(&a, None)))
        .starts_with("no plane named `nope`")
    );
}

#[test]
fn the_plane_defaults_to_the_one_holding_the_working_directory() {
    let a = Fixture::inline("//- /a.py\ndef only_in_a():\n    pass\n");
    let b = Fixture::inline("//- /b.py\ndef only_in_b():\n    pass\n");
    let mut store = Store::open(&a.outside().join("two.drsg")).unwrap();
    let registry = drsg_plugins::builtin();
    // No plane yet: an error that says how to make one, never an empty answer.
    let empty = Session { store: &store, cwd: None, files: &DiskFiles };
    let err = q::context(&empty, &q::ContextParams { name: "x".into(), ..Default::default() }).unwrap_err();
    assert_eq!(err.to_string(), "the database holds no code plane yet; run `drsg index DIR` first");
    for (fixture, name) in [(&a, "a"), (&b, "b")] {
        let options = drsg_indexer::IndexOptions { plane: Some(name.into()), ..Default::default() };
        drsg_indexer::index_tree(fixture.path(), &registry, &mut store, &options, &drsg_indexer::Silent).unwrap();
    }
    let ask = |cwd: Option<&std::path::Path>, plane: Option<&str>| {
        let s = Session { store: &store, cwd, files: &DiskFiles };
        let p = q::DescribeParams { name: "only_in_b".into(), plane: plane.map(str::to_owned) };
        q::describe(&s, &p).map(|a| q::render(&a, None))
    };
    let err = ask(None, None).unwrap_err().to_string();
    assert!(
        err.starts_with("several code planes and none holds the working directory; name one as `plane` (--plane on the command line): a, b"),
        "{err}"
    );
    let inside_b = b.path().join("sub");
    assert!(ask(Some(&inside_b), None).unwrap().starts_with("b.only_in_b  Function  b.py:1"));
    assert!(ask(Some(a.path()), None).unwrap().starts_with("no symbol `only_in_b` in plane a"));
    assert!(ask(None, Some("b")).unwrap().starts_with("b.only_in_b  Function"));
    assert!(
        ask(None, Some("c")).unwrap_err().to_string().starts_with("no plane named `c`; planes: a, a_git, b, b_git")
    );
}

#[test]
fn answers_say_when_head_has_moved_past_the_plane() {
    let w = app();
    assert!(check_describe(&w, "app.core.fact").ends_with("synced: commit d75391e2eb3c\n"));
    w.fixture.write("app/new.py", "def new():\n    pass\n");
    let head = w.fixture.commit_all("new");
    // The HEAD read is reused for half a second.
    std::thread::sleep(std::time::Duration::from_millis(600));
    let text = check_describe(&w, "app.core.fact");
    assert!(
        text.ends_with(&format!(
            "synced: commit d75391e2eb3c (HEAD has moved to {}: run `drsg fold`, or keep `drsg watch` running, to bring the plane up to date)\n",
            &head[..12]
        )),
        "{text}"
    );
}

#[test]
fn a_member_asked_through_a_subclass_is_found_on_its_nearest_base() {
    let w = World::new(
        r#"
//- commit: bases
//- /web/__init__.py
//- /web/base.py
class Scaffold:
    def route(self, rule):
        return rule

    def other(self):
        return 1
//- /web/app.py
from web.base import Scaffold


class App(Scaffold):
    def other(self):
        return 2


class Web(App):
    pass
//- /tests/test_web.py
from web.app import Web


class Web(Web):
    pass
"#,
    );
    let (route, found) = check_context(&w, "Web.route", None);
    assert!(found && route.starts_with("web.base.Scaffold.route  Method  web/base.py:2"), "{route}");
    // The nearest base's definition wins.
    let (other, found) = check_context(&w, "web.app.Web.other", None);
    assert!(found && other.starts_with("web.app.App.other  Method"), "{other}");
    let (none, found) = check_context(&w, "Web.nothing", None);
    assert!(!found && none.starts_with("no symbol `Web.nothing`"), "{none}");
}

#[test]
fn context_says_where_a_member_is_inherited_from_and_search_ranks_definitions_above_their_tests() {
    let w = World::new(concat!(
        "//- /pyproject.toml\n[project]\nname = \"pkg\"\n",
        "//- /pkg/__init__.py\n",
        "//- /pkg/scaffold.py\nclass Scaffold:\n    def route(self, rule):\n        return rule\n",
        "//- /pkg/app.py\nfrom .scaffold import Scaffold\n\n\nclass Flask(Scaffold):\n    def run(self):\n        pass\n",
        "//- /pkg/config.py\nclass Config(dict):\n    def from_prefixed_env(self, prefix=\"FLASK\"):\n",
        "        \"\"\"Load any environment variables that start with the prefix, dropping the prefix from the\n",
        "        key for the config key.\"\"\"\n        return True\n\n",
        "    def from_mapping(self, mapping):\n        \"\"\"Update the config like update, ignoring items with non-upper keys.\"\"\"\n        return True\n\n\n",
        "class Environment:\n    \"\"\"A template environment.\"\"\"\n\n    def render(self):\n        pass\n",
        "//- /tests/test_config.py\nfrom pkg.config import Config\n\n\n",
        "def test_from_prefixed_env():\n    \"\"\"Load environment variables with a prefix into the config.\"\"\"\n",
        "    Config().from_prefixed_env()\n",
    ));
    let (text, found) = check_context(&w, "Flask.route", None);
    assert!(found && text.contains("inherited from: pkg.scaffold.Scaffold"), "{text}");
    let (text, _) = check_context(&w, "Scaffold.route", None);
    assert!(!text.contains("inherited from"), "{text}");
    // A sentence finds the method whose doc says it, before a class named by one of its words and before
    // the test that exercises it.
    let text = check_search(&w, "load config from environment variables prefix");
    assert!(text.starts_with("pkg.config.Config.from_prefixed_env  Method"), "{text}");
    let text = check_search(&w, "from_prefixed_env");
    let (definition, test) =
        (text.find("pkg.config.Config.from_prefixed_env").unwrap(), text.find("test_from_prefixed_env").unwrap());
    assert!(definition < test, "{text}");
}
