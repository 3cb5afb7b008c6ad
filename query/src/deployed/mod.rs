//! `deployed`: which commit each workload's images were built from, and which workloads run a commit,
//! from the `_ops` plane with the tags resolved against the `_git` plane.
//!
//! An image's tag names a commit only when the image is this repository's: built here (a compose
//! `build`), or named like the tree, a Dockerfile's directory or a service built here. Then the tag is
//! tried as a git tag (with or without `v`), as a commit id or a part of it between `-`, `_` or `.`
//! (`sha-1a2b3c4`, `main-1a2b3c4`, `1.4.0-1a2b3c4`), and the Dockerfile's OCI revision label is read.
//!
//! The statuses are tried in order: templated, an OCI revision label, digest, untagged, floating,
//! external, then a tag matched as a git tag or a commit id or a part of one. Behind HEAD comes from
//! the commits' first-parent generations on HEAD's first-parent line, and from one walk of the plane's
//! `PARENT` edges per answer (`Graph`) for any other commit; `--rev` lists the workloads running a
//! commit or a descendant of it. The verb is in `mod.rs`, the resolution in `resolve.rs`, the text in
//! `render.rs`, and what other verbs say of deployments in `mentions.rs`.

use std::collections::BTreeSet;
use std::path::Path;

use drsg_planes::{Node, PlaneInfo, PlaneKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod mentions;
mod render;
mod resolve;

pub(crate) use mentions::{built_from, code_of_git, running};
use resolve::{History, OwnNames, workload};

use crate::revisions::Revisions;
use crate::{Error, Result, Session, short_sha};

const DEFAULT_LIMIT: usize = 50;
const MAX_LIMIT: usize = 500;
/// Manifest parts that could not be read, named in an answer.
const UNREAD_NAMED: usize = 5;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct DeployedParams {
    /// A workload or service name, a key, or a key segment; none lists every workload.
    pub name: Option<String>,
    /// A revision: list the workloads running it (or a later commit that holds it).
    pub rev: Option<String>,
    pub limit: Option<usize>,
    pub offset: Option<usize>,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum DeployedOutput {
    Found(Box<Deployed>),
    /// The tree holds no deployment manifest.
    NoManifests {
        plane: String,
    },
    /// No workload has that name.
    NoWorkload {
        name: String,
        known: Vec<String>,
        total: usize,
    },
}

#[derive(Debug, Serialize)]
pub struct Deployed {
    /// The `_ops` plane read.
    pub plane: String,
    pub freshness: String,
    /// The revision asked for with `rev`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rev: Option<CommitOut>,
    pub workloads: Vec<WorkloadOut>,
    pub total: usize,
    pub offset: usize,
    pub more: bool,
    /// With `rev`: workloads whose images name no revision drsg can tell (so may run it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown: Option<usize>,
    /// Manifest parts that could not be read (file, line, reason), and how many there are.
    pub unread: Vec<Value>,
    pub unread_total: u64,
    /// Objects of kinds drsg does not read (no pod template), by kind.
    pub unread_kinds: Value,
    /// Whether the history has a `_git` plane to resolve tags against.
    pub history: bool,
    /// Every workload was asked for: the text gives each one line.
    #[serde(skip)]
    pub listing: bool,
}

#[derive(Debug, Serialize)]
pub struct WorkloadOut {
    pub key: String,
    pub name: String,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub file: String,
    pub line: u32,
    pub plane: String,
    pub images: Vec<ImageOut>,
    /// A compose service's build: the Dockerfile or context it is built from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// With `rev`: `exact` (runs that commit) or `includes` (runs a later commit on the same line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<&'static str>,
}

#[derive(Debug, Serialize)]
pub struct ImageOut {
    pub reference: String,
    pub registry: Option<String>,
    pub repository: String,
    pub tag: Option<String>,
    pub digest: Option<String>,
    pub container: String,
    /// `commit`, `untagged`, `floating`, `digest`, `templated`, `external` or `unknown-revision`.
    pub status: &'static str,
    pub commit: Option<CommitOut>,
    /// The status in words.
    pub note: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CommitOut {
    pub sha: String,
    pub short: String,
    pub date: String,
    pub summary: String,
    /// Commits HEAD holds that it lacks (along HEAD's first-parent line when it lies on it); `None`
    /// when the history plane cannot tell.
    pub behind_head: Option<u64>,
    /// Whether HEAD holds it (it is HEAD or an ancestor of HEAD); a release branch's commit may not be.
    pub in_head: bool,
    pub matched_by: String,
}
pub fn deployed(s: &Session<'_>, revisions: &dyn Revisions, p: &DeployedParams) -> Result<DeployedOutput> {
    let limit = p.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(Error::InvalidArgument(format!("limit must be 1 to {MAX_LIMIT} (got {limit})")));
    }
    let code = code_plane(s, p.plane.as_deref())?;
    let Some(ops) = s.store.plane(&format!("{}_ops", code.meta.name))? else {
        return Ok(DeployedOutput::NoManifests { plane: code.meta.name });
    };
    let history = History::load(s, &code)?;
    let rev = match p.rev.as_deref() {
        Some(spec) => {
            let root = code.meta.synced_root.as_deref().map(Path::new).ok_or_else(|| {
                Error::InvalidArgument(format!("plane {} has no tree to resolve `{spec}` in", code.meta.name))
            })?;
            let found = revisions.resolve(root, spec).map_err(|e| Error::InvalidArgument(e.to_string()))?;
            let out = match &history {
                Some(h) => h.commit(&found.sha, format!("--rev {spec}"))?,
                None => CommitOut {
                    short: short_sha(&found.sha).to_owned(),
                    sha: found.sha,
                    date: found.date.chars().take(10).collect(),
                    summary: found.summary,
                    behind_head: None,
                    in_head: false,
                    matched_by: format!("--rev {spec}"),
                },
            };
            Some(out)
        }
        None => None,
    };

    let mut all = s.store.nodes_by_label(ops.id, "Workload")?;
    all.sort_by(|a, b| (&a.file, a.line, &a.key).cmp(&(&b.file, b.line, &b.key)));
    let chosen: Vec<&Node> = match p.name.as_deref() {
        None => all.iter().collect(),
        Some(name) => {
            let chosen = choose(&all, name);
            if chosen.is_empty() {
                let known: BTreeSet<String> = all.iter().map(|w| w.name.clone()).collect();
                return Ok(DeployedOutput::NoWorkload {
                    name: name.to_owned(),
                    total: known.len(),
                    known: known.into_iter().take(30).collect(),
                });
            }
            chosen
        }
    };
    let ours = OwnNames::of(s, &ops, &code)?;
    let mut rows = Vec::new();
    let mut unknown = 0;
    for w in chosen {
        let mut row = workload(s, &ops, w, &ours, history.as_ref())?;
        if let Some(rev) = &rev {
            let commits: Vec<&str> =
                row.images.iter().filter_map(|i| i.commit.as_ref().map(|c| c.sha.as_str())).collect();
            let runs = if commits.contains(&rev.sha.as_str()) {
                Some("exact")
            } else if let Some(h) = &history
                && commits.iter().try_fold(false, |any, c| Ok::<_, Error>(any || h.includes(c, &rev.sha)?))?
            {
                Some("includes")
            } else {
                None
            };
            if runs.is_none() {
                let undecided = row.images.iter().any(|i| i.status != "commit" && i.status != "external");
                unknown += usize::from(undecided);
                continue;
            }
            row.runs = runs;
        }
        rows.push(row);
    }
    let total = rows.len();
    let offset = p.offset.unwrap_or(0).min(total);
    let workloads: Vec<WorkloadOut> = rows.into_iter().skip(offset).take(limit).collect();
    let more = offset + workloads.len() < total;
    let unread = ops.meta.ledger.get("issues").and_then(Value::as_array).cloned().unwrap_or_default();
    let unread_total = ops.meta.ledger.get("issue_count").and_then(Value::as_u64).unwrap_or(unread.len() as u64);
    Ok(DeployedOutput::Found(Box::new(Deployed {
        plane: ops.meta.name.clone(),
        freshness: s.freshness(&code),
        rev,
        workloads,
        total,
        offset,
        more,
        unknown: p.rev.as_ref().map(|_| unknown),
        unread: unread.into_iter().filter(|u| u.get("kind").is_none()).take(UNREAD_NAMED).collect(),
        unread_total,
        unread_kinds: ops.meta.ledger.get("unread_kinds").cloned().unwrap_or(Value::Null),
        history: history.is_some(),
        listing: p.name.is_none() && p.rev.is_none(),
    })))
}

/// The code plane asked for, or the code plane of an `_ops` plane asked for by name.
fn code_plane(s: &Session<'_>, requested: Option<&str>) -> Result<PlaneInfo> {
    if let Some(name) = requested
        && let Some(plane) = s.store.plane(name)?
        && plane.meta.kind == PlaneKind::Ops
        && let Some(code) = name.strip_suffix("_ops")
    {
        return s.plane(Some(code));
    }
    s.plane(requested)
}

/// The workloads `name` picks: by name (any case), else by key or a key segment, else names containing it.
fn choose<'a>(all: &'a [Node], name: &str) -> Vec<&'a Node> {
    let by = |test: &dyn Fn(&Node) -> bool| all.iter().filter(|w| test(w)).collect::<Vec<_>>();
    let lower = name.to_lowercase();
    let exact = by(&|w| w.name.eq_ignore_ascii_case(name));
    if !exact.is_empty() {
        return exact;
    }
    let keyed = by(&|w| {
        let key = w.key.strip_prefix("workload:").unwrap_or(&w.key);
        w.key == name
            || key == name
            || key.ends_with(&format!("#{name}"))
            || key.split(['#', '/']).any(|seg| seg == name)
    });
    if !keyed.is_empty() {
        return keyed;
    }
    by(&|w| w.name.to_lowercase().contains(&lower))
}
