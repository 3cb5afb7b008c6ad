//! `snippet`: source text, numbered: a symbol's declaration (exactly its span when its end is known)
//! or a line range `path:start-end`, naming the enclosing symbol and how to read on.

use std::path::Path;

use drsg_planes::{Node, PlaneInfo, Store};
use serde::{Deserialize, Serialize};

use crate::files::FileError;
use crate::lookup::{Lookup, find_symbol};
use crate::render::{NodeLine, Text};
use crate::{Answer, Error, Result, Session};

const DEFAULT_LINES: u32 = 200;
const MAX_LINES: u32 = 2_000;
/// Characters kept of one source line.
const LINE_CHARS: usize = 400;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct SnippetParams {
    /// A symbol (key, key segment or name), or `path:start-end` / `path:line`.
    pub name: String,
    /// Most lines shown (default 200).
    pub lines: Option<u32>,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct SnippetOutput {
    pub plane: String,
    pub freshness: String,
    pub path: String,
    /// The symbol asked for, or the one enclosing the range.
    pub symbol: Option<NodeLine>,
    pub start: u32,
    /// Last line shown.
    pub end: u32,
    /// Lines in the file.
    pub file_lines: u32,
    pub lines: Vec<(u32, String)>,
    /// How to read on, when more of the symbol or the file follows.
    pub read_on: Option<String>,
    /// Said when the text no longer matches what was indexed.
    pub warning: Option<String>,
}

pub fn snippet(s: &Session<'_>, p: &SnippetParams) -> Result<Lookup<SnippetOutput>> {
    let cap = p.lines.unwrap_or(DEFAULT_LINES);
    if cap == 0 || cap > MAX_LINES {
        return Err(Error::InvalidArgument(format!("lines must be 1 to {MAX_LINES} (got {cap})")));
    }
    let plane = s.plane(p.plane.as_deref())?;
    let root = tree_root(&plane)?;
    if let Some((path, start, end)) = parse_range(&p.name)? {
        let path = relative_to_root(&plane, &path);
        let text = read_text(s, root, &path)?;
        let all: Vec<&str> = source_lines(&text).collect();
        let file_lines = all.len() as u32;
        if start > file_lines.max(1) {
            return Err(Error::InvalidArgument(format!(
                "`{path}` has {file_lines} lines; line {start} is past its end"
            )));
        }
        let want_end = end.unwrap_or(start.saturating_add(cap - 1)).min(file_lines);
        let shown_end = want_end.min(start + cap - 1);
        let symbol = enclosing(s.store, &plane, &path, start)?;
        let mut read_on = None;
        if shown_end < file_lines {
            let next = shown_end + 1;
            read_on = Some(format!("{path}:{next}-{}", (next + cap - 1).min(file_lines)));
        }
        let symbol = symbol.as_ref().map(NodeLine::of);
        return Ok(Lookup::Found(output(s, &plane, path, symbol, &all, start, shown_end, read_on)));
    }
    let node = match find_symbol(s.store, &plane, &p.name)?.into_node() {
        Ok(node) => node,
        Err(not) => return Ok(not),
    };
    let (Some(path), Some(start)) = (node.file.clone(), node.line) else {
        return Err(Error::InvalidArgument(format!(
            "`{}` is a {} with no source in this tree; `context` tells what is known about it",
            node.key,
            node.label()
        )));
    };
    let text = read_text(s, root, &path)?;
    let all: Vec<&str> = source_lines(&text).collect();
    let file_lines = all.len() as u32;
    let end = node.end_line.unwrap_or(start).max(start).min(file_lines);
    let shown_end = end.min(start + cap - 1);
    let read_on = (shown_end < end).then(|| format!("{path}:{}-{end}", shown_end + 1));
    Ok(Lookup::Found(output(s, &plane, path, Some(NodeLine::of(&node)), &all, start, shown_end, read_on)))
}

/// Lines `start..=end` of a file's lines `all`, with what the answer says around them.
#[allow(clippy::too_many_arguments, reason = "the parts of one answer")]
fn output(
    s: &Session<'_>,
    plane: &PlaneInfo,
    path: String,
    symbol: Option<NodeLine>,
    all: &[&str],
    start: u32,
    end: u32,
    read_on: Option<String>,
) -> SnippetOutput {
    SnippetOutput {
        freshness: s.freshness(plane),
        plane: plane.meta.name.clone(),
        warning: edited_since(s, plane, &path),
        symbol,
        lines: numbered(all, start, end),
        file_lines: all.len() as u32,
        path,
        start,
        end,
        read_on,
    }
}

/// A warning when `path` was modified after the plane was last written: its lines and symbols may
/// no longer match the plane.
pub(crate) fn edited_since(s: &Session<'_>, plane: &PlaneInfo, path: &str) -> Option<String> {
    let root = plane.meta.synced_root.as_deref()?;
    let modified = s.files.modified(Path::new(root), path)?;
    (modified > plane.updated_at).then(|| {
        format!(
            "`{path}` was edited after the plane was synced; lines and symbols may be off until it is indexed again"
        )
    })
}

/// A path as the plane records it: an absolute path inside the tree loses the root; `./` is dropped.
pub(crate) fn relative_to_root(plane: &PlaneInfo, path: &str) -> String {
    let path = path.trim().trim_start_matches("./");
    match plane.meta.synced_root.as_deref().and_then(|root| path.strip_prefix(root)) {
        Some(rest) if rest.starts_with('/') => rest.trim_start_matches('/').to_owned(),
        _ => path.to_owned(),
    }
}

pub(crate) fn tree_root(plane: &PlaneInfo) -> Result<&Path> {
    plane.meta.synced_root.as_deref().map(Path::new).ok_or_else(|| {
        Error::InvalidArgument(format!("plane {} records no source tree, so it has no text to show", plane.meta.name))
    })
}

fn read_text(s: &Session<'_>, root: &Path, path: &str) -> Result<String> {
    let bytes = s.files.read(root, path)?;
    if bytes.contains(&0) {
        return Err(FileError::NotText { path: path.to_owned() }.into());
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn numbered(all: &[&str], start: u32, end: u32) -> Vec<(u32, String)> {
    (start.max(1)..=end)
        .filter_map(|n| {
            let line = all.get(n as usize - 1)?;
            let text = if line.len() > LINE_CHARS {
                let mut cut: String = line.chars().take(LINE_CHARS).collect();
                cut.push('…');
                cut
            } else {
                line.trim_end_matches('\r').to_owned()
            };
            Some((n, text))
        })
        .collect()
}

/// `path:start-end`, `path:start-` or `path:line`; `None` for anything else (a symbol).
pub(crate) fn parse_range(arg: &str) -> Result<Option<(String, u32, Option<u32>)>> {
    let Some((path, range)) = arg.trim().rsplit_once(':') else { return Ok(None) };
    if path.is_empty() || path.ends_with(':') || !range.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok(None);
    }
    let (a, b) = match range.split_once('-') {
        Some((a, b)) => (a, Some(b)),
        None => (range, None),
    };
    let bad = || Error::InvalidArgument(format!("`{arg}`: a range is `path:start-end` with 1 <= start <= end"));
    let start: u32 = a.parse().map_err(|_| bad())?;
    let end = match b {
        None => Some(start),
        Some("") => None,
        Some(b) => Some(b.parse::<u32>().map_err(|_| bad())?),
    };
    if start == 0 || end.is_some_and(|e| e < start) {
        return Err(bad());
    }
    Ok(Some((path.trim_start_matches("./").to_owned(), start, end)))
}

/// The innermost symbol of `path` whose span holds `line`; the file's module when none does.
pub(crate) fn enclosing(store: &Store, plane: &PlaneInfo, path: &str, line: u32) -> Result<Option<Node>> {
    let nodes = store.nodes_in_file(plane.id, path)?;
    Ok(innermost(&nodes, line).cloned())
}

pub(crate) fn innermost(nodes: &[Node], line: u32) -> Option<&Node> {
    nodes
        .iter()
        .filter(|n| !matches!(n.label(), "UnresolvedRef" | "External"))
        .filter(|n| n.line.is_some_and(|l| l <= line) && n.end_line.is_some_and(|e| e >= line))
        .min_by_key(|n| (n.end_line.unwrap_or(0) - n.line.unwrap_or(0), n.label() == "Module"))
}

impl Answer for SnippetOutput {
    fn render_to(&self, t: &mut Text) {
        match &self.symbol {
            Some(sym) => t.line(format_args!("{}:{}-{}  in {sym}", self.path, self.start, self.end)),
            None => t.line(format_args!("{}:{}-{}", self.path, self.start, self.end)),
        };
        if let Some(w) = &self.warning {
            t.line(format_args!("warning: {w}"));
        }
        let width = self.end.to_string().len();
        for (n, text) in &self.lines {
            // Leave room to say where to read on.
            if t.remaining() < text.len() + width + 200 {
                let call = t.surface.call("snippet", ("name", &format!("{}:{n}-{}", self.path, self.end)), &[]);
                t.line(format_args!("… cut by the answer budget; read on with {}", t.surface.quote(&call)));
                break;
            }
            t.line(format_args!("{n:>width$}  {text}"));
        }
        if let Some(next) = &self.read_on {
            let call = t.surface.call("snippet", ("name", next), &[]);
            t.line(format_args!("… read on: {} ({} lines in the file)", t.surface.quote(&call), self.file_lines));
        }
        t.line(format_args!("{}", self.freshness));
    }
}

/// A file's lines as editors count them: ended by `\r\n`, `\n` or a lone `\r` (old Mac files), a UTF-8
/// byte-order mark before the first dropped.
pub(crate) fn source_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match rest.find(['\r', '\n']) {
            None => Some(std::mem::take(&mut rest)),
            Some(i) => {
                let line = &rest[..i];
                let ending = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + ending..];
                Some(line)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::parse_range;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("src/a.rs:3-9").ok().flatten(), Some(("src/a.rs".into(), 3, Some(9))));
        assert_eq!(parse_range("./a.py:7").ok().flatten(), Some(("a.py".into(), 7, Some(7))));
        assert_eq!(parse_range("a.py:7-").ok().flatten(), Some(("a.py".into(), 7, None)));
        assert!(matches!(parse_range("my_crate::net::connect"), Ok(None)));
        assert!(matches!(parse_range("Client.connect"), Ok(None)));
        assert!(parse_range("a.py:9-3").is_err());
        assert!(parse_range("a.py:0").is_err());
    }
}
