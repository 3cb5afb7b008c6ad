//! Calls inside macro invocations. A macro's token tree is no syntax tree, but most invocations in code
//! hold Rust: `format!`'s and `assert_eq!`'s arguments, `vec![…]`, `write!(f, …)`, `matches!(x, …)`, a
//! crate's own wrappers around its internals.
//!
//! Each invocation's token tree is parsed again, as the argument of a call (`_m((a, b))`, `_m([x; n])`,
//! `_m({ … })`), many invocations of a file in one synthetic source whose segments copy the file's bytes
//! verbatim, so every node maps back to the file by a constant offset per segment. What parses without
//! error yields ordinary sites and bindings, marked with the macro they sit in. A token tree whose own
//! tokens already show it is no expression ([`Shape`]: `=>` arms, `field: value`, `biased;`) is not parsed
//! but read as tokens at once, and so is a token tree that does not parse, or that holds items whose
//! definitions the facts do not hold (`mac!(pub fn declared() { … })`): its nested token trees are tried
//! in turn (`tap_inner!(self, mut this => { … })` holds a block that parses), and each `name(…)` among its
//! own tokens is a site of kind [`Qualifier::Tokens`], which the resolver never binds and counts as
//! unresolved. Invocations whose tokens are not code of this crate (`quote!`, `stringify!`,
//! `include_str!`, …) are left alone. (Among items, an invocation of the file's own macro is expanded
//! into defs, and a braced one of another file's macro read as the items it holds: [`super::generated`].)

pub(super) mod items;
pub(super) mod mbe;
mod spans;

// The limits every reading of macros keeps.
/// Nesting of token trees read, beyond which the rest of an invocation is left unread.
const MAX_ROUNDS: usize = 8;
/// Nesting of expansions (a macro whose body invokes another of the file, or itself) beyond which an
/// invocation is read as tokens.
pub(in crate::rust) const MAX_DEPTH: usize = 8;
/// An expansion longer than this (a recursive macro) is not read.
pub(in crate::rust) const MAX_LEN: usize = 64 * 1024;

use std::cell::RefCell;
use std::collections::HashMap;

use drsg_parsers::text::{collapse, node_text};
use drsg_parsers::{Binding, Origin, Qualifier, Ref, RefKind};
use tree_sitter::{Node, Parser, Tree};

use self::mbe::{Expansion, Glue, Rules};
use self::spans::Segment;
use crate::fields::ChildInField;
use crate::kinds::KindName;
use crate::rust::refs::Positioned;
use crate::rust::{Capture, Captured, Container, Field, capture, read_expression_site};

/// Macros whose tokens are not code of the crate that invokes them: generated code, strings of tokens,
/// compile-time inputs.
const OPAQUE: &[&str] = &[
    "quote",
    "quote_spanned",
    "parse_quote",
    "parse_quote_spanned",
    "stringify",
    "concat",
    "concat_idents",
    "include",
    "include_str",
    "include_bytes",
    "env",
    "option_env",
    "cfg",
    "compile_error",
    "line",
    "column",
    "file",
    "module_path",
    "asm",
    "global_asm",
    "naked_asm",
    "macro_rules",
];

/// Whether the macro (its path as written) takes tokens that are no code of the crate invoking it.
fn is_opaque(name: &str) -> bool {
    OPAQUE.contains(&name.rsplit("::").next().unwrap_or(""))
}

/// The glue around a segment of the expression source; a segment is the token tree between them.
const EXPR_OPEN: &str = "_m(";
const EXPR_CLOSE: &str = ");\n";
/// The glue of the token source, which parses any token tree (as a macro invocation's).
const TOKENS_OPEN: &str = "_m!";
const TOKENS_CLOSE: &str = ";\n";
const PROLOGUE: &str = "fn _m() {\n";
const EPILOGUE: &str = "}\n";

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// A token tree still to parse: its bytes and first row in the file, and the macro it belongs to.
#[derive(Debug, Clone)]
pub(super) struct Pending {
    start: usize,
    end: usize,
    row: usize,
    within: String,
}

impl Pending {
    fn new(tree: Node<'_>, within: String) -> Pending {
        Pending { start: tree.start_byte(), end: tree.end_byte(), row: tree.start_position().row, within }
    }
}

/// Where an invocation is read: the file's own macros, and how deep in their expansions.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reading<'r> {
    pub(super) rules: &'r Rules,
    pub(super) depth: usize,
}

/// How one macro invocation is read. [`treatment`] decides it, for the file's code and every expansion
/// alike; a treatment that reads nothing falls back as its variant says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::rust) enum Treatment {
    /// Nothing is read: a token-generating or compile-time macro (`quote!`, `stringify!`, …), a macro
    /// without a token tree, or flat tokens (`Shape::Flat`), where no call can hide.
    Skip,
    /// Among items: the items it writes (`items::expand`), placed so; failing that, read as code.
    Items(items::Placement),
    /// The expansion of a macro the file defines, read now; failing that, by its tokens' shape.
    Expand,
    /// Its tokens read as tokens, now (`Shape::Tokens`, `Shape::Items`).
    Tokens,
    /// Parsed as an expression with the other token trees of its round (`Shape::Unknown`).
    Parse,
}

/// The treatment of invocation `node` of `text`. `containers` are given where it may sit among items (a
/// file, an item-level expansion), and none inside a token tree or a function body's expansion.
pub(in crate::rust) fn treatment(
    node: Node<'_>,
    text: &str,
    reading: Reading<'_>,
    containers: Option<&HashMap<usize, Container<'_>>>,
) -> Treatment {
    let Some(name) = node.field(Field::Macro) else { return Treatment::Skip };
    if is_opaque(node_text(name, text)) {
        return Treatment::Skip;
    }
    match containers.and_then(|containers| items::placement(node, text, reading, containers)) {
        Some(placed) => Treatment::Items(placed),
        None => as_code(node, node_text(name, text), text, reading),
    }
}

/// The treatment of invocation `node` of macro `written` read as code: the expansion of the file's own
/// macro, else by shape.
fn as_code(node: Node<'_>, written: &str, text: &str, reading: Reading<'_>) -> Treatment {
    let last = written.rsplit("::").next().unwrap_or("");
    match last_token_tree(node) {
        None => Treatment::Skip,
        Some(_) if written == last && reading.rules.defines(last) => Treatment::Expand,
        Some(tree) => by_shape(tree, text),
    }
}

fn by_shape(tree: Node<'_>, text: &str) -> Treatment {
    match Shape::of(tree, text) {
        // Items of a definition the facts do not hold: what they may call counts, unbound.
        Shape::Tokens | Shape::Items => Treatment::Tokens,
        Shape::Unknown => Treatment::Parse,
        Shape::Flat => Treatment::Skip,
    }
}

/// Reads invocation `node` of `text` as `treatment` says, `Items` as code (the caller reads the items it
/// writes): an expansion of the file's own macro is read now (sites into `refs`, bindings into
/// `bindings`), tokens now, and a token tree to parse is queued in `pending`. Positions are those of `text`.
pub(in crate::rust) fn invocation(
    node: Node<'_>,
    text: &str,
    reading: Reading<'_>,
    treatment: Treatment,
    refs: &mut Vec<Positioned<Ref>>,
    bindings: &mut Vec<Positioned<Binding>>,
    pending: &mut Vec<Pending>,
) {
    let (Some(name), Some(tree)) = (node.field(Field::Macro), last_token_tree(node)) else { return };
    let last = node_text(name, text).rsplit("::").next().unwrap_or("");
    let treatment = match treatment {
        Treatment::Items(_) => as_code(node, node_text(name, text), text, reading),
        treatment => treatment,
    };
    let treatment = match treatment {
        Treatment::Expand if read_expansion(node, tree, last, text, reading, refs, bindings) => return,
        Treatment::Expand => by_shape(tree, text),
        treatment => treatment,
    };
    let within = format!("{last}!");
    match treatment {
        Treatment::Tokens => token_tree(tree, text, &within, 0, refs, pending),
        Treatment::Parse => pending.push(Pending::new(tree, within)),
        Treatment::Skip | Treatment::Items(_) | Treatment::Expand => {}
    }
}

/// What a token tree's own tokens (not those of the trees nested in it) show it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Items (`pub fn`, `impl`, `static`) of definitions the facts do not hold: read as tokens, so what
    /// they call counts as unresolved sites, and the blocks in them are parsed.
    Items,
    /// No expression list: `select!`'s `=>` arms, `join!(biased; …)`, `assert_fn!(path(_): Send)`,
    /// `span!(parent: None, …)`, metavariables. Such a tree is read as tokens at once: parsing it as an
    /// expression would fail, slowly (the parser's error recovery), and could take the well-formed trees
    /// parsed beside it down with it.
    Tokens,
    /// No nested token tree, so no call, literal or block to read (`assert!(ok)`, `vec![1, 2]`,
    /// `println!("{}", x)`): nothing to parse.
    Flat,
    /// Perhaps expressions: parsed to find out.
    Unknown,
}

impl Shape {
    fn of(tree: Node<'_>, source: &str) -> Shape {
        let open = source.as_bytes().get(tree.start_byte()).copied();
        let mut cursor = tree.walk();
        let mut closure = false;
        let mut semicolons = 0;
        let mut nested = false;
        let (mut previous, mut before) = ("", "");
        for (i, token) in tree.children(&mut cursor).enumerate() {
            let kind = token.kind_name();
            if i == 1 && begins_item(kind, token, source) {
                return Shape::Items;
            }
            match kind {
                "=>" | "metavariable" | "token_repetition" => return Shape::Tokens,
                "|" | "||" => closure = true,
                "token_tree" => nested = true,
                // A label (`'a: loop`) or a closure's typed parameter; otherwise a field or type ascription,
                // which no expression in parentheses or brackets holds (a block may: `let x: T`).
                ":" if open != Some(b'{') && !closure && before != "'" => return Shape::Tokens,
                ";" if open == Some(b'(') => return Shape::Tokens,
                ";" => semicolons += 1,
                _ => {}
            }
            (before, previous) = (previous, kind);
        }
        if open == Some(b'[') && semicolons > 1 {
            Shape::Tokens
        } else if nested {
            Shape::Unknown
        } else {
            Shape::Flat
        }
    }
}

/// Whether the first token of a tree begins an item, which no expression does.
fn begins_item(kind: &str, token: Node<'_>, source: &str) -> bool {
    match kind {
        "pub" | "fn" | "impl" | "struct" | "enum" | "static" | "trait" | "type" | "use" | "mod" | "extern" | "#" => {
            true
        }
        // `async fn`, `unsafe fn`, `unsafe impl`; `async { … }` and `unsafe { … }` are expressions.
        "async" | "unsafe" => {
            token.next_sibling().is_some_and(|next| matches!(node_text(next, source), "fn" | "impl" | "trait"))
        }
        _ => false,
    }
}

pub(super) fn last_token_tree(node: Node<'_>) -> Option<Node<'_>> {
    (0..node.child_count()).rev().filter_map(|i| node.child(i)).find(|c| c.kind_name() == "token_tree")
}

/// `text` parsed as Rust, with this thread's parser.
pub(super) fn parse(text: &str) -> Option<Tree> {
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        if parser.is_none() {
            let mut fresh = Parser::new();
            fresh.set_language(&tree_sitter_rust::LANGUAGE.into()).ok()?;
            *parser = Some(fresh);
        }
        parser.as_mut()?.parse(text, None)
    })
}

impl Segment {
    /// A token tree of this segment, found in the synthetic source, in the file's coordinates.
    fn pending_in_file(&self, p: Pending) -> Pending {
        let start = p.start - self.synthetic + self.original;
        Pending { start, end: start + (p.end - p.start), row: p.row + self.original_row - self.synthetic_row, ..p }
    }

    /// Moves the items found in this segment's copy to `out`, in the file's coordinates (each one's
    /// line through `line`); those of the glue are dropped.
    fn items_to_file<T>(
        &self,
        found: Vec<Positioned<T>>,
        line: impl Fn(&mut T) -> &mut u32,
        out: &mut Vec<Positioned<T>>,
    ) {
        for (at, mut item) in found.into_iter().filter(|(at, _)| self.holds(*at)) {
            let (at, mapped) = self.map(at, *line(&mut item));
            *line(&mut item) = mapped;
            out.push((at, item));
        }
    }
}

/// A synthetic source: the copies of token trees between glue, and where each copy came from.
struct Synthetic {
    text: String,
    segments: Vec<Segment>,
}

impl Synthetic {
    fn build(pending: &[Pending], source: &str, open: &str, close: &str) -> Synthetic {
        let len = pending.iter().map(|p| p.end - p.start + open.len() + close.len()).sum::<usize>();
        let mut text = String::with_capacity(PROLOGUE.len() + len + EPILOGUE.len());
        text.push_str(PROLOGUE);
        let mut row = 1;
        let mut segments = Vec::with_capacity(pending.len());
        for (i, p) in pending.iter().enumerate() {
            text.push_str(open);
            let copy = &source[p.start..p.end];
            segments.push(Segment {
                synthetic: text.len(),
                original: p.start,
                len: copy.len(),
                synthetic_row: row,
                original_row: p.row,
                pending: i,
            });
            text.push_str(copy);
            text.push_str(close);
            row += copy.bytes().filter(|&b| b == b'\n').count() + 1;
        }
        text.push_str(EPILOGUE);
        Synthetic { text, segments }
    }

    fn parse(&self) -> Option<Tree> {
        parse(&self.text)
    }

    /// The statements of the synthetic function's body that are exactly one segment's glue and copy, by
    /// segment, when they parsed without error.
    fn statements<'t>(&self, tree: &'t Tree, open: &str, close: &str) -> Vec<Option<Node<'t>>> {
        let mut found = vec![None; self.segments.len()];
        let body = tree
            .root_node()
            .named_child(0)
            .filter(|f| f.kind_name() == "function_item")
            .and_then(|f| f.field(Field::Body));
        let Some(body) = body else { return found };
        let close_len = close.trim_end().len();
        let mut cursor = body.walk();
        for statement in body.named_children(&mut cursor) {
            let start = statement.start_byte() + open.len();
            let Ok(i) = self.segments.binary_search_by(|s| s.synthetic.cmp(&start)) else { continue };
            let s = &self.segments[i];
            if statement.end_byte() == s.synthetic + s.len + close_len && !statement.has_error() {
                found[i] = Some(statement);
            }
        }
        found
    }
}

/// The first and last lines (1-based) of each invocation still to parse, for
/// [`drsg_parsers::FileFacts::local_blocks`].
pub(super) fn blocks(pending: &[Pending], source: &str) -> Vec<(u32, u32)> {
    let line = |row: usize| u32::try_from(row + 1).unwrap_or(u32::MAX);
    pending
        .iter()
        .map(|p| {
            let rows = source[p.start..p.end].bytes().filter(|&b| b == b'\n').count();
            (line(p.row), line(p.row + rows))
        })
        .collect()
}

/// Sites and bindings read from the macro invocations `pending` of a file, appended to `refs` and
/// `bindings` in the file's coordinates.
pub(super) fn read(
    mut pending: Vec<Pending>,
    source: &str,
    reading: Reading<'_>,
    refs: &mut Vec<Positioned<Ref>>,
    bindings: &mut Vec<Positioned<Binding>>,
) {
    for _ in 0..MAX_ROUNDS {
        if pending.is_empty() {
            return;
        }
        let mut next = Vec::new();
        let failed = read_expressions(&pending, source, reading, refs, bindings, &mut next);
        if !failed.is_empty() {
            read_tokens(&failed, source, refs, &mut next);
        }
        pending = next;
    }
}

/// Parses each pending token tree as an expression; the sites of those that parse are read, nested
/// invocations are queued in `next`, and the token trees that do not parse are returned.
fn read_expressions(
    pending: &[Pending],
    source: &str,
    reading: Reading<'_>,
    refs: &mut Vec<Positioned<Ref>>,
    bindings: &mut Vec<Positioned<Binding>>,
    next: &mut Vec<Pending>,
) -> Vec<Pending> {
    let synthetic = Synthetic::build(pending, source, EXPR_OPEN, EXPR_CLOSE);
    let Some(tree) = synthetic.parse() else { return Vec::new() };
    let statements = synthetic.statements(&tree, EXPR_OPEN, EXPR_CLOSE);
    let mut failed = Vec::new();
    let text = synthetic.text.as_str();
    for (segment, statement) in synthetic.segments.iter().zip(statements) {
        let within = &pending[segment.pending].within;
        let Some(statement) = statement else {
            failed.push(pending[segment.pending].clone());
            continue;
        };
        let (mut found_refs, mut found_bindings, mut nested) = (Vec::new(), Vec::new(), Vec::new());
        read_code(capture(statement, text), text, reading, &mut found_refs, &mut found_bindings, &mut nested);
        next.extend(nested.into_iter().map(|p| segment.pending_in_file(p)));
        for (_, r) in &mut found_refs {
            if r.origin == Origin::Written {
                r.origin = Origin::MacroArgument { within: within.clone() };
            }
        }
        segment.items_to_file(found_refs, |r| &mut r.line, refs);
        segment.items_to_file(found_bindings, |b| &mut b.line, bindings);
    }
    failed
}

/// Reads the sites, bindings and types of code `captured` from `text` (a token tree parsed as an
/// expression, an expansion's body). Items it declares are definitions the facts do not hold: their calls
/// count where the code is, their bindings are theirs. Its invocations are read as `treatment` says, the
/// token trees to parse queued in `nested`.
fn read_code(
    captured: Captured<'_>,
    text: &str,
    reading: Reading<'_>,
    refs: &mut Vec<Positioned<Ref>>,
    bindings: &mut Vec<Positioned<Binding>>,
    nested: &mut Vec<Pending>,
) {
    let items: Vec<(usize, usize)> = captured.defs.iter().map(|(d, _)| (d.start_byte(), d.end_byte())).collect();
    let outside = |at: usize| !items.iter().any(|&(start, end)| start <= at && at < end);
    for (node, kind) in captured.sites {
        if binds(kind) && !outside(node.start_byte()) {
            continue;
        }
        if kind == Capture::Macro {
            let treatment = treatment(node, text, reading, None);
            invocation(node, text, reading, treatment, refs, bindings, nested);
        }
        read_expression_site(node, kind, text, refs, bindings);
    }
    for (node, owner) in captured.types {
        if outside(node.start_byte()) {
            crate::rust::refs::types(node, owner, &captured.containers, text, refs);
        }
    }
}

/// Reads the expansion of an invocation (`node`, its token tree `tree`) of the file's own macro `name`
/// into `refs` and `bindings`, in the coordinates of `text`; false when it has none or it does not parse,
/// and nothing is read. A site or binding inside a fragment the invocation passed keeps its place; one of
/// the macro's body (or partly: `$self_.into_inner()`) sits at the invocation, a site marked
/// `Origin::MacroBody`, and a binding only when its
/// name came from the invocation (`let $inner = …`): the body's own names are hygienic.
fn read_expansion(
    node: Node<'_>,
    tree: Node<'_>,
    name: &str,
    text: &str,
    reading: Reading<'_>,
    refs: &mut Vec<Positioned<Ref>>,
    bindings: &mut Vec<Positioned<Binding>>,
) -> bool {
    let Ok(expansion) = reading.rules.expand(name, tree, text, Glue::Body, reading.depth) else { return false };
    let Some(parsed) = parse(&expansion.text) else { return false };
    let body = parsed.root_node().named_child(0).and_then(|f| f.field(Field::Body));
    let Some(body) = body.filter(|b| !parsed.root_node().has_error() && b.kind_name() == "block") else {
        return false;
    };
    let source = expansion.text.as_str();
    let inner = Reading { rules: reading.rules, depth: reading.depth + 1 };
    let (mut found_refs, mut found_bindings, mut nested) = (Vec::new(), Vec::new(), Vec::new());
    read_code(capture(body, source), source, inner, &mut found_refs, &mut found_bindings, &mut nested);
    read(nested, source, inner, &mut found_refs, &mut found_bindings);

    refs.extend(to_invocation(found_refs, &expansion, node, name));
    let passed = |name: &str| expansion.copies.iter().any(|c| &source[c.synthetic..c.synthetic + c.len] == name);
    let at = node.start_byte();
    let line = u32::try_from(node.start_position().row + 1).unwrap_or(u32::MAX);
    let copy_of = |position: usize| expansion.copies.iter().find(|c| c.holds(position));
    for (position, mut b) in found_bindings {
        // A name passed alone into the body's pattern (`let $inner = …`) means the body's value from the
        // invocation on.
        let more_than_the_name = |copy: &&Segment| source[copy.synthetic..copy.synthetic + copy.len] != b.name;
        match copy_of(position).filter(more_than_the_name) {
            Some(copy) => {
                let (position, mapped) = copy.map(position, b.line);
                b.line = mapped;
                bindings.push((position, b));
            }
            _ if passed(&b.name) => {
                b.line = line;
                bindings.push((at, b));
            }
            _ => {}
        }
    }
    true
}

/// The sites read from the expansion of an invocation (`node`) of macro `name`, in the coordinates of the
/// invoking text: a site inside a fragment the invocation passed keeps its place, one of the macro's body
/// (or partly: `$self_.into_inner()`) sits at the invocation, marked `Origin::MacroBody`.
pub(super) fn to_invocation(
    found: Vec<Positioned<Ref>>,
    expansion: &Expansion,
    node: Node<'_>,
    name: &str,
) -> Vec<Positioned<Ref>> {
    let at = node.start_byte();
    let line = u32::try_from(node.start_position().row + 1).unwrap_or(u32::MAX);
    let copy_of = |position: usize| expansion.copies.iter().find(|c| c.holds(position));
    let mut refs = Vec::with_capacity(found.len());
    for (position, mut r) in found {
        if r.origin == Origin::Written {
            r.origin = Origin::MacroArgument { within: format!("{name}!") };
        }
        // A site is the invocation's when all it names was passed (`$f()`, `$x.run()`).
        let end = position + r.text.len().saturating_sub(1);
        match copy_of(position).filter(|copy| copy.holds(end)) {
            Some(copy) => {
                let (position, mapped) = copy.map(position, r.line);
                r.line = mapped;
                refs.push((position, r));
            }
            None => {
                r.line = line;
                if let Some(within) = r.origin.within() {
                    r.origin = Origin::MacroBody { within: within.to_owned() };
                }
                refs.push((at, r));
            }
        }
    }
    // A fragment the body uses twice (`$x * $x`) is one site, and so is a name the body calls twice (in the
    // same definition).
    refs.sort_by(|(a, x), (b, y)| (a, x.line, x.scope, &x.path, &x.text).cmp(&(b, y.line, y.scope, &y.path, &y.text)));
    refs.dedup_by(|(a, x), (b, y)| {
        a == b && x.line == y.line && x.scope == y.scope && x.path == y.path && x.kind == y.kind
    });
    refs
}

/// Whether a capture binds names (which inside an item a macro declares are the item's, not the code's
/// around the invocation).
fn binds(kind: Capture) -> bool {
    matches!(kind, Capture::Let | Capture::Param | Capture::ClosureParameters | Capture::Pattern)
}

/// Reads the token trees that did not parse as expressions as tokens.
fn read_tokens(failed: &[Pending], source: &str, refs: &mut Vec<Positioned<Ref>>, next: &mut Vec<Pending>) {
    let synthetic = Synthetic::build(failed, source, TOKENS_OPEN, TOKENS_CLOSE);
    let Some(tree) = synthetic.parse() else { return };
    let statements = synthetic.statements(&tree, TOKENS_OPEN, TOKENS_CLOSE);
    let text = synthetic.text.as_str();
    for (segment, statement) in synthetic.segments.iter().zip(statements) {
        let within = &failed[segment.pending].within;
        let Some(tokens) = statement.and_then(|s| s.named_child(0)).and_then(last_token_tree) else { continue };
        let (mut found, mut nested) = (Vec::new(), Vec::new());
        token_tree(tokens, text, within, 0, &mut found, &mut nested);
        segment.items_to_file(found, |r| &mut r.line, refs);
        next.extend(nested.into_iter().map(|p| segment.pending_in_file(p)));
    }
}

/// Reads a token tree that is no expression, in the coordinates of `text`: each `name(…)` among its own
/// tokens is a [`Qualifier::Tokens`] site and each `name!(…)` a macro call; a nested token tree that is
/// no expression either is read the same way, and any other is queued in `pending` to be parsed.
fn token_tree(
    tokens: Node<'_>,
    text: &str,
    within: &str,
    depth: usize,
    refs: &mut Vec<Positioned<Ref>>,
    pending: &mut Vec<Pending>,
) {
    let children: Vec<Node<'_>> = (0..tokens.child_count()).filter_map(|i| tokens.child(i)).collect();
    for (i, child) in children.iter().enumerate() {
        if child.kind_name() != "token_tree" {
            continue;
        }
        match Shape::of(*child, text) {
            Shape::Tokens if depth < MAX_ROUNDS => token_tree(*child, text, within, depth + 1, refs, pending),
            Shape::Unknown => pending.push(Pending::new(*child, within.to_owned())),
            _ => {}
        }
        let before = |back: usize| i.checked_sub(back).map(|j| children[j]);
        let site = match (before(1), before(2)) {
            (Some(bang), name) if bang.kind_name() == "!" => identifier(name).map(|name| (name, true)),
            (name, _) => identifier(name)
                .filter(|n| node_text(*n, text).starts_with(|c: char| !c.is_ascii_uppercase()))
                .filter(|_| node_text(*child, text).starts_with('('))
                .map(|name| (name, false)),
        };
        let Some((name, is_macro)) = site else { continue };
        let line = name.start_position().row as u32 + 1;
        let written = node_text(name, text);
        let r = if is_macro {
            Ref {
                kind: RefKind::Call,
                path: vec![format!("{written}!")],
                qualifier: Qualifier::Plain,
                line,
                scope: None,
                text: format!("{written}!"),
                origin: Origin::MacroTokens { within: within.to_owned() },
            }
        } else {
            Ref {
                kind: RefKind::Call,
                path: vec![written.to_owned()],
                qualifier: Qualifier::Tokens,
                line,
                scope: None,
                text: collapse(&text[name.start_byte()..child.end_byte()], 120),
                origin: Origin::MacroTokens { within: within.to_owned() },
            }
        };
        refs.push((name.start_byte(), r));
    }
}

fn identifier(node: Option<Node<'_>>) -> Option<Node<'_>> {
    node.filter(|n| n.kind_name() == "identifier")
}

#[cfg(test)]
mod tests;
