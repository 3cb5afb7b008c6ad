//! The symbol table: every module and definition of the tree with its key, and members by name.
//!
//! Built in two phases: modules and definitions first (their keys follow from the layout),
//! then Rust `impl` methods, whose keys depend on the resolved self type and trait
//! (`my_crate::Client::connect`, `<my_crate::Client as my_crate::Connect>::connect`).
//!
//! Keys, symbols and members are made file by file on the pool, and ids given out in file order on
//! one thread, so a build numbers symbols the same whatever the pool does. A file's definitions are
//! replaced in place when the keys stay unique (`Table::replace_defs`: the old ones marked dead,
//! reached by no lookup). A Rust impl's methods and associated consts are keyed below the type they
//! implement once types resolve, and definitions nested in an impl method below it once it has its
//! key (`pipeline/prepare`).

use std::collections::hash_map::Entry;
use std::sync::Arc;

use drsg_parsers::{DefKind, Family, FileFacts, Lang};
use foldhash::{HashMap, HashMapExt};
use rayon::prelude::*;

use crate::layout::Layout;

pub type SymId = u32;

/// One parsed source file.
#[derive(Debug, Clone)]
pub struct ParsedFile {
    pub path: String,
    pub lang: Lang,
    /// Shared with the cache of parsed blobs, so a fold takes an unchanged file's facts without a copy.
    pub facts: Arc<FileFacts>,
    pub lines: u32,
    pub bytes: u64,
    pub is_test: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymKind {
    /// A file's module (or a Rust `mod x;` whose file is missing).
    Module,
    Def(DefKind),
}

impl SymKind {
    pub fn label(self) -> &'static str {
        match self {
            SymKind::Module => "Module",
            SymKind::Def(kind) => kind.label(),
        }
    }

    pub fn is_type(self) -> bool {
        matches!(self, SymKind::Def(kind) if kind.is_type())
    }

    pub fn is_namespace(self) -> bool {
        matches!(self, SymKind::Module | SymKind::Def(DefKind::Module))
    }
}

#[derive(Debug, Clone)]
pub struct Sym {
    pub key: String,
    pub name: String,
    pub kind: SymKind,
    pub file: u32,
    /// Index into the file's `defs`, `None` for a file module.
    pub def: Option<u32>,
    /// The containing symbol (module, type, function).
    pub parent: Option<SymId>,
    /// Replaced by a fold that kept the table (see [`Table::replace_defs`]): no lookup reaches it.
    pub dead: bool,
}

/// All symbols of a tree.
pub struct Table {
    pub files: Vec<ParsedFile>,
    pub syms: Vec<Sym>,
    /// File index → its module symbol.
    pub file_module: Vec<SymId>,
    /// File index → def index → symbol (`None` for a Rust `mod x;` folded into the file module).
    pub def_sym: Vec<Vec<Option<SymId>>>,
    /// Members by name: module items, submodules, type methods, nested definitions.
    pub children: HashMap<SymId, HashMap<String, Vec<SymId>>>,
    pub module_by_key: HashMap<String, SymId>,
    /// File modules whose key an earlier file's module has (`gen.api_pb2` generated into two services),
    /// by that key: [`Table::module_near`] picks among them and the first.
    pub module_copies: HashMap<String, Vec<SymId>>,
    /// JS/TS: path without extension → file index (for relative import resolution).
    pub js_stems: HashMap<String, u32>,
    pub layout: Layout,
    /// Keys more than one symbol had before [`Table::dedupe_keys`] numbered them.
    pub duplicated: foldhash::HashSet<String>,
    /// Symbols marked dead by [`Table::replace_defs`].
    pub dead: usize,
}

/// Which of several files sharing a module key keeps the plain key: TypeScript sources, then
/// JavaScript modules, then CommonJS, then declaration files (`.d.ts`), which packages ship beside their builds.
fn source_rank(path: &str) -> u8 {
    let file = path.rsplit('/').next().unwrap_or(path);
    if file.contains(".d.") {
        3
    } else if file.ends_with(".cjs") {
        // Usually a CommonJS build whose exports are assigned at run time.
        2
    } else if [".js", ".jsx", ".mjs"].iter().any(|ext| file.ends_with(ext)) {
        1
    } else {
        0
    }
}

pub fn separator(family: Family) -> &'static str {
    match family {
        Family::Rust => "::",
        Family::Js | Family::Python => ".",
    }
}

/// The keys a file's definitions take if none is folded into a module of another file, made on the pool
/// (the costly part of the table: a key string per definition).
struct PlannedFile {
    module_key: String,
    /// Per definition: its key, `None` when its parent has none or it is an impl method (keyed in phase two).
    keys: Vec<Option<String>>,
}

impl PlannedFile {
    fn of(file: &ParsedFile, module_key: String) -> PlannedFile {
        let sep = separator(file.lang.family());
        let mut keys: Vec<Option<String>> = Vec::with_capacity(file.facts.defs.len());
        for def in &file.facts.defs {
            let parent_key = match def.parent {
                Some(p) => keys.get(p as usize).and_then(Option::as_deref),
                None => Some(module_key.as_str()),
            };
            let key = match parent_key {
                Some(parent_key) if def.impl_block.is_none() => {
                    let mut key = String::with_capacity(parent_key.len() + sep.len() + def.name.len());
                    key.push_str(parent_key);
                    key.push_str(sep);
                    key.push_str(&def.name);
                    Some(key)
                }
                _ => None,
            };
            keys.push(key);
        }
        PlannedFile { module_key, keys }
    }
}

/// The members a file's definitions add: parent → name → children, in id order.
type Members = HashMap<SymId, HashMap<String, Vec<SymId>>>;

impl Table {
    /// Phase one: modules and definitions outside Rust `impl` blocks. Keys, symbols and members are made
    /// file by file on the pool; ids are given out in file order on this thread, so a build numbers the
    /// symbols the same whatever the pool does.
    pub fn build(files: Vec<ParsedFile>, layout: Layout) -> Table {
        let mut planned: Vec<PlannedFile> = files
            .par_iter()
            .map(|file| PlannedFile::of(file, layout.module_key(&file.path, file.lang.family())))
            .collect();
        let mut table = Table {
            syms: Vec::new(),
            file_module: Vec::with_capacity(files.len()),
            def_sym: Vec::with_capacity(files.len()),
            children: HashMap::new(),
            module_by_key: HashMap::new(),
            module_copies: HashMap::new(),
            js_stems: HashMap::new(),
            files,
            layout,
            duplicated: Default::default(),
            dead: 0,
        };
        for (fi, file) in table.files.iter().enumerate() {
            let family = file.lang.family();
            let key = std::mem::take(&mut planned[fi].module_key);
            let name =
                key.rsplit(separator(family)).next().unwrap_or(&key).rsplit('/').next().unwrap_or(&key).to_owned();
            let id = table.syms.len() as SymId;
            match table.module_by_key.entry(key.clone()) {
                Entry::Vacant(slot) => {
                    slot.insert(id);
                }
                Entry::Occupied(_) => table.module_copies.entry(key.clone()).or_default().push(id),
            }
            table.syms.push(Sym {
                key,
                name,
                kind: SymKind::Module,
                file: fi as u32,
                def: None,
                parent: None,
                dead: false,
            });
            table.file_module.push(id);
            if family == Family::Js {
                // `x.ts` beside its build outputs `x.js`, `x.d.ts`: imports bind to the source.
                let stem = crate::layout::strip_js_extension(&file.path).to_owned();
                let rank = source_rank(&file.path);
                let better = match table.js_stems.get(&stem) {
                    Some(&other) => rank < source_rank(&table.files[other as usize].path),
                    None => true,
                };
                if better {
                    table.js_stems.insert(stem, fi as u32);
                }
            }
        }
        // Submodules: a Rust or Python module is a member of its parent module.
        for fi in 0..table.files.len() {
            let family = table.files[fi].lang.family();
            if family == Family::Js {
                continue;
            }
            let id = table.file_module[fi];
            let key = &table.syms[id as usize].key;
            let sep = separator(family);
            // Of two copies of a package (generated into two services), the one nearest the module's file.
            if let Some((parent_key, name)) = key.rsplit_once(sep)
                && let Some(parent) = table.module_near(parent_key, fi as u32)
                && parent != id
            {
                let name = name.to_owned();
                table.syms[id as usize].parent = Some(parent);
                table.children.entry(parent).or_default().entry(name).or_default().push(id);
            }
        }
        // Ids in file order: whether `mod x;` folds into the file module of x depends on the modules
        // of the files before.
        let mut next = table.syms.len() as SymId;
        for (fi, plan) in planned.iter_mut().enumerate() {
            let defs = table.number_defs(fi, &mut plan.keys, next);
            next += defs.iter().flatten().count() as SymId;
            table.def_sym.push(defs);
        }
        let made: Vec<(Vec<Sym>, Members)> =
            planned.into_par_iter().enumerate().map(|(fi, plan)| table.def_syms(fi, plan.keys)).collect();
        table.syms.reserve(made.iter().map(|(syms, _)| syms.len()).sum());
        for (syms, members) in made {
            table.syms.extend(syms);
            table.add_members(members);
        }
        debug_assert_eq!(table.syms.len() as SymId, next, "numbering and making skip the same definitions");
        table
    }

    /// The ids of file `fi`'s definitions, the first taking `first`: `None` for those without a symbol
    /// (their `keys` entry is cleared too). Records the modules they define.
    fn number_defs(&mut self, fi: usize, keys: &mut [Option<String>], first: SymId) -> Vec<Option<SymId>> {
        let defs = &self.files[fi].facts.defs;
        let mut out: Vec<Option<SymId>> = Vec::with_capacity(defs.len());
        let mut next = first;
        let mut modules = Vec::new();
        for (def, key) in defs.iter().zip(keys.iter_mut()) {
            // A definition under one that has no symbol has none either.
            let parent_has_symbol = def.parent.is_none_or(|p| out.get(p as usize).copied().flatten().is_some());
            let folded = || {
                // `mod x;` is the file module of x when that file exists.
                def.external_body
                    && def.kind == DefKind::Module
                    && key.as_ref().is_some_and(|k| self.module_by_key.contains_key(k))
            };
            if key.is_none() || !parent_has_symbol || folded() {
                *key = None;
                out.push(None);
                continue;
            }
            if def.kind == DefKind::Module
                && let Some(key) = key
            {
                modules.push((key.clone(), next));
            }
            out.push(Some(next));
            next += 1;
        }
        // Only after the file: a file's own inline modules do not fold its `mod x;` (files before it may).
        for (key, id) in modules {
            self.module_by_key.entry(key).or_insert(id);
        }
        out
    }

    /// The symbols of file `fi`'s numbered definitions (`keys` as [`Table::number_defs`] left them) and
    /// the members they add.
    fn def_syms(&self, fi: usize, keys: Vec<Option<String>>) -> (Vec<Sym>, Members) {
        let defs = &self.files[fi].facts.defs;
        let module = self.file_module[fi];
        let mut syms = Vec::with_capacity(keys.len());
        let mut members = Members::new();
        for ((di, def), key) in defs.iter().enumerate().zip(keys) {
            let (Some(key), Some(id)) = (key, self.def_sym[fi][di]) else { continue };
            let parent = match def.parent {
                Some(p) => self.def_sym[fi][p as usize].expect("a numbered definition's parent is numbered"),
                None => module,
            };
            members.entry(parent).or_default().entry(def.name.clone()).or_default().push(id);
            syms.push(Sym {
                key,
                name: def.name.clone(),
                kind: SymKind::Def(def.kind),
                file: fi as u32,
                def: Some(di as u32),
                parent: Some(parent),
                dead: false,
            });
        }
        (syms, members)
    }

    /// Adds a file's members after those already known (submodules, earlier definitions).
    fn add_members(&mut self, members: Members) {
        for (parent, by_name) in members {
            match self.children.entry(parent) {
                Entry::Vacant(slot) => {
                    slot.insert(by_name);
                }
                Entry::Occupied(mut slot) => {
                    let known = slot.get_mut();
                    for (name, ids) in by_name {
                        known.entry(name).or_default().extend(ids);
                    }
                }
            }
        }
    }

    /// Add a Rust impl method once its key is known (phase two), or a definition nested in one.
    pub fn add_impl_method(&mut self, fi: u32, di: u32, key: String, owner: SymId) -> SymId {
        let def = &self.files[fi as usize].facts.defs[di as usize];
        let id = self.syms.len() as SymId;
        let name = def.name.clone();
        let kind = SymKind::Def(def.kind);
        self.syms.push(Sym {
            key,
            name: name.clone(),
            kind,
            file: fi,
            def: Some(di),
            parent: Some(owner),
            dead: false,
        });
        self.children.entry(owner).or_default().entry(name).or_default().push(id);
        self.def_sym[fi as usize][di as usize] = Some(id);
        id
    }

    /// Whether [`Table::replace_defs`] may put `new`'s definitions in place of file `fi`'s and leave the
    /// table a fresh build would make: no definition (old or new) is an impl method or a module, none
    /// of the old ones takes part in a duplicate key or owns a symbol of another file, and each new one
    /// is alone under its key. Call before swapping in the file's new facts.
    pub fn can_replace_defs(&self, fi: usize, new: &FileFacts) -> bool {
        let blocks =
            |defs: &[drsg_parsers::Def]| defs.iter().any(|d| d.impl_block.is_some() || d.kind == DefKind::Module);
        if blocks(&self.files[fi].facts.defs) || blocks(&new.defs) {
            return false;
        }
        let old: foldhash::HashSet<SymId> = self.def_sym[fi].iter().flatten().copied().collect();
        if old.iter().any(|&id| self.grouped(&self.syms[id as usize].key)) {
            return false;
        }
        let owns_other =
            |id: &SymId| self.children.get(id).is_some_and(|m| m.values().flatten().any(|c| !old.contains(c)));
        if old.iter().any(owns_other) {
            return false;
        }
        let module = self.file_module[fi];
        let module_key = &self.syms[module as usize].key;
        if self.grouped(module_key) {
            return false;
        }
        let sep = separator(self.files[fi].lang.family());
        let mut keys: Vec<String> = Vec::with_capacity(new.defs.len());
        let mut seen = foldhash::HashSet::default();
        for def in &new.defs {
            let parent_key = match def.parent {
                Some(p) => keys.get(p as usize).cloned().unwrap_or_default(),
                None => {
                    if self.members(module, &def.name).iter().any(|m| !old.contains(m)) {
                        return false;
                    }
                    module_key.clone()
                }
            };
            let key = format!("{parent_key}{sep}{}", def.name);
            if parent_key.is_empty()
                || !seen.insert(key.clone())
                || self.module_by_key.contains_key(&key)
                || self.duplicated.contains(&key)
            {
                return false;
            }
            keys.push(key);
        }
        true
    }

    /// Puts the definitions of file `fi` (whose new facts were swapped in after
    /// [`Table::can_replace_defs`] said yes) in place of the old ones: those are marked dead, the new
    /// ones appended.
    pub fn replace_defs(&mut self, fi: usize) {
        let old: Vec<SymId> = self.def_sym[fi].iter().flatten().copied().collect();
        for &id in &old {
            self.syms[id as usize].dead = true;
            self.children.remove(&id);
            let sym = &self.syms[id as usize];
            if let Some(members) = sym.parent.and_then(|p| self.children.get_mut(&p))
                && let Some(list) = members.get_mut(&sym.name)
            {
                list.retain(|&c| c != id);
                if list.is_empty() {
                    members.remove(&sym.name);
                }
            }
        }
        self.dead += old.len();
        let module_key = self.syms[self.file_module[fi] as usize].key.clone();
        let mut keys = PlannedFile::of(&self.files[fi], module_key).keys;
        let first = self.syms.len() as SymId;
        self.def_sym[fi] = self.number_defs(fi, &mut keys, first);
        let (syms, members) = self.def_syms(fi, keys);
        self.syms.extend(syms);
        self.add_members(members);
    }

    /// Whether `key` is one of several symbols' keys (numbered or not).
    fn grouped(&self, key: &str) -> bool {
        self.duplicated.contains(key)
            || key.rsplit_once('#').is_some_and(|(base, n)| n.parse::<u32>().is_ok() && self.duplicated.contains(base))
    }

    /// Symbols that are not dead.
    pub fn live(&self) -> usize {
        self.syms.len() - self.dead
    }

    pub fn members(&self, id: SymId, name: &str) -> &[SymId] {
        self.children.get(&id).and_then(|m| m.get(name)).map(Vec::as_slice).unwrap_or(&[])
    }

    pub fn def_of(&self, id: SymId) -> Option<&drsg_parsers::Def> {
        let sym = &self.syms[id as usize];
        sym.def.map(|d| &self.files[sym.file as usize].facts.defs[d as usize])
    }

    /// The symbol of a def index in a file.
    pub fn sym_of_def(&self, fi: u32, di: u32) -> Option<SymId> {
        self.def_sym[fi as usize].get(di as usize).copied().flatten()
    }

    /// The module keyed `key` (as keyed before [`Table::dedupe_keys`]) nearest to file `fi`: of several
    /// copies, the one whose file shares the most leading directories with it (the first on a tie).
    pub fn module_near(&self, key: &str, fi: u32) -> Option<SymId> {
        let first = *self.module_by_key.get(key)?;
        let Some(copies) = self.module_copies.get(key) else { return Some(first) };
        let from = &self.files[fi as usize].path;
        let shared = |id: SymId| {
            let path = &self.files[self.syms[id as usize].file as usize].path;
            from.split('/').zip(path.split('/')).take_while(|(a, b)| a == b).count()
        };
        let mut best = (first, shared(first));
        for &id in copies {
            let n = shared(id);
            if n > best.1 {
                best = (id, n);
            }
        }
        Some(best.0)
    }

    /// Make keys unique: later duplicates (by file, then line) get `#2`, `#3`, …; a module comes before
    /// the values that share its key (`mod search;` beside `fn search`), since its items are keyed below it.
    pub fn dedupe_keys(&mut self) {
        // Duplicates are rare: find them by hashing, then order only them.
        let mut first: HashMap<&str, SymId> = HashMap::with_capacity(self.syms.len());
        let mut repeated: HashMap<&str, Vec<SymId>> = HashMap::new();
        for (id, sym) in self.syms.iter().enumerate() {
            match first.entry(sym.key.as_str()) {
                Entry::Vacant(slot) => {
                    slot.insert(id as SymId);
                }
                Entry::Occupied(seen) => {
                    repeated.entry(seen.key()).or_insert_with(|| vec![*seen.get()]).push(id as SymId);
                }
            }
        }
        let mut groups: Vec<Vec<SymId>> = Vec::with_capacity(repeated.len());
        for (key, ids) in repeated {
            self.duplicated.insert(key.to_owned());
            groups.push(ids);
        }
        let line = |t: &Table, id: SymId| t.def_of(id).map(|d| d.line).unwrap_or(0);
        for group in &mut groups {
            group.sort_by(|&a, &b| {
                let (sa, sb) = (&self.syms[a as usize], &self.syms[b as usize]);
                let (fa, fb) = (&self.files[sa.file as usize].path, &self.files[sb.file as usize].path);
                (!sa.kind.is_namespace())
                    .cmp(&!sb.kind.is_namespace())
                    .then_with(|| source_rank(fa).cmp(&source_rank(fb)))
                    .then_with(|| fa.cmp(fb))
                    .then_with(|| line(self, a).cmp(&line(self, b)))
            });
        }
        for group in groups {
            for (run, &id) in group.iter().enumerate().skip(1) {
                let key = format!("{}#{}", self.syms[id as usize].key, run + 1);
                self.syms[id as usize].key = key;
            }
        }
    }
}
