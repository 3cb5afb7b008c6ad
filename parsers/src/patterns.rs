//! What a query's text says about where its patterns start.

/// The named node kinds a pattern's source text can start with: `(kind …)`, or each alternative of
/// `[(a …) (b …)]`. `None` for anything else (a wildcard, an anonymous node, a nested alternation).
pub fn pattern_roots(source: &str) -> Option<Vec<&str>> {
    let source = source.trim_start();
    if let Some(rest) = source.strip_prefix('[') {
        // Each parenthesised alternative at the brackets' own level; between them only spaces and capture
        // names may stand (a bare `_` or a quoted anonymous node starts anywhere).
        let mut roots = Vec::new();
        let mut depth = 0usize;
        let mut quoted = false;
        let mut capture = false;
        for (i, c) in rest.char_indices() {
            if depth > 0 {
                match c {
                    '"' => quoted = !quoted,
                    _ if quoted => {}
                    '(' | '[' => depth += 1,
                    ')' | ']' => depth -= 1,
                    _ => {}
                }
                continue;
            }
            match c {
                '(' => {
                    roots.push(kind_name(&rest[i + 1..])?);
                    capture = false;
                    depth = 1;
                }
                ']' => return (!roots.is_empty()).then_some(roots),
                '@' => capture = true,
                c if c.is_whitespace() => capture = false,
                c if capture && (c.is_alphanumeric() || c == '_' || c == '.' || c == '-') => {}
                _ => return None,
            }
        }
        return None;
    }
    let rest = source.strip_prefix('(')?;
    Some(vec![kind_name(rest)?])
}

/// The node kind that `text` (what follows an opening parenthesis) names, unless it is a wildcard or
/// another parenthesis.
pub fn kind_name(text: &str) -> Option<&str> {
    let text = text.trim_start();
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len());
    let name = &text[..end];
    (!name.is_empty() && name != "_").then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_roots_at_its_first_node_or_at_each_alternative() {
        assert_eq!(pattern_roots("(call function: (_) @f) @c"), Some(vec!["call"]));
        assert_eq!(pattern_roots("  (\n  call)"), Some(vec!["call"]));
        assert_eq!(pattern_roots("[(a) @x.y (b_c (d))] @z"), Some(vec!["a", "b_c"]));
        assert_eq!(pattern_roots("(_ (where_clause))"), None);
        assert_eq!(pattern_roots("[(a) _]"), None);
        assert_eq!(pattern_roots("[(a) \"if\"]"), None);
        assert_eq!(pattern_roots("\"if\" @keyword"), None);
        assert_eq!(pattern_roots("((a) . (b))"), None);
    }
}
