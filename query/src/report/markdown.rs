//! A report's text form: Markdown for a pull-request comment, counts and risks first, the long lists
//! folded in `<details>`, and a Mermaid graph of the changed definitions and the test files that reach
//! them (at most [`GRAPH_NODES`] nodes, saying what it left out).

use std::collections::{BTreeMap, BTreeSet};

use super::{ChangeKind, Changed, ReportOutput};
use crate::render::Text;
use crate::{Answer, short_sha};

const GRAPH_NODES: usize = 30;
/// Risks listed one a line, the most serious first; the rest are counted by kind.
const RISK_LINES: usize = 25;
/// Changed definitions in the table; the JSON form lists up to its own cap.
const TABLE_ROWS: usize = 200;

impl Answer for ReportOutput {
    fn render_to(&self, t: &mut Text) {
        // The marker a CI step finds its earlier comment by, to update it.
        t.line(format_args!("<!-- drsg report -->"));
        t.line(format_args!("## drsg report: `{}` → `{}`", short_sha(&self.base.commit), short_sha(&self.head.commit)));
        if let Some(tip) = &self.base.tip {
            t.line(format_args!(
                "Changes since `{}` ({}) left head's history at their merge base.",
                self.base.rev,
                short_sha(tip)
            ));
        }
        t.line(format_args!(""));
        let total: usize = self.counts.values().sum();
        let kinds: Vec<String> = self.counts.iter().map(|(k, n)| format!("{n} {}", k.as_str())).collect();
        let kinds = if kinds.is_empty() { String::new() } else { format!(" ({})", kinds.join(", ")) };
        let cases: usize = self.tests_to_run.iter().map(|r| r.tests.len()).sum();
        let bound = if self.tests_complete { "complete" } else { "a lower bound" };
        t.line(format_args!(
            "**{total} definitions changed** in {} files{kinds} · **{cases} tests to run** in {} files ({bound}) · **{} risks**",
            self.files,
            self.tests_to_run.len(),
            self.risks.len()
        ));
        t.line(format_args!(""));
        for note in &self.incomplete {
            t.line(format_args!("> lower bound: {note}"));
        }
        if !self.incomplete.is_empty() {
            t.line(format_args!(""));
        }

        if !self.risks.is_empty() {
            t.line(format_args!("### Risks"));
            t.line(format_args!(""));
            for risk in self.risks.iter().take(RISK_LINES) {
                let what = match (&risk.key, &risk.file) {
                    (Some(key), Some(file)) => format!("`{key}` ({file})"),
                    (Some(key), None) => format!("`{key}`"),
                    (None, Some(file)) => format!("`{file}`"),
                    (None, None) => String::new(),
                };
                if !t.line(format_args!("- **{}** {what}: {}", risk.kind, risk.detail)) {
                    return;
                }
            }
            if self.risks.len() > RISK_LINES {
                let mut rest: BTreeMap<&str, usize> = BTreeMap::new();
                for risk in &self.risks[RISK_LINES..] {
                    *rest.entry(risk.kind).or_default() += 1;
                }
                let kinds: Vec<String> = rest.iter().map(|(kind, n)| format!("{n} {kind}")).collect();
                t.line(format_args!(
                    "- … and {} more ({}): the JSON form lists them",
                    self.risks.len() - RISK_LINES,
                    kinds.join(", ")
                ));
            }
            t.line(format_args!(""));
        }

        if self.whole_suite {
            t.line(format_args!("### Tests to run"));
            t.line(format_args!(""));
            t.line(format_args!(
                "**unknown: run the whole suite.** No test is known to reach the change, and that is a lower bound (above)."
            ));
            t.line(format_args!(""));
        }
        if !self.tests_to_run.is_empty() {
            t.line(format_args!("### Tests to run"));
            t.line(format_args!(""));
            t.line(format_args!("```sh"));
            for run in &self.tests_to_run {
                t.line(format_args!("{}", run.filter));
            }
            t.line(format_args!("```"));
            t.line(format_args!(""));
            t.line(format_args!("<details><summary>Which tests reach which change</summary>"));
            t.line(format_args!(""));
            for run in &self.tests_to_run {
                t.line(format_args!(
                    "- `{}`: {} tests, reaching {}",
                    run.file,
                    run.tests.len(),
                    run.reaches.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                ));
            }
            t.line(format_args!(""));
            t.line(format_args!("</details>"));
            t.line(format_args!(""));
        }

        if !self.changed.is_empty() {
            t.line(format_args!("<details><summary>Changed definitions ({total})</summary>"));
            t.line(format_args!(""));
            t.line(format_args!("| change | definition | where | production | tests | unresolved |"));
            t.line(format_args!("|---|---|---|---:|---:|---:|"));
            for c in self.changed.iter().take(TABLE_ROWS) {
                if !row(t, c) {
                    return;
                }
            }
            let more = self.changed.len().saturating_sub(TABLE_ROWS) + self.changed_more;
            if more > 0 {
                t.line(format_args!("| … | {more} more (see the JSON form) | | | | |"));
            }
            t.line(format_args!(""));
            t.line(format_args!("</details>"));
            t.line(format_args!(""));
            graph(self, t);
        }
        t.line(format_args!("<sub>{}; callers walked {} hops back.</sub>", self.freshness, self.depth));
    }
}

fn row(t: &mut Text, c: &Changed) -> bool {
    let name = match &c.old_key {
        Some(old) => format!("`{old}` → `{}`", c.key),
        None => format!("`{}`", c.key),
    };
    let public = if c.public && c.label != "Module" { " (public)" } else { "" };
    let place = match (&c.old_file, c.old_line) {
        (Some(of), Some(ol)) if *of != c.file => format!("{of}:{ol} → {}:{}", c.file, c.line),
        _ => format!("{}:{}", c.file, c.line),
    };
    let (production, tests, unresolved) = match c.impact {
        Some(i) => (
            i.production.to_string(),
            if c.tests_total == 0 { "**0**".to_owned() } else { c.tests_total.to_string() },
            if i.complete { i.unresolved.to_string() } else { format!("{} (lower bound)", i.unresolved) },
        ),
        None if c.change == ChangeKind::Removed => ("–".into(), "–".into(), "–".into()),
        None => ("not walked".into(), "–".into(), "–".into()),
    };
    t.line(format_args!(
        "| {} | {} {name}{public} | {place} | {production} | {tests} | {unresolved} |",
        c.change.as_str(),
        c.label.to_lowercase()
    ))
}

/// Changed definitions (not modules) and the test files reaching them, within [`GRAPH_NODES`].
fn graph(r: &ReportOutput, t: &mut Text) {
    let defs: Vec<&Changed> = r.changed.iter().filter(|c| c.label != "Module").collect();
    if defs.is_empty() {
        return;
    }
    let mut shown: Vec<&Changed> = Vec::new();
    let mut files: BTreeMap<&str, usize> = BTreeMap::new();
    let mut edges: BTreeSet<(usize, usize)> = BTreeSet::new();
    let (mut left_defs, mut left_files) = (0, BTreeSet::new());
    for c in &defs {
        if shown.len() + files.len() + 1 > GRAPH_NODES {
            left_defs += 1;
            left_files.extend(c.tests.iter().map(|t| t.file.as_str()).filter(|f| !files.contains_key(f)));
            continue;
        }
        let d = shown.len();
        shown.push(c);
        for f in c.tests.iter().map(|t| t.file.as_str()) {
            if !files.contains_key(f) && shown.len() + files.len() >= GRAPH_NODES {
                left_files.insert(f);
                continue;
            }
            let next = files.len();
            let id = *files.entry(f).or_insert(next);
            edges.insert((id, d));
        }
    }
    left_files.retain(|f| !files.contains_key(f));
    t.line(format_args!("<details><summary>Graph</summary>"));
    t.line(format_args!(""));
    t.line(format_args!("```mermaid"));
    t.line(format_args!("graph LR"));
    for (i, c) in shown.iter().enumerate() {
        let style = match c.change {
            ChangeKind::Added => ":::added",
            ChangeKind::Removed => ":::removed",
            _ => "",
        };
        t.line(format_args!("  c{i}[\"{} {}\"]{style}", c.change.as_str(), mermaid_text(short_key(&c.key))));
    }
    for (file, i) in &files {
        t.line(format_args!("  t{i}([\"{}\"])", mermaid_text(file)));
    }
    for (f, d) in &edges {
        t.line(format_args!("  t{f} --> c{d}"));
    }
    t.line(format_args!("  classDef added fill:#dfd"));
    t.line(format_args!("  classDef removed fill:#fdd"));
    t.line(format_args!("```"));
    if left_defs > 0 || !left_files.is_empty() {
        t.line(format_args!(
            "Left out of the graph: {left_defs} changed definitions and {} test files (the table lists them).",
            left_files.len()
        ));
    }
    t.line(format_args!(""));
    t.line(format_args!("</details>"));
    t.line(format_args!(""));
}

/// The last two segments of a key.
fn short_key(key: &str) -> &str {
    let mut cut = key.len();
    let mut seen = 0;
    for (i, c) in key.char_indices().rev() {
        if c == '.' || (c == ':' && key[..i].ends_with(':')) {
            seen += 1;
            if seen == 2 {
                cut = i + 1;
                break;
            }
        }
    }
    if seen < 2 { key } else { &key[cut..] }
}

/// Text safe inside a quoted Mermaid label.
fn mermaid_text(s: &str) -> String {
    s.replace('"', "#quot;").replace('<', "#lt;").replace('>', "#gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_labels_keep_the_last_two_segments() {
        assert_eq!(short_key("app.models.User.save"), "User.save");
        assert_eq!(short_key("drsg::store::Store::open"), "Store::open");
        assert_eq!(short_key("main"), "main");
    }
}
