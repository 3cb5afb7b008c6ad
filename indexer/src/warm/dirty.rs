//! Which files a fold resolves again: whether the old symbol table stands with the new facts swapped in,
//! and the dirty files (changed, whose symbols moved, or that mention a changed name).

use std::sync::Arc;

use drsg_parsers::FileFacts;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use rayon::prelude::*;

use super::names::{Mentions, Names, any_in, mentions_any, passes_on, surface_changes, whole_surface};
use crate::table::{ParsedFile, Table};

/// The old table with the new files' facts swapped in, when that is the table a fresh build would
/// make (up to symbol ids): no file came or went, the layout is the same, every changed file declares
/// the same definitions in the same order or may have them replaced in place
/// ([`Table::can_replace_defs`]), and no impl block names a changed name (its methods' keys stand).
/// Returns it with the changed files' indexes and the changed names (closed), or gives both back.
pub(super) fn same_table(
    mut old: Table,
    files: Vec<ParsedFile>,
    mentions: &[Arc<Mentions>],
    layout_changed: bool,
) -> TableFate {
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
pub(super) enum TableFate {
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
pub(super) fn mark_mentions(
    dirty: &mut [bool],
    files: &[ParsedFile],
    mentions: &[Arc<Mentions>],
    names: &HashSet<String>,
) {
    if names.is_empty() {
        return;
    }
    let names = Names::new(names.iter().map(String::as_str));
    for ((d, file), m) in dirty.iter_mut().zip(files).zip(mentions) {
        *d = *d || (m.may_name(&names) && mentions_any(&file.facts, &names));
    }
}

/// Dirty flags for the files of `new`, given the state `old` it replaces.
pub(super) fn dirty_files(
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
