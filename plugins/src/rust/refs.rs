//! References: call sites (plain, scoped, method, macro), struct literals, values passed as arguments,
//! and type names in signatures, fields, bounds and annotations.

use crate::kinds::KindName;
use std::collections::HashMap;

use drsg_parsers::text::{collapse, node_text};
use drsg_parsers::{Origin, Qualifier, Ref, RefKind};
use tree_sitter::Node;

use super::{Container, Field};
use crate::children::named_children;
use crate::fields::ChildInField;

use super::paths::{call_chain, is_primitive, segments, unwrap_generic};

/// A reference with its byte position, before scopes are assigned.
pub(super) type Positioned<T> = (usize, T);

fn make_ref(kind: RefKind, path: Vec<String>, qualifier: Qualifier, line_node: Node<'_>, text: &str) -> Ref {
    Ref {
        kind,
        path,
        qualifier,
        line: line_node.start_position().row as u32 + 1,
        scope: None,
        text: collapse(text, 120),
        origin: Origin::Written,
    }
}

/// `f()`, `a::b()`, `x.m()`, `self.a.m()`, `f()?.m()`: exactly one Call ref.
pub(super) fn call(node: Node<'_>, source: &str) -> Option<Positioned<Ref>> {
    let raw = node.field(Field::Function)?;
    let function = unwrap_generic(raw);
    let text = node_text(raw, source);
    let (path, qualifier, line_node) = match function.kind_name() {
        "identifier" | "scoped_identifier" => match segments(function, source) {
            Some(path) => (path, Qualifier::Plain, function),
            None => (vec![collapse(text, 120)], Qualifier::expr(None), function),
        },
        "field_expression" => method_call(function, source)?,
        // A call of a computed value (`(self.f)()`, `fs[0]()`, `make()()`): no name to bind.
        _ => (vec![collapse(text, 120)], Qualifier::expr(None), function),
    };
    Some((node.start_byte(), make_ref(RefKind::Call, path, qualifier, line_node, text)))
}

/// The path and qualifier of `receiver.field….m()`; the line is the method name's.
fn method_call<'t>(function: Node<'t>, source: &str) -> Option<(Vec<String>, Qualifier, Node<'t>)> {
    let method = function.field(Field::Member)?;
    let mut reversed = vec![node_text(method, source).to_owned()];
    let mut receiver = function.field(Field::Value)?;
    // Walk down the field chain `a.b.c` to its root; each step moves to a child.
    while receiver.kind_name() == "field_expression" {
        let field = receiver.field(Field::Member)?;
        reversed.push(node_text(field, source).to_owned());
        receiver = receiver.field(Field::Value)?;
    }
    let qualifier = match receiver.kind_name() {
        "self" => Qualifier::SelfValue,
        "identifier" => {
            reversed.push(node_text(receiver, source).to_owned());
            Qualifier::Plain
        }
        _ => match call_chain(receiver, source) {
            Some((call, then)) => Qualifier::Expr { call: Some(call), then },
            None => Qualifier::expr(None),
        },
    };
    reversed.reverse();
    Some((reversed, qualifier, method))
}

/// `println!(…)`, `a::b!(…)`: a Call whose last segment carries the `!`.
pub(super) fn macro_call(node: Node<'_>, source: &str) -> Option<Positioned<Ref>> {
    let name = node.field(Field::Macro)?;
    let mut path = segments(name, source)?;
    if let Some(last) = path.last_mut() {
        last.push('!');
    }
    let text = format!("{}!", node_text(name, source));
    Some((node.start_byte(), make_ref(RefKind::Call, path, Qualifier::Plain, name, &text)))
}

/// `Client { … }`, `net::Client { … }`, `Self { … }`: an Instantiate ref.
pub(super) fn instantiate(node: Node<'_>, source: &str) -> Option<Positioned<Ref>> {
    let name = node.field(Field::Name)?;
    let path = segments(name, source)?;
    Some((node.start_byte(), make_ref(RefKind::Instantiate, path, Qualifier::Plain, name, node_text(name, source))))
}

/// A name or path passed as an argument: `spawn(worker)`, `map(Self::helper)`.
pub(super) fn value(node: Node<'_>, source: &str) -> Option<Positioned<Ref>> {
    let path = segments(node, source)?;
    let text = node_text(node, source);
    Some((node.start_byte(), make_ref(RefKind::Value, path, Qualifier::Plain, node, text)))
}

/// Every type name inside a type (or trait bounds), skipping primitives, `Self` and the generic
/// parameters of `owner`, the item that declares the type (and paths through those: `T::Output`).
pub(super) fn types(
    root: Node<'_>,
    owner: Option<Node<'_>>,
    containers: &HashMap<usize, Container<'_>>,
    source: &str,
    out: &mut Vec<Positioned<Ref>>,
) {
    let generics = generic_names(owner, containers, source);
    let mut cursor = root.walk();
    let mut depth = 0usize;
    loop {
        let node = cursor.node();
        let descend = match node.kind_name() {
            "type_identifier" => {
                let name = node_text(node, source);
                if !(name.is_empty() || name == "Self" || is_primitive(name) || generics.contains(&name)) {
                    out.push((
                        node.start_byte(),
                        make_ref(RefKind::Type, vec![name.to_owned()], Qualifier::Plain, node, name),
                    ));
                }
                false
            }
            "scoped_type_identifier" => {
                let path =
                    segments(node, source).filter(|path| !(path[0] == "Self" || generics.contains(&path[0].as_str())));
                if let Some(path) = path {
                    let text = node_text(node, source);
                    out.push((node.start_byte(), make_ref(RefKind::Type, path, Qualifier::Plain, node, text)));
                }
                false
            }
            // `?Sized` is not a use of `Sized`; lifetimes hold no types.
            "removed_trait_bound" | "lifetime" => false,
            _ => true,
        };
        if descend && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
            depth -= 1;
        }
    }
}

/// The generic type parameter names an item declares, with those of the `impl`/`trait` it sits in.
fn generic_names<'s>(
    owner: Option<Node<'_>>,
    containers: &HashMap<usize, Container<'_>>,
    source: &'s str,
) -> Vec<&'s str> {
    let mut names = Vec::new();
    if let Some(owner) = owner {
        push_generics(owner, source, &mut names);
        if let Some(Container::Impl(outer) | Container::Trait(outer)) = containers.get(&owner.id()) {
            push_generics(*outer, source, &mut names);
        }
    }
    names
}

fn push_generics<'s>(item: Node<'_>, source: &'s str, names: &mut Vec<&'s str>) {
    let Some(params) = item.field(Field::TypeParameters) else {
        return;
    };
    for param in named_children(params) {
        if param.kind_name() == "type_parameter"
            && let Some(name) = param.field(Field::Name)
        {
            names.push(node_text(name, source));
        }
    }
}
