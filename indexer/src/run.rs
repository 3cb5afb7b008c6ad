//! One indexing run: walk → parse (rayon) → symbol table → resolve → nodes and edges → store.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, mpsc};
use std::time::Instant;

use drsg_parsers::{Lang, Registry, parse_file};
use drsg_planes::{NodeData, PlaneBatch, PlaneInfo, PlaneKind, PlaneMeta, Store};
use foldhash::{HashMap, HashMapExt};
use rayon::prelude::*;
use serde_json::{Value, json};

use crate::Error;
use crate::graph::{self, Accounting};
use crate::history::{HistorySummary, index_history};
use crate::layout::Layout;
use crate::resolve::{FileIndex, Resolver, Target};
use crate::source::Source;
use crate::table::{ParsedFile, SymId, Table};
use crate::walk::{self, SkipReason};

/// Settings of a run.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Plane name; defaults to the directory's name.
    pub plane: Option<String>,
    /// Files larger than this are skipped (default 2 MiB).
    pub max_file_size: u64,
    /// Most commits the `_git` plane records, newest first (default: all).
    pub max_commits: Option<usize>,
    /// Who asked for the build (`cli`, `watch`, `mcp:<client>`…), recorded in the ledger.
    pub source: Option<String>,
}

impl IndexOptions {
    /// The options a plane was built with, as its ledger records them (a fold keeps them).
    pub fn recorded(ledger: &Value) -> Option<IndexOptions> {
        let o = ledger.get("options")?;
        Some(IndexOptions {
            plane: None,
            max_file_size: o.get("max_file_size")?.as_u64()?,
            max_commits: o.get("max_commits").and_then(Value::as_u64).map(|n| n as usize),
            source: None,
        })
    }
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions { plane: None, max_file_size: 2 * 1024 * 1024, max_commits: None, source: None }
    }
}

/// Where a run is; the binary draws a progress bar from it (or nothing on a pipe).
pub trait Progress: Sync {
    fn phase(&self, _name: &'static str, _total: u64) {}
    fn advance(&self, _n: u64) {}
}

/// No progress output.
pub struct Silent;
impl Progress for Silent {}

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
    pub symbols: u64,
    pub nodes: u64,
    pub edges: u64,
    pub accounting: Accounting,
    pub seconds: f64,
    /// Seconds per phase: walk, parse, resolve, store.
    pub phases: BTreeMap<&'static str, f64>,
    /// Resident memory after each phase and the peak, in MB (Linux; empty elsewhere).
    pub memory_mb: BTreeMap<&'static str, u64>,
    /// The `_git` plane written beside the code plane, for a git checkout.
    pub history: Option<HistorySummary>,
    /// Why the `_git` plane could not be written (the code plane is written all the same).
    pub history_error: Option<String>,
    /// Files whose facts came from the cache (same blob, same path) instead of a parse.
    pub files_reused: u64,
}

/// What the resolution thread sends the store, in order: symbols, batches, the end.
enum ToStore {
    Symbols(Vec<NodeData>),
    Batch(PlaneBatch),
    Done(Resolved),
}

/// Files per language, bytes, and the files that parsed with errors (path, error count, first line).
pub(crate) struct FileCounts {
    pub(crate) files_by_language: BTreeMap<&'static str, u64>,
    pub(crate) bytes: u64,
    pub(crate) parse_errors: Vec<(String, u32, u32)>,
}

impl FileCounts {
    pub(crate) fn of(files: &[ParsedFile]) -> FileCounts {
        let mut counts = FileCounts { files_by_language: BTreeMap::new(), bytes: 0, parse_errors: Vec::new() };
        for file in files {
            *counts.files_by_language.entry(file.lang.name()).or_insert(0) += 1;
            counts.bytes += file.bytes;
            if file.facts.parse_errors > 0 {
                let first = file.facts.diagnostics.first().map(|d| d.line).unwrap_or(0);
                counts.parse_errors.push((file.path.clone(), file.facts.parse_errors, first));
            }
        }
        counts
    }
}

/// What resolution hands over at the end.
pub(crate) struct Resolved {
    pub(crate) accounting: Accounting,
    pub(crate) symbols: u64,
    pub(crate) manifest_errors: Vec<(String, String)>,
}

/// The plane's ledger (SPEC §2): files per language, skips, parse errors, unresolved counts.
pub(crate) fn ledger(
    files_by_language: &BTreeMap<&'static str, u64>,
    bytes: u64,
    skipped: &[(String, SkipReason)],
    skip_counts: &BTreeMap<&'static str, u64>,
    parse_errors: &[(String, u32, u32)],
    resolved: &Resolved,
    options: &IndexOptions,
) -> Value {
    let a = &resolved.accounting;
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
        "manifest_errors": resolved.manifest_errors.iter().map(|(p, e)| json!({"file": p, "error": e})).collect::<Vec<_>>(),
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

/// Stack of the resolution thread.
pub(crate) const RESOLVE_STACK: usize = 256 * 1024 * 1024;

/// How many skipped files and parse errors the ledger names (the rest are counted).
const LEDGER_EXAMPLES: usize = 20;

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
    let source = Source::for_dir(&root);
    let cache = FactsCache::off();
    let mut report = run_source(&source, &root, &tree_name, &plane, registry, store, options, progress, &cache)?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Facts already parsed, by blob id and path (facts depend on the path: test files are told by it),
/// so that a fold, or a branch switch back, parses no file twice; and each plane's warm state (its
/// symbol table and per-file output at its synced commit), so that the next fold resolves only what
/// changed.
#[derive(Default)]
pub struct FactsCache {
    /// Set for a one-off run: nothing is kept, so each file's facts are freed once its edges are built.
    off: bool,
    entries: std::sync::Mutex<HashMap<(String, String), Cached>>,
    warm: std::sync::Mutex<HashMap<String, crate::warm::Warm>>,
}

#[derive(Clone)]
struct Cached {
    facts: std::sync::Arc<drsg_parsers::FileFacts>,
    lines: u32,
    bytes: u64,
}

impl FactsCache {
    fn get(&self, blob: &str, path: &str) -> Option<Cached> {
        self.entries.lock().ok()?.get(&(blob.to_owned(), path.to_owned())).cloned()
    }

    /// A cache that keeps nothing.
    pub fn off() -> FactsCache {
        FactsCache { off: true, ..FactsCache::default() }
    }

    fn put(&self, blob: &str, path: &str, cached: Cached) {
        if self.off {
            return;
        }
        if let Ok(mut entries) = self.entries.lock() {
            entries.insert((blob.to_owned(), path.to_owned()), cached);
        }
    }

    /// Takes plane `plane`'s warm state out of the cache.
    pub(crate) fn take_warm(&self, plane: &str) -> Option<crate::warm::Warm> {
        self.warm.lock().ok()?.remove(plane)
    }

    pub(crate) fn put_warm(&self, plane: &str, warm: crate::warm::Warm) {
        if self.off {
            return;
        }
        if let Ok(mut states) = self.warm.lock() {
            states.insert(plane.to_owned(), warm);
        }
    }

    /// Number of files held.
    pub fn len(&self) -> usize {
        self.entries.lock().map(|e| e.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Parse (or take from `cache`), resolve and write one source into plane `plane`, then its history.
#[allow(clippy::too_many_arguments, reason = "the pieces of one run, passed down once")]
pub(crate) fn run_source(
    source: &Source,
    root: &Path,
    tree_name: &str,
    plane: &str,
    registry: &Registry,
    store: &mut Store,
    options: &IndexOptions,
    progress: &dyn Progress,
    cache: &FactsCache,
) -> Result<RunReport, Error> {
    let started = Instant::now();
    let root = root.to_path_buf();
    let plane = plane.to_owned();
    let mut phases = BTreeMap::new();

    progress.phase("walk", 0);
    let t0 = Instant::now();
    let walked = source.walk(registry, options.max_file_size);
    let layout = Layout::load(source, tree_name, &walked.manifests, walked.python_packages.clone());
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

    progress.phase("resolve", 0);
    let t0 = Instant::now();
    let FileCounts { files_by_language, bytes, parse_errors } = FileCounts::of(&files);
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
        if let Some(accounting) = sent {
            let manifest_errors = table.layout.manifest_errors.clone();
            let _ = to_store.send(ToStore::Done(Resolved {
                accounting,
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
                    plane_meta.ledger =
                        ledger(&files_by_language, bytes, &skipped, &skip_counts, &parse_errors, resolved, options);
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
    let Resolved { accounting, symbols, .. } =
        done.into_inner().expect("the plane was written, so resolution delivered");
    phases.insert("resolve", resolve_seconds);
    phases.insert("store", t0.elapsed().as_secs_f64() - resolve_seconds);
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

    Ok(RunReport {
        plane,
        root: root.to_string_lossy().into_owned(),
        synced_commit,
        files: file_count,
        bytes,
        files_by_language,
        skipped: skip_counts,
        parse_error_files: parse_errors.len() as u64,
        symbols,
        nodes: info.node_count,
        edges: info.edge_count,
        accounting,
        seconds: started.elapsed().as_secs_f64(),
        phases,
        memory_mb,
        history,
        history_error,
        files_reused: reused,
    })
}

/// A symbol table ready for resolution: the table, each Rust impl method's resolved self type, and each
/// file's index (one per file, in order).
pub(crate) struct Prepared {
    pub(crate) table: Table,
    pub(crate) impl_self: HashMap<(u32, u32), Target>,
    pub(crate) index: Vec<Arc<FileIndex>>,
}

/// The symbol table of `files`: modules and definitions, then Rust impl methods, keys made unique.
/// Each file's index is built on the pool beside the table.
pub(crate) fn prepare(files: Vec<ParsedFile>, layout: Layout) -> Prepared {
    let facts: Vec<Arc<drsg_parsers::FileFacts>> = files.iter().map(|f| Arc::clone(&f.facts)).collect();
    let (table, index) = rayon::join(
        || Table::build(files, layout),
        || facts.par_iter().map(|facts| Arc::new(FileIndex::of(facts))).collect(),
    );
    prepare_built(table, index)
}

/// [`prepare`] with each file's index given (a fold keeps those of unchanged files).
pub(crate) fn prepare_with(files: Vec<ParsedFile>, layout: Layout, index: Vec<Arc<FileIndex>>) -> Prepared {
    prepare_built(Table::build(files, layout), index)
}

fn prepare_built(mut table: Table, index: Vec<Arc<FileIndex>>) -> Prepared {
    debug_assert_eq!(index.len(), table.files.len());
    let impl_self = add_impl_methods(&mut table, &index);
    table.dedupe_keys();
    Prepared { table, impl_self, index }
}

/// What a tree's plane is named after: its directory's name.
pub(crate) fn tree_name(root: &Path) -> String {
    root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "root".to_owned())
}

/// The plugins' fingerprints as recorded in a plane's meta (`built_by`).
pub(crate) fn built_by(registry: &Registry) -> Value {
    serde_json::to_value(registry.fingerprints()).unwrap_or(Value::Null)
}

/// The resolver of a prepared table, with the parents of every type resolved.
pub(crate) fn resolver(
    table: &Table,
    index: Vec<Arc<FileIndex>>,
    impl_self: HashMap<(u32, u32), Target>,
) -> Resolver<'_> {
    resolver_from(table, index, impl_self, vec![None; table.files.len()])
}

/// A resolver from per-file indexes already built, with each file's parent links given (`Some`) or
/// resolved again (`None`).
pub(crate) fn resolver_from(
    table: &Table,
    index: Vec<Arc<FileIndex>>,
    impl_self: HashMap<(u32, u32), Target>,
    links: Vec<Option<Vec<(SymId, Target)>>>,
) -> Resolver<'_> {
    let mut resolver = Resolver::with_index(table, index);
    resolver.impl_self = impl_self;
    set_supers(table, &mut resolver, links);
    resolver
}

/// A file parsed, or the reason it was skipped.
pub(crate) type Parsed = Result<ParsedFile, (String, SkipReason)>;

/// Parse the candidates in parallel, taking the facts of a blob already parsed at the same path from
/// `cache` and putting new ones in it. Returns each file's facts (or why it was skipped) and how many
/// came from the cache.
pub(crate) fn parse_all(
    source: &Source,
    candidates: &[crate::walk::Candidate],
    registry: &Registry,
    max_file_size: u64,
    cache: &FactsCache,
    progress: &dyn Progress,
) -> (Vec<Parsed>, u64) {
    let reader = source.reader(max_file_size);
    let reused = std::sync::atomic::AtomicU64::new(0);
    let dialects = unprepared_dialects(candidates, registry);
    let parse = |local: &mut crate::source::LocalReader<'_>, candidate: &crate::walk::Candidate| {
        let blob = reader.blob_id(&candidate.path);
        let cached = blob.and_then(|b| cache.get(b, &candidate.path));
        let result = match cached {
            Some(hit) => {
                reused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(ParsedFile {
                    is_test: is_test_path(&candidate.path, candidate.lang),
                    lines: hit.lines,
                    bytes: hit.bytes,
                    path: candidate.path.clone(),
                    lang: candidate.lang,
                    facts: hit.facts,
                })
            }
            None => match local.read(candidate) {
                Ok(text) => {
                    let (plugin, lang) =
                        registry.for_path(&candidate.path).expect("the walk kept only files a plugin takes");
                    let facts = std::sync::Arc::new(parse_file(plugin, lang, &candidate.path, &text));
                    let lines = crate::walk::line_count(&text) as u32;
                    let bytes = text.len() as u64;
                    if let Some(blob) = blob {
                        cache.put(blob, &candidate.path, Cached { facts: facts.clone(), lines, bytes });
                    }
                    Ok(ParsedFile {
                        is_test: is_test_path(&candidate.path, lang),
                        lines,
                        bytes,
                        path: candidate.path.clone(),
                        lang,
                        facts,
                    })
                }
                Err(reason) => Err((candidate.path.clone(), reason)),
            },
        };
        progress.advance(1);
        result
    };
    // Largest files first, and split down to single files. Rayon otherwise cuts the list into a few long
    // runs that no idle worker can take a part of: Django's parse ended with one worker alone for 0.2 to
    // 0.5 s. Split finely, a worker with nothing left takes the later half of what another has left, and
    // with the largest files first, what is left at the end is small.
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(candidates[i].size));
    let mut outcomes: Vec<(usize, Parsed)> = std::thread::scope(|scope| {
        for (plugin, lang) in dialects {
            scope.spawn(move || plugin.prepare(lang));
        }
        order
            .par_iter()
            .with_max_len(1)
            .map_init(|| reader.local(), |local, &i| (i, parse(local, &candidates[i])))
            .collect()
    });
    // Back to the candidates' (path) order, which the table and the ledger keep.
    outcomes.sort_unstable_by_key(|&(i, _)| i);
    (outcomes.into_iter().map(|(_, parsed)| parsed).collect(), reused.into_inner())
}

/// The dialects whose one-time preparation (query compiles) a thread of this process has started.
static STARTED: std::sync::Mutex<Vec<(&'static str, Lang)>> = std::sync::Mutex::new(Vec::new());

/// Starts preparing, each on a thread of its own, the dialects that the top level of `root` announces:
/// `Cargo.toml` Rust, `pyproject.toml`, `setup.py` or `setup.cfg` Python, `tsconfig.json` TypeScript,
/// `package.json` JavaScript, and every file there that a plugin takes its own dialect. Returns at once.
///
/// Called before the store is opened and the tree walked, both of which keep one thread busy for a while
/// (10 ms on tokio, 50 ms and more on Django), so that the queries compile on the other core instead of
/// holding up the first files' extraction (the Rust query takes about 9 ms to compile, each TypeScript
/// grammar's 7 ms alone and 10 to 20 ms beside the parse). A dialect announced but absent costs its
/// compile's CPU time; one present but unannounced is started when the walk finds it, as before.
pub fn prepare_announced_dialects(root: &Path, registry: &'static Registry) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    let mut samples: Vec<String> = Vec::new();
    for entry in entries.flatten().take(MAX_ANNOUNCING_ENTRIES) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let sample = match name.as_str() {
            "Cargo.toml" => "lib.rs",
            "pyproject.toml" | "setup.py" | "setup.cfg" => "setup.py",
            "tsconfig.json" => "index.ts",
            "package.json" => "index.js",
            _ => &name,
        };
        samples.push(sample.to_owned());
    }
    let Ok(mut started) = STARTED.lock() else { return };
    for sample in samples {
        let Some((plugin, lang)) = registry.for_path(&sample) else { continue };
        if !claim(&mut started, plugin, lang) {
            continue;
        }
        // Detached: a compile that outlives the run (an error ended it early) holds nothing of it.
        let spawned = std::thread::Builder::new().name("drsg-prepare".into()).spawn(move || plugin.prepare(lang));
        if spawned.is_err() {
            // No thread: the first file of the dialect prepares it, as it would anyway.
            started.pop();
        }
    }
}

/// How many entries of a tree's top level [`prepare_announced_dialects`] looks at.
const MAX_ANNOUNCING_ENTRIES: usize = 256;

/// The dialects of `candidates` whose one-time preparation no run of this process has started yet, marked
/// as started. Each one's queries then compile on a thread of their own while the first files parse: done
/// by the first file that needs them, a compile (up to 20 ms for a TypeScript grammar) would hold up every
/// other worker reaching a file of the same dialect, and one dialect's compile would follow the other's.
/// Later runs (a watch loop's folds) start no thread.
fn unprepared_dialects<'r>(
    candidates: &[crate::walk::Candidate],
    registry: &'r Registry,
) -> Vec<(&'r dyn drsg_parsers::Language, Lang)> {
    let Ok(mut started) = STARTED.lock() else { return Vec::new() };
    let (mut seen, mut dialects) = (Vec::new(), Vec::new());
    for candidate in candidates {
        if seen.contains(&candidate.lang) {
            continue;
        }
        seen.push(candidate.lang);
        if let Some((plugin, lang)) = registry.for_path(&candidate.path)
            && claim(&mut started, plugin, lang)
        {
            dialects.push((plugin, lang));
        }
    }
    dialects
}

/// Marks `plugin`'s dialect `lang` as started in `started` ([`STARTED`]); `false` when it was already.
fn claim(started: &mut Vec<(&'static str, Lang)>, plugin: &dyn drsg_parsers::Language, lang: Lang) -> bool {
    let dialect = (plugin.name(), lang);
    let new = !started.contains(&dialect);
    if new {
        started.push(dialect);
    }
    new
}

/// A line of `/proc/self/status` (`VmRSS`, `VmHWM`) in MB, on Linux.
fn resident_mb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// Key Rust impl methods now that types and traits can be resolved (phase two of the table).
/// Returns each impl method's resolved self type, which `self`/`Self` mean inside it.
fn add_impl_methods(table: &mut Table, index: &[Arc<FileIndex>]) -> HashMap<(u32, u32), Target> {
    let mut pending = Vec::new();
    let mut impl_self = HashMap::new();
    if !table.files.iter().any(|f| f.facts.defs.iter().any(|d| d.impl_block.is_some())) {
        return impl_self;
    }
    {
        let resolver = Resolver::with_index(table, index.to_vec());
        for (fi, file) in table.files.iter().enumerate() {
            for (di, def) in file.facts.defs.iter().enumerate() {
                let Some(block) = &def.impl_block else { continue };
                let (fi, di) = (fi as u32, di as u32);
                let (self_ty, trait_) = resolver.impl_targets(fi, di);
                let module_key = table.syms[table.file_module[fi as usize] as usize].key.clone();
                let crate_name = table.layout.rust_module(&file.path).map(|m| m.crate_name);
                let written = |path: &[String]| written_type_key(&module_key, crate_name.as_deref(), path);
                let (type_key, owner) = match &self_ty {
                    Some(Target::Sym(id)) if table.syms[*id as usize].kind.is_type() => {
                        (table.syms[*id as usize].key.clone(), *id)
                    }
                    Some(Target::External(path)) => (path.clone(), enclosing_owner(table, fi, def.parent)),
                    _ => (written(&block.self_ty), enclosing_owner(table, fi, def.parent)),
                };
                if let Some(t) = self_ty {
                    impl_self.insert((fi, di), t);
                }
                let key = match (&block.trait_, &trait_) {
                    (None, _) => format!("{type_key}::{}", def.name),
                    (Some(_), Some(t)) => format!("<{type_key} as {}>::{}", resolver.target_key(t), def.name),
                    (Some(written_trait), None) => {
                        format!("<{type_key} as {}>::{}", written_trait.join("::"), def.name)
                    }
                };
                pending.push((fi, di, key, owner));
            }
        }
    }
    for (fi, di, key, owner) in pending {
        table.add_impl_method(fi, di, key, owner);
    }
    impl_self
}

/// The key of a type the tree does not define, from its path as written in module `module_key`:
/// `crate::`, `self::` and `super::` are spelled out, other paths are taken as relative to the module.
fn written_type_key(module_key: &str, crate_name: Option<&str>, path: &[String]) -> String {
    let mut base: Vec<&str> = module_key.split("::").collect();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            base = vec![crate_name.unwrap_or(base[0])];
            rest = &path[1..];
        }
        Some("self") => rest = &path[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                if base.len() > 1 {
                    base.pop();
                }
                rest = &rest[1..];
            }
        }
        _ => {}
    }
    base.into_iter().map(str::to_owned).chain(rest.iter().cloned()).collect::<Vec<_>>().join("::")
}

fn enclosing_owner(table: &Table, fi: u32, parent: Option<u32>) -> u32 {
    parent.and_then(|p| table.sym_of_def(fi, p)).unwrap_or(table.file_module[fi as usize])
}

/// Sets the resolved parents of every type (`extends`, `implements`, Rust trait impls) from each
/// file's links, resolving those not `known`. Resolution does not look at parents here, so a file's
/// links depend on what it names alone; merged in file order, they give each type its parents in the
/// order a fresh build has.
fn set_supers(table: &Table, resolver: &mut Resolver<'_>, known: Vec<Option<Vec<(SymId, Target)>>>) {
    debug_assert_eq!(known.len(), table.files.len());
    resolver.supers.clear();
    let links: Vec<Vec<(SymId, Target)>> = known
        .into_iter()
        .enumerate()
        .map(|(fi, links)| {
            links.unwrap_or_else(|| {
                let inherits = &table.files[fi].facts.inherits;
                inherits
                    .iter()
                    .filter_map(|inh| match resolver.inherit_ends(fi as u32, inh) {
                        Some((child, Ok(target))) => Some((child, target)),
                        _ => None,
                    })
                    .collect()
            })
        })
        .collect();
    let mut supers: HashMap<SymId, Vec<Target>> = HashMap::new();
    for (child, target) in links.iter().flatten() {
        let list = supers.entry(*child).or_default();
        if !list.contains(target) {
            list.push(target.clone());
        }
    }
    resolver.supers = supers;
    resolver.links = links;
}

/// Test files by path: Rust `tests/`, Python `test_*.py`/`*_test.py`/`conftest.py`/`tests/`,
/// JS `*.test.*`/`*.spec.*`/`__tests__/`.
pub fn is_test_path(path: &str, lang: Lang) -> bool {
    let in_dir = |d: &str| path.starts_with(&format!("{d}/")) || path.contains(&format!("/{d}/"));
    let file = path.rsplit('/').next().unwrap_or(path);
    match lang {
        Lang::Rust => in_dir("tests"),
        Lang::Python => {
            in_dir("tests")
                || in_dir("test")
                || file.starts_with("test_")
                || file.ends_with("_test.py")
                || file == "conftest.py"
        }
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
            in_dir("__tests__")
                || in_dir("tests")
                || in_dir("test")
                || file.contains(".test.")
                || file.contains(".spec.")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(module: &str, path: &[&str]) -> String {
        let path: Vec<String> = path.iter().map(|s| (*s).to_owned()).collect();
        written_type_key(module, Some("my_crate"), &path)
    }

    #[test]
    fn the_dialects_a_root_announces_are_started_before_the_walk() {
        static REGISTRY: std::sync::LazyLock<Registry> = std::sync::LazyLock::new(drsg_plugins::builtin);
        let dir = tempfile::tempdir().expect("tempdir");
        for name in ["Cargo.toml", "index.d.ts", "README.md"] {
            std::fs::write(dir.path().join(name), "").expect("write");
        }
        prepare_announced_dialects(dir.path(), &REGISTRY);
        let started = STARTED.lock().expect("lock").clone();
        assert!(started.contains(&("rust", Lang::Rust)), "{started:?}");
        assert!(started.contains(&("typescript", Lang::TypeScript)), "{started:?}");
        // Once started, a dialect is not started again: the walk's own preparation skips it.
        let rust = walk::Candidate { path: "src/lib.rs".into(), lang: Lang::Rust, size: 1 };
        assert!(unprepared_dialects(&[rust], &REGISTRY).is_empty());
    }

    #[test]
    fn types_outside_the_tree_are_keyed_from_their_written_path() {
        assert_eq!(key("my_crate::gen::clone", &["crate", "Expr"]), "my_crate::Expr");
        assert_eq!(key("my_crate::gen::clone", &["self", "Local"]), "my_crate::gen::clone::Local");
        assert_eq!(key("my_crate::gen::clone", &["super", "super", "Up"]), "my_crate::Up");
        assert_eq!(key("my_crate::a", &["Vec"]), "my_crate::a::Vec");
    }

    #[test]
    fn test_paths() {
        assert!(is_test_path("crates/x/tests/it/main.rs", Lang::Rust));
        assert!(!is_test_path("src/testing.rs", Lang::Rust));
        assert!(is_test_path("pkg/test_models.py", Lang::Python));
        assert!(is_test_path("src/app.spec.tsx", Lang::Tsx));
        assert!(!is_test_path("src/contest.ts", Lang::TypeScript));
    }
}
