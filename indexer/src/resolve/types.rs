//! Types: what a binding, a call's result or a field holds, from declared facts only (annotations,
//! constructor calls, recorded return types); and the self types, traits and parents of Rust impls and
//! classes, resolved before any reference.
//!
//! A variable's or constant's members are its type's, read from the binding of the assignment that
//! defines it (`variable_type`); a field a class does not assign is looked for in its bases. An
//! annotation's type never resolves to a local (`Shape::Type`). A field typed by its class's type
//! parameter, read on a subclass, takes the type argument that subclass's `extends` gives
//! (`Inherit::args`).
//!
//! A TypeScript callback's untyped parameter (`TypeHint::Callback`) takes the type the callee's
//! function-typed parameter (`Def::callbacks`) gives it; a `new` callee's is its class's
//! constructor's; a callee's own type parameter takes the call's type argument or the matching
//! argument of the annotation its result meets. A callback passed to a property typed by an interface
//! with call signatures takes what all their slots agree on, through aliases of function types; along
//! a chain of calls, the callee is the method of what the chain returns. A function's untyped
//! parameters take the type declared where it stands, an alias of a function type
//! (`TypeHint::Contextual`).
//!
//! A Rust receiver that is a call chain (`Router::new().route(a)?.layer(l)`) is typed step by step
//! from its first call: a method's declared return type (`Self` is the impl's type), and for `?`,
//! `unwrap()` or `expect()` the `T` of a declared `Result<T, _>` or `Option<T>` (`Def::returns_ok`).
//! In a chain, `clone()` keeps the type, and any other step on an unknown or external type loses it,
//! with the step named in the reason. A derived trait's constructor on a type of the tree
//! (`T::default()`, `T::from(…)`) gives that type.

use drsg_parsers::{DefKind, Family, Inherit, InheritKind, TypeArgs, TypeHint};

use super::{Found, Miss, Reason, Res, Resolver, Shape, Target, Want, Why};
use crate::table::{SymId, SymKind, separator};

/// Where a call chain's type was lost: at its first call, or at a step of its `then`.
#[derive(Debug, Clone, Copy)]
pub(super) enum Lost {
    First,
    At(usize),
}

impl Lost {
    /// A miss's reason, with the step of `then` named.
    pub(super) fn reason(self, then: &[String]) -> Reason {
        match self.step(then) {
            None => Reason::ChainFirstUnknown,
            Some(step) => {
                let step = if step == "?" { "?".to_owned() } else { format!(".{step}(…)") };
                Reason::ChainLostAt { step }
            }
        }
    }

    fn step(self, then: &[String]) -> Option<&str> {
        match self {
            Lost::First => None,
            Lost::At(i) => then.get(i).map(String::as_str),
        }
    }
}

/// A value's type as far as it is known, and for a `Result<T, _>` or `Option<T>` the `T` that `?` and
/// `unwrap()` give.
#[derive(Debug, Clone)]
struct Typed {
    ty: Option<Target>,
    ok: Option<Target>,
}

/// Where a binding is written: its file, its scope and its line.
#[derive(Debug, Clone, Copy)]
struct Site {
    fi: u32,
    scope: Option<u32>,
    line: u32,
}

impl Resolver<'_> {
    pub(super) fn binding_type(&self, fi: u32, bi: u32) -> Option<Target> {
        self.nested(|| self.binding_type_inner(fi, bi).ok_or(Miss(Why::Said(Reason::BindingUntyped)))).ok()
    }

    fn binding_type_inner(&self, fi: u32, bi: u32) -> Option<Target> {
        let b = &self.t.files[fi as usize].facts.bindings[bi as usize];
        match b.hint.as_ref()? {
            // Names in a binding's own initialiser are looked up before it (`let x = x.y()` is not recursive).
            TypeHint::Annotated(path) => self.annotated_type(fi, b.scope, path, b.line.saturating_sub(1)),
            TypeHint::Constructed(path) => self.resolve_type_path(fi, b.scope, path, b.line.saturating_sub(1)),
            TypeHint::CallResult(path) => self.call_result_type(fi, b.scope, path, b.line.saturating_sub(1)),
            TypeHint::CallChain(path, then) => self.chain_type(fi, b.scope, path, then, b.line.saturating_sub(1)),
            TypeHint::Destructured { call, field } => self.destructured_type(fi, b.scope, call, field, b.line),
            TypeHint::Callback { callee, then, new, arg, param, bound } => {
                let at = Site { fi, scope: b.scope, line: b.line };
                self.callback_param_type(at, (callee, then), *new, *arg, *param, bound)
            }
            TypeHint::Contextual { ty, param } => {
                let Target::Sym(alias) = self.annotated_type(fi, b.scope, ty, b.line)? else { return None };
                self.alias_param(alias, *param, 0)
            }
            // `const t = other`: the type of the variable it names (a function or a class gives none).
            TypeHint::Alias(path) => match self.callee(fi, b.scope, path, b.line.saturating_sub(1))? {
                id if matches!(self.t.syms[id as usize].kind, SymKind::Def(DefKind::Var | DefKind::Const)) => {
                    self.variable_type(id)
                }
                _ => None,
            },
            TypeHint::Field(path) => {
                let (first, fields) = path.split_first()?;
                if first != "self" && first != "this" {
                    return None;
                }
                let class = self.enclosing_type(fi, b.scope)?;
                fields.iter().try_fold(class, |ty, field| self.field_type(&ty, field))
            }
        }
    }

    /// The tree symbol a call of `path` runs (`this.m` on the enclosing type), its value when a type shares
    /// its name.
    fn callee(&self, fi: u32, scope: Option<u32>, path: &[String], line: u32) -> Option<SymId> {
        let found = match path.split_first()? {
            (this, rest) if this == "this" => self.resolve_on_self(fi, scope, rest),
            (_, _) => {
                let name = path.last()?;
                self.wanting(name, Want::Value, || self.resolve_plain(fi, scope, path, line, Shape::Path))
            }
        };
        match found {
            Ok((Target::Sym(id), _)) => Some(id),
            _ => None,
        }
    }

    /// The type of property `field` of what `call(…)` returns, when the callee declares an object type.
    fn destructured_type(
        &self,
        fi: u32,
        scope: Option<u32>,
        call: &[String],
        field: &str,
        line: u32,
    ) -> Option<Target> {
        let callee = self.callee(fi, scope, call, line)?;
        let sym = &self.t.syms[callee as usize];
        let def = self.t.def_of(callee)?;
        let (_, path) = def.returns_fields.iter().find(|(name, _)| name == field)?;
        self.annotated_type(sym.file, sym.def, path, def.line)
    }

    /// The type a callee's declared parameter `arg`, a function type, gives parameter `param` of the
    /// function passed there (`operate((source, subscriber) => …)`; with `new`, the class's constructor).
    /// A type parameter of the callee's own takes the type the site binds it to: its type argument
    /// (`make<Foo>(…)`), else the argument at its place in the annotation the result meets when that
    /// annotation names the callee's declared return type (`const x: Ctor<Foo> = make(…)` with `make<T>():
    /// Ctor<T>`); nothing else infers it.
    fn callback_param_type(
        &self,
        at: Site,
        (callee, then): (&[String], &[String]),
        new: bool,
        arg: u32,
        param: u32,
        bound: &TypeArgs,
    ) -> Option<Target> {
        let Site { fi, scope, line } = at;
        let id = match then.split_last() {
            None => self.callee(fi, scope, callee, line)?,
            // `app.get(…).post("/", (c) => …)`: `post` of what `app.get(…)` returns.
            Some((last, before)) => {
                let ty = self.chain(fi, scope, callee, before, line).ok()?;
                let Ok(Target::Sym(id)) = self.member(&ty, last, 0) else { return None };
                id
            }
        };
        // A property typed by an interface with call signatures (`get!: HandlerInterface`): the type they
        // all give the callback's parameter, wherever the callback is passed.
        if !new && self.t.syms[id as usize].kind == SymKind::Def(DefKind::Var) {
            return self.agreed_param(self.callable_interface(id)?, None, param, 0);
        }
        let function = if new {
            let kind = self.t.syms[id as usize].kind;
            if kind != SymKind::Def(DefKind::Class) {
                return None;
            }
            *self.t.members(id, "constructor").first()?
        } else {
            id
        };
        let sym = &self.t.syms[function as usize];
        let def = self.t.def_of(function)?;
        let Some((_, types)) = def.callbacks.iter().find(|(i, _)| *i == arg) else {
            // `handler: H<E, P>`, an alias of a function type.
            let (_, path) = def.callback_types.iter().find(|(i, _)| *i == arg)?;
            let Target::Sym(alias) = self.annotated_type(sym.file, sym.def, path, def.line)? else { return None };
            return self.alias_param(alias, param, 0);
        };
        let path = types.get(param as usize)?.as_ref()?;
        let generic = match path.as_slice() {
            [t] => def.generics.iter().position(|g| g == t).map(|k| (t, k)),
            _ => None,
        };
        let Some((t, k)) = generic else { return self.annotated_type(sym.file, sym.def, path, def.line) };
        let written = match bound.explicit.get(k) {
            Some(explicit) => explicit.as_ref(),
            None => {
                let (head, args) = bound.expected.as_ref()?;
                let returns = def.returns.as_ref()?;
                if head.last() != returns.last() {
                    return None;
                }
                let at = def.returns_args.iter().position(|a| a.as_ref() == Some(t))?;
                args.get(at)?.as_ref()
            }
        }?;
        self.annotated_type(fi, scope, written, line)
    }

    /// The type that every callback slot of `id` (its `callbacks` and `callback_types`; those at `arg` only,
    /// when given) gives parameter `param` of the function passed there, when they all agree and there is one.
    fn agreed_param(&self, id: SymId, arg: Option<u32>, param: u32, depth: usize) -> Option<Target> {
        let sym = &self.t.syms[id as usize];
        let def = self.t.def_of(id)?;
        let at = |i: u32| arg.is_none_or(|a| a == i);
        let mut agreed: Option<Target> = None;
        let mut agree = |t: Target| match &agreed {
            Some(a) => *a == t,
            None => {
                agreed = Some(t);
                true
            }
        };
        for (_, types) in def.callbacks.iter().filter(|(i, _)| at(*i)) {
            let path = types.get(param as usize)?.as_ref()?;
            if !agree(self.annotated_type(sym.file, sym.def, path, def.line)?) {
                return None;
            }
        }
        for (_, path) in def.callback_types.iter().filter(|(i, _)| at(*i)) {
            let Target::Sym(alias) = self.annotated_type(sym.file, sym.def, path, def.line)? else { return None };
            if !agree(self.alias_param(alias, param, depth + 1)?) {
                return None;
            }
        }
        agreed
    }

    /// The type a type alias of a function type (or of a union of such aliases) gives parameter `param`.
    fn alias_param(&self, alias: SymId, param: u32, depth: usize) -> Option<Target> {
        if depth > 8 || self.t.syms[alias as usize].kind != SymKind::Def(DefKind::TypeAlias) {
            return None;
        }
        self.agreed_param(alias, Some(0), param, depth)
    }

    /// A type an annotation names (of a TypeScript interface and a value of one name, the interface).
    fn annotated_type(&self, fi: u32, scope: Option<u32>, path: &[String], line: u32) -> Option<Target> {
        match path.last() {
            Some(name) if self.family(fi) == Family::Js => {
                self.wanting(name, Want::Type, || self.resolve_type_path(fi, scope, path, line))
            }
            _ => self.resolve_type_path(fi, scope, path, line),
        }
    }

    /// A path naming a type: a type symbol or an external type.
    fn resolve_type_path(&self, fi: u32, scope: Option<u32>, path: &[String], line: u32) -> Option<Target> {
        let (target, _) = self.resolve_plain(fi, scope, path, line, Shape::Type).ok()?;
        match &target {
            Target::Sym(id) if self.t.syms[*id as usize].kind.is_type() => Some(target),
            Target::External(_) => Some(target),
            _ => None,
        }
    }

    /// The type of `callee(…)`: the class itself for a constructor call, else the callee's declared return type.
    pub(super) fn call_result_type(&self, fi: u32, scope: Option<u32>, callee: &[String], line: u32) -> Option<Target> {
        self.call_result(fi, scope, callee, line)?.ty
    }

    /// The type of a call chain's result: `callee(…)`, then each step of `then` (a method called on the
    /// result so far, or `?`).
    pub(super) fn chain_type(
        &self,
        fi: u32,
        scope: Option<u32>,
        callee: &[String],
        then: &[String],
        line: u32,
    ) -> Option<Target> {
        self.chain(fi, scope, callee, then, line).ok()
    }

    /// [`Resolver::chain_type`], or where the chain's type was lost.
    pub(super) fn chain(
        &self,
        fi: u32,
        scope: Option<u32>,
        callee: &[String],
        then: &[String],
        line: u32,
    ) -> Result<Target, Lost> {
        let mut typed = self.call_result(fi, scope, callee, line).ok_or(Lost::First)?;
        for (i, step) in then.iter().enumerate() {
            typed = self.step(typed, step).ok_or(Lost::At(i))?;
        }
        typed.ty.ok_or(Lost::At(then.len().saturating_sub(1)))
    }

    /// The result of one step of a chain on a value of type `typed`.
    fn step(&self, typed: Typed, step: &str) -> Option<Typed> {
        let js = self.family.get() == Family::Js;
        let unwraps =
            step == "?" || (!js && matches!(step, "unwrap" | "expect" | "unwrap_or_default" | "unwrap_or_else"));
        if typed.ok.is_some() && unwraps {
            return Some(Typed { ty: typed.ok, ok: None });
        }
        // TypeScript's `await` (the `?` step) of what no `Promise<T>` of the tree's declaring gives: a type of
        // the tree is awaited as itself, an external one (a `Promise` of unknown content) is unknown.
        if js && step == "?" {
            return matches!(typed.ty, Some(Target::Sym(_))).then_some(Typed { ty: typed.ty, ok: None });
        }
        let ty = typed.ty?;
        match self.walk_members(ty.clone(), &[step.to_owned()]) {
            Ok(Target::Sym(id))
                if matches!(
                    self.t.syms[id as usize].kind,
                    SymKind::Def(DefKind::Function | DefKind::Method | DefKind::Var)
                ) =>
            {
                // `min(…): this` gives the receiver's type, a subclass's where it is one.
                if self.returns_this(id) {
                    return Some(Typed { ty: Some(ty), ok: None });
                }
                self.returned(id)
            }
            // `Clone::clone` and `ToOwned::to_owned` give the receiver's type, derived or not.
            _ if matches!(step, "clone" | "to_owned") => Some(Typed { ty: Some(ty), ok: None }),
            _ => None,
        }
    }

    /// What `callee(…)` gives: the class itself for a constructor call, else the callee's declared
    /// return type and, for a `Result` or an `Option`, the type inside.
    fn call_result(&self, fi: u32, scope: Option<u32>, callee: &[String], line: u32) -> Option<Typed> {
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
                    return Some(Typed { ty: Some(Target::Sym(id)), ok: None });
                }
                if self.returns_this(id) {
                    let ty = match callee.split_last()? {
                        (_, []) => None,
                        (_, receiver) if on_self => receiver[1..]
                            .iter()
                            .try_fold(self.enclosing_type(fi, scope)?, |ty, field| self.field_type(&ty, field)),
                        (_, receiver) => self.receiver_type(fi, scope, receiver, line),
                    };
                    return Some(Typed { ty: Some(ty?), ok: None });
                }
                self.returned(id)
            }
            Target::External(path) => {
                // `Vec::new()`, `HashMap::with_capacity(…)`: by convention a constructor of its type; `a.clone()`
                // of a value of an external type: `Clone::clone` returns `Self`.
                let (ty, last) = path.rsplit_once(separator(family))?;
                if family != Family::Rust || !matches!(last, "new" | "default" | "with_capacity" | "from" | "clone") {
                    return None;
                }
                // A derived `T::default()` of a type of the tree is that type, not a stand-in of it.
                let ty = match self.tree_type(ty) {
                    Some(id) => Target::Sym(id),
                    None => Target::External(ty.to_owned()),
                };
                Some(Typed { ty: Some(ty), ok: None })
            }
        }
    }

    /// The declared return type of function `callee`, and the type inside a returned `Result` or `Option`.
    fn returned(&self, callee: SymId) -> Option<Typed> {
        let sym = &self.t.syms[callee as usize];
        // `const numberType = ZodNumber.create`: what the function it names returns.
        if let Some(named) = self.aliased(callee) {
            return self.nested(|| self.returned(named).ok_or(Miss(Why::Said(Reason::BindingUntyped)))).ok();
        }
        // A property typed by an interface with call signatures (`get!: HandlerInterface`): what they return.
        if sym.kind == SymKind::Def(DefKind::Var) {
            let ty = self.callable_interface(callee)?;
            let def = self.t.def_of(ty)?;
            let ty_sym = &self.t.syms[ty as usize];
            let returns = self.annotated_type(ty_sym.file, ty_sym.def, def.returns.as_ref()?, def.line)?;
            return Some(Typed { ty: Some(returns), ok: None });
        }
        let def = self.t.def_of(callee)?;
        let di = sym.def?;
        let declared = |path: &Option<Vec<String>>| {
            let path = path.as_ref()?;
            if path.len() == 1 && path[0] == "Self" {
                return self.enclosing_type(sym.file, Some(di));
            }
            self.annotated_type(sym.file, def.parent, path, def.line)
        };
        let typed = Typed { ty: declared(&def.returns), ok: declared(&def.returns_ok) };
        (typed.ty.is_some() || typed.ok.is_some()).then_some(typed)
    }

    /// Whether TypeScript function or method `id` is declared to return `this`.
    fn returns_this(&self, id: SymId) -> bool {
        let sym = &self.t.syms[id as usize];
        self.family(sym.file) == Family::Js
            && self.t.def_of(id).and_then(|d| d.returns.as_deref()).is_some_and(|r| r.len() == 1 && r[0] == "this")
    }

    /// The type of the value a receiver path names (`schema`, `this.schema`, `z.schemas.str`): a local's,
    /// a variable's, then each field's.
    fn receiver_type(&self, fi: u32, scope: Option<u32>, path: &[String], line: u32) -> Option<Target> {
        let (head, fields) = path.split_first()?;
        let start = match self.as_namespace(|| self.lookup(fi, scope, head, line, true)).ok()? {
            Found::Local(ty) => ty?,
            Found::Target(Target::Sym(id), _) if !self.is_namespace_or_type(&Target::Sym(id)) => {
                self.variable_type(id)?
            }
            _ => return None,
        };
        fields.iter().try_fold(start, |ty, field| self.field_type(&ty, field))
    }

    /// The symbol a TypeScript variable is another name for (`const numberType = ZodNumber.create`).
    fn aliased(&self, id: SymId) -> Option<SymId> {
        let sym = &self.t.syms[id as usize];
        if !matches!(sym.kind, SymKind::Def(DefKind::Var | DefKind::Const)) || self.family(sym.file) != Family::Js {
            return None;
        }
        let def = self.t.def_of(id)?;
        let &b = self.index[sym.file as usize].bindings.get(&(def.parent, def.name.clone()))?.first()?;
        let binding = &self.t.files[sym.file as usize].facts.bindings[b as usize];
        let Some(TypeHint::Alias(path)) = &binding.hint else { return None };
        self.callee(sym.file, binding.scope, path, binding.line.saturating_sub(1)).filter(|&named| named != id)
    }

    /// The interface a TypeScript property is declared with (`get!: HandlerInterface`), whose call
    /// signatures say what calling it takes and gives.
    fn callable_interface(&self, property: SymId) -> Option<SymId> {
        if self.family(self.t.syms[property as usize].file) != Family::Js {
            return None;
        }
        let Target::Sym(ty) = self.variable_type(property)? else { return None };
        (self.t.syms[ty as usize].kind == SymKind::Def(DefKind::Interface)).then_some(ty)
    }

    /// The type of a module- or class-level variable, from the binding its first assignment records
    /// (`app = Flask(__name__)`, `current_app: Flask = LocalProxy(…)`), read where it is defined.
    pub(super) fn variable_type(&self, id: SymId) -> Option<Target> {
        let sym = &self.t.syms[id as usize];
        // A Python property reads as an attribute: its binding is its declared return type.
        let property = sym.kind == SymKind::Def(DefKind::Method) && self.family(sym.file) == Family::Python;
        if !matches!(sym.kind, SymKind::Def(DefKind::Var | DefKind::Const)) && !property {
            return None;
        }
        let def = self.t.def_of(id)?;
        let list = self.index[sym.file as usize].bindings.get(&(def.parent, def.name.clone()))?;
        let &b = list.first()?;
        self.binding_type(sym.file, b)
    }

    /// The declared type of a field of a type (struct field, class property, `self.x = …` in a method).
    /// A field a class does not assign is looked for in its bases (`self.json` set in `App.__init__`, read
    /// on a `Flask`).
    pub(super) fn field_type(&self, ty: &Target, field: &str) -> Option<Target> {
        self.field_type_in(ty, field, 0, None)
    }

    /// `child`: the type a base is reached from, whose `extends` may bind the base's type parameters.
    fn field_type_in(&self, ty: &Target, field: &str, depth: usize, child: Option<SymId>) -> Option<Target> {
        let Target::Sym(id) = ty else { return None };
        let sym = &self.t.syms[*id as usize];
        let di = sym.def?;
        if let Some(list) = self.index[sym.file as usize].bindings.get(&(Some(di), field.to_owned()))
            && let Some(&b) = list.last()
        {
            // `_def!: Def` in `class ZodType<Output, Def, Input>`, read on a `ZodObject` that `extends
            // ZodType<Output, ZodObjectDef<T>, Input>`: the type argument.
            let hint = &self.t.files[sym.file as usize].facts.bindings[b as usize].hint;
            if let Some(TypeHint::Annotated(path)) = hint
                && let [t] = path.as_slice()
                && let Some(k) = self.t.def_of(*id).and_then(|d| d.generics.iter().position(|g| g == t))
            {
                return self.type_argument(child?, *id, k);
            }
            return self.binding_type(sym.file, b);
        }
        if depth >= 8 {
            return None;
        }
        let bases = self.supers.get(id).map(Vec::as_slice).unwrap_or(&[]);
        bases.iter().find_map(|base| self.field_type_in(base, field, depth + 1, Some(*id)))
    }

    /// The type `child`'s `extends` or `implements` of `base` gives `base`'s type parameter `k`, when it
    /// names a type (not one of `child`'s own type parameters).
    fn type_argument(&self, child: SymId, base: SymId, k: usize) -> Option<Target> {
        let sym = &self.t.syms[child as usize];
        let di = sym.def?;
        let child_def = self.t.def_of(child)?;
        let file = &self.t.files[sym.file as usize].facts;
        for inh in file.inherits.iter().filter(|i| i.child_def == Some(di) && !i.args.is_empty()) {
            let Some((_, Ok(Target::Sym(target)))) = self.inherit_ends(sym.file, inh) else { continue };
            if target != base {
                continue;
            }
            let path = inh.args.get(k)?.as_ref()?;
            if path.len() == 1 && child_def.generics.contains(&path[0]) {
                return None;
            }
            return self.annotated_type(sym.file, child_def.parent, path, inh.line);
        }
        None
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
        let target = || self.resolve_plain(fi, scope, &inh.target, inh.line, Shape::Path).map(|(t, _)| t);
        // What an interface extends and a class implements is a type (of an interface and a value of one
        // name, the interface); what a class extends, a value.
        let of_type =
            inh.kind == InheritKind::Implements || self.t.syms[child as usize].kind == SymKind::Def(DefKind::Interface);
        match inh.target.last() {
            Some(name) if of_type && self.family(fi) == Family::Js => {
                Some((child, self.wanting(name, Want::Type, target)))
            }
            _ => Some((child, target())),
        }
    }
}
