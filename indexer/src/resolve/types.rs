//! Types: what a binding, a call's result or a field holds, from declared facts only (annotations,
//! constructor calls, recorded return types); and the self types, traits and parents of Rust impls and
//! classes, resolved before any reference.

use drsg_parsers::{Family, Inherit, TypeHint};

use super::{Miss, Res, Resolver, Shape, Target, Why};
use crate::table::{SymId, separator};

impl Resolver<'_> {
    pub(super) fn binding_type(&self, fi: u32, bi: u32) -> Option<Target> {
        self.nested(|| self.binding_type_inner(fi, bi).ok_or_else(|| Miss(Why::Text(String::new())))).ok()
    }

    fn binding_type_inner(&self, fi: u32, bi: u32) -> Option<Target> {
        let b = &self.t.files[fi as usize].facts.bindings[bi as usize];
        match b.hint.as_ref()? {
            // Names in a binding's own initialiser are looked up before it (`let x = x.y()` is not recursive).
            TypeHint::Annotated(path) | TypeHint::Constructed(path) => {
                self.resolve_type_path(fi, b.scope, path, b.line.saturating_sub(1))
            }
            TypeHint::CallResult(path) => self.call_result_type(fi, b.scope, path, b.line.saturating_sub(1)),
        }
    }

    /// A path naming a type: a type symbol or an external type.
    fn resolve_type_path(&self, fi: u32, scope: Option<u32>, path: &[String], line: u32) -> Option<Target> {
        let (target, _) = self.resolve_plain(fi, scope, path, line, Shape::Path).ok()?;
        match &target {
            Target::Sym(id) if self.t.syms[*id as usize].kind.is_type() => Some(target),
            Target::External(_) => Some(target),
            _ => None,
        }
    }

    /// The type of `callee(…)`: the class itself for a constructor call, else the callee's declared return type.
    pub(super) fn call_result_type(&self, fi: u32, scope: Option<u32>, callee: &[String], line: u32) -> Option<Target> {
        let family = self.family(fi);
        // `self.make().run()`: plugins write the inner callee as a path starting at the receiver.
        let on_self = callee.len() > 1 && matches!(callee[0].as_str(), "self" | "this" | "cls");
        let resolved = if on_self {
            self.resolve_on_self(fi, scope, &callee[1..])
        } else {
            self.resolve_plain(fi, scope, callee, line, Shape::Either)
        };
        let (target, _) = resolved.ok()?;
        match target {
            Target::Sym(id) => {
                let sym = &self.t.syms[id as usize];
                if sym.kind.is_type() {
                    return Some(Target::Sym(id));
                }
                self.return_type(id)
            }
            Target::External(path) => {
                // `Vec::new()`, `HashMap::with_capacity(…)`: by convention a constructor of its type; `a.clone()`
                // of a value of an external type: `Clone::clone` returns `Self`.
                let (ty, last) = path.rsplit_once(separator(family))?;
                (family == Family::Rust && matches!(last, "new" | "default" | "with_capacity" | "from" | "clone"))
                    .then(|| Target::External(ty.to_owned()))
            }
        }
    }

    fn return_type(&self, callee: SymId) -> Option<Target> {
        let sym = &self.t.syms[callee as usize];
        let def = self.t.def_of(callee)?;
        let returns = def.returns.as_ref()?;
        let di = sym.def?;
        if returns.len() == 1 && returns[0] == "Self" {
            return self.enclosing_type(sym.file, Some(di));
        }
        self.resolve_type_path(sym.file, def.parent, returns, def.line)
    }

    /// The declared type of a field of a type (struct field, class property, `self.x = …` in a method).
    pub(super) fn field_type(&self, ty: &Target, field: &str) -> Option<Target> {
        let Target::Sym(id) = ty else { return None };
        let sym = &self.t.syms[*id as usize];
        let di = sym.def?;
        let list = self.index[sym.file as usize].bindings.get(&(Some(di), field.to_owned()))?;
        let &b = list.last()?;
        self.binding_type(sym.file, b)
    }

    /// Resolve the self type and trait of a Rust impl method.
    pub fn impl_targets(&self, fi: u32, di: u32) -> (Option<Target>, Option<Target>) {
        let def = &self.t.files[fi as usize].facts.defs[di as usize];
        let Some(block) = &def.impl_block else { return (None, None) };
        self.family.set(Family::Rust);
        let resolve = |path: &[String]| -> Option<Target> {
            if path.is_empty() {
                return None;
            }
            self.resolve_plain(fi, def.parent, path, def.line, Shape::Path).ok().map(|(t, _)| t)
        };
        (resolve(&block.self_ty), block.trait_.as_deref().and_then(resolve))
    }

    /// Both ends of an `extends`/`implements` fact: the inheriting type of the tree (`None` when it is not
    /// one, e.g. `impl Display for Vec<T>`), and what it inherits from.
    pub fn inherit_ends(&self, fi: u32, inh: &Inherit) -> Option<(SymId, Res<Target>)> {
        self.family.set(self.family(fi));
        let defs = &self.t.files[fi as usize].facts.defs;
        let (child, scope) = match inh.child_def {
            Some(di) => (self.t.sym_of_def(fi, di).map(Target::Sym), defs[di as usize].parent),
            None => (self.resolve_plain(fi, None, &inh.child, inh.line, Shape::Path).ok().map(|(t, _)| t), None),
        };
        let Some(Target::Sym(child)) = child else { return None };
        Some((child, self.resolve_plain(fi, scope, &inh.target, inh.line, Shape::Path).map(|(t, _)| t)))
    }
}
