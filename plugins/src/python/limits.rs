//! Keeping tree-sitter's query cursor linear on pathological trees.
//!
//! Two shapes make the 0.27 query cursor quadratic: nesting deeper than its 16-bit match depths
//! (states started below 65,535 levels are never retired, and matches get lost), and very wide ERROR nodes
//! (for every child it scans the later siblings for a named one, so a long run of unclosed brackets costs
//! n² steps). The first is bounded with `QueryCursor::set_max_start_depth` and reported as a diagnostic;
//! the second by leaving wide ERROR nodes out of the queried byte ranges and querying each of their
//! non-leaf children as a root of its own (so the complete definitions inside them are still found).

use std::ops::Range;

use drsg_parsers::Diagnostic;
use tree_sitter::Node;

use super::syntax::line;

/// No match starts deeper than this: what lies below is not extracted.
pub(super) const MAX_QUERY_DEPTH: u32 = 60_000;

/// ERROR nodes with more direct children than this are not queried as one node.
const MAX_ERROR_CHILDREN: u32 = 10_000;

/// One run of the query: a root node and the byte ranges of it to search.
pub(super) struct Job<'t> {
    pub(super) root: Node<'t>,
    pub(super) ranges: Vec<Range<usize>>,
}

/// The query runs and what could not be extracted.
pub(super) struct Plan<'t> {
    pub(super) jobs: Vec<Job<'t>>,
    pub(super) diagnostics: Vec<Diagnostic>,
}

impl Plan<'_> {
    /// Whether a match can be found twice (on a node spanning two ranges).
    pub(super) fn overlaps(&self) -> bool {
        self.jobs.len() > 1 || self.jobs.iter().any(|job| job.ranges.len() > 1)
    }
}

pub(super) fn plan(root: Node<'_>, source_len: usize) -> Plan<'_> {
    let mut jobs = Vec::new();
    let mut work = vec![root];
    while let Some(node) = work.pop() {
        if is_wide_error(node) {
            let mut cursor = node.walk();
            work.extend(node.children(&mut cursor).filter(|child| child.child_count() > 0));
            continue;
        }
        let wide = wide_errors_inside(node);
        let mut ranges = Vec::with_capacity(wide.len() + 1);
        let mut start = node.start_byte();
        for error in &wide {
            ranges.push(start..error.start_byte());
            start = error.end_byte();
        }
        ranges.push(start..node.end_byte().max(start));
        // An empty range would be read by tree-sitter as "everything" (an end of 0 means no end).
        ranges.retain(|range| !range.is_empty());
        if !ranges.is_empty() {
            jobs.push(Job { root: node, ranges });
        }
        work.extend(wide);
    }
    let mut diagnostics = Vec::new();
    // A tree cannot be deeper than its source is long, so short files need no walk.
    if source_len > MAX_QUERY_DEPTH as usize
        && let Some(deep) = drsg_parsers::text::node_at_depth(root, MAX_QUERY_DEPTH + 1)
    {
        diagnostics.push(Diagnostic {
            line: line(deep),
            message: format!("nesting deeper than {MAX_QUERY_DEPTH} levels: what lies deeper was not extracted"),
        });
    }
    Plan { jobs, diagnostics }
}

fn is_wide_error(node: Node<'_>) -> bool {
    node.is_error() && node.child_count() > MAX_ERROR_CHILDREN
}

/// The outermost wide ERROR nodes below `node`, in source order.
fn wide_errors_inside(node: Node<'_>) -> Vec<Node<'_>> {
    let mut found = Vec::new();
    if !node.has_error() {
        return found;
    }
    let mut cursor = node.walk();
    if !cursor.goto_first_child() {
        return found;
    }
    loop {
        let current = cursor.node();
        let wide = is_wide_error(current);
        if wide {
            found.push(current);
        }
        // Only subtrees holding an error can hold a wide one.
        if !wide && current.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            // The cursor is rooted at `node`: reaching it again ends the walk.
            if !cursor.goto_parent() || cursor.node() == node {
                return found;
            }
        }
    }
}
