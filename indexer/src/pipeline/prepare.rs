//! Prepare: the symbol table of the parsed files (modules and definitions, then Rust impl methods keyed
//! once their types and traits resolve), and each file's lookup index.

use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};
use rayon::prelude::*;

use crate::layout::Layout;
use crate::resolve::{FileIndex, Resolver, Target};
use crate::table::{ParsedFile, Table};

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
            let module_key = &table.syms[table.file_module[fi] as usize].key;
            for (di, def) in file.facts.defs.iter().enumerate() {
                let Some(block) = &def.impl_block else { continue };
                let (fi, di) = (fi as u32, di as u32);
                let (self_ty, trait_) = resolver.impl_targets(fi, di);
                let written = |path: &[String]| written_type_key(module_key, resolver.crate_of(fi), path);
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
    add_nested_in_impl_methods(table);
    impl_self
}

/// Key the definitions nested in impl methods (a `fn` inside a method's body) below their method, now
/// that the methods have keys. Parents come before their children, so one pass in order keys every level.
fn add_nested_in_impl_methods(table: &mut Table) {
    for fi in 0..table.files.len() {
        let facts = Arc::clone(&table.files[fi].facts);
        let in_impl_method = |mut di: u32| {
            // Each step moves to a parent, which comes earlier in the file's definitions.
            while let Some(parent) = facts.defs[di as usize].parent {
                if facts.defs[parent as usize].impl_block.is_some() {
                    return true;
                }
                di = parent;
            }
            false
        };
        for (di, def) in facts.defs.iter().enumerate() {
            let di = di as u32;
            if table.def_sym[fi][di as usize].is_some() || !in_impl_method(di) {
                continue;
            }
            let Some(owner) = def.parent.and_then(|p| table.def_sym[fi][p as usize]) else { continue };
            let key = format!("{}::{}", table.syms[owner as usize].key, def.name);
            table.add_impl_method(fi as u32, di, key, owner);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn key(module: &str, path: &[&str]) -> String {
        let path: Vec<String> = path.iter().map(|s| (*s).to_owned()).collect();
        written_type_key(module, Some("my_crate"), &path)
    }

    #[test]
    fn types_outside_the_tree_are_keyed_from_their_written_path() {
        assert_eq!(key("my_crate::gen::clone", &["crate", "Expr"]), "my_crate::Expr");
        assert_eq!(key("my_crate::gen::clone", &["self", "Local"]), "my_crate::gen::clone::Local");
        assert_eq!(key("my_crate::gen::clone", &["super", "super", "Up"]), "my_crate::Up");
        assert_eq!(key("my_crate::a", &["Vec"]), "my_crate::a::Vec");
    }
}
