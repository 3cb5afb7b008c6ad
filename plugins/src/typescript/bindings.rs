//! Typed bindings: variables from annotations, `new` and call results; typed parameters; class properties
//! (including constructor parameter properties), scoped to their class.

use crate::kinds::KindName;
use drsg_parsers::{Binding, Def, DefKind, TypeHint};
use tree_sitter::Node;

use super::capture::Captured;
use super::defs::is_require_call;
use super::scope::Scopes;
use super::syntax::{self, Field, plain_path, type_path};
use crate::fields::ChildInField;

pub(super) fn build(cap: &Captured<'_>, source: &str, scopes: &Scopes, defs: &[Def]) -> Vec<Binding> {
    let mut out: Vec<(usize, Binding)> = Vec::new();
    let text = |n: Node<'_>| drsg_parsers::text::node_text(n, source).to_owned();

    for &(declarator, name) in &cap.bind_variables {
        let hint = declarator
            .field(Field::Type)
            .and_then(|t| type_path(t, source))
            .map(TypeHint::Annotated)
            .or_else(|| declarator.field(Field::Value).and_then(|v| value_hint(v, source)));
        if let Some(hint) = hint {
            let scope = scopes.enclosing_except(declarator.start_byte(), declarator.id());
            out.push((declarator.start_byte(), Binding { name: text(name), scope, line: syntax::line(name), hint }));
        }
    }

    for &(parameter, name, ty) in &cap.bind_parameters {
        let Some(path) = type_path(ty, source) else { continue };
        let scope = scopes.innermost(parameter.start_byte());
        let line = syntax::line(name);
        // `constructor(private readonly c: Client)` also declares a property of the class.
        let is_property = syntax::children(parameter)
            .iter()
            .any(|c| matches!(c.kind_name(), "accessibility_modifier" | "readonly" | "override_modifier"));
        let class = scope.and_then(|s| scopes.parent(s)).filter(|&c| defs[c as usize].kind == DefKind::Class);
        if let (true, Some(class)) = (is_property, class) {
            let hint = TypeHint::Annotated(path.clone());
            out.push((parameter.start_byte(), Binding { name: text(name), scope: Some(class), line, hint }));
        }
        out.push((parameter.start_byte(), Binding { name: text(name), scope, line, hint: TypeHint::Annotated(path) }));
    }

    for &(field, name) in &cap.bind_fields {
        // A field holding a function is a method, not a typed property.
        if scopes.def_of_node(field.id()).is_some() {
            continue;
        }
        let Some(class) = scopes.innermost(field.start_byte()).filter(|&c| defs[c as usize].kind == DefKind::Class)
        else {
            continue;
        };
        let hint = field
            .field(Field::Type)
            .and_then(|t| type_path(t, source))
            .map(TypeHint::Annotated)
            .or_else(|| field.field(Field::Value).and_then(|v| value_hint(v, source)));
        if let Some(hint) = hint {
            out.push((
                field.start_byte(),
                Binding { name: text(name), scope: Some(class), line: syntax::line(name), hint },
            ));
        }
    }

    out.sort_by_key(|(start, _)| *start);
    out.into_iter().map(|(_, b)| b).collect()
}

/// What an initialiser says about the value's type: `new C()`, `make()`, `await make()`, `x as C`.
fn value_hint(value: Node<'_>, source: &str) -> Option<TypeHint> {
    let mut value = value;
    loop {
        match value.kind_name() {
            "await_expression" | "parenthesized_expression" | "non_null_expression" => value = value.named_child(0)?,
            "new_expression" => {
                return plain_path(value.field(Field::Constructor)?, source).map(TypeHint::Constructed);
            }
            "call_expression" => {
                if is_require_call(value, source) {
                    return None;
                }
                return plain_path(value.field(Field::Function)?, source).map(TypeHint::CallResult);
            }
            // `x as Client`
            "as_expression" => return type_path(value.named_child(1)?, source).map(TypeHint::Annotated),
            // `<Client>x`
            "type_assertion" => {
                return type_path(value.named_child(0)?.named_child(0)?, source).map(TypeHint::Annotated);
            }
            _ => return None,
        }
    }
}
