//! Reading paths, URLs and methods from the nodes a plugin captured.

use tree_sitter::Node;

use super::PathPart;

/// The methods a node names: `get` → GET, `"POST"`, `["GET", "POST"]`; `route`, `api_route`, `all`,
/// `use` → ANY.
pub(super) fn methods(node: Node<'_>, source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "list" | "array" | "tuple" | "set" => {
                let mut cursor = n.walk();
                let children: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
                stack.extend(children.into_iter().rev());
            }
            _ => {
                let raw = string_text(n, source).unwrap_or_else(|| source[n.byte_range()].to_owned());
                let m = raw.trim().to_ascii_uppercase();
                let m = match m.as_str() {
                    "ROUTE" | "API_ROUTE" | "ALL" | "USE" | "METHOD" => "ANY".to_owned(),
                    "DEL" => "DELETE".to_owned(),
                    _ => m,
                };
                if !m.is_empty() && m.chars().all(|c| c.is_ascii_alphabetic() || c == '_') {
                    out.push(m);
                }
            }
        }
    }
    out
}

/// The text of a plain string literal (Python, TypeScript), without quotes; `None` for other nodes.
pub(super) fn string_text(node: Node<'_>, source: &str) -> Option<String> {
    if node.kind() != "string" {
        return None;
    }
    let parts = path_parts(node, source);
    parts
        .iter()
        .map(|p| match p {
            PathPart::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect::<Option<String>>()
}

/// The path prefix a proxy's rewrite matches: the text of a string or regular expression anchored at the
/// start (`"^/api"`, `/^\/api/` → `/api`); `None` for a pattern that is more than a literal prefix.
pub(super) fn prefix_pattern(node: Node<'_>, source: &str) -> Option<String> {
    let raw = match node.kind() {
        "regex" => source[node.child_by_field_name("pattern")?.byte_range()].replace("\\/", "/"),
        _ => string_text(node, source)?,
    };
    let literal = raw.strip_prefix('^').unwrap_or(&raw).trim_end_matches('/');
    let plain = literal.chars().all(|c| c.is_alphanumeric() || matches!(c, '/' | '-' | '_'));
    (plain && !literal.is_empty()).then(|| literal.to_owned())
}

/// A path expression in parts: string literals (with their interpolations), concatenations, names.
pub fn path_parts(node: Node<'_>, source: &str) -> Vec<PathPart> {
    let text = |n: Node<'_>| source[n.byte_range()].to_owned();
    let mut out = Vec::new();
    match node.kind() {
        "string" | "template_string" | "string_literal" | "raw_string_literal" => {
            let mut cursor = node.walk();
            let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            if children.is_empty() {
                // `''`, or a grammar that keeps the text in the node itself.
                let raw = text(node);
                let inner = raw.trim_matches(|c| c == '"' || c == '\'' || c == '`');
                if !inner.is_empty() {
                    out.push(PathPart::Text(inner.to_owned()));
                }
            }
            for child in children {
                match child.kind() {
                    "string_content" | "string_fragment" | "escape_sequence" => out.push(PathPart::Text(text(child))),
                    "interpolation" | "template_substitution" => {
                        let mut c = child.walk();
                        let inner: Vec<Node<'_>> = child.named_children(&mut c).collect();
                        match inner.first() {
                            Some(e) if matches!(e.kind(), "identifier" | "attribute" | "member_expression") => {
                                out.push(PathPart::Name(text(*e)));
                            }
                            _ => out.push(PathPart::Param),
                        }
                    }
                    // Python's string_start / string_end and TypeScript's quotes carry no text.
                    _ => {}
                }
            }
        }
        "concatenated_string" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                out.extend(path_parts(child, source));
            }
        }
        "binary_operator" | "binary_expression" => {
            let (l, r) = (node.child_by_field_name("left"), node.child_by_field_name("right"));
            let plus = node.child_by_field_name("operator").map(text).as_deref() == Some("+");
            match (l, r, plus) {
                (Some(l), Some(r), true) => {
                    out.extend(path_parts(l, source));
                    out.extend(path_parts(r, source));
                }
                _ => out.push(PathPart::Unknown(text(node))),
            }
        }
        "parenthesized_expression" => {
            let mut cursor = node.walk();
            let inner: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            match inner.as_slice() {
                [one] => out.extend(path_parts(*one, source)),
                _ => out.push(PathPart::Unknown(text(node))),
            }
        }
        "identifier" | "attribute" | "member_expression" => out.push(PathPart::Name(text(node))),
        "macro_invocation" if node.child_by_field_name("macro").map(text).as_deref() == Some("format") => {
            out.extend(format_parts(node, source));
        }
        _ => out.push(PathPart::Unknown(text(node))),
    }
    merge_text(out)
}

/// Rust's `format!("{}/users/{id}", base)` in parts: its placeholders named (`{id}`) or parameters, one
/// before the first `/` unknown (a base URL held elsewhere).
fn format_parts(node: Node<'_>, source: &str) -> Vec<PathPart> {
    let mut cursor = node.walk();
    let tokens = node.named_children(&mut cursor).find(|c| c.kind() == "token_tree");
    let Some(template) = tokens.and_then(|t| {
        let mut c = t.walk();
        t.named_children(&mut c).find(|n| n.kind() == "string_literal")
    }) else {
        return vec![PathPart::Unknown(source[node.byte_range()].to_owned())];
    };
    let raw: String = path_parts(template, source)
        .into_iter()
        .map(|p| match p {
            PathPart::Text(t) => t,
            _ => String::new(),
        })
        .collect();
    let mut out = Vec::new();
    let mut rest = raw.as_str();
    while let Some(open) = rest.find('{') {
        if rest[open..].starts_with("{{") {
            out.push(PathPart::Text(rest[..open + 1].to_owned()));
            rest = &rest[open + 2..];
            continue;
        }
        out.push(PathPart::Text(rest[..open].to_owned()));
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c);
        let inner = rest[open + 1..close].split(':').next().unwrap_or("");
        let before_path = !out.iter().any(|p| matches!(p, PathPart::Text(t) if t.contains('/')));
        out.push(match (inner.is_empty(), before_path) {
            (_, true) => PathPart::Unknown(format!("{{{inner}}}")),
            (true, false) => PathPart::Param,
            (false, false) => PathPart::Name(inner.to_owned()),
        });
        rest = &rest[(close + 1).min(rest.len())..];
    }
    out.push(PathPart::Text(rest.to_owned()));
    merge_text(out.into_iter().filter(|p| !matches!(p, PathPart::Text(t) if t.is_empty())).collect())
}

/// Adjacent text parts joined.
pub(super) fn merge_text(parts: Vec<PathPart>) -> Vec<PathPart> {
    let mut out: Vec<PathPart> = Vec::with_capacity(parts.len());
    for p in parts {
        match (out.last_mut(), p) {
            (Some(PathPart::Text(a)), PathPart::Text(b)) => a.push_str(&b),
            (_, p) => out.push(p),
        }
    }
    out
}
