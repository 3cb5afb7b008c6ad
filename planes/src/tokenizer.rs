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
///
/// The tokens of one text are kept for the next: each token's text keeps its allocation, so a bulk write
/// (millions of terms) allocates per new longest text, not per term.
#[derive(Clone, Default)]
pub(crate) struct IdentifierTokenizer {
    tokens: Vec<Token>,
}

/// The token stream of [`IdentifierTokenizer`]: the tokens are computed up front.
pub(crate) struct IdentifierTokenStream<'a> {
    tokens: &'a mut [Token],
    /// How many tokens `advance` has handed out; the current one is the last of them.
    taken: usize,
}

impl Tokenizer for IdentifierTokenizer {
    type TokenStream<'a> = IdentifierTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> IdentifierTokenStream<'a> {
        let len = identifier_tokens(text, &mut self.tokens);
        if len == 0 {
            // A text without terms: one spare token, already taken, so that `advance` says false at once and
            // `token` (which Tantivy may ask before `advance`) still has something to show.
            if self.tokens.is_empty() {
                self.tokens.push(Token::default());
            }
            return IdentifierTokenStream { tokens: &mut self.tokens[..1], taken: 1 };
        }
        IdentifierTokenStream { tokens: &mut self.tokens[..len], taken: 0 }
    }
}

impl TokenStream for IdentifierTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.taken < self.tokens.len() {
            self.taken += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        &self.tokens[self.taken.saturating_sub(1)]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.taken.saturating_sub(1)]
    }
}

/// The terms the identifier tokenizer makes of `text`, in order: each identifier's lowercased
/// parts, then the whole identifier when it differs from its only part.
pub fn identifier_terms(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let len = identifier_tokens(text, &mut tokens);
    tokens.truncate(len);
    tokens.into_iter().map(|token| token.text).collect()
}

/// Writes the tokens of `text` over the start of `tokens` (reusing their text buffers, adding tokens when
/// there are more) and returns how many there are; entries after them are left over from earlier texts.
pub(crate) fn identifier_tokens(text: &str, tokens: &mut Vec<Token>) -> usize {
    let mut out = Sink { tokens, len: 0, position: 0 };
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
        let before = out.len;
        split_identifier(text, start, end, &mut out);
        let parts = &out.tokens[before..out.len];
        // A single part spanning the whole identifier is not repeated.
        let whole_is_a_part = parts.len() == 1 && (parts[0].offset_from, parts[0].offset_to) == (start, end);
        if !parts.is_empty() && !whole_is_a_part {
            out.push(&text[start..end], start, end);
        }
    }
    out.len
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Emits the parts of the identifier `text[start..end]`.
fn split_identifier(text: &str, start: usize, end: usize, out: &mut Sink<'_>) {
    let word = &text[start..end];
    let mut part_start: Option<usize> = None;
    let mut prev = '_';
    let mut chars = word.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, c)| c);
        if c == '_' {
            if let Some(s) = part_start.take() {
                out.push(&word[s..i], start + s, start + i);
            }
        } else if let Some(s) = part_start {
            // `parseJSON`: lower or digit → upper; `JSONBody`: the last capital of a run starts a word.
            let boundary = c.is_uppercase()
                && (prev.is_lowercase()
                    || prev.is_numeric()
                    || (prev.is_uppercase() && next.is_some_and(char::is_lowercase)));
            if boundary {
                out.push(&word[s..i], start + s, start + i);
                part_start = Some(i);
            }
        } else {
            part_start = Some(i);
        }
        prev = c;
    }
    if let Some(s) = part_start {
        out.push(&word[s..], start + s, end);
    }
}

/// Tokens being written over a reused buffer (see [`identifier_tokens`]).
struct Sink<'a> {
    tokens: &'a mut Vec<Token>,
    /// Tokens written so far.
    len: usize,
    position: usize,
}

impl Sink<'_> {
    fn push(&mut self, text: &str, from: usize, to: usize) {
        if self.len == self.tokens.len() {
            self.tokens.push(Token::default());
        }
        let token = &mut self.tokens[self.len];
        token.text.clear();
        // Most identifiers are ASCII, whose lowercasing needs no Unicode tables.
        if text.is_ascii() {
            token.text.push_str(text);
            token.text.make_ascii_lowercase();
        } else {
            token.text.push_str(&text.to_lowercase());
        }
        if token.text.is_empty() || token.text.len() > MAX_TERM_BYTES {
            return;
        }
        (token.offset_from, token.offset_to, token.position, token.position_length) = (from, to, self.position, 1);
        self.len += 1;
        self.position += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The terms and positions a stream of `tokenizer` gives for `text`.
    fn stream(tokenizer: &mut IdentifierTokenizer, text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut stream = tokenizer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            let token = stream.token();
            out.push((token.text.clone(), token.position, token.offset_from, token.offset_to));
        }
        out
    }

    #[test]
    fn a_reused_tokenizer_gives_each_text_its_own_tokens() {
        let mut tokenizer = IdentifierTokenizer::default();
        let texts = ["parseJSONBody snake_case src/api/Client.rs", "Ab", "", "!!", "ÉtéΣ x_y", "parse"];
        for text in texts.into_iter().chain(texts) {
            let expected: Vec<_> = identifier_terms(text)
                .into_iter()
                .zip(stream(&mut IdentifierTokenizer::default(), text))
                .map(|(term, (_, position, from, to))| (term, position, from, to))
                .collect();
            assert_eq!(expected.len(), identifier_terms(text).len(), "{text:?}");
            assert_eq!(stream(&mut tokenizer, text), expected, "{text:?}");
        }
        assert_eq!(identifier_terms("parseJSONBody Ab"), ["parse", "json", "body", "parsejsonbody", "ab"]);
        assert!(stream(&mut tokenizer, "").is_empty());
        assert!(!tokenizer.tokens.is_empty(), "buffers are kept");
    }
}
