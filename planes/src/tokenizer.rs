//! The identifier tokenizer: how names, keys, paths and signatures are cut into search terms.
//!
//! `parseJSONBody` gives `parse`, `json`, `body` and the whole `parsejsonbody`;
//! `snake_case` gives `snake`, `case` and `snake_case`; `src/api/client.rs` gives `src`, `api`,
//! `client`, `rs`. So users find a symbol by any of its words, spelled in any convention,
//! and an exact name still ranks first because it also matches the whole-identifier term.
//!
//! The tokenizer has a byte path for ASCII text, held to the char path by a test. A text the same
//! as the one before (a file's symbols repeat their `file`) takes the tokens already cut, and one
//! that begins as the one before (consecutive keys of a file) keeps the tokens of the identifiers
//! before the last separator they share; each field has its own tokenizer, and nothing changes the
//! tokens it hands out. Documentation text has its own `en_stem` analyzer: Tantivy's pipeline with
//! each word's stem remembered, held to Tantivy's built-in analyzer by a test (an index's schema
//! names the analyzer, so the two must give the same terms).

use tantivy::tokenizer::{
    Language, LowerCaser, RawTokenizer, RemoveLongFilter, SimpleTokenizer, Stemmer, TextAnalyzer, Token, TokenFilter,
    TokenStream, Tokenizer,
};

/// Name under which the tokenizer is registered in the index.
pub(crate) const IDENTIFIER_TOKENIZER: &str = "drsg_identifier";

/// Terms longer than this (in bytes) are dropped: they are noise, and Tantivy caps term length.
const MAX_TERM_BYTES: usize = 120;

/// Splits text into identifiers (runs of letters, digits and `_`), then each identifier on `_` and
/// on case boundaries; lowercases; also emits each multi-part identifier whole.
///
/// The tokens of one text are kept for the next: each token's text keeps its allocation, so a bulk write
/// (millions of terms) allocates per new longest text, not per term. A text the same as the one before
/// is not cut again: Tantivy gives each field its own tokenizer, and a file's symbols come one after
/// another, so the `file` field repeats its text for most documents.
#[derive(Clone, Default)]
pub(crate) struct IdentifierTokenizer {
    tokens: Vec<Token>,
    /// The text `tokens` were last cut from, and how many tokens it gave (`None` before the first, and
    /// once a stream has handed out a token to change).
    last: Option<(String, usize)>,
}

/// The token stream of [`IdentifierTokenizer`]: the tokens are computed up front.
pub(crate) struct IdentifierTokenStream<'a> {
    tokens: &'a mut [Token],
    /// How many tokens `advance` has handed out; the current one is the last of them.
    taken: usize,
    /// The tokenizer's memory of its last text, forgotten when a token is handed out to be changed.
    last: &'a mut Option<(String, usize)>,
}

impl Tokenizer for IdentifierTokenizer {
    type TokenStream<'a> = IdentifierTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> IdentifierTokenStream<'a> {
        // Tokens are reused only as they were cut: a stream that hands one out through `token_mut` (a
        // filter would; Tantivy's indexer reads them through `TokenStream::process`) forgets the text.
        let len = match &mut self.last {
            Some((last, len)) if last == text => *len,
            remembered => {
                let resume = match remembered {
                    Some((last, len)) => Resume::after_shared(last, text, &self.tokens[..*len]),
                    None => Resume::START,
                };
                let len = identifier_tokens_resumed(text, &mut self.tokens, resume);
                match remembered {
                    Some((last, last_len)) => {
                        last.clear();
                        last.push_str(text);
                        *last_len = len;
                    }
                    None => *remembered = Some((text.to_owned(), len)),
                }
                len
            }
        };
        if len == 0 {
            // A text without terms: one spare token, already taken, so that `advance` says false at once and
            // `token` (which Tantivy may ask before `advance`) still has something to show.
            if self.tokens.is_empty() {
                self.tokens.push(Token::default());
            }
            return IdentifierTokenStream { tokens: &mut self.tokens[..1], taken: 1, last: &mut self.last };
        }
        IdentifierTokenStream { tokens: &mut self.tokens[..len], taken: 0, last: &mut self.last }
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
        *self.last = None;
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
    identifier_tokens_resumed(text, tokens, Resume::START)
}

/// Where cutting a text may start when the first `kept` tokens already written are its own: those of the
/// identifiers that end before byte `from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Resume {
    from: usize,
    kept: usize,
}

impl Resume {
    const START: Resume = Resume { from: 0, kept: 0 };

    /// How much of `last`'s `tokens` `text` shares: the tokens of the identifiers that end before the last
    /// separator (an ASCII byte that is no part of an identifier) of the bytes the two texts begin with.
    /// Consecutive keys of one file share their module's path (`django.db.models.Model.save`, then
    /// `…Model.delete`); the identifiers before that separator are the same, and so are their tokens.
    fn after_shared(last: &str, text: &str, tokens: &[Token]) -> Resume {
        let shared = shared_start(last.as_bytes(), text.as_bytes());
        let Some(separator) = text.as_bytes()[..shared].iter().rposition(|&b| b.is_ascii() && !is_identifier_byte(b))
        else {
            return Resume::START;
        };
        let kept = tokens.iter().take_while(|token| token.offset_to <= separator).count();
        Resume { from: separator + 1, kept }
    }
}

/// How many bytes `a` and `b` begin with in common, compared eight at a time.
fn shared_start(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let word = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("eight bytes"));
    let mut i = 0;
    while i + 8 <= n {
        let differ = word(a, i) ^ word(b, i);
        if differ != 0 {
            return i + (differ.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + a[i..n].iter().zip(&b[i..n]).take_while(|(x, y)| x == y).count()
}

fn identifier_tokens_resumed(text: &str, tokens: &mut Vec<Token>, resume: Resume) -> usize {
    if text.is_ascii() {
        ascii_identifier_tokens(text, tokens, resume)
    } else {
        unicode_identifier_tokens(text, tokens, resume)
    }
}

/// [`identifier_tokens`] of any text, char by char.
fn unicode_identifier_tokens(text: &str, tokens: &mut Vec<Token>, resume: Resume) -> usize {
    let mut out = Sink { tokens, len: resume.kept, position: resume.kept };
    let mut chars = text[resume.from..].char_indices().map(|(i, c)| (i + resume.from, c)).peekable();
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

/// [`identifier_tokens`] of ASCII text, byte by byte: the same tokens (a test holds the two together), with
/// no character decoding or Unicode case tables. On Django the identifier tokenizer fell from 1.6 % to 1.2 %
/// of the run's CPU time (perf samples).
fn ascii_identifier_tokens(text: &str, tokens: &mut Vec<Token>, resume: Resume) -> usize {
    let bytes = text.as_bytes();
    let mut out = Sink { tokens, len: resume.kept, position: resume.kept };
    let mut i = resume.from;
    while i < bytes.len() {
        if !is_identifier_byte(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_identifier_byte(bytes[i]) {
            i += 1;
        }
        let before = out.len;
        split_ascii_identifier(text, start, i, &mut out);
        let parts = &out.tokens[before..out.len];
        let whole_is_a_part = parts.len() == 1 && (parts[0].offset_from, parts[0].offset_to) == (start, i);
        if !parts.is_empty() && !whole_is_a_part {
            out.push_ascii(&text[start..i], start, i);
        }
    }
    out.len
}

fn is_identifier_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// [`split_identifier`] of an ASCII identifier.
fn split_ascii_identifier(text: &str, start: usize, end: usize, out: &mut Sink<'_>) {
    let word = &text.as_bytes()[start..end];
    let mut part_start: Option<usize> = None;
    let mut prev = b'_';
    for (i, &c) in word.iter().enumerate() {
        if c == b'_' {
            if let Some(s) = part_start.take() {
                out.push_ascii(&text[start + s..start + i], start + s, start + i);
            }
        } else if let Some(s) = part_start {
            let next = word.get(i + 1).copied();
            let boundary = c.is_ascii_uppercase()
                && (prev.is_ascii_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase())));
            if boundary {
                out.push_ascii(&text[start + s..start + i], start + s, start + i);
                part_start = Some(i);
            }
        } else {
            part_start = Some(i);
        }
        prev = c;
    }
    if let Some(s) = part_start {
        out.push_ascii(&text[start + s..end], start + s, end);
    }
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
        // Most identifiers are ASCII, whose lowercasing needs no Unicode tables.
        if text.is_ascii() {
            self.push_ascii(text, from, to);
        } else {
            self.push_lowercased(&text.to_lowercase(), from, to);
        }
    }

    /// Pushes ASCII `text`, lowercased.
    fn push_ascii(&mut self, text: &str, from: usize, to: usize) {
        let token = self.next_token();
        token.text.push_str(text);
        token.text.make_ascii_lowercase();
        self.keep(from, to);
    }

    fn push_lowercased(&mut self, lowercase: &str, from: usize, to: usize) {
        self.next_token().text.push_str(lowercase);
        self.keep(from, to);
    }

    /// The token after those written, its text cleared.
    fn next_token(&mut self) -> &mut Token {
        if self.len == self.tokens.len() {
            self.tokens.push(Token::default());
        }
        let token = &mut self.tokens[self.len];
        token.text.clear();
        token
    }

    /// Counts the token being written, unless its text is empty or too long to be a term.
    fn keep(&mut self, from: usize, to: usize) {
        let token = &mut self.tokens[self.len];
        if token.text.is_empty() || token.text.len() > MAX_TERM_BYTES {
            return;
        }
        (token.offset_from, token.offset_to, token.position, token.position_length) = (from, to, self.position, 1);
        self.len += 1;
        self.position += 1;
    }
}

/// The analyzer of documentation text: the same terms as Tantivy's built-in `en_stem` (words of letters and
/// digits, those of 40 bytes or more dropped, lowercased, then Snowball's English stems), with each word's
/// stem remembered. Documentation repeats its words, and stemming a word costs far more than looking it up: the
/// stemmer was a seventh of the text index's time on tokio's doc comments, and fell from 0.6 % to 0.2 % of
/// Django's whole run (perf samples).
pub(crate) fn english_analyzer() -> TextAnalyzer {
    english_analyzer_remembering(REMEMBERED_STEMS)
}

fn english_analyzer_remembering(capacity: usize) -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(RememberedStems { capacity })
        .build()
}

/// Stems remembered per analyzer (each segment builder has its own, about 2 MB when full); past this many
/// words, new words are stemmed without being remembered.
const REMEMBERED_STEMS: usize = 1 << 15;

/// A filter that replaces each token by its English stem, remembering up to `capacity` stems.
#[derive(Clone, Copy)]
struct RememberedStems {
    capacity: usize,
}

impl TokenFilter for RememberedStems {
    type Tokenizer<T: Tokenizer> = RememberedStemsFilter<T>;

    fn transform<T: Tokenizer>(self, inner: T) -> RememberedStemsFilter<T> {
        // Tantivy's own stemmer computes each stem, run over a word at a time.
        let stemmer = TextAnalyzer::builder(RawTokenizer::default()).filter(Stemmer::new(Language::English)).build();
        RememberedStemsFilter { inner, stemmer, stems: foldhash::HashMap::default(), capacity: self.capacity }
    }
}

#[derive(Clone)]
struct RememberedStemsFilter<T> {
    inner: T,
    stemmer: TextAnalyzer,
    /// Word (lowercased) → stem.
    stems: foldhash::HashMap<Box<str>, Box<str>>,
    capacity: usize,
}

impl<T: Tokenizer> Tokenizer for RememberedStemsFilter<T> {
    type TokenStream<'a> = RememberedStemsStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        RememberedStemsStream {
            tail: self.inner.token_stream(text),
            stemmer: &mut self.stemmer,
            stems: &mut self.stems,
            capacity: self.capacity,
        }
    }
}

struct RememberedStemsStream<'a, S> {
    tail: S,
    stemmer: &'a mut TextAnalyzer,
    stems: &'a mut foldhash::HashMap<Box<str>, Box<str>>,
    capacity: usize,
}

impl<S: TokenStream> TokenStream for RememberedStemsStream<'_, S> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if let Some(stem) = self.stems.get(token.text.as_str()) {
            if **stem != *token.text {
                token.text.clear();
                token.text.push_str(stem);
            }
            return true;
        }
        let stem = {
            let mut stream = self.stemmer.token_stream(&token.text);
            if stream.advance() { stream.token().text.clone() } else { token.text.clone() }
        };
        if self.stems.len() < self.capacity {
            self.stems.insert(token.text.as_str().into(), stem.as_str().into());
        }
        token.text = stem;
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every token (text, position, offsets) of `stream`.
    /// A fixed sequence of pseudo-random numbers from `seed` (xorshift), for generated test texts.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    fn tokens(mut stream: impl TokenStream) -> Vec<(String, usize, usize, usize)> {
        let mut out = Vec::new();
        while stream.advance() {
            let token = stream.token();
            out.push((token.text.clone(), token.position, token.offset_from, token.offset_to));
        }
        out
    }

    #[test]
    fn ascii_text_is_cut_as_any_text_is() {
        const ALPHABET: &[u8] = b"aAbBzZ09_ .:/-<>(),xYQ";
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let (mut fast, mut general) = (Vec::new(), Vec::new());
        let long = format!("{} x_{}", "Ab".repeat(70), "y".repeat(130));
        let mut texts: Vec<String> = vec![
            "".into(),
            "parseJSONBody snake_case src/api/Client.rs".into(),
            "HTTP2Server __init__ x86_64".into(),
            long,
        ];
        for _ in 0..2_000 {
            let len = (next() % 40) as usize;
            texts.push((0..len).map(|_| char::from(ALPHABET[(next() % ALPHABET.len() as u64) as usize])).collect());
        }
        for text in &texts {
            let n = ascii_identifier_tokens(text, &mut fast, Resume::START);
            let m = unicode_identifier_tokens(text, &mut general, Resume::START);
            let shown = |tokens: &[Token]| -> Vec<_> {
                tokens.iter().map(|t| (t.text.clone(), t.offset_from, t.offset_to, t.position)).collect()
            };
            assert_eq!(shown(&fast[..n]), shown(&general[..m]), "{text:?}");
        }
    }

    #[test]
    fn a_text_that_shares_its_start_with_the_one_before_gets_its_own_tokens() {
        // The long piece makes a term over the length cap, which is dropped.
        let long = "Ab".repeat(70);
        let pieces =
            ["a", "B", "_", ".", "::", "/", " ", "x1", "Éa", "ß", "HTTPServer", "get_form", "é", long.as_str()];
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut tokenizer = IdentifierTokenizer::default();
        let mut resumed = 0;
        let mut text = String::new();
        for _ in 0..3_000 {
            // Keep a random start of the text before (cut on a char boundary), then add pieces.
            let mut keep = (next() % (text.len() as u64 + 1)) as usize;
            while !text.is_char_boundary(keep) {
                keep -= 1;
            }
            text.truncate(keep);
            for _ in 0..next() % 6 {
                text.push_str(pieces[(next() % pieces.len() as u64) as usize]);
            }
            if let Some((last, len)) = &tokenizer.last {
                resumed += usize::from(Resume::after_shared(last, &text, &tokenizer.tokens[..*len]).kept > 0);
            }
            let expected = tokens(IdentifierTokenizer::default().token_stream(&text));
            assert_eq!(tokens(tokenizer.token_stream(&text)), expected, "{text:?}");
        }
        assert!(resumed > 500, "only {resumed} texts reused tokens of the one before");
        let last = "django.db.models.Model.save";
        let mut cut = Vec::new();
        let len = identifier_tokens(last, &mut cut);
        assert_eq!(
            Resume::after_shared(last, "django.db.models.Model.delete", &cut[..len]),
            Resume { from: 23, kept: 4 },
            "django, db, models and model come before the last shared dot"
        );
    }

    #[test]
    fn shared_starts_are_counted_byte_by_byte() {
        let texts = ["", "a", "abcdefgh", "abcdefgi", "abcdefghijklmnopq", "abcdefghijklmnopr", "abcdefghX", "b"];
        for a in texts {
            for b in texts {
                let slow = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
                assert_eq!(shared_start(a.as_bytes(), b.as_bytes()), slow, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn remembered_stems_are_tantivy_s_english_analyzer_s_tokens() {
        let mut builtin = tantivy::tokenizer::TokenizerManager::default().get("en_stem").expect("tantivy has en_stem");
        let mut ours = english_analyzer();
        // Room for three words: the rest are stemmed afresh each time.
        let mut full = english_analyzer_remembering(3);
        let texts = [
            "Returns the running futures, running again: RUNNING tasks were running.",
            "Configure the settings (this happens as a side effect of accessing the first setting)",
            "",
            "été naïve Übermäßig größer caf\u{e9}s",
            "a_snake_case identifierWithCaps 42 x86_64 v1.2.3",
            "supercalifragilisticexpialidociousandthensomemorelettersbeyondforty words",
            "generously generous generosity generously",
        ];
        // Twice over: the second pass reads every stem from what the first remembered.
        for text in texts.iter().chain(&texts) {
            let expected = tokens(builtin.token_stream(text));
            assert_eq!(tokens(ours.token_stream(text)), expected, "{text:?}");
            assert_eq!(tokens(full.token_stream(text)), expected, "{text:?} with a full memory");
        }
    }

    #[test]
    fn a_reused_tokenizer_gives_each_text_its_own_tokens() {
        let mut tokenizer = IdentifierTokenizer::default();
        // Texts repeated one after the other are the remembered ones.
        let texts = [
            "parseJSONBody snake_case src/api/Client.rs",
            "Ab",
            "Ab",
            "",
            "",
            "!!",
            "ÉtéΣ x_y",
            "parse",
            "parse",
            "parse",
        ];
        for text in texts.into_iter().chain(texts) {
            let expected: Vec<_> = identifier_terms(text)
                .into_iter()
                .zip(tokens(IdentifierTokenizer::default().token_stream(text)))
                .map(|(term, (_, position, from, to))| (term, position, from, to))
                .collect();
            assert_eq!(expected.len(), identifier_terms(text).len(), "{text:?}");
            assert_eq!(tokens(tokenizer.token_stream(text)), expected, "{text:?}");
        }
        assert_eq!(identifier_terms("parseJSONBody Ab"), ["parse", "json", "body", "parsejsonbody", "ab"]);
        assert!(tokens(tokenizer.token_stream("")).is_empty());
        assert!(!tokenizer.tokens.is_empty(), "buffers are kept");
        // A token changed through the stream is not handed out again for the same text.
        let mut stream = tokenizer.token_stream("parse");
        assert!(stream.advance());
        stream.token_mut().text.push('!');
        assert_eq!(tokens(tokenizer.token_stream("parse")), [("parse".to_owned(), 0, 0, 5)]);
    }
}
