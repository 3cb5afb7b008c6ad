//! Typed bindings: locals and module names from annotations and call results, typed parameters,
//! and `self.x = …` fields (bound to the class, not the method).

use drsg_parsers::text::node_text;
use drsg_parsers::{Binding, DefKind, FileFacts, TypeHint};
use tree_sitter::Node;

use super::syntax::{Field, Kind, child, first_named, kind, line, name_path, type_path};

/// `c = Client()`, `c = await make()`, `c: Client = …`, `c: Client`, `self.c = Client()`.
/// Tuple targets, subscripts and chained attributes are skipped; an annotation wins over the value.
pub(super) fn assignment(node: Node<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let Some(left) = child(node, Field::Left) else { return };
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
    let hint = annotated.or_else(|| call_result(child(node, Field::Right)?, source));
    let Some(hint) = hint else { return };
    if name.is_empty() {
        return;
    }
    facts.bindings.push(Binding { name: name.to_owned(), scope, line: line(node), hint });
}

/// `make()`, `mod.make()`, `await make()` → the callee path.
fn call_result(value: Node<'_>, source: &str) -> Option<TypeHint> {
    let value = if kind(value) == Kind::Await { first_named(value)? } else { value };
    if kind(value) != Kind::Call {
        return None;
    }
    name_path(child(value, Field::Function)?, source).map(TypeHint::CallResult)
}

/// `def f(c: Client)` and `def f(c: Client = None)`: the parameter is bound in the function; `self`/`cls` skipped.
pub(super) fn parameter(node: Node<'_>, scope: Option<u32>, source: &str, facts: &mut FileFacts) {
    let name = if kind(node) == Kind::TypedDefaultParameter { child(node, Field::Name) } else { first_named(node) };
    let Some(name) = name.filter(|n| kind(*n) == Kind::Identifier).map(|n| node_text(n, source)) else { return };
    if matches!(name, "self" | "cls" | "") {
        return;
    }
    let Some(path) = child(node, Field::Type).and_then(|ty| type_path(ty, source)) else { return };
    facts.bindings.push(Binding { name: name.to_owned(), scope, line: line(node), hint: TypeHint::Annotated(path) });
}
