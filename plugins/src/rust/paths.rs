//! Paths as written: the segments of `a::b::C`, `Vec::<u8>::new`, `<T as Trait>::f`, and the
//! type a binding or return type names (`&Client` → `Client`, `Box<T>` → `Box`, `impl Tr` → `Tr`).

use crate::kinds::KindName;
use drsg_parsers::text::{collapse, node_text};
use tree_sitter::Node;

use super::Field;
use crate::fields::ChildInField;

/// Primitive type names: never type refs.
const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128", "f32", "f64", "bool", "char", "str", "usize",
    "isize",
];

pub(super) fn is_primitive(name: &str) -> bool {
    PRIMITIVES.contains(&name)
}

/// The segments of a path node, outermost first, with generic arguments dropped.
///
/// `a::b::c` → `[a, b, c]`; `Vec::<u8>::new` → `[Vec, new]`; `<T as Trait>::f` → `[Trait, f]`;
/// `crate::x` keeps `crate`. `None` when the node is not a path.
pub(super) fn segments(node: Node<'_>, source: &str) -> Option<Vec<String>> {
    let mut reversed = Vec::new();
    let mut current = Some(node);
    // Walks leftwards down the `path` fields; each step moves to a child, so this ends.
    while let Some(node) = current {
        current = match node.kind_name() {
            "identifier" | "type_identifier" | "field_identifier" | "primitive_type" | "crate" | "self" | "super"
            | "metavariable" => {
                reversed.push(node_text(node, source).to_owned());
                None
            }
            "scoped_identifier" | "scoped_type_identifier" => {
                let name = node.field(Field::Name)?;
                reversed.push(node_text(name, source).to_owned());
                node.field(Field::Path)
            }
            "generic_type" | "generic_type_with_turbofish" => Some(node.field(Field::Type)?),
            "generic_function" => Some(node.field(Field::Function)?),
            "bracketed_type" => {
                let inner = node.named_child(0)?;
                if inner.kind_name() == "qualified_type" { Some(inner.field(Field::Alias)?) } else { Some(inner) }
            }
            _ => return None,
        };
    }
    if reversed.is_empty() || reversed.iter().any(String::is_empty) {
        return None;
    }
    reversed.reverse();
    Some(reversed)
}

/// The type a binding, parameter or return type stands for, as a plain path.
///
/// References and pointers are stripped, generics dropped with the outer path kept (`Box<T>` → `Box`),
/// `dyn Tr` / `impl Tr` (+ more bounds) give the first trait; tuples, arrays, primitives give `None`.
pub(super) fn type_path(node: Node<'_>, source: &str) -> Option<Vec<String>> {
    let mut node = node;
    // Each step moves to a child, so this ends.
    loop {
        node = match node.kind_name() {
            "reference_type" | "pointer_type" | "higher_ranked_trait_bound" => node.field(Field::Type)?,
            "dynamic_type" | "abstract_type" => node.field(Field::Trait)?,
            "bounded_type" => node.named_child(0)?,
            "type_identifier" | "scoped_type_identifier" | "generic_type" => {
                let path = segments(node, source)?;
                return (!(path.len() == 1 && is_primitive(&path[0]))).then_some(path);
            }
            _ => return None,
        };
    }
}

/// The `T` of a `Result<T, _>` or `Option<T>` type (any path ending in `Result` or `Option`: `io::Result<T>`),
/// as a plain path: what `?` and `unwrap()` give.
pub(super) fn ok_type(node: Node<'_>, source: &str) -> Option<Vec<String>> {
    if node.kind_name() != "generic_type" {
        return None;
    }
    let outer = segments(node.field(Field::Type)?, source)?;
    if !matches!(outer.last().map(String::as_str), Some("Result" | "Option")) {
        return None;
    }
    type_path(node.field(Field::TypeArguments)?.named_child(0)?, source)
}

/// Steps a call chain holds at most; a longer chain is not followed.
const MAX_STEPS: usize = 16;

/// A call chain read from its last link: the path of its innermost call (`Router::new`, `self.make`,
/// `conn.dup`), then each step on that call's result in order, a method called on it or `?` (`.await`
/// and parentheses are transparent). `Router::new().route(a)?.layer(l)` gives `[Router, new]` and
/// `[route, ?, layer]`. `None` when the chain does not start at a named call.
pub(super) fn call_chain(node: Node<'_>, source: &str) -> Option<(Vec<String>, Vec<String>)> {
    let mut reversed = Vec::new();
    let mut node = node;
    // Each step moves to a child, so this ends.
    loop {
        if reversed.len() > MAX_STEPS {
            return None;
        }
        node = match node.kind_name() {
            "try_expression" => {
                reversed.push("?".to_owned());
                node.named_child(0)?
            }
            "await_expression" | "parenthesized_expression" => node.named_child(0)?,
            "call_expression" => {
                if let Some(head) = callee_path(node, source).or_else(|| method_path(node, source)) {
                    reversed.reverse();
                    return Some((head, reversed));
                }
                let function = unwrap_generic(node.field(Field::Function)?);
                if function.kind_name() != "field_expression" {
                    return None;
                }
                reversed.push(node_text(function.field(Field::Member)?, source).to_owned());
                function.field(Field::Value)?
            }
            _ => return None,
        };
    }
}

/// The self type of an `impl` as a path; a type with no path (`u8`, `[T]`, `(A, B)`) is kept as its
/// collapsed text in one segment so that its methods still have a distinct owner.
pub(super) fn impl_self_type(node: Node<'_>, source: &str) -> Vec<String> {
    type_path(node, source).unwrap_or_else(|| vec![collapse(node_text(node, source), 120)])
}

/// The callee path of a call whose function is a plain or scoped name (`f`, `a::b`, `T::new::<u8>`).
pub(super) fn callee_path(call: Node<'_>, source: &str) -> Option<Vec<String>> {
    let function = unwrap_generic(call.field(Field::Function)?);
    match function.kind_name() {
        "identifier" | "scoped_identifier" => segments(function, source),
        _ => None,
    }
}

/// The callee of a method call on a named receiver as a path from it: `conn.dup()` → `conn.dup`,
/// `self.pool.get()` → `self.pool.get`; `None` when the receiver is not a name (`make().run()`).
pub(super) fn method_path(call: Node<'_>, source: &str) -> Option<Vec<String>> {
    let mut node = unwrap_generic(call.field(Field::Function)?);
    let mut names = Vec::new();
    while node.kind_name() == "field_expression" {
        names.push(node_text(node.field(Field::Member)?, source).to_owned());
        node = node.field(Field::Value)?;
    }
    if names.is_empty() || !matches!(node.kind_name(), "identifier" | "self") {
        return None;
    }
    names.push(node_text(node, source).to_owned());
    names.reverse();
    Some(names)
}

/// `f::<T>` → `f`, `x.m::<T>` → `x.m`.
pub(super) fn unwrap_generic(node: Node<'_>) -> Node<'_> {
    if node.kind_name() == "generic_function" { node.field(Field::Function).unwrap_or(node) } else { node }
}

/// Strips `?` and `.await` (and parentheses) around an expression: `f()?.await` → `f()`.
pub(super) fn unwrap_try(node: Node<'_>) -> Node<'_> {
    let mut node = node;
    while matches!(node.kind_name(), "try_expression" | "await_expression" | "parenthesized_expression") {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}
