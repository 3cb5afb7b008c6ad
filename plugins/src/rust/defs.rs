//! Definitions: kinds, parents by byte-range nesting, visibility, docs, test marks, signatures, impl blocks.

use crate::kinds::KindName;
use std::collections::HashMap;

use drsg_parsers::text::{clean_doc, collapse, lines, node_text};
use drsg_parsers::{Def, DefKind, ImplBlock, Visibility};
use tree_sitter::Node;

use super::paths::{impl_self_type, ok_type, segments, type_path};
use super::{Container, Field};
use crate::children::named_children;
use crate::fields::ChildInField;

/// The defs of a file in index order, with their byte ranges for scope lookups.
#[derive(Default)]
pub(super) struct DefTable {
    /// `(start_byte, end_byte)` of each def, sorted by start (outer before inner at equal starts).
    pub(super) spans: Vec<(usize, usize)>,
    /// Syntax node id → def index.
    pub(super) by_node: HashMap<usize, u32>,
}

/// Attributes and comments of a file, sorted, outermost only, for looking up what precedes an item.
pub(super) struct Trivia<'t> {
    nodes: Vec<Node<'t>>,
}

impl<'t> Trivia<'t> {
    pub(super) fn new(mut nodes: Vec<Node<'t>>) -> Trivia<'t> {
        nodes.sort_by_key(|n| (n.start_byte(), std::cmp::Reverse(n.end_byte())));
        // Drop comments inside attributes so that ends are sorted too.
        let mut kept: Vec<Node<'t>> = Vec::with_capacity(nodes.len());
        for node in nodes {
            if kept.last().is_none_or(|last| last.end_byte() <= node.start_byte()) {
                kept.push(node);
            }
        }
        Trivia { nodes: kept }
    }

    /// The attributes and comments directly before byte `start`, nearest first: each ends where
    /// only whitespace separates it from the next one (or from the item).
    fn before<'a>(&'a self, start: usize, source: &'a str) -> impl Iterator<Item = Node<'t>> + 'a {
        let mut index = self.nodes.partition_point(|n| n.end_byte() <= start);
        let mut position = start;
        std::iter::from_fn(move || {
            let node = *self.nodes.get(index.checked_sub(1)?)?;
            let gap = source.get(node.end_byte()..position)?;
            if !gap.chars().all(char::is_whitespace) {
                return None;
            }
            index -= 1;
            position = node.start_byte();
            Some(node)
        })
    }
}

/// Builds the defs from captured item nodes (any order) and pushes them in source order.
pub(super) fn build(
    mut sites: Vec<(Node<'_>, DefKind)>,
    containers: &HashMap<usize, Container<'_>>,
    trivia: &Trivia<'_>,
    source: &str,
    defs: &mut Vec<Def>,
) -> DefTable {
    sites.sort_by_key(|(node, _)| (node.start_byte(), std::cmp::Reverse(node.end_byte())));
    sites.dedup_by_key(|(node, _)| node.id());
    let mut table = DefTable::default();
    // Open defs enclosing the current position, innermost last.
    let mut open: Vec<u32> = Vec::new();
    for (node, kind) in sites {
        let container = containers.get(&node.id()).copied();
        let kind = match (container, kind) {
            (Some(Container::Impl(_) | Container::Trait(_)), DefKind::Function) => DefKind::Method,
            // An impl's associated consts are defs, keyed below the type as its methods are (`Self::GET`
            // names one, and `Self::from_bits(…)` in its value is a call inside the impl); its associated
            // types are not.
            (Some(Container::Impl(_)), DefKind::Const) => DefKind::Const,
            (Some(Container::Impl(_)), _) => continue,
            (_, kind) => kind,
        };
        let Some(name) = node.field(Field::Name).map(|n| node_text(n, source)).filter(|n| !n.is_empty()) else {
            continue;
        };
        while open.last().is_some_and(|&i| table.spans[i as usize].1 <= node.start_byte()) {
            open.pop();
        }
        let parent = open.last().copied();
        let parent_def = parent.map(|i| &defs[i as usize]);
        let preceding = Preceding::of(node, trivia, source);

        let visibility = match container {
            Some(Container::Impl(imp)) if imp.field(Field::Trait).is_some() => Visibility::Public,
            Some(Container::Trait(_)) => parent_def.map_or(Visibility::Private, |p| p.visibility),
            _ => visibility(node, source),
        };
        let impl_block = match container {
            Some(Container::Impl(imp)) => Some(impl_block(imp, source)),
            _ => None,
        };
        let in_test_impl = match container {
            Some(Container::Impl(imp)) => Preceding::of(imp, trivia, source).cfg_test,
            _ => false,
        };
        let is_test = preceding.cfg_test
            || in_test_impl
            || (matches!(kind, DefKind::Function | DefKind::Method) && preceding.test_attr)
            || parent_def.is_some_and(|p| p.is_test);
        let mut doc = preceding.doc;
        let mut external_body = false;
        if kind == DefKind::Module {
            match node.field(Field::Body) {
                Some(body) => {
                    if let Some(inner) = inner_doc(body, source) {
                        doc = Some(match doc {
                            Some(outer) => collapse(&format!("{outer}\n{inner}"), 400),
                            None => inner,
                        });
                    }
                }
                None => external_body = true,
            }
        }
        let return_type = match kind {
            DefKind::Function | DefKind::Method => node.field(Field::ReturnType),
            _ => None,
        };
        let returns = return_type.and_then(|t| type_path(t, source));
        let returns_ok = return_type.and_then(|t| ok_type(t, source));
        let generics = match (kind, container) {
            (DefKind::Function | DefKind::Method, Some(Container::Impl(item) | Container::Trait(item))) => {
                let mut names = type_parameters(item, source);
                names.extend(type_parameters(node, source));
                names
            }
            (DefKind::Function | DefKind::Method, None) => type_parameters(node, source),
            _ => Vec::new(),
        };
        let (line, end_line) = lines(node);
        let index = defs.len() as u32;
        defs.push(Def {
            kind,
            name: name.to_owned(),
            parent,
            line,
            end_line,
            signature: signature(node, kind, source),
            doc,
            visibility,
            is_test,
            impl_block,
            returns,
            returns_ok,
            external_body,
            overload: false,
            generics,
            callbacks: Vec::new(),
            returns_fields: Vec::new(),
            returns_args: Vec::new(),
            callback_types: Vec::new(),
        });
        table.spans.push((node.start_byte(), node.end_byte()));
        table.by_node.insert(node.id(), index);
        open.push(index);
    }
    table
}

/// The names of an item's type parameters (not its lifetimes or const parameters).
fn type_parameters(item: Node<'_>, source: &str) -> Vec<String> {
    let Some(parameters) = item.field(Field::TypeParameters) else { return Vec::new() };
    named_children(parameters)
        .filter(|p| p.kind_name() == "type_parameter")
        .filter_map(|p| p.field(Field::Name))
        .map(|name| node_text(name, source).to_owned())
        .collect()
}

/// What an `impl` item implements, for whom.
pub(super) fn impl_block(item: Node<'_>, source: &str) -> ImplBlock {
    ImplBlock {
        self_ty: item.field(Field::Type).map(|t| impl_self_type(t, source)).unwrap_or_default(),
        trait_: item.field(Field::Trait).and_then(|t| segments(t, source)),
    }
}

fn visibility(node: Node<'_>, source: &str) -> Visibility {
    let Some(modifier) = named_children(node).find(|c| c.kind_name() == "visibility_modifier") else {
        return Visibility::Private;
    };
    let text: String = node_text(modifier, source).chars().filter(|c| !c.is_whitespace()).collect();
    match text.as_str() {
        "pub" => Visibility::Public,
        "pub(self)" => Visibility::Private,
        _ => Visibility::Crate,
    }
}

/// What sits right before an item: its doc comment and attributes.
struct Preceding {
    doc: Option<String>,
    /// An attribute whose last path segment is `test` (`#[test]`, `#[tokio::test]`).
    test_attr: bool,
    /// `#[cfg(test)]` (or a `cfg` naming `test` without `not`).
    cfg_test: bool,
}

impl Preceding {
    fn of(node: Node<'_>, trivia: &Trivia<'_>, source: &str) -> Preceding {
        let mut docs = Vec::new();
        let mut test_attr = false;
        let mut cfg_test = false;
        for s in trivia.before(node.start_byte(), source) {
            match s.kind_name() {
                "attribute_item" => {
                    if let Some(attr) = s.named_child(0) {
                        let (last, is_cfg) = attribute_name(attr, source);
                        test_attr |= last == "test";
                        cfg_test |= is_cfg && cfg_names_test(attr, source);
                    }
                }
                "line_comment" | "block_comment" => {
                    if s.field(Field::Outer).is_some() {
                        docs.push(node_text(s, source));
                    } else if s.field(Field::Inner).is_some() {
                        // `//!` belongs to the enclosing module, and ends this item's preamble.
                        break;
                    }
                }
                _ => break,
            }
        }
        docs.reverse();
        Preceding { doc: clean_doc(&docs), test_attr, cfg_test }
    }
}

/// The last segment of an attribute's path, and whether the path is exactly `cfg`.
fn attribute_name<'s>(attr: Node<'_>, source: &'s str) -> (&'s str, bool) {
    let Some(path) = attr.named_child(0) else {
        return ("", false);
    };
    let last = match path.kind_name() {
        "scoped_identifier" => path.field(Field::Name).map_or("", |n| node_text(n, source)),
        _ => node_text(path, source),
    };
    (last, path.kind_name() == "identifier" && last == "cfg")
}

/// `cfg(test)`, `cfg(all(test, feature = "x"))`: names `test` and does not negate.
fn cfg_names_test(attr: Node<'_>, source: &str) -> bool {
    let Some(args) = attr.field(Field::Arguments) else {
        return false;
    };
    let mut names_test = false;
    for word in node_text(args, source).split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        match word {
            "not" => return false,
            "test" => names_test = true,
            _ => {}
        }
    }
    names_test
}

/// The inner doc (`//!`, `/*! */`) at the top of a file or an inline module body.
pub(super) fn inner_doc(container: Node<'_>, source: &str) -> Option<String> {
    let mut docs = Vec::new();
    for child in named_children(container) {
        match child.kind_name() {
            "line_comment" | "block_comment" => {
                if child.field(Field::Inner).is_some() {
                    docs.push(node_text(child, source));
                }
            }
            "inner_attribute_item" => {}
            _ => break,
        }
    }
    clean_doc(&docs)
}

/// The declaration up to its body (`{`), value (`=`) or `;`, collapsed.
fn signature(node: Node<'_>, kind: DefKind, source: &str) -> String {
    let start = node.start_byte();
    let end = match kind {
        DefKind::Macro => node.field(Field::Name).map(|n| n.end_byte()),
        DefKind::Const | DefKind::Static => node.field(Field::Value).map(|v| v.start_byte()),
        _ => node
            .field(Field::Body)
            .filter(|b| {
                matches!(b.kind_name(), "block" | "declaration_list" | "field_declaration_list" | "enum_variant_list")
            })
            .map(|b| b.start_byte()),
    }
    .unwrap_or(node.end_byte());
    let text = source.get(start..end).unwrap_or("");
    let text = text.trim_end();
    let text = text.strip_suffix(';').unwrap_or(text).trim_end();
    let text = text.strip_suffix('=').unwrap_or(text);
    collapse(text, 200)
}
