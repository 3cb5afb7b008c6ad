//! Writing only what is new to a `_git` plane: the commits on top of what it recorded and the refs that
//! moved, as a difference, when the history only grew. Anything else (a rewrite, a checkout elsewhere, a
//! new rebase, a commit cap) is left to the whole rewrite, which gives the same plane.
//!
//! The history only grew when every old tip and the old HEAD are still reached, HEAD's first-parent line
//! grew from the old HEAD, no new rebase appeared and no commit cap applies; then the new commits and
//! the moved refs are written as a `PlaneDiff` (`plan`), which a fold writes in the code plane's
//! transaction.

use drsg_planes::{Direction, EdgeType, KeyedEdge, NewEdge, Node, NodeData, PlaneDiff, Props, Store};
use foldhash::{HashMap, HashMapExt, HashSet};
use serde_json::Value;

use super::{HistoryError, HistorySummary, Placed, commit_node, meta, rebases, ref_node};
use crate::git::{CommitInfo, RefKind, Repo};

/// More new commits than this are written by the whole rewrite.
const MAX_NEW: usize = 10_000;

/// How many commits an ancestry check of an old tip walks at most.
const ANCESTRY_BUDGET: usize = 2_000;

/// Brings the `_git` plane of `code_plane` up to date by difference; `None` when the history did not
/// only grow since the plane was written (or there is no plane), and nothing was written.
pub(super) fn append(
    repo: &Repo,
    store: &mut Store,
    code_plane: &str,
    max_commits: Option<usize>,
) -> Result<Option<HistorySummary>, HistoryError> {
    let Some((diff, summary)) = plan(repo, store, code_plane, max_commits)? else { return Ok(None) };
    // A difference the stored plane does not match is left to the rewrite.
    match store.apply_plane_diff(&diff) {
        Ok(_) => Ok(Some(summary)),
        Err(_) => Ok(None),
    }
}

/// The difference [`append`] writes, and the summary of the plane it makes; `None` when the history did
/// not only grow.
pub(crate) fn plan(
    repo: &Repo,
    store: &Store,
    code_plane: &str,
    max_commits: Option<usize>,
) -> Result<Option<(PlaneDiff, HistorySummary)>, HistoryError> {
    // A capped plane keeps the newest commits: what is newest moves with every commit.
    if max_commits.is_some() {
        return Ok(None);
    }
    let name = format!("{code_plane}_git");
    let Some(info) = store.plane(&name).map_err(crate::Error::from)? else { return Ok(None) };
    let ledger = &info.meta.ledger;
    if ledger.get("capped").and_then(Value::as_bool) != Some(false)
        || !ledger.get("max_commits").is_some_and(Value::is_null)
    {
        return Ok(None);
    }
    let plane = info.id;
    let known = |sha: &str| -> Result<Option<Node>, HistoryError> {
        Ok(store.node_by_key(plane, &format!("commit:{sha}")).map_err(crate::Error::from)?)
    };

    // A rebase the plane has not recorded rewrote history.
    for rb in rebases(&repo.reflog("HEAD")) {
        let key = format!("rebase:{}@{}", rb.branch, super::iso_date(rb.finished_at));
        if store.node_by_key(plane, &key).map_err(crate::Error::from)?.is_none() {
            return Ok(None);
        }
    }

    let head = repo.head();
    let refs = repo.refs()?;
    let mut tips: Vec<String> = refs.iter().filter_map(|r| r.commit.clone()).collect();
    tips.extend(head.commit.clone());
    tips.sort();
    tips.dedup();

    // The new commits, from the tips down to what the plane holds (the boundary), which must be what some
    // ref or HEAD reached before: a commit the plane marked unreachable coming back is a rewrite.
    let mut new: Vec<CommitInfo> = Vec::new();
    let mut generation_of: HashMap<String, Option<u64>> = HashMap::new();
    let mut boundary: HashSet<String> = HashSet::default();
    let mut seen: HashSet<String> = HashSet::default();
    let mut stack: Vec<String> = tips.clone();
    while let Some(sha) = stack.pop() {
        if !seen.insert(sha.clone()) {
            continue;
        }
        if let Some(node) = known(&sha)? {
            if node.props.get("reachable").and_then(Value::as_bool) != Some(true) {
                return Ok(None);
            }
            generation_of.insert(sha.clone(), node.props.get("generation").and_then(Value::as_u64));
            boundary.insert(sha);
            continue;
        }
        if new.len() >= MAX_NEW {
            return Ok(None);
        }
        let Ok(commit) = repo.commit(&sha) else { return Ok(None) };
        stack.extend(commit.parents.iter().cloned());
        new.push(commit);
    }

    // What refs and HEAD reached before must stay reached.
    let old_refs = old_refs(store, plane)?;
    // Still a tip, where the walk met the plane, or an ancestor of a tip (a deleted branch that was merged).
    let reached = |sha: &str| {
        tips.iter().any(|t| t == sha) || boundary.contains(sha) || tips.iter().any(|t| reaches(repo, t, sha))
    };
    for (_, (node, _)) in old_refs.iter() {
        let tip = node.props.get(if node.label() == "Tag" { "target" } else { "tip" }).and_then(Value::as_str);
        if tip.is_some_and(|t| !reached(t)) {
            return Ok(None);
        }
    }
    let old_head = info.meta.synced_commit.clone();
    if old_head.as_deref().is_some_and(|h| !reached(h)) {
        return Ok(None);
    }

    // HEAD's first-parent line grows from the old HEAD up through new commits, or stays.
    let by_sha: HashMap<&str, &CommitInfo> = new.iter().map(|c| (c.sha.as_str(), c)).collect();
    let mut mainline: HashSet<&str> = HashSet::default();
    if head.commit != old_head {
        let mut at = head.commit.as_deref();
        loop {
            match at {
                Some(sha) if Some(sha) == old_head.as_deref() => break,
                Some(sha) => match by_sha.get(sha) {
                    Some(c) => {
                        mainline.insert(sha);
                        at = c.parents.first().map(String::as_str);
                    }
                    // A checkout elsewhere, or a line that does not come down to the old HEAD.
                    None => return Ok(None),
                },
                None => return Ok(None),
            }
        }
    }

    // Generations: one more than the first parent's where the plane or the new commits hold it.
    fn generation<'a>(
        sha: &'a str,
        by_sha: &HashMap<&'a str, &'a CommitInfo>,
        known: &mut HashMap<String, Option<u64>>,
    ) -> Option<u64> {
        let mut path: Vec<&str> = Vec::new();
        let mut at = Some(sha);
        let mut base = None;
        while let Some(s) = at {
            if let Some(g) = known.get(s) {
                base = *g;
                break;
            }
            path.push(s);
            at = by_sha.get(s).and_then(|c| c.parents.first()).map(String::as_str);
            if at.is_some_and(|p| !by_sha.contains_key(p) && !known.contains_key(p)) {
                at = None;
            }
        }
        for (g, s) in (base.map_or(0, |g| g + 1)..).zip(path.into_iter().rev()) {
            known.insert(s.to_owned(), Some(g));
        }
        known.get(sha).copied().flatten()
    }

    let mut upsert: Vec<NodeData> = Vec::new();
    let mut add_edges: Vec<KeyedEdge> = Vec::new();
    let mut remove_edges: Vec<KeyedEdge> = Vec::new();
    let mut remove_nodes: Vec<String> = Vec::new();
    let in_plane = |sha: &str| by_sha.contains_key(sha) || boundary.contains(sha);
    for c in &new {
        let placed = Placed {
            reachable: true,
            generation: generation(&c.sha, &by_sha, &mut generation_of),
            mainline: mainline.contains(c.sha.as_str()),
        };
        upsert.push(commit_node(c, placed));
        // Every parent was walked: new, or where the walk met the plane.
        for (order, parent) in c.parents.iter().enumerate() {
            if in_plane(parent) {
                let props = super::props(serde_json::json!({"order": order}));
                add_edges.push(keyed(
                    &format!("commit:{}", c.sha),
                    &format!("commit:{parent}"),
                    EdgeType::Parent.as_str(),
                    &props,
                ));
            }
        }
    }

    // Refs: added or changed ones written, their pointer edges replaced; gone ones removed.
    let mut current: HashSet<String> = HashSet::default();
    for r in &refs {
        let (node, edge_type) = ref_node(r, &head);
        current.insert(node.key.clone());
        let target = r.commit.as_ref().filter(|c| in_plane(c)).map(|c| format!("commit:{c}"));
        let old = old_refs.get(&node.key);
        let same_node = old.is_some_and(|(o, _)| same(o, &node));
        let old_target = old.and_then(|(_, t)| t.clone());
        if !same_node {
            upsert.push(node.clone());
        }
        if old_target != target {
            if let Some(t) = &old_target {
                remove_edges.push(keyed(&node.key, t, edge_type, &Props::new()));
            }
            if let Some(t) = &target {
                add_edges.push(keyed(&node.key, t, edge_type, &Props::new()));
            }
        }
    }
    for (key, (node, target)) in &old_refs {
        if current.contains(key) {
            continue;
        }
        if let Some(t) = target {
            let ty = if node.label() == "Tag" { EdgeType::Tags.as_str() } else { EdgeType::Tip.as_str() };
            remove_edges.push(keyed(key, t, ty, &Props::new()));
        }
        remove_nodes.push(key.clone());
    }

    let count = |key: &str| ledger.get(key).and_then(Value::as_u64).unwrap_or(0);
    let summary = HistorySummary {
        plane: name,
        commits: count("commits") + new.len() as u64,
        branches: refs.iter().filter(|r| r.kind != RefKind::Tag).count() as u64,
        tags: refs.iter().filter(|r| r.kind == RefKind::Tag).count() as u64,
        rebases: count("rebases"),
        capped: false,
        appended: true,
    };
    let diff = PlaneDiff {
        meta: meta(repo, &head, &summary, None),
        base_generation: info.generation,
        remove_nodes,
        upsert_nodes: upsert,
        remove_edges,
        add_edges,
    };
    Ok(Some((diff, summary)))
}

/// Whether `target` is an ancestor of `tip`, looking at no more than [`ANCESTRY_BUDGET`] commits (beyond it,
/// no: the whole rewrite then decides).
fn reaches(repo: &Repo, tip: &str, target: &str) -> bool {
    let mut seen: HashSet<String> = HashSet::default();
    let mut stack = vec![tip.to_owned()];
    while let Some(sha) = stack.pop() {
        if sha == target {
            return true;
        }
        if seen.len() >= ANCESTRY_BUDGET || !seen.insert(sha.clone()) {
            continue;
        }
        if let Ok(c) = repo.commit(&sha) {
            stack.extend(c.parents);
        }
    }
    false
}

/// The plane's branch and tag nodes by key, with the key of the commit each points at.
fn old_refs(store: &Store, plane: i64) -> Result<HashMap<String, (Node, Option<String>)>, HistoryError> {
    let read = |e: drsg_planes::Error| HistoryError::from(crate::Error::from(e));
    // Each ref's one edge, found from the ref (reading the plane's edges by type would scan every commit's
    // parent edges: about 7 ms on cargo's 23,000 commits, against 2 ms for its 127 refs one by one).
    let mut refs = Vec::new();
    for (label, ty) in [("Branch", EdgeType::Tip.as_str()), ("Tag", EdgeType::Tags.as_str())] {
        for node in store.nodes_by_label(plane, label).map_err(read)? {
            let target = store.adjacent(node.id, Direction::Out, &[ty]).map_err(read)?.first().map(|a| a.node);
            refs.push((node, target));
        }
    }
    let targets: Vec<i64> = refs.iter().filter_map(|(_, t)| *t).collect();
    let key_of: HashMap<i64, String> =
        store.nodes_by_ids(&targets).map_err(read)?.into_iter().map(|n| (n.id, n.key)).collect();
    Ok(refs
        .into_iter()
        .map(|(node, target)| {
            let target = target.and_then(|t| key_of.get(&t).cloned());
            (node.key.clone(), (node, target))
        })
        .collect())
}

/// Whether a stored node already says what `node` says.
fn same(stored: &Node, node: &NodeData) -> bool {
    let props: Props = serde_json::from_str(&node.props_json).unwrap_or_default();
    stored.labels == node.labels && stored.name == node.name && stored.props == props
}

fn keyed(src: &str, dst: &str, ty: &'static str, props: &Props) -> KeyedEdge {
    KeyedEdge {
        src: src.to_owned(),
        dst: dst.to_owned(),
        ty: ty.into(),
        props_json: NewEdge::new(0, 0, ty, props).props_json,
    }
}
