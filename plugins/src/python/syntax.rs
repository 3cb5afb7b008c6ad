//! Reading Python syntax nodes: name paths, annotation paths, string contents, docstrings, headers.
//!
//! Every walk here is a loop over one chain of nodes or an explicit stack, never recursion,
//! so deeply nested sources cannot overflow the stack.

use drsg_parsers::text::{collapse, node_text};
use tree_sitter::Node;

/// 1-based line of a node's start.
pub(super) fn line(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

/// 1-based line of a node's end.
pub(super) fn end_line(node: Node<'_>) -> u32 {
    node.end_position().row as u32 + 1
}

/// Split `x.a.b` into its innermost object `x` and the attribute names `["a", "b"]`.
pub(super) fn split_attributes<'t>(node: Node<'t>, source: &str) -> (Node<'t>, Vec<String>) {
    let mut names = Vec::new();
    let mut current = node;
    while current.kind() == "attribute" {
        let (Some(object), Some(attribute)) =
            (current.child_by_field_name("object"), current.child_by_field_name("attribute"))
        else {
            break;
        };
        names.push(node_text(attribute, source).to_owned());
        current = object;
    }
    names.reverse();
    (current, names)
}

/// `a` → `["a"]`, `a.b.c` → `["a", "b", "c"]`; `None` when the chain does not start at an identifier.
pub(super) fn name_path(node: Node<'_>, source: &str) -> Option<Vec<String>> {
    let (base, rest) = split_attributes(node, source);
    if base.kind() != "identifier" {
        return None;
    }
    let mut path = Vec::with_capacity(rest.len() + 1);
    path.push(node_text(base, source).to_owned());
    path.extend(rest);
    Some(path)
}

/// The first named child that is not a comment.
pub(super) fn first_named(node: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).find(|n| n.kind() != "comment")
}

/// The outer path of an annotation: `Client`, `mod.Client`, `"Client"`, `Optional[Client]` → `["Optional"]`.
/// `None` for `None`, unions and anything that is not a name.
pub(super) fn type_path(ty: Node<'_>, source: &str) -> Option<Vec<String>> {
    let inner = if ty.kind() == "type" { first_named(ty)? } else { ty };
    match inner.kind() {
        "identifier" | "attribute" => name_path(inner, source),
        "generic_type" => {
            first_named(inner).filter(|n| n.kind() == "identifier").map(|n| vec![node_text(n, source).to_owned()])
        }
        "subscript" => name_path(inner.child_by_field_name("value")?, source),
        "string" => string_parts(inner, source).and_then(|(_, text)| forward_ref_head(text)),
        _ => None,
    }
}

/// `(prefix, content)` of a string literal: `r'''x'''` → `("r'''", "x")`.
pub(super) fn string_parts<'s>(string: Node<'_>, source: &'s str) -> Option<(&'s str, &'s str)> {
    let mut cursor = string.walk();
    let mut start = None;
    let mut end = None;
    for child in string.children(&mut cursor) {
        match child.kind() {
            "string_start" => start = Some(child),
            "string_end" => end = Some(child),
            _ => {}
        }
    }
    let (start, end) = (start?, end?);
    let content = source.get(start.end_byte()..end.start_byte())?;
    Some((node_text(start, source), content))
}

/// The leading dotted name of a forward reference: `"mod.Client"` → `["mod", "Client"]`,
/// `"Optional[Client]"` → `["Optional"]`.
pub(super) fn forward_ref_head(text: &str) -> Option<Vec<String>> {
    let text = text.trim();
    let head_len = text.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).unwrap_or(text.len());
    dotted(&text[..head_len])
}

/// Every dotted name in a forward reference: `"dict[str, mod.Client]"` → `str`, `mod.Client`.
pub(super) fn forward_ref_names(text: &str) -> Vec<Vec<String>> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).filter_map(dotted).collect()
}

/// `a.b` → `["a", "b"]` when every segment is an identifier.
fn dotted(text: &str) -> Option<Vec<String>> {
    let segments: Vec<String> = text.split('.').map(str::to_owned).collect();
    let valid = segments.iter().all(|s| s.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_'));
    valid.then_some(segments)
}

/// The docstring of a module or block: its first statement when that is a plain string literal.
pub(super) fn docstring(body: Node<'_>, source: &str) -> Option<String> {
    string_statement(first_named(body)?, source)
}

/// The text of a statement that is only a string literal (implicit concatenation included), trimmed and collapsed.
fn string_statement(statement: Node<'_>, source: &str) -> Option<String> {
    if statement.kind() != "expression_statement" || statement.named_child_count() != 1 {
        return None;
    }
    string_literal(statement.named_child(0)?, source)
}

/// The text of a (possibly implicitly concatenated) string literal, trimmed and collapsed to 400 characters;
/// `None` for f-strings and empty strings.
pub(super) fn string_literal(literal: Node<'_>, source: &str) -> Option<String> {
    let raw = match literal.kind() {
        "string" => plain_string(literal, source)?.to_owned(),
        "concatenated_string" => {
            let mut cursor = literal.walk();
            let parts: Option<Vec<&str>> =
                literal.named_children(&mut cursor).map(|part| plain_string(part, source)).collect();
            parts?.concat()
        }
        _ => return None,
    };
    let doc = collapse(raw.trim(), 400);
    (!doc.is_empty()).then_some(doc)
}

/// The content of a string literal that is not an f-string (f-strings are not docstrings).
fn plain_string<'s>(string: Node<'_>, source: &'s str) -> Option<&'s str> {
    let (prefix, content) = string_parts(string, source)?;
    (!prefix.contains(['f', 'F'])).then_some(content)
}

/// A `def`/`class` header up to and including the colon before the body, collapsed.
pub(super) fn header(def: Node<'_>, source: &str) -> String {
    let mut end = def.child_by_field_name("body").map_or(def.end_byte(), |b| b.start_byte());
    let mut cursor = def.walk();
    if let Some(colon) = def.children(&mut cursor).find(|c| c.kind() == ":") {
        end = colon.end_byte();
    }
    collapse(source.get(def.start_byte()..end).unwrap_or("").trim_end(), 200)
}

/// Python's convention: `_x` and `__x` are private, dunders `__x__` are public.
pub(super) fn is_private(name: &str) -> bool {
    let dunder = name.len() > 4 && name.starts_with("__") && name.ends_with("__");
    name.starts_with('_') && !dunder
}

/// Whether a path names a test module: `test_*.py`, `*_test.py`, `conftest.py`, or under `tests/`/`test/`.
pub(super) fn is_test_path(path: &str) -> bool {
    let mut components: Vec<&str> = path.split('/').collect();
    let file = components.pop().unwrap_or("");
    if components.iter().any(|c| *c == "tests" || *c == "test") {
        return true;
    }
    let stem = file.strip_suffix(".py").or_else(|| file.strip_suffix(".pyi")).unwrap_or(file);
    stem.starts_with("test_") || stem.ends_with("_test") || stem == "conftest"
}
