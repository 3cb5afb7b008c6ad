//! `history`: HEAD, branches with their tips, tags, rebases (from the reflog), and the newest commits,
//! read from a code plane's `_git` plane.

use std::collections::HashMap;

use drsg_planes::{Node, PlaneInfo, PlaneKind};
use serde::{Deserialize, Serialize};

use crate::render::{Group, Text, one_line};
use crate::{Answer, Error, Result, Session, short_sha};

const DEFAULT_LIMIT: usize = 10;
const MAX_LIMIT: usize = 200;
const REF_CAP: usize = 30;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct HistoryParams {
    /// Newest commits listed (default 10, at most 200).
    pub limit: Option<usize>,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum HistoryOutput {
    Found(Box<History>),
    /// The code plane was not built from a git checkout.
    NoHistory {
        plane: String,
    },
}

#[derive(Debug, Serialize)]
pub struct History {
    /// The `_git` plane read.
    pub plane: String,
    pub freshness: String,
    pub head: Head,
    pub branches: Group<Branch>,
    pub tags: Group<Tag>,
    pub rebases: Group<Rebase>,
    /// Reachable commits, newest first.
    pub commits: Group<Commit>,
    /// Commits only the reflog remembers (replaced by a rebase, reset away).
    pub unreachable: usize,
    /// True when `drsg index --max-commits` cut the history.
    pub capped: bool,
    /// Commits that workloads of the `_ops` plane run (their images were built from them), newest first.
    #[serde(skip_serializing_if = "Group::is_empty")]
    pub deployed: Group<Deployed>,
}

#[derive(Debug, Serialize)]
pub struct Deployed {
    pub short: String,
    pub date: String,
    pub summary: String,
    /// The workloads, as `name (Kind, file:line)`.
    pub workloads: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Head {
    pub commit: Option<String>,
    /// Short branch name; `None` when HEAD is detached.
    pub branch: Option<String>,
    pub summary: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Branch {
    pub name: String,
    pub tip: Option<String>,
    pub summary: Option<String>,
    pub is_head: bool,
    pub remote: bool,
}

#[derive(Debug, Serialize)]
pub struct Tag {
    pub name: String,
    pub target: Option<String>,
    pub annotated: bool,
    /// The date of the commit it names (`YYYY-MM-DD`), when the plane holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Rebase {
    pub branch: String,
    pub onto: String,
    pub replaced: String,
    pub steps: u64,
    pub date: String,
}

#[derive(Debug, Serialize)]
pub struct Commit {
    pub short: String,
    pub date: String,
    pub author: String,
    pub summary: String,
    pub merge: bool,
}

pub fn history(s: &Session<'_>, p: &HistoryParams) -> Result<HistoryOutput> {
    let limit = p.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(Error::InvalidArgument(format!("limit must be 1 to {MAX_LIMIT} (got {limit})")));
    }
    let Some(plane) = git_plane(s, p.plane.as_deref())? else {
        let code = s.plane(p.plane.as_deref())?;
        return Ok(HistoryOutput::NoHistory { plane: code.meta.name });
    };
    let str_prop = |n: &Node, k: &str| n.props.get(k).and_then(|v| v.as_str()).map(str::to_owned);
    let commits = s.store.nodes_by_label(plane.id, "Commit")?;
    let by_sha: HashMap<String, &Node> = commits.iter().filter_map(|c| Some((str_prop(c, "sha")?, c))).collect();
    let summary_of =
        |sha: &Option<String>| sha.as_ref().and_then(|s| by_sha.get(s)).and_then(|c| str_prop(c, "summary"));

    let mut branches: Vec<Branch> = s
        .store
        .nodes_by_label(plane.id, "Branch")?
        .iter()
        .map(|b| {
            let tip = str_prop(b, "tip");
            Branch {
                name: str_prop(b, "name").unwrap_or_else(|| b.name.clone()),
                summary: summary_of(&tip),
                tip: tip.map(|t| short_sha(&t).to_owned()),
                is_head: b.props.get("is_head").and_then(|v| v.as_bool()).unwrap_or(false),
                remote: b.props.get("remote").and_then(|v| v.as_bool()).unwrap_or(false),
            }
        })
        .collect();
    branches.sort_by(|a, b| b.is_head.cmp(&a.is_head).then(a.remote.cmp(&b.remote)).then(a.name.cmp(&b.name)));
    let head_branch = branches.iter().find(|b| b.is_head).map(|b| b.name.clone());
    // Tags newest first: by the time of the commit each names (tags of commits the plane does not
    // hold last), then by name.
    let mut tags: Vec<(i64, Tag)> = s
        .store
        .nodes_by_label(plane.id, "Tag")?
        .iter()
        .map(|t| {
            let target = str_prop(t, "target");
            let commit = target.as_ref().and_then(|sha| by_sha.get(sha));
            let time = commit.and_then(|c| c.props.get("committed_at")).and_then(|v| v.as_i64()).unwrap_or(i64::MIN);
            let tag = Tag {
                name: str_prop(t, "name").unwrap_or_else(|| t.name.clone()),
                target: target.map(|c| short_sha(&c).to_owned()),
                annotated: t.props.get("annotated").and_then(|v| v.as_bool()).unwrap_or(false),
                date: commit.and_then(|c| str_prop(c, "date")).map(|d| d.chars().take(10).collect()),
            };
            (time, tag)
        })
        .collect();
    tags.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.name.cmp(&b.1.name)));
    let tags: Vec<Tag> = tags.into_iter().map(|(_, tag)| tag).collect();
    let mut rebases: Vec<Rebase> = s
        .store
        .nodes_by_label(plane.id, "Rebase")?
        .iter()
        .map(|r| Rebase {
            branch: str_prop(r, "branch").unwrap_or_default(),
            onto: str_prop(r, "onto").map(|c| short_sha(&c).to_owned()).unwrap_or_default(),
            replaced: str_prop(r, "replaced").map(|c| short_sha(&c).to_owned()).unwrap_or_default(),
            steps: r.props.get("steps").and_then(|v| v.as_u64()).unwrap_or(0),
            date: str_prop(r, "date").unwrap_or_default(),
        })
        .collect();
    rebases.sort_by(|a, b| b.date.cmp(&a.date));

    let reachable = |c: &Node| c.props.get("reachable").and_then(|v| v.as_bool()).unwrap_or(true);
    let mut listed: Vec<&Node> = commits.iter().filter(|c| reachable(c)).collect();
    let at = |c: &Node| c.props.get("committed_at").and_then(|v| v.as_i64()).unwrap_or(0);
    listed.sort_by(|a, b| at(b).cmp(&at(a)).then(a.key.cmp(&b.key)));
    let rows: Vec<Commit> = listed
        .iter()
        .map(|c| Commit {
            short: str_prop(c, "short").unwrap_or_default(),
            date: str_prop(c, "date").unwrap_or_default(),
            author: str_prop(c, "author").unwrap_or_default(),
            summary: str_prop(c, "summary").unwrap_or_default(),
            merge: c.labels.iter().any(|l| l == "Merge"),
        })
        .collect();
    let mut deployed: Vec<(i64, Deployed)> = Vec::new();
    if let Some(code) = crate::deployed::code_of_git(s, &plane)? {
        for (sha, workloads) in crate::deployed::running(s, &code)? {
            let node = by_sha.get(&sha);
            let text = |k: &str| node.and_then(|c| str_prop(c, k)).unwrap_or_default();
            let time = node.and_then(|c| c.props.get("committed_at")).and_then(|v| v.as_i64()).unwrap_or(0);
            let row =
                Deployed { short: short_sha(&sha).to_owned(), date: text("date"), summary: text("summary"), workloads };
            deployed.push((time, row));
        }
    }
    deployed.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.short.cmp(&b.1.short)));
    let deployed = Group::capped(deployed.into_iter().map(|(_, d)| d).collect(), REF_CAP);
    let head_commit = plane.meta.synced_commit.clone();
    Ok(HistoryOutput::Found(Box::new(History {
        freshness: s.freshness(&plane),
        head: Head {
            summary: summary_of(&head_commit),
            commit: head_commit.map(|c| short_sha(&c).to_owned()),
            branch: head_branch,
        },
        unreachable: commits.len() - listed.len(),
        deployed,
        capped: plane.meta.ledger.get("capped").and_then(|v| v.as_bool()).unwrap_or(false),
        plane: plane.meta.name,
        branches: Group::capped(branches, REF_CAP),
        tags: Group::capped(tags, REF_CAP),
        rebases: Group::capped(rebases, REF_CAP),
        commits: Group::capped(rows, limit),
    })))
}

/// The history plane asked for (a `_git` plane by name, or the code plane whose history it is).
fn git_plane(s: &Session<'_>, requested: Option<&str>) -> Result<Option<PlaneInfo>> {
    if let Some(name) = requested
        && let Some(plane) = s.store.plane(name)?
        && plane.meta.kind == PlaneKind::Git
    {
        return Ok(Some(plane));
    }
    let code = s.plane(requested)?;
    s.store.plane(&format!("{}_git", code.meta.name)).map_err(Error::from)
}

impl Answer for HistoryOutput {
    fn render_to(&self, t: &mut Text) {
        let h = match self {
            HistoryOutput::NoHistory { plane } => {
                t.line(format_args!(
                    "plane {plane} has no history: it was not indexed from a git checkout (or has no commits)"
                ));
                return;
            }
            HistoryOutput::Found(h) => h,
        };
        let commit = h.head.commit.as_deref().unwrap_or("(no commit)");
        let summary = h.head.summary.as_deref().map(|s| format!("  {}", one_line(s, 80))).unwrap_or_default();
        match &h.head.branch {
            Some(branch) => t.line(format_args!("HEAD → {branch} at {commit}{summary}")),
            None => t.line(format_args!("HEAD detached at {commit}{summary}")),
        };
        t.line(format_args!("branches: {}", h.branches.total));
        t.group(&h.branches, |t, b| {
            let mark = if b.is_head { "* " } else { "  " };
            let tip = b.tip.as_deref().unwrap_or("?");
            let summary = b.summary.as_deref().map(|s| format!("  {}", one_line(s, 72))).unwrap_or_default();
            t.line(format_args!("{mark}{}  {tip}{summary}", b.name));
        });
        if !h.tags.is_empty() {
            t.line(format_args!("tags: {}, newest first", h.tags.total));
            t.group(&h.tags, |t, tag| {
                let kind = if tag.annotated { "  (annotated)" } else { "" };
                let date = tag.date.as_deref().map(|d| format!("  {d}")).unwrap_or_default();
                t.line(format_args!(
                    "  {}  {}{date}{kind}",
                    tag.name,
                    tag.target.as_deref().unwrap_or("(not a commit)")
                ));
            });
        }
        if !h.rebases.is_empty() {
            t.line(format_args!(
                "rebases (from the local reflog, which expires and is not shared): {}",
                h.rebases.total
            ));
            t.group(&h.rebases, |t, r| {
                t.line(format_args!(
                    "  {}  {}: {} commits replayed onto {} (was {})",
                    r.date, r.branch, r.steps, r.onto, r.replaced
                ));
            });
        }
        let capped = if h.capped { "; the index recorded only the newest (--max-commits)" } else { "" };
        t.line(format_args!("commits: {} reachable{capped}", h.commits.total));
        t.group(&h.commits, |t, c| {
            let merge = if c.merge { "  (merge)" } else { "" };
            t.line(format_args!(
                "  {}  {}  {}{merge}",
                c.short,
                &c.date[..c.date.len().min(10)],
                one_line(&c.summary, 80)
            ));
        });
        if !h.deployed.is_empty() {
            t.line(format_args!(
                "deployed: {} commits run by workloads of the manifests, newest first",
                h.deployed.total
            ));
            t.group(&h.deployed, |t, d| {
                let shown: Vec<&str> = d.workloads.iter().take(3).map(String::as_str).collect();
                let more = d.workloads.len().saturating_sub(3);
                let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                t.line(format_args!(
                    "  {}  {}  {}: {}{more}",
                    d.short,
                    &d.date[..d.date.len().min(10)],
                    one_line(&d.summary, 60),
                    shown.join(", ")
                ));
            });
        }
        if h.unreachable > 0 {
            t.line(format_args!(
                "  ({} more commits no ref reaches any more: replaced by a rebase, amended, or reset away)",
                h.unreachable
            ));
        }
        t.line(format_args!("{}", h.freshness));
    }

    fn found(&self) -> bool {
        matches!(self, HistoryOutput::Found(_))
    }
}
