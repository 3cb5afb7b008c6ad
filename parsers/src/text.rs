//! Small helpers shared by language plugins: signatures, doc comments, node text, nesting depth, and
//! a source file's line endings as the parsers read them.
//!
//! `parse_file` reads a lone `\r` as a line end and a leading byte-order mark as blanks
//! (`for_parsing`, offsets kept), since tree-sitter counts rows by `\n`; `snippet` and `recall`
//! split lines the same way and drop the mark.

use std::borrow::Cow;

/// `text` as the parsers read it: a lone `\r` ends a line as `\n` does (tree-sitter counts rows by `\n`
/// only) and a leading byte-order mark is blank; byte offsets stay those of `text`.
pub fn for_parsing(text: &str) -> Cow<'_, str> {
    let bom = text.starts_with('\u{feff}');
    // One fast scan for any `\r` (most files have none), then a look at each.
    let lone_cr =
        text.contains('\r') && text.match_indices('\r').any(|(i, _)| text.as_bytes().get(i + 1) != Some(&b'\n'));
    if !bom && !lone_cr {
        return Cow::Borrowed(text);
    }
    let mut bytes = text.as_bytes().to_vec();
    if bom {
        bytes[..3].fill(b' ');
    }
    for i in 0..bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n') {
            bytes[i] = b'\n';
        }
    }
    // Only ASCII bytes and the whole three-byte mark were replaced, by ASCII.
    Cow::Owned(String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned()))
}

/// Collapse runs of whitespace to one space and cap the length at `max` characters (with `…`).
pub fn collapse(text: &str, max: usize) -> String {
    // Most texts (names, call targets) are short ASCII without whitespace: kept as they are.
    if text.len() <= max && text.bytes().all(|b| b.is_ascii_graphic()) {
        return text.to_owned();
    }
    if text.is_ascii() { collapse_ascii(text, max) } else { collapse_chars(text, max) }
}

/// [`collapse`] char by char.
fn collapse_chars(text: &str, max: usize) -> String {
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

/// [`collapse`] of ASCII text, a run of non-space bytes at a time (a test holds it to [`collapse_chars`]).
fn collapse_ascii(text: &str, max: usize) -> String {
    // The ASCII characters `char::is_whitespace` accepts (`u8::is_ascii_whitespace` leaves out `\x0B`).
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r');
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len().min(max + 4));
    let mut count = 0usize;
    let mut pending_space = false;
    let mut i = 0;
    while i < bytes.len() {
        if space(bytes[i]) {
            pending_space = !out.is_empty();
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !space(bytes[i]) {
            i += 1;
        }
        if pending_space {
            out.push(' ');
            count += 1;
            pending_space = false;
        }
        let room = max.saturating_sub(count);
        if i - start > room {
            out.push_str(&text[start..start + room]);
            out.push('…');
            return out;
        }
        out.push_str(&text[start..i]);
        count += i - start;
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

/// The first node at depth `limit`, if the tree is that deep. Only subtrees large enough to reach the limit
/// are entered (a level of nesting takes at least a byte, give or take a few single-child wrappers), so this
/// visits a handful of nodes on ordinary files.
pub fn node_at_depth(root: tree_sitter::Node<'_>, limit: u32) -> Option<tree_sitter::Node<'_>> {
    const LEVELS_PER_BYTE: usize = 16;
    let mut cursor = root.walk();
    let mut depth = 0u32;
    loop {
        let node = cursor.node();
        if depth >= limit {
            return Some(node);
        }
        let room = (limit - depth) as usize;
        let can_reach = (node.end_byte() - node.start_byte() + 1) * LEVELS_PER_BYTE >= room;
        if can_reach && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        if !skip_subtree(&mut cursor, &mut depth) {
            return None;
        }
    }
}

/// Moves a pre-order walk past the current node's subtree: to its next sibling, or to the next sibling
/// of the nearest ancestor that has one, lowering `depth` by the levels climbed. False when the walk has
/// climbed out of the node the cursor was created on, which ends it.
fn skip_subtree(cursor: &mut tree_sitter::TreeCursor<'_>, depth: &mut u32) -> bool {
    loop {
        if cursor.goto_next_sibling() {
            return true;
        }
        if !cursor.goto_parent() {
            return false;
        }
        *depth -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapse_caps_and_squeezes() {
        assert_eq!(collapse("fn  a(\n  x: u8)", 100), "fn a( x: u8)");
        assert_eq!(collapse("abcdef", 3), "abc…");
        // At the cap exactly, and texts the ASCII shortcut takes or leaves (tabs, other controls, non-ASCII).
        assert_eq!(collapse("abc", 3), "abc");
        assert_eq!(collapse("self.assertEqual", 120), "self.assertEqual");
        assert_eq!(collapse("\ta\x01b ", 10), "a\x01b");
        assert_eq!(collapse("é\u{a0}x", 10), "é x");
        assert_eq!(collapse("ééé", 2), "éé…");
        assert_eq!(collapse("ab cd", 2), "ab …");
    }

    #[test]
    fn ascii_text_collapses_as_any_text_does() {
        // Every ASCII whitespace `char::is_whitespace` knows, and controls it does not.
        const ALPHABET: &[u8] = b"ab(),: \t\n\r\x0b\x0c\x01\x1c\x1d\x1e\x1f\x7f_";
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..3_000 {
            let len = (next() % 30) as usize;
            let text: String =
                (0..len).map(|_| char::from(ALPHABET[(next() % ALPHABET.len() as u64) as usize])).collect();
            for max in [0, 1, 2, 3, 5, 8, 13, 40] {
                assert_eq!(collapse_ascii(&text, max), collapse_chars(&text, max), "{text:?} capped at {max}");
            }
        }
    }

    #[test]
    fn clean_doc_strips_markers() {
        assert_eq!(clean_doc(&["/// Hello", "/// world"]).as_deref(), Some("Hello world"));
        assert_eq!(clean_doc(&["/**\n * Fetch it.\n */"]).as_deref(), Some("Fetch it."));
        assert_eq!(clean_doc(&["///"]), None);
    }
}
