//! The warm state of a plane, kept between folds: its files' facts, symbol table and what each file
//! contributed to the plane (nodes, edges by key, stand-ins, counts). Moving it to another commit
//! parses the files whose blob changed, rebuilds the symbol table (cheap beside resolution), and
//! resolves again only the *dirty* files:
//!
//! - files added, changed or removed;
//! - files whose symbols' keys or parents changed (a duplicate key's `#2` moving, an impl's type renamed,
//!   a package appearing above a module);
//! - files that mention a *changed name*: a name whose cross-file meaning may differ. Changed names start
//!   as the names of the surface items (definitions, imports, exports, inheritance, module-level and field
//!   bindings) that differ between the old and new facts of changed files, plus every surface name and path
//!   stem of files added or removed. Then, to a fixed point, any surface item of any file that mentions a
//!   changed name (a return type, an import's source, an alias, a base class, a field's type) adds its own
//!   name, because what others reach through it may change.
//!
//! A change of the layout (manifests, packages, crate roots) makes every file dirty. The output of a
//! clean file is a function of facts that did not change, so it is kept. The fold's property test
//! checks the result against a fresh index after every step of random histories.

use std::collections::BTreeMap;
use std::sync::Arc;

use drsg_parsers::{FileFacts, Registry};
use drsg_planes::{NewEdge, NodeData, PlaneKind, PlaneMeta};
use foldhash::{HashMap, HashMapExt};
use rayon::prelude::*;

use crate::git::Listing;
use crate::graph::{FileOutput, Reserved, file_output};
use crate::layout::Layout;
use crate::pipeline::ledger::{FileCounts, Resolved, built_by, ledger};
use crate::pipeline::options::{IndexOptions, Silent};
use crate::pipeline::parse::{BlobFacts, Parsed, parse_all};
use crate::pipeline::prepare::{Prepared, prepare, prepare_with};
use crate::pipeline::resolve::{RESOLVE_STACK, resolver, resolver_from};
use crate::resolve::{FileIndex, Resolver, ResolverParts};
use crate::source::Source;
use crate::table::{ParsedFile, SymId, Table};
use crate::walk::{self, SkipReason};

mod changes;
mod dirty;
mod kept;
mod names;

use changes::Changes;
use dirty::{TableFate, dirty_files, mark_mentions, same_table};
use kept::{Kept, Output};
use names::Mentions;

/// A plane's state at one commit, as a fresh index of that commit would build it.
pub(crate) struct Warm {
    pub(crate) commit: String,
    /// The plane's generation this state matches (set once written).
    pub(crate) generation: u64,
    pub(crate) max_file_size: u64,
    table: Table,
    /// Blob id of each file of the table, by path.
    blobs: HashMap<String, String>,
    skipped: Vec<(String, SkipReason)>,
    /// Per file of the table, in its order.
    outputs: Vec<Output>,
    /// The route layer, built from every file's wire facts (`crate::routes`), and its counts.
    layer: FileOutput,
    layer_counts: crate::routes::WireCounts,
    /// Stand-in key → how many files' outputs name it.
    stand_ins: HashMap<String, u32>,
    /// The resolver's per-file indexes, impl self types and parent links over `table`.
    parts: ResolverParts,
    /// Per file of the table: the names it mentions.
    mentions: Vec<Arc<Mentions>>,
    /// The commit's tree (prefix, listing), for the next fold to read only the subtrees that changed.
    listing: Option<(String, Arc<Listing>)>,
    /// How this state differs from the one kept in the database.
    kept: Kept,
}

/// What moving the warm state did, for the fold's report.
#[derive(Debug, Default, Clone)]
pub(crate) struct Advance {
    pub(crate) files_parsed: u64,
    pub(crate) files_reused: u64,
    pub(crate) files_dirty: u64,
    /// False when the old symbol table was kept (same files declaring the same definitions).
    pub(crate) table_rebuilt: bool,
    /// Seconds per phase.
    pub(crate) phases: BTreeMap<&'static str, f64>,
}

/// Runs `work` on a thread with a roomy stack: resolution nests deeply on some trees.
fn on_resolve_stack<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("drsg-resolve".into())
            .stack_size(RESOLVE_STACK)
            .spawn_scoped(scope, work)
            .expect("spawn the resolution thread")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// The source files of `source` (a commit's tree), the skipped ones, and the layout.
struct Snapshot {
    files: Vec<ParsedFile>,
    blobs: HashMap<String, String>,
    skipped: Vec<(String, SkipReason)>,
    layout: Layout,
    parsed: u64,
    reused: u64,
}

/// Reads `source`, taking the facts of the `known` files (each with its blob id) whose blob it still has,
/// and parsing the rest (through `cache`).
fn snapshot<'k>(
    source: &Source,
    tree_name: &str,
    registry: &Registry,
    max_file_size: u64,
    cache: &BlobFacts,
    known: impl IntoIterator<Item = (&'k ParsedFile, &'k str)>,
) -> Snapshot {
    let walked = source.walk(registry, max_file_size);
    let layout = Layout::of_walk(source, tree_name, &walked);
    let mut kept: HashMap<&str, &ParsedFile> = HashMap::new();
    for (file, blob) in known {
        if source.blob_id(&file.path) == Some(blob) {
            kept.insert(&file.path, file);
        }
    }
    let to_parse: Vec<walk::Candidate> =
        walked.candidates.iter().filter(|c| !kept.contains_key(c.path.as_str())).cloned().collect();
    let (outcomes, reused) = parse_all(source, &to_parse, registry, max_file_size, cache, &Silent);
    let parsed = outcomes.len() as u64 - reused;
    let mut fresh: HashMap<String, Parsed> = to_parse.iter().map(|c| c.path.clone()).zip(outcomes).collect();
    let mut skipped = walked.skipped;
    let mut files = Vec::with_capacity(walked.candidates.len());
    let mut blobs = HashMap::with_capacity(walked.candidates.len());
    for candidate in &walked.candidates {
        let file = match kept.get(candidate.path.as_str()) {
            Some(file) => (*file).clone(),
            None => match fresh.remove(&candidate.path).expect("every candidate was kept or parsed") {
                Ok(file) => file,
                Err(skip) => {
                    skipped.push(skip);
                    continue;
                }
            },
        };
        if let Some(blob) = source.blob_id(&file.path) {
            blobs.insert(file.path.clone(), blob.to_owned());
        }
        files.push(file);
    }
    skipped.sort();
    Snapshot { files, blobs, skipped, layout, parsed, reused: reused + kept.len() as u64 }
}

fn listing_of(source: &Source) -> Option<(String, Arc<Listing>)> {
    match source {
        Source::Commit(tree) => Some((tree.prefix.clone(), Arc::clone(tree.listing()))),
        Source::Disk { .. } => None,
    }
}

/// Symbols of each file of a table, in symbol order.
fn syms_by_file(t: &Table) -> Vec<Vec<SymId>> {
    let mut out = vec![Vec::new(); t.files.len()];
    for (id, sym) in t.syms.iter().enumerate().filter(|(_, s)| !s.dead) {
        out[sym.file as usize].push(id as SymId);
    }
    out
}

/// Each file's output: `kept(fi)` when it gives one, else resolved with `r`.
fn outputs_of(table: &Table, r: &Resolver<'_>, mut kept: impl FnMut(usize) -> Option<Output>) -> Vec<Output> {
    let reserved = Reserved::of(table);
    let taken = |k: &str| reserved.contains(k);
    let syms = syms_by_file(table);
    (0..table.files.len())
        .map(|fi| kept(fi).unwrap_or_else(|| Output::Built(file_output(table, r, fi as u32, &syms[fi], &taken))))
        .collect()
}

/// Per file, a value derived from its facts alone: taken from `known` when the file's facts are the
/// same object as one there (a file kept from the last state), else made afresh.
fn by_facts<'a, T: Send + Sync + 'a>(
    known: impl IntoIterator<Item = (&'a Arc<FileFacts>, &'a Arc<T>)>,
    files: &[ParsedFile],
    make: impl Fn(&FileFacts) -> T + Sync,
) -> Vec<Arc<T>> {
    // Addresses as integers (to share the map between threads): every object is alive meanwhile.
    let known: HashMap<usize, &Arc<T>> = known.into_iter().map(|(f, v)| (Arc::as_ptr(f) as usize, v)).collect();
    files
        .par_iter()
        .map(|f| match known.get(&(Arc::as_ptr(&f.facts) as usize)) {
            Some(v) => Arc::clone(v),
            None => Arc::new(make(&f.facts)),
        })
        .collect()
}

impl Warm {
    /// The state of `source` (a commit's tree) from scratch, and how many files were parsed (not
    /// found in `cache`).
    pub(crate) fn load(
        source: &Source,
        commit: &str,
        tree_name: &str,
        registry: &Registry,
        options: &IndexOptions,
        cache: &BlobFacts,
    ) -> (Warm, u64) {
        let snap = snapshot(source, tree_name, registry, options.max_file_size, cache, []);
        let parsed = snap.parsed;
        (Warm::of_snapshot(source, commit, snap, options.max_file_size, |_| None), parsed)
    }

    /// The state of a snapshot: each file's output is `kept(path)` when that gives one, else resolved.
    fn of_snapshot(
        source: &Source,
        commit: &str,
        snap: Snapshot,
        max_file_size: u64,
        mut kept: impl FnMut(&str) -> Option<Output> + Send,
    ) -> Warm {
        let Prepared { table, impl_self, index } = prepare(snap.files, snap.layout);
        let (table, outputs, parts) = on_resolve_stack(move || {
            let r = resolver(&table, index, impl_self);
            let outputs = outputs_of(&table, &r, |fi| kept(&table.files[fi].path));
            let parts = r.into_parts();
            (table, outputs, parts)
        });
        let mentions = by_facts(std::iter::empty(), &table.files, Mentions::of);
        let (layer, layer_counts) = crate::graph::layer_output(&table);
        let mut warm = Warm {
            commit: commit.to_owned(),
            generation: 0,
            max_file_size,
            table,
            blobs: snap.blobs,
            skipped: snap.skipped,
            outputs,
            layer,
            layer_counts,
            stand_ins: HashMap::new(),
            parts,
            mentions,
            listing: listing_of(source),
            kept: Kept::Whole,
        };
        for out in &warm.outputs {
            for key in out.stand_in_keys() {
                *warm.stand_ins.entry(key.to_owned()).or_insert(0) += 1;
            }
        }
        warm
    }

    /// The state at `source` (commit `commit`), and the difference from this one's plane; `None` when an
    /// output this state kept packed does not read back (a damaged record: the caller builds afresh).
    pub(crate) fn advance(
        self,
        source: &Source,
        commit: &str,
        tree_name: &str,
        registry: &Registry,
        cache: &BlobFacts,
    ) -> Option<(Warm, Changes, Advance)> {
        let mut report = Advance::default();
        let t0 = std::time::Instant::now();
        let known = self.table.files.iter().filter_map(|f| Some((f, self.blobs.get(&f.path)?.as_str())));
        let snap = snapshot(source, tree_name, registry, self.max_file_size, cache, known);
        report.phases.insert("read", t0.elapsed().as_secs_f64());
        report.files_parsed = snap.parsed;
        report.files_reused = snap.reused;
        let layout_changed = snap.layout != self.table.layout;
        let max_file_size = self.max_file_size;
        let Warm {
            table: old,
            outputs: old_outputs,
            layer: old_layer,
            mut stand_ins,
            blobs: old_blobs,
            parts: old_parts,
            mentions: old_mentions,
            kept,
            ..
        } = self;
        let old_outputs: Vec<(String, Output)> = old.files.iter().map(|f| f.path.clone()).zip(old_outputs).collect();
        let Snapshot { files, blobs: new_blobs, skipped, layout, .. } = snap;
        let blobs_ref = &new_blobs;
        let (table, outputs, parts, mentions, old_outputs, dirty, phases) = on_resolve_stack(move || {
            let mut phases = BTreeMap::new();
            let t0 = std::time::Instant::now();
            let mentions = by_facts(old.files.iter().map(|f| &f.facts).zip(&old_mentions), &files, Mentions::of);
            let (table, index, impl_self, links, mentions, dirty) =
                match same_table(old, files, &mentions, layout_changed) {
                    TableFate::Kept(table, changed, names) => {
                        // Same files, same definitions: the table stands; only changed files' indexes are new.
                        let mut index = old_parts.index;
                        let mut dirty = vec![false; table.files.len()];
                        for &fi in &changed {
                            index[fi] = Arc::new(FileIndex::of(&table.files[fi].facts));
                            dirty[fi] = true;
                        }
                        mark_mentions(&mut dirty, &table.files, &mentions, &names);
                        // A clean file's parent links stand, unless they name a symbol replaced in place.
                        let dead = |id: SymId| table.syms[id as usize].dead;
                        let links = old_parts
                            .links
                            .into_iter()
                            .zip(&dirty)
                            .map(|(links, &d)| {
                                let stale = links.iter().any(|(child, target)| {
                                    dead(*child) || matches!(target, crate::resolve::Target::Sym(id) if dead(*id))
                                });
                                (!d && !stale).then_some(links)
                            })
                            .collect();
                        (table, index, old_parts.impl_self, links, mentions, dirty)
                    }
                    TableFate::Rebuild(old, files) => {
                        // A file's index depends on its facts alone: keep those of files kept.
                        let index =
                            by_facts(old.files.iter().map(|f| &f.facts).zip(&old_parts.index), &files, FileIndex::of);
                        let t1 = std::time::Instant::now();
                        // The table keeps the files in order, so `mentions` still lines up with them.
                        let Prepared { table, impl_self, index } = prepare_with(files, layout, index);
                        debug_assert_eq!(table.files.len(), mentions.len());
                        phases.insert("table", t1.elapsed().as_secs_f64());
                        let dirty = if layout_changed || Reserved::of(&table) != Reserved::of(&old) {
                            vec![true; table.files.len()]
                        } else {
                            dirty_files(&old, &old_blobs, &table, blobs_ref, &mentions)
                        };
                        // Freeing the old table's maps takes milliseconds the fold need not wait for.
                        std::thread::spawn(move || drop(old));
                        let links = vec![None; table.files.len()];
                        (table, index, impl_self, links, mentions, dirty)
                    }
                };
            phases.insert("dirty", t0.elapsed().as_secs_f64() - phases.get("table").copied().unwrap_or(0.0));
            let t0 = std::time::Instant::now();
            let mut by_path: HashMap<String, Output> = old_outputs.into_iter().collect();
            let (outputs, parts) = {
                let r = resolver_from(&table, index, impl_self, links);
                let outputs = outputs_of(&table, &r, |fi| {
                    let path = &table.files[fi].path;
                    (!dirty[fi]).then(|| by_path.remove(path).expect("a clean file was in the old state"))
                });
                (outputs, r.into_parts())
            };
            phases.insert("resolve", t0.elapsed().as_secs_f64());
            (table, outputs, parts, mentions, by_path, dirty, phases)
        });
        report.table_rebuilt = phases.contains_key("table");
        report.phases.extend(phases);
        let t0 = std::time::Instant::now();
        // The route layer is built again whole and compared with the old one like a dirty file's output.
        let (layer, layer_counts) = crate::graph::layer_output(&table);
        // `old_outputs` now holds the old outputs of dirty and removed files: their records change too.
        let kept = kept.with_changed(
            old_outputs
                .keys()
                .cloned()
                .chain(table.files.iter().zip(&dirty).filter(|(_, d)| **d).map(|(f, _)| f.path.clone())),
        );
        let old_outputs = old_outputs.into_values().map(Output::into_built).collect::<Option<Vec<FileOutput>>>()?;
        let mut retracted: Vec<&FileOutput> = old_outputs.iter().collect();
        retracted.push(&old_layer);
        // A dirty file's output was just built.
        let mut added: Vec<&FileOutput> =
            outputs.iter().zip(&dirty).filter(|(_, d)| **d).filter_map(|(o, _)| o.as_built()).collect();
        report.files_dirty = added.len() as u64;
        added.push(&layer);
        let changes = Changes::between(&retracted, &added, &mut stand_ins);
        report.phases.insert("compare", t0.elapsed().as_secs_f64());
        let warm = Warm {
            commit: commit.to_owned(),
            generation: 0,
            max_file_size,
            table,
            blobs: new_blobs,
            skipped,
            outputs,
            layer,
            layer_counts,
            stand_ins,
            parts,
            mentions,
            listing: listing_of(source),
            kept,
        };
        Some((warm, changes, report))
    }

    /// The listing of this state's tree, when it was read below `prefix`.
    pub(crate) fn listing(&self, prefix: &str) -> Option<&Listing> {
        self.listing.as_ref().filter(|(p, _)| p == prefix).map(|(_, l)| &**l)
    }

    /// The plane's meta at this state.
    pub(crate) fn meta(&self, plane: &str, root: &str, registry: &Registry, options: &IndexOptions) -> PlaneMeta {
        let counts = FileCounts::of(&self.table.files);
        let mut accounting = crate::graph::Accounting::default();
        for out in &self.outputs {
            accounting.add(out.acc());
        }
        let resolved = Resolved {
            accounting,
            wire: self.layer_counts.clone(),
            symbols: self.table.live() as u64,
            manifest_errors: self.table.layout.manifest_errors.clone(),
        };
        let skip_counts = walk::count_skips(&self.skipped);
        let ledger = ledger(&counts, &self.skipped, &skip_counts, &resolved, options);
        PlaneMeta {
            name: plane.to_owned(),
            kind: PlaneKind::Code,
            synced_commit: Some(self.commit.clone()),
            synced_root: Some(root.to_owned()),
            built_by: built_by(registry),
            ledger,
        }
    }

    /// Every node and edge of the plane, for a whole write; `None` if an edge ends at no node (a bug:
    /// the caller then builds the state afresh).
    pub(crate) fn whole(&self) -> Option<(Vec<NodeData>, Vec<NewEdge>)> {
        let outputs: Vec<std::borrow::Cow<'_, FileOutput>> =
            self.outputs.iter().map(Output::read).collect::<Option<_>>()?;
        let outputs: Vec<&FileOutput> = outputs.iter().map(|o| &**o).collect();
        let mut nodes = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for out in outputs.iter().copied().chain([&self.layer]) {
            for node in out.nodes.iter().chain(&out.stand_ins) {
                if !index.contains_key(&node.key) {
                    index.insert(node.key.clone(), nodes.len());
                    nodes.push(node.clone());
                }
            }
        }
        let edges = outputs
            .iter()
            .copied()
            .chain([&self.layer])
            .flat_map(|out| &out.edges)
            .map(|e| {
                Some(NewEdge {
                    src: *index.get(&e.src)?,
                    dst: *index.get(&e.dst)?,
                    ty: e.ty.clone(),
                    props_json: e.props_json.clone(),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some((nodes, edges))
    }

    /// The manifests of the commit that could not be read, with why.
    pub(crate) fn manifest_errors(&self) -> &[(String, String)] {
        &self.table.layout.manifest_errors
    }

    /// The source files of the commit that were not read, and why.
    pub(crate) fn skipped(&self) -> &[(String, SkipReason)] {
        &self.skipped
    }

    /// Number of source files.
    pub(crate) fn files(&self) -> usize {
        self.table.files.len()
    }

    /// Number of edges of the plane.
    pub(crate) fn edge_count(&self) -> usize {
        self.outputs.iter().map(Output::edge_count).sum::<usize>() + self.layer.edges.len()
    }
}
