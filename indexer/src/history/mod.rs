//! The `_git` plane: commits with their parents, branches, tags, and rebases reconstructed from the
//! reflog, built from the plain values of the `git` module.

use std::collections::BTreeMap;

use drsg_planes::{NewEdge, NodeData, PlaneKind, PlaneMeta, Props, Store};
use foldhash::{HashMap, HashMapExt, HashSet};
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
pub fn rewrite_history(
    repo: &Repo,
    store: &mut Store,
    code_plane: &str,
    max_commits: Option<usize>,
) -> Result<HistorySummary, HistoryError> {
    let head = repo.head();
    let refs = repo.refs()?;
    let reflog = repo.reflog("HEAD");
    let rebases = rebases(&reflog);
    let mut tips: Vec<String> = refs.iter().filter_map(|r| r.commit.clone()).collect();
    tips.extend(head.commit.clone());
    let mut commits = repo.commits(&dedup(tips), max_commits)?;
    let capped = max_commits.is_some_and(|m| commits.len() >= m);
    let mut reachable: HashSet<String> = commits.iter().map(|c| c.sha.clone()).collect();
    let plane_name = format!("{code_plane}_git");
    let before = recorded_before(store, &plane_name)?;
    // The tip a rebase replaced is known only from the reflog: record that one commit, unreachable.
    // (Were it still reachable beyond the cap, it would be marked unreachable: the cap's price.)
    let mut recorded = reachable.clone();
    for rb in &rebases {
        if recorded.insert(rb.replaced.clone())
            && let Ok(c) = repo.commit(&rb.replaced)
        {
            commits.push(c);
        }
    }
    // What the plane recorded before stays: read again from the repository while the object exists,
    // else as recorded.
    for (old, was_reachable) in before.commits {
        if !recorded.insert(old.sha.clone()) {
            continue;
        }
        if capped && was_reachable {
            reachable.insert(old.sha.clone());
        }
        commits.push(repo.commit(&old.sha).unwrap_or(old));
    }
    let mut rebases = rebases;
    for old in before.rebases {
        let known = rebases.iter().any(|r| r.branch == old.branch && r.replaced == old.replaced && r.onto == old.onto);
        if !known {
            rebases.push(old);
        }
    }
    rebases.sort_by(|a, b| a.finished_at.cmp(&b.finished_at).then_with(|| a.branch.cmp(&b.branch)));
    let (nodes, edges) = git_plane(&head, &refs, &commits, &reachable, &rebases);
    let summary = HistorySummary {
        plane: plane_name,
        commits: commits.len() as u64,
        branches: refs.iter().filter(|r| r.kind != RefKind::Tag).count() as u64,
        tags: refs.iter().filter(|r| r.kind == RefKind::Tag).count() as u64,
        rebases: rebases.len() as u64,
        capped,
        appended: false,
    };
    store.replace_plane(&meta(repo, &head, &summary, max_commits), &nodes, &edges).map_err(Error::from)?;
    Ok(summary)
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
    let edges = store.edges(info.id, Some(&["PARENT"]))?;
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

/// Each commit's first-parent generation: first-parent steps down to the oldest commit recorded (0 there,
/// and at a commit whose first parent the plane does not hold). Along HEAD's first-parent line, HEAD's
/// generation less a commit's is how many commits it is behind HEAD, with no walk at query time.
fn first_parent_generations(commits: &[CommitInfo]) -> HashMap<&str, u64> {
    let first: HashMap<&str, Option<&str>> =
        commits.iter().map(|c| (c.sha.as_str(), c.parents.first().map(String::as_str))).collect();
    let mut out: HashMap<&str, u64> = HashMap::with_capacity(commits.len());
    for c in commits {
        // Walk down to a commit whose generation is known (or the bottom), then number the way back up.
        let mut path = Vec::new();
        let mut at = Some(c.sha.as_str());
        let mut base = None;
        while let Some(sha) = at {
            if let Some(&g) = out.get(sha) {
                base = Some(g);
                break;
            }
            path.push(sha);
            at = first.get(sha).copied().flatten().filter(|p| first.contains_key(p));
        }
        for (generation, sha) in (base.map_or(0, |g| g + 1)..).zip(path.into_iter().rev()) {
            out.insert(sha, generation);
        }
    }
    out
}

/// The commits on HEAD's first-parent line.
fn first_parent_line<'a>(commits: &'a [CommitInfo], head: Option<&str>) -> HashSet<&'a str> {
    let by_sha: HashMap<&str, &CommitInfo> = commits.iter().map(|c| (c.sha.as_str(), c)).collect();
    let mut out = HashSet::default();
    let mut at = head.and_then(|h| by_sha.get(h));
    while let Some(c) = at {
        if !out.insert(c.sha.as_str()) {
            break;
        }
        at = c.parents.first().and_then(|p| by_sha.get(p.as_str()));
    }
    out
}

/// The nodes and edges of a `_git` plane.
pub fn git_plane(
    head: &Head,
    refs: &[RefInfo],
    commits: &[CommitInfo],
    reachable: &HashSet<String>,
    rebases: &[Rebase],
) -> (Vec<NodeData>, Vec<NewEdge>) {
    let mut nodes = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut sorted: Vec<&CommitInfo> = commits.iter().collect();
    sorted.sort_by(|a, b| a.sha.cmp(&b.sha));
    let generations = first_parent_generations(commits);
    let mainline = first_parent_line(commits, head.commit.as_deref());
    for c in &sorted {
        let placed = Placed {
            reachable: reachable.contains(&c.sha),
            generation: generations.get(c.sha.as_str()).copied(),
            mainline: mainline.contains(c.sha.as_str()),
        };
        index.insert(c.sha.clone(), nodes.len());
        nodes.push(commit_node(c, placed));
    }
    let mut edges = Vec::new();
    for c in &sorted {
        let src = index[&c.sha];
        for (order, parent) in c.parents.iter().enumerate() {
            // A parent beyond the commit cap is not in the plane.
            if let Some(&dst) = index.get(parent) {
                edges.push(NewEdge::new(src, dst, "PARENT", &props(json!({"order": order}))));
            }
        }
    }
    for r in refs {
        let (node, edge_type) = ref_node(r, head);
        let at = nodes.len();
        nodes.push(node);
        if let Some(&dst) = r.commit.as_ref().and_then(|c| index.get(c)) {
            edges.push(NewEdge::new(at, dst, edge_type, &Props::new()));
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
        let at = nodes.len();
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
        if let Some(&dst) = index.get(&rb.onto) {
            edges.push(NewEdge::new(at, dst, "ONTO", &Props::new()));
        }
        if let Some(&dst) = index.get(&rb.replaced) {
            edges.push(NewEdge::new(at, dst, "REPLACED", &Props::new()));
        }
    }
    (nodes, edges)
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
            "TIP",
        ),
        RefKind::Tag => (
            format!("tag:{}", r.short),
            "Tag",
            json!({"name": r.short, "target": r.commit, "annotated": r.tag_object.is_some()}),
            "TAGS",
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
