//! The identifier tokenizer: how names, keys, paths and signatures are cut into search terms.
//!
//! `parseJSONBody` gives `parse`, `json`, `body` and the whole `parsejsonbody`;
//! `snake_case` gives `snake`, `case` and `snake_case`; `src/api/client.rs` gives `src`, `api`,
//! `client`, `rs`. So users find a symbol by any of its words, spelled in any convention,
//! and an exact name still ranks first because it also matches the whole-identifier term.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Name under which the tokenizer is registered in the index.
pub(crate) const IDENTIFIER_TOKENIZER: &str = "drsg_identifier";

/// Terms longer than this (in bytes) are dropped: they are noise, and Tantivy caps term length.
const MAX_TERM_BYTES: usize = 120;

/// Splits text into identifiers (runs of letters, digits and `_`), then each identifier on `_` and
/// on case boundaries; lowercases; also emits each multi-part identifier whole.
#[derive(Clone, Default)]
pub(crate) struct IdentifierTokenizer {
    tokens: Vec<Token>,
}

/// The token stream of [`IdentifierTokenizer`]: the tokens are computed up front.
pub(crate) struct IdentifierTokenStream<'a> {
    tokens: &'a mut Vec<Token>,
    current: Token,
    next: usize,
}

impl Tokenizer for IdentifierTokenizer {
    type TokenStream<'a> = IdentifierTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> IdentifierTokenStream<'a> {
        self.tokens.clear();
        identifier_tokens(text, &mut self.tokens);
        IdentifierTokenStream { tokens: &mut self.tokens, current: Token::default(), next: 0 }
    }
}

impl TokenStream for IdentifierTokenStream<'_> {
    fn advance(&mut self) -> bool {
        match self.tokens.get_mut(self.next) {
            Some(token) => {
                self.current = std::mem::take(token);
                self.next += 1;
                true
            }
            None => false,
        }
    }

    fn token(&self) -> &Token {
        &self.current
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.current
    }
}

/// The terms the identifier tokenizer makes of `text`, in order: each identifier's lowercased
/// parts, then the whole identifier when it differs from its only part.
pub fn identifier_terms(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    identifier_tokens(text, &mut tokens);
    tokens.into_iter().map(|token| token.text).collect()
}

/// Appends the tokens of `text` to `out`.
pub(crate) fn identifier_tokens(text: &str, out: &mut Vec<Token>) {
    let mut position = 0;
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if !is_identifier_char(c) {
            chars.next();
            continue;
        }
        let mut end = start;
        while let Some(&(i, c)) = chars.peek() {
            if !is_identifier_char(c) {
                break;
            }
            end = i + c.len_utf8();
            chars.next();
        }
        let before = out.len();
        split_identifier(text, start, end, &mut position, out);
        let parts = &out[before..];
        // A single part spanning the whole identifier is not repeated.
        let whole_is_a_part = parts.len() == 1 && (parts[0].offset_from, parts[0].offset_to) == (start, end);
        if !parts.is_empty() && !whole_is_a_part {
            push(out, &text[start..end], start, end, &mut position);
        }
    }
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Emits the parts of the identifier `text[start..end]`.
fn split_identifier(text: &str, start: usize, end: usize, position: &mut usize, out: &mut Vec<Token>) {
    let word = &text[start..end];
    let mut part_start: Option<usize> = None;
    let mut prev = '_';
    let mut chars = word.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, c)| c);
        if c == '_' {
            if let Some(s) = part_start.take() {
                push(out, &word[s..i], start + s, start + i, position);
            }
        } else if let Some(s) = part_start {
            // `parseJSON`: lower or digit → upper; `JSONBody`: the last capital of a run starts a word.
            let boundary = c.is_uppercase()
                && (prev.is_lowercase()
                    || prev.is_numeric()
                    || (prev.is_uppercase() && next.is_some_and(char::is_lowercase)));
            if boundary {
                push(out, &word[s..i], start + s, start + i, position);
                part_start = Some(i);
            }
        } else {
            part_start = Some(i);
        }
        prev = c;
    }
    if let Some(s) = part_start {
        push(out, &word[s..], start + s, end, position);
    }
}

fn push(out: &mut Vec<Token>, text: &str, from: usize, to: usize, position: &mut usize) {
    // Most identifiers are ASCII, whose lowercasing needs no Unicode tables.
    let text = if text.is_ascii() { text.to_ascii_lowercase() } else { text.to_lowercase() };
    if text.is_empty() || text.len() > MAX_TERM_BYTES {
        return;
    }
    out.push(Token { offset_from: from, offset_to: to, position: *position, text, position_length: 1 });
    *position += 1;
}
