//! `grep`: ripgrep-style text search over the plane's tree (grep-searcher), each hit followed by the
//! key of the symbol that encloses it. Files come from the caller's [`SourceFiles`], which keeps the
//! search inside the tree and honours ignore rules unless `all_files`.
//!
//! [`SourceFiles`]: crate::SourceFiles

use std::sync::Mutex;

use grep_matcher::Matcher as _;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use serde::{Deserialize, Serialize};

use crate::render::Text;
use crate::snippet::{edited_since, innermost, tree_root};
use crate::{Answer, Error, Result, Session};

const DEFAULT_RESULTS: usize = 50;
const MAX_RESULTS: usize = 2_000;
const MAX_CONTEXT: usize = 10;
/// Characters kept of one line (minified files have very long ones).
const LINE_CHARS: usize = 300;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct GrepParams {
    pub pattern: String,
    /// Treat the pattern as a regular expression (default: a literal).
    pub regex: Option<bool>,
    pub ignore_case: Option<bool>,
    /// A file or directory of the tree to search in (default: the whole tree).
    pub path: Option<String>,
    /// Lines of context around each hit (default 0, at most 10).
    pub context: Option<usize>,
    /// Hits shown (default 50, at most 2,000); all hits are counted.
    pub max_results: Option<usize>,
    /// Hits skipped before the first one shown (in path, then line order).
    pub offset: Option<usize>,
    /// Search files that ignore rules exclude, and hidden files, too.
    pub all_files: Option<bool>,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct GrepOutput {
    pub plane: String,
    pub freshness: String,
    pub pattern: String,
    /// Matching lines in the whole search.
    pub total: usize,
    pub files_with_hits: usize,
    /// Lines of context asked for.
    pub context: usize,
    /// Binary files (a NUL byte) whose bytes match the pattern: not listed, as `rg` does not list
    /// them; binary files that cannot match are not counted.
    pub binary_files: usize,
    /// Matching lines skipped before the first one listed.
    pub offset: usize,
    /// Matching lines listed.
    pub shown: usize,
    pub files: Vec<GrepFile>,
}

#[derive(Debug, Serialize)]
pub struct GrepFile {
    pub path: String,
    /// Set when the file was edited after the plane was synced (enclosing symbols may be off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    pub lines: Vec<GrepLine>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GrepLine {
    pub line: u64,
    pub text: String,
    /// A hit (false for a context line).
    pub hit: bool,
    /// Key of the innermost symbol around a hit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
}

pub fn grep(s: &Session<'_>, p: &GrepParams) -> Result<GrepOutput> {
    let plane = s.plane(p.plane.as_deref())?;
    grep_in(s, s.files, &plane, p, true)
}

/// `grep` over `files` (the working tree, or a revision's tree for `recall`). With `current`, hits get
/// their enclosing symbol from the plane and files edited since the plane was written are flagged;
/// a past revision's lines do not match the plane, so neither applies to it.
pub(crate) fn grep_in(
    s: &Session<'_>,
    files: &dyn crate::SourceFiles,
    plane: &drsg_planes::PlaneInfo,
    p: &GrepParams,
    current: bool,
) -> Result<GrepOutput> {
    if p.pattern.is_empty() {
        return Err(Error::InvalidArgument("the pattern is empty".into()));
    }
    let max_results = p.max_results.unwrap_or(DEFAULT_RESULTS);
    if max_results == 0 || max_results > MAX_RESULTS {
        return Err(Error::InvalidArgument(format!("max_results must be 1 to {MAX_RESULTS} (got {max_results})")));
    }
    let offset = p.offset.unwrap_or(0);
    if offset > crate::MAX_PAGE * 10 {
        return Err(Error::InvalidArgument(format!("offset is at most {} (got {offset})", crate::MAX_PAGE * 10)));
    }
    let context = p.context.unwrap_or(0);
    if context > MAX_CONTEXT {
        return Err(Error::InvalidArgument(format!("context must be 0 to {MAX_CONTEXT} lines (got {context})")));
    }
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(p.ignore_case.unwrap_or(false))
        .fixed_strings(!p.regex.unwrap_or(false))
        .line_terminator(Some(b'\n'))
        .build(&p.pattern)
        .map_err(|e| Error::InvalidArgument(format!("bad regular expression: {e}")))?;
    let root = tree_root(plane)?;
    let scope = p.path.as_deref().map(str::trim).filter(|p| !p.is_empty() && *p != ".");

    let found: Mutex<Vec<(String, usize, Vec<GrepLine>)>> = Mutex::new(Vec::new());
    let binary = std::sync::atomic::AtomicUsize::new(0);
    files.visit(root, scope, p.all_files.unwrap_or(false), &|path, bytes| {
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .before_context(context)
            .after_context(context)
            .build();
        let mut sink = Collect { hits: 0, keep: offset + max_results, lines: Vec::new(), binary: false };
        let bytes = &*lone_cr_as_lf(bytes);
        let searched = searcher.search_slice(&matcher, bytes, &mut sink).is_ok();
        // A binary file is worth mentioning only when the pattern occurs in it somewhere.
        if sink.binary && matches!(matcher.find(bytes), Ok(Some(_))) {
            binary.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        if searched && sink.hits > 0 {
            found.lock().expect("no panics while held").push((path.to_owned(), sink.hits, sink.lines));
        }
    })?;
    let mut found = found.into_inner().expect("no panics while held");
    found.sort_by(|a, b| a.0.cmp(&b.0));

    let total = found.iter().map(|f| f.1).sum();
    let files_with_hits = found.len();
    let mut shown = 0;
    let mut skip = offset;
    let mut files = Vec::new();
    for (path, hits_in_file, mut lines) in found {
        if shown == max_results {
            break;
        }
        if skip >= hits_in_file {
            skip -= hits_in_file;
            continue;
        }
        if skip > 0 {
            skip_hits(&mut lines, skip, context);
            skip = 0;
        }
        // Keep hits up to the limit, with the context lines before the last one kept.
        let mut hits = 0;
        let mut cut = lines.len();
        for (i, l) in lines.iter().enumerate() {
            if l.hit {
                if shown + hits == max_results {
                    cut = i;
                    break;
                }
                hits += 1;
            }
        }
        lines.truncate(cut);
        while lines.last().is_some_and(|l| !l.hit) && cut < usize::MAX && shown + hits == max_results {
            lines.pop();
        }
        shown += hits;
        let mut warning = None;
        if current {
            let nodes = s.store.nodes_in_file(plane.id, &path)?;
            for l in lines.iter_mut().filter(|l| l.hit) {
                let line = u32::try_from(l.line).unwrap_or(u32::MAX);
                l.symbol = innermost(&nodes, line).map(|n| n.key.clone());
            }
            warning = edited_since(s, plane, &path);
        }
        files.push(GrepFile { path, warning, lines });
    }
    Ok(GrepOutput {
        freshness: s.freshness(plane),
        plane: plane.meta.name.clone(),
        pattern: p.pattern.clone(),
        total,
        files_with_hits,
        context,
        binary_files: binary.into_inner(),
        offset,
        shown,
        files,
    })
}

/// Drops the first `skip` hits of a file's lines, and the context lines that belong to no hit kept
/// (a context line belongs to the hits within `context` lines of it).
/// `bytes` with each carriage return that no line feed follows read as a line end (the parsers,
/// `snippet` and `recall` split lines so too), byte for byte, so line numbers agree.
fn lone_cr_as_lf(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let lone = |i: usize| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
    if !bytes.contains(&b'\r') || !(0..bytes.len()).any(lone) {
        return std::borrow::Cow::Borrowed(bytes);
    }
    std::borrow::Cow::Owned((0..bytes.len()).map(|i| if lone(i) { b'\n' } else { bytes[i] }).collect())
}

fn skip_hits(lines: &mut Vec<GrepLine>, skip: usize, context: usize) {
    let mut seen = 0;
    let kept_hits: Vec<u64> = lines
        .iter()
        .filter(|l| l.hit)
        .filter(|_| {
            seen += 1;
            seen > skip
        })
        .map(|l| l.line)
        .collect();
    let near = |line: u64| {
        let at = kept_hits.partition_point(|&h| h < line);
        let after = kept_hits.get(at).is_some_and(|&h| h - line <= context as u64);
        let before = at > 0 && line - kept_hits[at - 1] <= context as u64;
        after || before
    };
    let mut seen = 0;
    lines.retain(|l| {
        if l.hit {
            seen += 1;
            seen > skip
        } else {
            near(l.line)
        }
    });
}

/// Collects hit and context lines of one file, keeping at most `keep` hits but counting all.
struct Collect {
    hits: usize,
    keep: usize,
    lines: Vec<GrepLine>,
    /// The file holds a NUL byte: the search stopped there.
    binary: bool,
}

impl Collect {
    fn push(&mut self, line: Option<u64>, bytes: &[u8], hit: bool) {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        let text = if text.len() > LINE_CHARS {
            let mut cut: String = text.chars().take(LINE_CHARS).collect();
            cut.push('…');
            cut
        } else {
            text.to_owned()
        };
        self.lines.push(GrepLine { line: line.unwrap_or(0), text, hit, symbol: None });
    }
}

impl Sink for Collect {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> std::result::Result<bool, Self::Error> {
        self.hits += 1;
        if self.hits <= self.keep {
            self.push(mat.line_number(), mat.bytes(), true);
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> std::result::Result<bool, Self::Error> {
        self.binary = true;
        Ok(false)
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> std::result::Result<bool, Self::Error> {
        if self.hits <= self.keep {
            self.push(ctx.line_number(), ctx.bytes(), false);
        }
        Ok(true)
    }
}

impl Answer for GrepOutput {
    fn render_to(&self, t: &mut Text) {
        if self.total == 0 {
            t.line(format_args!("no line matches `{}`", self.pattern));
        } else if self.shown < self.total {
            let first = self.offset + 1;
            let last = self.offset + self.shown;
            let next = if last < self.total {
                format!(
                    "; narrow with {}, or read on with {}",
                    t.surface.arg("path", "DIR"),
                    t.surface.arg("offset", last)
                )
            } else {
                String::new()
            };
            t.line(format_args!(
                "matching lines {first}-{last} of {} shown ({} files){next}",
                self.total, self.files_with_hits
            ));
        } else {
            t.line(format_args!("{} matching lines in {} files", self.total, self.files_with_hits));
        }
        for f in &self.files {
            t.line(format_args!("{}", f.path));
            if let Some(w) = &f.warning {
                t.line(format_args!("  (warning: {w})"));
            }
            let mut prev: Option<u64> = None;
            for l in &f.lines {
                if self.context > 0 && prev.is_some_and(|p| l.line > p + 1) {
                    t.line(format_args!("--"));
                }
                prev = Some(l.line);
                match (&l.symbol, l.hit) {
                    (Some(key), true) => t.line(format_args!("{}:{}  ← {key}", l.line, l.text)),
                    (None, true) => t.line(format_args!("{}:{}", l.line, l.text)),
                    (_, false) => t.line(format_args!("{}-{}", l.line, l.text)),
                };
            }
        }
        if self.binary_files > 0 {
            t.line(format_args!(
                "{} binary files also hold the pattern (not listed; binary files are not searched line by line)",
                self.binary_files
            ));
        }
        t.line(format_args!("{}", self.freshness));
    }

    fn found(&self) -> bool {
        self.total > 0
    }
}

#[cfg(test)]
mod tests {
    use super::lone_cr_as_lf;

    #[test]
    fn a_lone_carriage_return_ends_a_line() {
        assert_eq!(&*lone_cr_as_lf(b"a\rb\r\nc\r"), b"a\nb\r\nc\n");
        assert!(matches!(lone_cr_as_lf(b"a\r\nb"), std::borrow::Cow::Borrowed(_)));
    }
}
