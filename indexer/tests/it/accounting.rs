//! The index summary accounts for every call site the parsers saw. Over generated trees of Rust (calls in
//! macro arguments and in token trees that are no expression, item-level invocations (of the file's own macros too), chains, paths
//! whose head is no dependency), Python and TypeScript, the summary's resolved, external and unresolved
//! counts add up to the call sites in the files' facts, read by the plugins apart, and to the call edges
//! the plane stores.

use drsg_parsers::RefKind;

use crate::index;

/// Statements of a Rust function body; `{n}` is replaced by a number.
const RUST_STATEMENTS: &[&str] = &[
    "helper();",
    "let d = Dir::new(); d.make().make();",
    "Dir::new().make()?.finish();",
    "assert_eq!(helper(), Dir::new().count());",
    "println!(\"{}\", format!(\"{}\", helper()));",
    "vec![helper(); 3].len();",
    "select! { v = recv() => { handle(v) } }",
    "weird!(a => helper(x), Upper(y), nested!(z));",
    "span!(parent: None, kind = kind());",
    "serde_json::to_string(&x);",
    "Unknown::new().go();",
    "quote!(generated());",
    "f(); f(); g(f());",
    "local_{n}(|x| x.run());",
    "crate::gen_{n}::item_{n}();",
];

/// Items of a Rust module.
const RUST_ITEMS: &[&str] = &[
    "rgtest!(t{n}, |dir: Dir| { dir.make(); helper(); });",
    "cfg_x! { pub fn hidden_{n}() { inner(); } }",
    "mac!(pub fn declared_{n}() { inner(); });",
    "pub fn item_{n}() -> Option<Dir> { None }",
    "macro_rules! own_{n} { ($f:ident) => { pub fn $f() { helper(); Dir::new().make(); } }; } own_{n}!(made_{n});",
];

const PY_STATEMENTS: &[&str] = &[
    "helper()",
    "Box().open().close()",
    "print(len([helper() for _ in range(3)]))",
    "obj.method(arg)",
    "unknown.thing()",
];

const TS_STATEMENTS: &[&str] =
    &["helper();", "new Box().open();", "console.log(helper(), [1].map((x) => x + 1));", "unknown.thing();"];

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
    }

    fn pick(&mut self, from: &[&str], n: usize) -> String {
        from[self.below(from.len())].replace("{n}", &n.to_string())
    }
}

/// A tree of generated files, as (path, text).
fn generate(rng: &mut Rng) -> Vec<(String, String)> {
    let mut files = vec![
        ("Cargo.toml".to_owned(), "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n".to_owned()),
        (
            "src/dir.rs".to_owned(),
            "pub struct Dir;\nimpl Dir {\n    pub fn new() -> Self { Dir }\n    pub fn make(&self) -> &Self { self }\n    \
             pub fn count(&self) -> usize { 0 }\n}\npub fn helper() -> usize { 0 }\n"
                .to_owned(),
        ),
    ];
    let modules = 1 + rng.below(4);
    let mut lib = String::from("pub mod dir;\nuse dir::{helper, Dir};\n");
    for m in 0..modules {
        lib.push_str(&format!("pub mod gen_{m};\n"));
        let mut text = String::from("use crate::dir::{helper, Dir};\n");
        for i in 0..1 + rng.below(4) {
            text.push_str(&rng.pick(RUST_ITEMS, i));
            text.push('\n');
            text.push_str(&format!("pub fn local_{i}(f: impl Fn(Dir)) {{\n"));
            for _ in 0..rng.below(5) {
                text.push_str("    ");
                let n = rng.below(modules);
                text.push_str(&rng.pick(RUST_STATEMENTS, n));
                text.push('\n');
            }
            text.push_str("}\n");
        }
        files.push((format!("src/gen_{m}.rs"), text));
    }
    files.push(("src/lib.rs".to_owned(), lib));
    let mut py =
        String::from("class Box:\n    def open(self):\n        return self\n\n\ndef helper():\n    return 1\n");
    for i in 0..rng.below(4) {
        py.push_str(&format!("\n\ndef f_{i}(obj, arg):\n"));
        body(rng, PY_STATEMENTS, i, "    ", &mut py);
    }
    files.push(("py/mod.py".to_owned(), py));
    let mut ts = String::from("class Box { open(): Box { return this; } }\nfunction helper() { return 1; }\n");
    for i in 0..rng.below(4) {
        ts.push_str(&format!("export function f{i}() {{\n"));
        body(rng, TS_STATEMENTS, i, "  ", &mut ts);
        ts.push_str("}\n");
    }
    files.push(("web/mod.ts".to_owned(), ts));
    files
}

/// One to four statements picked from `statements`, each on its own line after `indent`.
fn body(rng: &mut Rng, statements: &[&str], n: usize, indent: &str, out: &mut String) {
    for _ in 0..1 + rng.below(4) {
        out.push_str(indent);
        out.push_str(&rng.pick(statements, n));
        out.push('\n');
    }
}

#[test]
fn the_summary_accounts_for_every_call_site_the_parsers_saw() {
    let registry = drsg_plugins::builtin();
    let mut rng = Rng(0x5eed_cafe_f00d_d00d);
    for round in 0..40 {
        let files = generate(&mut rng);
        let spec: String = files.iter().map(|(path, text)| format!("//- /{path}\n{text}")).collect();
        // The parsers' own count: call sites in each file's facts, macro arguments included.
        let mut seen = 0;
        for (path, text) in &files {
            let Some((plugin, lang)) = registry.for_path(path) else { continue };
            let facts = drsg_parsers::parse_file(plugin, lang, path, text);
            seen += facts
                .refs
                .iter()
                .filter(|r| matches!(r.kind, RefKind::Call | RefKind::Instantiate | RefKind::Decorator | RefKind::Jsx))
                .count() as u64;
        }
        let ix = index(&spec);
        let a = &ix.report.accounting;
        assert!(seen > 0, "round {round}: nothing to count\n{spec}");
        assert_eq!(a.call_sites, seen, "round {round}: the summary's call sites against the parsers'\n{spec}");
        assert_eq!(a.resolved + a.external + a.unresolved, a.call_sites, "round {round}\n{spec}");
        assert_eq!(
            a.unresolved_by_reason.values().sum::<u64>(),
            a.unresolved,
            "round {round}: unresolved by reason\n{spec}"
        );
        assert_eq!(ix.calls().len() as u64, a.call_sites, "round {round}: one stored edge a site\n{spec}");
    }
}
