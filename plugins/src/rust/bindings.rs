//! Bound names (`let` locals, parameters, struct fields, typed where a declared fact says; the names of
//! patterns, untyped) and inheritance (`impl Trait for Type`, supertraits).

use crate::kinds::KindName;
use drsg_parsers::text::{lines, node_text};
use drsg_parsers::{Binding, Inherit, InheritKind, TypeHint};
use tree_sitter::Node;

use super::Field;
use super::paths::{call_chain, impl_self_type, segments, type_path, unwrap_try};
use super::refs::Positioned;
use crate::children::named_children;
use crate::fields::ChildInField;

fn binding(name: Node<'_>, source: &str, hint: Option<TypeHint>) -> Positioned<Binding> {
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

/// `let x: T = …`, `let x = T::new(…)?`, `let x = f(…).await`, `let x = c.make()`, `let x = T { … }`: `x` with its
/// type; `x` of
/// any other value, and the names of any other pattern (`let (a, b) = …`), with none.
/// The names start to mean the local on the line after the `let` (see [`Binding::line`]).
pub(super) fn let_binding(node: Node<'_>, source: &str, out: &mut Vec<Positioned<Binding>>) {
    let Some(pattern) = node.field(Field::Pattern) else { return };
    let first = out.len();
    if pattern.kind_name() == "identifier" {
        out.push(binding(pattern, source, let_type(node, source)));
    } else {
        pattern_names(Some(pattern), source, out);
    }
    take_effect_after(node, &mut out[first..]);
}

fn let_type(node: Node<'_>, source: &str) -> Option<TypeHint> {
    if let Some(ty) = node.field(Field::Type) {
        return type_path(ty, source).map(TypeHint::Annotated);
    }
    let value = node.field(Field::Value)?;
    match call_chain(value, source) {
        Some((call, then)) if then.is_empty() => return Some(TypeHint::CallResult(call)),
        Some((call, then)) => return Some(TypeHint::CallChain(call, then)),
        None => {}
    }
    let value = unwrap_try(value);
    match value.kind_name() {
        "struct_expression" => Some(TypeHint::Constructed(segments(value.field(Field::Name)?, source)?)),
        _ => None,
    }
}

/// A function or closure parameter: `x: &T` binds `x` with its type (none when the type names no path,
/// `f: impl Fn()`); a pattern (`(a, b): (A, B)`, `|(k, v)|`) binds its names untyped.
pub(super) fn parameter(node: Node<'_>, source: &str, out: &mut Vec<Positioned<Binding>>) {
    let Some(pattern) = node.field(Field::Pattern) else { return };
    match pattern.kind_name() {
        "identifier" => {
            let hint = node.field(Field::Type).and_then(|ty| type_path(ty, source)).map(TypeHint::Annotated);
            out.push(binding(pattern, source, hint));
        }
        "self" => {}
        _ => pattern_names(Some(pattern), source, out),
    }
}

/// The names of a `for` loop's, an `if let`/`while let` condition's or a match arm's pattern. A loop's and a
/// condition's take effect on the line after the value they destructure, which still reads the names'
/// earlier meaning (`if let Some(name) = name.into_option()`); an arm's on their own line (`Some(x) => x.run()`).
pub(super) fn pattern_binding(node: Node<'_>, source: &str, out: &mut Vec<Positioned<Binding>>) {
    let first = out.len();
    pattern_names(node.field(Field::Pattern), source, out);
    let value = match node.kind_name() {
        "for_expression" => node.field(Field::Value),
        "let_condition" => Some(node),
        _ => None,
    };
    if let Some(value) = value {
        take_effect_after(value, &mut out[first..]);
    }
}

/// Moves `bindings` to the line after `node`, which still reads their names' earlier meaning.
fn take_effect_after(node: Node<'_>, bindings: &mut [Positioned<Binding>]) {
    let after = lines(node).1 + 1;
    for (_, b) in bindings {
        b.line = after;
    }
}

/// The names a pattern binds, untyped: `x`, `(a, b)`, `Some(x)`, `Point { x, y: ref mut y2 }`, `[first, ..]`,
/// `n @ 1..=9`, `A(x) | B(x)`; not the paths naming variants, structs and constants (`None`, `Ok`, `MAX`,
/// which start upper-case), nor a match guard.
pub(super) fn pattern_names(pattern: Option<Node<'_>>, source: &str, out: &mut Vec<Positioned<Binding>>) {
    // Patterns nest as deep as the source does: an explicit stack, not recursion.
    let mut stack: Vec<Node<'_>> = pattern.into_iter().collect();
    while let Some(node) = stack.pop() {
        match node.kind_name() {
            "identifier" | "shorthand_field_identifier" => {
                let name = node_text(node, source);
                if name.chars().next().is_some_and(|c| !c.is_uppercase()) && name != "_" {
                    out.push(binding(node, source, None));
                }
            }
            // The path before `(…)` or `{…}` names the variant or struct, not a binding.
            "tuple_struct_pattern" | "struct_pattern" => {
                let ty = node.field(Field::Type).map(|ty| ty.id());
                stack.extend(named_children(node).filter(|child| Some(child.id()) != ty));
            }
            "match_pattern" => {
                let guard = node.field(Field::Condition).map(|guard| guard.id());
                stack.extend(named_children(node).filter(|child| Some(child.id()) != guard));
            }
            "field_pattern" => stack.extend(node.field(Field::Pattern).or_else(|| node.field(Field::Name))),
            "tuple_pattern" | "slice_pattern" | "or_pattern" | "ref_pattern" | "mut_pattern" | "reference_pattern"
            | "captured_pattern" => stack.extend(named_children(node)),
            _ => {}
        }
    }
}

/// A named field `x: T` of a type path.
pub(super) fn field(node: Node<'_>, source: &str) -> Option<Positioned<Binding>> {
    let name = node.field(Field::Name)?;
    let path = type_path(node.field(Field::Type)?, source)?;
    Some(binding(name, source, Some(TypeHint::Annotated(path))))
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
        args: Vec::new(),
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
                args: Vec::new(),
            });
        }
    }
}
