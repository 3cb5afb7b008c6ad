//! `recall`: code at a revision: a file, a line range, a directory listing, or a symbol's declaration
//! re-parsed from that revision; `pattern` searches that revision's tree; `vs` diffs a file or a symbol
//! against another revision.

use drsg_planes::EdgeType;
use serde::{Deserialize, Serialize};

use crate::grep::{GrepOutput, GrepParams, grep_in};
use crate::lookup::{Lookup, find_symbol};
use crate::render::{Group, Text};
use crate::revisions::{Declared, DirEntry, Revision, RevisionError, Revisions};
use crate::snippet::{parse_range, relative_to_root, source_lines, tree_root};
use crate::{Answer, Error, Result, Session};

const DEFAULT_LINES: u32 = 200;
const MAX_LINES: u32 = 2_000;
const LIST_CAP: usize = 200;
/// Lines of a unified diff kept.
const DIFF_LINES: usize = 400;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct RecallParams {
    /// The revision: sha, prefix, tag, branch, `HEAD~n`, `^n`, a date, `<rev>@{<date>}`.
    pub at: String,
    /// A symbol of the plane, shown as it was declared at `at`.
    pub name: Option<String>,
    /// A file, `path:start-end`, or a directory, at `at`.
    pub path: Option<String>,
    /// Search the tree at `at` for this text (a literal unless `regex`), within `path` when given.
    pub pattern: Option<String>,
    pub regex: Option<bool>,
    /// An older revision: show the unified diff of `name` or `path` from `vs` to `at`.
    pub vs: Option<String>,
    /// Most lines shown (default 200).
    pub lines: Option<u32>,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct RecallOutput {
    pub plane: String,
    pub freshness: String,
    pub at: Revision,
    pub answer: Recalled,
}

#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Recalled {
    /// Lines of a file (the whole file, a range, or a symbol's declaration).
    Text {
        path: String,
        /// The symbol shown, for a declaration.
        symbol: Option<String>,
        start: u32,
        end: u32,
        file_lines: u32,
        lines: Vec<(u32, String)>,
        read_on: Option<String>,
    },
    Directory {
        path: String,
        entries: Group<DirEntry>,
    },
    Search(Box<GrepOutput>),
    Diff {
        what: String,
        from: Revision,
        added: usize,
        removed: usize,
        unified: Vec<String>,
        more: usize,
    },
    /// The file or symbol is not there at that revision.
    Absent {
        what: String,
        hint: String,
    },
}

pub fn recall(s: &Session<'_>, revisions: &dyn Revisions, p: &RecallParams) -> Result<Lookup<RecallOutput>> {
    let cap = p.lines.unwrap_or(DEFAULT_LINES);
    if cap == 0 || cap > MAX_LINES {
        return Err(Error::InvalidArgument(format!("lines must be 1 to {MAX_LINES} (got {cap})")));
    }
    let asked = [p.name.is_some(), p.path.is_some() || p.pattern.is_some()];
    if asked.iter().filter(|a| **a).count() != 1 {
        return Err(Error::InvalidArgument(
            "give one of `name` (a symbol), `path` (a file, `path:start-end` or a directory) or `pattern` (with an optional `path` scope)".into(),
        ));
    }
    let plane = s.plane(p.plane.as_deref())?;
    let root = tree_root(&plane)?;
    let at = revisions.resolve(root, &p.at).map_err(revision_error)?;
    let output = |answer| RecallOutput {
        plane: plane.meta.name.clone(),
        freshness: s.freshness(&plane),
        at: at.clone(),
        answer,
    };

    if let Some(pattern) = &p.pattern {
        if p.vs.is_some() {
            return Err(Error::InvalidArgument("`vs` diffs a `name` or a `path`, not a `pattern` search".into()));
        }
        let files = revisions.files_at(root, &at.sha).map_err(revision_error)?;
        let params = GrepParams {
            pattern: pattern.clone(),
            regex: p.regex,
            path: p.path.as_deref().map(|path| relative_to_root(&plane, path)),
            ..GrepParams::default()
        };
        let hits = grep_in(s, files.as_ref(), &plane, &params, false)?;
        return Ok(Lookup::Found(output(Recalled::Search(Box::new(hits)))));
    }

    // What to show: a symbol's declaration or a path.
    let (path, symbol, names, range, module) = if let Some(name) = &p.name {
        let node = match find_symbol(s.store, &plane, name)?.into_node() {
            Ok(node) => node,
            Err(not) => return Ok(not),
        };
        let Some(file) = node.file.clone() else {
            return Err(Error::InvalidArgument(format!(
                "`{}` is a {} with no source in this tree",
                node.key,
                node.label()
            )));
        };
        (file, Some(node.key.clone()), name_path(s.store, &node)?, None, node.label() == "Module")
    } else {
        let raw = p.path.as_deref().unwrap_or_default();
        match parse_range(raw)? {
            Some((path, start, end)) => (relative_to_root(&plane, &path), None, Vec::new(), Some((start, end)), false),
            None => (relative_to_root(&plane, raw), None, Vec::new(), None, false),
        }
    };
    let text_at = |rev: &Revision| -> Result<Option<String>> {
        let files = revisions.files_at(root, &rev.sha).map_err(revision_error)?;
        match files.read(root, &path) {
            Ok(bytes) if bytes.contains(&0) => Err(crate::FileError::NotText { path: path.clone() }.into()),
            Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
            Err(crate::FileError::NotFound { .. }) => Ok(None),
            Err(err) => Err(err.into()),
        }
    };
    // The lines of the symbol at a revision, or of the whole file.
    let span_at = |text: &str| -> Option<(u32, u32)> {
        match symbol.as_deref() {
            None => Some((1, source_lines(text).count().max(1) as u32)),
            Some(key) => {
                revisions.declaration(&path, text, &Declared { names: &names, impl_trait: impl_trait(key), module })
            }
        }
    };

    if let Some(vs) = &p.vs {
        let from = revisions.resolve(root, vs).map_err(revision_error)?;
        let what = symbol.clone().unwrap_or_else(|| path.clone());
        let pick = |rev: &Revision| -> Result<Option<String>> {
            let Some(text) = text_at(rev)? else { return Ok(None) };
            let Some((a, b)) = span_at(&text) else { return Ok(None) };
            Ok(Some(
                source_lines(&text).skip(a as usize - 1).take((b - a + 1) as usize).map(|l| format!("{l}\n")).collect(),
            ))
        };
        let (old, new) = match (pick(&from)?, pick(&at)?) {
            (None, None) => {
                return Ok(Lookup::Found(output(Recalled::Absent {
                    hint: format!(
                        "`{what}` is in neither {} nor {}: it may have moved; try `pattern`",
                        crate::short_sha(&from.sha),
                        crate::short_sha(&at.sha)
                    ),
                    what,
                })));
            }
            (old, new) => (old.unwrap_or_default(), new.unwrap_or_default()),
        };
        let diff = similar::TextDiff::from_lines(&old, &new);
        let (mut added, mut removed) = (0, 0);
        for change in diff.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Insert => added += 1,
                similar::ChangeTag::Delete => removed += 1,
                similar::ChangeTag::Equal => {}
            }
        }
        let label = |r: &Revision| format!("{what} @ {}", crate::short_sha(&r.sha));
        let unified = diff.unified_diff().context_radius(3).header(&label(&from), &label(&at)).to_string();
        let mut lines: Vec<String> = unified.lines().map(str::to_owned).collect();
        let more = lines.len().saturating_sub(DIFF_LINES);
        lines.truncate(DIFF_LINES);
        return Ok(Lookup::Found(output(Recalled::Diff { what, from, added, removed, unified: lines, more })));
    }

    if symbol.is_none() && range.is_none() {
        let dir = path.trim_end_matches('/');
        if let Some(entries) = revisions.list(root, &at.sha, dir).map_err(revision_error)? {
            let shown = if dir.is_empty() { ".".to_owned() } else { dir.to_owned() };
            return Ok(Lookup::Found(output(Recalled::Directory {
                path: shown,
                entries: Group::capped(entries, LIST_CAP),
            })));
        }
    }
    let Some(text) = text_at(&at)? else {
        return Ok(Lookup::Found(output(Recalled::Absent {
            what: path.clone(),
            hint: format!(
                "no file `{path}` at {}; `recall` with a directory path lists what was there",
                crate::short_sha(&at.sha)
            ),
        })));
    };
    let all: Vec<&str> = source_lines(&text).collect();
    let file_lines = all.len() as u32;
    let (start, end) = match (&symbol, range) {
        (Some(key), _) => match span_at(&text) {
            Some(span) => span,
            None => {
                return Ok(Lookup::Found(output(Recalled::Absent {
                    what: key.clone(),
                    hint: format!(
                        "`{path}` at {} declares no `{}`; it may have been added later or moved: try `pattern`",
                        crate::short_sha(&at.sha),
                        names.join(".")
                    ),
                })));
            }
        },
        (None, Some((a, b))) => (a, b.unwrap_or(a + cap - 1).min(file_lines.max(1))),
        (None, None) => (1, file_lines.max(1)),
    };
    if start > file_lines.max(1) {
        return Err(Error::InvalidArgument(format!(
            "`{path}` has {file_lines} lines at {}; line {start} is past its end",
            crate::short_sha(&at.sha)
        )));
    }
    // An explicit range is shown whole (the answer budget still applies) unless `lines` says less.
    let cap = match (&symbol, range, p.lines) {
        (None, Some((_, Some(_))), None) => (end - start + 1).clamp(1, MAX_LINES),
        _ => cap,
    };
    let shown_end = end.min(start + cap - 1);
    let read_on = (shown_end < end).then(|| format!("{path}:{}-{end}", shown_end + 1));
    let lines = (start..=shown_end).filter_map(|n| Some((n, all.get(n as usize - 1)?.to_string()))).collect();
    Ok(Lookup::Found(output(Recalled::Text { path, symbol, start, end: shown_end, file_lines, lines, read_on })))
}

pub(crate) fn revision_error(err: RevisionError) -> Error {
    match err {
        RevisionError::File(err) => Error::File(err),
        other => Error::InvalidArgument(other.to_string()),
    }
}

/// The trait of a trait-impl method key `<crate::Type as crate::Trait>::method`.
fn impl_trait(key: &str) -> Option<&str> {
    let inner = key.strip_prefix('<')?.split_once(">::")?.0;
    let path = inner.split_once(" as ")?.1;
    Some(path.rsplit("::").next().unwrap_or(path))
}

/// The names from the module down to the symbol, along its containers: `Client.load` for method
/// `load` of class `Client`; a Rust method is named under its type (`Store.planes`), wherever the
/// `impl` block sits.
fn name_path(store: &drsg_planes::Store, node: &drsg_planes::Node) -> Result<Vec<String>> {
    let mut names = vec![node.name.clone()];
    let mut current = node.id;
    for _ in 0..32 {
        let parents = store
            .edges_in(current, Some(EdgeType::HasMethod.as_str()))?
            .into_iter()
            .chain(store.edges_in(current, Some(EdgeType::Contains.as_str()))?);
        let Some(parent) = parents.filter_map(|e| store.node(e.src).ok().flatten()).next() else { break };
        // A file's own module spans it from line 1; an inline module (`mod tests { … }`) is a name.
        if parent.label() == "Module" && parent.line == Some(1) {
            break;
        }
        names.push(parent.name.clone());
        current = parent.id;
    }
    names.reverse();
    Ok(names)
}

impl Answer for RecallOutput {
    fn render_to(&self, t: &mut Text) {
        let at = &self.at;
        let head = format!(
            "at {} ({}, {})",
            crate::short_sha(&at.sha),
            &at.date[..at.date.len().min(10)],
            crate::render::one_line(&at.summary, 60)
        );
        match &self.answer {
            Recalled::Text { path, symbol, start, end, file_lines, lines, read_on } => {
                match symbol {
                    Some(key) => t.line(format_args!("{key} in {path}:{start}-{end} {head}")),
                    None => t.line(format_args!("{path}:{start}-{end} {head}")),
                };
                let width = end.to_string().len();
                for (n, text) in lines {
                    if t.remaining() < text.len() + width + 200 {
                        let call = t.surface.call("recall", ("at", &at.spec), &[("path", format!("{path}:{n}-{end}"))]);
                        t.line(format_args!("… cut by the answer budget; read on with {}", t.surface.quote(&call)));
                        break;
                    }
                    t.line(format_args!("{n:>width$}  {text}"));
                }
                if let Some(next) = read_on {
                    let call = t.surface.call("recall", ("at", &at.spec), &[("path", next.clone())]);
                    t.line(format_args!("… read on: {} ({file_lines} lines in the file)", t.surface.quote(&call)));
                }
            }
            Recalled::Directory { path, entries } => {
                t.line(format_args!("{path}/ {head}: {} entries", entries.total));
                t.group(entries, |t, e| {
                    let slash = if e.is_dir { "/" } else { "" };
                    t.line(format_args!("  {}{slash}", e.name));
                });
            }
            Recalled::Search(hits) => {
                t.line(format_args!("search of the tree {head}"));
                hits.render_to(t);
                return;
            }
            Recalled::Diff { what, from, added, removed, unified, more } => {
                t.line(format_args!(
                    "{what}: {} → {} (+{added} −{removed} lines)",
                    crate::short_sha(&from.sha),
                    crate::short_sha(&at.sha)
                ));
                if unified.is_empty() {
                    t.line(format_args!("no difference"));
                }
                for line in unified {
                    t.line(format_args!("{line}"));
                }
                if *more > 0 {
                    t.line(format_args!("… and {more} more diff lines"));
                }
            }
            Recalled::Absent { what, hint } => {
                t.line(format_args!("{what}: not there {head}"));
                t.line(format_args!("{hint}"));
            }
        }
        t.line(format_args!("{} (recall reads the repository, not the plane)", self.freshness));
    }

    fn found(&self) -> bool {
        match &self.answer {
            Recalled::Absent { .. } => false,
            Recalled::Search(hits) => hits.found(),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::impl_trait;

    #[test]
    fn impl_traits() {
        assert_eq!(impl_trait("<demo::X as std::fmt::Debug>::fmt"), Some("Debug"));
        assert_eq!(impl_trait("demo::X::fmt"), None);
    }
}
