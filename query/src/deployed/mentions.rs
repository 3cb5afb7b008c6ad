//! What other verbs say about deployments: the workloads running a commit (`history`, and `context` on
//! a commit of the `_git` plane), and the images built from the directory a file lies in (`impact`).

use std::collections::HashMap;

use drsg_planes::{EdgeType, Node, PlaneInfo};

use super::resolve::{History, OwnNames, workload};
use crate::{Result, Session};

/// The workloads whose images were built from each commit, as `name (Kind, file:line)`, for code plane
/// `code`; empty when it has no `_ops` or `_git` plane.
pub(crate) fn running(s: &Session<'_>, code: &PlaneInfo) -> Result<HashMap<String, Vec<String>>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    let Some(ops) = s.store.plane(&format!("{}_ops", code.meta.name))? else { return Ok(out) };
    let Some(history) = History::load(s, code)? else { return Ok(out) };
    let ours = OwnNames::of(s, &ops, code)?;
    for w in s.store.nodes_by_label(ops.id, "Workload")? {
        let row = workload(s, &ops, &w, &ours, Some(&history))?;
        for image in &row.images {
            if let Some(commit) = &image.commit {
                let line = format!("{} ({}, {}:{})", row.name, row.kind, row.file, row.line);
                let list = out.entry(commit.sha.clone()).or_default();
                if !list.contains(&line) {
                    list.push(line);
                }
            }
        }
    }
    Ok(out)
}

/// The code plane whose `_git` plane is `git`.
pub(crate) fn code_of_git(s: &Session<'_>, git: &PlaneInfo) -> Result<Option<PlaneInfo>> {
    let Some(code) = git.meta.name.strip_suffix("_git") else { return Ok(None) };
    Ok(s.store.plane(code)?)
}

/// The Dockerfiles whose directory holds `file` (a path relative to the tree), each with what is built
/// from it: `dockerfile → image, workload (Kind, file:line)`.
pub(crate) fn built_from(s: &Session<'_>, code: &PlaneInfo, file: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let Some(ops) = s.store.plane(&format!("{}_ops", code.meta.name))? else { return Ok(out) };
    let mut workloads = s.store.nodes_by_label(ops.id, "Workload")?;
    workloads.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    for d in s.store.nodes_by_label(ops.id, "Dockerfile")? {
        let path = d.file.as_deref().unwrap_or("");
        let dir = path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        if !(dir.is_empty() || file.starts_with(&format!("{dir}/"))) {
            continue;
        }
        let segments: Vec<String> = dir.split('/').filter(|p| !p.is_empty()).map(str::to_lowercase).collect();
        let mut what: Vec<String> = Vec::new();
        // Compose services built from it, then workloads running an image named like its directory.
        for e in s.store.edges_in(d.id, Some(EdgeType::BuiltFrom.as_str()))? {
            if let Some(n) = s.store.node(e.src)?.filter(|n| n.label() == "Workload") {
                what.push(describe(&n));
            }
        }
        for w in &workloads {
            for e in s.store.edges_out(w.id, Some(EdgeType::Runs.as_str()))? {
                let Some(image) = s.store.node(e.dst)? else { continue };
                if segments.contains(&image.name.to_lowercase()) && !what.contains(&describe(w)) {
                    what.push(describe(w));
                }
            }
        }
        let listed = if what.is_empty() { "no workload found".to_owned() } else { what.join(", ") };
        out.push(format!("{path} → {listed}"));
    }
    Ok(out)
}

fn describe(w: &Node) -> String {
    let kind = w.props.get("kind").and_then(|k| k.as_str()).unwrap_or("");
    format!("{} ({kind}, {}:{})", w.name, w.file.as_deref().unwrap_or(""), w.line.unwrap_or(0))
}
