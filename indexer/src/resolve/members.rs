//! Members: a path walked member by member, through a namespace's items and imports (re-exports seen
//! from outside), a type's methods and nested items, then its parents'; a tie is a miss, never a guess.
//!
//! `pick` breaks three kinds of tie: a Python name with `typing.overload` stubs (`Def::overload`) means
//! its implementation, a TypeScript interface and value of one name mean the interface in an annotation
//! (`Want::Type`) and the value elsewhere, and a Rust call means the function beside a module. A Rust
//! glob of an enclosing module (`use super::*`) takes its private items and imports too; a path whose
//! unknown head is no dependency in the package's manifest is unresolved, not an extern crate's
//! `External` stand-in. A glob of an external module (`use diesel::prelude::*`) is the last resort:
//! never for a crate of the tree, a dependency, a standard crate or a builtin (`glob_may_hold`).

use drsg_parsers::{DefKind, Family};

use super::{MAX_DEPTH, Miss, Reason, Res, Resolver, Strategy, Target, Why, miss};
use crate::table::{SymId, SymKind, separator};

impl Resolver<'_> {
    pub(super) fn is_namespace_or_type(&self, target: &Target) -> bool {
        match target {
            Target::Sym(id) => {
                let kind = self.t.syms[*id as usize].kind;
                kind.is_namespace() || kind.is_type()
            }
            Target::External(_) => true,
        }
    }

    /// Walk `rest` member by member from `start`.
    /// Intermediate segments may be fields (`self.table.files.iter()`): a field with a declared type continues
    /// from that type; the last segment is always a member.
    pub(super) fn walk_members(&self, start: Target, rest: &[String]) -> Res<Target> {
        let mut current = start;
        for (i, seg) in rest.iter().enumerate() {
            let last = i + 1 == rest.len();
            if !last && let Some(field_ty) = self.field_type(&current, seg) {
                current = field_ty;
                continue;
            }
            let step =
                if last { self.member(&current, seg, 0) } else { self.as_namespace(|| self.member(&current, seg, 0)) };
            current = match step {
                Ok(t) => t,
                Err(_) if !last && matches!(&current, Target::Sym(id) if self.t.syms[*id as usize].kind.is_type()) => {
                    return miss(Reason::FieldUntyped { field: seg.to_string(), owner: self.describe(&current) });
                }
                Err(m) => return Err(m),
            };
        }
        Ok(current)
    }

    /// A member of a module or inline module, seen from inside (all imports) or outside (re-exports only).
    /// Errors starting with "not found" mean absent (the caller may look further).
    pub(super) fn namespace_member(
        &self,
        ns: SymId,
        name: &str,
        inside: bool,
        depth: usize,
    ) -> Res<(Target, Strategy)> {
        self.nested(|| self.namespace_member_inner(ns, name, inside, depth))
    }

    fn namespace_member_inner(&self, ns: SymId, name: &str, inside: bool, depth: usize) -> Res<(Target, Strategy)> {
        if depth > MAX_DEPTH {
            return miss(Reason::MemberReexportTooDeep);
        }
        let sym = &self.t.syms[ns as usize];
        let fi = sym.file;
        let family = self.family(fi);
        let scope = sym.def; // None: the file module; Some: an inline module
        if family == Family::Js && !inside && sym.kind == SymKind::Module {
            return self.js_export(fi, name, depth).map(|t| (t, Strategy::Import));
        }
        let mut children = self.t.members(ns, name);
        let values: Vec<SymId>;
        if self.wants_value(name) {
            values = children.iter().copied().filter(|&c| !self.t.syms[c as usize].kind.is_namespace()).collect();
            children = &values;
        }
        match self.pick(children, name) {
            Ok(Some(id)) => return Ok((Target::Sym(id), Strategy::Scope)),
            Ok(None) => {}
            Err(m) => return Err(m),
        }
        let ix = &self.index[fi as usize];
        let file = &self.t.files[fi as usize];
        if let Some(list) = ix.imports.get(&(scope, name.to_owned())) {
            let visible: Vec<u32> = list
                .iter()
                .copied()
                .filter(|&i| inside || family == Family::Python || file.facts.imports[i as usize].reexport)
                .collect();
            if !visible.is_empty() {
                return self.resolve_import_list(fi, &visible).map(|t| (t, Strategy::Import));
            }
        }
        if let Some(globs) = ix.globs.get(&scope) {
            let mut found = Vec::new();
            let mut external_globs = Vec::new();
            for &g in globs {
                let imp = &file.facts.imports[g as usize];
                if !(inside || family == Family::Python || imp.reexport) {
                    continue;
                }
                match self.resolve_import(fi, g) {
                    Ok(Target::Sym(module)) => {
                        // `use super::*` (a glob of an enclosing module) also takes that module's private
                        // items and imports, which its descendants may name; any other glob, what it exports.
                        let seen = if family == Family::Rust && module != ns && self.encloses(module, ns) {
                            self.namespace_member(module, name, true, depth + 1)
                        } else {
                            self.member_of(module, name, depth + 1)
                        };
                        if let Ok((t, _)) = seen
                            && !found.contains(&t)
                        {
                            found.push(t);
                        }
                    }
                    Ok(Target::External(path)) => external_globs.push(path),
                    Err(_) => {}
                }
            }
            match found.len() {
                1 => return Ok((found.remove(0), Strategy::Import)),
                0 => {}
                n => return miss(Reason::GlobImports { name: name.to_string(), imports: n }),
            }
            if let [only] = external_globs.as_slice()
                && self.glob_may_hold(fi, name)
            {
                return Ok((Target::External(format!("{only}{}{name}", separator(family))), Strategy::Import));
            }
        }
        Err(Miss(Why::NotIn(name.into(), ns)))
    }

    /// Whether a glob of an external module (`use diesel::prelude::*;`) may be what gives file `fi` the
    /// name: it is the last resort, never a crate of the tree or a dependency, a standard crate or a
    /// builtin (`Ok`, `format!`, `len`), which are known without it.
    fn glob_may_hold(&self, fi: u32, name: &str) -> bool {
        let family = self.family(fi);
        if crate::builtins::is_builtin(family, name) || crate::builtins::is_builtin(family, &format!("{name}!")) {
            return false;
        }
        if family != Family::Rust {
            return true;
        }
        let path = &self.t.files[fi as usize].path;
        !(self.crates.contains_key(name)
            || crate::builtins::is_rust_std_crate(name)
            || self.t.layout.cargo_package(path).is_some_and(|p| p.depends_on(name)))
    }

    /// Whether namespace `outer` is `inner` or one of the modules around it.
    fn encloses(&self, outer: SymId, inner: SymId) -> bool {
        let mut current = Some(inner);
        // Module parents form a tree; the bound only guards against a malformed table.
        for _ in 0..64 {
            match current {
                Some(id) if id == outer => return true,
                Some(id) => current = self.t.syms[id as usize].parent,
                None => return false,
            }
        }
        false
    }

    /// A namespace's or type's member, seen from outside.
    fn member_of(&self, id: SymId, name: &str, depth: usize) -> Res<(Target, Strategy)> {
        let kind = self.t.syms[id as usize].kind;
        if kind.is_namespace() {
            self.namespace_member(id, name, false, depth)
        } else {
            self.type_member(id, name, depth).map(|t| (t, Strategy::Path))
        }
    }

    /// The one method `name` of the object literal a TypeScript or JavaScript variable `id` holds.
    fn object_method(&self, id: SymId, name: &str) -> Option<SymId> {
        let sym = &self.t.syms[id as usize];
        if self.family(sym.file) != Family::Js {
            return None;
        }
        let mut live = self.t.children.get(&id)?.get(name)?.iter().copied().filter(|&c| {
            let c = &self.t.syms[c as usize];
            !c.dead && c.kind == SymKind::Def(DefKind::Method)
        });
        match (live.next(), live.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }

    /// One step along a path: `target.name`.
    pub(super) fn member(&self, target: &Target, name: &str, depth: usize) -> Res<Target> {
        match target {
            Target::External(path) => {
                let sep = separator(self.family.get());
                Ok(Target::External(format!("{path}{sep}{name}")))
            }
            Target::Sym(id) if !self.is_namespace_or_type(target) => match self.variable_type(*id) {
                // `app.route` on `app = Flask(__name__)` of another module: a member of its type.
                Some(ty) if self.is_namespace_or_type(&ty) => self.member(&ty, name, depth + 1),
                // `Tags.getAll()` on `const Tags = { getAll: () => … }`: the object literal's own method.
                None if let Some(method) = self.object_method(*id, name) => Ok(Target::Sym(method)),
                // `connection.cursor()` on a variable whose type nothing declares.
                _ => Err(Miss(Why::Untyped(*id))),
            },
            Target::Sym(id) => match self.member_of(*id, name, depth) {
                Ok((t, _)) => Ok(t),
                Err(absent) if absent.is_not_found() => Err(Miss(Why::NotFound(name.into(), *id))),
                Err(m) => Err(m),
            },
        }
    }

    /// A method or nested item of a type, then of its parents (`extends`, trait impls).
    fn type_member(&self, ty: SymId, name: &str, depth: usize) -> Res<Target> {
        self.nested(|| self.type_member_inner(ty, name, depth))
    }

    fn type_member_inner(&self, ty: SymId, name: &str, depth: usize) -> Res<Target> {
        if depth > MAX_DEPTH {
            return miss(Reason::InheritanceTooDeep);
        }
        if let Some(id) = self.pick(self.t.members(ty, name), name)? {
            return Ok(Target::Sym(id));
        }
        let sym = &self.t.syms[ty as usize];
        if sym.kind == SymKind::Def(DefKind::Enum)
            && self.family(sym.file) == Family::Rust
            && name.starts_with(|c: char| c.is_ascii_uppercase())
        {
            // `Error::Io(e)`: a variant constructs its enum; the traits it implements (`impl Clone for
            // Error`) hold no variants.
            return Ok(Target::Sym(ty));
        }
        // Python: several bases are searched in method resolution order, while every class before the one
        // defining the member is of the tree (an outside class may define it too).
        let parents = self.supers.get(&ty).map(Vec::as_slice).unwrap_or(&[]);
        if parents.len() > 1 && self.family(sym.file) == Family::Python {
            for class in self.mro(ty, depth).unwrap_or_default() {
                let Target::Sym(c) = class else { break };
                if let Some(id) = self.pick(self.t.members(c, name), name)? {
                    return Ok(Target::Sym(id));
                }
            }
        }
        let mut found: Vec<Target> = Vec::new();
        let mut external: Option<Target> = None;
        for parent in parents {
            match parent {
                Target::Sym(p) if *p != ty => {
                    if let Ok(t) = self.type_member(*p, name, depth + 1)
                        && !found.contains(&t)
                    {
                        found.push(t);
                    }
                }
                Target::Sym(_) => {}
                Target::External(_) => {
                    if external.is_none() {
                        external = Some(self.member(parent, name, depth + 1)?);
                    }
                }
            }
        }
        match found.len() {
            1 => return Ok(found.remove(0)),
            0 => {}
            n => {
                return miss(Reason::InheritedFromMany {
                    name: name.to_string(),
                    parents: n,
                    ty: self.sym_key(ty).to_owned(),
                });
            }
        }
        if let Some(ext) = external {
            return Ok(ext);
        }
        let family = self.family(self.t.syms[ty as usize].file);
        if family == Family::Rust && is_derivable_method(name) {
            // Derived or blanket trait methods (`clone`, `to_string`) come from std.
            return Ok(Target::External(format!("{}::{name}", self.sym_key(ty))));
        }
        Err(Miss(Why::NotOn(name.into(), ty)))
    }

    /// The classes after `ty` in its C3 linearization (Python's method resolution order), external bases
    /// as themselves; `None` when the bases admit no order or nest too deep.
    fn mro(&self, ty: SymId, depth: usize) -> Option<Vec<Target>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let parents: Vec<Target> =
            self.supers.get(&ty).into_iter().flatten().filter(|p| **p != Target::Sym(ty)).cloned().collect();
        let mut lists: Vec<Vec<Target>> = Vec::with_capacity(parents.len() + 1);
        for p in &parents {
            let mut list = vec![p.clone()];
            if let Target::Sym(id) = p {
                list.extend(self.mro(*id, depth + 1)?);
            }
            lists.push(list);
        }
        lists.push(parents);
        let mut out = Vec::new();
        loop {
            lists.retain(|l| !l.is_empty());
            if lists.is_empty() {
                return Some(out);
            }
            // The first head that is in no list's tail.
            let head = lists.iter().map(|l| &l[0]).find(|h| !lists.iter().any(|l| l[1..].contains(h)))?.clone();
            for list in &mut lists {
                if list[0] == head {
                    list.remove(0);
                }
            }
            out.push(head);
        }
    }

    /// One symbol among several of the same name: a tie is a miss, never a guess.
    pub(super) fn pick(&self, ids: &[SymId], name: &str) -> Res<Option<SymId>> {
        match ids {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            many => {
                // TypeScript overload signatures: same kind, same file; the one with a body spans most lines.
                let first = &self.t.syms[many[0] as usize];
                let same = many.iter().all(|&i| {
                    let s = &self.t.syms[i as usize];
                    s.kind == first.kind && s.file == first.file
                });
                if same && self.family(first.file) == Family::Js && first.kind == SymKind::Def(DefKind::Function) {
                    let best = many
                        .iter()
                        .copied()
                        .max_by_key(|&i| self.t.def_of(i).map(|d| d.end_line - d.line).unwrap_or(0));
                    return Ok(best);
                }
                // TypeScript's merged declarations (`$constructor` the interface and `$constructor` the
                // function): an annotation means the interface or type alias; anything else, a call or a
                // step of an expression path (`schemas.ZodType.init`), the value.
                if self.family(first.file) == Family::Js {
                    let type_only = |i: SymId| {
                        matches!(self.t.syms[i as usize].kind, SymKind::Def(DefKind::Interface | DefKind::TypeAlias))
                    };
                    let wants_type = self.wants_type(name);
                    let meant: Vec<SymId> = many.iter().copied().filter(|&i| type_only(i) == wants_type).collect();
                    if let [one] = meant.as_slice() {
                        return Ok(Some(*one));
                    }
                }
                // Python's `typing.overload` stubs beside their implementation: the one not so decorated.
                if self.family(first.file) == Family::Python {
                    let mut run = many.iter().copied().filter(|&i| !self.t.def_of(i).is_some_and(|d| d.overload));
                    if let (Some(implementation), None) = (run.next(), run.next()) {
                        return Ok(Some(implementation));
                    }
                }
                // Rust keeps modules apart from values and types: `mod search;` beside `fn search` is one
                // module and one function. A path's head means the module; the value pass of a call
                // (`wants_value`) the function.
                if self.family(first.file) == Family::Rust {
                    let is_namespace = |i: SymId| self.t.syms[i as usize].kind.is_namespace();
                    let (modules, values): (Vec<SymId>, Vec<SymId>) = many.iter().partition(|&&i| is_namespace(i));
                    if let ([module], [value]) = (modules.as_slice(), values.as_slice()) {
                        return Ok(Some(if self.wants_value(name) { *value } else { *module }));
                    }
                }
                miss(Reason::DefinedTimes { name: name.to_string(), times: many.len() })
            }
        }
    }
}

fn is_derivable_method(name: &str) -> bool {
    matches!(
        name,
        "clone"
            | "clone_from"
            | "eq"
            | "ne"
            | "cmp"
            | "partial_cmp"
            | "lt"
            | "le"
            | "gt"
            | "ge"
            | "hash"
            | "fmt"
            | "default"
            | "to_string"
            | "to_owned"
            | "into"
            | "try_into"
            | "from"
            | "try_from"
            | "as_ref"
            | "as_mut"
            | "borrow"
            | "borrow_mut"
            | "deref"
            | "deref_mut"
            | "drop"
            | "max"
            | "min"
    )
}
