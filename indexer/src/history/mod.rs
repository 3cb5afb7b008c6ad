//! The `_git` plane: commits with their parents, branches, tags, and rebases reconstructed from the
//! reflog, built from the plain values of the `git` module.
//!
//! The plane is append-mostly: commits and rebases recorded before are kept, marked unreachable,
//! when the history no longer reaches them; rebases are parsed from reflog messages. When the
//! history only grew, `append` writes only what is new; anything else falls back to
//! `rewrite_history`, which gives the same plane (the fold property test compares the two, and the
//! folded history with the rewrite). `rewrite_history` streams the plane: a walk keeps each
//! commit's id and parents only (`Repo::walk`), and the generations and HEAD's first-parent line
//! are numbered on that shape (`Plane`); the commits' texts are then read and written 2,048 at a
//! time (`Store::replace_plane_streamed`), the walk's decoded objects kept for that second read in
//! a 32 MiB cache (`Repo::with_object_cache`). The reading of rebases from a reflog runs on plain
//! values, so this module's unit tests cover it without a repository.

use std::collections::BTreeMap;

use drsg_planes::{EdgeType, NewEdge, NodeData, PlaneBatch, PlaneKind, PlaneMeta, Props, Store};
use foldhash::{HashMap, HashMapExt};
use serde_json::{Value, json};

use crate::Error;
pub use crate::dates::iso_date;

mod append;

use crate::git::{CommitInfo, GitError, Head, RefInfo, RefKind, ReflogEntry, Repo};
pub(crate) use append::plan as appended_diff;

/// What went into a `_git` plane.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct HistorySummary {
    pub plane: String,
    pub commits: u64,
    pub branches: u64,
    pub tags: u64,
    pub rebases: u64,
    /// True when the commit cap cut the history.
    pub capped: bool,
    /// True when only what was new was written (see [`index_history`]).
    #[serde(skip)]
    pub appended: bool,
}

/// A rebase as the reflog tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rebase {
    /// Full ref name of the rebased branch.
    pub branch: String,
    /// The commit the branch was replayed onto.
    pub onto: String,
    /// The branch's tip before the rebase.
    pub replaced: String,
    /// Commits replayed.
    pub steps: u64,
    pub finished_at: i64,
}

/// Reads the repository and brings the `<plane>_git` plane up to date. `max_commits` bounds the commits
/// read (newest first); `None` reads them all.
///
/// The plane is append-mostly: a commit or rebase it recorded before stays, even when no ref or
/// reflog reaches it any more (a reset, an amend, a rebase, an expired reflog); such a commit is
/// marked `reachable: false`, except beyond the commit cap, where it keeps what the plane last said.
/// Branch and tag pointers move in place. When the history only grew (new commits on top of what the
/// refs and HEAD reached, refs moved forward or added), only the new commits and the moved refs are
/// written (`append`); otherwise the plane is written whole ([`rewrite_history`]), to the same result.
pub fn index_history(
    repo: &Repo,
    store: &mut Store,
    code_plane: &str,
    max_commits: Option<usize>,
) -> Result<HistorySummary, HistoryError> {
    match append::append(repo, store, code_plane, max_commits)? {
        Some(summary) => Ok(summary),
        None => rewrite_history(repo, store, code_plane, max_commits),
    }
}

/// [`index_history`] writing the plane whole, whatever changed.
///
/// The history is read twice and streamed into the plane: first its shape (each commit's id and its
/// parents', about 150 bytes a commit), which the first-parent generations and HEAD's first-parent line
/// need whole; then the commits' texts, 2,048 at a time, each batch's nodes and edges written as it is
/// made. A cache of the objects the walk decoded, 32 MiB at most, spares the second read most decoding.
pub fn rewrite_history(
    repo: &Repo,
    store: &mut Store,
    code_plane: &str,
    max_commits: Option<usize>,
) -> Result<HistorySummary, HistoryError> {
    let repo = &repo.with_object_cache(OBJECT_CACHE);
    let head = repo.head();
    let refs = repo.refs()?;
    let reflog = repo.reflog("HEAD");
    let rebases = rebases(&reflog);
    let mut tips: Vec<String> = refs.iter().filter_map(|r| r.commit.clone()).collect();
    tips.extend(head.commit.clone());
    let walked = repo.walk(&dedup(tips), max_commits)?;
    let capped = max_commits.is_some_and(|m| walked.len() >= m);
    let plane_name = format!("{code_plane}_git");
    let before = recorded_before(store, &plane_name)?;
    let mut shape = Shape::default();
    for w in walked {
        shape.push(w.sha, w.parents, true, None);
    }
    // The tip a rebase replaced is known only from the reflog: record that one commit, unreachable.
    // (Were it still reachable beyond the cap, it would be marked unreachable: the cap's price.)
    for rb in &rebases {
        if !shape.holds(&rb.replaced)
            && let Ok(c) = repo.commit(&rb.replaced)
        {
            shape.push(c.sha.clone(), c.parents.clone(), false, Some(c));
        }
    }
    // What the plane recorded before stays: read again from the repository while the object exists,
    // else as recorded.
    for (old, was_reachable) in before.commits {
        if shape.holds(&old.sha) {
            continue;
        }
        let c = repo.commit(&old.sha).unwrap_or(old);
        shape.push(c.sha.clone(), c.parents.clone(), capped && was_reachable, Some(c));
    }
    let mut rebases = rebases;
    for old in before.rebases {
        let known = rebases.iter().any(|r| r.branch == old.branch && r.replaced == old.replaced && r.onto == old.onto);
        if !known {
            rebases.push(old);
        }
    }
    rebases.sort_by(|a, b| a.finished_at.cmp(&b.finished_at).then_with(|| a.branch.cmp(&b.branch)));
    let summary = HistorySummary {
        plane: plane_name,
        commits: shape.shas.len() as u64,
        branches: refs.iter().filter(|r| r.kind != RefKind::Tag).count() as u64,
        tags: refs.iter().filter(|r| r.kind == RefKind::Tag).count() as u64,
        rebases: rebases.len() as u64,
        capped,
        appended: false,
    };
    let meta = meta(repo, &head, &summary, max_commits);
    let plane = Plane::new(shape, &head);
    let failed: std::cell::RefCell<Option<HistoryError>> = Default::default();
    let mut next = 0;
    let mut deferred = Vec::new();
    let mut tail = Some((refs, rebases));
    let batches = std::iter::from_fn(|| {
        if next < plane.len() {
            let end = (next + BATCH).min(plane.len());
            let batch = plane.commits(next..end, &mut deferred, |sha| repo.commit(sha));
            next = end;
            return batch.map_err(|err| *failed.borrow_mut() = Some(err)).ok();
        }
        let (refs, rebases) = tail.take()?;
        Some(plane.refs_and_rebases(&head, &refs, &rebases))
    });
    let written =
        store.replace_plane_streamed(&meta, Vec::new(), batches, || failed.borrow().is_none().then(|| meta.clone()));
    if let Some(err) = failed.take() {
        return Err(err);
    }
    written.map_err(Error::from)?;
    Ok(summary)
}

/// Commits a streamed history write reads and writes at a time.
const BATCH: usize = 2048;

/// Bytes of decoded objects kept between the walk of a history and the reading of its commits' texts:
/// cargo's 23,000 commits fit.
const OBJECT_CACHE: usize = 32 << 20;

/// The commits a `_git` plane is written with, before their texts are read: ids, parents, reachability,
/// and the text of those not read from the walk.
#[derive(Default)]
struct Shape {
    shas: Vec<String>,
    parents: Vec<Vec<String>>,
    reachable: Vec<bool>,
    /// Commits that are not the walk's (replaced by a rebase, recorded before) come with their text.
    texts: HashMap<usize, CommitInfo>,
    position: HashMap<String, usize>,
}

impl Shape {
    fn push(&mut self, sha: String, parents: Vec<String>, reachable: bool, text: Option<CommitInfo>) {
        if let Some(text) = text {
            self.texts.insert(self.shas.len(), text);
        }
        self.position.insert(sha.clone(), self.shas.len());
        self.shas.push(sha);
        self.parents.push(parents);
        self.reachable.push(reachable);
    }

    fn holds(&self, sha: &str) -> bool {
        self.position.contains_key(sha)
    }
}

/// A `_git` plane's commits numbered in the order they are written (the oldest walked first), each with
/// its parents' numbers (`None` for a parent the plane does not hold), its first-parent generation and
/// whether it is on HEAD's first-parent line.
struct Plane {
    shas: Vec<String>,
    position: HashMap<String, usize>,
    parents: Vec<Vec<Option<usize>>>,
    reachable: Vec<bool>,
    texts: HashMap<usize, CommitInfo>,
    generations: Vec<u64>,
    mainline: Vec<bool>,
}

impl Plane {
    fn new(shape: Shape, head: &Head) -> Plane {
        let Shape { mut shas, parents, mut reachable, texts, mut position } = shape;
        let n = shas.len();
        // Written oldest first: the walk gives the newest first, so parents mostly come before children.
        shas.reverse();
        reachable.reverse();
        let texts = texts.into_iter().map(|(i, t)| (n - 1 - i, t)).collect();
        position.values_mut().for_each(|i| *i = n - 1 - *i);
        let parents: Vec<Vec<Option<usize>>> =
            parents.into_iter().rev().map(|ps| ps.iter().map(|p| position.get(p).copied()).collect()).collect();
        let first: Vec<Option<usize>> = parents.iter().map(|ps| ps.first().copied().flatten()).collect();
        let generations = first_parent_generations(&first);
        let mut mainline = vec![false; n];
        let mut at = head.commit.as_ref().and_then(|h| position.get(h).copied());
        while let Some(i) = at {
            if std::mem::replace(&mut mainline[i], true) {
                break;
            }
            at = first[i];
        }
        Plane { shas, position, parents, reachable, texts, generations, mainline }
    }

    fn len(&self) -> usize {
        self.shas.len()
    }

    /// The nodes of commits `range`, with the parent edges whose ends are both written by then; an edge
    /// to a parent written later waits in `deferred` for its batch.
    fn commits(
        &self,
        range: std::ops::Range<usize>,
        deferred: &mut Vec<(usize, usize, usize)>,
        read: impl Fn(&str) -> Result<CommitInfo, GitError>,
    ) -> Result<PlaneBatch, HistoryError> {
        let end = range.end;
        let mut nodes = Vec::with_capacity(range.len());
        let mut edges = Vec::new();
        let parent_edge = |(src, dst, order): (usize, usize, usize)| {
            NewEdge::new(src, dst, EdgeType::Parent.as_str(), &props(json!({"order": order})))
        };
        for i in range {
            let read_text;
            let text = match self.texts.get(&i) {
                Some(text) => text,
                None => {
                    read_text = read(&self.shas[i])?;
                    &read_text
                }
            };
            let placed = Placed {
                reachable: self.reachable[i],
                generation: Some(self.generations[i]),
                mainline: self.mainline[i],
            };
            nodes.push(commit_node(text, placed));
            for (order, parent) in self.parents[i].iter().enumerate() {
                // A parent beyond the commit cap is not in the plane.
                match parent {
                    Some(p) if *p < end => edges.push(parent_edge((i, *p, order))),
                    Some(p) => deferred.push((i, *p, order)),
                    None => {}
                }
            }
        }
        deferred.retain(|&(i, p, order)| {
            let due = p < end;
            if due {
                edges.push(parent_edge((i, p, order)));
            }
            !due
        });
        Ok(PlaneBatch { nodes, edges })
    }

    /// The branch, tag and rebase nodes, after every commit, with their edges to the commits.
    fn refs_and_rebases(&self, head: &Head, refs: &[RefInfo], rebases: &[Rebase]) -> PlaneBatch {
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        let at = |nodes: &Vec<NodeData>| self.len() + nodes.len();
        for r in refs {
            let (node, edge_type) = ref_node(r, head);
            let src = at(&nodes);
            nodes.push(node);
            if let Some(&dst) = r.commit.as_ref().and_then(|c| self.position.get(c)) {
                edges.push(NewEdge::new(src, dst, edge_type, &Props::new()));
            }
        }
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for rb in rebases {
            let date = iso_date(rb.finished_at);
            let mut key = format!("rebase:{}@{date}", rb.branch);
            let n = seen.entry(key.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                key.push_str(&format!("#{n}"));
            }
            let src = at(&nodes);
            let name = rb.branch.strip_prefix("refs/heads/").unwrap_or(&rb.branch).to_owned();
            nodes.push(NodeData { key, labels: vec!["Rebase".to_owned()], name, ..NodeData::default() }.with_props(
                &props(json!({
                    "branch": rb.branch,
                    "onto": rb.onto,
                    "replaced": rb.replaced,
                    "steps": rb.steps,
                    "finished_at": rb.finished_at,
                    "date": date,
                })),
            ));
            if let Some(&dst) = self.position.get(&rb.onto) {
                edges.push(NewEdge::new(src, dst, EdgeType::Onto.as_str(), &Props::new()));
            }
            if let Some(&dst) = self.position.get(&rb.replaced) {
                edges.push(NewEdge::new(src, dst, EdgeType::Replaced.as_str(), &Props::new()));
            }
        }
        PlaneBatch { nodes, edges }
    }
}

/// A `_git` plane's meta: synced to HEAD, its ledger the summary's counts.
fn meta(repo: &Repo, head: &Head, summary: &HistorySummary, max_commits: Option<usize>) -> PlaneMeta {
    PlaneMeta {
        name: summary.plane.clone(),
        kind: PlaneKind::Git,
        synced_commit: head.commit.clone(),
        synced_root: Some(repo.workdir().to_string_lossy().into_owned()),
        built_by: Value::Null,
        ledger: json!({
            "commits": summary.commits,
            "branches": summary.branches,
            "tags": summary.tags,
            "rebases": summary.rebases,
            "capped": summary.capped,
            "max_commits": max_commits,
            "head_branch": head.branch,
        }),
    }
}

/// Commits (with whether they were reachable) and rebases a `_git` plane holds.
#[derive(Default)]
struct Recorded {
    commits: Vec<(CommitInfo, bool)>,
    rebases: Vec<Rebase>,
}

fn recorded_before(store: &Store, plane: &str) -> Result<Recorded, Error> {
    let mut out = Recorded::default();
    let Some(info) = store.plane(plane)? else { return Ok(out) };
    let commits = store.nodes_by_label(info.id, "Commit")?;
    let sha_of: HashMap<i64, &str> =
        commits.iter().filter_map(|n| Some((n.id, n.props.get("sha")?.as_str()?))).collect();
    let mut parents: HashMap<i64, Vec<(u64, &str)>> = HashMap::new();
    let edges = store.edges(info.id, Some(&[EdgeType::Parent.as_str()]))?;
    for e in &edges {
        if let Some(&parent) = sha_of.get(&e.dst) {
            let order = e.props.get("order").and_then(Value::as_u64).unwrap_or(0);
            parents.entry(e.src).or_default().push((order, parent));
        }
    }
    for node in &commits {
        let Some(&sha) = sha_of.get(&node.id) else { continue };
        let text = |k: &str| node.props.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        let mut ps = parents.remove(&node.id).unwrap_or_default();
        ps.sort();
        let commit = CommitInfo {
            sha: sha.to_owned(),
            parents: ps.into_iter().map(|(_, p)| p.to_owned()).collect(),
            summary: text("summary"),
            author: text("author"),
            committed_at: node.props.get("committed_at").and_then(Value::as_i64).unwrap_or(0),
        };
        let reachable = node.props.get("reachable").and_then(Value::as_bool).unwrap_or(true);
        out.commits.push((commit, reachable));
    }
    for node in store.nodes_by_label(info.id, "Rebase")? {
        let text = |k: &str| node.props.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        out.rebases.push(Rebase {
            branch: text("branch"),
            onto: text("onto"),
            replaced: text("replaced"),
            steps: node.props.get("steps").and_then(Value::as_u64).unwrap_or(0),
            finished_at: node.props.get("finished_at").and_then(Value::as_i64).unwrap_or(0),
        });
    }
    Ok(out)
}

fn dedup(mut list: Vec<String>) -> Vec<String> {
    list.sort();
    list.dedup();
    list
}

/// Why the history plane could not be written.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Index(#[from] Error),
}

/// Rebases in a reflog (oldest first): a `rebase (start)` line, the `rebase (pick)`-style steps, and a
/// `rebase (finish): returning to <branch>` line. An unfinished or aborted rebase is not one.
pub fn rebases(reflog: &[ReflogEntry]) -> Vec<Rebase> {
    // `rebase (start)`, `rebase -i (start)`, `pull --rebase (start)`, …: the command before the step.
    fn step(message: &str) -> Option<(&str, &str)> {
        let (head, rest) = message.split_once(" (")?;
        let (kind, detail) = rest.split_once("):")?;
        (head.starts_with("rebase") || head.contains("--rebase")).then_some((kind, detail.trim()))
    }
    let mut out = Vec::new();
    let mut start: Option<(&ReflogEntry, u64)> = None;
    for entry in reflog {
        match step(&entry.message) {
            Some(("start", _)) => start = Some((entry, 0)),
            Some(("finish", detail)) => {
                let branch = detail.strip_prefix("returning to ").unwrap_or(detail);
                if let Some((begin, steps)) = start.take()
                    && let (Some(replaced), Some(onto)) = (begin.old.clone(), begin.new.clone())
                    // A fast-forward replays nothing and replaces nothing.
                    && steps > 0
                {
                    out.push(Rebase { branch: branch.to_owned(), onto, replaced, steps, finished_at: entry.time });
                }
            }
            Some(_) => {
                if let Some((_, steps)) = start.as_mut() {
                    *steps += 1;
                }
            }
            // Anything else (a checkout, a commit) ends a rebase that never finished.
            None => start = None,
        }
    }
    out
}

/// Each commit's first-parent generation, given each commit's first parent: first-parent steps down to
/// the oldest commit recorded (0 there, and at a commit whose first parent the plane does not hold).
/// Along HEAD's first-parent line, HEAD's generation less a commit's is how many commits it is behind
/// HEAD, with no walk at query time.
fn first_parent_generations(first: &[Option<usize>]) -> Vec<u64> {
    let mut out: Vec<Option<u64>> = vec![None; first.len()];
    let mut path = Vec::new();
    for start in 0..first.len() {
        // Walk down to a commit whose generation is known (or the bottom), then number the way back up.
        path.clear();
        let mut at = Some(start);
        let mut base = None;
        while let Some(i) = at {
            if let Some(g) = out[i] {
                base = Some(g);
                break;
            }
            path.push(i);
            at = first[i];
        }
        for (generation, &i) in (base.map_or(0, |g| g + 1)..).zip(path.iter().rev()) {
            out[i] = Some(generation);
        }
    }
    out.into_iter().map(|g| g.unwrap_or(0)).collect()
}

/// Where a commit stands in the history a `_git` plane records.
#[derive(Debug, Clone, Copy)]
struct Placed {
    /// Some ref or HEAD reaches it.
    reachable: bool,
    /// First-parent steps down to the oldest commit recorded.
    generation: Option<u64>,
    /// On HEAD's first-parent line.
    mainline: bool,
}

fn commit_node(c: &CommitInfo, placed: Placed) -> NodeData {
    let mut labels = vec!["Commit".to_owned()];
    if c.parents.len() > 1 {
        labels.push("Merge".to_owned());
    }
    let props = props(json!({
        "sha": c.sha,
        "short": &c.sha[..c.sha.len().min(12)],
        "summary": c.summary,
        "author": c.author,
        "committed_at": c.committed_at,
        "date": iso_date(c.committed_at),
        "reachable": placed.reachable,
        "generation": placed.generation,
        "mainline": placed.mainline,
    }));
    NodeData {
        key: format!("commit:{}", c.sha),
        labels,
        name: c.sha[..c.sha.len().min(12)].to_owned(),
        ..NodeData::default()
    }
    .with_props(&props)
}

/// A branch's or tag's node, and the type of the edge to the commit it points at.
fn ref_node(r: &RefInfo, head: &Head) -> (NodeData, &'static str) {
    let (key, label, node_props, edge_type) = match r.kind {
        RefKind::Branch | RefKind::RemoteBranch => (
            format!("branch:{}", r.name),
            "Branch",
            json!({
                "name": r.short,
                "ref": r.name,
                "is_head": head.branch.as_deref() == Some(r.name.as_str()),
                "remote": r.kind == RefKind::RemoteBranch,
                "tip": r.commit,
            }),
            EdgeType::Tip.as_str(),
        ),
        RefKind::Tag => (
            format!("tag:{}", r.short),
            "Tag",
            json!({"name": r.short, "target": r.commit, "annotated": r.tag_object.is_some()}),
            EdgeType::Tags.as_str(),
        ),
    };
    let node = NodeData { key, labels: vec![label.to_owned()], name: r.short.clone(), ..NodeData::default() }
        .with_props(&props(node_props));
    (node, edge_type)
}

fn props(value: Value) -> Props {
    match value {
        Value::Object(map) => map,
        _ => Props::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(old: &str, new: &str, message: &str, time: i64) -> ReflogEntry {
        ReflogEntry {
            old: (!old.is_empty()).then(|| old.to_owned()),
            new: (!new.is_empty()).then(|| new.to_owned()),
            message: message.to_owned(),
            time,
        }
    }

    fn info(sha: &str, parents: &[&str]) -> CommitInfo {
        CommitInfo {
            sha: sha.into(),
            parents: parents.iter().map(|p| p.to_string()).collect(),
            summary: format!("commit {sha}"),
            author: "A <a@example.com>".into(),
            committed_at: 0,
        }
    }

    #[test]
    fn a_streamed_history_writes_every_parent_edge_once_after_both_its_ends() {
        // Newest first, as a walk gives them, with `p` walked before its child `c` (a clock skewed
        // commit on another branch), a merge `m`, and `x` whose first parent is beyond the cap.
        let walked = [
            ("m", vec!["c", "b"]),
            ("p", vec!["a"]),
            ("c", vec!["p"]),
            ("d", vec!["a"]),
            ("b", vec!["a"]),
            ("x", vec!["gone", "a"]),
            ("a", vec![]),
        ];
        let mut shape = Shape::default();
        for (sha, parents) in &walked {
            shape.push(sha.to_string(), parents.iter().map(|p| p.to_string()).collect(), true, None);
        }
        shape.push("r".into(), vec!["a".into()], false, Some(info("r", &["a"])));
        let head = Head { commit: Some("m".into()), branch: None };
        let plane = Plane::new(shape, &head);
        let at = |sha: &str| plane.position[sha];
        // Batches of two, oldest first: r a | x b | d c | p m, so `c -> p` waits a batch.
        assert_eq!(plane.shas, ["r", "a", "x", "b", "d", "c", "p", "m"]);
        let mut deferred = Vec::new();
        let mut edges = Vec::new();
        let mut keys = Vec::new();
        for start in (0..plane.len()).step_by(2) {
            let end = (start + 2).min(plane.len());
            let batch = plane.commits(start..end, &mut deferred, |sha| Ok(info(sha, &[]))).expect("every text reads");
            keys.extend(batch.nodes.iter().map(|n| n.key.clone()));
            for e in &batch.edges {
                assert!(e.src < end && e.dst < end, "an edge written before one of its ends");
                edges.push((plane.shas[e.src].clone(), plane.shas[e.dst].clone()));
            }
        }
        assert!(deferred.is_empty());
        assert_eq!(keys.len(), 8);
        edges.sort();
        let expected: Vec<(String, String)> =
            [("b", "a"), ("c", "p"), ("d", "a"), ("m", "b"), ("m", "c"), ("p", "a"), ("r", "a"), ("x", "a")]
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
        assert_eq!(edges, expected);
        let generation = |sha: &str| plane.generations[at(sha)];
        assert_eq!([generation("a"), generation("p"), generation("c"), generation("m")], [0, 1, 2, 3]);
        assert_eq!([generation("b"), generation("d"), generation("r"), generation("x")], [1, 1, 1, 0]);
        let mainline: Vec<&str> =
            ["m", "c", "p", "a", "b", "d", "x", "r"].into_iter().filter(|s| plane.mainline[at(s)]).collect();
        assert_eq!(mainline, ["m", "c", "p", "a"]);
        assert!(!plane.reachable[at("r")] && plane.reachable[at("x")]);
    }

    #[test]
    fn rebases_from_a_reflog() {
        let log = vec![
            entry("", "a1", "commit (initial): first", 1),
            entry("a1", "b1", "commit: on feature", 2),
            entry("b1", "m1", "rebase (start): checkout main", 3),
            entry("m1", "c1", "rebase (pick): on feature", 4),
            entry("c1", "c1", "rebase (finish): returning to refs/heads/feature", 5),
            entry("c1", "d1", "rebase (start): checkout main", 6),
            entry("d1", "m1", "checkout: moving from d1 to main", 7),
        ];
        assert_eq!(
            rebases(&log),
            [Rebase {
                branch: "refs/heads/feature".into(),
                onto: "m1".into(),
                replaced: "b1".into(),
                steps: 1,
                finished_at: 5
            }]
        );
    }
}
