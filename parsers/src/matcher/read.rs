//! Reading a query's text into [`Pattern`]s, with its kinds and fields looked up in the grammar.
//!
//! Anything outside the subset the matcher follows (repetitions, nested groups, supertypes, predicates
//! other than the text ones, a name the grammar lacks, a syntax error) is [`Unsupported`]: the caller
//! hands the query to tree-sitter instead, which also says what is wrong with a malformed one.

use std::num::NonZeroU16;

use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;
use tree_sitter::Language;

use super::{Kind, Pattern, Predicate, Step, Test, Unsupported};

pub(super) struct Reader<'a> {
    text: &'a str,
    at: usize,
    grammar: &'a Language,
    pub(super) names: Vec<String>,
}

type Read<T> = Result<T, Unsupported>;

impl<'a> Reader<'a> {
    pub(super) fn new(text: &'a str, grammar: &'a Language) -> Reader<'a> {
        Reader { text, at: 0, grammar, names: Vec::new() }
    }

    fn unsupported<T>(&self, what: &str) -> Read<T> {
        let line = self.text[..self.at.min(self.text.len())].matches('\n').count() + 1;
        Err(Unsupported(format!("line {line}: {what}")))
    }

    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    /// Skips spaces and `;` comments; the next character, if any.
    fn peek(&mut self) -> Option<char> {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start();
            self.at += rest.len() - trimmed.len();
            if trimmed.starts_with(';') {
                self.at += trimmed.find('\n').unwrap_or(trimmed.len());
                continue;
            }
            return trimmed.chars().next();
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// A name: letters, digits, `_`, `-`, `.`, `?`, `!` (captures and predicates hold the last four).
    fn name(&mut self) -> &'a str {
        let rest = self.rest();
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '?' | '!')))
            .unwrap_or(rest.len());
        self.at += end;
        &rest[..end]
    }

    fn string(&mut self) -> Read<String> {
        if !self.eat('"') {
            return self.unsupported("a string expected");
        }
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.at += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, 'r')) => out.push('\r'),
                    Some((_, '0')) => out.push('\0'),
                    Some((_, c)) => out.push(c),
                    None => break,
                },
                c => out.push(c),
            }
        }
        self.unsupported("an unterminated string")
    }

    fn capture(&mut self, name: &str) -> u32 {
        match self.names.iter().position(|n| n == name) {
            Some(i) => i as u32,
            None => {
                self.names.push(name.to_owned());
                self.names.len() as u32 - 1
            }
        }
    }

    /// The next pattern of the query, `None` at its end.
    pub(super) fn pattern(&mut self) -> Read<Option<Pattern>> {
        let Some(c) = self.peek() else { return Ok(None) };
        let mut predicates = Vec::new();
        let group = c == '(' && {
            let after = self.rest()[1..].trim_start();
            after.starts_with(['(', '[', '"'])
        };
        let step = if group {
            self.at += 1;
            let mut step = Step::any_parent();
            self.children(&mut step, &mut predicates)?;
            if step.children.is_empty() {
                return self.unsupported("an empty group");
            }
            step
        } else {
            self.step(&mut predicates)?
        };
        if step.optional {
            return self.unsupported("a quantifier on a whole pattern");
        }
        let single = super::mark_eager(&step, &mut predicates);
        let required = super::required_texts(&step, group, &predicates);
        Ok(Some(Pattern { step, group, predicates, required, single }))
    }

    /// One node pattern with its quantifier and captures.
    fn step(&mut self, predicates: &mut Vec<Predicate>) -> Read<Step> {
        let mut step = match self.peek() {
            Some('(') => {
                self.at += 1;
                self.peek();
                let name = self.name();
                let kind = match name {
                    "" => return self.unsupported("a group inside a pattern"),
                    "_" => Kind::AnyNamed,
                    "ERROR" | "MISSING" => return self.unsupported("an error or missing node"),
                    _ if self.rest().starts_with('/') => return self.unsupported("a supertype"),
                    _ => Kind::Named(self.kind(name, true)?),
                };
                let mut step = Step::of(kind);
                self.children(&mut step, predicates)?;
                step
            }
            Some('[') => {
                self.at += 1;
                let mut alternatives = Vec::new();
                while !self.eat(']') {
                    if self.peek().is_none() {
                        return self.unsupported("an unclosed alternation");
                    }
                    alternatives.push(self.step(predicates)?);
                }
                if alternatives.iter().any(|a| a.optional) {
                    return self.unsupported("a quantifier inside an alternation");
                }
                Step::of(Kind::Alternatives(alternatives))
            }
            Some('"') => {
                let text = self.string()?;
                Step::of(Kind::Anonymous(self.kind(&text, false)?))
            }
            Some('_') => {
                self.at += 1;
                Step::of(Kind::Any)
            }
            _ => return self.unsupported("a node pattern expected"),
        };
        match self.rest().chars().next() {
            Some('?') => {
                self.at += 1;
                step.optional = true;
            }
            Some('*' | '+') => return self.unsupported("a repetition"),
            _ => {}
        }
        while self.peek() == Some('@') {
            self.at += 1;
            let name = self.name();
            if name.is_empty() {
                return self.unsupported("a capture without a name");
            }
            let capture = self.capture(name);
            step.captures.push(capture);
        }
        Ok(step)
    }

    /// A parent's child patterns, anchors, field names, negated fields and predicates, to its `)`.
    fn children(&mut self, parent: &mut Step, predicates: &mut Vec<Predicate>) -> Read<()> {
        let mut anchored = false;
        loop {
            match self.peek() {
                None => return self.unsupported("an unclosed pattern"),
                Some(')') => {
                    self.at += 1;
                    parent.anchored_end = anchored;
                    return Ok(());
                }
                Some('.') => {
                    self.at += 1;
                    anchored = true;
                }
                Some('!') => {
                    self.at += 1;
                    let name = self.name();
                    let field = self.field(name)?;
                    parent.absent.push(field);
                }
                Some('(') if self.rest()[1..].trim_start().starts_with('#') => {
                    self.at += 1;
                    self.peek();
                    predicates.push(self.predicate()?);
                }
                Some(c) if c.is_alphabetic() || (c == '_' && self.after_field()) => {
                    let name = self.name();
                    if !self.eat(':') {
                        return self.unsupported("a field name without `:`");
                    }
                    let field = self.field(name)?;
                    let mut child = self.step(predicates)?;
                    child.field = Some(field);
                    child.anchored = std::mem::take(&mut anchored);
                    parent.children.push(child);
                }
                Some(_) => {
                    let mut child = self.step(predicates)?;
                    child.anchored = std::mem::take(&mut anchored);
                    parent.children.push(child);
                }
            }
        }
    }

    /// Whether the name at the cursor is followed by `:` (a field name starting with `_`).
    fn after_field(&self) -> bool {
        let rest = self.rest();
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        rest[end..].trim_start().starts_with(':')
    }

    fn field(&self, name: &str) -> Read<NonZeroU16> {
        match self.grammar.field_id_for_name(name) {
            Some(id) => Ok(id),
            None => self.unsupported(&format!("no field `{name}` in the grammar")),
        }
    }

    fn kind(&self, name: &str, named: bool) -> Read<u16> {
        let id = self.grammar.id_for_node_kind(name, named);
        if id == 0 || !self.grammar.node_kind_is_visible(id) || self.grammar.node_kind_is_supertype(id) {
            return self.unsupported(&format!("`{name}` is no node kind of the grammar the matcher follows"));
        }
        Ok(id)
    }

    /// `(#eq? @a "x")`, `(#eq? @a @b)`, `(#any-of? @a "x" "y")`, `(#match? @a "re")` and their `not-` forms.
    fn predicate(&mut self) -> Read<Predicate> {
        self.at += 1;
        let op = self.name();
        let (negated, op) = match op.strip_prefix("not-") {
            Some(op) => (true, op),
            None => (false, op),
        };
        if !self.eat('@') {
            return self.unsupported("a predicate without a capture first");
        }
        let name = self.name();
        let capture = self.capture(name);
        let mut args = Vec::new();
        loop {
            match self.peek() {
                Some(')') => {
                    self.at += 1;
                    break;
                }
                Some('"') => args.push(Err(self.string()?)),
                Some('@') => {
                    self.at += 1;
                    let name = self.name();
                    args.push(Ok(self.capture(name)));
                }
                _ => return self.unsupported("a predicate's argument"),
            }
        }
        let test = match (op, args.as_slice()) {
            ("eq?", [Err(text)]) => Test::AnyOf(vec![text.clone().into_bytes()]),
            ("eq?", [Ok(other)]) => Test::Same(*other),
            ("any-of?", texts) if !texts.is_empty() && texts.iter().all(|t| t.is_err()) => {
                Test::AnyOf(texts.iter().filter_map(|t| t.clone().err()).map(String::into_bytes).collect())
            }
            ("match?", [Err(pattern)]) => match regex(pattern) {
                Some(regex) => Test::Match(regex),
                None => return self.unsupported("a regular expression that does not compile"),
            },
            _ => return self.unsupported(&format!("the predicate `#{op}`")),
        };
        Ok(Predicate { capture, test, negated, eager: false })
    }
}

/// The regex `regex::bytes::Regex::new(pattern)` builds (tree-sitter's predicates use it; the same
/// configuration: leftmost-first, bytes, its size limits), without the full DFA the engine builds for a
/// small pattern: three quarters of building each of the flask plugin's regexes (2.9 M instructions of
/// 3.5 M, callgrind), where a capture's short text is matched as fast without it.
fn regex(pattern: &str) -> Option<Regex> {
    let config = meta::Config::new()
        .nfa_size_limit(Some(10 * (1 << 20)))
        .hybrid_cache_capacity(2 * (1 << 20))
        .match_kind(regex_automata::MatchKind::LeftmostFirst)
        .utf8_empty(false)
        .dfa(false);
    meta::Builder::new().configure(config).syntax(syntax::Config::new().utf8(false)).build(pattern).ok()
}
