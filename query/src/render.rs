//! Text rendering shared by the verbs: the one-line node form, capped groups, and a writer that keeps
//! an answer within its character budget and says when it cut.
//!
//! `Text::page` shows the items of a group that fit the budget and says which; the JSON form is cut
//! to the budget by `fit_json`, which trims the longest pages first.

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

/// One page of a list (by default its first `cap` items) with the exact size of the whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group<T> {
    /// Size of the whole list.
    pub total: usize,
    /// Items of the list before the first one here.
    pub offset: usize,
    /// The page: at most the cap, or the limit asked for.
    pub items: Vec<T>,
    /// Whether items follow the page.
    pub more: bool,
}

/// Which page of a capped list to answer: `limit` items from `offset` (default: the first page of
/// the list's own cap).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Page {
    pub limit: Option<usize>,
    pub offset: Option<usize>,
}

/// The most items a page holds, whatever the limit asked for.
pub const MAX_PAGE: usize = 5_000;

impl Page {
    pub fn new(limit: Option<usize>, offset: Option<usize>) -> Page {
        Page { limit, offset }
    }

    /// Checks the numbers a caller gave.
    pub fn check(&self) -> crate::Result<()> {
        match self.limit {
            Some(0) => Err(crate::Error::InvalidArgument("`limit` is at least 1".into())),
            Some(n) if n > MAX_PAGE => Err(crate::Error::InvalidArgument(format!(
                "`limit` is at most {MAX_PAGE} (got {n}); page with `offset`"
            ))),
            _ => Ok(()),
        }
    }
}

impl<T> Group<T> {
    /// The first `cap` items of `all`.
    pub fn capped(all: Vec<T>, cap: usize) -> Group<T> {
        Group::paged(all, Page::default(), cap)
    }

    /// The page of `all` that `page` asks for, `cap` items when it names no limit.
    pub fn paged(mut all: Vec<T>, page: Page, cap: usize) -> Group<T> {
        let total = all.len();
        let offset = page.offset.unwrap_or(0).min(total);
        let limit = page.limit.unwrap_or(cap).min(MAX_PAGE);
        all.truncate(offset.saturating_add(limit));
        all.drain(..offset);
        let more = offset + all.len() < total;
        Group { total, offset, items: all, more }
    }

    /// A page whose items were chosen by the caller: `items` start at `offset` of a list of `total`.
    pub fn of_page(items: Vec<T>, offset: usize, total: usize) -> Group<T> {
        let more = offset + items.len() < total;
        Group { total, offset, items, more }
    }

    /// How many items follow the page.
    pub fn after(&self) -> usize {
        self.total.saturating_sub(self.offset + self.items.len())
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }
}

impl<T> Default for Group<T> {
    fn default() -> Self {
        Group { total: 0, offset: 0, items: Vec::new(), more: false }
    }
}

/// Which surface an answer is read on, so that a hint to read on names its own terms: flags on the
/// command line (and `/rpc`, which the command line speaks), arguments in an MCP tool result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Surface {
    #[default]
    Cli,
    Mcp,
}

impl Surface {
    /// An argument as the surface spells it: `--max-results 50`, or `max_results: 50`.
    pub fn arg(self, name: &str, value: impl fmt::Display) -> String {
        match self {
            Surface::Cli => format!("--{} {value}", name.replace('_', "-")),
            Surface::Mcp => format!("{name}: {value}"),
        }
    }

    /// A flag set, as the surface spells it: `--all-files`, or `all_files: true`.
    pub fn flag(self, name: &str) -> String {
        match self {
            Surface::Cli => format!("--{}", name.replace('_', "-")),
            Surface::Mcp => format!("{name}: true"),
        }
    }

    /// A call as a hint shows it: a command line in backquotes; an MCP call as it is spelled.
    pub fn quote(self, call: &str) -> String {
        match self {
            Surface::Cli => format!("`{call}`"),
            Surface::Mcp => call.to_owned(),
        }
    }

    /// A call of `verb` with `first` (its positional argument on the command line) and more arguments.
    pub fn call(self, verb: &str, first: (&str, &str), rest: &[(&str, String)]) -> String {
        match self {
            Surface::Cli => {
                let mut out = format!("drsg {verb} {}", first.1);
                for (name, value) in rest {
                    out.push(' ');
                    out.push_str(&self.arg(name, value));
                }
                out
            }
            Surface::Mcp => {
                let mut args = vec![format!("{}: {}", first.0, first.1)];
                args.extend(rest.iter().map(|(name, value)| self.arg(name, value)));
                format!("`{verb}` with {}", args.join(", "))
            }
        }
    }
}

/// A text answer under construction: lines are kept while they fit in the budget; the first line that
/// does not fit ends the answer, and [`Text::finish`] says that it was cut.
/// Room kept for a page's header and its line that reads on.
const PAGE_LINES: usize = 120;

pub struct Text {
    out: String,
    budget: usize,
    truncated: bool,
    /// Where the answer is read, for the terms of its hints.
    pub surface: Surface,
}

impl Text {
    pub fn new(budget: Option<usize>) -> Text {
        Text::on(budget, Surface::Cli)
    }

    pub fn on(budget: Option<usize>, surface: Surface) -> Text {
        let budget = budget.unwrap_or(DEFAULT_BUDGET).max(MIN_BUDGET);
        Text { out: String::new(), budget, truncated: false, surface }
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

    /// Lines of a group, indented, then `… and N more` when it was capped.
    pub fn group<T>(&mut self, group: &Group<T>, mut item: impl FnMut(&mut Text, &T)) {
        for it in &group.items {
            if self.truncated {
                return;
            }
            item(self, it);
        }
        if group.after() > 0 {
            self.line(format_args!("  … and {} more", group.after()));
        }
    }

    /// Lines of a page of a list that takes `limit` and `offset`: which page it is when it does not
    /// start at the first item, then `… and N more (--offset K)` when items follow.
    pub fn page<T>(&mut self, group: &Group<T>, mut item: impl FnMut(&mut Text, &T)) {
        // The items that fit with the page's header and the line that reads on: the header says what is shown.
        let mut trial = Text { out: String::new(), budget: self.remaining().saturating_sub(PAGE_LINES), ..*self };
        let mut shown = 0;
        for it in &group.items {
            item(&mut trial, it);
            if trial.truncated {
                break;
            }
            shown += 1;
        }
        if group.offset > 0 && shown > 0 {
            let (from, to) = (group.offset + 1, group.offset + shown);
            self.line(format_args!("  (items {from}-{to} of {})", group.total));
        }
        for it in group.items.iter().take(shown) {
            if self.truncated {
                return;
            }
            item(self, it);
        }
        self.more_after(group, group.offset + shown);
    }

    /// `… and N more (--offset K)` when items follow a group's page.
    pub fn more<T>(&mut self, group: &Group<T>) {
        self.more_after(group, group.offset + group.items.len());
    }

    /// `… and N more (--offset K)` when items of `group` follow the first `shown_to`.
    fn more_after<T>(&mut self, group: &Group<T>, shown_to: usize) {
        let after = group.total.saturating_sub(shown_to);
        if after > 0 {
            let next = self.surface.arg("offset", shown_to);
            self.line(format_args!("  … and {after} more ({next})"));
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
            let larger = self.surface.arg("budget", self.budget * 2);
            let _ = writeln!(
                self.out,
                "… answer truncated at {} characters; ask again with a larger budget (e.g. {larger}) or a narrower question",
                self.budget,
            );
        }
        self.out
    }
}

/// Trims the pages of the lists in `value` (objects holding `total`, `offset`, `items` and `more`, as a
/// [`Group`] serialises) from their ends, the longest page first, until its JSON takes at most `budget`
/// characters or no page has an item left; the number of items taken out.
pub fn fit_json(value: &mut serde_json::Value, budget: usize) -> usize {
    let mut size = value.to_string().len();
    let mut removed = 0;
    while size > budget {
        let mut pages = Vec::new();
        collect_pages(value, &mut Vec::new(), &mut pages);
        let Some((path, _)) = pages.into_iter().max_by_key(|(_, n)| *n) else { break };
        let Some(page) = at_path(value, &path) else { break };
        let Some(serde_json::Value::Array(items)) = page.get_mut("items") else { break };
        let Some(last) = items.pop() else { break };
        // The item and its comma; an emptied list keeps its brackets.
        size = size.saturating_sub(last.to_string().len() + usize::from(!items.is_empty()));
        removed += 1;
        if let Some(more) = page.get_mut("more") {
            *more = serde_json::Value::Bool(true);
        }
    }
    removed
}

/// Paths (object keys and array indexes) to the pages in `value` with items, and their lengths.
fn collect_pages(value: &serde_json::Value, path: &mut Vec<PathStep>, out: &mut Vec<(Vec<PathStep>, usize)>) {
    match value {
        serde_json::Value::Object(map) => {
            if let Some(serde_json::Value::Array(items)) = map.get("items")
                && map.contains_key("total")
                && map.contains_key("more")
                && !items.is_empty()
            {
                out.push((path.clone(), items.len()));
            }
            for (key, child) in map {
                path.push(PathStep::Key(key.clone()));
                collect_pages(child, path, out);
                path.pop();
            }
        }
        serde_json::Value::Array(list) => {
            for (i, child) in list.iter().enumerate() {
                path.push(PathStep::Index(i));
                collect_pages(child, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

#[derive(Debug, Clone)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn at_path<'v>(value: &'v mut serde_json::Value, path: &[PathStep]) -> Option<&'v mut serde_json::Value> {
    let mut at = value;
    for step in path {
        at = match step {
            PathStep::Key(key) => at.get_mut(key.as_str())?,
            PathStep::Index(i) => at.get_mut(*i)?,
        };
    }
    Some(at)
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
    fn a_page_cut_by_the_budget_says_what_it_shows_and_where_to_read_on() {
        let g = Group::paged((0..400).collect::<Vec<u32>>(), Page::new(Some(300), Some(50)), 20);
        let mut t = Text::new(Some(1_000));
        t.page(&g, |t, n| {
            t.line(format_args!("  item number {n:>20}"));
        });
        let out = t.finish();
        let shown = out.lines().filter(|l| l.starts_with("  item number")).count();
        assert!(shown > 5 && shown < 300, "{out}");
        assert!(out.starts_with(&format!("  (items 51-{} of 400)\n", 50 + shown)), "{out}");
        assert!(out.contains(&format!("  … and {} more (--offset {})\n", 350 - shown, 50 + shown)), "{out}");
        assert!(!out.contains("answer truncated"), "the page fits: {out}");
    }

    #[test]
    fn json_pages_keep_what_fits_the_budget_and_say_more() {
        let page = serde_json::to_value(Group::paged(
            (0..500).map(|n| format!("item {n:>30}")).collect(),
            Page::default(),
            500,
        ))
        .expect("serialises");
        let mut answer = serde_json::json!({"head": "kept", "list": page, "small": {"total": 1, "offset": 0, "items": ["x"], "more": false}});
        let removed = fit_json(&mut answer, 2_000);
        assert!(answer.to_string().len() <= 2_000, "{}", answer.to_string().len());
        let items = answer["list"]["items"].as_array().expect("items").len();
        assert_eq!(items + removed, 500);
        assert_eq!((answer["list"]["total"].as_u64(), answer["list"]["more"].as_bool()), (Some(500), Some(true)));
        assert_eq!(answer["small"]["items"].as_array().map(Vec::len), Some(1), "the longest page goes first");
        assert_eq!(answer["head"], "kept");
        // An answer within its budget is untouched.
        let mut small = serde_json::json!({"list": {"total": 1, "offset": 0, "items": [1], "more": false}});
        assert_eq!(fit_json(&mut small, 2_000), 0);
    }

    #[test]
    fn groups_keep_exact_counts() {
        let g = Group::capped((0..200).collect::<Vec<u32>>(), 20);
        assert_eq!((g.total, g.offset, g.items.len(), g.after(), g.more), (200, 0, 20, 180, true));
        let mut t = Text::new(None);
        t.group(&g, |t, n| {
            t.line(format_args!("  {n}"));
        });
        let out = t.finish();
        assert!(out.ends_with("  19\n  … and 180 more\n"), "{out}");
        let mut t = Text::new(None);
        t.page(&g, |t, n| {
            t.line(format_args!("  {n}"));
        });
        assert!(t.finish().ends_with("  19\n  … and 180 more (--offset 20)\n"));

        // Paging through the whole list, in the terms of each surface.
        let page = |offset, limit| Group::paged((0..200).collect::<Vec<u32>>(), Page::new(limit, offset), 20);
        let g = page(Some(190), Some(50));
        assert_eq!((g.offset, g.items, g.more), (190, (190..200).collect::<Vec<_>>(), false));
        let g = page(Some(40), Some(60));
        assert_eq!((g.offset, g.items.len(), g.after(), g.more), (40, 60, 100, true));
        let mut t = Text::on(None, Surface::Mcp);
        t.page(&g, |t, n| {
            t.line(format_args!("  {n}"));
        });
        let out = t.finish();
        assert!(out.starts_with("  (items 41-100 of 200)\n  40\n"), "{out}");
        assert!(out.ends_with("  99\n  … and 100 more (offset: 100)\n"), "{out}");
        assert_eq!(page(Some(500), None).items, Vec::<u32>::new());
        let all: Vec<u32> = (0..10).flat_map(|i| page(Some(i * 20), None).items).collect();
        assert_eq!(all, (0..200).collect::<Vec<_>>(), "pages cover the list once");
        assert!(Page::new(Some(0), None).check().is_err() && Page::new(Some(MAX_PAGE + 1), None).check().is_err());
    }

    #[test]
    fn site_lines_cap() {
        assert_eq!(site_lines(&[3]), "line 3");
        assert_eq!(site_lines(&(1..=10).collect::<Vec<_>>()), "lines 1, 2, 3, 4, 5, 6, 7, 8 … and 2 more");
        assert_eq!(one_line("  \n hello world \n second", 5), "hell…");
    }
}
