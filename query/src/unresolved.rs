//! The unresolved call sites behind a lower bound: counted for the names an answer passed through, and
//! listed with file and line when asked, so that an agent reads them instead of grepping.

use std::collections::HashMap;

use drsg_planes::{PlaneInfo, Store};
use serde::Serialize;

use crate::CALL_TYPES;
use crate::Result;
use crate::render::{Group, MAX_PAGE, Page, Text, one_line};

/// Names looked up for unresolved sites; beyond this the count is a lower bound.
pub(crate) const MAX_NAMES: usize = 300;

/// The unresolved call sites that may call one of a set of symbols, by their names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Count {
    pub sites: u64,
    /// More names than [`MAX_NAMES`]: the sites of the others are not counted.
    pub names_cut: bool,
}

/// Counts the unresolved call sites named like any of `names` (distinct, the first [`MAX_NAMES`]).
pub(crate) fn count(store: &Store, plane: i64, names: &[&str]) -> Result<Count> {
    let mut sites = 0;
    for name in names.iter().take(MAX_NAMES) {
        sites += store.unresolved_sites_named(plane, name, CALL_TYPES)?;
    }
    Ok(Count { sites, names_cut: names.len() > MAX_NAMES })
}

/// A call site that could not be bound and may be a call of the symbol asked about.
#[derive(Debug, Serialize)]
pub struct UnresolvedSite {
    pub file: Option<String>,
    pub line: Option<u32>,
    /// The key of the symbol holding the site.
    pub from: String,
    /// The call as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Why it did not bind (inside a macro, the macro's name first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The page `page` asks for of the `total` unresolved sites named like `names` (`cap` rows when it names
/// no limit), by file and line.
pub(crate) fn list(
    store: &Store,
    plane: i64,
    names: &[&str],
    total: u64,
    page: Page,
    cap: usize,
) -> Result<Group<UnresolvedSite>> {
    let names = &names[..names.len().min(MAX_NAMES)];
    let offset = page.offset.unwrap_or(0);
    let limit = page.limit.unwrap_or(cap).min(MAX_PAGE);
    let edges = store.unresolved_sites_of(plane, names, CALL_TYPES, limit, offset)?;
    let mut holders: Vec<i64> = edges.iter().map(|e| e.src).collect();
    holders.sort_unstable();
    holders.dedup();
    let holders: HashMap<i64, drsg_planes::Node> =
        store.nodes_by_ids(&holders)?.into_iter().map(|n| (n.id, n)).collect();
    let text = |e: &drsg_planes::Edge, name: &str| e.props.get(name).and_then(|v| v.as_str()).map(str::to_owned);
    let rows = edges
        .iter()
        .filter_map(|e| {
            let holder = holders.get(&e.src)?;
            Some(UnresolvedSite {
                file: holder.file.clone(),
                line: e.props.get("line").and_then(|v| v.as_u64()).and_then(|l| u32::try_from(l).ok()),
                from: holder.key.clone(),
                text: text(e, "ref"),
                reason: text(e, "reason"),
            })
        })
        .collect();
    Ok(Group::of_page(rows, offset.min(total as usize), usize::try_from(total).unwrap_or(usize::MAX)))
}

/// How an answer names its option that lists the sites behind a lower bound.
pub(crate) fn hint(t: &Text) -> String {
    t.surface.flag("unresolved")
}

/// The lines of a listed page of unresolved sites.
pub(crate) fn render(t: &mut Text, sites: &Group<UnresolvedSite>) {
    t.line(format_args!("unresolved sites that may reach it: {} (by file and line)", sites.total));
    t.page(sites, |t, s| {
        let place = match (&s.file, s.line) {
            (Some(file), Some(line)) => format!("{file}:{line}"),
            (Some(file), None) => file.clone(),
            _ => "?".to_owned(),
        };
        let written = s.text.as_deref().map(|w| format!("  `{}`", one_line(w, 60))).unwrap_or_default();
        let why = s.reason.as_deref().map(|r| format!("  ({r})")).unwrap_or_default();
        t.line(format_args!("  {place}  in {}{written}{why}", s.from));
    });
}

/// The files of a plane part of which was not read (the ledger's `cut`: nesting deeper than a plugin
/// walks, a query limit): calls there are counted nowhere, so no answer about calls is complete.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CutFiles {
    pub files: u64,
    /// The first, as `path:line (why)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<String>,
}

impl CutFiles {
    pub(crate) fn of(plane: &PlaneInfo) -> CutFiles {
        let cut = plane.meta.ledger.get("cut");
        let files = cut.and_then(|c| c.get("files")).and_then(|f| f.as_u64()).unwrap_or(0);
        let first = cut.and_then(|c| c.get("examples")).and_then(|e| e.get(0)).map(|e| {
            let text = |k: &str| e.get(k).and_then(|v| v.as_str()).unwrap_or("?").to_owned();
            let line = e.get("line").and_then(|v| v.as_u64()).unwrap_or(0);
            format!("{}:{line} ({})", text("file"), text("why"))
        });
        CutFiles { files, first }
    }

    pub fn is_empty(&self) -> bool {
        self.files == 0
    }

    /// The sentence an answer adds when files were cut.
    pub(crate) fn sentence(&self) -> String {
        let first = self.first.as_deref().unwrap_or("?");
        let more = if self.files > 1 { format!(" and {} more", self.files - 1) } else { String::new() };
        format!("{} files were not read in full, {first}{more}: calls there are not counted", self.files)
    }
}
