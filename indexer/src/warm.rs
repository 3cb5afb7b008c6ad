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

use drsg_parsers::{Def, FileFacts, Qualifier, Registry, TypeHint};
use drsg_planes::{KeyedEdge, NewEdge, NodeData, PlaneDiff, PlaneKind, PlaneMeta};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
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
    outputs: Vec<FileOutput>,
    /// Stand-in key → how many files' outputs name it.
    stand_ins: HashMap<String, u32>,
    /// The resolver's per-file indexes, impl self types and parent links over `table`.
    parts: ResolverParts,
    /// Per file of the table: the names it mentions.
    mentions: Vec<Arc<Mentions>>,
    /// The commit's tree (prefix, listing), for the next fold to read only the subtrees that changed.
    listing: Option<(String, Arc<Listing>)>,
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

/// Reads `source`, taking the facts of files whose blob `known` already holds, and parsing the rest
/// (through `cache`).
fn snapshot(
    source: &Source,
    tree_name: &str,
    registry: &Registry,
    max_file_size: u64,
    cache: &BlobFacts,
    known: Option<(&Table, &HashMap<String, String>)>,
) -> Snapshot {
    let walked = source.walk(registry, max_file_size);
    let layout = Layout::load(source, tree_name, &walked.manifests, walked.python_packages.clone());
    let mut kept: HashMap<&str, &ParsedFile> = HashMap::new();
    if let Some((table, blobs)) = known {
        for file in &table.files {
            if blobs.get(&file.path).map(String::as_str) == source.blob_id(&file.path) {
                kept.insert(&file.path, file);
            }
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
fn outputs_of(table: &Table, r: &Resolver<'_>, mut kept: impl FnMut(usize) -> Option<FileOutput>) -> Vec<FileOutput> {
    let reserved = Reserved::of(table);
    let taken = |k: &str| reserved.contains(k);
    let syms = syms_by_file(table);
    (0..table.files.len())
        .map(|fi| kept(fi).unwrap_or_else(|| file_output(table, r, fi as u32, &syms[fi], &taken)))
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
        let snap = snapshot(source, tree_name, registry, options.max_file_size, cache, None);
        let parsed = snap.parsed;
        let Prepared { table, impl_self, index } = prepare(snap.files, snap.layout);
        let (table, outputs, parts) = on_resolve_stack(move || {
            let r = resolver(&table, index, impl_self);
            let outputs = outputs_of(&table, &r, |_| None);
            let parts = r.into_parts();
            (table, outputs, parts)
        });
        let mentions = by_facts(std::iter::empty(), &table.files, Mentions::of);
        let mut warm = Warm {
            commit: commit.to_owned(),
            generation: 0,
            max_file_size: options.max_file_size,
            table,
            blobs: snap.blobs,
            skipped: snap.skipped,
            outputs,
            stand_ins: HashMap::new(),
            parts,
            mentions,
            listing: listing_of(source),
        };
        for out in &warm.outputs {
            for node in &out.stand_ins {
                *warm.stand_ins.entry(node.key.clone()).or_insert(0) += 1;
            }
        }
        (warm, parsed)
    }

    /// The state at `source` (commit `commit`), and the difference from this one's plane.
    pub(crate) fn advance(
        self,
        source: &Source,
        commit: &str,
        tree_name: &str,
        registry: &Registry,
        cache: &BlobFacts,
    ) -> (Warm, Changes, Advance) {
        let mut report = Advance::default();
        let t0 = std::time::Instant::now();
        let snap = snapshot(source, tree_name, registry, self.max_file_size, cache, Some((&self.table, &self.blobs)));
        report.phases.insert("read", t0.elapsed().as_secs_f64());
        report.files_parsed = snap.parsed;
        report.files_reused = snap.reused;
        let layout_changed = snap.layout != self.table.layout;
        let max_file_size = self.max_file_size;
        let Warm {
            table: old,
            outputs: old_outputs,
            mut stand_ins,
            blobs: old_blobs,
            parts: old_parts,
            mentions: old_mentions,
            ..
        } = self;
        let old_outputs: Vec<(String, FileOutput)> =
            old.files.iter().map(|f| f.path.clone()).zip(old_outputs).collect();
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
            let mut by_path: HashMap<String, FileOutput> = old_outputs.into_iter().collect();
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
        // `old_outputs` now holds the old outputs of dirty and removed files.
        let retracted: Vec<&FileOutput> = old_outputs.values().collect();
        let added: Vec<&FileOutput> = outputs.iter().zip(&dirty).filter(|(_, d)| **d).map(|(o, _)| o).collect();
        report.files_dirty = added.len() as u64;
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
            stand_ins,
            parts,
            mentions,
            listing: listing_of(source),
        };
        (warm, changes, report)
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
            accounting.add(&out.acc);
        }
        let resolved = Resolved {
            accounting,
            symbols: self.table.live() as u64,
            manifest_errors: self.table.layout.manifest_errors.clone(),
        };
        let skip_counts = walk::count_skips(&self.skipped);
        let ledger = ledger(
            &counts.files_by_language,
            counts.bytes,
            &self.skipped,
            &skip_counts,
            &counts.parse_errors,
            &resolved,
            options,
        );
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
        let mut nodes = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for out in &self.outputs {
            for node in out.nodes.iter().chain(&out.stand_ins) {
                if !index.contains_key(&node.key) {
                    index.insert(node.key.clone(), nodes.len());
                    nodes.push(node.clone());
                }
            }
        }
        let edges = self
            .outputs
            .iter()
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

    /// Number of source files.
    pub(crate) fn files(&self) -> usize {
        self.table.files.len()
    }

    /// Number of edges of the plane.
    pub(crate) fn edge_count(&self) -> usize {
        self.outputs.iter().map(|o| o.edges.len()).sum()
    }
}

/// The difference between two states' planes, by key.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    pub(crate) remove_nodes: Vec<String>,
    /// Nodes new or changed, and how many of them are new.
    pub(crate) upsert_nodes: Vec<NodeData>,
    pub(crate) nodes_added: u64,
    pub(crate) remove_edges: Vec<KeyedEdge>,
    pub(crate) add_edges: Vec<KeyedEdge>,
}

impl Changes {
    /// From the outputs taken away and put in their place; `stand_ins` (reference counts) is updated.
    fn between(retracted: &[&FileOutput], added: &[&FileOutput], stand_ins: &mut HashMap<String, u32>) -> Changes {
        let mut changes = Changes::default();
        let old_nodes: HashMap<&str, &NodeData> =
            retracted.iter().flat_map(|o| &o.nodes).map(|n| (n.key.as_str(), n)).collect();
        let new_nodes: HashMap<&str, &NodeData> =
            added.iter().flat_map(|o| &o.nodes).map(|n| (n.key.as_str(), n)).collect();
        for (key, node) in &new_nodes {
            match old_nodes.get(key) {
                Some(old) if old == node => {}
                Some(_) => changes.upsert_nodes.push((*node).clone()),
                None => {
                    changes.nodes_added += 1;
                    changes.upsert_nodes.push((*node).clone());
                }
            }
        }
        changes.remove_nodes =
            old_nodes.keys().filter(|k| !new_nodes.contains_key(*k)).map(|k| (*k).to_owned()).collect();
        // Stand-ins live while some file names them.
        let mut touched: HashMap<&str, (u32, &NodeData)> = HashMap::new();
        for out in retracted {
            for node in &out.stand_ins {
                let count = stand_ins.get_mut(&node.key).expect("a retracted stand-in was counted");
                touched.entry(&node.key).or_insert((*count, node));
                *count -= 1;
            }
        }
        for out in added {
            for node in &out.stand_ins {
                let count = stand_ins.entry(node.key.clone()).or_insert(0);
                touched.entry(&node.key).or_insert((*count, node));
                *count += 1;
            }
        }
        for (key, (before, node)) in touched {
            let after = stand_ins.get(key).copied().unwrap_or(0);
            if before > 0 && after == 0 {
                stand_ins.remove(key);
                changes.remove_nodes.push(key.to_owned());
            } else if before == 0 && after > 0 {
                changes.nodes_added += 1;
                changes.upsert_nodes.push(node.clone());
            }
        }
        let mut counts: HashMap<&KeyedEdge, i64> = HashMap::new();
        for e in retracted.iter().flat_map(|o| &o.edges) {
            *counts.entry(e).or_insert(0) -= 1;
        }
        for e in added.iter().flat_map(|o| &o.edges) {
            *counts.entry(e).or_insert(0) += 1;
        }
        for (edge, n) in counts {
            let list = if n < 0 { &mut changes.remove_edges } else { &mut changes.add_edges };
            for _ in 0..n.unsigned_abs() {
                list.push(edge.clone());
            }
        }
        // A stable order keeps writes reproducible.
        changes.remove_nodes.sort();
        changes.upsert_nodes.sort_by(|a, b| a.key.cmp(&b.key));
        changes.remove_edges.sort();
        changes.add_edges.sort();
        changes
    }

    pub(crate) fn into_diff(self, meta: PlaneMeta, base_generation: u64) -> PlaneDiff {
        PlaneDiff {
            meta,
            base_generation,
            remove_nodes: self.remove_nodes,
            upsert_nodes: self.upsert_nodes,
            remove_edges: self.remove_edges,
            add_edges: self.add_edges,
        }
    }
}

// ---- which files to resolve again -------------------------------------------------------------

/// The old table with the new files' facts swapped in, when that is the table a fresh build would
/// make (up to symbol ids): no file came or went, the layout is the same, every changed file declares
/// the same definitions in the same order or may have them replaced in place
/// ([`Table::can_replace_defs`]), and no impl block names a changed name (its methods' keys stand).
/// Returns it with the changed files' indexes and the changed names (closed), or gives both back.
fn same_table(mut old: Table, files: Vec<ParsedFile>, mentions: &[Arc<Mentions>], layout_changed: bool) -> TableFate {
    let fits = !layout_changed
        && old.files.len() == files.len()
        && old.files.iter().zip(&files).all(|(a, b)| a.path == b.path && a.lang == b.lang);
    let changed: Vec<usize> = if fits {
        (0..files.len()).filter(|&fi| !Arc::ptr_eq(&old.files[fi].facts, &files[fi].facts)).collect()
    } else {
        Vec::new()
    };
    // Files whose definitions changed get new symbols in place, when that is safe; too many dead
    // symbols, and the table is built afresh.
    let reshaped: Vec<usize> = changed
        .iter()
        .copied()
        .filter(|&fi| !def_shapes(&old.files[fi].facts).eq(def_shapes(&files[fi].facts)))
        .collect();
    let patchable =
        fits && old.dead * 4 <= old.syms.len() && reshaped.iter().all(|&fi| old.can_replace_defs(fi, &files[fi].facts));
    if !patchable {
        return TableFate::Rebuild(old, files);
    }
    let mut names = HashSet::new();
    for &fi in &changed {
        surface_changes(&old.files[fi].facts, &files[fi].facts, &mut names);
    }
    close_over(&mut names, &files, mentions);
    let set = Names::new(names.iter().map(String::as_str));
    let impl_named = !names.is_empty()
        && files.iter().zip(mentions).any(|(f, m)| {
            m.may_name(&set)
                && f.facts.defs.iter().any(|d| {
                    d.impl_block
                        .as_ref()
                        .is_some_and(|b| any_in(b.self_ty.iter().chain(b.trait_.iter().flatten()), &set))
                })
        });
    if impl_named {
        return TableFate::Rebuild(old, files);
    }
    for (fi, file) in files.into_iter().enumerate() {
        old.files[fi] = file;
    }
    for &fi in &reshaped {
        old.replace_defs(fi);
    }
    TableFate::Kept(old, changed, names)
}

/// Whether a fold keeps the old symbol table (with the files that changed and the changed names), or
/// builds one from the new files.
enum TableFate {
    Kept(Table, Vec<usize>, HashSet<String>),
    Rebuild(Table, Vec<ParsedFile>),
}

/// What a definition contributes to the symbol table: its name, kind, parent, impl block and whether
/// it is a `mod x;` declaration.
fn def_shapes(
    facts: &FileFacts,
) -> impl Iterator<Item = (&str, drsg_parsers::DefKind, Option<u32>, &Option<drsg_parsers::ImplBlock>, bool)> {
    facts.defs.iter().map(|d| (d.name.as_str(), d.kind, d.parent, &d.impl_block, d.external_body))
}

/// Adds to `names`, to a fixed point, the names of surface items of `files` that mention one of them.
fn close_over(names: &mut HashSet<String>, files: &[ParsedFile], mentions: &[Arc<Mentions>]) {
    let mut frontier: Vec<String> = names.iter().cloned().collect();
    while !frontier.is_empty() {
        let wanted = Names::new(frontier.iter().map(String::as_str));
        let known: &HashSet<String> = names;
        let mut next: Vec<String> = files
            .par_iter()
            .zip(mentions)
            .filter(|(_, m)| m.may_name(&wanted))
            .flat_map_iter(|(file, _)| {
                let mut found = Vec::new();
                passes_on(&file.facts, &wanted, &mut |name| {
                    if !known.contains(name) {
                        found.push(name.to_owned());
                    }
                });
                found
            })
            .collect();
        next.sort();
        next.dedup();
        names.extend(next.iter().cloned());
        frontier = next;
    }
}

/// Marks the files that mention one of `names`.
fn mark_mentions(dirty: &mut [bool], files: &[ParsedFile], mentions: &[Arc<Mentions>], names: &HashSet<String>) {
    if names.is_empty() {
        return;
    }
    let names = Names::new(names.iter().map(String::as_str));
    for ((d, file), m) in dirty.iter_mut().zip(files).zip(mentions) {
        *d = *d || (m.may_name(&names) && mentions_any(&file.facts, &names));
    }
}

/// Dirty flags for the files of `new`, given the state `old` it replaces.
fn dirty_files(
    old: &Table,
    old_blobs: &HashMap<String, String>,
    new: &Table,
    new_blobs: &HashMap<String, String>,
    mentions: &[Arc<Mentions>],
) -> Vec<bool> {
    let old_by_path: HashMap<&str, usize> = old.files.iter().enumerate().map(|(i, f)| (f.path.as_str(), i)).collect();
    let new_paths: HashSet<&str> = new.files.iter().map(|f| f.path.as_str()).collect();
    let mut dirty = vec![false; new.files.len()];
    let mut names: HashSet<String> = HashSet::new();
    for (fi, file) in new.files.iter().enumerate() {
        // A file kept from the old state shares its facts.
        let same = old_by_path.get(file.path.as_str()).is_some_and(|&oi| {
            old_blobs.get(&file.path).is_some()
                && old_blobs.get(&file.path) == new_blobs.get(&file.path)
                && Arc::ptr_eq(&old.files[oi].facts, &file.facts)
        });
        if same {
            continue;
        }
        dirty[fi] = true;
        match old_by_path.get(file.path.as_str()) {
            Some(&oi) => surface_changes(&old.files[oi].facts, &file.facts, &mut names),
            None => whole_surface(file, &mut names),
        }
    }
    let mut moved_dirs: HashSet<&str> = HashSet::new();
    for file in &old.files {
        if !new_paths.contains(file.path.as_str()) {
            whole_surface(file, &mut names);
            moved_dirs.insert(crate::layout::parent_dir(&file.path));
        }
    }
    if names.is_empty() {
        // Every surface item is as it was, so no key or parent outside the changed files moved.
        return dirty;
    }
    for file in &new.files {
        if !old_by_path.contains_key(file.path.as_str()) {
            moved_dirs.insert(crate::layout::parent_dir(&file.path));
        }
    }
    // Files whose symbols may have changed key or parent: those defining a changed name (a duplicate's
    // `#2` moving), and those below a directory that gained or lost a file (a package appearing above
    // a module). Impl methods whose type changed mention a changed name, so they are dirty below anyway.
    let mut candidates: HashSet<&str> = HashSet::new();
    let changed = Names::new(names.iter().map(String::as_str));
    for sym in old.syms.iter().map(|s| (s, old)).chain(new.syms.iter().map(|s| (s, new))).filter(|(s, _)| !s.dead) {
        let (sym, t) = sym;
        if changed.contains(&sym.name) {
            candidates.insert(t.files[sym.file as usize].path.as_str());
        }
    }
    for file in &new.files {
        if moved_dirs.iter().any(|d| crate::layout::is_under(&file.path, d)) {
            candidates.insert(file.path.as_str());
        }
    }
    let old_syms = sym_shapes(old, &candidates);
    let new_syms = sym_shapes(new, &candidates);
    for (fi, file) in new.files.iter().enumerate() {
        if !dirty[fi]
            && candidates.contains(file.path.as_str())
            && old_syms.get(file.path.as_str()) != new_syms.get(file.path.as_str())
        {
            dirty[fi] = true;
        }
    }
    // What others reach through a changed name may change: close over the surface items naming one.
    close_over(&mut names, &new.files, mentions);
    mark_mentions(&mut dirty, &new.files, mentions, &names);
    dirty
}

/// A symbol's key and kind, and its parent's.
type SymShape<'t> = (&'t str, &'static str, Option<(&'t str, &'static str)>);

/// Per file path among `paths`: the shapes of its symbols.
fn sym_shapes<'t>(t: &'t Table, paths: &HashSet<&str>) -> HashMap<&'t str, Vec<SymShape<'t>>> {
    let mut out: HashMap<&str, Vec<_>> = HashMap::new();
    for sym in t.syms.iter().filter(|s| !s.dead) {
        if !paths.contains(t.files[sym.file as usize].path.as_str()) {
            continue;
        }
        let parent = sym.parent.map(|p| {
            let p = &t.syms[p as usize];
            (p.key.as_str(), p.kind.label())
        });
        out.entry(t.files[sym.file as usize].path.as_str()).or_default().push((
            sym.key.as_str(),
            sym.kind.label(),
            parent,
        ));
    }
    out
}

/// The chain of enclosing definitions' names of def `di`, for fingerprints that do not move with lines.
fn def_path(defs: &[Def], mut di: Option<u32>) -> String {
    let mut parts = Vec::new();
    while let Some(i) = di {
        let def = &defs[i as usize];
        parts.push(def.name.as_str());
        di = def.parent;
    }
    parts.reverse();
    parts.join("/")
}

/// Surface items of a file, by the names they define: what other files may read. Lines are left out;
/// a body edit changes none of them.
fn surface(facts: &FileFacts) -> HashMap<&str, Vec<String>> {
    let mut out: HashMap<&str, Vec<String>> = HashMap::new();
    let defs = &facts.defs;
    for def in defs {
        let fingerprint = format!(
            "def {:?} {:?} {:?} {:?} {:?} {} {} in {}",
            def.kind,
            def.signature,
            def.visibility,
            def.impl_block,
            def.returns,
            def.external_body,
            def.is_test,
            def_path(defs, def.parent)
        );
        out.entry(&def.name).or_default().push(fingerprint);
    }
    for imp in &facts.imports {
        let fingerprint = format!(
            "import {:?} {:?} {:?} {} {} in {}",
            imp.source,
            imp.name,
            imp.alias,
            imp.glob,
            imp.reexport,
            def_path(defs, imp.scope)
        );
        for name in [Some(imp.alias.as_str()), imp.name.as_deref()].into_iter().flatten() {
            out.entry(name).or_default().push(fingerprint.clone());
        }
    }
    for e in &facts.exports {
        let fingerprint = format!("export {:?} {:?}", e.local, e.exported);
        out.entry(&e.exported).or_default().push(fingerprint.clone());
        out.entry(&e.local).or_default().push(fingerprint);
    }
    for inh in &facts.inherits {
        let child = inh.child_def.map(|d| def_path(defs, Some(d)));
        let fingerprint = format!("inherits {:?} {:?} {:?} {:?}", child, inh.child, inh.kind, inh.target);
        if let Some(name) = inh.child.last() {
            out.entry(name).or_default().push(fingerprint.clone());
        }
        if let Some(d) = inh.child_def {
            out.entry(&defs[d as usize].name).or_default().push(fingerprint);
        }
    }
    for b in facts.bindings.iter().filter(|b| is_surface_binding(defs, b.scope)) {
        let fingerprint = format!("binding {:?} in {}", b.hint, def_path(defs, b.scope));
        out.entry(&b.name).or_default().push(fingerprint);
    }
    for list in out.values_mut() {
        list.sort();
    }
    out
}

/// Bindings other files can read: module-level ones, and fields of a type.
fn is_surface_binding(defs: &[Def], scope: Option<u32>) -> bool {
    match scope {
        None => true,
        Some(d) => defs[d as usize].kind.is_type() || defs[d as usize].kind == drsg_parsers::DefKind::Module,
    }
}

/// Adds the names whose surface items differ between `old` and `new` facts of one file.
fn surface_changes(old: &FileFacts, new: &FileFacts, names: &mut HashSet<String>) {
    let (a, b) = (surface(old), surface(new));
    for (name, items) in &a {
        if b.get(name) != Some(items) {
            names.insert((*name).to_owned());
        }
    }
    for name in b.keys() {
        if !a.contains_key(name) {
            names.insert((*name).to_owned());
        }
    }
}

/// Adds every surface name of a file that appeared or disappeared, and the stems of its path.
fn whole_surface(file: &ParsedFile, names: &mut HashSet<String>) {
    names.extend(surface(&file.facts).into_keys().map(str::to_owned));
    for part in file.path.split('/') {
        names.insert(part.split('.').next().unwrap_or(part).to_owned());
    }
}

/// Identifier-like pieces of an import source (`./a/b`, `crate::x`, `..util`).
fn source_parts(source: &str) -> impl Iterator<Item = &str> {
    source.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '-')).filter(|p| !p.is_empty())
}

/// A set of names, with a filter on their lengths that rejects most strings before hashing them.
struct Names<'a> {
    set: HashSet<&'a str>,
    /// Bit `n` set when some name is `n` bytes long (names of 128 bytes or more always pass).
    lengths: u128,
    /// [`name_hash`] of each name, sorted, to ask a file's [`Mentions`] first.
    hashes: Vec<u64>,
}

impl<'a> Names<'a> {
    fn new(names: impl IntoIterator<Item = &'a str>) -> Names<'a> {
        let set: HashSet<&str> = names.into_iter().collect();
        let lengths = set.iter().filter(|n| n.len() < 128).fold(0u128, |bits, n| bits | 1 << n.len());
        let mut hashes: Vec<u64> = set.iter().map(|n| name_hash(n)).collect();
        hashes.sort_unstable();
        Names { set, lengths, hashes }
    }

    fn contains(&self, name: &str) -> bool {
        (name.len() >= 128 || self.lengths >> name.len() & 1 == 1) && self.set.contains(name)
    }
}

/// FNV-1a: a fixed, fast hash of a name.
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The hashes of every name a file's facts mention where [`mentions_any`] and [`passes_on`] look,
/// sorted. Asking it first settles in a few binary searches, for all but the few files that do
/// mention a changed name, what walking their facts would (a hash collision only costs that walk).
pub(crate) struct Mentions(Vec<u64>);

impl Mentions {
    fn of(facts: &FileFacts) -> Mentions {
        let mut hashes: Vec<u64> = mentions(facts).map(name_hash).collect();
        hashes.sort_unstable();
        hashes.dedup();
        Mentions(hashes)
    }

    /// Whether the file may name one of `names` (false: it surely does not).
    fn may_name(&self, names: &Names<'_>) -> bool {
        names.hashes.iter().any(|h| self.0.binary_search(h).is_ok())
    }
}

fn any_in<'a>(parts: impl IntoIterator<Item = &'a String>, names: &Names<'_>) -> bool {
    parts.into_iter().any(|p| names.contains(p.as_str()))
}

/// Calls `add` with the names of surface items of `facts` that mention one of `names`.
fn passes_on(facts: &FileFacts, names: &Names<'_>, add: &mut dyn FnMut(&str)) {
    let defs = &facts.defs;
    for def in defs {
        let returns = def.returns.iter().flatten();
        let block = def.impl_block.iter().flat_map(|b| b.self_ty.iter().chain(b.trait_.iter().flatten()));
        if any_in(returns.chain(block), names) {
            add(&def.name);
        }
    }
    for imp in &facts.imports {
        let named = source_parts(&imp.source).any(|p| names.contains(p))
            || imp.name.as_deref().is_some_and(|n| names.contains(n))
            || names.contains(imp.alias.as_str());
        if named {
            add(&imp.alias);
            if let Some(name) = &imp.name {
                add(name);
            }
        }
    }
    for e in &facts.exports {
        if names.contains(e.local.as_str()) || names.contains(e.exported.as_str()) {
            add(&e.exported);
            add(&e.local);
        }
    }
    for inh in &facts.inherits {
        if any_in(inh.target.iter().chain(&inh.child), names) {
            if let Some(name) = inh.child.last() {
                add(name);
            }
            if let Some(d) = inh.child_def {
                add(&defs[d as usize].name);
            }
        }
    }
    for b in facts.bindings.iter().filter(|b| is_surface_binding(defs, b.scope)) {
        if any_in(hint_path(&b.hint), names) {
            add(&b.name);
        }
    }
}

fn hint_path(hint: &Option<TypeHint>) -> &[String] {
    match hint {
        Some(TypeHint::Annotated(p) | TypeHint::Constructed(p) | TypeHint::CallResult(p)) => p,
        None => &[],
    }
}

/// Every name `facts` mention where a change of meaning can reach the file: reference paths and
/// call chains, import sources (split), names and aliases, exports, inheritance, bindings and their
/// types, return types and impl blocks. [`passes_on`] looks at a subset of these.
fn mentions(facts: &FileFacts) -> impl Iterator<Item = &str> {
    let refs = facts.refs.iter().flat_map(|r| {
        let call: &[String] = match &r.qualifier {
            Qualifier::Expr { call: Some(call) } => call,
            _ => &[],
        };
        strs(&r.path).chain(strs(call))
    });
    let imports = facts
        .imports
        .iter()
        .flat_map(|i| source_parts(&i.source).chain(i.name.as_deref()).chain(std::iter::once(i.alias.as_str())));
    let exports = facts.exports.iter().flat_map(|e| [e.local.as_str(), e.exported.as_str()]);
    let inherits = facts.inherits.iter().flat_map(|i| strs(&i.target).chain(strs(&i.child)));
    let bindings = facts.bindings.iter().flat_map(|b| std::iter::once(b.name.as_str()).chain(strs(hint_path(&b.hint))));
    let defs = facts.defs.iter().flat_map(|d| {
        let block = d.impl_block.iter().flat_map(|b| strs(&b.self_ty).chain(b.trait_.iter().flat_map(|t| strs(t))));
        d.returns.iter().flat_map(|r| strs(r)).chain(block)
    });
    refs.chain(imports).chain(exports).chain(inherits).chain(bindings).chain(defs)
}

fn strs(v: &[String]) -> impl Iterator<Item = &str> {
    v.iter().map(String::as_str)
}

/// Whether anything in `facts` names one of `names`.
fn mentions_any(facts: &FileFacts, names: &Names<'_>) -> bool {
    mentions(facts).any(|name| names.contains(name))
}
