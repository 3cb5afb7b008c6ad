//! Small text helpers shared by language plugins: signatures, doc comments, node text.

/// Collapse runs of whitespace to one space and cap the length at `max` characters (with `…`).
pub fn collapse(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max + 4));
    let mut count = 0usize;
    let mut pending_space = false;
    for ch in text.chars() {
        if ch.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            count += 1;
            pending_space = false;
        }
        if count >= max {
            out.push('…');
            return out;
        }
        out.push(ch);
        count += 1;
    }
    out
}

/// The text of a node, or `""` when its range is not valid UTF-8 boundaries of `source`.
pub fn node_text<'s>(node: tree_sitter::Node<'_>, source: &'s str) -> &'s str {
    source.get(node.byte_range()).unwrap_or("")
}

/// 1-based start and end lines of a node.
pub fn lines(node: tree_sitter::Node<'_>) -> (u32, u32) {
    (node.start_position().row as u32 + 1, node.end_position().row as u32 + 1)
}

/// Strip comment markers from a block of doc comment lines (`///`, `//!`, `/** */`, `*`), keep the text.
pub fn clean_doc(raw: &[&str]) -> Option<String> {
    let mut lines = Vec::new();
    for line in raw {
        for part in line.lines() {
            let t = part.trim();
            let t = t
                .strip_prefix("///")
                .or_else(|| t.strip_prefix("//!"))
                .or_else(|| t.strip_prefix("/**"))
                .or_else(|| t.strip_prefix("/*!"))
                .unwrap_or(t);
            let t = t.strip_suffix("*/").unwrap_or(t);
            let t = t.trim();
            let t = t.strip_prefix('*').map(str::trim).unwrap_or(t);
            lines.push(t.to_owned());
        }
    }
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    if lines.is_empty() { None } else { Some(collapse(&lines.join("\n"), 400)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapse_caps_and_squeezes() {
        assert_eq!(collapse("fn  a(\n  x: u8)", 100), "fn a( x: u8)");
        assert_eq!(collapse("abcdef", 3), "abc…");
    }

    #[test]
    fn clean_doc_strips_markers() {
        assert_eq!(clean_doc(&["/// Hello", "/// world"]).as_deref(), Some("Hello world"));
        assert_eq!(clean_doc(&["/**\n * Fetch it.\n */"]).as_deref(), Some("Fetch it."));
        assert_eq!(clean_doc(&["///"]), None);
    }
}
