//! The TypeScript plugin: TypeScript, TSX and JavaScript (JSX, CommonJS), one query pass per file.
//!
//! `.ts`/`.mts`/`.cts` use the TypeScript grammar; `.tsx` and all JavaScript use the TSX grammar, a superset of JSX.
//! The `.scm` files are compiled into one query per grammar (JSX patterns only for TSX); the captured nodes are
//! bucketed by role (`capture`) and turned into facts by `defs`, `refs`, `modules` and `bindings`.
//! Enclosing definitions are found by sorted extents (`scope`), never by walking parents,
//! so deeply nested sources cost no more than flat ones.
//!
//! A query's compile analyses every pattern against the grammar's parse tables, at about 1 ms a pattern for the
//! TypeScript grammars and more for alternations and nesting under expression nodes. So a fact that a match the
//! query makes anyway already holds is read in code, not by a pattern of its own: export statements, CommonJS
//! exports and `require` imports, function-valued class properties and test-framework calls.
//!
//! What the plugin records for the resolver's typing: a local declarator holding a function is a local function,
//! and the other declarators are bindings. An untyped parameter of a function passed to a call records the callee,
//! its place and the types the site binds the callee's type parameters to (`TypeHint::Callback`, `TypeArgs`). A
//! function records its function-typed parameters' parameter types (`Def::callbacks`, its own type parameters
//! kept, with `Def::generics` and `Def::returns_args`). Parameters typed by a named type, interfaces' call
//! signatures and type aliases of function types (or unions of them) record their callback slots
//! (`Def::callback_types`). Outside any function a callback's parameters bind in the definition around it, within
//! the callback's lines (`FileFacts::local_blocks`, which also hold Rust's macro blocks). Names destructured or
//! read from `this` take its fields' types (`TypeHint::Field`), and from a call the properties of its declared
//! object result (`TypeHint::Destructured`, `Def::returns_fields`). A class property holding no function is a
//! `Var` member of its class (`get!: HandlerInterface`), one holding a function a method; an interface's property
//! of a function type is a method, and `T | null` is a `T`.

mod bindings;
mod capture;
mod defs;
mod modules;
mod refs;
mod scope;
mod syntax;

use std::sync::LazyLock;

use crate::rooted::Rooted;
use drsg_parsers::children::KindSet;
use drsg_parsers::{Diagnostic, FileFacts, Lang, Language};
use tree_sitter::Node;

use capture::Cap;

pub struct TypeScriptPlugin;

const DEFS: &str = include_str!("defs.scm");
const MODULES: &str = include_str!("modules.scm");
const REFS: &str = include_str!("refs.scm");
const BINDINGS: &str = include_str!("bindings.scm");
const JSX: &str = include_str!("jsx.scm");

const QUERIES: &[(&str, &str)] =
    &[("defs.scm", DEFS), ("modules.scm", MODULES), ("refs.scm", REFS), ("bindings.scm", BINDINGS), ("jsx.scm", JSX)];

/// A compiled query and the role of each of its capture indexes.
struct Compiled {
    /// The query, compiled for the walk (see [`crate::rooted`]).
    rooted: Rooted,
    roles: Vec<Cap>,
}

/// The text of a dialect's combined query: the JSX patterns only for the TSX grammar.
pub(crate) fn query_text(with_jsx: bool) -> String {
    let mut text = [DEFS, MODULES, REFS, BINDINGS].join("\n");
    if with_jsx {
        text.push('\n');
        text.push_str(JSX);
    }
    text
}

fn compile(grammar: tree_sitter::Language, with_jsx: bool) -> Compiled {
    let text = query_text(with_jsx);
    let rooted = Rooted::new(&grammar, &text)
        .expect("every typescript pattern starts at one named node kind, so the query can start there")
        .sealing(&grammar, &["string", "regex"], SEALED_INSIDE, |_, _| false);
    let roles = rooted.query.capture_names().iter().map(|name| Cap::from_name(name)).collect();
    Compiled { rooted, roles }
}

/// The kinds of the nodes inside string and regular expression literals (where the walk does not go), and
/// the extras, which might lie there: a test holds the list to the grammars' trees.
const SEALED_INSIDE: &[&str] = &[
    "string_fragment",
    "escape_sequence",
    "html_character_reference",
    "regex_pattern",
    "regex_flags",
    "comment",
    "html_comment",
];

static TYPESCRIPT: LazyLock<Compiled> =
    LazyLock::new(|| compile(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(), false));
static TSX: LazyLock<Compiled> = LazyLock::new(|| compile(tree_sitter_typescript::LANGUAGE_TSX.into(), true));

/// The compiled queries of a dialect: TypeScript's grammar for `.ts`, the TSX grammar (with the JSX
/// patterns) for `.tsx` and JavaScript.
fn compiled(lang: Lang) -> &'static Compiled {
    match lang {
        Lang::TypeScript => &TYPESCRIPT,
        _ => &TSX,
    }
}

impl Language for TypeScriptPlugin {
    fn name(&self) -> &'static str {
        "typescript"
    }

    fn version(&self) -> &'static str {
        "0.1.0"
    }

    fn lang_for(&self, path: &str) -> Option<Lang> {
        match crate::extension(path) {
            "ts" | "mts" | "cts" => Some(Lang::TypeScript),
            "tsx" => Some(Lang::Tsx),
            "js" | "jsx" | "mjs" | "cjs" => Some(Lang::JavaScript),
            _ => None,
        }
    }

    fn grammar(&self, lang: Lang) -> tree_sitter::Language {
        match lang {
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            _ => tree_sitter_typescript::LANGUAGE_TSX.into(),
        }
    }

    fn queries(&self) -> &'static [(&'static str, &'static str)] {
        QUERIES
    }

    fn prepare(&self, lang: Lang) {
        compiled(lang);
    }

    fn extract(&self, lang: Lang, tree: &tree_sitter::Tree, source: &str, path: &str) -> FileFacts {
        self.extract_tapped(lang, tree, source, path, &KindSet::default(), &mut Vec::new()).0
    }

    /// The walk passes every node but those inside string and regular expression literals, unless the
    /// tree is deeper than it goes.
    fn extract_tapped<'t>(
        &self,
        lang: Lang,
        tree: &'t tree_sitter::Tree,
        source: &str,
        path: &str,
        kinds: &KindSet,
        tapped: &mut Vec<Node<'t>>,
    ) -> (FileFacts, bool) {
        let compiled = compiled(lang);
        let deep = drsg_parsers::text::node_at_depth(tree.root_node(), capture::MAX_START_DEPTH);
        let whole = deep.is_none() && !compiled.rooted.may_pass_by(kinds);
        let tap = whole.then_some((kinds, tapped));
        let captured = capture::collect(&compiled.rooted, &compiled.roles, tree, source, tap);
        let built = defs::build(&captured, source, path);
        let refs = refs::build(&captured, source, &built.scopes);
        let mut imports = modules::imports(&captured, source, &built.scopes);
        imports.sort_by_key(|i| i.line);
        let mut exports = modules::exports(&captured, source);
        exports.extend(built.exports);
        exports.sort_by_key(|e| e.line);
        let (bindings, local_blocks) = bindings::build(&captured, source, &built.scopes, &built.defs);
        let mut diagnostics = Vec::new();
        if let Some(deep) = deep {
            diagnostics.push(Diagnostic {
                line: deep.start_position().row as u32 + 1,
                message: format!(
                    "nesting deeper than {} levels: what lies deeper was not extracted",
                    capture::MAX_START_DEPTH
                ),
                cut: true,
            });
        }
        let facts = FileFacts {
            defs: built.defs,
            refs,
            imports,
            exports,
            bindings,
            inherits: built.inherits,
            parse_errors: 0,
            diagnostics,
            module_doc: built.module_doc,
            local_blocks,
            macro_calls: Vec::new(),
            wire: Vec::new(),
        };
        (facts, whole)
    }
}

#[cfg(test)]
mod tests {
    use drsg_parsers::children::push_nodes_of_kinds;

    use super::*;

    /// Each dialect with the wire fixtures and the grammar samples it parses.
    fn sources() -> Vec<(Lang, &'static str)> {
        let mut sources = Vec::new();
        for (lang, fixtures) in [
            (Lang::TypeScript, include_str!("../../../testdata/wire/fixtures.ts")),
            (Lang::Tsx, include_str!("../../../testdata/wire/fixtures.js")),
        ] {
            sources.extend(fixtures.split("// ---").map(|s| (lang, s)));
            let grammar = TypeScriptPlugin.grammar(lang);
            sources
                .extend(crate::testing::samples().into_iter().filter(|(l, _)| *l == grammar).map(|(_, s)| (lang, s)));
        }
        sources.push((Lang::TypeScript, "const r = /a\\/b/gi; const s = 'x\\n' + \"y\" + `t${f('z')}`; // c\n"));
        sources
    }

    /// The walk taps what the C walk of the whole tree finds, for a set of every kind it may tap.
    #[test]
    fn the_walk_taps_every_node_of_the_kinds_in_pre_order() {
        for (lang, source) in sources() {
            let grammar = TypeScriptPlugin.grammar(lang);
            let mut kinds = KindSet::default();
            for id in 0..grammar.node_kind_count() as u16 {
                if grammar.node_kind_is_named(id) && !compiled(lang).rooted.inside_sealed(id) {
                    kinds.insert(id);
                }
            }
            let tree = crate::testing::parse(&grammar, source);
            let mut tapped = Vec::new();
            let (_, whole) = TypeScriptPlugin.extract_tapped(lang, &tree, source, "t.ts", &kinds, &mut tapped);
            assert!(whole, "{source:?}");
            let mut walked = Vec::new();
            push_nodes_of_kinds(tree.root_node(), &kinds, &mut walked);
            assert_eq!(tapped, walked, "{source:?}");
        }
    }

    /// Inside the literals the walk does not enter lie only named nodes of [`SEALED_INSIDE`]'s kinds, and a kind
    /// of those leaves the start nodes to the caller.
    #[test]
    fn literals_the_walk_stays_out_of_hold_only_the_kinds_it_leaves_to_the_caller() {
        let mut inside = 0;
        for (lang, source) in sources() {
            let grammar = TypeScriptPlugin.grammar(lang);
            let tree = crate::testing::parse(&grammar, source);
            for node in crate::testing::every_node(&tree) {
                if !matches!(node.kind(), "string" | "regex") || node.has_error() {
                    continue;
                }
                // Queries start at named nodes only: the quotes and slashes do not count.
                for below in crate::testing::every_node(&tree).into_iter().filter(|n| n.is_named()) {
                    if std::iter::successors(below.parent(), |p| p.parent()).any(|p| p.id() == node.id()) {
                        inside += 1;
                        assert!(compiled(lang).rooted.inside_sealed(below.kind_id()), "{} in {source:?}", below.kind());
                    }
                }
            }
            let mut kinds = KindSet::default();
            kinds.insert(grammar.id_for_node_kind("string_fragment", true));
            assert!(!TypeScriptPlugin.extract_tapped(lang, &tree, source, "t.ts", &kinds, &mut Vec::new()).1);
        }
        assert!(inside > 100, "{inside} nodes inside literals");
    }
}
