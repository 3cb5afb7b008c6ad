//! Imports: what a `use`, `import` or `require` binds, per language, and what a JS/TS module exports.
//!
//! Rust paths start at `crate`/`self`/`super`, a name in scope, or an extern crate; Python follows its
//! import rule (relative imports climb packages; `import a.b` binds `a`); JS/TS resolves relative
//! specifiers to files (extensions and `/index` tried), then tsconfig `paths`/`baseUrl`, then the
//! tree's own packages, and anything else is an external package.

use drsg_parsers::Family;

use super::{MAX_DEPTH, Miss, Reason, Res, Resolver, Target, Why, miss};
use crate::layout::{self, join_normalized, parent_dir};
use crate::table::SymId;

impl Resolver<'_> {
    pub(super) fn resolve_import_list(&self, fi: u32, list: &[u32]) -> Res<Target> {
        // Several imports binding the same alias (conditional imports): all must agree.
        let mut result: Option<Target> = None;
        for &i in list {
            let t = self.resolve_import(fi, i)?;
            match &result {
                Some(prev) if *prev != t => return miss(Reason::ImportedTwice),
                _ => result = Some(t),
            }
        }
        result.ok_or(Miss(Why::Said(Reason::EmptyImport)))
    }

    /// What an import binds (a module for globs and namespace imports). Memoised; cycles are misses.
    pub(super) fn resolve_import(&self, fi: u32, ii: u32) -> Res<Target> {
        // A lookup wanting a value or a type (see `resolve_ref`) may bind an import differently, so it
        // neither reads nor fills the memo (the nesting bound still stops cycles).
        let wanted = self.wanted.borrow().clone();
        if let Some((name, want)) = wanted {
            // Through an alias (`from pkg import f as g`, `use m::f as g`) the value is the imported name.
            let imp = &self.t.files[fi as usize].facts.imports[ii as usize];
            if imp.alias == name {
                let imported = match &imp.name {
                    Some(name) => name.as_str(),
                    None => imp.source.rsplit(['.', ':']).next().unwrap_or(&imp.source),
                };
                *self.wanted.borrow_mut() = Some((imported.to_owned(), want));
            }
            self.family.set(self.family(fi));
            let result = self.nested(|| self.resolve_import_uncached(fi, ii));
            *self.wanted.borrow_mut() = Some((name, want));
            return result;
        }
        let memo_key = (fi, ii);
        if let Some(entry) = self.import_memo.borrow().get(&memo_key) {
            return match entry {
                Some(result) => result.clone(),
                None => miss(Reason::ImportCycle),
            };
        }
        self.import_memo.borrow_mut().insert(memo_key, None);
        self.family.set(self.family(fi));
        let result = self.nested(|| self.resolve_import_uncached(fi, ii));
        if matches!(&result, Err(missed) if missed.said() == Some(&Reason::ChainTooDeep)) {
            // Not a property of the import: a shallower lookup may still succeed.
            self.import_memo.borrow_mut().remove(&memo_key);
        } else {
            self.import_memo.borrow_mut().insert(memo_key, Some(result.clone()));
        }
        result
    }

    fn resolve_import_uncached(&self, fi: u32, ii: u32) -> Res<Target> {
        match self.family(fi) {
            Family::Rust => self.resolve_rust_import(fi, ii),
            Family::Js => self.resolve_js_import(fi, ii),
            Family::Python => self.resolve_py_import(fi, ii),
        }
    }

    fn resolve_rust_import(&self, fi: u32, ii: u32) -> Res<Target> {
        let imp = &self.t.files[fi as usize].facts.imports[ii as usize];
        let mut path: Vec<String> = imp.source.split("::").filter(|s| !s.is_empty()).map(str::to_owned).collect();
        if let Some(name) = &imp.name {
            path.push(name.clone());
        }
        let Some(head) = path.first() else { return miss(Reason::EmptyUse) };
        let start = match head.as_str() {
            "crate" | "self" | "super" => self.rust_special_head(fi, imp.scope, head)?,
            "std" | "core" | "alloc" => Target::External(head.clone()),
            // A `use` path never starts at a local, whatever locals share its head's name.
            _ if path.len() > 1 => match self.as_namespace(|| self.lookup_item(fi, imp.scope, head, u32::MAX)) {
                Ok((t, _)) => t,
                Err(_) => self.extern_crate(fi, head)?,
            },
            _ => match self.lookup_item(fi, imp.scope, head, u32::MAX) {
                Ok((t, _)) => t,
                Err(_) => self.extern_crate(fi, head)?,
            },
        };
        self.walk_members(start, &path[1..])
    }

    /// 2018 paths: an unknown head is an extern crate, when the package's manifest depends on one of that
    /// name (or no manifest is known, or it is a crate of the toolchain).
    fn extern_crate(&self, fi: u32, head: &str) -> Res<Target> {
        let package = self.t.layout.cargo_package(&self.t.files[fi as usize].path);
        match package {
            Some(p) if p.unread.is_some() && !matches!(head, "proc_macro" | "test") => {
                miss(Reason::ManifestUnread { name: head.to_owned(), package: p.crate_name.clone() })
            }
            Some(p) if !p.depends_on(head) && !matches!(head, "proc_macro" | "test") => {
                miss(Reason::NoDependency { name: head.to_owned(), package: p.crate_name.clone() })
            }
            _ => Ok(Target::External(head.to_owned())),
        }
    }

    fn resolve_py_import(&self, fi: u32, ii: u32) -> Res<Target> {
        let file = &self.t.files[fi as usize];
        let imp = &file.facts.imports[ii as usize];
        let source = imp.source.as_str();
        let dots = source.chars().take_while(|&c| c == '.').count();
        let rest = &source[dots..];
        let module_key: String = if dots > 0 {
            let own = &self.t.syms[self.t.file_module[fi as usize] as usize].key;
            let is_package = file.path.ends_with("__init__.py") || file.path.ends_with("__init__.pyi");
            // As keyed before copies were numbered: the copy is picked by nearness below.
            let mut base: Vec<&str> = own.split('.').map(undeduped).collect();
            if !is_package {
                base.pop();
            }
            for _ in 1..dots {
                if base.pop().is_none() {
                    return miss(Reason::ClimbsAbove { source: source.to_string() });
                }
            }
            base.extend(rest.split('.').filter(|s| !s.is_empty()));
            base.join(".")
        } else if imp.name.is_none() && !imp.glob && imp.alias == rest.split('.').next().unwrap_or("") {
            // `import a.b.c` binds `a`.
            rest.split('.').next().unwrap_or(rest).to_owned()
        } else {
            rest.to_owned()
        };
        let module = match self.t.module_near(&module_key, fi) {
            Some(id) => Target::Sym(id),
            None if dots > 0 => return miss(Reason::ModuleNotInTree { source: source.to_string() }),
            None => {
                // In the tree under another spelling (a submodule reached as an attribute)?
                let first = module_key.split('.').next().unwrap_or("");
                match self.t.module_by_key.get(first) {
                    Some(&id) => {
                        let segs: Vec<String> = module_key.split('.').skip(1).map(str::to_owned).collect();
                        self.walk_members(Target::Sym(id), &segs)?
                    }
                    None => Target::External(module_key.clone()),
                }
            }
        };
        match &imp.name {
            None => Ok(module),
            Some(name) => {
                // `from pkg import sub` binds the submodule unless the package defines `sub` itself; in
                // the value pass of a call it is looked up as a member, which finds what the package's
                // `__init__.py` imports under that name (`from .sub import sub`).
                if let Target::Sym(id) = module
                    && !self.wants_value(name)
                {
                    let key = format!("{}.{name}", undeduped(self.sym_key(id)));
                    if let Some(sub) = self.t.module_near(&key, fi)
                        && self.t.members(id, name).is_empty()
                    {
                        return Ok(Target::Sym(sub));
                    }
                }
                self.member(&module, name, 0)
            }
        }
    }

    fn resolve_js_import(&self, fi: u32, ii: u32) -> Res<Target> {
        let file = &self.t.files[fi as usize];
        let imp = &file.facts.imports[ii as usize];
        let module = self.js_module(fi, &imp.source)?;
        match (&imp.name, &module) {
            (None, _) => Ok(module),
            (Some(name), Target::External(path)) => Ok(Target::External(format!("{path}.{name}"))),
            (Some(name), Target::Sym(id)) => {
                let target_file = self.t.syms[*id as usize].file;
                self.js_export(target_file, name, 0)
            }
        }
    }

    /// The module an import specifier names: a file of the tree, or an external package.
    fn js_module(&self, fi: u32, source: &str) -> Res<Target> {
        let file = &self.t.files[fi as usize];
        let found = |stem: &str| -> Option<Target> {
            let stem = layout::strip_js_extension(stem);
            self.t
                .js_stems
                .get(stem)
                .or_else(|| self.t.js_stems.get(&format!("{stem}/index")))
                .map(|&f| Target::Sym(self.t.file_module[f as usize]))
        };
        if source.starts_with('.') || source.starts_with('/') {
            let joined = join_normalized(parent_dir(&file.path), source.trim_start_matches('/'));
            return match joined.as_deref().and_then(found) {
                Some(t) => Ok(t),
                None => miss(Reason::ModuleNotInTree { source: source.to_string() }),
            };
        }
        if let Some(config) = self.t.layout.tsconfig(&file.path) {
            for (pattern, targets) in &config.paths {
                let matched = match pattern.strip_suffix('*') {
                    Some(prefix) => source.strip_prefix(prefix),
                    None => (source == pattern).then_some(""),
                };
                if let Some(star) = matched {
                    for target in targets {
                        if let Some(t) = found(&target.replace('*', star)) {
                            return Ok(t);
                        }
                    }
                }
            }
            if let Some(base) = &config.base_url
                && let Some(t) = join_normalized(base, source).as_deref().and_then(found)
            {
                return Ok(t);
            }
        }
        // A package of the tree (workspaces).
        for package in &self.t.layout.npm {
            let rest = if source == package.name {
                Some("")
            } else {
                source.strip_prefix(&package.name).and_then(|r| r.strip_prefix('/'))
            };
            let Some(rest) = rest else { continue };
            let base =
                |rel: &str| if package.dir.is_empty() { rel.to_owned() } else { format!("{}/{rel}", package.dir) };
            // The subpath as `exports` maps it (`zod/v4` → `./v4`, `./locales/*` with its star).
            let subpath = if rest.is_empty() { ".".to_owned() } else { format!("./{rest}") };
            for (pattern, targets) in &package.subpaths {
                let star = match pattern.split_once('*') {
                    Some((before, after)) => {
                        subpath.strip_prefix(before).and_then(|r| r.strip_suffix(after)).filter(|r| !r.is_empty())
                    }
                    None => (*pattern == subpath).then_some(""),
                };
                let Some(star) = star else { continue };
                if let Some(t) = targets.iter().find_map(|target| found(&target.replace('*', star))) {
                    return Ok(t);
                }
            }
            if rest.is_empty() {
                for entry in &package.entries {
                    if let Some(t) = found(entry) {
                        return Ok(t);
                    }
                    // A compiled entry (`dist/index.js`) whose source lives in `src/`.
                    if let Some(t) = entry.split_once("/dist/").and_then(|(d, r)| found(&format!("{d}/src/{r}"))) {
                        return Ok(t);
                    }
                }
                for guess in ["index", "src/index"] {
                    if let Some(t) = found(&base(guess)) {
                        return Ok(t);
                    }
                }
            } else if let Some(t) = found(&base(rest)).or_else(|| found(&base(&format!("src/{rest}")))) {
                return Ok(t);
            }
            return miss(Reason::ModuleNotInPackage { source: source.to_string(), package: package.name.to_string() });
        }
        Ok(Target::External(source.to_owned()))
    }

    /// What a JS/TS module exports under `name` (`default` for the default export).
    pub(super) fn js_export(&self, fi: u32, name: &str, depth: usize) -> Res<Target> {
        if depth > MAX_DEPTH {
            return miss(Reason::ReexportTooDeep);
        }
        let file = &self.t.files[fi as usize];
        let ix = &self.index[fi as usize];
        let module = self.t.file_module[fi as usize];
        if let Some(list) = ix.exports.get(name) {
            let local = &file.facts.exports[list[0] as usize].local;
            return match self.namespace_member(module, local, true, depth + 1) {
                Ok((t, _)) => Ok(t),
                Err(absent) if absent.is_not_found() => miss(Reason::ExportedButMissing {
                    name: name.to_string(),
                    module: self.sym_key(module).to_owned(),
                    local: local.to_string(),
                }),
                Err(m) => Err(m),
            };
        }
        let exported: Vec<SymId> = self
            .t
            .members(module, name)
            .iter()
            .copied()
            .filter(|&id| self.t.def_of(id).is_some_and(|d| d.visibility == drsg_parsers::Visibility::Public))
            .collect();
        if let Some(id) = self.pick(&exported, name)? {
            return Ok(Target::Sym(id));
        }
        if let Some(list) = ix.imports.get(&(None, name.to_owned())) {
            let reexports: Vec<u32> =
                list.iter().copied().filter(|&i| file.facts.imports[i as usize].reexport).collect();
            if !reexports.is_empty() {
                return self.resolve_import_list(fi, &reexports);
            }
        }
        if let Some(globs) = ix.globs.get(&None) {
            let mut found = Vec::new();
            for &g in globs {
                if !file.facts.imports[g as usize].reexport {
                    continue;
                }
                match self.resolve_import(fi, g) {
                    Ok(Target::Sym(m)) => {
                        if let Ok(t) = self.js_export(self.t.syms[m as usize].file, name, depth + 1)
                            && !found.contains(&t)
                        {
                            found.push(t);
                        }
                    }
                    Ok(Target::External(_)) | Err(_) => {}
                }
            }
            if found.len() == 1 {
                return Ok(found.remove(0));
            }
        }
        miss(Reason::NotExported { name: name.to_string(), module: self.sym_key(module).to_owned() })
    }
}

/// A key segment without the `#N` that [`crate::table::Table::dedupe_keys`] gave a copy.
fn undeduped(key: &str) -> &str {
    match key.rsplit_once('#') {
        Some((head, n)) if !head.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => key,
    }
}
