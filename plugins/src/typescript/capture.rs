//! One pass of the plugin's query over a tree, sorting captured nodes into buckets by role.
//!
//! A generic call the TypeScript grammar misreads as comparisons among arguments
//! (`f(await g<A, B>(x))`: `await g < A` and `B > (x)`) is read off the `arguments` match as a call
//! of `g` (`misparsed_generic_calls`), as TypeScript itself reads it.

use crate::kinds::KindName;
use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Tree};

use super::syntax::{Field, named_children, start_after_decorators};
use crate::fields::ChildInField;
use crate::rooted::{Rooted, Start};

/// The role of a capture name in the `.scm` files. Each pattern has exactly one primary capture
/// (the role of the match); the others carry its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cap {
    DefFunction,
    DefFunctionSignature,
    DefClass,
    /// A method or method signature, a definition when it stands in a class or interface body.
    DefMember,
    DefInterface,
    DefTypeAlias,
    DefEnum,
    DefModule,
    DefVars,
    WrapAmbient,
    Comment,
    /// An `import` statement: what it imports is read off its children.
    Import,
    /// An `export` statement: what it wraps, re-exports or exports is read off its children.
    ExportStatement,
    Call,
    New,
    Decorator,
    ValueArguments,
    ValueJsx,
    ValueAssignment,
    Type,
    TypeParam,
    Annotation,
    BindVariable,
    BindParameter,
    BindField,
    /// An arrow function, a `for … in/of` loop or a `catch` clause, which bind names untyped.
    BindTarget,
    Jsx,
    JsxName,
    /// Capture names the plugin does not read.
    Helper,
}

impl Cap {
    pub(super) fn from_name(name: &str) -> Cap {
        match name {
            "def.function" => Cap::DefFunction,
            "def.function_signature" => Cap::DefFunctionSignature,
            "def.class" => Cap::DefClass,
            "def.member" => Cap::DefMember,
            "def.interface" => Cap::DefInterface,
            "def.type_alias" => Cap::DefTypeAlias,
            "def.enum" => Cap::DefEnum,
            "def.module" => Cap::DefModule,
            "def.vars" => Cap::DefVars,
            "wrap.ambient" => Cap::WrapAmbient,
            "comment" => Cap::Comment,
            "import" => Cap::Import,
            "export.statement" => Cap::ExportStatement,
            "call" => Cap::Call,
            "new" => Cap::New,
            "decorator" => Cap::Decorator,
            "value.arguments" => Cap::ValueArguments,
            "value.jsx" => Cap::ValueJsx,
            "value.assignment" => Cap::ValueAssignment,
            "type" => Cap::Type,
            "type.param" => Cap::TypeParam,
            "annotation" => Cap::Annotation,
            "bind.variable" => Cap::BindVariable,
            "bind.parameter" => Cap::BindParameter,
            "bind.field" => Cap::BindField,
            "bind.target" => Cap::BindTarget,
            "jsx" => Cap::Jsx,
            "jsx.name" => Cap::JsxName,
            _ => Cap::Helper,
        }
    }
}

/// What kind of definition a `@def.*` capture is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DefSite {
    Function,
    FunctionSignature,
    Class,
    Method,
    MethodSignature,
    FieldMethod,
    /// A class property holding no function (`get!: HandlerInterface`, `#count = 0`): a `Var` member.
    Property,
    Interface,
    InterfaceMethod,
    TypeAlias,
    Enum,
    Module,
}

/// A declaration wrapped by `export` or `declare`: the wrapper's node id and start.
#[derive(Debug, Clone, Copy)]
pub(super) struct Wrapper {
    pub outer: usize,
    pub start: usize,
    /// Where a signature starts: after the wrapper's decorators.
    pub sig_start: usize,
    pub export: bool,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum ImportSite<'t> {
    /// `import … from "m"` and `export {…} from "m"` (`reexport`).
    Clause { clause: Node<'t>, source: Node<'t>, reexport: bool },
    /// `import x = require("m")`, `export * as ns from "m"` (`reexport`).
    Namespace { alias: Node<'t>, source: Node<'t>, reexport: bool },
    /// `export * from "m"`.
    Glob { source: Node<'t> },
    /// `const x = require("m")`, `const {a} = require("m")`, `const x = require("m").y`.
    Require { declarator: Node<'t>, alias: Node<'t>, source: Node<'t>, member: Option<Node<'t>> },
}

/// Nodes of one file, by role. Filled in one query pass; order within a bucket is unspecified.
#[derive(Default)]
pub(super) struct Captured<'t> {
    pub defs: Vec<(DefSite, Node<'t>, Node<'t>)>,
    pub var_declarations: Vec<Node<'t>>,
    /// Variable declarations inside functions and blocks: their declarators holding a function are local
    /// functions.
    pub local_declarations: Vec<Node<'t>>,
    /// Inner declaration node id → what wraps it.
    pub wrappers: HashMap<usize, Wrapper>,
    /// Declaration node ids under `export default`.
    pub default_exported: HashSet<usize>,
    pub test_callbacks: Vec<(usize, usize)>,
    /// JSDoc comments by end byte: `/** … */` only.
    pub doc_comments: HashMap<usize, Node<'t>>,
    pub comments_first: Option<Node<'t>>,
    pub imports: Vec<ImportSite<'t>>,
    pub export_clauses: Vec<Node<'t>>,
    pub export_defaults: Vec<Node<'t>>,
    /// `(assignment, property name, value)` of `exports.a = …`.
    pub cjs_members: Vec<(Node<'t>, Node<'t>, Node<'t>)>,
    /// `(assignment, value)` of `module.exports = …`.
    pub cjs_modules: Vec<(Node<'t>, Node<'t>)>,
    pub calls: Vec<(Node<'t>, Node<'t>)>,
    pub news: Vec<(Node<'t>, Node<'t>)>,
    pub decorators: Vec<Node<'t>>,
    pub values: Vec<Node<'t>>,
    /// `(assignment target, assigned value)`.
    pub assigned_values: Vec<(Node<'t>, Node<'t>)>,
    pub types: Vec<Node<'t>>,
    pub type_inner: HashSet<usize>,
    pub type_params: Vec<Node<'t>>,
    pub annotations: Vec<(usize, usize)>,
    /// `(declarator, name)`; the name is an identifier or a destructuring pattern.
    pub bind_variables: Vec<(Node<'t>, Node<'t>)>,
    /// `(parameter, pattern, type annotation, where its function is passed)`.
    pub bind_parameters: Vec<(Node<'t>, Node<'t>, Option<Node<'t>>, Option<Passed<'t>>)>,
    /// Names or patterns bound untyped: an arrow function's lone parameter (`x => …`, with where the
    /// function is passed), the variables of `for (const x of …)`, a `catch (e)` parameter.
    pub bind_targets: Vec<(Node<'t>, Option<Passed<'t>>)>,
    /// `(field, name)`.
    pub bind_fields: Vec<(Node<'t>, Node<'t>)>,
    pub jsx_names: Vec<Node<'t>>,
}

/// Patterns start matching no deeper than this in the tree. Tree-sitter keeps a match's start depth in 16 bits:
/// past 65,535 levels matching goes wrong (and quadratic), so what lies deeper is not extracted.
pub(super) const MAX_START_DEPTH: u32 = 50_000;

/// The wrapper an `export` or `declare` statement `outer` is to the declaration it holds.
fn wrapper(outer: Node<'_>, export: bool) -> Wrapper {
    Wrapper { outer: outer.id(), start: outer.start_byte(), sig_start: start_after_decorators(outer), export }
}

/// What an `export` statement says, read off its children: the declaration it wraps (and whether as the
/// default), the names it re-exports from a module (`export {a} from "m"`, `export * as ns from "m"`,
/// `export * from "m"`), the names it exports (`export {a}`), and a name exported whole (`export default a`,
/// `export = a`). Each reads as a pattern rooted at the statement used to (eight of them, which took half
/// of each grammar's query compile): children in order, a field's child by its field.
fn export_statement<'t>(out: &mut Captured<'t>, node: Node<'t>) {
    let declaration = node.field(Field::Declaration).filter(Node::is_named);
    let source_field = node.field(Field::Source);
    let source = source_field.filter(|s| s.kind_name() == "string");
    if let Some(inner) = declaration {
        out.wrappers.insert(inner.id(), wrapper(node, true));
    }
    if let Some(value) = node.field(Field::Value).filter(|v| v.kind_name() == "identifier") {
        out.export_defaults.push(value);
    }
    let (mut default, mut equals) = (false, false);
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if !child.is_named() {
            match child.kind_name() {
                "default" => default = true,
                "=" => equals = true,
                "*" => out.imports.extend(source.map(|source| ImportSite::Glob { source })),
                _ => {}
            }
            continue;
        }
        if Some(child) == declaration && default {
            out.default_exported.insert(child.id());
        }
        match child.kind_name() {
            "export_clause" => match (source, source_field) {
                (Some(source), _) => out.imports.push(ImportSite::Clause { clause: child, source, reexport: true }),
                (None, None) => out.export_clauses.push(child),
                (None, Some(_)) => {}
            },
            "namespace_export" => {
                let alias = named_children(child).find(|n| n.kind_name() == "identifier");
                if let (Some(alias), Some(source)) = (alias, source) {
                    out.imports.push(ImportSite::Namespace { alias, source, reexport: true });
                }
            }
            "identifier" if equals => out.export_defaults.push(child),
            _ => {}
        }
    }
}

/// Run `query` over the whole tree, started at the nodes where its patterns start (`rooted`, see
/// [`crate::rooted`]), and bucket what it captured.
pub(super) fn collect<'t>(
    rooted: &Rooted,
    roles: &[Cap],
    tree: &'t Tree,
    source: &str,
    tap: crate::rooted::Tap<'_, 't>,
) -> Captured<'t> {
    let mut out = Captured::default();
    let root = tree.root_node();
    crate::rooted::for_each_match_tapped(
        rooted,
        root,
        source.as_bytes(),
        MAX_START_DEPTH,
        |_| false,
        tap,
        |m, start| {
            for c in m.captures {
                let node = c.node;
                match roles[c.index as usize] {
                    Cap::DefFunction => push_def(&mut out, DefSite::Function, node, name(node, "identifier")),
                    Cap::DefFunctionSignature => {
                        push_def(&mut out, DefSite::FunctionSignature, node, name(node, "identifier"));
                    }
                    Cap::DefClass => push_def(&mut out, DefSite::Class, node, name(node, "type_identifier")),
                    Cap::DefMember => {
                        if let Some(site) = member_site(node, start.parent) {
                            push_def(&mut out, site, node, node.field(Field::Name).filter(Node::is_named));
                        }
                    }
                    Cap::DefInterface => push_def(&mut out, DefSite::Interface, node, name(node, "type_identifier")),
                    Cap::DefTypeAlias => push_def(&mut out, DefSite::TypeAlias, node, name(node, "type_identifier")),
                    Cap::DefEnum => push_def(&mut out, DefSite::Enum, node, name(node, "identifier")),
                    Cap::DefModule => {
                        push_def(&mut out, DefSite::Module, node, node.field(Field::Name).filter(Node::is_named));
                    }
                    Cap::DefVars => {
                        if at_module_level(start) {
                            out.var_declarations.push(node);
                        } else {
                            out.local_declarations.push(node);
                        }
                    }
                    Cap::WrapAmbient => {
                        for inner in named_children(node) {
                            out.wrappers.insert(inner.id(), wrapper(node, false));
                        }
                    }
                    Cap::ExportStatement => export_statement(&mut out, node),
                    Cap::Comment => {
                        if out.comments_first.is_none_or(|first| node.start_byte() < first.start_byte()) {
                            out.comments_first = Some(node);
                        }
                        if drsg_parsers::text::node_text(node, source).starts_with("/**") {
                            out.doc_comments.insert(node.end_byte(), node);
                        }
                    }
                    Cap::Import => import_statement(&mut out, node),
                    Cap::Call => {
                        if let Some(callee) = node.field(Field::Function).filter(Node::is_named) {
                            if is_test_framework_call(callee, source) {
                                test_callbacks(&mut out, node);
                            }
                            out.calls.push((node, callee));
                        }
                    }
                    Cap::New => {
                        if let Some(callee) = node.field(Field::Constructor).filter(Node::is_named) {
                            out.news.push((node, callee));
                        }
                    }
                    Cap::Decorator => out.decorators.push(node),
                    Cap::ValueArguments => {
                        out.values.extend(named_children(node));
                        misparsed_generic_calls(node, source, &mut out.calls);
                    }
                    Cap::ValueJsx => out.values.extend(node.named_child(0)),
                    Cap::ValueAssignment => {
                        let left = node.field(Field::Left).filter(Node::is_named);
                        if let (Some(target), Some(value)) = (left, node.field(Field::Right).filter(Node::is_named)) {
                            out.assigned_values.push((target, value));
                            commonjs(&mut out, node, target, value, source);
                        }
                    }
                    Cap::Type => {
                        // `ns.Type`: its last name is part of it, not a type of its own.
                        if node.kind_name() == "nested_type_identifier"
                            && let Some(inner) = node.field(Field::Name).filter(|n| n.kind_name() == "type_identifier")
                        {
                            out.type_inner.insert(inner.id());
                        }
                        out.types.push(node);
                    }
                    Cap::TypeParam => {
                        out.type_params.extend(node.field(Field::Name).filter(|n| n.kind_name() == "type_identifier"));
                    }
                    Cap::Annotation => out.annotations.push((node.start_byte(), node.end_byte())),
                    Cap::BindVariable => {
                        if let Some(name) = node.field(Field::Name) {
                            out.bind_variables.push((node, name));
                        }
                        out.imports.extend(require(node, source));
                    }
                    Cap::BindParameter => {
                        let ty = node.field(Field::Type).filter(|ty| ty.kind_name() == "type_annotation");
                        if let Some(pattern) = node.field(Field::Pattern).filter(|p| p.kind_name() != "this") {
                            out.bind_parameters.push((node, pattern, ty, passed(node, start.parent, start.above)));
                        }
                    }
                    Cap::BindTarget => {
                        let target = match node.kind_name() {
                            "arrow_function" => node.field(Field::Parameter),
                            // `for (x of xs)` assigns a variable declared elsewhere; `const`/`let`/`var` binds one.
                            "for_in_statement" => node.field(Field::DeclarationKind).and(node.field(Field::Left)),
                            _ => node.field(Field::Parameter),
                        };
                        // `subscriber => …` passed to a call: its one parameter.
                        let passed = start
                            .parent
                            .filter(|a| node.kind_name() == "arrow_function" && a.kind_name() == "arguments")
                            .map(|arguments| Passed { arguments, function: node, param: 0 });
                        out.bind_targets.extend(target.map(|t| (t, passed)));
                    }
                    Cap::BindField => {
                        let in_class = start.parent.is_some_and(|parent| parent.kind_name() == "class_body");
                        if let Some(name) = node.field(Field::Name).filter(|name| in_class && name.is_named()) {
                            let site = if holds_function(node) { DefSite::FieldMethod } else { DefSite::Property };
                            push_def(&mut out, site, node, Some(name));
                            out.bind_fields.push((node, name));
                        }
                    }
                    Cap::JsxName => out.jsx_names.push(node),
                    // Parts of a match, read through their primary capture above.
                    Cap::Jsx | Cap::Helper => {}
                }
            }
        },
    );
    out
}

/// `const x = require("m")`, `const {a, b: c} = require("m")` and `const x = require("m").y`: the declarator's
/// name (a plain name or an object pattern), the module (a string, the call's only argument) and the member.
/// Read here rather than by a pattern, which made up about a quarter of each TypeScript grammar's query compile.
fn require<'t>(declarator: Node<'t>, source: &str) -> Option<ImportSite<'t>> {
    let alias =
        declarator.field(Field::Name).filter(|name| matches!(name.kind_name(), "identifier" | "object_pattern"))?;
    let value = declarator.field(Field::Value)?;
    let (call, member) = match value.kind_name() {
        "call_expression" => (value, None),
        "member_expression" => {
            let call = value.field(Field::Object).filter(|object| object.kind_name() == "call_expression")?;
            (call, Some(value.field(Field::Property).filter(|p| p.kind_name() == "property_identifier")?))
        }
        _ => return None,
    };
    let function = call.field(Field::Function).filter(|f| f.kind_name() == "identifier")?;
    if source.get(function.byte_range()) != Some("require") {
        return None;
    }
    let arguments = call.field(Field::Arguments).filter(|a| a.kind_name() == "arguments")?;
    let mut arguments = named_children(arguments);
    let (Some(module), None) = (arguments.next(), arguments.next()) else { return None };
    (module.kind_name() == "string").then_some(ImportSite::Require { declarator, alias, source: module, member })
}

/// CommonJS exports written as assignments: `exports.a = …` and `module.exports.a = …` give a member
/// (name `a`), `module.exports = …` the module's value.
fn commonjs<'t>(out: &mut Captured<'t>, assignment: Node<'t>, left: Node<'t>, right: Node<'t>, source: &str) {
    let is = |node: Node<'_>, kind: &str, text: &str| {
        node.kind_name() == kind && source.get(node.byte_range()) == Some(text)
    };
    let member = |node: Node<'t>| {
        (node.kind_name() == "member_expression").then_some(())?;
        Some((node.field(Field::Object)?, node.field(Field::Property)?))
    };
    let Some((object, property)) = member(left) else { return };
    if property.kind_name() != "property_identifier" {
        return;
    }
    let module_exports = |node: Node<'t>| {
        member(node).is_some_and(|(o, p)| is(o, "identifier", "module") && is(p, "property_identifier", "exports"))
    };
    if is(object, "identifier", "exports") || module_exports(object) {
        out.cjs_members.push((assignment, property, right));
    } else if module_exports(left) {
        out.cjs_modules.push((assignment, right));
    }
}

/// Test-framework functions whose callbacks hold tests.
const TEST_FUNCTIONS: [&str; 7] = ["describe", "it", "test", "beforeEach", "afterEach", "beforeAll", "afterAll"];

/// Whether `callee` calls a test-framework function: `describe(…)`, `it.only(…)`, `test.each(table)(…)`.
fn is_test_framework_call(callee: Node<'_>, source: &str) -> bool {
    let named = |node: Node<'_>| {
        node.kind_name() == "identifier"
            && source.get(node.byte_range()).is_some_and(|text| TEST_FUNCTIONS.contains(&text))
    };
    let direct = |node: Node<'_>| match node.kind_name() {
        "identifier" => named(node),
        "member_expression" => node.field(Field::Object).is_some_and(named),
        _ => false,
    };
    direct(callee) || (callee.kind_name() == "call_expression" && callee.field(Field::Function).is_some_and(direct))
}

/// The function arguments of a test-framework call: the test callbacks.
fn test_callbacks(out: &mut Captured<'_>, call: Node<'_>) {
    let Some(arguments) = call.field(Field::Arguments).filter(|a| a.kind_name() == "arguments") else { return };
    for arg in named_children(arguments) {
        if matches!(arg.kind_name(), "arrow_function" | "function_expression") {
            out.test_callbacks.push((arg.start_byte(), arg.end_byte()));
        }
    }
}

/// Whether a class property's value is a function (`handler = () => {}`), which makes the property a
/// method.
fn holds_function(field: Node<'_>) -> bool {
    field.field(Field::Value).is_some_and(|value| {
        matches!(value.kind_name(), "arrow_function" | "function_expression" | "generator_function")
    })
}

/// Whether a variable declaration that started a match stands at module level: in the file or in a
/// namespace's body, directly or under `export`, `declare` or `export declare` (a namespace's `declare`
/// is not). From its ancestors, by kind: a declaration under `export` is always its `declaration`, and a
/// statement block under a namespace its `body`.
fn at_module_level(start: Start<'_>) -> bool {
    let [grandparent, great] = start.above;
    matches!(
        [start.parent, grandparent, great].map(|node| node.map(|node| node.kind_name())),
        [Some("program"), ..]
            | [Some("export_statement" | "ambient_declaration"), Some("program"), _]
            | [Some("ambient_declaration"), Some("export_statement"), Some("program")]
            | [Some("statement_block"), Some("internal_module" | "module"), _]
            | [Some("export_statement"), Some("statement_block"), Some("internal_module" | "module")]
    )
}

/// A function passed as an argument (`operate((source, subscriber) => …)`), read off the walk's ancestors
/// of one of its parameters: the argument list, the function, and the parameter's index.
#[derive(Clone, Copy)]
pub(super) struct Passed<'t> {
    pub arguments: Node<'t>,
    pub function: Node<'t>,
    pub param: u32,
}

/// Where the function of a parameter whose parent is `list` is passed, if it is an argument.
fn passed<'t>(parameter: Node<'t>, list: Option<Node<'t>>, above: [Option<Node<'t>>; 2]) -> Option<Passed<'t>> {
    let [function, arguments] = above;
    let (list, function, arguments) = (list?, function?, arguments?);
    let function_kind = matches!(function.kind_name(), "arrow_function" | "function_expression");
    if list.kind_name() != "formal_parameters" || !function_kind || arguments.kind_name() != "arguments" {
        return None;
    }
    let param = named_children(list).position(|p| p.id() == parameter.id())? as u32;
    Some(Passed { arguments, function, param })
}

/// What a method, method signature or abstract method signature defines, by the body it stands in: a
/// class's method or method signature, an interface's method (also a property of a function type);
/// nothing elsewhere (an object literal's method, a type literal's signature).
fn member_site(node: Node<'_>, parent: Option<Node<'_>>) -> Option<DefSite> {
    match (node.kind_name(), parent?.kind_name()) {
        ("method_definition", "class_body") => Some(DefSite::Method),
        ("method_signature" | "abstract_method_signature", "class_body") => Some(DefSite::MethodSignature),
        ("method_signature", "interface_body") => Some(DefSite::InterfaceMethod),
        ("property_signature", "interface_body") => {
            let ty = node.field(Field::Type).and_then(|t| t.named_child(0));
            ty.is_some_and(|t| t.kind_name() == "function_type").then_some(DefSite::InterfaceMethod)
        }
        _ => None,
    }
}

/// A declaration's `name` child when it is of `kind`: a pattern `(class_declaration name: (type_identifier)
/// @name)` read in code, without a cursor start at each declaration.
fn name<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    node.field(Field::Name).filter(|name| name.kind_name() == kind)
}

/// What an `import` statement imports, read off its children: `import … from "m"` (a clause child and the
/// statement's `source`, a string) and `import x = require("m")` (a require clause, its identifier and
/// its own `source`).
fn import_statement<'t>(out: &mut Captured<'t>, node: Node<'t>) {
    let source = |of: Node<'t>| of.field(Field::Source).filter(|s| s.kind_name() == "string");
    for child in named_children(node) {
        match child.kind_name() {
            "import_clause" => {
                if let Some(source) = source(node) {
                    out.imports.push(ImportSite::Clause { clause: child, source, reexport: false });
                }
            }
            "import_require_clause" => {
                let alias = named_children(child).find(|n| n.kind_name() == "identifier");
                if let (Some(alias), Some(source)) = (alias, source(child)) {
                    out.imports.push(ImportSite::Namespace { alias, source, reexport: false });
                }
            }
            _ => {}
        }
    }
}

fn push_def<'t>(out: &mut Captured<'t>, site: DefSite, node: Node<'t>, name: Option<Node<'t>>) {
    if let Some(name) = name {
        out.defs.push((site, node, name));
    }
}

/// Generic calls the grammar reads as comparisons: `f(await g<A, B>(x))` parses as the arguments
/// `await g < A` and `B > (x)` (TypeScript reads it as a call of `g`, as it does whenever type arguments
/// are followed by `(`). An argument whose leftmost operand of a `<` is a name, and a later argument that
/// is a `>`/`>>` whose right side is parenthesised, make one call of that name, at the first.
fn misparsed_generic_calls<'t>(arguments: Node<'t>, source: &str, calls: &mut Vec<(Node<'t>, Node<'t>)>) {
    let args: Vec<Node<'t>> = named_children(arguments).collect();
    let operator = |n: Node<'_>| n.field(Field::Operator).map(|o| drsg_parsers::text::node_text(o, source));
    let closes = |n: Node<'_>| {
        n.kind_name() == "binary_expression"
            && matches!(operator(n), Some(">" | ">>" | ">>>"))
            && n.field(Field::Right).is_some_and(|r| r.kind_name() == "parenthesized_expression")
    };
    for (i, &arg) in args.iter().enumerate() {
        if arg.kind_name() != "binary_expression" || operator(arg) != Some("<") {
            continue;
        }
        let mut callee = arg.field(Field::Left);
        while let Some(left) = callee.filter(|l| l.kind_name() == "binary_expression") {
            callee = left.field(Field::Left);
        }
        if let Some(awaited) = callee.filter(|c| c.kind_name() == "await_expression") {
            callee = awaited.named_child(0);
        }
        let Some(callee) = callee.filter(|c| matches!(c.kind_name(), "identifier" | "member_expression")) else {
            continue;
        };
        if args[i + 1..].iter().any(|&later| closes(later)) {
            calls.push((arg, callee));
        }
    }
}
