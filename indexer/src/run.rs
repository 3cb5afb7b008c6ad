//! One indexing run: walk → parse (rayon) → symbol table → resolve → nodes and edges → store.
//!
//! Files are parsed largest first and split down to single files, each dialect's queries compiled
//! meanwhile on a thread of its own (`Language::prepare`). The store thread writes the symbols'
//! nodes with `Store::replace_plane_streamed`, then the batches the resolution thread sends: every
//! reference bound, `External`, or unresolved with a reason, stand-in nodes and edges in batches,
//! then the route layer from every file's wire facts. The whole plane is one SQLite transaction
//! (the secondary indexes dropped and built again by sorting when the plane is most of the
//! database); the Tantivy segments are written beside the edges and committed right after SQLite.
//! The resolution thread lowers its own priority (`drsg_planes::lower_thread_priority`) before it
//! frees the table, so that the text index is not delayed.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::mpsc;
use std::time::Instant;

use drsg_parsers::Registry;
use drsg_planes::{NodeData, PlaneBatch, PlaneInfo, PlaneKind, PlaneMeta, Store};
use serde_json::Value;

use crate::Error;
use crate::graph::{self, Accounting};
use crate::history::{HistorySummary, index_history};
use crate::layout::Layout;
use crate::pipeline::ledger::{FileCounts, Resolved, built_by, ledger};
use crate::pipeline::options::{IndexOptions, Progress, tree_name};
use crate::pipeline::parse::{BlobFacts, parse_all};
use crate::pipeline::prepare::{Prepared, prepare};
use crate::pipeline::resolve::{RESOLVE_STACK, resolver};
use crate::source::Source;
use crate::walk;
use crate::walk::SkipReason;

/// What a run did, for the closing summary; the same figures are in the plane's ledger.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunReport {
    pub plane: String,
    pub root: String,
    pub synced_commit: Option<String>,
    pub files: u64,
    pub bytes: u64,
    pub files_by_language: BTreeMap<&'static str, u64>,
    pub skipped: BTreeMap<&'static str, u64>,
    pub parse_error_files: u64,
    /// Files part of which was not read (path, line, why): their calls are counted nowhere.
    pub cut_files: Vec<(String, u32, String)>,
    pub symbols: u64,
    pub nodes: u64,
    pub edges: u64,
    pub accounting: Accounting,
    pub seconds: f64,
    /// Seconds per phase: walk, parse, records (the state kept for folds, `warm::kept`), resolve, store.
    pub phases: BTreeMap<&'static str, f64>,
    /// Resident memory after each phase and the peak, in MB (Linux; empty elsewhere).
    pub memory_mb: BTreeMap<&'static str, u64>,
    /// The `_git` plane written beside the code plane, for a git checkout.
    pub history: Option<HistorySummary>,
    /// Why the `_git` plane could not be written (the code plane is written all the same).
    pub history_error: Option<String>,
    /// The `_ops` plane written beside the code plane, for a tree with deployment manifests.
    pub ops: Option<crate::OpsSummary>,
    /// Files whose facts came from the cache (same blob, same path) instead of a parse.
    pub files_reused: u64,
    /// Manifests that could not be read (`Cargo.toml`, `package.json`, `pyproject.toml`, tsconfig), with
    /// the line and the error: the keys of their packages fall back (see the layout).
    pub manifest_errors: Vec<(String, String)>,
}

/// What the resolution thread sends the store, in order: symbols, batches, the end.
enum ToStore {
    Symbols(Vec<NodeData>),
    Batch(PlaneBatch),
    Done(Resolved),
}

/// Index the tree at `root` into a code plane, replacing the plane if it exists.
pub fn index_tree(
    root: &Path,
    registry: &Registry,
    store: &mut Store,
    options: &IndexOptions,
    progress: &dyn Progress,
) -> Result<RunReport, Error> {
    let started = Instant::now();
    let meta = std::fs::metadata(root).map_err(|source| Error::Root { path: root.to_path_buf(), source })?;
    if !meta.is_dir() {
        return Err(Error::RootNotADirectory { path: root.to_path_buf() });
    }
    let root = root.canonicalize().map_err(|source| Error::Root { path: root.to_path_buf(), source })?;
    let tree_name = tree_name(&root);
    let plane = options.plane.clone().unwrap_or_else(|| tree_name.clone());
    let source = Source::for_dir(&root).map_err(|error| Error::Commit { path: root.clone(), error })?;
    let cache = BlobFacts::off();
    let mut report = run_source(&source, &root, &tree_name, &plane, registry, store, options, progress, &cache)?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Why a tree gave no file to parse, in words a user can act on.
fn nothing_to_index(source: &Source, root: &Path, skipped: &[(String, SkipReason)]) -> Error {
    let empty_repo = matches!(source, Source::Disk { .. })
        && crate::git::Repo::discover(root).is_some_and(|repo| repo.head().commit.is_none());
    let why = if crate::git::Repo::is_bare(root) {
        "it is a bare repository, which has no work tree: index a clone or a worktree of it".to_owned()
    } else if empty_repo {
        "it is a git repository with no commits yet, and drsg indexes what is committed: commit first".to_owned()
    } else if skipped.is_empty() {
        "no Rust, TypeScript, JavaScript or Python file was found".to_owned()
    } else {
        let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, reason) in skipped {
            *reasons.entry(reason.as_str()).or_default() += 1;
        }
        let reasons: Vec<String> = reasons.iter().map(|(r, n)| format!("{n} {r}")).collect();
        format!("no source file could be read ({} skipped: {})", skipped.len(), reasons.join(", "))
    };
    Error::NothingToIndex { path: root.to_path_buf(), why }
}

/// Parse (or take from `cache`), resolve and write one source into plane `plane`, then its history.
#[allow(clippy::too_many_arguments, reason = "the pieces of one run, passed down once")]
fn run_source(
    source: &Source,
    root: &Path,
    tree_name: &str,
    plane: &str,
    registry: &Registry,
    store: &mut Store,
    options: &IndexOptions,
    progress: &dyn Progress,
    cache: &BlobFacts,
) -> Result<RunReport, Error> {
    let started = Instant::now();
    let root = root.to_path_buf();
    let plane = plane.to_owned();
    let mut phases = BTreeMap::new();

    progress.phase("walk", 0);
    let t0 = Instant::now();
    let mut walked = source.walk(registry, options.max_file_size);
    let ops_files = std::mem::take(&mut walked.ops_files);
    let ops_facts = crate::ops::collect(source, &ops_files);
    // A tree of manifests and no code still has deployments to answer for.
    if walked.candidates.is_empty() && ops_facts.files.is_empty() {
        return Err(nothing_to_index(source, &root, &walked.skipped));
    }
    let layout = Layout::of_walk(source, tree_name, &walked);
    let manifest_errors = layout.manifest_errors.clone();
    phases.insert("walk", t0.elapsed().as_secs_f64());
    let mut memory_mb = BTreeMap::new();
    let mut note_memory = |phase: &'static str| {
        if let Some(mb) = resident_mb("VmRSS") {
            memory_mb.insert(phase, mb);
        }
    };

    progress.phase("parse", walked.candidates.len() as u64);
    let t0 = Instant::now();
    let (outcomes, reused) = parse_all(source, &walked.candidates, registry, options.max_file_size, cache, progress);
    let mut skipped = walked.skipped;
    let mut files = Vec::with_capacity(outcomes.len());
    for outcome in outcomes {
        match outcome {
            Ok(file) => files.push(file),
            Err(skip) => skipped.push(skip),
        }
    }
    skipped.sort();
    phases.insert("parse", t0.elapsed().as_secs_f64());
    note_memory("parse");

    // The records a fold in another process reads instead of parsing the tree (`warm::kept`), made
    // before resolution takes the references out of the facts.
    let t0 = Instant::now();
    let records = crate::pipeline::record::of_index(source, &files);
    phases.insert("records", t0.elapsed().as_secs_f64());

    progress.phase("resolve", 0);
    let t0 = Instant::now();
    let counts = FileCounts::of(&files);
    let file_count = files.len() as u64;
    let synced_commit = source.commit().map(str::to_owned);
    let skip_counts = walk::count_skips(&skipped);
    let mut plane_meta = PlaneMeta {
        name: plane.clone(),
        kind: PlaneKind::Code,
        synced_commit: synced_commit.clone(),
        synced_root: Some(root.to_string_lossy().into_owned()),
        built_by: built_by(registry),
        ledger: Value::Null,
    };

    // Two threads from here: one builds the symbol table and resolves (on a roomy stack: resolution
    // nests to a bounded depth, far from the limit whatever the build profile inlines); this one writes
    // the symbols' nodes and text as soon as the table exists, then edges in batches as they resolve.
    let (to_store, from_resolver) = mpsc::sync_channel::<ToStore>(4);
    let resolve = move || {
        let Prepared { mut table, impl_self, index } = prepare(files, layout);
        if to_store.send(ToStore::Symbols(graph::symbol_nodes(&table))).is_err() {
            return;
        }
        // Facts the cache does not share are freed file by file as their edges are built.
        let refs: Vec<_> = table
            .files
            .iter_mut()
            .map(|f| match std::sync::Arc::get_mut(&mut f.facts) {
                Some(facts) => std::mem::take(&mut facts.refs),
                None => f.facts.refs.clone(),
            })
            .collect();
        let resolver = resolver(&table, index, impl_self);
        let sent = graph::build(&table, &resolver, refs, |batch| to_store.send(ToStore::Batch(batch)).is_ok());
        if let Some((accounting, wire)) = sent {
            let manifest_errors = table.layout.manifest_errors.clone();
            let _ = to_store.send(ToStore::Done(Resolved {
                accounting,
                wire,
                symbols: table.syms.len() as u64,
                manifest_errors,
            }));
        }
        // The table and the resolver are freed as this returns, while the text index still builds its
        // segments: at a lower priority that work (about 19 ms of CPU on Django, 4 ms on tokio) takes the
        // time the text index leaves a core idle instead of delaying it.
        drsg_planes::lower_thread_priority();
    };
    let done: std::cell::RefCell<Option<Resolved>> = std::cell::RefCell::new(None);
    let mut resolve_seconds = 0.0;
    let written = std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("drsg-resolve".into())
            .stack_size(RESOLVE_STACK)
            .spawn_scoped(scope, resolve)
            .map_err(|source| Error::Thread { source })?;
        // This thread waits for the symbol table (one thread) anyway: a core is free for the text index's
        // set-up.
        store.warm_up_first_write();
        let written = match from_resolver.recv() {
            Ok(ToStore::Symbols(first)) => {
                let early = plane_meta.clone();
                let batches = std::iter::from_fn(|| match from_resolver.recv() {
                    Ok(ToStore::Batch(batch)) => Some(batch),
                    Ok(ToStore::Done(resolved)) => {
                        resolve_seconds = t0.elapsed().as_secs_f64();
                        progress.phase("store", 0);
                        *done.borrow_mut() = Some(resolved);
                        None
                    }
                    Ok(ToStore::Symbols(_)) | Err(_) => None,
                });
                store.replace_plane_streamed(&early, first, batches, || {
                    let done = done.borrow();
                    let resolved = done.as_ref()?;
                    plane_meta.ledger = ledger(&counts, &skipped, &skip_counts, resolved, options);
                    Some(plane_meta.clone())
                })
            }
            _ => Err(drsg_planes::Error::InvalidInput {
                plane: plane.clone(),
                detail: "resolution stopped early".into(),
            }),
        };
        drop(from_resolver);
        worker.join().map_err(|_| Error::ResolvePanicked)?;
        Ok::<_, Error>(written?)
    })?;
    let info: PlaneInfo = written;
    // The records kept for the plane as it was are replaced, or forgotten for a tree that is no commit's.
    let t1 = Instant::now();
    match (records, &synced_commit) {
        (Some(records), Some(commit)) => {
            let header = drsg_planes::KeptHeader {
                generation: info.generation,
                commit: commit.clone(),
                identity: crate::pipeline::record::identity(options.max_file_size),
            };
            store.keep(&plane, &header, drsg_planes::KeptWrite::Whole(records))?;
        }
        _ => store.forget_kept(&plane)?,
    }
    phases.insert("records", phases.get("records").copied().unwrap_or(0.0) + t1.elapsed().as_secs_f64());
    let Resolved { accounting, symbols, .. } =
        done.into_inner().expect("the plane was written, so resolution delivered");
    phases.insert("resolve", resolve_seconds);
    phases.insert("store", t0.elapsed().as_secs_f64() - resolve_seconds - t1.elapsed().as_secs_f64());
    note_memory("store");
    if let Some(mb) = resident_mb("VmHWM") {
        memory_mb.insert("peak", mb);
    }
    let (mut history, mut history_error) = (None, None);
    if let Source::Commit(tree) = source {
        progress.phase("history", 0);
        let t0 = Instant::now();
        match index_history(&tree.repo, store, &plane, options.max_commits) {
            Ok(summary) => history = Some(summary),
            Err(err) => history_error = Some(err.to_string()),
        }
        phases.insert("history", t0.elapsed().as_secs_f64());
    }
    let t0 = Instant::now();
    let root_text = root.to_string_lossy();
    let print = crate::ops::fingerprint(source, &ops_files, &ops_facts.extra_files);
    let ops = crate::ops::write(&ops_facts, print, store, &plane, synced_commit.as_deref(), &root_text)?;
    phases.insert("ops", t0.elapsed().as_secs_f64());

    Ok(RunReport {
        plane,
        root: root.to_string_lossy().into_owned(),
        synced_commit,
        files: file_count,
        bytes: counts.bytes,
        files_by_language: counts.files_by_language,
        skipped: skip_counts,
        parse_error_files: counts.parse_errors.len() as u64,
        cut_files: counts.cut,
        symbols,
        nodes: info.node_count,
        edges: info.edge_count,
        accounting,
        seconds: started.elapsed().as_secs_f64(),
        phases,
        memory_mb,
        history,
        history_error,
        ops,
        files_reused: reused,
        manifest_errors,
    })
}

/// A line of `/proc/self/status` (`VmRSS`, `VmHWM`) in MB, on Linux.
fn resident_mb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}
