//! Tree-sitter query patterns matched by drsg itself over tree-sitter's trees, with no compilation.
//!
//! `tree_sitter::Query::new` analyses every pattern step that has children against each parse state
//! its node kind can occur in: 2 to 37 ms a query on the TypeScript grammars, paid again by every
//! process, and most of what the declarative plugins cost an index of a small tree. Reading the same
//! text here takes microseconds, and matching from the nodes a pattern starts at is a walk over their
//! children (listed with their fields in one pass, `children::push_children_with_fields`). The subset
//! followed: named and anonymous node kinds, wildcards, fields and negated fields, anchors, alternations,
//! optional nodes, a top-level group of siblings, captures, and the `eq?`, `any-of?` and `match?`
//! predicates with their `not-` forms. Any other query is [`Unsupported`] and runs on tree-sitter's engine.
//!
//! The matches are tree-sitter's: every way the child patterns can take children in order, a match
//! whose captures another match of the same pattern at the same node holds too left out (tree-sitter
//! drops such a state while matching), then the predicates checked. Most start nodes match nothing, so
//! what can be tested early is: a start node must hold one of the texts a predicate wants of a capture
//! every match binds (`register_blueprint`) before its children are listed (each set of texts searched
//! once per node, however many patterns want it), and so must the child the capture lies under (a decorated
//! function's decorator, not its body); a predicate on a capture outside every optional node is checked as
//! soon as the capture is bound, and so is the caller's own test of one capture ([`Only`]). What matching
//! lists and binds lives in a [`Scratch`] the caller keeps from node to node, so a start node costs no
//! allocation.

mod read;

use std::cell::RefCell;
use std::num::NonZeroU16;

use memchr::memmem::Finder;
use regex_automata::meta::Regex;
use tree_sitter::{Language, Node};

use crate::children::push_children_with_fields;

/// Why a query is not one the matcher follows (a line of the query and what is there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

/// A query's patterns, read for one grammar.
pub struct Patterns {
    names: Vec<String>,
    patterns: Vec<Pattern>,
    /// A searcher for each distinct set of texts the patterns require ([`Pattern::required`]).
    sets: Vec<Searcher>,
    /// `(root kind, pattern)` sorted, when every pattern names its root's kinds ([`Patterns::roots`]).
    by_kind: Option<Vec<(u16, usize)>>,
}

/// One match: the pattern's index and its captures, in the order they were bound.
pub struct Match<'t> {
    pub pattern: usize,
    pub captures: Vec<(u32, Node<'t>)>,
}

struct Pattern {
    /// The pattern; a top-level group of siblings is a step matching any node, with the group as its
    /// child patterns.
    step: Step,
    group: bool,
    predicates: Vec<Predicate>,
    /// Texts of which the start node must hold one, per set: those a predicate wants of a capture every
    /// match binds (`(#eq? @_m "register_blueprint")`), tested before any child is listed.
    required: Vec<Required>,
    /// The captures a match binds exactly once, at one step outside every optional node and alternation
    /// (none when the root is an alternation): those an [`Only`] may test as they are bound.
    single: Vec<u32>,
}

/// A test of the caller's on one capture's node, checked as it is bound, in the patterns whose root's first
/// capture is `root` and that bind `capture` exactly once, outside every optional node and alternation
/// (`Pattern::single`): a match it fails is one the caller would drop (which names may be HTTP clients in
/// a file), left out before the rest of it is matched. In other patterns leaving a match out early could
/// change which of two matches is the fuller one, so the caller's own later check stands alone.
pub struct Only<'a> {
    pub root: u32,
    pub capture: u32,
    pub holds: &'a dyn Fn(Node<'_>, &[u8]) -> bool,
}

/// A set of texts of which a start node must hold one, and where.
struct Required {
    /// The texts (emptied once the searcher is made), and the index of their searcher in [`Patterns::sets`].
    texts: Vec<Vec<u8>>,
    set: usize,
    /// The root's child pattern under which the capture lies, when it does: then one of the start node's
    /// children that may match that pattern must hold a text, not just the node (a decorated function's
    /// decorators, not its body).
    under: Option<usize>,
}

/// What finds whether a text holds one of a set of texts: a searcher for each.
struct Searcher(Vec<Finder<'static>>);

impl Searcher {
    fn of(texts: &[Vec<u8>]) -> Searcher {
        Searcher(texts.iter().map(|t| Finder::new(t).into_owned()).collect())
    }

    fn is_in(&self, text: &[u8]) -> bool {
        self.0.iter().any(|finder| finder.find(text).is_some())
    }
}

/// What [`Pattern::required`] holds for a pattern: the literal sets of its `eq?` and `any-of?` predicates on
/// captures of steps every match takes (none optional, none in an alternation, on the way from the root).
fn required_texts(step: &Step, group: bool, predicates: &[Predicate]) -> Vec<Required> {
    /// The captures of `step` and below, each with the root's child pattern it lies under.
    fn mandatory(step: &Step, under: Option<usize>, out: &mut Vec<(u32, Option<usize>)>) {
        if step.optional {
            return;
        }
        out.extend(step.captures.iter().map(|&c| (c, under)));
        if matches!(step.kind, Kind::Alternatives(_)) {
            // The alternation's own captures are bound whichever alternative matches.
            return;
        }
        for (k, child) in step.children.iter().enumerate() {
            mandatory(child, under.or(Some(k)), out);
        }
    }
    let mut captures = Vec::new();
    mandatory(step, None, &mut captures);
    predicates
        .iter()
        .filter(|p| !p.negated)
        .filter_map(|p| {
            let Test::AnyOf(texts) = &p.test else { return None };
            let mut places = captures.iter().filter(|(c, _)| *c == p.capture).map(|&(_, under)| under);
            let first = places.next()?;
            // A capture bound in two places, or a group's, is looked for in the whole node.
            let under = first.filter(|_| !group && places.all(|u| u == first));
            Some(Required { texts: texts.clone(), set: 0, under })
        })
        .collect()
}

enum Kind {
    Named(u16),
    Anonymous(u16),
    /// `(_)`
    AnyNamed,
    /// `_`
    Any,
    Alternatives(Vec<Step>),
}

struct Step {
    kind: Kind,
    /// The field the node is its parent's child by.
    field: Option<NonZeroU16>,
    /// Fields the node must have no child by (`!type_parameters`).
    absent: Vec<NonZeroU16>,
    children: Vec<Step>,
    /// The node is the first named one after its previous sibling pattern's (or its parent's first).
    anchored: bool,
    /// The last child pattern's node is its parent's last named child.
    anchored_end: bool,
    optional: bool,
    captures: Vec<u32>,
}

impl Step {
    fn of(kind: Kind) -> Step {
        Step {
            kind,
            field: None,
            absent: Vec::new(),
            children: Vec::new(),
            anchored: false,
            anchored_end: false,
            optional: false,
            captures: Vec::new(),
        }
    }

    fn any_parent() -> Step {
        Step::of(Kind::Any)
    }
}

struct Predicate {
    capture: u32,
    test: Test,
    negated: bool,
    /// Checked as soon as the capture is bound: a text test on a capture outside every optional node. One
    /// on an optional node's capture is checked of the whole match, after a match whose captures another
    /// holds too is left out, as tree-sitter does (`(string)? @s (#eq? @s "x")` on another string: no match).
    eager: bool,
}

impl Predicate {
    /// Whether this text test (not a comparison of two captures) holds of a capture's text.
    fn holds_of(&self, text: &[u8]) -> bool {
        let holds = match &self.test {
            Test::AnyOf(texts) => texts.iter().any(|t| t == text),
            Test::Match(regex) => regex.is_match(text),
            Test::Same(_) => return true,
        };
        holds != self.negated
    }
}

/// Marks the predicates of a pattern whose root step is `step` that may be checked as soon as their capture
/// is bound; returns the captures bound once, at one step outside optional nodes and alternations
/// ([`Pattern::single`]).
fn mark_eager(step: &Step, predicates: &mut [Predicate]) -> Vec<u32> {
    fn optional_captures(step: &Step, under_optional: bool, out: &mut Vec<u32>) {
        let under = under_optional || step.optional;
        if under {
            out.extend(&step.captures);
        }
        let alternatives = match &step.kind {
            Kind::Alternatives(a) => a.as_slice(),
            _ => &[],
        };
        for child in step.children.iter().chain(alternatives) {
            optional_captures(child, under, out);
        }
    }
    let mut optional = Vec::new();
    optional_captures(step, false, &mut optional);
    for p in predicates {
        p.eager = !matches!(p.test, Test::Same(_)) && !optional.contains(&p.capture);
    }
    /// Every capture of `step` and below, with whether it lies in an alternation.
    fn all_captures(step: &Step, in_alternation: bool, out: &mut Vec<(u32, bool)>) {
        out.extend(step.captures.iter().map(|&c| (c, in_alternation)));
        for child in &step.children {
            all_captures(child, in_alternation, out);
        }
        if let Kind::Alternatives(alternatives) = &step.kind {
            for a in alternatives {
                all_captures(a, true, out);
            }
        }
    }
    if matches!(step.kind, Kind::Alternatives(_)) {
        return Vec::new();
    }
    let mut all = Vec::new();
    all_captures(step, false, &mut all);
    let once = |c: u32| all.iter().filter(|(d, _)| *d == c).count() == 1;
    all.iter().filter(|&&(c, inside)| !inside && !optional.contains(&c) && once(c)).map(|&(c, _)| c).collect()
}

enum Test {
    AnyOf(Vec<Vec<u8>>),
    Match(Regex),
    /// The text of another capture.
    Same(u32),
}

type Bindings<'t> = Vec<(u32, Node<'t>)>;

/// What matching at one node lists and binds, kept by the caller from node to node: the children of the
/// nodes listed so far with the field each is in (the patterns of a query mostly start alike, and list the
/// same nodes' children), as ranges of two vectors, and the captures being bound.
#[derive(Default)]
pub struct Scratch<'t> {
    listed: RefCell<Listed<'t>>,
    bound: Bindings<'t>,
}

#[derive(Default)]
struct Listed<'t> {
    /// Per node listed: its id, and where its children start in `nodes` and `fields` and how many there are.
    of: Vec<(usize, u32, u32)>,
    nodes: Vec<Node<'t>>,
    fields: Vec<Option<NonZeroU16>>,
}

impl<'t> Listed<'t> {
    fn clear(&mut self) {
        self.of.clear();
        self.nodes.clear();
        self.fields.clear();
    }

    /// The `k`th of the children at `kids`, with its field.
    fn kid(&self, kids: Kids, k: usize) -> (Node<'t>, Option<NonZeroU16>) {
        let at = kids.0 as usize + k;
        (self.nodes[at], self.fields[at])
    }
}

/// Where a node's children are in a [`Listed`]: their start and count.
#[derive(Clone, Copy)]
struct Kids(u32, u32);

impl Patterns {
    /// The patterns of `text` for `grammar`, or why the matcher does not follow them.
    pub fn read(text: &str, grammar: &Language) -> Result<Patterns, Unsupported> {
        let mut reader = read::Reader::new(text, grammar);
        let mut patterns = Vec::new();
        while let Some(p) = reader.pattern()? {
            patterns.push(p);
        }
        // Each distinct set of required texts once, so a node is searched for it once.
        let mut sets: Vec<Vec<Vec<u8>>> = Vec::new();
        for required in patterns.iter_mut().flat_map(|p| p.required.iter_mut()) {
            let texts = std::mem::take(&mut required.texts);
            required.set = sets.iter().position(|s| *s == texts).unwrap_or_else(|| {
                sets.push(texts);
                sets.len() - 1
            });
        }
        let sets = sets.iter().map(|texts| Searcher::of(texts)).collect();
        let mut by_kind = Vec::new();
        let mut rooted = 0;
        for (index, p) in patterns.iter().enumerate() {
            match &p.step.kind {
                _ if p.group => break,
                Kind::Named(id) => by_kind.push((*id, index)),
                Kind::Alternatives(alternatives) => {
                    let mut ids: Vec<u16> = Vec::new();
                    for a in alternatives {
                        let Kind::Named(id) = a.kind else { break };
                        ids.push(id);
                    }
                    if ids.len() < alternatives.len() {
                        break;
                    }
                    ids.sort_unstable();
                    ids.dedup();
                    by_kind.extend(ids.into_iter().map(|id| (id, index)));
                }
                _ => break,
            }
            rooted += 1;
        }
        let by_kind = (rooted == patterns.len()).then(|| {
            by_kind.sort_unstable();
            by_kind
        });
        Ok(Patterns { names: reader.names, patterns, sets, by_kind })
    }

    pub fn capture_names(&self) -> &[String] {
        &self.names
    }

    pub fn pattern_count(&self) -> usize {
        self.patterns.len()
    }

    /// The kind ids every pattern starts at, sorted; `None` when some pattern may start at any node (a
    /// wildcard, an anonymous node, a group of siblings).
    pub fn roots(&self) -> Option<Vec<u16>> {
        let mut out: Vec<u16> = self.by_kind.as_ref()?.iter().map(|e| e.0).collect();
        out.dedup();
        Some(out)
    }

    /// The matches of the patterns that start at `node` (for a group: among its children), appended to
    /// `out` pattern by pattern, less those `only` fails; `scratch` is working room, reused from one call to
    /// the next.
    pub fn matches_at<'t>(
        &self,
        node: Node<'t>,
        source: &[u8],
        only: Option<&Only<'_>>,
        scratch: &mut Scratch<'t>,
        out: &mut Vec<Match<'t>>,
    ) {
        let mut text: Option<&[u8]> = None;
        // Per set below 64: whether the node was searched for it, and holds it.
        let (mut searched, mut held) = (0u64, 0u64);
        let mut holds = |at: usize, text: &[u8]| match 1u64.checked_shl(at as u32) {
            Some(bit) => {
                if searched & bit == 0 {
                    searched |= bit;
                    held |= bit * u64::from(self.sets[at].is_in(text));
                }
                held & bit != 0
            }
            None => self.sets[at].is_in(text),
        };
        let kind = node.kind_id();
        scratch.listed.get_mut().clear();
        // The patterns rooted at `kind`, in order: from the table, or each asked.
        let (rooted, each) = match &self.by_kind {
            Some(table) => {
                let from = table.partition_point(|e| e.0 < kind);
                let to = from + table[from..].iter().take_while(|e| e.0 == kind).count();
                (&table[from..to], 0)
            }
            None => (&[][..], self.patterns.len()),
        };
        let asked = (0..each).filter(|&i| self.patterns[i].step.may_start_at(kind));
        for index in rooted.iter().map(|e| e.1).chain(asked) {
            let pattern = &self.patterns[index];
            if !pattern.required.is_empty() {
                let text = *text.get_or_insert_with(|| &source[node.byte_range()]);
                if !pattern.required.iter().all(|r| holds(r.set, text)) {
                    continue;
                }
            }
            let only =
                only.filter(|o| pattern.step.captures.first() == Some(&o.root) && pattern.single.contains(&o.capture));
            let matcher = Matcher { source, listed: &scratch.listed, only };
            if !pattern.required.iter().all(|r| matcher.held_below(pattern, r, node, &self.sets[r.set])) {
                continue;
            }
            let mut found: Vec<Bindings<'t>> = Vec::new();
            let bound = &mut scratch.bound;
            bound.clear();
            matcher.node(pattern, &pattern.step, node, bound, &mut |b| found.push(b.clone()));
            if let [_] = found.as_slice() {
                let captures = found.pop().expect("one match");
                if matcher.holds_at_end(pattern, &captures) {
                    out.push(Match { pattern: index, captures });
                }
                continue;
            }
            let fuller = |i: usize, b: &Bindings<'t>| {
                found
                    .iter()
                    .enumerate()
                    .any(|(j, other)| j != i && b.iter().all(|x| other.contains(x)) && (b.len() < other.len() || j < i))
            };
            let kept: Vec<bool> = found.iter().enumerate().map(|(i, b)| !fuller(i, b)).collect();
            out.extend(
                found
                    .into_iter()
                    .zip(kept)
                    .filter(|(b, k)| *k && matcher.holds_at_end(pattern, b))
                    .map(|(captures, _)| Match { pattern: index, captures }),
            );
        }
    }
}

impl Step {
    /// Whether a node of kind `kind` may match this step (a cheap test before any other).
    fn may_start_at(&self, kind: u16) -> bool {
        match &self.kind {
            Kind::Named(id) | Kind::Anonymous(id) => kind == *id,
            Kind::AnyNamed | Kind::Any => true,
            Kind::Alternatives(alternatives) => alternatives.iter().any(|a| a.may_start_at(kind)),
        }
    }
}

/// One node's matching: the source, and the children of the nodes listed so far.
struct Matcher<'s, 't> {
    source: &'s [u8],
    listed: &'s RefCell<Listed<'t>>,
    only: Option<&'s Only<'s>>,
}

/// What a complete match is handed to.
type Found<'f, 't> = &'f mut dyn FnMut(&mut Bindings<'t>);

impl<'t> Matcher<'_, 't> {
    /// Hands `found` every way `step` matches `node`, `bound` extended (and left as it was after).
    fn node(&self, pattern: &Pattern, step: &Step, node: Node<'t>, bound: &mut Bindings<'t>, found: Found<'_, 't>) {
        let kind_holds = match &step.kind {
            Kind::Alternatives(alternatives) => {
                for alternative in alternatives {
                    self.node(pattern, alternative, node, bound, &mut |b| {
                        let mark = b.len();
                        if self.bind(pattern, step, node, b) {
                            found(b);
                        }
                        b.truncate(mark);
                    });
                }
                return;
            }
            Kind::Named(id) => node.is_named() && node.kind_id() == *id,
            Kind::Anonymous(id) => !node.is_named() && node.kind_id() == *id,
            Kind::AnyNamed => node.is_named(),
            Kind::Any => true,
        };
        if !kind_holds || step.absent.iter().any(|&f| node.child_by_field_id(f.get()).is_some()) {
            return;
        }
        let mark = bound.len();
        if self.bind(pattern, step, node, bound) {
            if step.children.is_empty() {
                found(bound);
            } else {
                let kids = self.kids(node);
                self.children(pattern, step, kids, 0, 0, false, bound, found);
            }
        }
        bound.truncate(mark);
    }

    /// Whether `set`'s texts lie where its capture would be: in one of `node`'s children that may match the
    /// root's child pattern the capture is under (when it is under one; the node's own text was searched).
    fn held_below(&self, pattern: &Pattern, set: &Required, node: Node<'t>, searcher: &Searcher) -> bool {
        let Some(k) = set.under else { return true };
        let step = &pattern.step.children[k];
        let kids = self.kids(node);
        let listed = self.listed.borrow();
        (0..kids.1 as usize).any(|j| {
            let (kid, field) = listed.kid(kids, j);
            let text = &self.source[kid.byte_range()];
            step.field.is_none_or(|f| field == Some(f)) && step.may_start_at(kid.kind_id()) && searcher.is_in(text)
        })
    }

    /// The children of `node` with their fields, listed once.
    fn kids(&self, node: Node<'t>) -> Kids {
        let mut listed = self.listed.borrow_mut();
        if let Some(&(_, start, count)) = listed.of.iter().find(|(id, ..)| *id == node.id()) {
            return Kids(start, count);
        }
        let Listed { of, nodes, fields } = &mut *listed;
        let start = nodes.len();
        push_children_with_fields(node, nodes, fields);
        let kids = Kids(start as u32, (nodes.len() - start) as u32);
        of.push((node.id(), kids.0, kids.1));
        kids
    }

    /// Hands `found` every way `parent`'s child patterns from the `i`th on take children from `kids[from..]`.
    #[allow(clippy::too_many_arguments)]
    fn children(
        &self,
        pattern: &Pattern,
        parent: &Step,
        kids: Kids,
        i: usize,
        from: usize,
        carried_anchor: bool,
        bound: &mut Bindings<'t>,
        found: Found<'_, 't>,
    ) {
        let Some(step) = parent.children.get(i) else {
            let last_named = || {
                let listed = self.listed.borrow();
                (from..kids.1 as usize).all(|k| !listed.kid(kids, k).0.is_named())
            };
            if !parent.anchored_end || last_named() {
                found(bound);
            }
            return;
        };
        // An optional node left out passes its anchor on (`(a) . (b)? . (c)`: `c` right after `a`).
        let anchored = step.anchored || carried_anchor;
        for j in from..kids.1 as usize {
            let (kid, field) = self.listed.borrow().kid(kids, j);
            if step.field.is_none_or(|f| field == Some(f)) {
                self.node(pattern, step, kid, bound, &mut |b| {
                    self.children(pattern, parent, kids, i + 1, j + 1, false, b, found)
                });
            }
            if anchored && kid.is_named() {
                break;
            }
        }
        if step.optional {
            self.children(pattern, parent, kids, i + 1, from, anchored, bound, found);
        }
    }

    /// `node` bound to each of `step`'s captures, and whether the predicates on one capture hold of it.
    fn bind(&self, pattern: &Pattern, step: &Step, node: Node<'t>, bound: &mut Bindings<'t>) -> bool {
        for &capture in &step.captures {
            bound.push((capture, node));
            let text = &self.source[node.byte_range()];
            if pattern.predicates.iter().any(|p| p.eager && p.capture == capture && !p.holds_of(text)) {
                return false;
            }
            if let Some(only) = self.only
                && only.capture == capture
                && !(only.holds)(node, text)
            {
                return false;
            }
        }
        true
    }

    /// Whether the predicates not checked while matching hold of a whole match (of a capture left out, each
    /// holds).
    fn holds_at_end(&self, pattern: &Pattern, bound: &Bindings<'_>) -> bool {
        let texts =
            |capture: u32| bound.iter().filter(move |(c, _)| *c == capture).map(|(_, n)| &self.source[n.byte_range()]);
        pattern.predicates.iter().filter(|p| !p.eager).all(|p| match p.test {
            Test::Same(other) => texts(p.capture).all(|a| texts(other).all(|b| (a == b) != p.negated)),
            _ => texts(p.capture).all(|text| p.holds_of(text)),
        })
    }
}
