//! References: call sites, decorators, names passed as values, names in annotations.

use drsg_parsers::text::{collapse, node_text};
use drsg_parsers::{FileFacts, Qualifier, Ref, RefKind};
use tree_sitter::Node;

use super::syntax::{first_named, forward_ref_names, line, name_path, split_attributes, string_parts};

/// Builtin and `typing` names that never resolve to a definition of the tree; not recorded as type refs.
const BUILTIN_TYPES: &[&str] = &[
    "int",
    "str",
    "float",
    "bool",
    "bytes",
    "None",
    "object",
    "list",
    "dict",
    "set",
    "tuple",
    "Any",
    "complex",
    "frozenset",
    "bytearray",
    "type",
];

/// A call: `f()`, `a.b.c()`, `self.x()`, `super().x()`, `make().run()`, `"".join(x)`, then the names passed to it.
/// The `super()` call itself and callees with no name (`f()()`, `fs[0]()`) yield no Call
/// (calls that are decorators never reach here).
pub(super) fn call(node: Node<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let Some(function) = node.child_by_field_name("function") else { return };
    let callee = match function.kind() {
        "identifier" => {
            let name = node_text(function, source);
            // `super()` and `super(A, self)` only qualify the call made on them.
            if name == "super" {
                return;
            }
            Some((vec![name.to_owned()], Qualifier::Plain))
        }
        "attribute" => {
            let (base, names) = split_attributes(function, source);
            (!names.is_empty()).then(|| receiver(base, names, source))
        }
        // `f()()`, `handlers[k]()`: still a call site, named by its text.
        _ => Some((vec![collapse(node_text(function, source), 120)], Qualifier::Expr { call: None })),
    };
    if let Some((path, qualifier)) = callee {
        // A chained call spanning lines is reported on the line of its own name.
        let site = function.child_by_field_name("attribute").unwrap_or(node);
        facts.refs.push(Ref {
            kind: RefKind::Call,
            path,
            qualifier,
            line: line(site),
            scope,
            text: collapse(node_text(function, source), 120),
        });
    }
    argument_values(node, scope, source, facts);
}

/// Names passed to a call: `map(f, xs)`, `sorted(xs, key=func)`; literals and other expressions are not values.
fn argument_values(call: Node<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let Some(arguments) = call.child_by_field_name("arguments").filter(|a| a.kind() == "argument_list") else {
        return;
    };
    let mut cursor = arguments.walk();
    for argument in arguments.named_children(&mut cursor) {
        let argument = match argument.kind() {
            "keyword_argument" => match argument.child_by_field_name("value") {
                Some(value) => value,
                None => continue,
            },
            _ => argument,
        };
        if matches!(argument.kind(), "identifier" | "attribute") {
            value(argument, scope, source, facts);
        }
    }
}

/// The qualifier of `base.names…`: `self`/`cls` receivers, `super()`, call results, other expressions.
fn receiver(base: Node<'_>, names: Vec<String>, source: &str) -> (Vec<String>, Qualifier) {
    match base.kind() {
        "identifier" => match node_text(base, source) {
            "self" | "cls" => (names, Qualifier::SelfValue),
            name => {
                let mut path = Vec::with_capacity(names.len() + 1);
                path.push(name.to_owned());
                path.extend(names);
                (path, Qualifier::Plain)
            }
        },
        "call" => {
            let callee = base.child_by_field_name("function");
            if callee.is_some_and(|c| c.kind() == "identifier" && node_text(c, source) == "super") {
                (names, Qualifier::Super)
            } else {
                (names, Qualifier::Expr { call: callee.and_then(|c| name_path(c, source)) })
            }
        }
        _ => (names, Qualifier::Expr { call: None }),
    }
}

/// `@foo`, `@foo.bar`, `@foo(arg)`, `@foo.bar(arg)`: one Decorator ref, its call is not a separate Call.
pub(super) fn decorator(node: Node<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let Some(expression) = first_named(node) else { return };
    let target = match expression.kind() {
        "call" => match expression.child_by_field_name("function") {
            Some(function) => function,
            None => return,
        },
        _ => expression,
    };
    push_named(RefKind::Decorator, target, line(node), scope, source, facts);
    if expression.kind() == "call" {
        argument_values(expression, scope, source, facts);
    }
}

/// A name or attribute chain used as a value: a call argument, a keyword argument value, the right side
/// of an assignment, a class keyword (`metaclass=M`). Bare `self`/`cls` are not values.
pub(super) fn value(node: Node<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    push_named(RefKind::Value, node, line(node), scope, source, facts);
}

/// A reference to a name or attribute chain rooted at an identifier (nothing for other expressions).
fn push_named(kind: RefKind, node: Node<'_>, site: u32, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let (base, names) = split_attributes(node, source);
    if base.kind() != "identifier" {
        return;
    }
    let (path, qualifier) = receiver(base, names, source);
    if path.is_empty() {
        return;
    }
    facts.refs.push(Ref { kind, path, qualifier, line: site, scope, text: collapse(node_text(node, source), 120) });
}

/// Every name in an annotation (`Optional[mod.Client]` → `Optional`, `mod.Client`), forward references
/// (`"Client"`) included; builtins skipped, `Literal[…]` arguments and calls inside annotations not read as types.
pub(super) fn annotation(ty: Node<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let mut push = |path: Vec<String>, at: Node<'_>| {
        if path.len() == 1 && BUILTIN_TYPES.contains(&path[0].as_str()) {
            return;
        }
        let text = collapse(&path.join("."), 120);
        facts.refs.push(Ref { kind: RefKind::Type, path, qualifier: Qualifier::Plain, line: line(at), scope, text });
    };
    let mut stack = vec![ty];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "identifier" => push(vec![node_text(node, source).to_owned()], node),
            "attribute" => {
                if let Some(path) = name_path(node, source) {
                    push(path, node);
                }
            }
            "string" => {
                if let Some((_, content)) = string_parts(node, source) {
                    for path in forward_ref_names(content) {
                        push(path, node);
                    }
                }
            }
            "call" | "keyword_argument" | "comment" => {}
            kind => {
                let head = match kind {
                    "generic_type" => first_named(node),
                    "subscript" => node.child_by_field_name("value"),
                    _ => None,
                };
                let literal = head
                    .and_then(|h| name_path(h, source))
                    .is_some_and(|p| p.last().is_some_and(|last| last == "Literal"));
                match head {
                    Some(head) if literal => stack.push(head),
                    _ => {
                        let mut cursor = node.walk();
                        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                        stack.extend(children.into_iter().rev());
                    }
                }
            }
        }
    }
}
