//! The Rust plugin: `*.rs` files through tree-sitter-rust and the `.scm` queries beside this file.
//!
//! All query files are compiled into one query, run once over the tree; each capture name says what the
//! captured node is (`@def.function`, `@ref.call`, …) and the submodules read the node's fields.
//! Enclosing definitions are found by sorting byte ranges and sweeping with a stack, never by recursion,
//! so deeply nested sources cannot overflow the stack.

mod bindings;
mod body_calls;
mod defs;
mod imports;
mod macros;
mod paths;
mod refs;

use crate::kinds::KindName;
use std::collections::HashMap;
use std::sync::LazyLock;

use drsg_parsers::{DefKind, Diagnostic, FileFacts, Lang, Language};
use tree_sitter::Node;

use crate::children::named_children;
use crate::fields::ChildInField;
use crate::rooted::Rooted;

use refs::Positioned;

crate::fields::fields!(enum Field in [tree_sitter_rust::LANGUAGE] {
    Alias = "alias",
    Argument = "argument",
    Arguments = "arguments",
    Body = "body",
    Bounds = "bounds",
    Condition = "condition",
    // `field`, as in `a.b` (a variant named `Field` would repeat the enum's name).
    Member = "field",
    Function = "function",
    Inner = "inner",
    Left = "left",
    List = "list",
    Macro = "macro",
    Name = "name",
    Outer = "outer",
    Parameters = "parameters",
    Path = "path",
    Pattern = "pattern",
    ReturnType = "return_type",
    Right = "right",
    Trait = "trait",
    Type = "type",
    TypeArguments = "type_arguments",
    TypeParameters = "type_parameters",
    Value = "value",
});

/// The `impl` or `trait` item whose body a member sits in (tree-sitter nodes have no cheap parent link, so
/// `members` records each member of an item's body with the item).
#[derive(Debug, Clone, Copy)]
enum Container<'t> {
    Impl(Node<'t>),
    Trait(Node<'t>),
}

pub struct RustPlugin;

static QUERY_FILES: [(&str, &str); 4] = [
    ("defs.scm", include_str!("defs.scm")),
    ("refs.scm", include_str!("refs.scm")),
    ("imports.scm", include_str!("imports.scm")),
    ("bindings.scm", include_str!("bindings.scm")),
];

/// What a capture name stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Capture {
    Def(DefKind),
    Call,
    Macro,
    Instantiate,
    /// An argument list, whose names and paths are values.
    Arguments,
    /// A closure's parameters, whose annotations are types.
    ClosureParameters,
    Type,
    Use,
    ExternCrate,
    Let,
    Param,
    /// A loop, `if let`/`while let` condition or match arm, whose pattern binds names.
    Pattern,
    Field,
    ImplTrait,
    Supertraits,
    /// An `impl` block, whose members, trait and bounds are read in code.
    Impl,
    Attribute,
    Comment,
    /// Context captured beside the main node of a match.
    OwnerContext,
}

fn capture_kind(name: &str) -> Capture {
    match name {
        "def.module" => Capture::Def(DefKind::Module),
        "def.function" => Capture::Def(DefKind::Function),
        "def.struct" => Capture::Def(DefKind::Struct),
        "def.enum" => Capture::Def(DefKind::Enum),
        "def.union" => Capture::Def(DefKind::Union),
        "def.trait" => Capture::Def(DefKind::Trait),
        "def.type_alias" => Capture::Def(DefKind::TypeAlias),
        "def.const" => Capture::Def(DefKind::Const),
        "def.static" => Capture::Def(DefKind::Static),
        "def.macro" => Capture::Def(DefKind::Macro),
        "ref.call" => Capture::Call,
        "ref.macro" => Capture::Macro,
        "ref.instantiate" => Capture::Instantiate,
        "ref.arguments" => Capture::Arguments,
        "ref.closure_parameters" => Capture::ClosureParameters,
        "ref.type" => Capture::Type,
        "import.use" => Capture::Use,
        "import.extern_crate" => Capture::ExternCrate,
        "binding.let" => Capture::Let,
        "binding.pattern" => Capture::Pattern,
        "binding.field" => Capture::Field,
        "item.impl" => Capture::Impl,
        "trivia.attribute" => Capture::Attribute,
        "trivia.comment" => Capture::Comment,
        "ctx.owner" => Capture::OwnerContext,
        other => panic!("rust query capture @{other} has no meaning in the plugin"),
    }
}

struct Compiled {
    /// The query, compiled for the walk (see [`crate::rooted`]).
    rooted: Rooted,
    /// Capture index → meaning.
    captures: Vec<Capture>,
}

/// The plugin's query files as one query.
pub(crate) fn query_text() -> String {
    QUERY_FILES.iter().map(|(_, text)| *text).collect::<Vec<_>>().join("\n")
}

/// Kinds the walk does not descend into: below them are only tokens (a macro's token trees hold no items,
/// calls or types the grammar parsed) and comments that precede no item.
const SEALED: &[&str] = &["line_comment", "block_comment", "token_tree", "string_literal", "raw_string_literal"];

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| {
    let text = query_text();
    let language: tree_sitter::Language = tree_sitter_rust::LANGUAGE.into();
    let rooted = Rooted::new(&language, &text)
        .expect("every rust pattern starts at one named node kind, so the query can start there")
        .sealing(&language, SEALED, &[], |_, _| false);
    let captures = rooted.query.capture_names().iter().map(|name| capture_kind(name)).collect();
    Compiled { rooted, captures }
});

impl Language for RustPlugin {
    fn name(&self) -> &'static str {
        "rust"
    }
    fn version(&self) -> &'static str {
        "0.5.0"
    }
    fn lang_for(&self, path: &str) -> Option<Lang> {
        (crate::extension(path) == "rs").then_some(Lang::Rust)
    }
    fn grammar(&self, _lang: Lang) -> tree_sitter::Language {
        tree_sitter_rust::LANGUAGE.into()
    }
    fn queries(&self) -> &'static [(&'static str, &'static str)] {
        &QUERY_FILES
    }
    fn prepare(&self, _lang: Lang) {
        LazyLock::force(&COMPILED);
    }
    fn extract(&self, _lang: Lang, tree: &tree_sitter::Tree, source: &str, _path: &str) -> FileFacts {
        extract(tree.root_node(), source)
    }
}

/// Captured nodes grouped by meaning, in no particular order.
#[derive(Default)]
struct Captured<'t> {
    defs: Vec<(Node<'t>, DefKind)>,
    /// Member node id → the `impl`/`trait` body it sits in.
    containers: HashMap<usize, Container<'t>>,
    /// Attributes and comments.
    trivia: Vec<Node<'t>>,
    /// Type roots with the item whose generics they may name.
    types: Vec<(Node<'t>, Option<Node<'t>>)>,
    sites: Vec<(Node<'t>, Capture)>,
    hit_match_limit: bool,
}

fn capture<'t>(root: Node<'t>, source: &str) -> Captured<'t> {
    let compiled = &*COMPILED;
    let mut captured = Captured::default();
    let each = |m: crate::rooted::Match<'_, 't>, _: crate::rooted::Start<'t>| {
        let mut main = None;
        let mut context = None;
        for c in m.captures {
            match compiled.captures[c.index as usize] {
                Capture::OwnerContext => context = Some(c.node),
                kind => main = Some((c.node, kind)),
            }
        }
        let Some((node, kind)) = main else { return };
        match (kind, context) {
            (Capture::Def(def_kind), _) => {
                match def_kind {
                    DefKind::Function => signature(node, &mut captured.types, &mut captured.sites),
                    DefKind::Trait => trait_item(node, &mut captured),
                    _ => {}
                }
                captured.defs.push((node, def_kind));
            }
            (Capture::Impl, _) => impl_item(node, &mut captured),
            (Capture::Attribute | Capture::Comment, _) => captured.trivia.push(node),
            (Capture::Type, owner) => captured.types.push((node, owner)),
            (Capture::ClosureParameters, _) => {
                for parameter in named_children(node).filter(|p| p.kind_name() == "parameter") {
                    captured.types.extend(parameter.field(Field::Type).filter(|ty| ty.is_named()).map(|ty| (ty, None)));
                }
                captured.sites.push((node, Capture::ClosureParameters));
            }
            (Capture::Let, _) => {
                captured.types.extend(node.field(Field::Type).filter(|ty| ty.is_named()).map(|ty| (ty, None)));
                captured.sites.push((node, Capture::Let));
            }
            (kind, _) => captured.sites.push((node, kind)),
        }
    };
    let hit_match_limit =
        crate::rooted::for_each_match(&compiled.rooted, root, source.as_bytes(), u32::MAX, |_| false, each);
    Captured { hit_match_limit, ..captured }
}

/// What patterns rooted at a function (an `fn` item or signature) would capture, read off its fields: each
/// parameter (`Capture::Param`), and as types owned by the function each parameter's
/// type, the return type, and the trait bounds of its type parameters and where clause. In code, a
/// function start costs a few field reads where the query cursor would start and step through the item.
fn signature<'t>(
    function: Node<'t>,
    types: &mut Vec<(Node<'t>, Option<Node<'t>>)>,
    sites: &mut Vec<(Node<'t>, Capture)>,
) {
    if let Some(parameters) = function.field(Field::Parameters) {
        for parameter in named_children(parameters).filter(|p| p.kind_name() == "parameter") {
            sites.push((parameter, Capture::Param));
            types.extend(parameter.field(Field::Type).filter(|ty| ty.is_named()).map(|ty| (ty, Some(function))));
        }
    }
    types.extend(function.field(Field::ReturnType).filter(|ty| ty.is_named()).map(|ty| (ty, Some(function))));
    generic_bounds(function, types);
}

/// An `impl` block's members (their container is the block), whether it implements a trait for a type
/// (`Capture::ImplTrait`), and its generics' bounds.
fn impl_item<'t>(item: Node<'t>, captured: &mut Captured<'t>) {
    members(item, Container::Impl(item), &mut captured.containers);
    let named = |field| item.field(field).is_some_and(|n: Node<'_>| n.is_named());
    if named(Field::Trait) && named(Field::Type) {
        captured.sites.push((item, Capture::ImplTrait));
    }
    generic_bounds(item, &mut captured.types);
}

/// A trait's members (their container is the trait), its supertraits (`Capture::Supertraits`, and their
/// bounds as types), and its generics' bounds.
fn trait_item<'t>(item: Node<'t>, captured: &mut Captured<'t>) {
    members(item, Container::Trait(item), &mut captured.containers);
    if let Some(bounds) = item.field(Field::Bounds).filter(|b| b.kind_name() == "trait_bounds") {
        captured.sites.push((item, Capture::Supertraits));
        captured.types.push((bounds, Some(item)));
    }
    generic_bounds(item, &mut captured.types);
}

/// The named nodes of an item's `declaration_list` body, each with `container`.
fn members<'t>(item: Node<'t>, container: Container<'t>, containers: &mut HashMap<usize, Container<'t>>) {
    if let Some(body) = item.field(Field::Body).filter(|b| b.kind_name() == "declaration_list") {
        containers.extend(named_children(body).map(|member| (member.id(), container)));
    }
}

/// The trait bounds of an item's type parameters and where clause, as types owned by the item.
fn generic_bounds<'t>(item: Node<'t>, types: &mut Vec<(Node<'t>, Option<Node<'t>>)>) {
    let bounds = |node: Node<'t>| node.field(Field::Bounds).filter(|b| b.kind_name() == "trait_bounds");
    if let Some(parameters) = item.field(Field::TypeParameters) {
        for parameter in named_children(parameters).filter(|p| p.kind_name() == "type_parameter") {
            types.extend(bounds(parameter).map(|b| (b, Some(item))));
        }
    }
    for clause in named_children(item).filter(|c| c.kind_name() == "where_clause") {
        for predicate in named_children(clause).filter(|p| p.kind_name() == "where_predicate") {
            types.extend(bounds(predicate).map(|b| (b, Some(item))));
        }
    }
}

fn extract(root: Node<'_>, source: &str) -> FileFacts {
    let captured = capture(root, source);
    let macros = captured.defs.iter().filter(|(_, kind)| *kind == DefKind::Macro).map(|(node, _)| *node);
    let rules = macros::mbe::Rules::of(macros, source);
    let reading = macros::Reading { rules: &rules, depth: 0 };
    let mut facts = FileFacts { module_doc: defs::inner_doc(root, source), ..FileFacts::default() };
    let trivia = defs::Trivia::new(captured.trivia);
    let macro_nodes: Vec<Node<'_>> =
        captured.defs.iter().filter(|(_, kind)| *kind == DefKind::Macro).map(|(node, _)| *node).collect();
    let table = defs::build(captured.defs, &captured.containers, &trivia, source, &mut facts.defs);
    for node in macro_nodes {
        if let Some(&def) = table.by_node.get(&node.id()) {
            let calls = body_calls::of(node, source);
            if !calls.is_empty() {
                facts.macro_calls.push(drsg_parsers::MacroCalls { def, calls });
            }
        }
    }

    let mut refs = Vec::new();
    let mut imports = Vec::new();
    let mut bindings = Vec::new();
    for (node, owner) in captured.types {
        refs::types(node, owner, &captured.containers, source, &mut refs);
    }
    let mut invocations = Vec::new();
    let mut item_level = Vec::new();
    for (node, kind) in captured.sites {
        match kind {
            Capture::Use => imports::use_declaration(node, source, &mut imports),
            Capture::ExternCrate => imports.extend(imports::extern_crate(node, source)),
            Capture::Field => bindings.extend(bindings::field(node, source)),
            Capture::ImplTrait => facts.inherits.extend(bindings::impl_trait(node, source)),
            Capture::Supertraits => {
                let child_def = table.by_node.get(&node.id()).copied();
                bindings::supertraits(node, source, child_def, &mut facts.inherits);
            }
            kind => {
                if kind == Capture::Macro {
                    match macros::treatment(node, source, reading, Some(&captured.containers)) {
                        macros::Treatment::Items(placed) => item_level.push((node, placed)),
                        treatment => macros::invocation(
                            node,
                            source,
                            reading,
                            treatment,
                            &mut refs,
                            &mut bindings,
                            &mut invocations,
                        ),
                    }
                }
                read_expression_site(node, kind, source, &mut refs, &mut bindings);
            }
        }
    }
    for (node, placed) in item_level {
        match macros::items::expand(node, source, reading, &placed) {
            Some(items) => {
                let into = macros::items::Invoker {
                    defs: &mut facts.defs,
                    refs: &mut refs,
                    bindings: &mut bindings,
                    imports: &mut imports,
                };
                items.merge(node.start_byte(), &table.spans, into, &mut facts.inherits);
            }
            None => {
                let treatment = macros::Treatment::Items(placed);
                macros::invocation(node, source, reading, treatment, &mut refs, &mut bindings, &mut invocations)
            }
        }
    }
    let blocks = macros::blocks(&invocations, source);
    macros::read(invocations, source, reading, &mut refs, &mut bindings);
    // Only the invocations outside any function matter: inside one, its bindings are the function's.
    let functions: Vec<(u32, u32)> = facts
        .defs
        .iter()
        .filter(|d| matches!(d.kind, DefKind::Function | DefKind::Method))
        .map(|d| (d.line, d.end_line))
        .collect();
    facts.local_blocks =
        blocks.into_iter().filter(|&(a, b)| !functions.iter().any(|&(s, e)| s <= a && b <= e)).collect();
    // The sites and bindings of generated defs come scoped.
    facts.refs = with_scopes(refs, &table.spans, |r, scope| r.scope = r.scope.or(scope));
    facts.imports = with_scopes(imports, &table.spans, |i, scope| i.scope = i.scope.or(scope));
    facts.bindings = with_scopes(bindings, &table.spans, |b, scope| b.scope = b.scope.or(scope));
    facts.inherits.sort_by_key(|i| i.line);
    if captured.hit_match_limit {
        facts.diagnostics.push(Diagnostic {
            line: 0,
            message: "rust query match limit exceeded: some facts may be missing".to_owned(),
            cut: true,
        });
    }
    facts
}

/// The sites and bindings of a capture that code, in a function body or a macro's arguments, holds.
fn read_expression_site<'t>(
    node: Node<'t>,
    kind: Capture,
    source: &str,
    refs: &mut Vec<Positioned<drsg_parsers::Ref>>,
    bindings: &mut Vec<Positioned<drsg_parsers::Binding>>,
) {
    match kind {
        Capture::Call => refs.extend(refs::call(node, source)),
        Capture::Macro => refs.extend(refs::macro_call(node, source)),
        Capture::Instantiate => refs.extend(refs::instantiate(node, source)),
        Capture::Arguments => {
            for argument in named_children(node) {
                if matches!(argument.kind_name(), "identifier" | "scoped_identifier") {
                    refs.extend(refs::value(argument, source));
                }
            }
        }
        Capture::Let => bindings::let_binding(node, source, bindings),
        Capture::Param => bindings::parameter(node, source, bindings),
        Capture::ClosureParameters => {
            for parameter in named_children(node) {
                match parameter.kind_name() {
                    "parameter" => bindings::parameter(parameter, source, bindings),
                    _ => bindings::pattern_names(Some(parameter), source, bindings),
                }
            }
        }
        Capture::Pattern => bindings::pattern_binding(node, source, bindings),
        _ => {}
    }
}

/// Sorts items by position and sets each one's scope to the innermost def whose span contains it
/// (`spans` sorted by start, outer first), in one sweep with a stack of open defs.
fn with_scopes<T>(
    mut items: Vec<Positioned<T>>,
    spans: &[(usize, usize)],
    set: impl Fn(&mut T, Option<u32>),
) -> Vec<T> {
    items.sort_by_key(|(position, _)| *position);
    let mut open: Vec<usize> = Vec::new();
    let mut next = 0usize;
    items
        .into_iter()
        .map(|(position, mut item)| {
            while next < spans.len() && spans[next].0 <= position {
                while open.last().is_some_and(|&i| spans[i].1 <= spans[next].0) {
                    open.pop();
                }
                open.push(next);
                next += 1;
            }
            while open.last().is_some_and(|&i| spans[i].1 <= position) {
                open.pop();
            }
            set(&mut item, open.last().map(|&i| i as u32));
            item
        })
        .collect()
}
