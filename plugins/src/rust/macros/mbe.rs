//! The file's own macros by example (`macro_rules!`), expanded where the file invokes them.
//!
//! A crate's helper macros wrap its internals: `tap_inner!(self, mut this => { this.path_router.route(…) })`
//! binds `this` to `self.into_inner()` and runs the statements, so what the invocation calls, and what
//! `this` is, lie in the macro's body. Each rule's matcher is read into [`Pat`]s and its transcriber into
//! [`Tpl`]s; an invocation's tokens are matched against the rules in order, the first that matches is
//! transcribed, and the text is parsed and read like code. Fragments the invocation passed in are copied
//! verbatim, each a [`Segment`] that maps back to the invocation's bytes, so a call inside one keeps its own
//! line; the rest of the text is the macro's body, whose calls sit at the invocation.
//!
//! Matching is greedy and never backtracks (as `macro_rules!` itself): a multi-token fragment (`expr`, `ty`,
//! `pat`, …) ends at the first token of its follow set or the literal token the matcher expects next. A
//! macro defined twice in a file, or with a rule this reader cannot read before the one that would match,
//! is not expanded; nor are macros of other files, which scope textually across modules.

use std::collections::HashMap;

use drsg_parsers::text::node_text;
use tree_sitter::Node;

use super::spans::Segment;
use crate::fields::ChildInField;
use crate::kinds::KindName;
use crate::rust::Field;

use super::{MAX_DEPTH, MAX_LEN};

/// Why an invocation has no expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::rust) enum ExpandError {
    /// The file defines no macro by example of that name.
    NotDefined,
    /// The file defines the macro more than once (which one a module sees depends on where it is).
    DefinedTwice,
    /// A rule before the one that would match is one this reader cannot read (by its place, from 0).
    UnreadableRule(usize),
    /// No rule matches the invocation's tokens.
    NoRuleMatches,
    /// A transcriber names a variable its matcher did not bind at that depth of repetition.
    Unbound(String),
    /// The variables of a repetition repeat different numbers of times, or none of them repeats.
    Repetition,
    /// Expansions nested deeper than `MAX_DEPTH`.
    TooDeep,
    /// An expansion longer than `MAX_LEN` bytes.
    TooLong,
}
/// The glue around an expansion, which is read as what the invocation stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::rust) enum Glue {
    /// Statements and expressions: a function's body.
    Body,
    /// Items among a module's: a file.
    Items,
    /// Members of an impl: the body of `impl _M`, whose `_M` stands for the impl's type.
    Members,
}

impl Glue {
    fn around(self) -> (&'static str, &'static str) {
        match self {
            Glue::Body => ("fn _m() {\n", "\n}\n"),
            Glue::Items => ("", "\n"),
            Glue::Members => ("impl _M {\n", "\n}\n"),
        }
    }
}

/// The macros by example a file defines, by name; `None` for a name defined more than once.
#[derive(Debug, Default)]
pub(in crate::rust) struct Rules {
    by_name: HashMap<String, Option<Vec<Option<Rule>>>>,
}

/// One `(matcher) => { transcriber }` arm.
#[derive(Debug)]
struct Rule {
    pattern: Vec<Pat>,
    body: Vec<Piece>,
}

/// An element of a matcher.
#[derive(Debug)]
enum Pat {
    /// A token that must be there as written (`=>`, `mut`, `,`).
    Token(String),
    /// `$name:fragment`.
    Var(String, Fragment),
    /// A nested delimited group, by its opening delimiter.
    Group(u8, Vec<Pat>),
    /// `$( … ) sep op`.
    Repeat(Vec<Pat>, Option<String>, Op),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `*`
    Any,
    /// `+`
    Some,
    /// `?`
    Optional,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fragment {
    Ident,
    Lifetime,
    Literal,
    Tt,
    Block,
    Expr,
    Ty,
    Path,
    Pat,
    PatParam,
    Stmt,
    Item,
    Meta,
    Vis,
}

impl Fragment {
    fn of(name: &str) -> Option<Fragment> {
        Some(match name {
            "ident" => Fragment::Ident,
            "lifetime" => Fragment::Lifetime,
            "literal" => Fragment::Literal,
            "tt" => Fragment::Tt,
            "block" => Fragment::Block,
            "expr" | "expr_2021" => Fragment::Expr,
            "ty" => Fragment::Ty,
            "path" => Fragment::Path,
            "pat" => Fragment::Pat,
            "pat_param" => Fragment::PatParam,
            "stmt" => Fragment::Stmt,
            "item" => Fragment::Item,
            "meta" => Fragment::Meta,
            "vis" => Fragment::Vis,
            _ => return None,
        })
    }

    /// Whether a token ends a fragment of this kind before it (its follow set), outside angle brackets.
    fn stops_at(self, token: &str) -> bool {
        match self {
            Fragment::Expr => matches!(token, "=>" | "," | ";"),
            Fragment::Stmt => token == ";",
            Fragment::Pat => matches!(token, "=>" | "," | "=" | "if" | "in"),
            Fragment::PatParam => matches!(token, "=>" | "," | "=" | "|" | "if" | "in"),
            Fragment::Ty | Fragment::Path => {
                matches!(token, "=>" | "," | "=" | "|" | ";" | ":" | ">" | "as" | "where") || token.starts_with('{')
            }
            _ => false,
        }
    }
}

/// An element of a transcriber, with the whitespace written before it.
#[derive(Debug)]
struct Piece {
    gap: String,
    tpl: Tpl,
}

#[derive(Debug)]
enum Tpl {
    Token(String),
    Var(String),
    Group { open: String, close: String, inner: Vec<Piece> },
    Repeat { inner: Vec<Piece>, separator: Option<String> },
}

/// What a matcher's variable matched: a span of the invocation's text, or one per repetition.
#[derive(Debug, Clone)]
enum Bound {
    One { start: usize, end: usize, row: usize },
    Many(Vec<Bound>),
}

type Binds = HashMap<String, Bound>;

/// An invocation's expansion, as the body of a function, with the fragments copied into it.
#[derive(Debug)]
pub(in crate::rust) struct Expansion {
    pub(in crate::rust) text: String,
    pub(in crate::rust) copies: Vec<Segment>,
}

impl Rules {
    /// The rules of the `macro_definition` nodes `definitions` of `source`.
    pub(in crate::rust) fn of<'t>(definitions: impl Iterator<Item = Node<'t>>, source: &str) -> Rules {
        let mut by_name: HashMap<String, Option<Vec<Option<Rule>>>> = HashMap::new();
        for definition in definitions {
            let Some(name) = definition.field(Field::Name) else { continue };
            let rules =
                tokens(definition).into_iter().filter(|r| r.kind_name() == "macro_rule").map(|r| rule(r, source));
            by_name
                .entry(node_text(name, source).to_owned())
                .and_modify(|twice| *twice = None)
                .or_insert_with(|| Some(rules.collect()));
        }
        Rules { by_name }
    }

    pub(in crate::rust) fn defines(&self, name: &str) -> bool {
        self.by_name.get(name).is_some_and(Option::is_some)
    }

    /// The expansion of an invocation of macro `name` whose token tree is `tree` in `text`, read `depth`
    /// expansions deep: the first rule that matches, transcribed inside `glue`.
    pub(in crate::rust) fn expand(
        &self,
        name: &str,
        tree: Node<'_>,
        text: &str,
        glue: Glue,
        depth: usize,
    ) -> Result<Expansion, ExpandError> {
        let rules = self.by_name.get(name).ok_or(ExpandError::NotDefined)?.as_ref().ok_or(ExpandError::DefinedTwice)?;
        if depth >= MAX_DEPTH {
            return Err(ExpandError::TooDeep);
        }
        let tokens = inner(tree);
        for (i, rule) in rules.iter().enumerate() {
            let rule = rule.as_ref().ok_or(ExpandError::UnreadableRule(i))?;
            let mut binds = Binds::new();
            let matcher = Matcher { text };
            if matcher.sequence(&rule.pattern, &tokens, 0, None, &mut binds) != Some(tokens.len()) {
                continue;
            }
            let (prologue, epilogue) = glue.around();
            let mut out = Out { text: String::new(), row: 0, copies: Vec::new(), source: text };
            out.push(prologue);
            transcribe(&rule.body, &binds, &mut Vec::new(), &mut out)?;
            out.push(epilogue);
            return Ok(Expansion { text: out.text, copies: out.copies });
        }
        Err(ExpandError::NoRuleMatches)
    }
}

/// A braced token tree's tokens as they are written, inside `glue`: the items a macro passes through.
pub(in crate::rust) fn verbatim(tree: Node<'_>, text: &str, glue: Glue) -> Result<Expansion, ExpandError> {
    let start = tree.start_byte() + 1;
    let end = tree.end_byte().saturating_sub(1).max(start);
    if end - start > MAX_LEN {
        return Err(ExpandError::TooLong);
    }
    let (prologue, epilogue) = glue.around();
    let mut out = Out { text: String::new(), row: 0, copies: Vec::new(), source: text };
    out.push(prologue);
    out.copy(start, end, tree.start_position().row);
    out.push(epilogue);
    Ok(Expansion { text: out.text, copies: out.copies })
}

/// A node's children, comments left out.
fn tokens(node: Node<'_>) -> Vec<Node<'_>> {
    (0..node.child_count())
        .filter_map(|i| node.child(i))
        .filter(|c| !matches!(c.kind_name(), "line_comment" | "block_comment"))
        .collect()
}

/// A delimited group's tokens, its delimiters left out.
fn inner(group: Node<'_>) -> Vec<Node<'_>> {
    let mut all = tokens(group);
    if all.len() >= 2 {
        all.pop();
        all.remove(0);
        all
    } else {
        Vec::new()
    }
}

/// A transcriber group's tokens, its delimiters left out and its outer doc comments kept: `/// text` is
/// the attribute `#[doc = "text"]` to a macro, which `$(#[$m:meta])*` matches.
fn transcribed(group: Node<'_>) -> Vec<Node<'_>> {
    let count = group.child_count();
    (1..count.saturating_sub(1))
        .filter_map(|i| group.child(i))
        .filter(|c| !matches!(c.kind_name(), "line_comment" | "block_comment") || c.field(Field::Outer).is_some())
        .collect()
}

fn rule(node: Node<'_>, source: &str) -> Option<Rule> {
    let left = node.field(Field::Left)?;
    let right = node.field(Field::Right)?;
    let pattern = patterns(&inner(left), source)?;
    let open = right.child(0)?;
    let body = pieces(&transcribed(right), open.end_byte(), source)?;
    Some(Rule { pattern, body })
}

fn patterns(nodes: &[Node<'_>], source: &str) -> Option<Vec<Pat>> {
    nodes
        .iter()
        .map(|&node| match node.kind_name() {
            "token_binding_pattern" => {
                let name = node_text(node.field(Field::Name)?, source).trim_start_matches('$');
                Some(Pat::Var(name.to_owned(), Fragment::of(node_text(node.field(Field::Type)?, source))?))
            }
            "token_repetition_pattern" => {
                let (inner, separator, op) = repetition(node, source)?;
                Some(Pat::Repeat(patterns(&inner, source)?, separator, op))
            }
            "token_tree_pattern" => {
                let open = *source.as_bytes().get(node.start_byte())?;
                Some(Pat::Group(open, patterns(&inner(node), source)?))
            }
            "metavariable" => None,
            _ => Some(Pat::Token(node_text(node, source).to_owned())),
        })
        .collect()
}

/// `$( … ) sep op`: the repeated tokens, the separator and the operator.
fn repetition<'t>(node: Node<'t>, source: &str) -> Option<(Vec<Node<'t>>, Option<String>, Op)> {
    let all = tokens(node);
    if all.first().map(|n| n.kind_name()) != Some("$") || all.get(1).map(|n| n.kind_name()) != Some("(") {
        return None;
    }
    let close = all.iter().skip(2).position(|n| n.kind_name() == ")")? + 2;
    let last = *all.last()?;
    let op = match node_text(last, source) {
        "*" => Op::Any,
        "+" => Op::Some,
        "?" => Op::Optional,
        _ => return None,
    };
    // The grammar keeps no node for the separator: it is the text between `)` and the operator.
    let separator = source.get(all[close].end_byte()..last.start_byte())?.trim();
    let separator = (!separator.is_empty()).then(|| separator.to_owned());
    Some((all[2..close].to_vec(), separator, op))
}

/// A transcriber's tokens from byte `previous` (where the group's text before them ends).
fn pieces(nodes: &[Node<'_>], mut previous: usize, source: &str) -> Option<Vec<Piece>> {
    let mut out = Vec::with_capacity(nodes.len());
    for &node in nodes {
        let between = &source[previous.min(node.start_byte())..node.start_byte()];
        let gap = if between.trim().is_empty() { between.to_owned() } else { " ".to_owned() };
        previous = node.end_byte();
        let tpl = match node.kind_name() {
            // `$crate` is the defining crate, which is the file's.
            "metavariable" if node_text(node, source) == "$crate" => Tpl::Token("crate".to_owned()),
            "metavariable" => Tpl::Var(node_text(node, source).trim_start_matches('$').to_owned()),
            "$" => continue,
            "token_repetition" => {
                let (inner, separator, _) = repetition(node, source)?;
                let start = inner.first().map_or(node.start_byte(), |n| n.start_byte());
                Tpl::Repeat { inner: pieces(&inner, start, source)?, separator }
            }
            "token_tree" => {
                let open = node.child(0)?;
                let close = node.child(node.child_count().checked_sub(1)?)?;
                Tpl::Group {
                    open: node_text(open, source).to_owned(),
                    close: node_text(close, source).to_owned(),
                    inner: pieces(&transcribed(node), open.end_byte(), source)?,
                }
            }
            // Its text is left out: the defs' docs are read from comments, not from `doc` attributes.
            "line_comment" | "block_comment" => Tpl::Token("#[doc = \"\"]\n".to_owned()),
            _ => Tpl::Token(node_text(node, source).to_owned()),
        };
        out.push(Piece { gap, tpl });
    }
    Some(out)
}

struct Matcher<'a> {
    text: &'a str,
}

impl Matcher<'_> {
    fn token(&self, tokens: &[Node<'_>], i: usize) -> Option<&str> {
        tokens.get(i).map(|n| node_text(*n, self.text))
    }

    /// Matches `pats` against `tokens` from `i`; the index after the match. `follow` is the literal token
    /// that comes after the sequence, which ends a fragment at its end.
    fn sequence(
        &self,
        pats: &[Pat],
        tokens: &[Node<'_>],
        mut i: usize,
        follow: Option<&str>,
        binds: &mut Binds,
    ) -> Option<usize> {
        for (k, pat) in pats.iter().enumerate() {
            let next = match pats.get(k + 1) {
                Some(Pat::Token(t)) => Some(t.as_str()),
                Some(_) => None,
                None => follow,
            };
            i = match pat {
                Pat::Token(t) => (self.token(tokens, i)? == t).then_some(i + 1)?,
                Pat::Group(open, inner_pats) => {
                    let group = *tokens.get(i)?;
                    if group.kind_name() != "token_tree" || self.text.as_bytes().get(group.start_byte()) != Some(open) {
                        return None;
                    }
                    let inside = inner(group);
                    (self.sequence(inner_pats, &inside, 0, None, binds)? == inside.len()).then_some(i + 1)?
                }
                Pat::Var(name, fragment) => {
                    let end = self.fragment(*fragment, tokens, i, next)?;
                    binds.insert(name.clone(), span(tokens, i, end));
                    end
                }
                Pat::Repeat(inner_pats, separator, op) => {
                    let mut each: Vec<Binds> = Vec::new();
                    let mut at = i;
                    loop {
                        if *op == Op::Optional && !each.is_empty() {
                            break;
                        }
                        let mut one = Binds::new();
                        let ends = separator.as_deref().or(next);
                        let Some(end) = self.sequence(inner_pats, tokens, at, ends, &mut one) else { break };
                        if end == at {
                            break;
                        }
                        each.push(one);
                        at = end;
                        match separator {
                            Some(s) if self.token(tokens, at) == Some(s.as_str()) && at + 1 < tokens.len() => {
                                // The separator belongs to the repetition only if another round follows.
                                let mut probe = Binds::new();
                                match self.sequence(inner_pats, tokens, at + 1, ends, &mut probe) {
                                    Some(_) => at += 1,
                                    None => break,
                                }
                            }
                            Some(_) => break,
                            None => {}
                        }
                    }
                    if *op == Op::Some && each.is_empty() {
                        return None;
                    }
                    let mut names = Vec::new();
                    variables(inner_pats, &mut names);
                    for name in names {
                        let rounds = each.iter().map(|b| b.get(&name).cloned().unwrap_or(Bound::Many(Vec::new())));
                        let rounds = Bound::Many(rounds.collect());
                        binds.insert(name, rounds);
                    }
                    at
                }
            };
        }
        Some(i)
    }

    /// The end of a fragment of kind `fragment` starting at token `i`.
    fn fragment(&self, fragment: Fragment, tokens: &[Node<'_>], i: usize, follow: Option<&str>) -> Option<usize> {
        let kind = |j: usize| tokens.get(j).map(|n| n.kind_name());
        match fragment {
            Fragment::Tt => (i < tokens.len()).then_some(i + 1),
            Fragment::Ident => {
                let ident = matches!(kind(i)?, "identifier" | "self" | "super" | "crate" | "primitive_type");
                (ident && self.token(tokens, i) != Some("_")).then_some(i + 1)
            }
            Fragment::Block => self.token(tokens, i)?.starts_with('{').then_some(i + 1),
            Fragment::Literal => {
                let j = if self.token(tokens, i) == Some("-") { i + 1 } else { i };
                let literal = kind(j)?;
                (literal.ends_with("_literal") || matches!(self.token(tokens, j)?, "true" | "false")).then_some(j + 1)
            }
            Fragment::Lifetime => match kind(i)? {
                "lifetime" => Some(i + 1),
                "'" if kind(i + 1) == Some("identifier") => Some(i + 2),
                _ => None,
            },
            // A lone `;` is an empty statement, which is how `$($s:stmt)*` takes `a(); b();`.
            Fragment::Stmt if self.token(tokens, i) == Some(";") => Some(i + 1),
            Fragment::Vis => match self.token(tokens, i) {
                Some("pub") if self.token(tokens, i + 1).is_some_and(|t| t.starts_with('(')) => Some(i + 2),
                Some("pub") => Some(i + 1),
                _ => Some(i),
            },
            _ => {
                let angles = matches!(fragment, Fragment::Ty | Fragment::Path);
                let mut depth = 0usize;
                let mut j = i;
                while let Some(token) = self.token(tokens, j) {
                    if depth == 0 && (Some(token) == follow || fragment.stops_at(token)) {
                        break;
                    }
                    if angles {
                        match token {
                            "<" => depth += 1,
                            ">" => depth -= 1,
                            ">>" if depth >= 2 => depth -= 2,
                            ">>" => break,
                            _ => {}
                        }
                    }
                    j += 1;
                }
                (j > i).then_some(j)
            }
        }
    }
}

/// What tokens `start..end` matched.
fn span(tokens: &[Node<'_>], start: usize, end: usize) -> Bound {
    match (tokens.get(start), end.checked_sub(1).and_then(|last| tokens.get(last))) {
        (Some(first), Some(last)) if end > start => {
            Bound::One { start: first.start_byte(), end: last.end_byte(), row: first.start_position().row }
        }
        _ => Bound::One { start: 0, end: 0, row: 0 },
    }
}

fn variables(pats: &[Pat], out: &mut Vec<String>) {
    for pat in pats {
        match pat {
            Pat::Var(name, _) => out.push(name.clone()),
            Pat::Group(_, inner) | Pat::Repeat(inner, ..) => variables(inner, out),
            Pat::Token(_) => {}
        }
    }
}

/// An expansion being written.
struct Out<'a> {
    text: String,
    row: usize,
    copies: Vec<Segment>,
    source: &'a str,
}

impl Out<'_> {
    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.row += s.bytes().filter(|&b| b == b'\n').count();
    }

    fn copy(&mut self, start: usize, end: usize, row: usize) {
        if start < end {
            self.copies.push(Segment::new(self.text.len(), start, end - start, self.row, row));
            let source = self.source;
            self.push(&source[start..end]);
        }
    }
}

fn transcribe(pieces: &[Piece], binds: &Binds, rounds: &mut Vec<usize>, out: &mut Out<'_>) -> Result<(), ExpandError> {
    for piece in pieces {
        out.push(&piece.gap);
        match &piece.tpl {
            Tpl::Token(t) => out.push(t),
            Tpl::Var(name) => {
                let unbound = || ExpandError::Unbound(name.clone());
                match at_round(binds.get(name).ok_or_else(unbound)?, rounds).ok_or(ExpandError::Repetition)? {
                    &Bound::One { start, end, row } => out.copy(start, end, row),
                    Bound::Many(_) => return Err(unbound()),
                }
            }
            Tpl::Group { open, close, inner } => {
                out.push(open);
                transcribe(inner, binds, rounds, out)?;
                out.push(close);
            }
            Tpl::Repeat { inner, separator } => {
                let mut names = Vec::new();
                used(inner, &mut names);
                let mut counts = names.iter().filter_map(|n| binds.get(n)).filter_map(|b| match at_round(b, rounds)? {
                    Bound::Many(each) => Some(each.len()),
                    Bound::One { .. } => None,
                });
                let count = counts.next().ok_or(ExpandError::Repetition)?;
                if counts.any(|c| c != count) {
                    return Err(ExpandError::Repetition);
                }
                for k in 0..count {
                    if k > 0
                        && let Some(s) = separator
                    {
                        out.push(s);
                    }
                    rounds.push(k);
                    let done = transcribe(inner, binds, rounds, out);
                    rounds.pop();
                    done?;
                }
            }
        }
        if out.text.len() > MAX_LEN {
            return Err(ExpandError::TooLong);
        }
    }
    Ok(())
}

/// A variable's binding in the current rounds of the repetitions around it; one bound outside a
/// repetition stays the same in every round.
fn at_round<'b>(mut bound: &'b Bound, rounds: &[usize]) -> Option<&'b Bound> {
    for &k in rounds {
        match bound {
            Bound::Many(each) => bound = each.get(k)?,
            Bound::One { .. } => return Some(bound),
        }
    }
    Some(bound)
}

fn used(pieces: &[Piece], out: &mut Vec<String>) {
    for piece in pieces {
        match &piece.tpl {
            Tpl::Var(name) => out.push(name.clone()),
            Tpl::Group { inner, .. } | Tpl::Repeat { inner, .. } => used(inner, out),
            Tpl::Token(_) => {}
        }
    }
}

#[cfg(test)]
mod tests;
