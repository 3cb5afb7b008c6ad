//! The ledger: what a plane records of the run that built it (SPEC §2), from files per language, skips
//! and parse errors to resolution counts and options, and the plugins that built it.

use std::collections::BTreeMap;

use drsg_parsers::Registry;
use serde_json::{Value, json};

use super::options::IndexOptions;
use crate::graph::Accounting;
use crate::table::ParsedFile;
use crate::walk::SkipReason;

/// Files per language, bytes, the files that parsed with errors (path, error count, first line), and
/// the files part of which was not read (path, line, why).
pub(crate) struct FileCounts {
    pub(crate) files_by_language: BTreeMap<&'static str, u64>,
    pub(crate) bytes: u64,
    pub(crate) parse_errors: Vec<(String, u32, u32)>,
    pub(crate) cut: Vec<(String, u32, String)>,
}

impl FileCounts {
    pub(crate) fn of(files: &[ParsedFile]) -> FileCounts {
        let mut counts =
            FileCounts { files_by_language: BTreeMap::new(), bytes: 0, parse_errors: Vec::new(), cut: Vec::new() };
        for file in files {
            *counts.files_by_language.entry(file.lang.name()).or_insert(0) += 1;
            counts.bytes += file.bytes;
            if file.facts.parse_errors > 0 {
                let first = file.facts.diagnostics.first().map(|d| d.line).unwrap_or(0);
                counts.parse_errors.push((file.path.clone(), file.facts.parse_errors, first));
            }
            if let Some(d) = file.facts.diagnostics.iter().find(|d| d.cut) {
                counts.cut.push((file.path.clone(), d.line, d.message.clone()));
            }
        }
        counts
    }
}

/// What resolution hands over at the end.
pub(crate) struct Resolved {
    pub(crate) accounting: Accounting,
    /// The route layer's counts.
    pub(crate) wire: crate::routes::WireCounts,
    pub(crate) symbols: u64,
    pub(crate) manifest_errors: Vec<(String, String)>,
}

/// The plane's ledger (SPEC §2): files per language, skips, parse errors, files cut, unresolved counts.
pub(crate) fn ledger(
    counts: &FileCounts,
    skipped: &[(String, SkipReason)],
    skip_counts: &BTreeMap<&'static str, u64>,
    resolved: &Resolved,
    options: &IndexOptions,
) -> Value {
    let a = &resolved.accounting;
    let FileCounts { files_by_language, bytes, parse_errors, cut } = counts;
    json!({
        "options": {"max_file_size": options.max_file_size, "max_commits": options.max_commits},
        "source": options.source,
        "files": files_by_language,
        "bytes": bytes,
        "skipped": skip_counts,
        "skipped_examples": skipped.iter().take(LEDGER_EXAMPLES).map(|(p, r)| json!({"file": p, "reason": r.as_str()})).collect::<Vec<_>>(),
        "parse_errors": {
            "files": parse_errors.len(),
            "nodes": parse_errors.iter().map(|(_, n, _)| u64::from(*n)).sum::<u64>(),
            "examples": parse_errors.iter().take(LEDGER_EXAMPLES).map(|(p, n, l)| json!({"file": p, "errors": n, "first_line": l})).collect::<Vec<_>>(),
        },
        "cut": {
            "files": cut.len(),
            "examples": cut.iter().take(LEDGER_EXAMPLES).map(|(p, l, why)| json!({"file": p, "line": l, "why": why})).collect::<Vec<_>>(),
        },
        "manifest_errors": resolved.manifest_errors.iter().map(|(p, e)| json!({"file": p, "error": e})).collect::<Vec<_>>(),
        "wire": resolved.wire,
        "call_sites": {
            "total": a.call_sites,
            "resolved": a.resolved,
            "external": a.external,
            "unresolved": a.unresolved,
            "unresolved_by_reason": a.unresolved_by_reason,
        },
        "references": {"bound": a.references_bound, "unbound": a.references_unbound},
        "imports_unresolved": a.imports_unresolved,
        "inherits_unresolved": a.inherits_unresolved,
    })
}

/// How many skipped files and parse errors the ledger names (the rest are counted).
const LEDGER_EXAMPLES: usize = 20;

/// The plugins' fingerprints as recorded in a plane's meta (`built_by`).
pub(crate) fn built_by(registry: &Registry) -> Value {
    serde_json::to_value(registry.fingerprints()).unwrap_or(Value::Null)
}
