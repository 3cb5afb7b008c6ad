//! Resolving an image to the commit it was built from: the `_git` plane's commits, tags and parents, and
//! which images are this repository's.

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use drsg_planes::{EdgeType, Node, PlaneInfo};
use serde_json::Value;

use super::{CommitOut, ImageOut, WorkloadOut};
use crate::{Result, Session, short_sha};

/// The commits HEAD holds, and the parents to walk from any other.
struct Graph {
    parents: HashMap<i64, Vec<i64>>,
    in_head: std::collections::HashSet<i64>,
}

impl Graph {
    /// How many commits HEAD holds that `commit` lacks, and whether HEAD holds `commit`.
    fn behind(&self, commit: i64) -> (u64, bool) {
        let holds = self.in_head.contains(&commit);
        let mine = ancestors(&self.parents, commit);
        let behind = self.in_head.iter().filter(|c| !mine.contains(c)).count() as u64;
        (behind, holds)
    }
}

/// `start` and every commit it reaches through its parents.
fn ancestors(parents: &HashMap<i64, Vec<i64>>, start: i64) -> std::collections::HashSet<i64> {
    let mut seen = std::collections::HashSet::from([start]);
    let mut stack = vec![start];
    while let Some(c) = stack.pop() {
        for &p in parents.get(&c).into_iter().flatten() {
            if seen.insert(p) {
                stack.push(p);
            }
        }
    }
    seen
}

/// The `_git` plane's tags, and its commits read by key as questions need them.
pub(super) struct History<'s> {
    store: &'s drsg_planes::Store,
    plane_id: i64,
    head: Option<String>,
    /// Commit nodes read so far, by sha (`None`: not in the plane).
    commits: RefCell<HashMap<String, Option<Node>>>,
    tags: HashMap<String, String>,
    head_generation: Option<u64>,
    capped: bool,
    /// Node ids and `PARENT` edges, read on the first question that needs a walk.
    graph: OnceCell<Graph>,
    /// Commits already counted against HEAD, by node id.
    behind: RefCell<HashMap<i64, (u64, bool)>>,
}

impl<'s> History<'s> {
    pub(super) fn load(s: &Session<'s>, code: &PlaneInfo) -> Result<Option<History<'s>>> {
        let Some(plane) = s.store.plane(&format!("{}_git", code.meta.name))? else { return Ok(None) };
        let str_prop = |n: &Node, k: &str| n.props.get(k).and_then(Value::as_str).map(str::to_owned);
        let tags = s
            .store
            .nodes_by_label(plane.id, "Tag")?
            .iter()
            .filter_map(|t| Some((str_prop(t, "name").unwrap_or_else(|| t.name.clone()), str_prop(t, "target")?)))
            .collect();
        let mut history = History {
            store: s.store,
            plane_id: plane.id,
            head: plane.meta.synced_commit.clone(),
            commits: RefCell::new(HashMap::new()),
            tags,
            head_generation: None,
            capped: plane.meta.ledger.get("capped").and_then(Value::as_bool).unwrap_or(false),
            graph: OnceCell::new(),
            behind: RefCell::new(HashMap::new()),
        };
        let head = match history.head.clone() {
            Some(h) => history.node(&h)?,
            None => None,
        };
        history.head_generation = head.and_then(|c| c.props.get("generation")?.as_u64());
        Ok(Some(history))
    }

    pub(super) fn capped(&self) -> bool {
        self.capped
    }

    /// The commit node of `sha` (a full id).
    fn node(&self, sha: &str) -> Result<Option<Node>> {
        if let Some(known) = self.commits.borrow().get(sha) {
            return Ok(known.clone());
        }
        let node = self.store.node_by_key(self.plane_id, &format!("commit:{sha}"))?;
        self.commits.borrow_mut().insert(sha.to_owned(), node.clone());
        Ok(node)
    }

    /// The one commit whose id starts with `prefix` (7 to 40 hex digits).
    fn by_prefix(&self, prefix: &str) -> Result<Option<String>> {
        let prefix = prefix.to_ascii_lowercase();
        if !(7..=40).contains(&prefix.len()) || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        let keys = self.store.keys_with_prefix(self.plane_id, &format!("commit:{prefix}"), 2)?;
        Ok(match keys.as_slice() {
            [one] => one.strip_prefix("commit:").map(str::to_owned),
            _ => None,
        })
    }

    /// The commit an image tag names, and how it was matched.
    pub(super) fn match_tag(&self, tag: &str) -> Result<Option<(String, String)>> {
        let plain = tag.strip_prefix('v').unwrap_or(tag);
        for name in [tag.to_owned(), format!("v{tag}"), plain.to_owned()] {
            if let Some(sha) = self.tags.get(&name) {
                return Ok(Some((sha.clone(), format!("git tag {name}"))));
            }
        }
        if let Some(sha) = self.by_prefix(tag)? {
            return Ok(Some((sha, format!("commit id {tag}"))));
        }
        // `sha-1a2b3c4`, `main-1a2b3c4`, `1.4.0-1a2b3c4`, `1a2b3c4-dirty`: a part that is a commit id.
        let parts: Vec<&str> = tag.split(['-', '_', '.', '+']).collect();
        if parts.len() > 1 {
            for part in [parts[parts.len() - 1], parts[0]] {
                if let Some(sha) = self.by_prefix(part)? {
                    return Ok(Some((sha, format!("commit id {part} in tag {tag}"))));
                }
            }
        }
        Ok(None)
    }

    /// The commit a literal revision label names.
    pub(super) fn label(&self, label: &str) -> Result<Option<String>> {
        self.by_prefix(label)
    }

    pub(super) fn commit(&self, sha: &str, matched_by: String) -> Result<CommitOut> {
        let node = self.node(sha)?;
        let node = node.as_ref();
        let text = |k: &str| node.and_then(|n| n.props.get(k)).and_then(Value::as_str).unwrap_or("").to_owned();
        let mainline = node.and_then(|n| n.props.get("mainline")).and_then(Value::as_bool).unwrap_or(false);
        let generation = node.and_then(|n| n.props.get("generation")).and_then(Value::as_u64);
        // Along HEAD's first-parent line the generations say it; elsewhere the plane's parents are walked.
        let (behind_head, in_head) = match (mainline, generation, self.head_generation) {
            (true, Some(g), Some(h)) => (Some(h.saturating_sub(g)), true),
            _ => match node {
                Some(n) => {
                    let (behind, holds) = self.behind(n.id)?;
                    (Some(behind), holds)
                }
                None => (None, false),
            },
        };
        Ok(CommitOut {
            sha: sha.to_owned(),
            short: short_sha(sha).to_owned(),
            date: text("date").chars().take(10).collect(),
            summary: text("summary"),
            behind_head,
            in_head,
            matched_by,
        })
    }

    /// How many commits HEAD holds that commit `id` lacks, and whether HEAD holds it.
    fn behind(&self, id: i64) -> Result<(u64, bool)> {
        if let Some(&known) = self.behind.borrow().get(&id) {
            return Ok(known);
        }
        let counted = self.graph()?.behind(id);
        self.behind.borrow_mut().insert(id, counted);
        Ok(counted)
    }

    fn graph(&self) -> Result<&Graph> {
        if let Some(g) = self.graph.get() {
            return Ok(g);
        }
        let mut parents: HashMap<i64, Vec<i64>> = HashMap::new();
        for e in self.store.edges(self.plane_id, Some(&[EdgeType::Parent.as_str()]))? {
            parents.entry(e.src).or_default().push(e.dst);
        }
        let head = match &self.head {
            Some(h) => self.node(h)?.map(|n| n.id),
            None => None,
        };
        let in_head = head.map(|h| ancestors(&parents, h)).unwrap_or_default();
        Ok(self.graph.get_or_init(|| Graph { parents, in_head }))
    }

    /// True when commit `later` holds commit `earlier` (an ancestor of it).
    pub(super) fn includes(&self, later: &str, earlier: &str) -> Result<bool> {
        let (Some(l), Some(e)) = (self.node(later)?, self.node(earlier)?) else { return Ok(false) };
        if l.id == e.id {
            return Ok(false);
        }
        Ok(ancestors(&self.graph()?.parents, l.id).contains(&e.id))
    }
}

/// Names that make an image this repository's: the tree's, each Dockerfile's directory's, and each service
/// or context built here; and the images a build here makes.
pub(super) struct OwnNames {
    names: BTreeSet<String>,
    built: BTreeSet<i64>,
}

impl OwnNames {
    pub(super) fn of(s: &Session<'_>, ops: &PlaneInfo, code: &PlaneInfo) -> Result<OwnNames> {
        let mut names = BTreeSet::new();
        let tree = code.meta.synced_root.as_deref().and_then(|r| Path::new(r).file_name()).and_then(|n| n.to_str());
        names.extend(tree.map(str::to_lowercase));
        names.insert(code.meta.name.to_lowercase());
        for d in s.store.nodes_by_label(ops.id, "Dockerfile")? {
            let file = d.file.as_deref().unwrap_or("");
            // Every directory on the way names it: `src/cartservice/src/Dockerfile` builds `cartservice`.
            match file.rsplit_once('/') {
                Some((dir, _)) => names.extend(dir.split('/').map(str::to_lowercase)),
                None => names.extend(tree.map(str::to_lowercase)),
            }
        }
        let mut built = BTreeSet::new();
        for e in s.store.edges(ops.id, Some(&[EdgeType::BuiltFrom.as_str()]))? {
            if let Some(src) = s.store.node(e.src)? {
                match src.label() {
                    "Image" => {
                        built.insert(src.id);
                    }
                    _ => {
                        names.insert(src.name.to_lowercase());
                    }
                }
            }
        }
        names.retain(|n| !n.is_empty());
        Ok(OwnNames { names, built })
    }

    fn owns(&self, image: &Node) -> bool {
        self.built.contains(&image.id) || self.names.contains(&image.name.to_lowercase())
    }
}

pub(super) fn workload(
    s: &Session<'_>,
    ops: &PlaneInfo,
    w: &Node,
    ours: &OwnNames,
    history: Option<&History>,
) -> Result<WorkloadOut> {
    let text = |n: &Node, k: &str| n.props.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut images = Vec::new();
    let mut build = None;
    for e in s.store.edges_out(w.id, None)? {
        let Some(target) = s.store.node(e.dst)? else { continue };
        match EdgeType::parse(&e.ty) {
            Some(EdgeType::Runs) => {
                let container = e.props.get("container").and_then(Value::as_str).unwrap_or("").to_owned();
                images.push(image(s, &target, container, ours, history)?);
            }
            Some(EdgeType::BuiltFrom) => {
                build = Some(target.key.split_once(':').map_or(target.key.clone(), |(_, p)| p.to_owned()))
            }
            _ => {}
        }
    }
    Ok(WorkloadOut {
        key: w.key.clone(),
        name: w.name.clone(),
        kind: text(w, "kind").unwrap_or_default(),
        namespace: text(w, "namespace"),
        file: w.file.clone().unwrap_or_default(),
        line: w.line.unwrap_or(0),
        plane: ops.meta.name.clone(),
        images,
        build,
        runs: None,
    })
}

fn image(
    s: &Session<'_>,
    node: &Node,
    container: String,
    ours: &OwnNames,
    history: Option<&History>,
) -> Result<ImageOut> {
    let text = |k: &str| node.props.get(k).and_then(Value::as_str).map(str::to_owned);
    let reference = text("reference").unwrap_or_else(|| node.key.trim_start_matches("image:").to_owned());
    let (tag, digest) = (text("tag"), text("digest"));
    let mut out = ImageOut {
        registry: text("registry"),
        repository: text("repository").unwrap_or_default(),
        tag: tag.clone(),
        digest: digest.clone(),
        container,
        status: "unknown-revision",
        commit: None,
        note: String::new(),
        reference,
    };
    let (status, note) = if node.props.get("templated").and_then(Value::as_bool).unwrap_or(false) {
        ("templated", "templated: a deploy tool fills the reference in, so no revision can be told from it".to_owned())
    } else if let Some((sha, by)) = history.and_then(|h| revision_label(s, node, h).transpose()).transpose()? {
        out.commit = history.map(|h| h.commit(&sha, by)).transpose()?;
        ("commit", String::new())
    } else if tag.is_none() && digest.is_some() {
        ("digest", "pinned by digest alone: a digest names the image's bytes, not a revision".to_owned())
    } else if tag.is_none() {
        ("untagged", "no tag, so `latest`: whatever was pushed last".to_owned())
    } else if node.props.get("floating").and_then(Value::as_bool).unwrap_or(false) {
        let t = tag.as_deref().unwrap_or("");
        ("floating", format!("floating tag `{t}`: whatever was pushed last under it"))
    } else if !ours.owns(node) {
        ("external", format!("not built from this repository (third-party, or built elsewhere): `{}`", out.repository))
    } else {
        let t = tag.as_deref().unwrap_or("");
        match history {
            None => {
                ("unknown-revision", "no history plane (not a git checkout): the tag cannot be resolved".to_owned())
            }
            Some(h) => match h.match_tag(t)? {
                Some((sha, by)) => {
                    out.commit = Some(h.commit(&sha, by)?);
                    ("commit", String::new())
                }
                None => {
                    let within = if h.capped() { " among the commits recorded (--max-commits)" } else { "" };
                    ("unknown-revision", format!("tag `{t}` names no commit or git tag of this repository{within}"))
                }
            },
        }
    };
    out.status = status;
    out.note = note;
    Ok(out)
}

/// The commit an OCI revision label names, in a Dockerfile the image is built from.
fn revision_label(s: &Session<'_>, image: &Node, history: &History) -> Result<Option<(String, String)>> {
    for e in s.store.edges_out(image.id, Some(EdgeType::BuiltFrom.as_str()))? {
        let Some(dockerfile) = s.store.node(e.dst)? else { continue };
        let Some(label) = dockerfile.props.get("revision").and_then(Value::as_str) else { continue };
        if let Some(sha) = history.label(label)? {
            let line = dockerfile.props.get("revision_line").and_then(Value::as_u64).unwrap_or(0);
            let file = dockerfile.file.as_deref().unwrap_or("");
            return Ok(Some((sha, format!("OCI revision label at {file}:{line}"))));
        }
    }
    Ok(None)
}
