//! `use` trees flattened into one import per name, and `extern crate`.

use crate::kinds::KindName;
use drsg_parsers::Import;
use drsg_parsers::text::node_text;
use tree_sitter::Node;

use super::Field;
use super::paths::segments;
use super::refs::Positioned;
use crate::children::named_children;
use crate::fields::ChildInField;

fn line_of(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

/// One import per leaf of a `use` tree; groups are flattened with an explicit stack.
pub(super) fn use_declaration(node: Node<'_>, source: &str, out: &mut Vec<Positioned<Import>>) {
    let Some(argument) = node.field(Field::Argument) else {
        return;
    };
    let reexport = named_children(node).any(|c| c.kind_name() == "visibility_modifier");
    let position = node.start_byte();
    let push =
        |out: &mut Vec<Positioned<Import>>, source_path: &[String], name: Option<String>, alias: String, leaf| {
            out.push((
                position,
                Import {
                    source: source_path.join("::"),
                    name,
                    alias,
                    glob: false,
                    reexport,
                    line: line_of(leaf),
                    scope: None,
                },
            ));
        };
    // (tree node, path prefix from enclosing groups); children pushed in reverse to keep source order.
    let mut stack: Vec<(Node<'_>, Vec<String>)> = vec![(argument, Vec::new())];
    while let Some((tree, prefix)) = stack.pop() {
        match tree.kind_name() {
            "use_list" => {
                let children: Vec<Node<'_>> = named_children(tree).collect();
                for child in children.into_iter().rev() {
                    stack.push((child, prefix.clone()));
                }
            }
            "scoped_use_list" => {
                let mut prefix = prefix;
                if let Some(path) = tree.field(Field::Path) {
                    prefix.extend(segments(path, source).unwrap_or_default());
                }
                if let Some(list) = tree.field(Field::List) {
                    stack.push((list, prefix));
                }
            }
            "use_wildcard" => {
                let mut full = prefix;
                if let Some(path) = tree.named_child(0) {
                    full.extend(segments(path, source).unwrap_or_default());
                }
                out.push((
                    position,
                    Import {
                        source: full.join("::"),
                        name: None,
                        alias: String::new(),
                        glob: true,
                        reexport,
                        line: line_of(tree),
                        scope: None,
                    },
                ));
            }
            "use_as_clause" => {
                let (Some(path), Some(alias)) = (tree.field(Field::Path), tree.field(Field::Alias)) else {
                    continue;
                };
                let mut full = prefix;
                full.extend(segments(path, source).unwrap_or_default());
                if let Some((source_path, name)) = split_leaf(full) {
                    push(out, &source_path, Some(name), node_text(alias, source).to_owned(), tree);
                }
            }
            _ => {
                let Some(path) = segments(tree, source) else { continue };
                let mut full = prefix;
                full.extend(path);
                if let Some((source_path, name)) = split_leaf(full) {
                    push(out, &source_path, Some(name.clone()), name, tree);
                }
            }
        }
    }
}

/// Splits a full use path into (source, name), folding a trailing `self` (`a::b::{self}` → `a`, `b`).
fn split_leaf(mut full: Vec<String>) -> Option<(Vec<String>, String)> {
    if full.last().is_some_and(|s| s == "self") && full.len() > 1 {
        full.pop();
    }
    let name = full.pop()?;
    Some((full, name))
}

/// `extern crate foo as bar;` → source "", name `foo`, alias `bar`.
pub(super) fn extern_crate(node: Node<'_>, source: &str) -> Option<Positioned<Import>> {
    let name = node_text(node.field(Field::Name)?, source).to_owned();
    let alias = node.field(Field::Alias).map_or_else(|| name.clone(), |a| node_text(a, source).to_owned());
    let reexport = named_children(node).any(|c| c.kind_name() == "visibility_modifier");
    Some((
        node.start_byte(),
        Import {
            source: String::new(),
            name: Some(name),
            alias,
            glob: false,
            reexport,
            line: line_of(node),
            scope: None,
        },
    ))
}
