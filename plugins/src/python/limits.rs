//! Keeping the query runs linear on pathological trees.
//!
//! Two shapes make the 0.27 query cursor quadratic: nesting deeper than its 16-bit match depths
//! (states started below 65,535 levels are never retired, and matches get lost), and very wide ERROR nodes
//! (for every child it scans the later siblings for a named one, so a long run of unclosed brackets costs
//! n² steps). No match starts deeper than [`MAX_QUERY_DEPTH`], which is reported as a diagnostic; wide
//! ERROR nodes are left out of the walk that starts the query, and each of their non-leaf children is
//! walked as a root of its own (so the complete definitions inside them are still found).

use drsg_parsers::Diagnostic;
use tree_sitter::Node;

use super::syntax::line;

/// No match starts deeper than this: what lies below is not extracted.
pub(super) const MAX_QUERY_DEPTH: u32 = 60_000;

/// ERROR nodes with more direct children than this are not queried as one node.
const MAX_ERROR_CHILDREN: u32 = 10_000;

/// One run of the query: a node whose subtree is walked, less the wide ERROR nodes inside it (each of
/// which gives runs of its own).
pub(super) struct Job<'t> {
    pub(super) root: Node<'t>,
}

/// The query runs and what could not be extracted.
pub(super) struct Plan<'t> {
    pub(super) jobs: Vec<Job<'t>>,
    pub(super) diagnostics: Vec<Diagnostic>,
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
        jobs.push(Job { root: node });
        work.extend(wide_errors_inside(node));
    }
    let mut diagnostics = Vec::new();
    // A tree cannot be deeper than its source is long, so short files need no walk.
    if source_len > MAX_QUERY_DEPTH as usize
        && let Some(deep) = drsg_parsers::text::node_at_depth(root, MAX_QUERY_DEPTH + 1)
    {
        diagnostics.push(Diagnostic {
            line: line(deep),
            message: format!("nesting deeper than {MAX_QUERY_DEPTH} levels: what lies deeper was not extracted"),
            cut: true,
        });
    }
    Plan { jobs, diagnostics }
}

/// Whether `node` is an ERROR node too wide to walk into (see the module comment).
pub(super) fn is_wide_error(node: Node<'_>) -> bool {
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
