//! The text form of `deployed`.

use serde_json::Value;

use super::DeployedOutput;
use crate::Answer;
use crate::render::{Text, one_line};

impl Answer for DeployedOutput {
    fn render_to(&self, t: &mut Text) {
        let d = match self {
            DeployedOutput::NoManifests { plane } => {
                t.line(format_args!(
                    "plane {plane}'s tree holds no deployment manifest drsg reads (Kubernetes YAML, compose files, Dockerfiles)"
                ));
                return;
            }
            DeployedOutput::NoWorkload { name, known, total } => {
                let more =
                    if *total > known.len() { format!(" … and {} more", total - known.len()) } else { String::new() };
                t.line(format_args!("no workload named `{name}`; workloads: {}{more}", known.join(", ")));
                return;
            }
            DeployedOutput::Found(d) => d,
        };
        if let Some(rev) = &d.rev {
            t.line(format_args!(
                "{} {}  {}  {}",
                d.rev.as_ref().map_or("", |r| r.matched_by.as_str()),
                rev.short,
                rev.date,
                one_line(&rev.summary, 72)
            ));
            if d.total == 0 {
                t.line(format_args!("no workload runs this commit or a later one holding it"));
            }
        }
        if d.listing {
            t.line(format_args!("{} workloads, one a line (`deployed NAME` says more)", d.total));
        }
        for w in d.workloads.iter().filter(|_| d.listing) {
            let images: Vec<String> = w
                .images
                .iter()
                .map(|i| match &i.commit {
                    Some(c) => {
                        let behind = c.behind_head.map(|n| format!(", {n} behind HEAD")).unwrap_or_default();
                        format!("{} → commit {} ({}{behind})", i.reference, c.short, c.matched_by)
                    }
                    None => format!("{} → {}", i.reference, i.status),
                })
                .collect();
            let built = w.build.as_deref().map(|b| format!("built from {b}")).into_iter();
            let what: Vec<String> = images.into_iter().chain(built).collect();
            if !t.line(format_args!("{}  {}  {}:{}  {}", w.name, w.kind, w.file, w.line, what.join("; "))) {
                return;
            }
        }
        for w in d.workloads.iter().filter(|_| !d.listing) {
            let ns = w.namespace.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
            let runs = match w.runs {
                Some("exact") => "  runs it",
                Some(_) => "  runs a later commit holding it",
                None => "",
            };
            if !t.line(format_args!("{}  {}{ns}  {}:{}{runs}", w.name, w.kind, w.file, w.line)) {
                return;
            }
            if let Some(build) = &w.build {
                t.line(format_args!("  built from {build}"));
            }
            if w.images.is_empty() && w.build.is_none() {
                t.line(format_args!("  no image"));
            }
            for i in &w.images {
                let said = match &i.commit {
                    Some(c) => {
                        let behind = match (c.behind_head, c.in_head) {
                            (Some(0), true) => "HEAD".to_owned(),
                            (Some(n), true) => format!("{n} behind HEAD"),
                            (Some(n), false) => format!("not in HEAD's history (HEAD has {n} commits it lacks)"),
                            (None, _) => "not in the history recorded".to_owned(),
                        };
                        format!(
                            "commit {}  {}  {} · {behind} · {}",
                            c.short,
                            c.date,
                            one_line(&c.summary, 60),
                            c.matched_by
                        )
                    }
                    None => format!("{}: {}", i.status, i.note),
                };
                t.line(format_args!("  {} → {said}", i.reference));
            }
        }
        if d.more {
            t.line(format_args!(
                "… and {} more (--offset {})",
                d.total - d.offset - d.workloads.len(),
                d.offset + d.workloads.len()
            ));
        }
        if let Some(n) = d.unknown.filter(|n| *n > 0) {
            t.line(format_args!("{n} more workloads run images whose revision cannot be told (floating, untagged, digest, templated or unresolved tags): they may run it"));
        }
        let kinds: Vec<(String, u64)> = d
            .unread_kinds
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, n)| (k.clone(), n.as_u64().unwrap_or(0)))
            .collect();
        let failed = d.unread_total.saturating_sub(kinds.iter().map(|(_, n)| n).sum());
        if failed > 0 {
            let parts = if failed == 1 { "part" } else { "parts" };
            t.line(format_args!("{failed} manifest {parts} not read:"));
            for u in &d.unread {
                let text = |k: &str| u.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
                let line = u.get("line").and_then(Value::as_u64).unwrap_or(0);
                t.line(format_args!("  {}:{line}: {}", text("file"), text("reason")));
            }
            if failed > d.unread.len() as u64 {
                t.line(format_args!(
                    "  … and {} more (the _ops plane's ledger lists them)",
                    failed - d.unread.len() as u64
                ));
            }
        }
        if !kinds.is_empty() {
            let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
            t.line(format_args!("objects of kinds drsg does not read (no pod template): {}", list.join(", ")));
        }
        if !d.history {
            t.line(format_args!("no history plane: tags are not resolved to commits"));
        }
        t.line(format_args!("{}", d.freshness));
    }

    fn found(&self) -> bool {
        match self {
            DeployedOutput::Found(d) => d.total > 0,
            _ => false,
        }
    }
}
