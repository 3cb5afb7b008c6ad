//! Running a query only where its patterns can start.
//!
//! Tree-sitter's query cursor, run over a whole tree, does its bookkeeping at every node: on Django's
//! Python files a query that matches only the root costs more than twice a plain [`TreeCursor`] walk of
//! the same trees (0.88–1.02 s against 0.40–0.42 s on one thread). A query whose every pattern has one
//! named node kind at its root can instead be started at each node of those kinds, with no deeper start:
//! the same matches (the patterns' own child steps still reach down), for 0.56–0.64 s instead of
//! 0.96–1.07 s on those files with the Python plugin's query.
//!
//! A pattern that is a single node (`(call) @ref.call`, or an alternation of such nodes) needs no cursor at
//! all: the walk itself is at the node, so [`Rooted`] disables such patterns in the compiled query and hands
//! their matches over directly. Starting the cursor costs a few hundred instructions even when the match is
//! immediate, and most starts in real code are calls and assignments, which the plugins capture whole.
//!
//! Each node's children are listed in one pass by `children` (anonymous leaves left out). The walk finds the
//! same matches as a query cursor over every node, for less than the cursor's bookkeeping, and has no depth
//! limit of its own (a whole-tree cursor's states count depth in 16 bits). `Rooted::new` requires every
//! pattern to have one named root kind or an alternation of them, refusing wildcard, anonymous and sibling
//! roots; each plugin checks its query when it first compiles it, and a pattern that needs a wildcard root
//! is spelled out per kind, as the Rust bounds patterns are.
//!
//! Since the cursor starts only where a pattern with children, fields or anchors does, the commonest nodes
//! (calls, assignments, argument lists, expression statements) are captured whole and their fields read in
//! code. The same goes for patterns that would only reach into a node's fields, each of which starts the
//! cursor at every node of its root kind: Rust functions' parameters, types and bounds, impls' and traits'
//! members, TypeScript declarations' names and import statements, and Python's import statements are read
//! off single-node matches (the Python query has no other kind).
//!
//! The walk does not go below a node of a kind its plugin seals (`Rooted::sealing`: comments, string
//! literals and Rust's macro token trees; Python strings unless they are f-strings; never a node holding a
//! syntax error): nothing below such a node can start a pattern that matters, and on tokio more than a third
//! of the nodes lie below them. The walk hands each match its start node's parent, grandparent and
//! great-grandparent and the named sibling before it (`Start`), with which a plugin reads a fact that would
//! otherwise need a pattern rooted at the parent (whose match state stays alive across every sibling) or
//! `Node::parent` (which searches down from the root). The Python plugin reads statement-level variables and
//! PEP 257 attribute docs this way; the TypeScript plugin tells a class's or an interface's methods and
//! properties from an object literal's or a type literal's, and module-level variable declarations from
//! local ones.
//!
//! [`TreeCursor`]: tree_sitter::TreeCursor

use drsg_parsers::children::KindSet;
use drsg_parsers::patterns::{kind_name, pattern_roots};
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCapture, QueryCursor};

/// A query compiled for the walk of [`for_each_match`]: which patterns start at each node kind, the
/// single-node ones matched directly by kind and disabled in the query, the others left to its cursor.
pub(crate) struct Rooted {
    pub(crate) query: Query,
    /// By node kind id.
    starts: Vec<Starts>,
    /// Whether a node of a sealed kind is walked below all the same.
    unseal: fn(Node<'_>, &[u8]) -> bool,
    /// The named kinds that may lie below a sealed node, where the walk does not go (see
    /// [`Rooted::sealing`]).
    inside_sealed: Vec<u16>,
}

/// The patterns that start at one node kind, and whether the walk stops there.
#[derive(Clone, Default)]
struct Starts {
    /// Single-node patterns, as (pattern index, capture index), in pattern order.
    direct: Vec<(usize, u32)>,
    /// Whether some other pattern starts here, so the query cursor must run.
    cursor: bool,
    /// Whether the walk visits nodes of the kind but not below them (see [`Rooted::sealing`]).
    sealed: bool,
}

impl Rooted {
    /// Compiles `text` for `language`. `None` when a pattern can start elsewhere than at named node kinds: at
    /// any node (`(_ …)`), at an anonymous node, or at two sibling roots (`((a) . (b))`); such a query must
    /// run over the whole tree. Panics when `text` is not a valid query, which a plugin's tests catch.
    pub(crate) fn new(language: &tree_sitter::Language, text: &str) -> Option<Rooted> {
        let mut query = Query::new(language, text).expect("a plugin's queries compile against its grammar");
        let mut starts = vec![Starts::default(); language.node_kind_count()];
        for pattern in 0..query.pattern_count() {
            if !query.is_pattern_rooted(pattern) {
                return None;
            }
            let source = text.get(query.start_byte_for_pattern(pattern)..query.end_byte_for_pattern(pattern))?;
            let direct = single_node(source).and_then(|name| query.capture_index_for_name(name));
            for name in pattern_roots(source)? {
                let id = language.id_for_node_kind(name, true);
                // 0 is no kind at all; `_` and misspellings end here.
                if id == 0 {
                    return None;
                }
                let at = starts.get_mut(usize::from(id))?;
                match direct {
                    Some(capture) => at.direct.push((pattern, capture)),
                    None => at.cursor = true,
                }
            }
            if direct.is_some() {
                query.disable_pattern(pattern);
            }
        }
        Some(Rooted { query, starts, unseal: |_, _| false, inside_sealed: Vec::new() })
    }

    /// Seals node kinds: the walk visits a node of one of `kinds` (matches starting at it are found) but not
    /// the nodes below it, unless the node holds a syntax error or `unseal` says it may hold more (a Python
    /// f-string's expressions).
    ///
    /// A kind may be sealed when nothing below it matters to the plugin: string literals, comments, Rust's
    /// macro token trees. Their contents are a large share of a tree (on tokio, 17 % of the nodes lie below
    /// comments and 20 % below token trees) that the walk would otherwise step through node by node.
    /// A node never ends with a comment (tree-sitter moves trailing extras out to its parent), so a comment
    /// inside a sealed node is never the last thing before an item outside it. Panics when a name is not a
    /// named node kind of `language`, which a plugin's tests catch.
    ///
    /// `inside` names the named kinds that may lie below those nodes (the extras too, which might), for
    /// [`Rooted::may_pass_by`]; a name the grammar lacks is left out (one list serves TypeScript and TSX).
    pub(crate) fn sealing(
        mut self,
        language: &tree_sitter::Language,
        kinds: &[&str],
        inside: &[&str],
        unseal: fn(Node<'_>, &[u8]) -> bool,
    ) -> Rooted {
        for kind in kinds {
            let id = language.id_for_node_kind(kind, true);
            assert!(id != 0, "`{kind}` is a named node kind");
            self.starts[usize::from(id)].sealed = true;
        }
        self.inside_sealed = inside.iter().map(|k| language.id_for_node_kind(k, true)).filter(|&id| id != 0).collect();
        self.unseal = unseal;
        self
    }

    /// Whether the walk may pass by a node of one of `kinds` without visiting it: one below a sealed node.
    pub(crate) fn may_pass_by(&self, kinds: &KindSet) -> bool {
        self.inside_sealed.iter().any(|&k| kinds.contains(k))
    }

    /// Whether nodes of `kind` may lie below a sealed node.
    #[cfg(test)]
    pub(crate) fn inside_sealed(&self, kind: u16) -> bool {
        self.inside_sealed.contains(&kind)
    }

    /// Whether the walk stays above the children of `node`, whose kind's entry is `at`.
    fn seals(&self, at: Option<&Starts>, node: Node<'_>, source: &[u8]) -> bool {
        at.is_some_and(|at| at.sealed) && !node.has_error() && !(self.unseal)(node, source)
    }
}

/// The capture name of a pattern that is one node and nothing else: `(kind) @name`, or
/// `[(a) (b)] @name` (alternatives of bare kinds); `None` for anything with children, fields, anchors,
/// predicates, quantifiers or a second capture.
fn single_node(source: &str) -> Option<&str> {
    let bare = |text: &str| -> Option<usize> {
        // `(kind)` at the start of `text`: the length it takes.
        let inner = text.strip_prefix('(')?;
        let name = kind_name(inner)?;
        let after = inner.trim_start();
        let rest = after[name.len()..].trim_start();
        rest.starts_with(')').then(|| text.len() - rest.len() + 1)
    };
    let source = source.trim();
    let mut rest = match source.strip_prefix('[') {
        Some(mut list) => {
            let mut alternatives = 0;
            loop {
                list = list.trim_start();
                if let Some(after) = list.strip_prefix(']') {
                    break (alternatives > 0).then_some(after)?;
                }
                list = &list[bare(list)?..];
                alternatives += 1;
            }
        }
        None => &source[bare(source)?..],
    };
    rest = rest.trim_start().strip_prefix('@')?;
    let valid = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '-');
    let (name, tail) = rest.split_at(rest.find(|c: char| !valid(c)).unwrap_or(rest.len()));
    // A pattern's text runs on to the next pattern: over whitespace and `;` comment lines.
    let only_comments = tail.lines().all(|line| line.trim().is_empty() || line.trim_start().starts_with(';'));
    (!name.is_empty() && only_comments).then_some(name)
}

/// One match: its pattern and its captures.
pub(crate) struct Match<'m, 't> {
    #[cfg_attr(not(test), expect(dead_code, reason = "the plugins read captures alone; the tests compare patterns"))]
    pub(crate) pattern: usize,
    pub(crate) captures: &'m [QueryCapture<'t>],
}

/// Where the pattern of a match started: the start node's parent, grandparent and great-grandparent, and
/// the named sibling right before it, each `None` above the walk's root. "Right before" counts siblings as a
/// query's `.` anchor does: anonymous nodes are passed over, named ones (comments too) are not. A plugin
/// reads these instead of asking the node (`Node::parent` and the sibling calls search down from the tree's
/// root, quadratic on wide trees), and instead of a pattern rooted at an ancestor, which costs compile time
/// and keeps a match state alive across every sibling.
#[derive(Clone, Copy)]
pub(crate) struct Start<'t> {
    pub(crate) parent: Option<Node<'t>>,
    /// The grandparent and the great-grandparent.
    pub(crate) above: [Option<Node<'t>>; 2],
    pub(crate) prev_named: Option<Node<'t>>,
}

/// Calls `each` with every match of `rooted`'s query in `root`'s subtree whose pattern starts at a node no
/// deeper than `max_depth` below `root` and not below a sealed node (see [`Rooted::sealing`]), with where the
/// match started; subtrees for which `skip` is true are left out (their root included). Matches come in
/// pre-order of the nodes they start at; at one node, the single-node patterns' matches come first. Returns
/// true when a start exceeded the cursor's match limit (some matches may then be missing).
pub(crate) fn for_each_match<'t>(
    rooted: &Rooted,
    root: Node<'t>,
    source: &[u8],
    max_depth: u32,
    skip: impl Fn(Node<'t>) -> bool,
    each: impl FnMut(Match<'_, 't>, Start<'t>),
) -> bool {
    for_each_match_tapped(rooted, root, source, max_depth, skip, None, each)
}

/// Nodes of some kinds the walk of [`for_each_match_tapped`] appends to a vector as it passes them.
pub(crate) type Tap<'a, 't> = Option<(&'a KindSet, &'a mut Vec<Node<'t>>)>;

/// [`for_each_match`], also appending to `tap`'s vector every node of its kinds that the walk passes, in
/// pre-order: the nodes of the subtree but those below a sealed node, a skipped one, or `max_depth`.
pub(crate) fn for_each_match_tapped<'t>(
    rooted: &Rooted,
    root: Node<'t>,
    source: &[u8],
    max_depth: u32,
    skip: impl Fn(Node<'t>) -> bool,
    mut tap: Tap<'_, 't>,
    mut each: impl FnMut(Match<'_, 't>, Start<'t>),
) -> bool {
    let mut cursor = QueryCursor::new();
    cursor.set_max_start_depth(Some(0));
    let mut exceeded = false;
    // The matches starting at `node`; true when the walk goes below it.
    let mut visit = |node: Node<'t>, start: Start<'t>, depth: u32| {
        let kind = node.kind_id();
        if let Some((kinds, tapped)) = &mut tap
            && kinds.contains(kind)
        {
            tapped.push(node);
        }
        let at = rooted.starts.get(usize::from(kind));
        if let Some(starts) = at {
            for &(pattern, index) in &starts.direct {
                each(Match { pattern, captures: &[QueryCapture { node, index }] }, start);
            }
            if starts.cursor {
                let mut matches = cursor.matches(&rooted.query, node, source);
                while let Some(m) = matches.next() {
                    each(Match { pattern: m.pattern_index, captures: m.captures() }, start);
                }
                exceeded |= cursor.did_exceed_match_limit();
            }
        }
        depth < max_depth && !rooted.seals(at, node, source)
    };
    // The nodes whose children are being walked, from `root` down: the current node's ancestors.
    let mut open = Open::default();
    if visit(root, Start { parent: None, above: [None; 2], prev_named: None }, 0) {
        open.push(root);
    }
    while let Some(parent) = open.frames.last_mut() {
        let Some(&node) = open.listed.get(parent.next) else {
            open.listed.truncate(parent.first);
            open.frames.pop();
            continue;
        };
        parent.next += 1;
        let prev_named = parent.prev_named;
        if node.is_named() {
            parent.prev_named = Some(node);
        }
        if skip(node) {
            continue;
        }
        let ancestor = |up: usize| open.frames.len().checked_sub(up).map(|i| open.frames[i].node);
        let start = Start { parent: ancestor(1), above: [ancestor(2), ancestor(3)], prev_named };
        // `open` holds one frame per level from `root` to the parent: their number is the node's depth.
        if visit(node, start, open.frames.len() as u32) {
            open.push(node);
        }
    }
    exceeded
}

/// The nodes whose children are being walked, each one's children listed at once (anonymous leaves left
/// out: no pattern of a [`Rooted`] query starts at an anonymous node, and a leaf has nothing below it).
#[derive(Default)]
struct Open<'t> {
    frames: Vec<Frame<'t>>,
    /// The listed children of every open node, each node's after its parent's: the innermost frame's
    /// children end the vector.
    listed: Vec<Node<'t>>,
}

/// One open node.
struct Frame<'t> {
    node: Node<'t>,
    /// Where the node's children start in [`Open::listed`], and the next one to hand out.
    first: usize,
    next: usize,
    /// The last named child handed out.
    prev_named: Option<Node<'t>>,
}

impl<'t> Open<'t> {
    /// Opens `node`, unless nothing is listed below it.
    fn push(&mut self, node: Node<'t>) {
        let first = self.listed.len();
        drsg_parsers::children::push_children(node, &mut self.listed);
        if self.listed.len() > first {
            self.frames.push(Frame { node, first, next: first, prev_named: None });
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn a_single_node_pattern_is_one_bare_kind_or_alternatives_of_them_with_one_capture() {
        assert_eq!(single_node("(call) @ref.call"), Some("ref.call"));
        assert_eq!(single_node("  ( call )\n  @c  "), Some("c"));
        assert_eq!(single_node("[(a) (b_c)] @x-y"), Some("x-y"));
        // Tree-sitter's pattern text runs on over the comments before the next pattern.
        assert_eq!(single_node("(call) @c\n\n; The next pattern's comment.\n  ; another\n"), Some("c"));
        for text in [
            "(call)",
            "(call) @a @b",
            "(call) @a ; comment\n @b",
            "(call function: (_)) @c",
            "(call (identifier)) @c",
            "(call !arguments) @c",
            "(call)+ @c",
            "(call)? @c",
            "((call) @c (#eq? @c \"x\"))",
            "[(a) @x (b)] @c",
            "[] @c",
            "(_) @c",
            "\"if\" @c",
        ] {
            assert_eq!(single_node(text), None, "{text}");
        }
    }

    /// Asserts that the query `text` for `language` starts each of `kinds` without the cursor.
    pub(crate) fn assert_matched_without_the_cursor(language: &tree_sitter::Language, text: &str, kinds: &[&str]) {
        let rooted = Rooted::new(language, text).expect("rooted");
        for kind in kinds {
            let starts = &rooted.starts[usize::from(language.id_for_node_kind(kind, true))];
            assert!(!starts.direct.is_empty() && !starts.cursor, "{kind}: direct {:?}", starts.direct);
        }
    }

    #[test]
    fn the_walk_stops_at_a_sealed_node_unless_it_is_unsealed() {
        let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        let text = "(call) @c\n(string) @s\n(string_content) @t";
        let source = "a(\"x\")\nb(f\"{c()} y\")\n";
        let texts = |rooted: &Rooted, tree: &tree_sitter::Tree| {
            let mut found = Vec::new();
            for_each_match(
                rooted,
                tree.root_node(),
                source.as_bytes(),
                u32::MAX,
                |_| false,
                |m, _| {
                    let node = m.captures[0].node;
                    found.push(format!("{} {}", node.kind(), &source[node.byte_range()]));
                },
            );
            found
        };
        let (open, tree) = rooted_query(&language, text, source);
        let all = texts(&open, &tree);
        assert_eq!(all.iter().filter(|t| t.starts_with("string_content")).count(), 2, "{all:?}");
        // Sealed strings are matched themselves, but nothing below them is; f-strings are walked.
        let sealed = open.sealing(&language, &["string"], &[], |node, source| source[node.start_byte()] == b'f');
        let found = texts(&sealed, &tree);
        let kept: Vec<&String> = all.iter().filter(|t| *t != "string_content x").collect();
        assert_eq!(found.iter().collect::<Vec<_>>(), kept);
        assert!(found.contains(&"call c()".to_owned()) && found.contains(&"string \"x\"".to_owned()), "{found:?}");
    }

    #[test]
    #[should_panic(expected = "is a named node kind")]
    fn sealing_a_kind_the_grammar_lacks_is_refused() {
        let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        let _ = Rooted::new(&language, "(call) @c").expect("rooted").sealing(&language, &["strnig"], &[], |_, _| false);
    }

    #[test]
    fn a_query_with_a_wildcard_or_sibling_roots_must_run_over_the_whole_tree() {
        let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        for text in ["(call) @c\n(_ (block)) @w", "(call) @c\n((expression_statement) . (expression_statement))"] {
            assert!(Rooted::new(&language, text).is_none(), "{text}");
        }
        let text = "(call) @c\n[(block) (module)] @b";
        let starts = Rooted::new(&language, text).expect("rooted").starts;
        let marked: BTreeSet<&str> = (0..starts.len())
            .filter(|&id| !starts[id].direct.is_empty() || starts[id].cursor)
            .filter_map(|id| language.node_kind_for_id(id as u16))
            .collect();
        assert_eq!(marked, BTreeSet::from(["block", "call", "module"]));
    }

    /// Every match as (pattern, captured node ids and capture indexes), sorted (duplicates kept).
    type Found = Vec<(usize, Vec<(usize, u32)>)>;

    fn found(pattern: usize, captures: &[QueryCapture<'_>]) -> (usize, Vec<(usize, u32)>) {
        (pattern, captures.iter().map(|c| (c.node.id(), c.index)).collect())
    }

    /// The query `text` for `language` compiled for the walk (it must be rooted), and `source` parsed.
    fn rooted_query(language: &tree_sitter::Language, text: &str, source: &str) -> (Rooted, tree_sitter::Tree) {
        let rooted = Rooted::new(language, text).expect("rooted");
        (rooted, crate::testing::parse(language, source))
    }

    /// Asserts that the query `text` is rooted and that, started at its root kinds, it finds in `source`
    /// what a whole-tree cursor finds, and that the sample is worth it (more than `at_least` matches).
    pub(crate) fn assert_same_matches(language: &tree_sitter::Language, text: &str, source: &str, at_least: usize) {
        let (compiled, tree) = &rooted_query(language, text, source);
        // The whole query, none of its patterns disabled, over the whole tree.
        let query = Query::new(language, text).expect("valid query");
        let mut whole = Found::new();
        let mut cursor = QueryCursor::new();
        let mut matches = cursor.matches(&query, tree.root_node(), source.as_bytes());
        while let Some(m) = matches.next() {
            whole.push(found(m.pattern_index, m.captures()));
        }
        let mut rooted = Found::new();
        let mut direct = 0;
        for_each_match(
            compiled,
            tree.root_node(),
            source.as_bytes(),
            u32::MAX,
            |_| false,
            |m, _| {
                rooted.push(found(m.pattern, m.captures));
                let q = &compiled.query;
                direct += usize::from(
                    single_node(&text[q.start_byte_for_pattern(m.pattern)..q.end_byte_for_pattern(m.pattern)])
                        .is_some(),
                );
            },
        );
        assert!(whole.len() > at_least, "the sample exercises the query: {} matches", whole.len());
        // Both kinds of pattern match, unless every pattern of the query is a single node (Python's).
        let all_single = (0..compiled.query.pattern_count()).all(|p| {
            let q = &compiled.query;
            single_node(&text[q.start_byte_for_pattern(p)..q.end_byte_for_pattern(p)]).is_some()
        });
        assert!(direct > 0, "single-node patterns match");
        assert!(all_single || direct < rooted.len(), "both kinds of pattern match: {direct} of {}", rooted.len());
        whole.sort();
        rooted.sort();
        assert_eq!(rooted, whole);
    }

    #[test]
    fn a_start_names_the_parent_and_the_named_sibling_before_it() {
        let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        let text = "(expression_statement) @s\n(call) @c\n(comment) @k\n(block) @b";
        let source = "a = 1; b(2)\n# note\nc()\nif x:\n    d(e(f()))\n    # inner\n    g = 3\n    \"doc\"\nh()\n";
        let (rooted, tree) = rooted_query(&language, text, source);
        let root = tree.root_node();
        let mut seen = 0;
        let mut with_sibling = 0;
        for_each_match(
            &rooted,
            root,
            source.as_bytes(),
            u32::MAX,
            |_| false,
            |m, start| {
                let node = m.captures[0].node;
                // Tree-sitter's own (slow) answers.
                assert_eq!(start.parent, node.parent(), "{node:?}");
                assert_eq!(start.prev_named, node.prev_named_sibling(), "{node:?}");
                seen += 1;
                with_sibling += usize::from(start.prev_named.is_some());
            },
        );
        assert!(
            seen >= 14 && with_sibling >= 6,
            "the sample exercises the walk: {seen} matches, {with_sibling} with a sibling"
        );

        // Started below the tree's root, the walk's root has neither.
        let mut cursor = root.walk();
        let if_statement = root.named_children(&mut cursor).find(|n| n.kind() == "if_statement");
        let block = if_statement.and_then(|s| s.child_by_field_name("consequence")).expect("the if's block");
        let mut starts = Vec::new();
        for_each_match(
            &rooted,
            block,
            source.as_bytes(),
            u32::MAX,
            |_| false,
            |m, start| {
                starts.push((m.captures[0].node, start.parent, start.prev_named));
            },
        );
        assert_eq!(starts.first(), Some(&(block, None, None)));
    }

    #[test]
    fn skipped_subtrees_and_depth_bound_where_the_query_starts() {
        let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        let text = "(call) @c";
        let source = "a()\nif x:\n    b()\n";
        let (rooted, tree) = rooted_query(&language, text, source);
        let calls = |max_depth: u32, skip: &dyn Fn(Node<'_>) -> bool| {
            let mut names = Vec::new();
            for_each_match(&rooted, tree.root_node(), source.as_bytes(), max_depth, skip, |m, _| {
                names.push(m.captures[0].node.utf8_text(source.as_bytes()).expect("utf-8").to_owned());
            });
            names
        };
        assert_eq!(calls(u32::MAX, &|_| false), ["a()", "b()"]);
        // module → expression_statement → call is depth 2; the `if` body's call lies deeper.
        assert_eq!(calls(2, &|_| false), ["a()"]);
        assert_eq!(calls(u32::MAX, &|n| n.kind() == "if_statement"), ["a()"]);
    }
}
