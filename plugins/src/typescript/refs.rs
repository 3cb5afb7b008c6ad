//! References: calls, `new`, decorators, JSX components, values passed as arguments, types in annotations.

use crate::kinds::KindName;
use std::collections::HashSet;

use drsg_parsers::text::{collapse, node_text};
use drsg_parsers::{Origin, Qualifier, Ref, RefKind};
use tree_sitter::Node;

use super::capture::Captured;
use super::defs::is_require_call;
use super::scope::{RangeSet, Scopes};
use super::syntax::{self, Base, Field, callee_chain, chain, dotted, maker_path};
use crate::fields::ChildInField;

/// Type names that are never references.
const BUILTIN_TYPES: &[&str] = &[
    "string",
    "number",
    "boolean",
    "any",
    "unknown",
    "void",
    "never",
    "object",
    "undefined",
    "null",
    "bigint",
    "symbol",
];

struct Refs<'a> {
    source: &'a str,
    scopes: &'a Scopes,
    /// `(start byte, ref)`, sorted at the end so refs come in source order.
    out: Vec<(usize, Ref)>,
}

impl Refs<'_> {
    fn push(
        &mut self,
        kind: RefKind,
        (qualifier, path): (Qualifier, Vec<String>),
        at: Node<'_>,
        line: Node<'_>,
        text: Node<'_>,
    ) {
        self.out.push((
            at.start_byte(),
            Ref {
                kind,
                path,
                qualifier,
                line: syntax::line(line),
                scope: self.scopes.innermost(at.start_byte()),
                text: collapse(node_text(text, self.source), 120),
                origin: Origin::Written,
            },
        ));
    }
}

/// The qualifier and path of a callee, constructor, decorator or component expression,
/// and the node whose line is the site (the last property of a chain).
fn classify<'t>(node: Node<'t>, source: &str) -> (Qualifier, Vec<String>, Node<'t>) {
    let c = chain(node, source);
    let line = c.last.unwrap_or(node);
    let (qualifier, path) = match c.base {
        Base::Name(name) => {
            let mut path = vec![node_text(name, source).to_owned()];
            path.extend(c.props);
            (Qualifier::Plain, path)
        }
        Base::This => (Qualifier::SelfValue, c.props),
        Base::Super if c.props.is_empty() => (Qualifier::Super, vec!["constructor".to_owned()]),
        Base::Super => (Qualifier::Super, c.props),
        Base::Call(inner) => {
            let function = inner.field(Field::Function);
            match function.and_then(|f| maker_path(f, source)) {
                Some(call) => (Qualifier::expr(Some(call)), c.props),
                // `string().min(5).datetime()`: the first call, then the methods called on each result.
                None => match function.and_then(|f| callee_chain(f, source)) {
                    Some((call, then)) => (Qualifier::Expr { call: Some(call), then }, c.props),
                    None => (Qualifier::expr(None), c.props),
                },
            }
        }
        Base::New(inner) => {
            let call = inner.field(Field::Constructor).and_then(|f| maker_path(f, source));
            (Qualifier::expr(call), c.props)
        }
        Base::Other => (Qualifier::expr(None), c.props),
    };
    (qualifier, path, line)
}

pub(super) fn build(cap: &Captured<'_>, source: &str, scopes: &Scopes) -> Vec<Ref> {
    let mut refs = Refs { source, scopes, out: Vec::new() };

    // A decorator's call is the decorator reference, not a second one.
    let mut decorator_calls = HashSet::new();
    for &decorator in &cap.decorators {
        let Some(mut inner) = decorator.named_child(0) else { continue };
        while inner.kind_name() == "parenthesized_expression" {
            let Some(next) = inner.named_child(0) else { break };
            inner = next;
        }
        let callee = if inner.kind_name() == "call_expression" {
            decorator_calls.insert(inner.id());
            inner.field(Field::Function).unwrap_or(inner)
        } else {
            inner
        };
        let (qualifier, path, _) = classify(callee, source);
        refs.push(RefKind::Decorator, (qualifier, path), decorator, decorator, callee);
    }

    for &(call, callee) in &cap.calls {
        if decorator_calls.contains(&call.id()) || is_require_call(call, source) {
            continue;
        }
        let (qualifier, path, line) = match callee.kind_name() {
            "import" => (Qualifier::Plain, vec!["import".to_owned()], callee),
            _ => classify(callee, source),
        };
        refs.push(RefKind::Call, (qualifier, path), call, line, callee);
    }

    for &(new, constructor) in &cap.news {
        let (qualifier, path, line) = classify(constructor, source);
        refs.push(RefKind::Instantiate, (qualifier, path), new, line, constructor);
    }

    for &name in &cap.jsx_names {
        let intrinsic = name.kind_name() == "identifier"
            && node_text(name, source).chars().next().is_none_or(|c| c.is_lowercase() || !c.is_alphabetic());
        if intrinsic || !matches!(name.kind_name(), "identifier" | "member_expression") {
            continue;
        }
        let (qualifier, path, _) = classify(name, source);
        refs.push(RefKind::Jsx, (qualifier, path), name, name, name);
    }

    let assigned = cap.assigned_values.iter().filter(|(target, _)| !is_exports_target(*target, source)).map(|(_, v)| v);
    for &value in cap.values.iter().chain(assigned) {
        if !matches!(value.kind_name(), "identifier" | "member_expression") {
            continue;
        }
        if let Some(named) = value_path(value, source) {
            refs.push(RefKind::Value, named, value, value, value);
        }
    }

    type_refs(cap, &mut refs);

    refs.out.sort_by_key(|(start, _)| *start);
    refs.out.into_iter().map(|(_, r)| r).collect()
}

/// `exports.a`, `module.exports`, `module.exports.a`: CommonJS exports, not value flows.
fn is_exports_target(target: Node<'_>, source: &str) -> bool {
    let text = node_text(target, source);
    text == "exports" || text.starts_with("exports.") || text.starts_with("module.exports")
}

/// A value named without a call: `f`, `a.b.f`, `this.f`. Anything else (literals, calls) is no reference.
fn value_path(node: Node<'_>, source: &str) -> Option<(Qualifier, Vec<String>)> {
    let c = chain(node, source);
    match c.base {
        Base::Name(name) => {
            let mut path = vec![node_text(name, source).to_owned()];
            path.extend(c.props);
            Some((Qualifier::Plain, path))
        }
        Base::This if !c.props.is_empty() => Some((Qualifier::SelfValue, c.props)),
        _ => None,
    }
}

/// Type names inside parameter, return, property and variable annotations, except builtins and
/// the type parameters of an enclosing definition.
fn type_refs(cap: &Captured<'_>, refs: &mut Refs<'_>) {
    let annotations = RangeSet::new(cap.annotations.clone());
    for &ty in &cap.types {
        if cap.type_inner.contains(&ty.id()) || !annotations.contains(ty.start_byte(), ty.end_byte()) {
            continue;
        }
        let text = node_text(ty, refs.source);
        let path = if ty.kind_name() == "nested_type_identifier" { dotted(text) } else { vec![text.to_owned()] };
        if path.len() == 1 {
            if BUILTIN_TYPES.contains(&text) {
                continue;
            }
            if refs.scopes.is_type_param(refs.scopes.innermost(ty.start_byte()), text) {
                continue;
            }
        }
        refs.push(RefKind::Type, (Qualifier::Plain, path), ty, ty, ty);
    }
}
