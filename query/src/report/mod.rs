//! `report`: what a change between two revisions touched, for a pull request's reviewers and its
//! pipeline: the definitions it added, removed, renamed or edited (on both sides), what reaches each
//! one, the tests that exercise them grouped into commands to run, and the risks worth a look.
//!
//! The head side is the plane (which must be synced to it); the base side is read only for the files
//! the change touched, from git, and parsed with the same plugins.
//!
//! `co_changes` reads the files each of the base's newest commits changed
//! (`Revisions::commit_files`, no rename detection) and names files that nearly always changed with
//! a touched one but not in this change. `report::markdown` renders the pull-request comment, with a
//! bounded Mermaid graph.
//!
//! The steps: the merge base, the files the change touched (`Revisions::changed_files`), each
//! touched file outlined at both commits (`Revisions::outline`), the definitions paired (`diff`),
//! what reaches each changed one (`impact::reach`), the tests reached grouped into commands
//! (`runs`), then the risks.

mod diff;
mod markdown;
mod runs;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use drsg_planes::{EdgeType, Node, PlaneInfo};
use serde::{Deserialize, Serialize};

pub use diff::ChangeKind;
use diff::{At, DefChange, FilePair, Version};

use crate::files::SourceFiles;
use crate::impact::{Reach, reach};
use crate::recall::revision_error;
use crate::revisions::{Outline, Revision, Revisions};
use crate::snippet::tree_root;
use crate::unresolved::CutFiles;
use crate::{Error, Result, Session, is_test};

const DEFAULT_DEPTH: u32 = 3;
const MAX_DEPTH: u32 = 6;
/// Changed definitions listed; the counts cover all of them.
const MAX_CHANGED: usize = 500;
/// Changed definitions whose impact is walked (in file order); the others are counted as not walked.
const MAX_WALKED: usize = 300;
/// Tests listed per changed definition.
const MAX_TESTS: usize = 50;
/// Changed files read; a larger change is reported on its first ones and says so.
const MAX_FILES: usize = 2_000;
/// Larger files are not parsed on either side (the indexer's own limit is lower by default).
const MAX_FILE_BYTES: usize = 4 * 1024 * 1024;
/// Unbound references read per removed method, to find those through its type.
const REMOVED_SITES: usize = 2_000;
/// Edge types through which a name left unbound at head may still point at a removed definition.
const REFERENCE_TYPES: &[&str] = &[
    EdgeType::Calls.as_str(),
    EdgeType::Instantiates.as_str(),
    EdgeType::References.as_str(),
    EdgeType::Imports.as_str(),
];

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct ReportParams {
    /// The revision the change starts from (the pull request's base).
    pub base: String,
    /// The revision it ends at (default: the plane's synced commit, which it must be).
    pub head: Option<String>,
    /// Hops walked back from each changed definition (default 3, at most 6).
    pub depth: Option<u32>,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ReportOutput {
    pub plane: String,
    pub freshness: String,
    pub base: Side,
    pub head: Side,
    pub depth: u32,
    /// Source files that differ (those no plugin reads are not counted).
    pub files: usize,
    /// Changed definitions by kind, all of them (`changed` may list fewer).
    pub counts: BTreeMap<ChangeKind, usize>,
    pub changed: Vec<Changed>,
    /// Changed definitions not listed (over the cap).
    pub changed_more: usize,
    pub tests_to_run: Vec<runs::TestRun>,
    /// False when a test reaching a changed definition may be missing from `tests_to_run`.
    pub tests_complete: bool,
    /// No test is known to reach the change, and that is a lower bound: which tests to run is
    /// unknown, so the whole suite should run.
    pub whole_suite: bool,
    /// Why `tests_complete` is false, a sentence each.
    pub incomplete: Vec<String>,
    pub risks: Vec<Risk>,
    /// Changed files at head that did not parse cleanly (syntax errors, binary, too large).
    pub unparsed: Vec<String>,
}

/// A revision as asked for and as found.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    pub rev: String,
    pub commit: String,
    /// Where the base revision points when that is not `commit`: `commit` is then where head's
    /// history left it (their merge base).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tip: Option<String>,
}

/// A definition the change touched.
#[derive(Debug, Serialize)]
pub struct Changed {
    /// Its key at head (at base for a removed definition).
    pub key: String,
    pub label: String,
    pub change: ChangeKind,
    pub file: String,
    pub line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_line: Option<u32>,
    /// It and every definition enclosing it are public (`pub`, exported, no leading underscore).
    pub public: bool,
    /// What reaches it at head; `None` when removed or not walked.
    pub impact: Option<Impact>,
    /// Test cases (or test files) that reach it, itself when it is one.
    pub tests: Vec<TestRef>,
    /// Tests reaching it, all of them (`tests` may list fewer).
    pub tests_total: usize,
    /// It is defined inside a function (at head, or at base when removed).
    #[serde(skip)]
    pub(crate) nested: bool,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Impact {
    pub production: usize,
    pub tests: usize,
    /// Unresolved call sites named like it or a symbol that reaches it: they may reach it too.
    pub unresolved: u64,
    pub complete: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct TestRef {
    pub key: String,
    pub file: String,
    pub line: u32,
    /// What its runner names it by (empty: the whole file runs).
    #[serde(skip)]
    pub(crate) id: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Risk {
    /// `public-change`, `untested-public-change`, `untested-change`, `removed-referenced`, `unparsed`,
    /// `co-change`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub detail: String,
}

pub fn report(s: &Session<'_>, revisions: &dyn Revisions, p: &ReportParams) -> Result<ReportOutput> {
    let depth = p.depth.unwrap_or(DEFAULT_DEPTH);
    if depth == 0 || depth > MAX_DEPTH {
        return Err(Error::InvalidArgument(format!("depth must be 1 to {MAX_DEPTH} (got {depth})")));
    }
    let plane = s.plane(p.plane.as_deref())?;
    let root = tree_root(&plane)?;
    let base_tip = revisions.resolve(root, &p.base).map_err(revision_error)?;
    let synced = plane.meta.synced_commit.clone().ok_or_else(|| {
        Error::InvalidArgument(format!(
            "plane {} was indexed from a directory, not a commit, so it cannot be the head of a report",
            plane.meta.name
        ))
    })?;
    let head = match &p.head {
        Some(spec) => revisions.resolve(root, spec).map_err(revision_error)?,
        None => revisions.resolve(root, &synced).map_err(revision_error)?,
    };
    if head.sha != synced {
        return Err(Error::InvalidArgument(format!(
            "plane {} is at {}, not at head {} ({}): run `drsg fold --to {}` first, or `drsg report` without --db, which indexes the head itself",
            plane.meta.name,
            crate::short_sha(&synced),
            head.spec,
            crate::short_sha(&head.sha),
            head.spec
        )));
    }

    // A pull request's base branch may have moved on: the change is what head added since the two
    // histories met (git's `base...head`).
    let merged = revisions.merge_base(root, &base_tip.sha, &head.sha).map_err(revision_error)?.ok_or_else(|| {
        Error::InvalidArgument(format!(
            "`{}` ({}) and head {} share no history, so there is no change between them to report.{}",
            base_tip.spec,
            crate::short_sha(&base_tip.sha),
            crate::short_sha(&head.sha),
            shallow_hint(revisions, root)
        ))
    })?;
    let base = Revision { sha: merged, ..base_tip.clone() };

    let mut notes = Vec::new();
    let mut changes = revisions.changed_files(root, &base.sha, &head.sha).map_err(revision_error)?;
    if changes.len() > MAX_FILES {
        notes.push(format!("only the first {MAX_FILES} of {} changed files were read", changes.len()));
        changes.truncate(MAX_FILES);
    }
    let old_files = revisions.files_at(root, &base.sha).map_err(revision_error)?;
    let new_files = revisions.files_at(root, &head.sha).map_err(revision_error)?;
    let mut pairs = Vec::new();
    let mut unparsed = BTreeSet::new();
    for change in &changes {
        let old =
            change.old.as_ref().and_then(|path| version(revisions, old_files.as_ref(), root, path).ok().flatten());
        let new = match &change.new {
            Some(path) => match version(revisions, new_files.as_ref(), root, path) {
                Ok(v) => v,
                Err(Unread::Refused) => {
                    unparsed.insert(path.clone());
                    None
                }
                Err(Unread::Missing) => None,
            },
            None => None,
        };
        if let Some(v) = &new
            && v.outline.syntax_errors > 0
        {
            unparsed.insert(v.path.clone());
        }
        if old.is_some() || new.is_some() {
            pairs.push(FilePair { old, new });
        }
    }
    let found = diff::changes(&pairs);

    let heads = HeadNodes::read(s, &plane, &pairs)?;
    let mut changed: Vec<(Changed, Option<Node>)> =
        found.iter().map(|c| describe(&pairs, &heads, c)).collect::<Vec<_>>();
    changed.sort_by(|(a, _), (b, _)| (&a.file, a.line, &a.key).cmp(&(&b.file, b.line, &b.key)));
    let mut counts = BTreeMap::new();
    for (c, _) in &changed {
        *counts.entry(c.change).or_insert(0) += 1;
    }

    // What reaches each changed definition, and the tests among it.
    let cut = CutFiles::of(&plane);
    let mut runner = runs::Runner::new(s.store, plane.id, revisions, root, &head.sha, new_files.as_ref());
    let (mut walked, mut skipped, mut lower, mut deep, mut helpers) = (0, 0, 0, 0, 0);
    let mut reachers: HashMap<usize, Reach> = HashMap::new();
    for (i, (c, node)) in changed.iter_mut().enumerate() {
        let Some(node) = node else { continue };
        if walked == MAX_WALKED {
            skipped += 1;
            continue;
        }
        walked += 1;
        let r = reach(s, &plane, node, depth)?;
        let (mut production, mut tests) = (0, 0);
        let mut found_tests = BTreeSet::new();
        if let Some(own) = runner.test_case(node)? {
            found_tests.insert(own);
        }
        for hit in &r.walk.reached {
            let Some(n) = r.nodes.get(&hit.node) else { continue };
            if hit.ty == EdgeType::Imports.as_str() {
                continue;
            }
            if is_test(n) {
                tests += 1;
                match runner.test_case(n)? {
                    Some(case) => {
                        found_tests.insert(case);
                    }
                    // A fixture or helper outside the files pytest collects (`conftest.py`, an app under
                    // `tests/`): the tests using it, by injection or import, are not traced through it.
                    None if n.file.as_deref().is_some_and(|f| !runs::collected(f)) => helpers += 1,
                    None => {}
                }
            } else {
                production += 1;
            }
        }
        let complete = r.complete(&cut);
        if !complete {
            lower += 1;
        }
        if r.walk.stop == crate::walk::Stop::Depth {
            deep += 1;
        }
        c.impact = Some(Impact { production, tests, unresolved: r.count.sites, complete });
        c.tests_total = found_tests.len();
        c.tests = found_tests.into_iter().take(MAX_TESTS).collect();
        reachers.insert(i, r);
    }
    if lower > 0 {
        notes.push(format!(
            "{lower} changed definitions are reached by unresolved call sites or through files not fully read, so tests reaching them through those may be missing"
        ));
    }
    if deep > 0 {
        notes.push(format!(
            "{deep} changed definitions are reached from further than {depth} hops: tests beyond that are not listed (raise --depth)"
        ));
    }
    if helpers > 0 {
        notes.push(format!(
            "{helpers} test helpers or fixtures that are no test case reach changed definitions: tests using them may be missing"
        ));
    }
    if skipped > 0 {
        notes.push(format!("{skipped} changed definitions past the first {MAX_WALKED} were not walked"));
    }
    if !unparsed.is_empty() {
        notes.push(format!("{} changed files did not parse cleanly at head", unparsed.len()));
    }

    let tests_to_run = runner.group(changed.iter().map(|(c, _)| c));
    let mut risks = risks(s, &plane, &changed, &reachers, &unparsed)?;
    risks.extend(co_changes(revisions, root, &base.sha, &changes, new_files.as_ref()));
    risks.sort_by_key(|r| risk_rank(r.kind));
    let whole_suite = tests_to_run.is_empty() && !notes.is_empty() && !changed.is_empty();
    let changed_more = changed.len().saturating_sub(MAX_CHANGED);
    let changed: Vec<Changed> = changed.into_iter().take(MAX_CHANGED).map(|(c, _)| c).collect();
    Ok(ReportOutput {
        freshness: s.freshness(&plane),
        plane: plane.meta.name.clone(),
        base: Side { tip: (base.sha != base_tip.sha).then(|| base_tip.sha.clone()), ..side(&base) },
        head: side(&head),
        depth,
        files: pairs.len(),
        counts,
        changed,
        changed_more,
        tests_to_run,
        whole_suite,
        tests_complete: notes.is_empty(),
        incomplete: notes,
        risks,
        unparsed: unparsed.into_iter().collect(),
    })
}

fn shallow_hint(revisions: &dyn Revisions, root: &std::path::Path) -> &'static str {
    if revisions.shallow(root) {
        " This is a shallow clone: fetch the base's history first (`git fetch --deepen=200 origin <base>`, or \
         `fetch-depth: 0` in actions/checkout)."
    } else {
        ""
    }
}

fn side(rev: &Revision) -> Side {
    Side { rev: rev.spec.clone(), commit: rev.sha.clone(), tip: None }
}

enum Unread {
    /// Not a file there, or no plugin reads it.
    Missing,
    /// Binary, not UTF-8, or too large.
    Refused,
}

/// One side of a changed file, outlined.
fn version(
    revisions: &dyn Revisions,
    files: &dyn SourceFiles,
    root: &std::path::Path,
    path: &str,
) -> std::result::Result<Option<Version>, Unread> {
    // Files no plugin reads are not code to report on (an empty text costs nothing to outline).
    if revisions.outline(path, "").is_none() {
        return Ok(None);
    }
    let bytes = files.read(root, path).map_err(|_| Unread::Missing)?;
    if bytes.len() > MAX_FILE_BYTES || bytes.contains(&0) {
        return Err(Unread::Refused);
    }
    let text = String::from_utf8(bytes).map_err(|_| Unread::Refused)?;
    let outline: Outline = revisions.outline(path, &text).ok_or(Unread::Missing)?;
    Ok(Some(Version { path: path.to_owned(), lines: text.lines().map(str::to_owned).collect(), outline }))
}

/// The head plane's nodes of each changed file.
struct HeadNodes {
    /// Per file pair: nodes by (name, line), and the file's module.
    files: Vec<(NodesByPlace, Option<Node>)>,
}

type NodesByPlace = HashMap<(String, u32), Node>;

impl HeadNodes {
    fn read(s: &Session<'_>, plane: &PlaneInfo, pairs: &[FilePair]) -> Result<HeadNodes> {
        let mut files = Vec::with_capacity(pairs.len());
        for pair in pairs {
            let Some(new) = &pair.new else {
                files.push((HashMap::new(), None));
                continue;
            };
            let nodes = s.store.nodes_in_file(plane.id, &new.path)?;
            let module =
                nodes.iter().filter(|n| n.label() == "Module").min_by_key(|n| (n.key.len(), n.key.clone())).cloned();
            let by_place = nodes.into_iter().filter_map(|n| Some(((n.name.clone(), n.line?), n))).collect();
            files.push((by_place, module));
        }
        Ok(HeadNodes { files })
    }

    fn node(&self, pairs: &[FilePair], at: At) -> Option<&Node> {
        let (by_place, module) = self.files.get(at.file)?;
        match at.def {
            None => module.as_ref(),
            Some(d) => {
                let def = pairs[at.file].new.as_ref()?.outline.defs.get(d)?;
                by_place.get(&(def.name.clone(), def.line))
            }
        }
    }
}

/// A change as the report lists it, with its head node.
fn describe(pairs: &[FilePair], heads: &HeadNodes, c: &DefChange) -> (Changed, Option<Node>) {
    let new_node = c.new.and_then(|at| heads.node(pairs, at)).cloned();
    let new_side = c.new.and_then(|at| pairs[at.file].new.as_ref().map(|v| (at, v)));
    let old_side = c.old.and_then(|at| pairs[at.file].old.as_ref().map(|v| (at, v)));
    let module_key = |at: At| heads.files.get(at.file).and_then(|(_, m)| m.as_ref()).map(|m| m.key.clone());
    let new_key = new_side.map(|(at, v)| match &new_node {
        Some(n) => n.key.clone(),
        None => derived_key(v, at.def, module_key(at)),
    });
    let old_key = old_side.map(|(at, v)| {
        let in_place = v.path == new_side.map(|(_, nv)| nv.path.as_str()).unwrap_or_default();
        // A definition removed from a file that stays keeps the file's module key at head.
        let same_file = pairs[at.file].new.as_ref().is_some_and(|nv| nv.path == v.path);
        let module = if in_place || same_file { module_key(at) } else { None };
        // In place and of the same name: the head key; renamed in place: its last segment swapped.
        match (&new_key, new_side, at.def) {
            (Some(k), Some((nat, nv)), Some(d)) if in_place => {
                let new_name = nat.def.map(|nd| nv.outline.defs[nd].name.as_str()).unwrap_or_default();
                let old_name = v.outline.defs[d].name.as_str();
                if new_name == old_name {
                    k.clone()
                } else {
                    match k.strip_suffix(new_name) {
                        Some(prefix) => format!("{prefix}{old_name}"),
                        None => derived_key(v, at.def, module),
                    }
                }
            }
            (Some(k), _, None) if in_place => k.clone(),
            _ => derived_key(v, at.def, module),
        }
    });
    let (at, version) = match (new_side, old_side) {
        (Some(n), _) => n,
        (None, Some(o)) => o,
        (None, None) => unreachable_side(),
    };
    let def = at.def.map(|d| &version.outline.defs[d]);
    let key = new_key.clone().or_else(|| old_key.clone()).unwrap_or_default();
    let changed = Changed {
        label: new_node
            .as_ref()
            .map(|n| n.label().to_owned())
            .unwrap_or_else(|| def.map_or("Module", |d| d.label).to_owned()),
        change: c.kind,
        file: version.path.clone(),
        line: def.map_or(1, |d| d.line),
        old_key: old_key.filter(|o| *o != key && new_key.is_some()),
        old_file: old_side.filter(|_| new_side.is_some()).map(|(_, v)| v.path.clone()),
        old_line: old_side.filter(|_| new_side.is_some()).map(|(at, v)| at.def.map_or(1, |d| v.outline.defs[d].line)),
        public: public(version, at.def),
        nested: in_function(version, at.def),
        key,
        impact: None,
        tests: Vec::new(),
        tests_total: 0,
    };
    (changed, new_node)
}

/// A change has at least one side (`diff::changes` makes no other).
fn unreachable_side() -> (At, &'static Version) {
    static EMPTY: std::sync::OnceLock<Version> = std::sync::OnceLock::new();
    let v = EMPTY.get_or_init(|| Version { path: String::new(), lines: Vec::new(), outline: Outline::default() });
    (At { file: 0, def: None }, v)
}

/// Whether a definition and every one enclosing it are public, and none of those is a function; a module is.
fn public(v: &Version, def: Option<usize>) -> bool {
    let mut at = def;
    let mut first = true;
    for _ in 0..64 {
        let Some(d) = at else { return true };
        let Some(def) = v.outline.defs.get(d) else { return true };
        // A definition inside a function is the function's own, whatever its name.
        if !def.public || !first && matches!(def.label, "Function" | "Method") {
            return false;
        }
        first = false;
        at = def.parent;
    }
    true
}

/// Whether a definition sits inside a function or method.
fn in_function(v: &Version, def: Option<usize>) -> bool {
    let mut at = def.and_then(|d| v.outline.defs.get(d)).and_then(|d| d.parent);
    for _ in 0..64 {
        let Some(parent) = at.and_then(|p| v.outline.defs.get(p)) else { return false };
        if matches!(parent.label, "Function" | "Method") {
            return true;
        }
        at = parent.parent;
    }
    false
}

/// A key for a definition no head node stands for, from its file's module key (or its path) and the
/// names of the definitions enclosing it; a Rust method's `impl` type, or `<Type as Trait>`, leads.
fn derived_key(v: &Version, def: Option<usize>, module: Option<String>) -> String {
    let sep = if v.outline.separator.is_empty() { "." } else { v.outline.separator };
    let module = module.unwrap_or_else(|| path_key(&v.path, sep));
    let mut names = Vec::new();
    let mut at = def;
    for _ in 0..64 {
        let Some(d) = at else { break };
        let Some(def) = v.outline.defs.get(d) else { break };
        names.push(match &def.impl_of {
            Some((ty, Some(tr))) => format!("<{module}{sep}{ty} as {tr}>{sep}{}", def.name),
            Some((ty, None)) => format!("{ty}{sep}{}", def.name),
            None => def.name.clone(),
        });
        at = def.parent;
    }
    names.reverse();
    if names.first().is_some_and(|n| n.starts_with('<')) {
        return names.join(sep);
    }
    std::iter::once(module).chain(names).collect::<Vec<_>>().join(sep)
}

/// A module key from a path alone: its extension, a trailing `__init__`/`mod`/`index` and a leading
/// `src/` dropped, directories joined by the separator.
fn path_key(path: &str, sep: &str) -> String {
    let stem = path.rsplit_once('.').map_or(path, |(stem, _)| stem);
    let stem = stem.strip_prefix("src/").unwrap_or(stem);
    let mut parts: Vec<&str> = stem.split('/').filter(|p| !p.is_empty()).collect();
    if parts.len() > 1 && matches!(parts.last(), Some(&("__init__" | "mod" | "index"))) {
        parts.pop();
    }
    parts.join(sep)
}

/// The risks worth a reviewer's look, most serious first.
fn risks(
    s: &Session<'_>,
    plane: &PlaneInfo,
    changed: &[(Changed, Option<Node>)],
    reachers: &HashMap<usize, Reach>,
    unparsed: &BTreeSet<String>,
) -> Result<Vec<Risk>> {
    let mut out = Vec::new();
    for (i, (c, node)) in changed.iter().enumerate() {
        let is_module = c.label == "Module";
        // A public definition whose shape changed, called from other files.
        if c.public
            && !is_module
            && matches!(c.change, ChangeKind::Signature | ChangeKind::Renamed)
            && let Some(r) = reachers.get(&i)
        {
            let outside: Vec<&Node> = r
                .walk
                .reached
                .iter()
                .filter(|h| h.depth == 1 && h.ty != EdgeType::Imports.as_str())
                .filter_map(|h| r.nodes.get(&h.node))
                .filter(|n| n.file.as_deref() != Some(c.file.as_str()))
                .collect();
            if let Some(first) = outside.first() {
                out.push(Risk {
                    kind: "public-change",
                    key: Some(c.key.clone()),
                    file: Some(c.file.clone()),
                    detail: format!(
                        "{} of a public {}: {} direct callers in other files, e.g. {} ({}:{})",
                        if c.change == ChangeKind::Signature { "signature change" } else { "rename" },
                        c.label.to_lowercase(),
                        outside.len(),
                        first.key,
                        first.file.as_deref().unwrap_or("?"),
                        first.line.unwrap_or(0)
                    ),
                });
            }
        }
        // A change no test reaches.
        if let Some(node) = node
            && !is_module
            && !is_test(node)
            && c.change != ChangeKind::Removed
            && c.tests_total == 0
            && c.impact.is_some()
        {
            let bound =
                if c.impact.is_some_and(|i| i.complete) { "" } else { " (a lower bound: some callers are not bound)" };
            out.push(Risk {
                kind: if c.public { "untested-public-change" } else { "untested-change" },
                key: Some(c.key.clone()),
                file: Some(c.file.clone()),
                detail: format!("no test reaches it within the report's depth{bound}"),
            });
        }
        // A name removed (or renamed away) that code at head still names.
        if matches!(c.change, ChangeKind::Removed | ChangeKind::Renamed) && !is_module {
            let old = c.old_key.as_deref().unwrap_or(&c.key);
            let name = old.rsplit(['.', ':', '>']).next().unwrap_or(old);
            if c.change == ChangeKind::Renamed && c.old_key.is_none() {
                continue;
            }
            // A definition inside a function is named only there; a method, by any value's `.name(…)`,
            // so only references through its type (`Type.name`, `Type::name`) count.
            if c.nested {
                continue;
            }
            let owner = (c.label == "Method").then(|| {
                let parent = old.strip_suffix(name).unwrap_or(old).trim_end_matches(['.', ':']);
                parent.rsplit(['.', ':', '<', ' ']).next().unwrap_or(parent).to_owned()
            });
            let listed = s.store.unresolved_sites_of(plane.id, &[name], REFERENCE_TYPES, REMOVED_SITES, 0)?;
            // A Rust function is never called as a method (`path.strip_prefix(…)` is another's).
            let rust_function = owner.is_none() && c.old_file.as_deref().unwrap_or(&c.file).ends_with(".rs");
            let through_owner = |e: &&drsg_planes::Edge| {
                let text = e.props.get("ref").and_then(|v| v.as_str()).unwrap_or("");
                match &owner {
                    None if rust_function => !text.contains(&format!(".{name}")),
                    None => true,
                    Some(owner) => {
                        text.contains(&format!("{owner}.{name}")) || text.contains(&format!("{owner}::{name}"))
                    }
                }
            };
            let named: Vec<&drsg_planes::Edge> = listed.iter().filter(through_owner).collect();
            let sites = match &owner {
                None if !rust_function => s.store.unresolved_sites_named(plane.id, name, REFERENCE_TYPES)?,
                _ => named.len() as u64,
            };
            if sites > 0 {
                let holder = match named.first() {
                    Some(e) => s.store.nodes_by_ids(&[e.src])?.pop().map(|n| {
                        let line = e.props.get("line").and_then(|v| v.as_u64()).unwrap_or(0);
                        format!(", e.g. in {} ({}:{line})", n.key, n.file.as_deref().unwrap_or("?"))
                    }),
                    None => None,
                };
                out.push(Risk {
                    kind: "removed-referenced",
                    key: Some(old.to_owned()),
                    file: Some(c.old_file.clone().unwrap_or_else(|| c.file.clone())),
                    detail: format!(
                        "`{name}` is gone but {sites} unbound references at head name it{}",
                        holder.unwrap_or_default()
                    ),
                });
            }
        }
    }
    for file in unparsed {
        out.push(Risk {
            kind: "unparsed",
            key: None,
            file: Some(file.clone()),
            detail: "did not parse cleanly at head (syntax errors, binary or too large): its changes and calls may be missing"
                .into(),
        });
    }
    out.sort_by_key(|r| risk_rank(r.kind));
    Ok(out)
}

/// Commits of the base's history read for co-changes.
const CO_CHANGE_COMMITS: usize = 1_000;
/// A commit touching more files than this (a reformat, a vendored import) says nothing of which files
/// go together.
const CO_CHANGE_MAX_FILES: usize = 40;
/// A file changed in fewer commits than this has no habit to break.
const CO_CHANGE_MIN_COMMITS: usize = 5;
/// Co-change risks listed.
const CO_CHANGE_RISKS: usize = 10;

/// Files that the base's history shows changing with a touched file in at least four of five of its
/// commits, missing from this change: `schema.sql` changed without `migrations.ts`, which changed with
/// it in 9 of its 11 commits.
fn co_changes(
    revisions: &dyn Revisions,
    root: &std::path::Path,
    base: &str,
    changes: &[crate::revisions::FileChange],
    head_files: &dyn SourceFiles,
) -> Vec<Risk> {
    let touched: BTreeSet<&str> = changes.iter().flat_map(|c| [c.old.as_deref(), c.new.as_deref()]).flatten().collect();
    let Ok(history) = revisions.commit_files(root, base, CO_CHANGE_COMMITS) else { return Vec::new() };
    let mut alone: HashMap<&str, usize> = HashMap::new();
    let mut together: HashMap<(&str, &str), usize> = HashMap::new();
    for files in history.iter().filter(|f| f.len() <= CO_CHANGE_MAX_FILES) {
        for f in files.iter().map(String::as_str).filter(|f| touched.contains(f)) {
            *alone.entry(f).or_default() += 1;
            for g in files.iter().map(String::as_str).filter(|g| !touched.contains(g)) {
                *together.entry((f, g)).or_default() += 1;
            }
        }
    }
    let mut found: Vec<(&str, &str, usize, usize)> = together
        .into_iter()
        .filter_map(|((f, g), n)| {
            let m = alone[f];
            (m >= CO_CHANGE_MIN_COMMITS && n * 5 >= m * 4).then_some((f, g, n, m))
        })
        .filter(|(_, g, _, _)| head_files.read(root, g).is_ok())
        .collect();
    found.sort_by(|a, b| (b.2 * a.3).cmp(&(a.2 * b.3)).then(b.2.cmp(&a.2)).then(a.0.cmp(b.0)).then(a.1.cmp(b.1)));
    found
        .into_iter()
        .take(CO_CHANGE_RISKS)
        .map(|(f, g, n, m)| Risk {
            kind: "co-change",
            key: None,
            file: Some(f.to_owned()),
            detail: format!("changed without `{g}`, which changed with it in {n} of its {m} commits"),
        })
        .collect()
}

fn risk_rank(kind: &str) -> u8 {
    match kind {
        "removed-referenced" => 0,
        "public-change" => 1,
        "untested-public-change" => 2,
        "unparsed" | "co-change" => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_keys_come_from_paths_without_their_index_files() {
        assert_eq!(path_key("pkg/sub/__init__.py", "."), "pkg.sub");
        assert_eq!(path_key("src/store/mod.rs", "::"), "store");
        assert_eq!(path_key("web/src/api.ts", "."), "web.src.api");
        assert_eq!(path_key("main.py", "."), "main");
    }
}
