//! Scope: a name looked up from where it is written (the enclosing functions' locals and nested items,
//! the enclosing namespace, then the language's builtins), and what `crate`, `self`, `super` and `Self`
//! mean there.

use drsg_parsers::{DefKind, Family};

use super::{Found, Miss, Reason, Res, Resolver, Strategy, Target, Why, miss};
use crate::builtins;
use crate::table::SymId;

impl Resolver<'_> {
    /// Look a name up as [`Self::lookup`] does, past the functions' locals: the head of a Rust path
    /// (`task::spawn`, a `use`) and a macro's name never name a local value.
    pub(super) fn lookup_item(&self, fi: u32, scope: Option<u32>, name: &str, line: u32) -> Res<(Target, Strategy)> {
        match self.lookup(fi, scope, name, line, false)? {
            Found::Target(target, by) => Ok((target, by)),
            Found::Local(_) => unreachable!("a lookup past the locals finds no local"),
        }
    }

    /// Look a bare name up from a scope: enclosing functions (their locals when `locals`), the namespace,
    /// then the language's builtins.
    pub(super) fn lookup(&self, fi: u32, scope: Option<u32>, name: &str, line: u32, locals: bool) -> Res<Found> {
        let file = &self.t.files[fi as usize];
        let family = file.lang.family();
        let ix = &self.index[fi as usize];
        let mut cur = scope;
        let mut steps = 0;
        while let Some(di) = cur {
            steps += 1;
            if steps > 256 {
                break;
            }
            let def = &file.facts.defs[di as usize];
            match def.kind {
                DefKind::Function | DefKind::Method => {
                    if let Some(list) = locals.then(|| ix.bindings.get(&(Some(di), name.to_owned()))).flatten() {
                        // The binding whose line is the latest at or before the use (the last of a line's), which
                        // is not always the last in source order (see `Binding::line`); parameters sit on the
                        // function's line.
                        let line_of = |b: u32| file.facts.bindings[b as usize].line;
                        let best = list.iter().filter(|&&b| line_of(b) <= line).max_by_key(|&&b| (line_of(b), b));
                        if let Some(&b) = best {
                            return Ok(Found::Local(self.binding_type(fi, b)));
                        }
                        // A name a Python function binds anywhere is local to all of it (a use before the
                        // binding reads it from an earlier loop iteration, or fails): never an outer name.
                        if family == Family::Python {
                            return Ok(Found::Local(None));
                        }
                    }
                    if let Some(sym) = self.t.sym_of_def(fi, di)
                        && let Some(one) = self.pick(self.t.members(sym, name), name)?
                    {
                        return Ok(Found::Target(Target::Sym(one), Strategy::Scope));
                    }
                    if let Some(list) = ix.imports.get(&(Some(di), name.to_owned())) {
                        return self.resolve_import_list(fi, list).map(|t| Found::Target(t, Strategy::Import));
                    }
                }
                DefKind::Module => {
                    if let Some(found) = locals.then(|| self.block_local(fi, Some(di), name, line)).flatten() {
                        return Ok(found);
                    }
                    if let Some(sym) = self.t.sym_of_def(fi, di) {
                        match self.namespace_member(sym, name, true, 0) {
                            Ok((t, by)) => return Ok(Found::Target(t, by)),
                            Err(m) if !m.is_not_found() => return Err(m),
                            Err(_) => {}
                        }
                    }
                    if family == Family::Rust {
                        // A Rust module is a closed namespace: outer items need `super::`.
                        return self.builtin_or_miss(fi, name);
                    }
                }
                // A callback passed in a constant's value or a class body (`const S = make((inst) => …)`).
                _ => {
                    if let Some(found) = locals.then(|| self.block_local(fi, Some(di), name, line)).flatten() {
                        return Ok(found);
                    }
                }
            }
            cur = def.parent;
        }
        if let Some(found) = locals.then(|| self.block_local(fi, None, name, line)).flatten() {
            return Ok(found);
        }
        let module = self.t.file_module[fi as usize];
        match self.namespace_member(module, name, true, 0) {
            Ok((t, by)) => Ok(Found::Target(t, by)),
            Err(m) if !m.is_not_found() => Err(m),
            Err(_) => self.builtin_or_miss(fi, name),
        }
    }

    /// A binding of a block outside any function, in the same block as the use at `line` (a macro
    /// invocation's arguments, `rgtest!(name, |dir: Dir| { dir.create(…) })`, or a function passed as an
    /// argument, `make((inst) => inst.check())`), in namespace `scope`.
    fn block_local(&self, fi: u32, scope: Option<u32>, name: &str, line: u32) -> Option<Found> {
        let file = &self.t.files[fi as usize];
        let &(first, _) = file.facts.local_blocks.iter().find(|&&(first, last)| first <= line && line <= last)?;
        let list = self.index[fi as usize].bindings.get(&(scope, name.to_owned()))?;
        let line_of = |b: u32| file.facts.bindings[b as usize].line;
        let best = list.iter().filter(|&&b| (first..=line).contains(&line_of(b))).max_by_key(|&&b| (line_of(b), b))?;
        Some(Found::Local(self.binding_type(fi, *best)))
    }

    fn builtin_or_miss(&self, fi: u32, name: &str) -> Res<Found> {
        let family = self.family(fi);
        if family == Family::Rust {
            if let Some(&root) = self.crates.get(name) {
                return Ok(Found::Target(Target::Sym(root), Strategy::Path));
            }
            if builtins::is_rust_std_crate(name) {
                return Ok(Found::Target(Target::External(name.to_owned()), Strategy::Path));
            }
        }
        if builtins::is_builtin(family, name) {
            return Ok(Found::Target(Target::External(name.to_owned()), Strategy::Scope));
        }
        miss(Reason::NotInScope { name: name.to_owned() })
    }

    pub(super) fn rust_special_head(&self, fi: u32, scope: Option<u32>, head: &str) -> Res<Target> {
        match head {
            "crate" => {
                let Some(crate_name) = self.crate_of(fi) else {
                    return miss(Reason::CrateOutsideTarget);
                };
                match self.t.module_by_key.get(crate_name) {
                    Some(&id) => Ok(Target::Sym(id)),
                    None => miss(Reason::CrateRootMissing { name: crate_name.to_string() }),
                }
            }
            "self" => Ok(Target::Sym(self.current_namespace(fi, scope))),
            "super" => {
                let ns = self.current_namespace(fi, scope);
                match self.t.syms[ns as usize].parent {
                    Some(p) => Ok(Target::Sym(p)),
                    None => miss(Reason::SuperOfRoot),
                }
            }
            _ => self.enclosing_type(fi, scope).ok_or(Miss(Why::Said(Reason::SelfTypeOutside))),
        }
    }

    /// The innermost module around a scope: an inline `mod` or the file's module.
    fn current_namespace(&self, fi: u32, scope: Option<u32>) -> SymId {
        let file = &self.t.files[fi as usize];
        let mut cur = scope;
        while let Some(di) = cur {
            let def = &file.facts.defs[di as usize];
            if def.kind == DefKind::Module
                && let Some(id) = self.t.sym_of_def(fi, di)
            {
                return id;
            }
            cur = def.parent;
        }
        self.t.file_module[fi as usize]
    }

    /// The self type of the Rust impl block around a scope, as written.
    pub(super) fn enclosing_impl(&self, fi: u32, scope: Option<u32>) -> Option<&[String]> {
        let defs = &self.t.files[fi as usize].facts.defs;
        let mut cur = scope;
        while let Some(di) = cur {
            let def = &defs[di as usize];
            if let Some(block) = &def.impl_block {
                return Some(&block.self_ty);
            }
            cur = def.parent;
        }
        None
    }

    /// The type `self`/`this`/`Self` means in a scope.
    pub fn enclosing_type(&self, fi: u32, scope: Option<u32>) -> Option<Target> {
        let file = &self.t.files[fi as usize];
        let mut cur = scope;
        while let Some(di) = cur {
            let def = &file.facts.defs[di as usize];
            if def.impl_block.is_some() {
                return self.impl_self.get(&(fi, di)).cloned();
            }
            if def.kind.is_type() {
                return self.t.sym_of_def(fi, di).map(Target::Sym);
            }
            cur = def.parent;
        }
        None
    }
}
