//! Rust resolution: keys, imports, re-exports, receivers, closures, and the cases that must stay unbound.

use crate::{assert_has, assert_none, index};

const CRATE: &str = r#"
//- /Cargo.toml
[package]
name = "demo-app"
version = "0.1.0"
edition = "2021"
//- /src/lib.rs
//! The demo crate.
mod net;
pub mod util;
pub use net::Client;

pub trait Connect {
    fn connect(&self) -> bool;
}

/// A tree function named like std's constructor.
pub fn new() -> u32 {
    0
}

pub fn run(items: Vec<u32>) {
    let c = Client::new();
    c.open();
    items.iter().for_each(|x| util::helper(*x));
    let v = Vec::new();
    v.len();
}
//- /src/net/mod.rs
use crate::Connect;

pub struct Client {
    pub retries: u32,
}

impl Client {
    pub fn new() -> Self {
        Client { retries: 0 }
    }

    pub fn open(&self) {
        self.reset();
    }

    fn reset(&self) {}
}

impl Connect for Client {
    fn connect(&self) -> bool {
        true
    }
}
//- /src/util.rs
use crate::net::Client as Conn;

pub fn helper(x: u32) -> u32 {
    x
}

pub struct Alpha;
pub struct Beta;
impl Alpha {
    pub fn go(&self) {}
}
impl Beta {
    pub fn go(&self) {}
}

pub fn dial() {
    let c = Conn::new();
    c.open();
}

pub fn untyped<T>(x: T) {
    x.go();
}
"#;

/// A fixture of one Cargo package named `name` (edition 2021) and the files of `rest`.
fn package(name: &str, rest: &str) -> String {
    format!(
        "//- /Cargo.toml\n[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n{}",
        rest.trim_start_matches('\n')
    )
}

#[test]
fn keys_follow_the_crate_and_module_path() {
    let ix = index(CRATE);
    assert_has(
        &ix.keys(),
        &[
            "Module demo_app",
            "Module demo_app::net",
            "Module demo_app::util",
            "Struct demo_app::net::Client",
            "Method demo_app::net::Client::new",
            "Method <demo_app::net::Client as demo_app::Connect>::connect",
            "Trait demo_app::Connect",
            "Function demo_app::util::helper",
        ],
    );
}

#[test]
fn calls_resolve_through_imports_reexports_and_receivers() {
    let ix = index(CRATE);
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            // `Client` is re-exported by `pub use net::Client`; `new` is found on the type.
            "CALLS demo_app::run -> demo_app::net::Client::new L16 [import]",
            // `let c = Client::new(); c.open()`: the receiver's type comes from `new`'s `-> Self`.
            "CALLS demo_app::run -> demo_app::net::Client::open L17 [receiver-type]",
            // A call inside a closure belongs to the enclosing function.
            "CALLS demo_app::run -> demo_app::util::helper L18 [path]",
            // `self.reset()`.
            "CALLS demo_app::net::Client::open -> demo_app::net::Client::reset L13 [self]",
            // Through a `use … as` alias.
            "CALLS demo_app::util::dial -> demo_app::net::Client::new L17 [import]",
            "CALLS demo_app::util::dial -> demo_app::net::Client::open L18 [receiver-type]",
            "INSTANTIATES demo_app::net::Client::new -> demo_app::net::Client L9 [scope]",
        ],
    );
}

#[test]
fn std_and_untyped_receivers_never_bind_to_tree_symbols() {
    let ix = index(CRATE);
    let calls = ix.calls();
    // `Vec::new()` is std's, not the tree's `demo_app::new`.
    assert_has(&calls, &["CALLS demo_app::run -> ext::Vec::new L19 [external]"]);
    assert_none(&calls, "CALLS demo_app::run -> demo_app::new ");
    // `x.go()` with two types defining `go` and an untyped receiver stays unresolved.
    assert_has(&calls, &["CALLS demo_app::util::untyped -> ?go L22 (method call: receiver type unknown)"]);
    assert_none(&calls, "CALLS demo_app::util::untyped -> demo_app::util::");
}

#[test]
fn every_call_site_is_accounted_once() {
    let ix = index(CRATE);
    let a = &ix.report.accounting;
    assert_eq!(a.call_sites, a.resolved + a.external + a.unresolved);
    assert_eq!(a.call_sites as usize, ix.calls().len());
}

#[test]
fn trait_impls_are_recorded() {
    let ix = index(CRATE);
    assert_has(&ix.edges_of(&["IMPLEMENTS"]), &["IMPLEMENTS demo_app::net::Client -> demo_app::Connect L19 []"]);
    assert_has(
        &ix.edges_of(&["HAS_METHOD"]),
        &["HAS_METHOD demo_app::net::Client -> <demo_app::net::Client as demo_app::Connect>::connect []"],
    );
}

#[test]
fn a_call_binds_to_the_function_not_the_module_of_the_same_name() {
    // `mod sleep; pub use sleep::sleep;`: one name, a module and a function (tokio's layout).
    let ix = index(&package(
        "rt",
        r#"
//- /src/lib.rs
pub mod time;

pub fn by_path() {
    time::sleep(1);
    crate::time::sleep(2);
}
//- /src/time/mod.rs
mod sleep;
pub use sleep::sleep;
mod only_module;
//- /src/time/sleep.rs
pub fn sleep(ms: u64) {}
//- /src/time/only_module.rs
pub fn inner() {}
//- /src/app.rs
use crate::time::sleep;
use crate::time::sleep as nap;

pub fn by_import() {
    sleep(3);
    crate::time::only_module(4);
    nap(5);
}
"#,
    ));
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS rt::by_path -> rt::time::sleep::sleep L4 [path]",
            "CALLS rt::by_path -> rt::time::sleep::sleep L5 [path]",
            "CALLS rt::app::by_import -> rt::time::sleep::sleep L5 [import]",
            "CALLS rt::app::by_import -> rt::time::sleep::sleep L7 [import]",
        ],
    );
    // A call that can only mean a module is unresolved, never an edge to the module.
    assert!(!calls.iter().any(|c| c.contains("-> rt::time::only_module ")), "{calls:#?}");
    assert!(!calls.iter().any(|c| c.contains("-> rt::time::sleep L")), "{calls:#?}");
}

/// A Rust module is never a value: a parameter or pattern binding named like a module (tokio's `task`,
/// syn's `path`) is a local the facts do not track, so passing it is no reference to the module; a function
/// of that name beside the module is what a value of that name means.
#[test]
fn a_value_named_like_a_module_never_references_the_module() {
    let ix = index(&package(
        "rt",
        r#"
//- /src/lib.rs
pub mod task;
pub mod hook;
pub use hook::hook;
use crate::task::{self, Task};

pub fn consume<T>(_: T) {}

mod inline {
    pub fn helper() {}
}

pub fn spawn() {
    consume(hook);
    let (inline, _m) = (1, 2);
    consume(inline);
    let (task, _n) = (Task, 1);
    consume(task);
    match Some(1) {
        Some(task) => consume(task),
        None => {}
    }
}
//- /src/task.rs
pub struct Task;
//- /src/hook.rs
pub fn hook() {}
"#,
    ));
    let refs = ix.edges_of(&["REFERENCES"]);
    assert!(!refs.iter().any(|r| r.contains("-> rt::task L") || r.contains("-> rt::inline L")), "{refs:#?}");
    assert_has(&refs, &["REFERENCES rt::spawn -> rt::hook::hook L13 [import]"]);
    assert!(!refs.iter().any(|r| r.contains("-> rt::hook L")), "{refs:#?}");
}

#[test]
fn a_local_shadows_a_function_of_its_name_but_not_a_path() {
    // Locals from `let`, loops, match arms and closure parameters are values of their own: a call or a
    // value of their name is not the crate's function. A path (`task::spawn`) never starts at a local.
    let ix = index(&package(
        "rt",
        r#"
//- /src/lib.rs
pub mod task;

pub fn handler() {}
pub fn item(_: u8) {}
pub fn register<F>(_: F) {}

pub fn run(items: Vec<u8>) {
    let task = 1;
    task::spawn(task);
    for item in items.clone() {
        item();
    }
    let handler = |x: u8| x;
    handler(1);
    register(handler);
    match items.len() { item => register(item) }
    let apply = |handler: u8| handler();
}

pub fn later() {
    handler();
    register(item);
}
pub struct Conn;
impl Conn { pub fn dup(&self) -> Conn { Conn } }
pub fn reopen(conn: Conn, ok: bool) {
    let conn = if ok { conn.dup() } else { conn };
}
pub fn copy(conn: Conn) {
    let twin = conn.dup();
    twin.dup();
}
pub fn share(flag: std::sync::Arc<u8>) {
    let mine = flag.clone();
    mine.load();
}
impl Conn { pub fn maybe(&self) -> Option<Conn> { None } }
pub fn again(conn: Conn) {
    if let Some(conn) = conn.maybe() {}
}
//- /src/task.rs
pub fn spawn(_: u8) {}
"#,
    ));
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS rt::run -> rt::task::spawn L9 [path]",
            "CALLS rt::run -> ?item L11 (call of a local value)",
            "CALLS rt::run -> ?handler L14 (call of a local value)",
            "CALLS rt::run -> ?handler L17 (call of a local value)",
            "CALLS rt::later -> rt::handler L21 [scope]",
            // A `let`'s initialiser still reads the name's earlier meaning: the parameter.
            "CALLS rt::reopen -> rt::Conn::dup L27 [receiver-type]",
            // A type from a call on a local (`conn.dup()`): the path starts at the local, not at an item.
            "CALLS rt::copy -> rt::Conn::dup L30 [receiver-type]",
            "CALLS rt::copy -> rt::Conn::dup L31 [receiver-type]",
            // `clone()` of a value of an external type is a value of that type.
            "CALLS rt::share -> ext::std::sync::Arc::load L35 [external]",
            // So does an `if let`'s value: `conn.maybe()` is the parameter's method.
            "CALLS rt::again -> rt::Conn::maybe L39 [receiver-type]",
        ],
    );
    assert!(!calls.iter().any(|c| c.starts_with("CALLS rt::run -> rt::handler ")), "{calls:#?}");
    assert!(!calls.iter().any(|c| c.starts_with("CALLS rt::run -> rt::item ")), "{calls:#?}");
    let refs = ix.edges_of(&["REFERENCES"]);
    assert_has(&refs, &["REFERENCES rt::later -> rt::item L22 [scope]"]);
    assert!(!refs.iter().any(|r| r.starts_with("REFERENCES rt::run -> rt::")), "{refs:#?}");
}

#[test]
fn calls_in_macro_arguments_bind_and_tokens_stay_unresolved_naming_the_macro() {
    let ix = index(&package(
        "web",
        r#"
//- /src/lib.rs
pub struct Inner;
impl Inner { pub fn route(&mut self) {} }
macro_rules! tap { ($s:ident, mut $i:ident => { $($st:stmt)* }) => {{ let mut $i = $s.into_inner(); $($st)*; }} }
pub struct Router;
impl Router {
    fn into_inner(self) -> Inner { Inner }
    pub fn go(self) {
        tap!(self, mut this => { this.route(); });
    }
}
pub fn validate(_: u8) -> bool { true }
pub fn check(x: u8) {
    assert!(validate(x), "bad {}", describe(x));
    weird!(a => validate(x));
}
fn describe(_: u8) -> String { String::new() }
"#,
    ));
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS web::check -> web::validate L13 [scope]",
            "CALLS web::check -> web::describe L13 [scope]",
            // The file's own macro is expanded: the call its body makes sits at the invocation, and the
            // name it binds (`this`, to `self.into_inner()`) types the statements passed in.
            "CALLS web::Router::go -> web::tap L8 [scope]",
            "CALLS web::Router::go -> web::Router::into_inner L8 [macro]",
            "CALLS web::Router::go -> web::Inner::route L8 [receiver-type]",
            "CALLS web::check -> ?validate L14 (inside macro `weird!`: its tokens do not read as Rust, so what it calls depends on the expansion)",
        ],
    );
    let a = &ix.report.accounting;
    assert_eq!(a.call_sites, a.resolved + a.external + a.unresolved);
    assert_eq!(a.call_sites as usize, calls.len());
}

#[test]
fn functions_and_methods_the_files_own_macros_write_are_symbols_whose_calls_bind() {
    // axum's method router: `get` and `MethodRouter::post` exist only as the expansion of the file's own
    // macros; calls of them bind, and what they call binds from inside them, as resolved by the macro.
    let ix = index(&package(
        "web",
        r#"
//- /src/lib.rs
pub struct MethodRouter;
pub fn on(_: u8) -> MethodRouter { MethodRouter }
macro_rules! top { ($name:ident, $m:literal) => { pub fn $name() -> MethodRouter { on($m) } }; }
macro_rules! chained { ($name:ident, $m:literal) => { pub fn $name(self) -> Self { self.on($m) } }; }
top!(get, 1);
impl MethodRouter {
    pub fn on(self, _: u8) -> Self { self }
    chained!(post, 2);
}
pub fn app() -> MethodRouter {
    get().post()
}
"#,
    ));
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS web::get -> web::on L5 [macro]",
            "CALLS web::MethodRouter::post -> web::MethodRouter::on L8 [macro]",
            "CALLS web::app -> web::get L11 [scope]",
            "CALLS web::app -> web::MethodRouter::post L11 [receiver-type]",
        ],
    );
    let a = &ix.report.accounting;
    assert_eq!(a.call_sites, a.resolved + a.external + a.unresolved);
}

#[test]
fn a_call_through_a_type_parameter_is_unresolved_saying_so_even_where_an_item_has_its_name() {
    let ix = index(&package(
        "gen",
        r#"
//- /src/lib.rs
pub struct Router;
impl Router { pub fn new() -> Self { Router } }
pub fn make<T: Default>() -> T { T::default() }
pub fn shadow<Router: Default>() -> Router { Router::default() }
pub struct Holder<S>(S);
impl<S: Clone> Holder<S> {
    pub fn copy<V: Default>(&self) -> V { S::clone(&self.0); V::default() }
}
"#,
    ));
    let calls = ix.calls();
    let reason = |p: &str| format!("`{p}` is a type parameter: what it runs depends on the type each caller gives");
    let expected = [
        format!("CALLS gen::make -> ?default L3 ({})", reason("T")),
        format!("CALLS gen::shadow -> ?default L4 ({})", reason("Router")),
        format!("CALLS gen::Holder::copy -> ?clone L7 ({})", reason("S")),
        format!("CALLS gen::Holder::copy -> ?default L7 ({})", reason("V")),
    ];
    assert_has(&calls, &expected.iter().map(String::as_str).collect::<Vec<_>>());
}

#[test]
fn items_in_braced_invocations_of_another_files_macro_are_symbols_and_exports() {
    // tokio's layout: `cfg_rt!` is defined in one file and wraps items and re-exports in others.
    let ix = index(&package(
        "tk",
        r#"
//- /src/lib.rs
#[macro_use]
mod macros;
pub mod task;
cfg_rt! {
    pub use task::spawn;
    pub mod runtime;
}
pub fn main_loop() {
    crate::spawn();
    runtime::Runtime::new().block_on();
}
//- /src/macros.rs
macro_rules! cfg_rt { ($($item:item)*) => { $( #[cfg(feature = "rt")] $item )* } }
//- /src/task.rs
cfg_rt! {
    pub fn spawn() { helper() }
}
fn helper() {}
//- /src/runtime.rs
pub struct Runtime;
impl Runtime {
    pub fn new() -> Self { Runtime }
    cfg_rt! {
        pub fn block_on(&self) {}
    }
}
"#,
    ));
    assert_has(&ix.keys(), &["Function tk::task::spawn", "Method tk::runtime::Runtime::block_on"]);
    assert_has(
        &ix.calls(),
        &[
            "CALLS tk::main_loop -> tk::task::spawn L9 [path]",
            "CALLS tk::main_loop -> tk::runtime::Runtime::block_on L10 [receiver-type]",
            "CALLS tk::task::spawn -> tk::task::helper L2 [scope]",
        ],
    );
}

#[test]
fn a_declared_binary_target_is_a_crate_root() {
    // ripgrep's layout: `[[bin]] path = "crates/core/main.rs"`, its modules beside it, and no library.
    let ix = index(&package(
        "ripgrep",
        r#"
[[bin]]
name = "rg"
path = "crates/core/main.rs"
//- /crates/core/main.rs
mod search;
fn main() {
    crate::search::run();
    search::run();
}
//- /crates/core/search.rs
pub fn run() {}
"#,
    ));
    assert_has(
        &ix.calls(),
        &["CALLS rg::main -> rg::search::run L3 [path]", "CALLS rg::main -> rg::search::run L4 [path]"],
    );
}

#[test]
fn a_module_and_a_function_of_one_name_are_told_apart() {
    // ripgrep's main.rs: `mod search;` and `fn search`, side by side in one module.
    let ix = index(&package(
        "app",
        r#"
//- /src/main.rs
mod search;
fn main() {
    search(1);
    search::worker();
}
fn search(_: u8) {}
//- /src/search.rs
pub fn worker() {}
"#,
    ));
    let calls = ix.calls();
    // The module keeps the plain key, as its items are keyed under `app::search::`; the function is
    // `app::search#2`.
    assert_has(
        &calls,
        &["CALLS app::main -> app::search#2 L3 [scope]", "CALLS app::main -> app::search::worker L4 [path]"],
    );
    assert_has(&ix.keys(), &["Module app::search", "Function app::search#2"]);
}

#[test]
fn builder_chains_keep_their_type() {
    // `-> Self`, `-> &mut Self`, `Result<Self, _>` through `?` and `unwrap()`, a turbofish head, a
    // binding from a chain; `?` on a plain `Self` gives nothing, and an `Option` method (`map`) is not
    // taken for the wrapped type's.
    let ix = index(&package(
        "app",
        r#"
//- /src/lib.rs
pub struct Router<S> { s: S }
impl<S> Router<S> {
    pub fn new(s: S) -> Self { Router { s } }
    pub fn route(self, _p: &str) -> Self { self }
    pub fn layer(&mut self) -> &mut Self { self }
    pub fn build(self) -> std::io::Result<Self> { Ok(self) }
    pub fn find(&self) -> Option<Self> { None }
    pub fn map(&self) {}
    pub fn serve(self) {}
}
pub fn run() -> std::io::Result<()> {
    Router::<()>::new(()).route("/a").route("/b").layer().layer();
    Router::new(()).build()?.serve();
    Router::new(()).find().unwrap().serve();
    let r = Router::new(()).route("/c").build()?;
    r.serve();
    Router::new(()).route("/d")?.serve();
    Router::new(()).find().map();
    Ok(())
}
"#,
    ));
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS app::run -> app::Router::route L12 [receiver-type]",
            "CALLS app::run -> app::Router::layer L12 [receiver-type]",
            "CALLS app::run -> app::Router::build L13 [receiver-type]",
            "CALLS app::run -> app::Router::serve L13 [receiver-type]",
            "CALLS app::run -> app::Router::find L14 [receiver-type]",
            "CALLS app::run -> app::Router::serve L14 [receiver-type]",
            "CALLS app::run -> app::Router::serve L16 [receiver-type]",
        ],
    );
    // Two `route`s and two `layer`s on line 12, each bound.
    let on = |line: &str, callee: &str| calls.iter().filter(|c| c.contains(callee) && c.contains(line)).count();
    assert_eq!(on(" L12 ", "-> app::Router::route "), 2, "{calls:#?}");
    assert_eq!(on(" L12 ", "-> app::Router::layer "), 2, "{calls:#?}");
    // `?` on a `Self` that is no `Result`: the chain's type is lost, and the site says where.
    assert_has(
        &calls,
        &["CALLS app::run -> ?serve L17 (method call: receiver is a call chain whose type is lost at `?`)"],
    );
    // `Option::map`, not `Router::map`.
    assert!(!calls.iter().any(|c| c.contains("-> app::Router::map")), "{calls:#?}");
}

#[test]
fn a_glob_of_an_enclosing_module_takes_its_private_imports() {
    // axum's routing tests: `tests/mod.rs` imports `crate::Router` privately, and `tests/merge.rs` and an
    // inline `mod inner` reach it through `use super::*`. A glob of a module that does not enclose the
    // importer takes only what that module exports.
    let ix = index(&package(
        "app",
        r#"
//- /src/lib.rs
pub mod routing;
pub mod other;
pub use routing::Router;
//- /src/routing/mod.rs
pub struct Router;
impl Router {
    pub fn new() -> Self { Router }
    pub fn route(self) -> Self { self }
}
pub mod tests;
//- /src/routing/tests/mod.rs
use crate::Router;
mod merge;
fn helper() {}
mod inner {
    use super::*;
    fn t() { Router::new(); helper(); }
}
//- /src/routing/tests/merge.rs
use super::*;
fn t() { Router::new().route(); helper(); }
//- /src/other.rs
use crate::routing::tests::*;
fn o() { Router::new(); }
"#,
    ));
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS app::routing::tests::inner::t -> app::routing::Router::new L6 [import]",
            "CALLS app::routing::tests::inner::t -> app::routing::tests::helper L6 [import]",
            "CALLS app::routing::tests::merge::t -> app::routing::Router::new L2 [import]",
            "CALLS app::routing::tests::merge::t -> app::routing::Router::route L2 [receiver-type]",
            "CALLS app::routing::tests::merge::t -> app::routing::tests::helper L2 [import]",
        ],
    );
    // `other` is outside `tests`: its glob does not take the private `use crate::Router`, and `Router` is no
    // dependency either, so the call is unresolved, not an `External` stand-in.
    assert_has(
        &calls,
        &[
            "CALLS app::other::o -> ?new L2 (name `Router` not found in scope, and `app` has no dependency of that name)",
        ],
    );
}

#[test]
fn a_closure_in_an_item_level_macro_binds_its_typed_parameters() {
    // ripgrep's integration tests: `rgtest!(name, |dir: Dir, mut cmd: TestCommand| { … })` among items.
    // The parameters type the calls in that closure only: the invocation after it binds its own.
    let ix = index(&package(
        "app",
        r#"
//- /tests/feature.rs
mod util {
    pub struct Dir;
    impl Dir { pub fn create(&self) {} }
    pub struct Cmd;
    impl Cmd { pub fn arg(&mut self) -> &mut Cmd { self } pub fn run(&self) {} }
}
use util::{Cmd, Dir};
rgtest!(first, |dir: Dir, mut cmd: Cmd| {
    dir.create();
    cmd.arg().run();
});
rgtest!(second, |cmd: Cmd| {
    dir.create();
});
dir.create();
"#,
    ));
    let calls = ix.calls();
    assert_has(
        &calls,
        &[
            "CALLS feature -> feature::util::Dir::create L9 [receiver-type]",
            "CALLS feature -> feature::util::Cmd::arg L10 [receiver-type]",
            "CALLS feature -> feature::util::Cmd::run L10 [receiver-type]",
        ],
    );
    // `dir` in the second invocation is not the first one's parameter.
    assert!(!calls.iter().any(|c| c.contains("Dir::create L13")), "{calls:#?}");
}

#[test]
fn a_function_nested_in_an_impl_method_is_keyed_below_it_and_bound() {
    // ripgrep's `HiArgs::sort`: `fn attach_timestamps` declared in a block of the method's body.
    let ix = index(&package(
        "app",
        r#"
//- /src/lib.rs
pub struct S;
impl S {
    pub fn run(&self) {
        {
            fn inner() {}
            inner();
        }
        fn direct() {}
        direct();
    }
}
"#,
    ));
    assert_has(
        &ix.calls(),
        &["CALLS app::S::run -> app::S::run::direct L9 [scope]", "CALLS app::S::run -> app::S::run::inner L6 [scope]"],
    );
}

#[test]
fn an_impls_associated_consts_are_keyed_below_the_type_and_know_self() {
    let ix = index(&package(
        "flags",
        r#"
//- /src/lib.rs
pub struct Filter(u16);
impl Filter {
    pub const GET: Self = Self::from_bits(1);
    const fn from_bits(bits: u16) -> Self { Self(bits) }
}
"#,
    ));
    assert_has(&ix.calls(), &["CALLS flags::Filter::GET -> flags::Filter::from_bits L3 [path]"]);
}

#[test]
fn an_import_that_cannot_be_bound_is_an_unresolved_imports_edge_saying_why() {
    let ix = index(&package(
        "imp",
        r#"
//- /src/lib.rs
use crate::nothing::Here;
use serde::Serialize;
use std::fmt;
mod a;
pub fn f() {}
//- /src/a.rs
use super::f;
use super::missing;
"#,
    ));
    let imports = ix.edges_of(&["IMPORTS"]);
    assert_has(
        &imports,
        &[
            "IMPORTS imp::a -> imp::f L1 []",
            "IMPORTS imp::a -> ?missing L2 (`missing` not found in `imp`)",
            "IMPORTS imp -> ?Here L1 (`nothing` not found in `imp`)",
            "IMPORTS imp -> ?Serialize L2 (name `serde` not found in scope, and `imp` has no dependency of that name)",
            "IMPORTS imp -> ext::std::fmt L3 []",
        ],
    );
    assert_eq!(ix.report.accounting.imports_unresolved, 3);
}

#[test]
fn a_derived_constructor_types_its_value_and_variants_are_no_trait_members() {
    let ix = index(&package(
        "derive",
        r#"
//- /src/lib.rs
mod other;

#[derive(Debug, Default, Clone)]
pub struct Errors(Vec<u8>);

impl Errors {
    pub fn finish(self) -> usize {
        self.0.len()
    }
}

#[derive(Clone)]
pub enum Mode {
    Named(u8),
}

impl Default for Mode {
    fn default() -> Mode {
        Mode::Named(0)
    }
}

pub fn collect() -> usize {
    let errs = Errors::default();
    let copy = errs.clone();
    Errors::default().finish() + copy.finish()
}
//- /src/other.rs
use crate::Errors;

pub fn again(e: &Errors) -> usize {
    e.clone().finish() + Errors::default().missing()
}
"#,
    ));
    assert_has(
        &ix.calls(),
        &[
            "CALLS derive::collect -> derive::Errors::finish L26 [receiver-type]",
            "CALLS derive::other::again -> derive::Errors::finish L4 [receiver-type]",
            // A variant is its enum's construction, not a member of a trait the enum implements.
            "INSTANTIATES <derive::Mode as Default>::default -> derive::Mode L19 [path]",
        ],
    );
    assert_has(&ix.calls(), &["CALLS derive::other::again -> ?missing L4 (`missing` not found in `derive::Errors`)"]);
    assert_none(&ix.calls(), "ext::derive::Errors::finish");
    assert_none(&ix.calls(), "CALLS derive::other::again -> ext::derive::Errors::missing");
    assert_none(&ix.calls(), "ext::Default::Named");
}

/// A workspace of two packages whose integration tests share a target name, with a `#[macro_use]`
/// macro module, and a library exporting a macro whose body calls through `$crate`.
const WORKSPACE: &str = r#"
//- /Cargo.toml
[package]
name = "app"
version = "0.1.0"
edition = "2021"
autotests = false

[dependencies]
helpers = { path = "helpers" }

[[test]]
name = "integration"
path = "tests/tests.rs"
//- /src/lib.rs
pub fn run() {
    helpers::report!("x");
}
//- /tests/tests.rs
#[macro_use]
mod macros;
mod util;
mod feature;
//- /tests/macros.rs
macro_rules! apptest {
    ($name:ident, $fun:expr) => {
        #[test]
        fn $name() {
            let dir = crate::util::setup(stringify!($name));
            $fun(dir);
        }
    };
}
//- /tests/util.rs
pub struct Dir;

impl Dir {
    pub fn create(&self) {}
}

pub fn setup(_name: &str) -> Dir {
    Dir
}
//- /tests/feature.rs
use crate::util::Dir;

apptest!(one, |dir: Dir| {
    dir.create();
});
apptest!(two, |dir: Dir| {
    dir.create();
});
//- /helpers/Cargo.toml
[package]
name = "helpers"
version = "0.1.0"
edition = "2021"
autotests = false

[[test]]
name = "integration"
path = "tests/tests.rs"
//- /helpers/src/lib.rs
#[macro_export]
macro_rules! report {
    ($msg:expr) => {
        $crate::set_errored();
        eprintln!("{}", $msg);
    };
}

pub fn set_errored() {}
//- /helpers/tests/tests.rs
mod util;
//- /helpers/tests/util.rs
pub struct Dir;

pub fn setup(_name: &str) -> Dir {
    Dir
}
"#;

#[test]
fn targets_of_one_name_in_two_packages_keep_their_own_keys_and_crate() {
    let ix = index(WORKSPACE);
    assert_has(
        &ix.keys(),
        &[
            "Function integration@app::util::setup",
            "Function integration@helpers::util::setup",
            "Struct integration@app::util::Dir",
        ],
    );
    // `crate::util::Dir` in app's test binds within app's test crate.
    assert_has(
        &ix.calls(),
        &[
            "CALLS integration@app::feature -> integration@app::util::Dir::create L4 [receiver-type]",
            "CALLS integration@app::feature -> integration@app::util::Dir::create L7 [receiver-type]",
        ],
    );
}

#[test]
fn another_files_macro_runs_its_body_where_it_is_invoked() {
    let ix = index(WORKSPACE);
    assert_has(
        &ix.calls(),
        &[
            // `#[macro_use] mod macros;`: the body's `crate::util::setup` binds in the invoking crate.
            "CALLS integration@app::feature -> integration@app::util::setup L3 [macro]",
            "CALLS integration@app::feature -> integration@app::util::setup L6 [macro]",
            // `#[macro_export]` from another crate: `$crate` is the defining crate.
            "CALLS app::run -> helpers::set_errored L2 [macro]",
        ],
    );
    assert_none(&ix.calls(), "CALLS integration@app::feature -> integration@helpers");
}

#[test]
fn a_glob_of_an_external_module_is_the_last_resort() {
    let ix = index(
        r#"
//- /app/Cargo.toml
[package]
name = "app"
version = "0.1.0"
edition = "2021"

[dependencies]
diesel = "2"
tokio = "1"
web = { path = "../web" }
//- /app/src/lib.rs
use diesel::prelude::*;
use web::Router;

pub fn run() {
    Router::new().route();
    web::paths::f();
    let _ = Some(1);
    tokio::spawn(async {});
    table!(users);
    load();
}
//- /web/Cargo.toml
[package]
name = "web"
version = "0.1.0"
edition = "2021"
//- /web/src/lib.rs
pub mod paths {
    pub fn f() {}
}

pub struct Router;

impl Router {
    pub fn new() -> Self {
        Router
    }

    pub fn route(self) -> Self {
        self
    }
}
"#,
    );
    assert_has(
        &ix.calls(),
        &[
            "CALLS app::run -> web::Router::new L5 [import]",
            "CALLS app::run -> web::Router::route L5 [receiver-type]",
            "CALLS app::run -> web::paths::f L6 [path]",
            "CALLS app::run -> ext::Some L7 [external]",
            "CALLS app::run -> ext::tokio::spawn L8 [external]",
            // What nothing else gives comes from the glob.
            "CALLS app::run -> ext::diesel::prelude::table! L9 [external]",
            "CALLS app::run -> ext::diesel::prelude::load L10 [external]",
        ],
    );
    assert_none(&ix.calls(), "CALLS app::run -> ext::diesel::prelude::web");
    assert_none(&ix.calls(), "CALLS app::run -> ext::diesel::prelude::Some");
}
