//! Typed names (`let` locals, parameters, struct fields) and inheritance (`impl Trait for Type`, supertraits).

use crate::kinds::KindName;
use drsg_parsers::text::node_text;
use drsg_parsers::{Binding, Inherit, InheritKind, TypeHint};
use tree_sitter::Node;

use super::Field;
use super::paths::{callee_path, impl_self_type, segments, type_path, unwrap_try};
use super::refs::Positioned;
use crate::children::named_children;
use crate::fields::ChildInField;

fn binding(name: Node<'_>, source: &str, hint: TypeHint) -> Positioned<Binding> {
    (
        name.start_byte(),
        Binding {
            name: node_text(name, source).to_owned(),
            scope: None,
            line: name.start_position().row as u32 + 1,
            hint,
        },
    )
}

/// `let x: T = …`, `let x = T::new(…)?`, `let x = f(…).await`, `let x = T { … }`.
pub(super) fn let_binding(node: Node<'_>, source: &str) -> Option<Positioned<Binding>> {
    let name = node.field(Field::Pattern).filter(|p| p.kind_name() == "identifier")?;
    if let Some(ty) = node.field(Field::Type) {
        return type_path(ty, source).map(|path| binding(name, source, TypeHint::Annotated(path)));
    }
    let value = unwrap_try(node.field(Field::Value)?);
    let hint = match value.kind_name() {
        "call_expression" => TypeHint::CallResult(callee_path(value, source)?),
        "struct_expression" => TypeHint::Constructed(segments(value.field(Field::Name)?, source)?),
        _ => return None,
    };
    Some(binding(name, source, hint))
}

/// A typed function parameter `x: &T` or a named field `x: T`.
pub(super) fn annotated(node: Node<'_>, name_field: Field, source: &str) -> Option<Positioned<Binding>> {
    let name = node.field(name_field)?;
    if name.kind_name() == "self" {
        return None;
    }
    let path = type_path(node.field(Field::Type)?, source)?;
    Some(binding(name, source, TypeHint::Annotated(path)))
}

/// `impl Trait for Type` → the type implements the trait.
pub(super) fn impl_trait(node: Node<'_>, source: &str) -> Option<Inherit> {
    let target = segments(node.field(Field::Trait)?, source)?;
    let child = impl_self_type(node.field(Field::Type)?, source);
    Some(Inherit {
        child_def: None,
        child,
        kind: InheritKind::Implements,
        target,
        line: node.start_position().row as u32 + 1,
    })
}

/// `trait A: B + C` → A extends each bound (lifetimes and `?Sized` skipped).
pub(super) fn supertraits(node: Node<'_>, source: &str, child_def: Option<u32>, out: &mut Vec<Inherit>) {
    let (Some(name), Some(bounds)) = (node.field(Field::Name), node.field(Field::Bounds)) else {
        return;
    };
    let child = vec![node_text(name, source).to_owned()];
    for bound in named_children(bounds) {
        let target = match bound.kind_name() {
            "type_identifier" | "scoped_type_identifier" | "generic_type" | "higher_ranked_trait_bound" => {
                type_path(bound, source)
            }
            _ => None,
        };
        if let Some(target) = target {
            out.push(Inherit {
                child_def,
                child: child.clone(),
                kind: InheritKind::Extends,
                target,
                line: bound.start_position().row as u32 + 1,
            });
        }
    }
}
