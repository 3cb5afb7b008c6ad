//! Text rendering shared by the verbs: the one-line node form, capped groups, and a writer that keeps
//! an answer within its character budget and says when it cut.

use std::fmt::{self, Write as _};

use drsg_planes::Node;
use serde::Serialize;

/// Default size of a text answer, in characters (SPEC §6: about 8,000).
pub const DEFAULT_BUDGET: usize = 8_000;
/// Smallest budget accepted: room for a header and the truncation note.
pub const MIN_BUDGET: usize = 400;

/// A node in the one-line form `<key>  <Label>  <file>:<line>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeLine {
    pub key: String,
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl NodeLine {
    pub fn of(node: &Node) -> NodeLine {
        NodeLine { key: node.key.clone(), label: node.label().to_owned(), file: node.file.clone(), line: node.line }
    }
}

impl fmt::Display for NodeLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}  {}", self.key, self.label)?;
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "  {file}:{line}"),
            (Some(file), None) => write!(f, "  {file}"),
            _ => Ok(()),
        }
    }
}

/// The first `cap` items of a list with the exact size of the whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group<T> {
    /// Size of the whole list.
    pub total: usize,
    /// The first items, at most the cap.
    pub items: Vec<T>,
}

impl<T> Group<T> {
    pub fn capped(mut all: Vec<T>, cap: usize) -> Group<T> {
        let total = all.len();
        all.truncate(cap);
        Group { total, items: all }
    }

    /// How many items were left out.
    pub fn more(&self) -> usize {
        self.total - self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }
}

impl<T> Default for Group<T> {
    fn default() -> Self {
        Group { total: 0, items: Vec::new() }
    }
}

/// A text answer under construction: lines are kept while they fit in the budget; the first line that
/// does not fit ends the answer, and [`Text::finish`] says that it was cut.
pub struct Text {
    out: String,
    budget: usize,
    truncated: bool,
}

impl Text {
    pub fn new(budget: Option<usize>) -> Text {
        Text { out: String::new(), budget: budget.unwrap_or(DEFAULT_BUDGET).max(MIN_BUDGET), truncated: false }
    }

    /// Write one line (a newline is added). Returns whether it was kept.
    pub fn line(&mut self, args: fmt::Arguments<'_>) -> bool {
        if self.truncated {
            return false;
        }
        let start = self.out.len();
        let _ = self.out.write_fmt(args);
        self.out.push('\n');
        if self.out.len() > self.budget {
            self.out.truncate(start);
            self.truncated = true;
            return false;
        }
        true
    }

    /// Lines of a group, indented, then `… and N more` when the group was capped.
    pub fn group<T>(&mut self, group: &Group<T>, mut item: impl FnMut(&mut Text, &T)) {
        for it in &group.items {
            if self.truncated {
                return;
            }
            item(self, it);
        }
        if group.more() > 0 {
            self.line(format_args!("  … and {} more", group.more()));
        }
    }

    /// Characters left before the budget.
    pub fn remaining(&self) -> usize {
        self.budget.saturating_sub(self.out.len())
    }

    pub fn is_truncated(&self) -> bool {
        self.truncated
    }

    pub fn finish(mut self) -> String {
        if self.truncated {
            let _ = writeln!(
                self.out,
                "… answer truncated at {} characters; ask again with a larger budget (e.g. --budget {}) or a narrower question",
                self.budget,
                self.budget * 2
            );
        }
        self.out
    }
}

/// `line 12` or `lines 12, 40, 41`, listing at most 8 numbers.
pub fn site_lines(lines: &[u32]) -> String {
    const MAX: usize = 8;
    let shown: Vec<String> = lines.iter().take(MAX).map(u32::to_string).collect();
    let word = if lines.len() == 1 { "line" } else { "lines" };
    let more = if lines.len() > MAX { format!(" … and {} more", lines.len() - MAX) } else { String::new() };
    format!("{word} {}{more}", shown.join(", "))
}

/// One line of at most `max` characters (the first line of `text`, cut with `…`).
pub fn one_line(text: &str, max: usize) -> String {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    if first.chars().count() <= max {
        return first.to_owned();
    }
    let mut cut: String = first.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_stops_at_the_budget_and_says_so() {
        let mut t = Text::new(Some(MIN_BUDGET));
        let mut kept = 0;
        for i in 0..100 {
            if t.line(format_args!("line number {i:>20}")) {
                kept += 1;
            }
        }
        assert!(t.is_truncated());
        let out = t.finish();
        assert_eq!(out.lines().count(), kept + 1);
        assert!(out.ends_with("or a narrower question\n"), "{out}");
        assert!(kept < 100 && kept > 5);
    }

    #[test]
    fn groups_keep_exact_counts() {
        let g = Group::capped((0..200).collect::<Vec<u32>>(), 20);
        assert_eq!((g.total, g.items.len(), g.more()), (200, 20, 180));
        let mut t = Text::new(None);
        t.group(&g, |t, n| {
            t.line(format_args!("  {n}"));
        });
        let out = t.finish();
        assert!(out.ends_with("  19\n  … and 180 more\n"), "{out}");
    }

    #[test]
    fn site_lines_cap() {
        assert_eq!(site_lines(&[3]), "line 3");
        assert_eq!(site_lines(&(1..=10).collect::<Vec<_>>()), "lines 1, 2, 3, 4, 5, 6, 7, 8 … and 2 more");
        assert_eq!(one_line("  \n hello world \n second", 5), "hell…");
    }
}
