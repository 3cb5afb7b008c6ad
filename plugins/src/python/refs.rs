//! References: call sites, decorators, names passed as values, names in annotations.

use drsg_parsers::text::{collapse, node_text};
use drsg_parsers::{FileFacts, Origin, Qualifier, Ref, RefKind};
use tree_sitter::Node;

use super::syntax::{
    Field, Kind, child, first_named, forward_ref_names, kind, line, name_path, split_attributes, string_parts,
};

use crate::children::named_children;

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
    let Some(function) = child(node, Field::Function) else { return };
    let callee = match kind(function) {
        Kind::Identifier => {
            let name = node_text(function, source);
            // `super()` and `super(A, self)` only qualify the call made on them.
            if name == "super" {
                return;
            }
            Some((vec![name.to_owned()], Qualifier::Plain))
        }
        Kind::Attribute => {
            let (base, names) = split_attributes(function, source);
            (!names.is_empty()).then(|| receiver(base, names, source))
        }
        // `f()()`, `handlers[k]()`: still a call site, named by its text.
        _ => Some((vec![collapse(node_text(function, source), 120)], Qualifier::expr(None))),
    };
    if let Some((path, qualifier)) = callee {
        // A chained call spanning lines is reported on the line of its own name.
        let site = child(function, Field::Attribute).unwrap_or(node);
        facts.refs.push(Ref {
            kind: RefKind::Call,
            path,
            qualifier,
            line: line(site),
            scope,
            text: collapse(node_text(function, source), 120),
            origin: Origin::Written,
        });
    }
    argument_values(node, scope, source, facts);
}

/// Names passed to a call: `map(f, xs)`, `sorted(xs, key=func)`; literals and other expressions are not values.
fn argument_values(call: Node<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let Some(arguments) = child(call, Field::Arguments).filter(|a| kind(*a) == Kind::ArgumentList) else {
        return;
    };
    for argument in named_children(arguments) {
        let argument = match kind(argument) {
            Kind::KeywordArgument => match child(argument, Field::Value) {
                Some(value) => value,
                None => continue,
            },
            _ => argument,
        };
        if matches!(kind(argument), Kind::Identifier | Kind::Attribute) {
            value(argument, scope, source, facts);
        }
    }
}

/// The qualifier of `base.names…`: `self`/`cls` receivers, `super()`, call results, other expressions.
fn receiver(base: Node<'_>, names: Vec<String>, source: &str) -> (Vec<String>, Qualifier) {
    match kind(base) {
        Kind::Identifier => match node_text(base, source) {
            "self" | "cls" => (names, Qualifier::SelfValue),
            name => {
                let mut path = Vec::with_capacity(names.len() + 1);
                path.push(name.to_owned());
                path.extend(names);
                (path, Qualifier::Plain)
            }
        },
        Kind::Call => {
            let callee = child(base, Field::Function);
            if callee.is_some_and(|c| kind(c) == Kind::Identifier && node_text(c, source) == "super") {
                (names, Qualifier::Super)
            } else {
                (names, Qualifier::expr(callee.and_then(|c| name_path(c, source))))
            }
        }
        _ => (names, Qualifier::expr(None)),
    }
}

/// `@foo`, `@foo.bar`, `@foo(arg)`, `@foo.bar(arg)`: one Decorator ref, its call is not a separate Call.
pub(super) fn decorator(node: Node<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let Some(expression) = first_named(node) else { return };
    let target = match kind(expression) {
        Kind::Call => match child(expression, Field::Function) {
            Some(function) => function,
            None => return,
        },
        _ => expression,
    };
    push_named(RefKind::Decorator, target, line(node), scope, source, facts);
    if kind(expression) == Kind::Call {
        argument_values(expression, scope, source, facts);
    }
}

/// A name or attribute chain used as a value: a call argument, a keyword argument value, the right side
/// of an assignment, a class keyword (`metaclass=M`). Bare `self`/`cls` are not values.
pub(super) fn value(node: Node<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    push_named(RefKind::Value, node, line(node), scope, source, facts);
}

/// A reference to a name or attribute chain rooted at an identifier (nothing for other expressions).
fn push_named(ref_kind: RefKind, node: Node<'_>, site: u32, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let (base, names) = split_attributes(node, source);
    if kind(base) != Kind::Identifier {
        return;
    }
    let (path, qualifier) = receiver(base, names, source);
    if path.is_empty() {
        return;
    }
    facts.refs.push(Ref {
        kind: ref_kind,
        path,
        qualifier,
        line: site,
        scope,
        text: collapse(node_text(node, source), 120),
        origin: Origin::Written,
    });
}

/// Every name in an annotation (`Optional[mod.Client]` → `Optional`, `mod.Client`), forward references
/// (`"Client"`) included; builtins skipped, `Literal[…]` arguments and calls inside annotations not read as types.
pub(super) fn annotation(ty: Node<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let mut push = |path: Vec<String>, at: Node<'_>| {
        if path.len() == 1 && BUILTIN_TYPES.contains(&path[0].as_str()) {
            return;
        }
        let text = collapse(&path.join("."), 120);
        facts.refs.push(Ref {
            kind: RefKind::Type,
            path,
            qualifier: Qualifier::Plain,
            line: line(at),
            scope,
            text,
            origin: Origin::Written,
        });
    };
    let mut stack = vec![ty];
    while let Some(node) = stack.pop() {
        match kind(node) {
            Kind::Identifier => push(vec![node_text(node, source).to_owned()], node),
            Kind::Attribute => {
                if let Some(path) = name_path(node, source) {
                    push(path, node);
                }
            }
            Kind::String => {
                if let Some((_, content)) = string_parts(node, source) {
                    for path in forward_ref_names(content) {
                        push(path, node);
                    }
                }
            }
            Kind::Call | Kind::KeywordArgument | Kind::Comment => {}
            other => {
                let head = match other {
                    Kind::GenericType => first_named(node),
                    Kind::Subscript => child(node, Field::Value),
                    _ => None,
                };
                let literal = head
                    .and_then(|h| name_path(h, source))
                    .is_some_and(|p| p.last().is_some_and(|last| last == "Literal"));
                match head {
                    Some(head) if literal => stack.push(head),
                    _ => {
                        let children: Vec<Node<'_>> = named_children(node).collect();
                        stack.extend(children.into_iter().rev());
                    }
                }
            }
        }
    }
}
