//! Resolve: the resolver over a prepared symbol table, with the parents of every type set, and the
//! stack resolution runs on.

use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};

use crate::resolve::{FileIndex, Resolver, Target};
use crate::table::{SymId, Table};

/// Stack of the resolution thread.
pub(crate) const RESOLVE_STACK: usize = 256 * 1024 * 1024;

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
