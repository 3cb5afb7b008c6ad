//! Bindings: locals and module names typed from annotations and call results, typed parameters, and
//! `self.x = …` fields (bound to the class, not the method); in functions, every other name a function
//! binds (untyped parameters and assignments, loop variables, `as` targets), with no type.

use drsg_parsers::text::{lines, node_text};
use drsg_parsers::{Binding, DefKind, FileFacts, TypeHint};
use tree_sitter::Node;

use super::syntax::{Field, Kind, child, first_named, kind, line, name_path, type_path};
use crate::children::named_children;

/// `c = Client()`, `c = await make()`, `c: Client = …`, `c: Client`, `self.c = Client()`, `self.c = c` of a
/// typed parameter or local `c`; in a function, `x = …`
/// of any other value binds `x` with no type. Tuple targets are [`targets`]; subscripts and chained
/// attributes are skipped; an annotation wins over the value.
pub(super) fn assignment(node: Node<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let Some(left) = child(node, Field::Left) else { return };
    let own_scope = scope;
    let (name, scope) = match kind(left) {
        Kind::Identifier => (node_text(left, source), scope),
        Kind::Attribute => {
            let (Some(object), Some(attribute)) = (child(left, Field::Object), child(left, Field::Attribute)) else {
                return;
            };
            if kind(object) != Kind::Identifier || node_text(object, source) != "self" {
                return;
            }
            // A field: the scope is the class owning the method this assignment sits in.
            let class = scope
                .and_then(|s| facts.defs.get(s as usize))
                .filter(|d| d.kind == DefKind::Method)
                .and_then(|method| method.parent);
            let Some(class) = class else { return };
            (node_text(attribute, source), Some(class))
        }
        _ => return,
    };
    let annotated = child(node, Field::Type).and_then(|ty| type_path(ty, source)).map(TypeHint::Annotated);
    let hint = annotated
        .or_else(|| call_result(child(node, Field::Right)?, source))
        .or_else(|| {
            // `self.app = app` with a parameter `app: Flask`: the name's type where the assignment is.
            let right = child(node, Field::Right).filter(|r| kind(*r) == Kind::Identifier)?;
            let value = node_text(right, source);
            let typed = facts.bindings.iter().rev().find(|b| b.scope == own_scope && b.name == value)?;
            typed.hint.clone()
        })
        .or_else(|| {
            // `session = self.app.session_interface`: the field's type, read from the class.
            let right = child(node, Field::Right).filter(|r| kind(*r) == Kind::Attribute)?;
            let path = name_path(right, source)?;
            (path.len() > 1 && path[0] == "self").then_some(TypeHint::Field(path))
        });
    if name.is_empty() || (hint.is_none() && (kind(left) != Kind::Identifier || !in_function(scope, facts))) {
        return;
    }
    // A field (`self.x = …`) is read through its class, whatever the line.
    let line = if kind(left) == Kind::Attribute { line(node) } else { line_after(node) };
    facts.bindings.push(Binding { name: name.to_owned(), scope, line, hint });
}

/// The line after `node` ends: where an assignment's names start to mean the local (see [`Binding::line`]).
fn line_after(node: Node<'_>) -> u32 {
    lines(node).1 + 1
}

/// The names a target binds in a function, with no type: a parameter without an annotation, a loop or
/// comprehension variable, `as` targets, `(x := …)`, the names of a tuple or list target (`a, (b, *c) = …`).
/// Outside functions these are module or class variables, which are definitions, not bindings.
/// The names take effect on the line after `before` (an assignment, what a `for` iterates) when there is one
/// (see [`Binding::line`]).
pub(super) fn targets(
    node: Node<'_>,
    before: Option<Node<'_>>,
    scope: Option<u32>,
    source: &str,
    facts: &mut FileFacts,
) {
    if !in_function(scope, facts) {
        return;
    }
    let from = before.map(line_after);
    // `with Ctx() as x`: what `Ctx().__enter__()` returns, when the target is one name.
    let mut entered = node
        .parent()
        .filter(|p| p.kind() == "as_pattern" && p.parent().is_some_and(|w| w.kind() == "with_item"))
        .and_then(|p| p.named_child(0))
        .filter(|value| kind(*value) == Kind::Call)
        .and_then(|call| name_path(child(call, Field::Function)?, source))
        .filter(|_| named_children(node).count() == 1 && named_children(node).all(|n| kind(n) == Kind::Identifier))
        .map(|callee| TypeHint::CallChain(callee, vec!["__enter__".to_owned()]));
    // Patterns nest as deep as the source does: an explicit stack, not recursion.
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        match kind(node) {
            Kind::Identifier => {
                let name = node_text(node, source);
                if !matches!(name, "self" | "cls" | "") {
                    let line = from.unwrap_or_else(|| line(node));
                    facts.bindings.push(Binding { name: name.to_owned(), scope, line, hint: entered.take() });
                }
            }
            Kind::PatternList
            | Kind::TuplePattern
            | Kind::ListPattern
            | Kind::ListSplatPattern
            | Kind::DictionarySplatPattern
            | Kind::AsPatternTarget
            | Kind::Tuple
            | Kind::ParenthesizedExpression => {
                // Reversed onto the stack, so that names come out in source order.
                let children: Vec<Node<'_>> = named_children(node).collect();
                stack.extend(children.into_iter().rev());
            }
            _ => {}
        }
    }
}

/// Whether `scope` is a function or method (where names bound are locals).
fn in_function(scope: Option<u32>, facts: &FileFacts) -> bool {
    scope
        .and_then(|s| facts.defs.get(s as usize))
        .is_some_and(|d| matches!(d.kind, DefKind::Function | DefKind::Method))
}

/// `make()`, `mod.make()`, `await make()` → the callee path.
fn call_result(value: Node<'_>, source: &str) -> Option<TypeHint> {
    let value = if kind(value) == Kind::Await { first_named(value)? } else { value };
    if kind(value) != Kind::Call {
        return None;
    }
    name_path(child(value, Field::Function)?, source).map(TypeHint::CallResult)
}

/// `def f(c: Client)` and `def f(c: Client = None)`: the parameter is bound in the function, with no type
/// when the annotation names none (`c: "Client"`, `c: int | None`); `self`/`cls` skipped.
pub(super) fn parameter(node: Node<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let name = if kind(node) == Kind::TypedDefaultParameter { child(node, Field::Name) } else { first_named(node) };
    let Some(name) = name.filter(|n| kind(*n) == Kind::Identifier).map(|n| node_text(n, source)) else { return };
    if matches!(name, "self" | "cls" | "") {
        return;
    }
    let hint = child(node, Field::Type).and_then(|ty| type_path(ty, source)).map(TypeHint::Annotated);
    facts.bindings.push(Binding { name: name.to_owned(), scope, line: line(node), hint });
}
