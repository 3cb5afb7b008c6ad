//! Definitions: functions, methods, classes, module- and class-level variables, `type` aliases; class bases.

use std::collections::{HashMap, HashSet};

use drsg_parsers::text::{collapse, node_text};
use drsg_parsers::{Def, DefKind, FileFacts, Inherit, InheritKind, Visibility};
use tree_sitter::Node;

use super::Span;
use super::syntax::{
    Field, Kind, child, docstring, end_line, first_named, header, is_private, kind, line, name_path, string_literal,
    type_path,
};

use crate::children::named_children;

/// What a `defs.scm` capture may become.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Candidate {
    Function,
    Class,
    /// An assignment to a plain identifier; a def only at module or class level.
    Var,
    TypeAlias,
}

impl Candidate {
    fn is_scope(self) -> bool {
        matches!(self, Candidate::Function | Candidate::Class)
    }
}

/// What `defs.scm` says about candidates beyond the candidate itself, by node id.
#[derive(Default)]
pub(super) struct Context<'t> {
    /// Function or class → its `decorated_definition`.
    pub(super) decorated: HashMap<usize, Node<'t>>,
    /// Assignment → the string statement right after it.
    pub(super) var_docs: HashMap<usize, Node<'t>>,
}

/// Push the definitions (in source order) and class bases into `facts`; return the scope spans of
/// functions and classes, sorted by start.
///
/// Variables are kept once per scope and name: the first assignment wins, and a function or class of
/// the same name in the same scope (`f = wraps(f)`) hides them.
pub(super) fn build(
    candidates: &mut [(Node<'_>, Candidate)],
    context: &Context<'_>,
    source: &str,
    file_is_test: bool,
    facts: &mut FileFacts,
) -> Vec<Span> {
    candidates.sort_by_key(|(node, _)| node.start_byte());

    // Enclosing function or class of each candidate, as a candidate index.
    let mut parents: Vec<Option<usize>> = Vec::with_capacity(candidates.len());
    let mut stack: Vec<usize> = Vec::new();
    for (node, kind) in candidates.iter() {
        while stack.last().is_some_and(|&top| candidates[top].0.end_byte() <= node.start_byte()) {
            stack.pop();
        }
        parents.push(stack.last().copied());
        if kind.is_scope() {
            stack.push(parents.len() - 1);
        }
    }

    let names: Vec<Option<&str>> = candidates.iter().map(|(node, kind)| def_name(*node, *kind, source)).collect();
    let named_scopes: HashSet<(Option<usize>, &str)> = candidates
        .iter()
        .enumerate()
        .filter(|(_, (_, kind))| *kind != Candidate::Var)
        .filter_map(|(i, _)| Some((parents[i], names[i]?)))
        .collect();
    let mut seen_vars: HashSet<(Option<usize>, &str)> = HashSet::new();

    let mut index_of: Vec<Option<u32>> = vec![None; candidates.len()];
    let mut spans = Vec::new();
    for (i, &(node, kind)) in candidates.iter().enumerate() {
        let Some(name) = names[i] else { continue };
        let parent_candidate = parents[i];
        if kind == Candidate::Var {
            let at_top = parent_candidate.is_none_or(|p| candidates[p].1 == Candidate::Class);
            let key = (parent_candidate, name);
            if !at_top || named_scopes.contains(&key) || !seen_vars.insert(key) {
                continue;
            }
        }
        let parent = parent_candidate.and_then(|p| index_of[p]);
        let parent_def = parent.map(|p| &facts.defs[p as usize]);
        let index = facts.defs.len() as u32;
        index_of[i] = Some(index);

        let kind = match kind {
            Candidate::Function if parent_def.is_some_and(|p| p.kind == DefKind::Class) => DefKind::Method,
            Candidate::Function => DefKind::Function,
            Candidate::Class => DefKind::Class,
            Candidate::Var => DefKind::Var,
            Candidate::TypeAlias => DefKind::TypeAlias,
        };
        let is_test = file_is_test
            || parent_def.is_some_and(|p| p.is_test)
            || (kind == DefKind::Class && name.starts_with("Test"))
            || (matches!(kind, DefKind::Function | DefKind::Method) && name.starts_with("test_"));
        let (signature, doc, returns) = match kind {
            DefKind::Function | DefKind::Method | DefKind::Class => (
                header(node, source),
                child(node, Field::Body).and_then(|body| docstring(body, source)),
                child(node, Field::ReturnType).and_then(|ty| type_path(ty, source)),
            ),
            _ => (
                collapse(node_text(node, source), 200),
                context.var_docs.get(&node.id()).and_then(|doc| string_literal(*doc, source)),
                None,
            ),
        };
        // A decorated definition starts at its first decorator.
        let start = context.decorated.get(&node.id()).copied().unwrap_or(node);
        // A property with a declared return type reads as an attribute of that type (`c.friend.hello()`).
        if kind == DefKind::Method
            && let Some(path) = &returns
            && context.decorated.get(&node.id()).is_some_and(|d| is_property(*d, source))
        {
            let hint = Some(drsg_parsers::TypeHint::Annotated(path.clone()));
            facts.bindings.push(drsg_parsers::Binding {
                name: name.to_owned(),
                scope: parent,
                line: line(start),
                hint,
            });
        }
        facts.defs.push(Def {
            kind,
            name: name.to_owned(),
            parent,
            line: line(start),
            end_line: end_line(node),
            signature,
            doc,
            visibility: if is_private(name) { Visibility::Private } else { Visibility::Public },
            is_test,
            impl_block: None,
            returns,
            returns_ok: None,
            external_body: false,
            overload: context.decorated.get(&node.id()).is_some_and(|d| is_overload(*d, source)),
            generics: Vec::new(),
            callbacks: Vec::new(),
            returns_fields: Vec::new(),
            returns_args: Vec::new(),
            callback_types: Vec::new(),
        });
        if matches!(kind, DefKind::Function | DefKind::Method | DefKind::Class) {
            spans.push(Span { start: node.start_byte(), end: node.end_byte(), def: index });
        }
        if kind == DefKind::Class {
            bases(node, index, name, source, facts);
        }
    }
    spans
}

/// Whether a decorated definition is a property (`@property`, `@functools.cached_property`).
fn is_property(decorated: Node<'_>, source: &str) -> bool {
    named_children(decorated).filter(|d| d.kind() == "decorator").any(|d| {
        let text = node_text(d, source).trim_start_matches('@').trim();
        matches!(text, "property" | "cached_property" | "functools.cached_property")
    })
}

/// Whether a decorated definition is decorated `@overload` (`@typing.overload`, `@t.overload`).
fn is_overload(decorated: Node<'_>, source: &str) -> bool {
    named_children(decorated).filter(|d| d.kind() == "decorator").any(|d| {
        first_named(d).is_some_and(|e| {
            let text = node_text(e, source);
            text == "overload" || text.ends_with(".overload")
        })
    })
}

fn def_name<'s>(node: Node<'_>, candidate: Candidate, source: &'s str) -> Option<&'s str> {
    let name = match candidate {
        Candidate::Function | Candidate::Class => child(node, Field::Name)?,
        Candidate::Var => child(node, Field::Left).filter(|n| kind(*n) == Kind::Identifier)?,
        // `type X = …` or `type X[T] = …`.
        Candidate::TypeAlias => {
            let left = first_named(child(node, Field::Left)?)?;
            match kind(left) {
                Kind::Identifier => left,
                Kind::GenericType => first_named(left).filter(|n| kind(*n) == Kind::Identifier)?,
                _ => return None,
            }
        }
    };
    Some(node_text(name, source)).filter(|n| !n.is_empty())
}

/// `class A(B, mod.C, Generic[T], metaclass=M)` → extends `B`, `mod.C`, `Generic`; `object` and keywords skipped.
fn bases(class: Node<'_>, index: u32, name: &str, source: &str, facts: &mut FileFacts) {
    let Some(list) = child(class, Field::Superclasses) else { return };
    for base in named_children(list) {
        let target = match kind(base) {
            Kind::Identifier | Kind::Attribute => name_path(base, source),
            Kind::Subscript => child(base, Field::Value).and_then(|v| name_path(v, source)),
            _ => None,
        };
        let Some(target) = target.filter(|t| t != &["object"]) else { continue };
        facts.inherits.push(Inherit {
            child_def: Some(index),
            child: vec![name.to_owned()],
            kind: InheritKind::Extends,
            target,
            line: line(base),
            args: Vec::new(),
        });
    }
}
