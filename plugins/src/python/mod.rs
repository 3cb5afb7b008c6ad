//! Python plugin (tree-sitter-python 0.25): defs, refs, imports, typed bindings and bases of `.py`/`.pyi` files.
//!
//! One walk of the tree, starting the combined `.scm` queries where their patterns start, collects the
//! interesting nodes; definitions are built first (they are the scopes), then every other capture is swept
//! in source order against a stack of the enclosing functions and classes, so enclosure costs O(n log n)
//! whatever the nesting depth.

mod bindings;
mod defs;
mod imports;
mod limits;
mod refs;
mod syntax;

use std::collections::HashSet;
use std::sync::LazyLock;

use crate::children::named_children;
use crate::fields::ChildInField;
use crate::rooted::{Match, Rooted, Start, Tap};
use drsg_parsers::children::KindSet;
use drsg_parsers::{FileFacts, Lang, Language};
use syntax::{Field, Kind, child, kind};
use tree_sitter::Node;

pub struct PythonPlugin;

/// The query files, in the order they are concatenated into one compiled query.
pub(crate) const QUERIES: &[(&str, &str)] = &[
    ("defs.scm", include_str!("defs.scm")),
    ("refs.scm", include_str!("refs.scm")),
    ("imports.scm", include_str!("imports.scm")),
    ("bindings.scm", include_str!("bindings.scm")),
];

impl Language for PythonPlugin {
    fn name(&self) -> &'static str {
        "python"
    }
    fn version(&self) -> &'static str {
        "0.1.0"
    }
    fn lang_for(&self, path: &str) -> Option<Lang> {
        matches!(crate::extension(path), "py" | "pyi").then_some(Lang::Python)
    }
    fn grammar(&self, _lang: Lang) -> tree_sitter::Language {
        tree_sitter_python::LANGUAGE.into()
    }
    fn queries(&self) -> &'static [(&'static str, &'static str)] {
        QUERIES
    }
    fn prepare(&self, _lang: Lang) {
        LazyLock::force(&COMPILED);
    }
    fn extract(&self, lang: Lang, tree: &tree_sitter::Tree, source: &str, path: &str) -> FileFacts {
        self.extract_tapped(lang, tree, source, path, &KindSet::default(), &mut Vec::new()).0
    }

    /// The walk passes every node but those inside string literals without expressions, unless a wide
    /// ERROR node splits it or the tree is deeper than it goes.
    fn extract_tapped<'t>(
        &self,
        _lang: Lang,
        tree: &'t tree_sitter::Tree,
        source: &str,
        path: &str,
        kinds: &KindSet,
        tapped: &mut Vec<Node<'t>>,
    ) -> (FileFacts, bool) {
        let root = tree.root_node();
        let plan = limits::plan(root, source.len());
        let whole = matches!(plan.jobs.as_slice(), [job] if job.root == root)
            && plan.diagnostics.is_empty()
            && !COMPILED.rooted.may_pass_by(kinds);
        let tap = whole.then_some((kinds, tapped));
        let Captures { mut candidates, context, mut items, .. } = collect(&plan, source, tap);
        let mut facts = FileFacts {
            module_doc: syntax::docstring(root, source),
            diagnostics: plan.diagnostics,
            ..FileFacts::default()
        };
        let spans = defs::build(&mut candidates, &context, source, syntax::is_test_path(path), &mut facts);

        items.sort_by_key(Item::position);
        let mut sweep = ScopeSweep::new(&spans);
        for item in &items {
            let scope = sweep.scope_at(item.position());
            match *item {
                Item::Call(node) => refs::call(node, scope, source, &mut facts),
                Item::Decorator(node) => refs::decorator(node, scope, source, &mut facts),
                Item::Value(node) => refs::value(node, scope, source, &mut facts),
                Item::Type(node) => refs::annotation(node, scope, source, &mut facts),
                Item::Import(site) => imports::import(site, scope, source, &mut facts),
                Item::Assign(node) => bindings::assignment(node, scope, source, &mut facts),
                Item::Param(node) => bindings::parameter(node, scope, source, &mut facts),
                Item::Target(node, after) => bindings::targets(node, after, scope, source, &mut facts),
            }
        }
        (facts, whole)
    }
}

/// The named kinds of the nodes inside a string literal without expressions (where the walk does not go),
/// and the extras, which might lie there: a test holds the list to the grammar's trees.
const SEALED_INSIDE: &[&str] = &[
    "string_start",
    "string_content",
    "string_end",
    "escape_sequence",
    "escape_interpolation",
    "interpolation",
    "comment",
    "line_continuation",
];

/// What a capture name stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Def(defs::Candidate),
    Decorated,
    VarDoc,
    Call,
    Decorator,
    DefaultParam,
    ImportStatement,
    ImportFrom,
    Assign,
    Param,
    /// A parameter list: its untyped parameters.
    Params,
    /// A `for` statement or clause: its loop variables.
    For,
    /// `… as x` (`with`, `except`, `case`).
    As,
    /// `(x := …)`.
    Walrus,
}

fn role(capture_name: &str) -> Option<Role> {
    Some(match capture_name {
        "def.function" => Role::Def(defs::Candidate::Function),
        "def.class" => Role::Def(defs::Candidate::Class),
        "def.type_alias" => Role::Def(defs::Candidate::TypeAlias),
        "def.decorated" => Role::Decorated,
        "def.var_doc" => Role::VarDoc,
        "ref.call" => Role::Call,
        "ref.decorator" => Role::Decorator,
        "ref.default" => Role::DefaultParam,
        "import.statement" => Role::ImportStatement,
        "import.from" => Role::ImportFrom,
        "binding.assign" => Role::Assign,
        "binding.param" => Role::Param,
        "binding.params" => Role::Params,
        "binding.for" => Role::For,
        "binding.as" => Role::As,
        "binding.walrus" => Role::Walrus,
        _ => return None,
    })
}

struct CompiledQuery {
    /// The query, compiled for the walk (see [`crate::rooted`]).
    rooted: Rooted,
    /// Role of each capture index.
    roles: Vec<Option<Role>>,
}

/// The plugin's query files as one query.
pub(crate) fn query_text() -> String {
    QUERIES.iter().map(|(_, text)| *text).collect::<Vec<_>>().join("\n")
}

static COMPILED: LazyLock<CompiledQuery> = LazyLock::new(|| {
    let text = query_text();
    let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
    let rooted = Rooted::new(&language, &text)
        .expect("every python pattern starts at one named node kind, so the query can start there")
        .sealing(&language, &["string"], SEALED_INSIDE, interpolated);
    let roles = rooted.query.capture_names().iter().map(|name| role(name)).collect();
    CompiledQuery { rooted, roles }
});

/// Whether string `node` may hold expressions: an f-string (or a template string), told by its prefix.
fn interpolated(node: Node<'_>, source: &[u8]) -> bool {
    let text = source.get(node.start_byte()..).unwrap_or_default();
    text.iter().take_while(|b| b.is_ascii_alphabetic()).any(|b| matches!(b, b'f' | b'F' | b't' | b'T'))
}

/// A capture waiting for its enclosing definition.
#[derive(Clone, Copy)]
enum Item<'t> {
    Call(Node<'t>),
    Decorator(Node<'t>),
    Value(Node<'t>),
    Type(Node<'t>),
    Import(imports::Site<'t>),
    Assign(Node<'t>),
    Param(Node<'t>),
    /// A target that binds names without a type: a name, or a pattern of names (`a, (b, *c)`); with the
    /// node that still reads the names' earlier meaning (the assignment it is the target of, what a `for`
    /// iterates), after whose line the names take effect.
    Target(Node<'t>, Option<Node<'t>>),
}

impl Item<'_> {
    fn position(&self) -> usize {
        match self {
            Item::Call(n)
            | Item::Decorator(n)
            | Item::Value(n)
            | Item::Type(n)
            | Item::Assign(n)
            | Item::Param(n)
            | Item::Target(n, _) => n.start_byte(),
            Item::Import(site) => site.position(),
        }
    }
}

/// Everything one run of the query yields. Context a node would need its parent for is captured by the
/// query instead: `Node::parent` walks down from the root, which is quadratic on deep or wide trees.
#[derive(Default)]
struct Captures<'t> {
    candidates: Vec<(Node<'t>, defs::Candidate)>,
    context: defs::Context<'t>,
    items: Vec<Item<'t>>,
    /// Calls that are decorators: their decorator is their only ref.
    decorator_calls: HashSet<usize>,
}

/// Run the combined query in the planned roots' subtrees, started at the nodes where its patterns start
/// (see [`crate::rooted`]; whole subtrees but for huge ERROR nodes, which give roots of their own).
fn collect<'t>(plan: &limits::Plan<'t>, source: &str, mut tap: Tap<'_, 't>) -> Captures<'t> {
    let compiled = &*COMPILED;
    let mut captures = Captures::default();
    for job in &plan.jobs {
        crate::rooted::for_each_match_tapped(
            &compiled.rooted,
            job.root,
            source.as_bytes(),
            limits::MAX_QUERY_DEPTH,
            limits::is_wide_error,
            tap.as_mut().map(|(kinds, tapped)| (*kinds, &mut **tapped)),
            |m, start| captures.add(m, start, &compiled.roles),
        );
    }
    let decorator_calls = std::mem::take(&mut captures.decorator_calls);
    if !decorator_calls.is_empty() {
        captures.items.retain(|item| !matches!(item, Item::Call(call) if decorator_calls.contains(&call.id())));
    }
    captures
}

impl<'t> Captures<'t> {
    /// Sort the captures of one match into definitions, items and context.
    fn add(&mut self, m: Match<'_, 't>, start: Start<'t>, roles: &[Option<Role>]) {
        for capture in m.captures {
            let node = capture.node;
            match roles.get(capture.index as usize).copied().flatten() {
                Some(Role::Def(candidate)) => self.definition(node, candidate),
                Some(Role::Decorated) => {
                    if let Some(definition) = child(node, Field::Definition).filter(|d| d.is_named()) {
                        self.context.decorated.insert(definition.id(), node);
                    }
                }
                Some(Role::VarDoc) => {
                    // A statement that is one string and nothing else.
                    let mut named = named_children(node);
                    if let (Some(doc), None) = (named.next(), named.next())
                        && kind(doc) == Kind::String
                    {
                        self.var_doc(doc, start);
                    }
                }
                Some(Role::Call) => self.items.push(Item::Call(node)),
                Some(Role::Decorator) => {
                    self.items.push(Item::Decorator(node));
                    for call in named_children(node).filter(|child| kind(*child) == Kind::Call) {
                        self.decorator_calls.insert(call.id());
                    }
                }
                Some(Role::DefaultParam) => self.value(child(node, Field::Value)),
                Some(Role::ImportStatement) => self.imports(node, None),
                Some(Role::ImportFrom) => {
                    let source = child(node, Field::ModuleName);
                    if let Some(source) = source.filter(|s| matches!(kind(*s), Kind::DottedName | Kind::RelativeImport))
                    {
                        self.imports(node, Some(source));
                    }
                }
                Some(Role::Assign) => self.assignment(node, start),
                Some(Role::Param) => self.parameter(node),
                Some(Role::Params) => self.parameters(node),
                // A `for` statement's names take effect after what it iterates (`for line in line.split()`);
                // a comprehension's element comes before its `for`, so its names count from their own line.
                Some(Role::For) => {
                    let iterated = child(node, Field::Right).filter(|_| kind(node) == Kind::ForStatement);
                    self.target(child(node, Field::Left), iterated)
                }
                Some(Role::As) => self.target(child(node, Field::Alias), None),
                Some(Role::Walrus) => self.target(child(node, Field::Name), None),
                None => {}
            }
        }
    }

    /// The names an import statement imports: `import a.b [as m]` (`source` `None`), or from `source`
    /// (`from .m import f [as g]`, `from m import *`). Each name is a `dotted_name` or `aliased_import` in the
    /// statement's `name` field; a star is a `wildcard_import` child.
    fn imports(&mut self, statement: Node<'t>, source: Option<Node<'t>>) {
        let mut cursor = statement.walk();
        if let Some(field) = statement.field_id(Field::Name) {
            for name in statement.children_by_field_id(field, &mut cursor) {
                if matches!(kind(name), Kind::DottedName | Kind::AliasedImport) {
                    let site = match source {
                        Some(source) => imports::Site::From { source, name },
                        None => imports::Site::Module(name),
                    };
                    self.items.push(Item::Import(site));
                }
            }
        }
        if let Some(source) = source {
            for star in named_children(statement).filter(|c| kind(*c) == Kind::WildcardImport) {
                self.items.push(Item::Import(imports::Site::Glob { source, star }));
            }
        }
    }

    /// A function, class or type alias: a definition candidate when it has the name the grammar gives it,
    /// then the annotation or class keywords it holds.
    fn definition(&mut self, node: Node<'t>, candidate: defs::Candidate) {
        let named = |node: Node<'t>| child(node, Field::Name).is_some_and(|name| kind(name) == Kind::Identifier);
        match candidate {
            defs::Candidate::Function => {
                if named(node) {
                    self.candidates.push((node, candidate));
                }
                self.annotation(child(node, Field::ReturnType));
            }
            defs::Candidate::Class => {
                if named(node) {
                    self.candidates.push((node, candidate));
                }
                // `metaclass=M`: keyword values of the bases list.
                let Some(list) = child(node, Field::Superclasses).filter(|list| kind(*list) == Kind::ArgumentList)
                else {
                    return;
                };
                for argument in named_children(list) {
                    if kind(argument) == Kind::KeywordArgument {
                        self.value(child(argument, Field::Value));
                    }
                }
            }
            defs::Candidate::TypeAlias => {
                self.candidates.push((node, candidate));
                self.annotation(child(node, Field::Right));
            }
            defs::Candidate::Var => self.candidates.push((node, candidate)),
        }
    }

    /// `x = …`, `self.x = …` (a binding); a definition candidate when it assigns a plain name as a statement
    /// of its own or as the inner assignment of a chain `a = b = …`; a name on the right (a value) and the
    /// annotation.
    fn assignment(&mut self, node: Node<'t>, start: Start<'t>) {
        // The inner assignment of a chain is the right side of the outer one.
        if assigns_a_name(node)
            && start.parent.is_some_and(|p| matches!(kind(p), Kind::ExpressionStatement | Kind::Assignment))
        {
            self.candidates.push((node, defs::Candidate::Var));
        }
        match child(node, Field::Left) {
            Some(left) if matches!(kind(left), Kind::Identifier | Kind::Attribute) => {
                self.items.push(Item::Assign(node))
            }
            left => self.target(left, Some(node)),
        }
        let right = child(node, Field::Right);
        self.value(right);
        self.annotation(child(node, Field::Type));
    }

    /// A statement that is one string (`doc`'s), documenting the variable assigned by the statement right
    /// before it in the same module or block (PEP 257 attribute docstrings).
    fn var_doc(&mut self, doc: Node<'t>, start: Start<'t>) {
        if !start.parent.is_some_and(|p| matches!(kind(p), Kind::Module | Kind::Block)) {
            return;
        }
        let statement = start.prev_named.filter(|n| kind(*n) == Kind::ExpressionStatement);
        if let Some(var) = statement.and_then(syntax::first_named).filter(|n| assigns_a_name(*n)) {
            self.context.var_docs.insert(var.id(), doc);
        }
    }

    /// `c: Client` and `c: Client = default`: a binding when the name is an identifier, the annotation, and
    /// the default when it is a name.
    fn parameter(&mut self, node: Node<'t>) {
        let ty = child(node, Field::Type).filter(|ty| is_type(*ty));
        let name = if kind(node) == Kind::TypedDefaultParameter {
            child(node, Field::Name).filter(|name| kind(*name) == Kind::Identifier)
        } else {
            named_children(node).find(|child| kind(*child) == Kind::Identifier)
        };
        if name.is_some() {
            self.items.push(Item::Param(node));
        }
        self.annotation(ty);
        if kind(node) == Kind::TypedDefaultParameter {
            self.value(child(node, Field::Value));
        }
    }

    /// The untyped parameters of a `def` or `lambda` (typed ones are captured on their own): plain names,
    /// names with a default, `*args` and `**kwargs`.
    fn parameters(&mut self, node: Node<'t>) {
        for parameter in named_children(node) {
            match kind(parameter) {
                Kind::Identifier | Kind::ListSplatPattern | Kind::DictionarySplatPattern => {
                    self.items.push(Item::Target(parameter, None))
                }
                Kind::DefaultParameter => self.target(child(parameter, Field::Name), None),
                _ => {}
            }
        }
    }

    /// A target that binds names (see [`Item::Target`]); attributes and subscripts bind none.
    fn target(&mut self, node: Option<Node<'t>>, before: Option<Node<'t>>) {
        if let Some(node) = node.filter(|node| binds_names(*node)) {
            self.items.push(Item::Target(node, before));
        }
    }

    /// A name or attribute chain used as a value.
    fn value(&mut self, node: Option<Node<'t>>) {
        if let Some(node) = node.filter(|node| matches!(kind(*node), Kind::Identifier | Kind::Attribute)) {
            self.items.push(Item::Value(node));
        }
    }

    /// An annotation (a `type` node).
    fn annotation(&mut self, node: Option<Node<'t>>) {
        if let Some(node) = node.filter(|node| is_type(*node)) {
            self.items.push(Item::Type(node));
        }
    }
}

/// An assignment to a plain name: `x = …`, `x: T = …`.
fn assigns_a_name(node: Node<'_>) -> bool {
    kind(node) == Kind::Assignment && child(node, Field::Left).is_some_and(|left| kind(left) == Kind::Identifier)
}

/// Whether a target node is a name or a pattern that may hold names.
fn binds_names(node: Node<'_>) -> bool {
    matches!(
        kind(node),
        Kind::Identifier
            | Kind::PatternList
            | Kind::TuplePattern
            | Kind::ListPattern
            | Kind::ListSplatPattern
            | Kind::DictionarySplatPattern
            | Kind::AsPatternTarget
    )
}

/// A `type` node (not the `type` keyword of an alias, which has the same kind name).
fn is_type(node: Node<'_>) -> bool {
    kind(node) == Kind::Type && node.is_named()
}

/// Byte range of a function or class body owner and its def index; ranges nest like the tree.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    def: u32,
}

/// Answers "innermost enclosing def" for non-decreasing positions in one pass over the spans.
struct ScopeSweep<'a> {
    spans: &'a [Span],
    next: usize,
    stack: Vec<Span>,
}

impl<'a> ScopeSweep<'a> {
    /// `spans` sorted by start.
    fn new(spans: &'a [Span]) -> Self {
        ScopeSweep { spans, next: 0, stack: Vec::new() }
    }

    /// The innermost span strictly containing `position` (a node starting where a span starts is the
    /// span's own definition, not inside it). Positions must not decrease between calls.
    fn scope_at(&mut self, position: usize) -> Option<u32> {
        while let Some(span) = self.spans.get(self.next).copied().filter(|s| s.start < position) {
            self.pop_ended(span.start);
            self.stack.push(span);
            self.next += 1;
        }
        self.pop_ended(position);
        self.stack.last().map(|s| s.def)
    }

    fn pop_ended(&mut self, position: usize) {
        while self.stack.last().is_some_and(|s| s.end <= position) {
            self.stack.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use drsg_parsers::children::push_nodes_of_kinds;

    use super::*;

    fn language() -> tree_sitter::Language {
        tree_sitter_python::LANGUAGE.into()
    }

    /// The wire fixtures, and the grammar sample with its f-string, comment and syntax error.
    fn sources() -> Vec<&'static str> {
        let mut sources: Vec<&str> = include_str!("../../../testdata/wire/fixtures.py").split("# ---").collect();
        sources.extend(crate::testing::samples().into_iter().filter(|(l, _)| *l == language()).map(|(_, s)| s));
        sources.push("x = f'{g(1)}' rb'\\n{h(2)}' \"\"\"doc {k(3)}\"\"\" Rf\"{m(4)!r:>{w(5)}}\"\n");
        sources
    }

    fn every_named_kind_but_sealed_ones() -> KindSet {
        let language = language();
        let mut kinds = KindSet::default();
        for id in 0..language.node_kind_count() as u16 {
            if language.node_kind_is_named(id) && !COMPILED.rooted.inside_sealed(id) {
                kinds.insert(id);
            }
        }
        kinds
    }

    /// The walk taps what the C walk of the whole tree finds, for a set of every kind it may tap.
    #[test]
    fn the_walk_taps_every_node_of_the_kinds_in_pre_order() {
        let kinds = every_named_kind_but_sealed_ones();
        for source in sources() {
            let tree = crate::testing::parse(&language(), source);
            let mut tapped = Vec::new();
            let (_, whole) = PythonPlugin.extract_tapped(Lang::Python, &tree, source, "t.py", &kinds, &mut tapped);
            assert!(whole, "{source:?}");
            let mut walked = Vec::new();
            push_nodes_of_kinds(tree.root_node(), &kinds, &mut walked);
            assert_eq!(tapped, walked, "{source:?}");
        }
    }

    /// Inside a string the walk does not enter lie only nodes of [`SEALED_INSIDE`]'s kinds.
    #[test]
    fn strings_the_walk_stays_out_of_hold_only_the_kinds_it_leaves_to_the_caller() {
        assert!(SEALED_INSIDE.iter().all(|k| language().id_for_node_kind(k, true) != 0), "every kind is the grammar's");
        let mut inside = 0;
        for source in sources() {
            let tree = crate::testing::parse(&language(), source);
            for node in crate::testing::every_node(&tree) {
                if node.kind() != "string" || node.has_error() || interpolated(node, source.as_bytes()) {
                    continue;
                }
                for below in crate::testing::every_node(&tree).into_iter().filter(|n| {
                    n.start_byte() >= node.start_byte() && n.end_byte() <= node.end_byte() && n.id() != node.id()
                }) {
                    if std::iter::successors(below.parent(), |p| p.parent()).any(|p| p.id() == node.id()) {
                        inside += 1;
                        assert!(COMPILED.rooted.inside_sealed(below.kind_id()), "{} in {source:?}", below.kind());
                    }
                }
            }
        }
        assert!(inside > 100, "{inside} nodes inside strings");
    }

    /// A kind that may lie inside a string, or a tree the walk does not take whole, leaves the start nodes
    /// to the caller's own walk.
    #[test]
    fn the_caller_walks_when_the_tap_may_miss_a_node() {
        let language = language();
        let source = "s = 'a\\n'\nf(s)\n";
        let tree = crate::testing::parse(&language, source);
        let mut kinds = KindSet::default();
        kinds.insert(language.id_for_node_kind("call", true));
        let mut tapped = Vec::new();
        assert!(PythonPlugin.extract_tapped(Lang::Python, &tree, source, "t.py", &kinds, &mut tapped).1);
        assert_eq!(tapped.len(), 1);
        kinds.insert(language.id_for_node_kind("escape_sequence", true));
        assert!(!PythonPlugin.extract_tapped(Lang::Python, &tree, source, "t.py", &kinds, &mut Vec::new()).1);
        // A wide ERROR node splits the walk.
        let wide = format!("f({}\n", "[".repeat(20_000));
        let tree = crate::testing::parse(&language, &wide);
        let mut kinds = KindSet::default();
        kinds.insert(language.id_for_node_kind("call", true));
        assert!(!PythonPlugin.extract_tapped(Lang::Python, &tree, &wide, "t.py", &kinds, &mut Vec::new()).1);
    }
}
