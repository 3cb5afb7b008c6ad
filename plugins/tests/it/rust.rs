//! rust plugin tests: inline sources in, a compact rendering of one kind of fact out.

use drsg_parsers::{FileFacts, Lang, Language, Qualifier, TypeHint, parse_file};
use drsg_plugins::rust::RustPlugin;

fn parse(src: &str) -> FileFacts {
    parse_file(&RustPlugin, Lang::Rust, "src/lib.rs", src)
}

fn scope_name(facts: &FileFacts, scope: Option<u32>) -> String {
    scope.map_or_else(|| "-".to_owned(), |i| facts.defs[i as usize].name.clone())
}

fn join(path: &[String]) -> String {
    path.join("::")
}

fn render_defs(facts: &FileFacts) -> Vec<String> {
    facts
        .defs
        .iter()
        .map(|d| {
            let mut line = format!(
                "{} {} L{}-{} {} parent={}",
                d.kind.label(),
                d.name,
                d.line,
                d.end_line,
                d.visibility.as_str(),
                scope_name(facts, d.parent)
            );
            if let Some(block) = &d.impl_block {
                line += &format!(" impl={}", join(&block.self_ty));
                if let Some(t) = &block.trait_ {
                    line += &format!(" as {}", join(t));
                }
            }
            if let Some(ret) = &d.returns {
                line += &format!(" ret={}", join(ret));
            }
            if d.is_test {
                line += " test";
            }
            if d.external_body {
                line += " external";
            }
            line
        })
        .collect()
}

fn render_docs(facts: &FileFacts) -> Vec<String> {
    let mut out = vec![format!("module: {}", facts.module_doc.as_deref().unwrap_or("-"))];
    out.extend(facts.defs.iter().map(|d| format!("{}: {}", d.name, d.doc.as_deref().unwrap_or("-"))));
    out
}

fn render_signatures(facts: &FileFacts) -> Vec<String> {
    facts.defs.iter().map(|d| format!("{}: {}", d.name, d.signature)).collect()
}

fn render_refs(facts: &FileFacts) -> Vec<String> {
    facts
        .refs
        .iter()
        .map(|r| {
            let qualifier = match &r.qualifier {
                Qualifier::Plain => "plain".to_owned(),
                Qualifier::SelfValue => "self".to_owned(),
                Qualifier::Super => "super".to_owned(),
                Qualifier::Expr { call: Some(call), then } if then.is_empty() => format!("expr({})", join(call)),
                Qualifier::Expr { call: Some(call), then } => format!("expr({} then {})", join(call), then.join(" ")),
                Qualifier::Expr { call: None, .. } => "expr(-)".to_owned(),
                Qualifier::Tokens => "tokens".to_owned(),
            };
            let within = r.origin.within().map(|m| format!(" within={m}")).unwrap_or_default();
            format!(
                "{:?} {} L{} in={} {} `{}`{within}",
                r.kind,
                join(&r.path),
                r.line,
                scope_name(facts, r.scope),
                qualifier,
                r.text
            )
        })
        .collect()
}

fn render_imports(facts: &FileFacts) -> Vec<String> {
    facts
        .imports
        .iter()
        .map(|i| {
            let mut line = format!(
                "source={} name={} alias={} L{} in={}",
                i.source,
                i.name.as_deref().unwrap_or("-"),
                i.alias,
                i.line,
                scope_name(facts, i.scope)
            );
            if i.glob {
                line += " glob";
            }
            if i.reexport {
                line += " reexport";
            }
            line
        })
        .collect()
}

fn render_bindings(facts: &FileFacts) -> Vec<String> {
    facts
        .bindings
        .iter()
        .map(|b| {
            let hint = match &b.hint {
                None => "Untyped".to_owned(),
                Some(TypeHint::Annotated(p)) => format!("Annotated({})", join(p)),
                Some(TypeHint::Constructed(p)) => format!("Constructed({})", join(p)),
                Some(TypeHint::CallResult(p)) => format!("CallResult({})", join(p)),
                Some(TypeHint::CallChain(p, then)) => format!("CallChain({} then {})", join(p), then.join(" ")),
                Some(TypeHint::Field(_)) => unreachable!("only Python writes fields"),
                Some(
                    TypeHint::Callback { .. }
                    | TypeHint::Destructured { .. }
                    | TypeHint::Contextual { .. }
                    | TypeHint::Alias(_),
                ) => {
                    unreachable!("only TypeScript writes callbacks, destructured results and aliases")
                }
            };
            format!("{} {} L{} in={}", b.name, hint, b.line, scope_name(facts, b.scope))
        })
        .collect()
}

fn render_inherits(facts: &FileFacts) -> Vec<String> {
    facts
        .inherits
        .iter()
        .map(|i| {
            format!(
                "{} {:?} {} L{} def={}",
                join(&i.child),
                i.kind,
                join(&i.target),
                i.line,
                scope_name(facts, i.child_def)
            )
        })
        .collect()
}

/// Parses `src` and compares one rendering of its facts (`what`) with `expected` (one fact a line).
#[track_caller]
fn check(what: &str, src: &str, expected: &str) {
    let facts = parse(src);
    let rendered = match what {
        "defs" => render_defs(&facts),
        "docs" => render_docs(&facts),
        "signatures" => render_signatures(&facts),
        "refs" => render_refs(&facts),
        "imports" => render_imports(&facts),
        "bindings" => render_bindings(&facts),
        "inherits" => render_inherits(&facts),
        other => panic!("unknown rendering {other}"),
    };
    let expected: Vec<&str> = expected.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    assert_eq!(rendered, expected, "\nrendered:\n{}\n", rendered.join("\n"));
    assert_eq!(facts.parse_errors, 0, "unexpected parse errors: {:?}", facts.diagnostics);
}

#[test]
fn plugin_takes_rs_files_and_lists_its_queries() {
    assert_eq!(RustPlugin.lang_for("src/main.rs"), Some(Lang::Rust));
    assert_eq!(RustPlugin.lang_for("src/main.rsx"), None);
    assert_eq!(RustPlugin.name(), "rust");
    let names: Vec<&str> = RustPlugin.queries().iter().map(|(name, _)| *name).collect();
    assert_eq!(names, ["defs.scm", "refs.scm", "imports.scm", "bindings.scm"]);
}

#[test]
fn defs_of_every_kind() {
    check(
        "defs",
        r#"
mod inline {
    pub struct S;
}
pub mod external;
fn f() {
    fn nested() {}
    struct Local;
}
pub enum E { A, B(u8) }
union U { a: u8 }
trait T {}
type Alias = Vec<u8>;
const C: u8 = 1;
static S: &str = "s";
macro_rules! mac { () => {} }
"#,
        "
        Module inline L2-4 private parent=-
        Struct S L3-3 public parent=inline
        Module external L5-5 public parent=- external
        Function f L6-9 private parent=-
        Function nested L7-7 private parent=f
        Struct Local L8-8 private parent=f
        Enum E L10-10 public parent=-
        Union U L11-11 private parent=-
        Trait T L12-12 private parent=-
        TypeAlias Alias L13-13 private parent=-
        Const C L14-14 private parent=-
        Static S L15-15 private parent=-
        Macro mac L16-16 private parent=-
        ",
    );
}

#[test]
fn methods_in_impls_and_traits() {
    check(
        "defs",
        r#"
impl<T> Foo<T> {
    pub fn new() -> Self { todo!() }
    const X: u8 = 1;
    type Y = u8;
}
impl fmt::Display for net::Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { Ok(()) }
}
pub trait Greeter {
    const N: usize;
    fn hello(&self);
    fn bye(&self) {}
}
trait Hidden { fn secret(&self); }
pub(crate) trait Inner { fn inner(&self); }
mod m {
    impl<'a> super::Bar<'a> { fn get(&self) -> &Client { todo!() } }
}
fn outer() {
    impl Local { fn local(self) -> impl Iterator<Item = u8> { todo!() } }
}
impl Marker for u8 { fn mark(&self) {} }
extern "C" { fn ext_fn(x: i32) -> i32; }
"#,
        "
        Method new L3-3 public parent=- impl=Foo ret=Self
        Const X L4-4 private parent=- impl=Foo
        Method fmt L8-8 public parent=- impl=net::Client as fmt::Display ret=fmt::Result
        Trait Greeter L10-14 public parent=-
        Const N L11-11 public parent=Greeter
        Method hello L12-12 public parent=Greeter
        Method bye L13-13 public parent=Greeter
        Trait Hidden L15-15 private parent=-
        Method secret L15-15 private parent=Hidden
        Trait Inner L16-16 crate parent=-
        Method inner L16-16 crate parent=Inner
        Module m L17-19 private parent=-
        Method get L18-18 private parent=m impl=super::Bar ret=Client
        Function outer L20-22 private parent=-
        Method local L21-21 private parent=outer impl=Local ret=Iterator
        Method mark L23-23 public parent=- impl=u8 as Marker
        Function ext_fn L24-24 private parent=-
        ",
    );
}

#[test]
fn visibility_forms() {
    check(
        "defs",
        "
pub fn a() {}
pub(crate) fn b() {}
pub(super) fn c() {}
pub(in crate::x) fn d() {}
pub(self) fn e() {}
fn f() {}
",
        "
        Function a L2-2 public parent=-
        Function b L3-3 crate parent=-
        Function c L4-4 crate parent=-
        Function d L5-5 crate parent=-
        Function e L6-6 private parent=-
        Function f L7-7 private parent=-
        ",
    );
}

#[test]
fn return_types_as_plain_paths() {
    check(
        "defs",
        "
fn a() -> Self {}
fn b() -> &'static Client {}
fn c() -> Result<Self> {}
fn d() -> impl Trait + Send {}
fn e() -> (u8, u8) {}
fn f() -> u8 {}
fn g() -> Box<dyn net::Conn> {}
fn h() -> &mut dyn io::Write {}
fn i() {}
",
        "
        Function a L2-2 private parent=- ret=Self
        Function b L3-3 private parent=- ret=Client
        Function c L4-4 private parent=- ret=Result
        Function d L5-5 private parent=- ret=Trait
        Function e L6-6 private parent=-
        Function f L7-7 private parent=-
        Function g L8-8 private parent=- ret=Box
        Function h L9-9 private parent=- ret=io::Write
        Function i L10-10 private parent=-
        ",
    );
}

#[test]
fn doc_comments_and_module_docs() {
    check(
        "docs",
        r#"//! The crate.
//! Second line.
#![allow(dead_code)]

/// Adds.
/// Twice.
#[inline]
#[must_use]
pub fn add() {}

/** Block doc. */
struct Block;

// plain comment
fn undocumented() {}

/// Kept across a plain comment.
// plain
fn commented() {} // trailing
fn after_trailing() {}

/// Outer.
mod inline {
    //! Inner.
    fn item() {}
}
"#,
        "
        module: The crate. Second line.
        add: Adds. Twice.
        Block: Block doc.
        undocumented: -
        commented: Kept across a plain comment.
        after_trailing: -
        inline: Outer. Inner.
        item: -
        ",
    );
}

#[test]
fn test_detection() {
    check(
        "defs",
        "
#[test]
fn plain() {}
#[tokio::test]
async fn asynchronous() {}
#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn t() {}
    fn helper() { struct Fixture; }
}
#[cfg(not(test))]
fn production() {}
#[cfg(test)]
impl Foo { fn only_in_tests(&self) {} }
#[cfg(test)]
mod external_tests;
",
        "
        Function plain L3-3 private parent=- test
        Function asynchronous L5-5 private parent=- test
        Module tests L7-12 private parent=- test
        Function t L10-10 private parent=tests test
        Function helper L11-11 private parent=tests test
        Struct Fixture L11-11 private parent=helper test
        Function production L14-14 private parent=-
        Method only_in_tests L16-16 private parent=- impl=Foo test
        Module external_tests L18-18 private parent=- test external
        ",
    );
}

#[test]
fn signatures_stop_at_the_body() {
    check(
        "signatures",
        "
pub fn connect<T>(
    addr: &str,
    retries: u8,
) -> Result<T>
where
    T: Default,
{
    todo!()
}
pub struct Point { x: i32 }
struct Tuple(u8, u16);
const LIMIT: usize = 10 * 1024;
mod m;
macro_rules! square { ($x:expr) => { $x * $x }; }
trait Tr { fn required(&self) -> u8; }
type Id = u64;
",
        "
        connect: pub fn connect<T>( addr: &str, retries: u8, ) -> Result<T> where T: Default,
        Point: pub struct Point
        Tuple: struct Tuple(u8, u16)
        LIMIT: const LIMIT: usize
        m: mod m
        square: macro_rules! square
        Tr: trait Tr
        required: fn required(&self) -> u8
        Id: type Id = u64
        ",
    );
}

#[test]
fn plain_and_scoped_calls() {
    check(
        "refs",
        "
fn run() {
    f();
    Client::new();
    crate::a::f();
    self::g();
    super::h();
    Self::make();
    Vec::<u8>::new();
    <T as Trait>::f();
    generic::<u8>();
}
",
        "
        Call f L3 in=run plain `f`
        Call Client::new L4 in=run plain `Client::new`
        Call crate::a::f L5 in=run plain `crate::a::f`
        Call self::g L6 in=run plain `self::g`
        Call super::h L7 in=run plain `super::h`
        Call Self::make L8 in=run plain `Self::make`
        Call Vec::new L9 in=run plain `Vec::<u8>::new`
        Call Trait::f L10 in=run plain `<T as Trait>::f`
        Call generic L11 in=run plain `generic::<u8>`
        ",
    );
}

#[test]
fn method_calls_by_receiver() {
    check(
        "refs",
        r#"
impl Client {
    fn go(&self, x: Conn) {
        self.m();
        x.m();
        self.a.m();
        a.b.m();
        Client::new().connect();
        f()?.m();
        items[0].m();
        "lit".len();
        x.m::<u8>();
        self.get().m();
    }
}
"#,
        r#"
        Type Conn L3 in=go plain `Conn`
        Call m L4 in=go self `self.m`
        Call x::m L5 in=go plain `x.m`
        Call a::m L6 in=go self `self.a.m`
        Call a::b::m L7 in=go plain `a.b.m`
        Call connect L8 in=go expr(Client::new) `Client::new().connect`
        Call Client::new L8 in=go plain `Client::new`
        Call m L9 in=go expr(f then ?) `f()?.m`
        Call f L9 in=go plain `f`
        Call m L10 in=go expr(-) `items[0].m`
        Call len L11 in=go expr(-) `"lit".len`
        Call x::m L12 in=go plain `x.m::<u8>`
        Call m L13 in=go expr(self::get) `self.get().m`
        Call get L13 in=go self `self.get`
        "#,
    );
}

#[test]
fn call_chains_keep_each_step() {
    // A builder chain, `?` and `.await` in it, a turbofish head, a chain from a named receiver, and a
    // binding from a chain; a chain that starts at no named call has no head.
    check(
        "refs",
        r#"
async fn run() {
    Router::new().route(a).route(b);
    Client::<()>::connect(u)?.send(m).await?.close();
    conn.dup().unwrap().flush();
    (make)().go();
}
"#,
        r#"
        Call route L3 in=run expr(Router::new then route) `Router::new().route(a).route`
        Call route L3 in=run expr(Router::new) `Router::new().route`
        Call Router::new L3 in=run plain `Router::new`
        Value a L3 in=run plain `a`
        Value b L3 in=run plain `b`
        Call close L4 in=run expr(Client::connect then ? send ?) `Client::<()>::connect(u)?.send(m).await?.close`
        Call send L4 in=run expr(Client::connect then ?) `Client::<()>::connect(u)?.send`
        Call Client::connect L4 in=run plain `Client::<()>::connect`
        Value u L4 in=run plain `u`
        Value m L4 in=run plain `m`
        Call flush L5 in=run expr(conn::dup then unwrap) `conn.dup().unwrap().flush`
        Call unwrap L5 in=run expr(conn::dup) `conn.dup().unwrap`
        Call conn::dup L5 in=run plain `conn.dup`
        Call go L6 in=run expr(-) `(make)().go`
        Call (make) L6 in=run expr(-) `(make)`
        "#,
    );
    check(
        "bindings",
        r#"
fn run() {
    let r = Router::new().route(a);
    let c = Client::connect(u)?;
    let d = Client::connect(u).await;
}
"#,
        r#"
        r CallChain(Router::new then route) L4 in=run
        c CallChain(Client::connect then ?) L5 in=run
        d CallResult(Client::connect) L6 in=run
        "#,
    );
}

#[test]
fn multi_line_chain_gives_each_call_its_method_line() {
    check(
        "refs",
        "
fn run() {
    client
        .connect()
        .send();
}
",
        "
        Call send L5 in=run expr(client::connect) `client .connect() .send`
        Call client::connect L4 in=run plain `client .connect`
        ",
    );
}

#[test]
fn macros_and_struct_literals() {
    check(
        "refs",
        r#"
fn run() {
    println!("{}", inner(1));
    crate_x::mac!();
    let c = Client { a: 1 };
    let n = net::Client { a: 1 };
}
impl Client {
    fn new() -> Self { Self { a: 0 } }
}
"#,
        r#"
        Call println! L3 in=run plain `println!`
        Call inner L3 in=run plain `inner` within=println!
        Call crate_x::mac! L4 in=run plain `crate_x::mac!`
        Instantiate Client L5 in=run plain `Client`
        Instantiate net::Client L6 in=run plain `net::Client`
        Instantiate Self L9 in=new plain `Self`
        "#,
    );
}

#[test]
fn calls_in_macro_arguments_are_sites() {
    // Expressions in the formatting and assertion families, `vec!`, `write!` and nested invocations; a
    // closure's binding inside one; the lines of multi-line arguments.
    check(
        "refs",
        r#"
fn run(f: &mut Out) {
    assert_eq!(parse(x), expected(),
        "{}", describe(y));
    let v = vec![make(1); count()];
    write!(f, "{}", format!("{}", inner.get()))?;
    assert!(items.iter().any(|it| it.ok()));
}
"#,
        r#"
        Type Out L2 in=run plain `Out`
        Call assert_eq! L3 in=run plain `assert_eq!`
        Call parse L3 in=run plain `parse` within=assert_eq!
        Value x L3 in=run plain `x` within=assert_eq!
        Call expected L3 in=run plain `expected` within=assert_eq!
        Call describe L4 in=run plain `describe` within=assert_eq!
        Value y L4 in=run plain `y` within=assert_eq!
        Call vec! L5 in=run plain `vec!`
        Call make L5 in=run plain `make` within=vec!
        Call count L5 in=run plain `count` within=vec!
        Call write! L6 in=run plain `write!`
        Call format! L6 in=run plain `format!` within=write!
        Call inner::get L6 in=run plain `inner.get` within=format!
        Call assert! L7 in=run plain `assert!`
        Call any L7 in=run expr(items::iter) `items.iter().any` within=assert!
        Call items::iter L7 in=run plain `items.iter` within=assert!
        Call it::ok L7 in=run plain `it.ok` within=assert!
        "#,
    );
}

#[test]
fn macro_tokens_that_are_no_expression() {
    // `tap_inner!`'s tokens do not parse; the block nested in them does, and the call in it is read. Among
    // tokens that do not parse, `name(…)` is a site left to the resolver as tokens and `m!(…)` a macro call.
    // Opaque macros (`quote!`, `stringify!`) are left alone; the items a macro declares, whose definitions
    // the facts do not hold, are read as tokens (`spawn()`), the blocks in them parsed.
    check(
        "refs",
        r#"
fn route(self) -> Self {
    tap_inner!(self, mut this => {
        panic_on_err!(this.path_router.route(path, handler));
    })
}
fn other() {
    weird!(a => helper(x), Upper(y), nested!(z));
    quote!(generated());
    stringify!(not_a_call());
    cfg_rt! { pub fn spawn() { hidden() } }
}
"#,
        r#"
        Call tap_inner! L3 in=route plain `tap_inner!`
        Call panic_on_err! L4 in=route plain `panic_on_err!` within=tap_inner!
        Call this::path_router::route L4 in=route plain `this.path_router.route` within=panic_on_err!
        Value path L4 in=route plain `path` within=panic_on_err!
        Value handler L4 in=route plain `handler` within=panic_on_err!
        Call weird! L8 in=other plain `weird!`
        Call helper L8 in=other tokens `helper(x)` within=weird!
        Call nested! L8 in=other plain `nested!` within=weird!
        Call quote! L9 in=other plain `quote!`
        Call stringify! L10 in=other plain `stringify!`
        Call cfg_rt! L11 in=other plain `cfg_rt!`
        Call spawn L11 in=other tokens `spawn()` within=cfg_rt!
        Call hidden L11 in=other plain `hidden` within=cfg_rt!
        "#,
    );
}

#[test]
fn token_trees_that_show_they_are_no_expression_are_read_as_tokens() {
    // `=>` arms, a `;`, a `field: value` in parentheses or an item: read as tokens at once, so the
    // well-formed invocations beside them still parse as expressions (`f.is_woken()` is a method call,
    // not tokens). A closure's typed parameter, a label and a block's `let x: T` are expressions.
    check(
        "refs",
        r#"
fn run() {
    select! { v = recv() => { handle(v) } }
    assert_fn!(net::accept(_): Send & !Unpin);
    join!(biased; first(), second());
    span!(parent: None, "name", kind = kind());
    mac!(pub fn hidden() {});
    assert!(f.is_woken());
    spawn!(move |n: u32| grow(n));
    run!({ let x: u32 = start(); x });
}
"#,
        r#"
        Call select! L3 in=run plain `select!`
        Call recv L3 in=run tokens `recv()` within=select!
        Call handle L3 in=run plain `handle` within=select!
        Value v L3 in=run plain `v` within=select!
        Call assert_fn! L4 in=run plain `assert_fn!`
        Call accept L4 in=run tokens `accept(_)` within=assert_fn!
        Call join! L5 in=run plain `join!`
        Call first L5 in=run tokens `first()` within=join!
        Call second L5 in=run tokens `second()` within=join!
        Call span! L6 in=run plain `span!`
        Call kind L6 in=run tokens `kind()` within=span!
        Call mac! L7 in=run plain `mac!`
        Call hidden L7 in=run tokens `hidden()` within=mac!
        Call assert! L8 in=run plain `assert!`
        Call f::is_woken L8 in=run plain `f.is_woken` within=assert!
        Call spawn! L9 in=run plain `spawn!`
        Call grow L9 in=run plain `grow` within=spawn!
        Value n L9 in=run plain `n` within=spawn!
        Call run! L10 in=run plain `run!`
        Call start L10 in=run plain `start` within=run!
        "#,
    );
}

#[test]
fn values_passed_as_arguments() {
    check(
        "refs",
        r#"
impl W {
    fn run(&self) {
        thread::spawn(worker);
        items.map(Self::helper);
        consume(self, 1, "s", x.y);
    }
}
"#,
        r#"
        Call thread::spawn L4 in=run plain `thread::spawn`
        Value worker L4 in=run plain `worker`
        Call items::map L5 in=run plain `items.map`
        Value Self::helper L5 in=run plain `Self::helper`
        Call consume L6 in=run plain `consume`
        "#,
    );
}

#[test]
fn type_refs_in_signatures_fields_and_bounds() {
    check(
        "refs",
        "
pub struct Holder<T> { client: Arc<net::Client>, raw: u8, item: T }
enum Msg { Data(Payload), Named { p: Packet } }
trait Service: Send + ?Sized + 'static {}
fn handle<T: Codec>(req: &Request, n: usize, t: T) -> Response<Self> where T: Clone {}
impl<K> Map<K> {
    fn get(&self, k: &K, f: impl Fn(Self::Key) -> u8) -> Option<K::Value> where K: Hash {}
}
trait Store { fn put<V: Encode>(&self, v: V, key: Key) -> Ack where V: Send; }
",
        "
        Type Arc L2 in=Holder plain `Arc`
        Type net::Client L2 in=Holder plain `net::Client`
        Type Payload L3 in=Msg plain `Payload`
        Type Packet L3 in=Msg plain `Packet`
        Type Send L4 in=Service plain `Send`
        Type Codec L5 in=handle plain `Codec`
        Type Request L5 in=handle plain `Request`
        Type Response L5 in=handle plain `Response`
        Type Clone L5 in=handle plain `Clone`
        Type Fn L7 in=get plain `Fn`
        Type Option L7 in=get plain `Option`
        Type Hash L7 in=get plain `Hash`
        Type Encode L9 in=put plain `Encode`
        Type Key L9 in=put plain `Key`
        Type Ack L9 in=put plain `Ack`
        Type Send L9 in=put plain `Send`
        ",
    );
}

#[test]
fn closures_are_transparent() {
    check(
        "refs",
        "
fn run(items: Vec<u8>) {
    items.iter().map(|x| helper(x));
}
",
        "
        Type Vec L2 in=run plain `Vec`
        Call map L3 in=run expr(items::iter) `items.iter().map`
        Call items::iter L3 in=run plain `items.iter`
        Call helper L3 in=run plain `helper`
        Value x L3 in=run plain `x`
        ",
    );
    let facts = parse("fn run(items: Vec<u8>) { items.iter().map(|x| helper(x)); }");
    assert_eq!(facts.defs.len(), 1, "a closure is not a def");
}

#[test]
fn imports_every_form() {
    check(
        "imports",
        "
use a::b;
use a::b as c;
use a::{b, c::d, e as f, self};
use a::b::{self};
use a::*;
use crate::x;
use super::y;
use self::z;
use foo;
use a::{b::{c, d::{e, *}}, f};
pub use a::Exported;
pub(crate) use a::Internal;
extern crate foo as bar;
extern crate baz;
",
        "
        source=a name=b alias=b L2 in=-
        source=a name=b alias=c L3 in=-
        source=a name=b alias=b L4 in=-
        source=a::c name=d alias=d L4 in=-
        source=a name=e alias=f L4 in=-
        source= name=a alias=a L4 in=-
        source=a name=b alias=b L5 in=-
        source=a name=- alias= L6 in=- glob
        source=crate name=x alias=x L7 in=-
        source=super name=y alias=y L8 in=-
        source=self name=z alias=z L9 in=-
        source= name=foo alias=foo L10 in=-
        source=a::b name=c alias=c L11 in=-
        source=a::b::d name=e alias=e L11 in=-
        source=a::b::d name=- alias= L11 in=- glob
        source=a name=f alias=f L11 in=-
        source=a name=Exported alias=Exported L12 in=- reexport
        source=a name=Internal alias=Internal L13 in=- reexport
        source= name=foo alias=bar L14 in=-
        source= name=baz alias=baz L15 in=-
        ",
    );
}

#[test]
fn imports_take_the_enclosing_scope() {
    check(
        "imports",
        "
mod m {
    use std::fmt;
    fn f() {
        use std::io::Write;
    }
}
",
        "
        source=std name=fmt alias=fmt L3 in=m
        source=std::io name=Write alias=Write L5 in=f
        ",
    );
}

#[test]
fn bindings_from_lets_params_and_fields() {
    check(
        "bindings",
        "
struct Server { client: Client, pool: Arc<Pool>, n: u8 }
struct Pair(Client, Client);
async fn run(c: Client, r: &Request, m: &mut net::Conn, b: Box<Inner>, d: &dyn Handler, i: impl Sink, n: u8, (x, y): (u8, u8)) {
    let a: Client = make();
    let b = Client::new();
    let c = make();
    let d = a::b(1);
    let e = Config { x: 1 };
    let f = open()?;
    let g = fetch().await?;
    let h = y.m();
    let mut k = Vec::<u8>::new();
    let (p, q) = pair();
    let lit = 1;
}
trait Outlet { fn send(&self, to: Addr, n: u8); }
",
        "
        client Annotated(Client) L2 in=Server
        pool Annotated(Arc) L2 in=Server
        c Annotated(Client) L4 in=run
        r Annotated(Request) L4 in=run
        m Annotated(net::Conn) L4 in=run
        b Annotated(Box) L4 in=run
        d Annotated(Handler) L4 in=run
        i Annotated(Sink) L4 in=run
        n Untyped L4 in=run
        x Untyped L4 in=run
        y Untyped L4 in=run
        a Annotated(Client) L6 in=run
        b CallResult(Client::new) L7 in=run
        c CallResult(make) L8 in=run
        d CallResult(a::b) L9 in=run
        e Constructed(Config) L10 in=run
        f CallChain(open then ?) L11 in=run
        g CallChain(fetch then ?) L12 in=run
        h CallResult(y::m) L13 in=run
        k CallResult(Vec::new) L14 in=run
        p Untyped L15 in=run
        q Untyped L15 in=run
        lit Untyped L16 in=run
        to Annotated(Addr) L17 in=send
        n Untyped L17 in=send
        ",
    );
}

#[test]
fn patterns_bind_their_names_untyped() {
    // Loop variables, `if let`/`while let`, match arms (not their guards), closure parameters and the names
    // of destructuring patterns; not the paths of variants, structs and constants in them.
    check(
        "bindings",
        "
fn run(items: Vec<Item>) {
    for (i, item) in items.iter().enumerate() {}
    if let Some(found) = lookup() {}
    while let Ok(Msg { id, body: ref text, .. }) = rx.recv() {}
    match event {
        Event::Key(code) | Event::Char(code) if code == MAX => {}
        [first, .., last] => {}
        whole @ Point { x: 0, y } => {}
        None | CONST => {}
        _ => {}
    }
    let apply = |arg, (u, w): (u8, u8), typed: Client| arg;
    let Config { shorthand, .. } = config();
}
",
        "
        items Annotated(Vec) L2 in=run
        i Untyped L4 in=run
        item Untyped L4 in=run
        found Untyped L5 in=run
        id Untyped L6 in=run
        text Untyped L6 in=run
        code Untyped L7 in=run
        code Untyped L7 in=run
        first Untyped L8 in=run
        last Untyped L8 in=run
        whole Untyped L9 in=run
        y Untyped L9 in=run
        apply Untyped L14 in=run
        arg Untyped L13 in=run
        u Untyped L13 in=run
        w Untyped L13 in=run
        typed Annotated(Client) L13 in=run
        shorthand Untyped L15 in=run
        ",
    );
}

#[test]
fn inherits_from_impls_and_supertraits() {
    check(
        "inherits",
        "
impl fmt::Display for net::Client {}
impl<T> From<T> for Wrapper<T> {}
impl Plain {}
impl Marker for [u8] {}
pub trait A: B + ?Sized + 'static + for<'a> C<'a> + x::D {}
",
        "
        net::Client Implements fmt::Display L2 def=-
        Wrapper Implements From L3 def=-
        [u8] Implements Marker L5 def=-
        A Extends B L6 def=A
        A Extends C L6 def=A
        A Extends x::D L6 def=A
        ",
    );
}

#[test]
fn syntax_errors_keep_the_defs_around_them() {
    let facts = parse("fn before() {}\nfn broken( {\nstruct Mid;\nfn after() { helper(); }\n");
    assert!(facts.parse_errors > 0);
    let names: Vec<&str> = facts.defs.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"before"), "{names:?}");
    assert!(names.contains(&"after"), "{names:?}");
    assert!(facts.refs.iter().any(|r| r.path == ["helper"]), "{:?}", facts.refs);
}

fn nested_source(depth: usize) -> String {
    let mut src = String::from("fn deep() -> u8 {\n    let x = ");
    src.push_str(&"(".repeat(depth));
    src.push_str("f(1)");
    src.push_str(&")".repeat(depth));
    src.push_str(";\n    x\n}\nfn after() { g(); }\n");
    src
}

#[test]
fn deeply_nested_source_does_not_overflow() {
    let facts = parse(&nested_source(100_000));
    assert_eq!(facts.parse_errors, 0);
    assert_eq!(render_defs(&facts), ["Function deep L1-4 private parent=-", "Function after L5-5 private parent=-"]);
    // The query starts at each node of a pattern's root kind, so a call nested deeper than the 16-bit
    // depth of a whole-tree query cursor's states is still matched.
    assert_eq!(render_refs(&facts), ["Call f L2 in=deep plain `f`", "Call g L5 in=after plain `g`"]);
    assert_eq!(render_bindings(&facts), ["x CallResult(f) L3 in=deep"]);

    let facts = parse(&nested_source(30_000));
    assert_eq!(render_refs(&facts), ["Call f L2 in=deep plain `f`", "Call g L5 in=after plain `g`"]);
}

#[test]
fn bindings_in_item_level_macro_arguments_hold_within_the_invocation() {
    let src = r#"
rgtest!(first, |dir: Dir, mut cmd: Cmd| {
    dir.create();
});
fn f() {
    check!(|x: X| x.go());
}
"#;
    check(
        "bindings",
        src,
        r#"
        dir Annotated(Dir) L2 in=-
        cmd Annotated(Cmd) L2 in=-
        x Annotated(X) L6 in=f
        "#,
    );
    // The invocation outside any function is a block; the one inside `f` is not.
    assert_eq!(parse(src).local_blocks, [(2, 4)]);
}

#[test]
fn the_files_own_macros_are_expanded_where_invoked() {
    // `tap_inner!` binds the name it is passed to `self.into_inner()` and runs the statements it is passed:
    // the body's call sits at the invocation, marked expanded; the statements keep their lines; the
    // binding types `this`. `square!` uses its fragment twice, which is one site. `twice!` repeats.
    let src = r#"
macro_rules! tap_inner {
    ( $self_:ident, mut $inner:ident => { $($stmt:stmt)* } ) => {{
        let mut $inner = $self_.into_inner();
        let hidden = make_hidden();
        $($stmt)*;
        Router { inner: Arc::new($inner) }
    }};
}
macro_rules! square { ($x:expr) => { $x * $x }; }
macro_rules! twice { ($($f:ident),+ $(,)?) => { $( $f(); $f(); )+ }; }
impl Router {
    fn route(self, path: &str) -> Self {
        tap_inner!(self, mut this => {
            this.path_router.route(path);
        })
    }
    fn area(&self) -> u32 {
        twice!(first, second,);
        square!(side(1))
    }
}
"#;
    let facts = parse(src);
    let refs: Vec<String> = render_refs(&facts).into_iter().filter(|r| r.contains("within=")).collect();
    let expanded: Vec<String> = facts
        .refs
        .iter()
        .filter(|r| r.origin.is_macro_body())
        .map(|r| format!("{} L{}", join(&r.path), r.line))
        .collect();
    assert_eq!(
        refs,
        [
            "Call Arc::new L14 in=route plain `Arc::new` within=tap_inner!",
            "Instantiate Router L14 in=route plain `Router` within=tap_inner!",
            "Call into_inner L14 in=route self `self.into_inner` within=tap_inner!",
            "Call make_hidden L14 in=route plain `make_hidden` within=tap_inner!",
            "Value this L14 in=route plain `this` within=tap_inner!",
            "Call this::path_router::route L15 in=route plain `this.path_router.route` within=tap_inner!",
            "Value path L15 in=route plain `path` within=tap_inner!",
            "Call first L19 in=area plain `first` within=twice!",
            "Call second L19 in=area plain `second` within=twice!",
            "Call side L20 in=area plain `side` within=square!",
        ],
        "\n{}",
        refs.join("\n")
    );
    assert_eq!(expanded, ["Arc::new L14", "Router L14", "into_inner L14", "make_hidden L14"]);
    let bindings: Vec<String> = render_bindings(&facts).into_iter().filter(|b| b.starts_with("this ")).collect();
    assert_eq!(bindings, ["this CallResult(self::into_inner) L14 in=route"]);
    assert!(!render_bindings(&facts).iter().any(|b| b.starts_with("hidden ")), "the body's own names are hygienic");
}

#[test]
fn items_the_files_own_macros_write_among_items_are_defs() {
    // axum's shape: the macro calls itself with docs added, and the last rule writes the function, at
    // module level and among an impl's members. The function's calls sit in it, at the invocation's line,
    // marked expanded; its parameters are its bindings.
    let src = r#"
macro_rules! handler_fn {
    ($name:ident, GET) => {
        handler_fn!(
            /// Route `GET` requests.
            $name,
            GET
        );
    };
    ($(#[$m:meta])+ $name:ident, $method:ident) => {
        $(#[$m])+
        pub fn $name<H>(handler: H) -> MethodRouter {
            on(MethodFilter::$method, handler)
        }
    };
}
macro_rules! chained {
    ($name:ident, $method:ident) => {
        #[track_caller]
        pub fn $name<H>(self, handler: H) -> Self {
            self.on(MethodFilter::$method, handler)
        }
    };
}
macro_rules! test_pair {
    ($a:ident) => { #[test] fn $a() { run() } fn helper() {} };
}
handler_fn!(get, GET);
impl<S> MethodRouter<S> {
    chained!(post, POST);
}
mod tests {
    test_pair!(works);
}
macro_rules! impl_show { ($($t:ident),*) => { $( impl Show for $t { fn show(&self) { render(self) } } )* }; }
impl_show!(A, B);
"#;
    let facts = parse(src);
    let defs = render_defs(&facts);
    let generated: Vec<&String> = defs.iter().filter(|d| !d.starts_with("Macro ")).collect();
    assert_eq!(
        generated,
        [
            "Module tests L32-34 private parent=-",
            "Function get L28-28 public parent=- ret=MethodRouter",
            "Method post L30-30 public parent=- impl=MethodRouter ret=Self",
            "Function works L33-33 private parent=tests test",
            "Function helper L33-33 private parent=tests",
            "Method show L36-36 public parent=- impl=A as Show",
            "Method show L36-36 public parent=- impl=B as Show",
        ],
        "\n{}",
        defs.join("\n")
    );
    let refs: Vec<String> = render_refs(&facts).into_iter().filter(|r| r.contains(" in=")).collect();
    for expected in [
        "Call on L28 in=get plain `on` within=handler_fn!",
        "Value MethodFilter::GET L28 in=get plain `MethodFilter::GET` within=handler_fn!",
        "Call on L30 in=post self `self.on` within=chained!",
        "Call run L33 in=works plain `run` within=test_pair!",
    ] {
        assert!(refs.iter().any(|r| r == expected), "{expected} missing from\n{}", refs.join("\n"));
    }
    let inherits: Vec<String> =
        facts.inherits.iter().map(|i| format!("{} {} L{}", join(&i.child), join(&i.target), i.line)).collect();
    assert_eq!(inherits, ["A Show L36", "B Show L36"]);
    let bindings = render_bindings(&facts);
    assert!(bindings.contains(&"handler Annotated(H) L28 in=get".to_owned()), "{bindings:?}");
    assert!(bindings.contains(&"handler Annotated(H) L30 in=post".to_owned()), "{bindings:?}");
}

#[test]
fn items_in_a_braced_invocation_of_another_files_macro_are_read_where_written() {
    // tokio's `cfg_rt! { … }` and `feature! { #![…] … }` pass their items through under a `#[cfg]`: the
    // items keep their lines, docs and impls, and their calls sit in them. `lazy_static!`'s `static ref`
    // is the static it defines; tokens that are no items (`bitflags!`'s `struct F: u32`) are not read.
    let src = r#"
cfg_rt! {
    /// Spawns a task.
    pub fn spawn() { hidden() }
    impl Runtime {
        pub fn block_on(&self) { self.enter() }
    }
}
impl Handle {
    cfg_rt! {
        pub fn current() -> Self { Handle::make() }
    }
}
crate::feature! {
    #![any(feature = "a")]
    pub struct Flags;
}
lazy_static! { static ref X: u8 = 1; }
cfg_rt! { pub use crate::task::spawn as go; }
bitflags! { pub struct Bits: u32 { const A = 1; } }
"#;
    let facts = parse(src);
    assert_eq!(
        render_defs(&facts),
        [
            "Function spawn L4-4 public parent=-",
            "Method block_on L6-6 public parent=- impl=Runtime",
            "Method current L11-11 public parent=- impl=Handle ret=Self",
            "Struct Flags L16-16 public parent=-",
            "Static X L18-18 private parent=-",
        ]
    );
    assert_eq!(facts.defs[0].doc.as_deref(), Some("Spawns a task."));
    let imports: Vec<String> = facts
        .imports
        .iter()
        .map(|i| format!("{}::{} as {} L{}", i.source, i.name.as_deref().unwrap_or(""), i.alias, i.line))
        .collect();
    assert_eq!(imports, ["crate::task::spawn as go L19"]);
    let refs: Vec<String> = render_refs(&facts).into_iter().filter(|r| r.contains(" in=")).collect();
    for expected in [
        "Call hidden L4 in=spawn plain `hidden` within=cfg_rt!",
        "Call enter L6 in=block_on self `self.enter` within=cfg_rt!",
        "Call Handle::make L11 in=current plain `Handle::make` within=cfg_rt!",
    ] {
        assert!(refs.iter().any(|r| r == expected), "{expected} missing from\n{}", refs.join("\n"));
    }
    // The items read out of an item macro's tokens are the code as passed, none of a macro's body.
    assert!(!facts.refs.iter().any(|r| r.origin.is_macro_body()), "{refs:?}");
}
