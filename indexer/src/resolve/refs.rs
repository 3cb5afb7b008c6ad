//! References: how one reference binds, by its qualifier (a plain path, `self.`, `super.`, the result of
//! a call), and macros, which Rust scopes textually and crate-wide once exported.
//!
//! A Rust `External` stand-in whose path names a type of the tree (`stand_in`) binds to its member,
//! stays external for a derivable method, or is unresolved; an enum's capitalised member is its variant
//! before any trait it implements. A path whose head is a type parameter of the function around it
//! (`T::default()`; `Def::generics`, its own and its impl's) is unresolved saying so, even where an item
//! has that name.

use drsg_parsers::{DefKind, Family, Qualifier, Ref, RefKind};

use super::{Found, Miss, Reason, Res, Resolution, Resolver, Shape, Strategy, Target, Want, Why, miss};
use crate::builtins;
use crate::table::{SymId, SymKind};

impl Resolver<'_> {
    /// Bind one reference of file `fi`.
    pub fn resolve_ref(&self, fi: u32, r: &Ref) -> Resolution {
        let family = self.family(fi);
        self.family.set(family);
        if family == Family::Rust && r.path.last().is_some_and(|n| n.ends_with('!')) {
            return self.resolve_macro(fi, r);
        }
        let run = || match &r.qualifier {
            Qualifier::Plain => {
                let shape = if is_rust_method_call(family, r) { Shape::Method } else { Shape::Path };
                self.resolve_plain(fi, r.scope, &r.path, r.line, shape)
            }
            Qualifier::SelfValue => self.resolve_on_self(fi, r.scope, &r.path),
            Qualifier::Super => self.resolve_on_super(fi, r.scope, &r.path),
            Qualifier::Expr { call: Some(inner), then } => match self.chain(fi, r.scope, inner, then, r.line) {
                Ok(Target::Sym(ty)) if r.path.is_empty() => self.call_of_value(ty),
                Ok(ty) => self.walk_members(ty, &r.path).map(|t| (t, Strategy::ReceiverType)),
                Err(lost) if !then.is_empty() => miss(lost.reason(then)),
                Err(_) => match self.resolve_plain(fi, r.scope, inner, r.line, Shape::Method) {
                    Ok((Target::External(path), _)) => miss(Reason::ResultOfExternal { path: path.clone() }),
                    Ok((Target::Sym(id), _)) => miss(Reason::ReturnNotRecorded { key: self.sym_key(id).to_owned() }),
                    Err(_) => miss(Reason::ReceiverUnknown),
                },
            },
            Qualifier::Expr { call: None, .. }
                if r.path.len() <= 1 && !r.path.first().is_some_and(|p| is_identifier(p)) =>
            {
                miss(Reason::ComputedCall)
            }
            Qualifier::Expr { call: None, .. } => miss(Reason::ReceiverUnknown),
            Qualifier::Tokens => miss(Reason::Tokens),
        };
        // An annotation means a type: of an interface and a value of one name, the interface.
        let mut result = match (family, r.kind, r.path.last()) {
            (Family::Js, RefKind::Type, Some(name)) => self.wanting(name, Want::Type, run),
            _ => run(),
        };
        // TypeScript merges declarations: an interface and a function (or a const) share a name. A call
        // means the value, so a tie between them is looked up again for a value.
        if family == Family::Js
            && Self::is_call_site(r.kind)
            && matches!(&result, Err(Miss(Why::Said(Reason::DefinedTimes { .. }))))
            && let Some(name) = r.path.last()
        {
            let again = self.wanting(name, Want::Value, run);
            if again.is_ok() {
                result = again;
            }
        }
        // A call never binds to a module. In Rust, `mod sleep; pub use sleep::sleep;` puts a module and
        // a function under one name; the call means the function, so resolve again skipping modules. In
        // Python, `from .context import context` in a package's `__init__.py` rebinds the package's
        // attribute from the submodule to the function, so `pkg.context(…)` calls the function. Nor is
        // a Rust module ever a value or a type: `consume(task)` beside `mod task;` names a local (which
        // the facts do not track) or a function, never the module.
        let never_a_module = match family {
            Family::Rust => true,
            Family::Python => Self::is_call_site(r.kind),
            Family::Js => false,
        };
        if never_a_module
            && let Ok((target, _)) = &result
            && self.is_module(target)
            && let Some(name) = r.path.last()
        {
            let module = self.describe(target);
            let again = self.wanting(name, Want::Value, run);
            result = match again {
                Ok((t, by)) if !self.is_module(&t) => Ok((t, by)),
                _ if Self::is_call_site(r.kind) => miss(Reason::OnlyModuleCalled { name: name.clone(), module }),
                _ => miss(Reason::OnlyModule { name: name.clone(), module }),
            };
        }
        match result {
            Ok((Target::Sym(id), _)) if r.origin.is_macro_body() => {
                Resolution::Resolved { target: id, by: Strategy::Macro }
            }
            Ok((Target::Sym(id), by)) => Resolution::Resolved { target: id, by },
            Ok((Target::External(path), _)) if family == Family::Rust => match self.stand_in(&path) {
                Ok(Target::Sym(id)) => Resolution::Resolved {
                    target: id,
                    by: if r.origin.is_macro_body() { Strategy::Macro } else { Strategy::ReceiverType },
                },
                Ok(Target::External(path)) => Resolution::External(path),
                Err(missed) => Resolution::Unresolved(self.unresolved(r, missed)),
            },
            Ok((Target::External(path), _)) => Resolution::External(path),
            Err(missed) => Resolution::Unresolved(self.unresolved(r, missed)),
        }
    }

    /// The reason a reference ends unresolved with, said inside the macro it was read in.
    fn unresolved(&self, r: &Ref, missed: Miss) -> Reason {
        let reason = self.reason(missed);
        match r.origin.within() {
            Some(within) => Reason::InsideMacro { within: within.to_owned(), reason: Box::new(reason) },
            None => reason,
        }
    }

    /// Rust: an external stand-in whose path names a type of the tree (`ext::app::Builder::run`, reached
    /// through a value whose type was last seen as external) is no external: the type's member when it
    /// has one, a derived or blanket trait method's stand-in, else a miss that counts where `run` is
    /// asked about.
    fn stand_in(&self, path: &str) -> Res<Target> {
        let Some((ty, name)) = path.rsplit_once("::") else { return Ok(Target::External(path.to_owned())) };
        let Some(id) = self.tree_type(ty) else { return Ok(Target::External(path.to_owned())) };
        match self.member(&Target::Sym(id), name, 0) {
            Ok(found) => Ok(found),
            Err(_) => miss(Reason::NotOnExternalType { name: name.to_string(), ty: ty.to_string() }),
        }
    }

    /// The Rust type of the tree keyed `key`.
    pub(super) fn tree_type(&self, key: &str) -> Option<SymId> {
        self.rust_types.get(key).copied()
    }

    /// A call of a value of type `ty` (`make()(x)`): the type says what the value looks like, not which
    /// definition is called, so it is no call target itself.
    fn call_of_value(&self, ty: SymId) -> Res<(Target, Strategy)> {
        miss(Reason::ValueOfType { ty: self.sym_key(ty).to_owned() })
    }

    pub(super) fn resolve_plain(
        &self,
        fi: u32,
        scope: Option<u32>,
        path: &[String],
        line: u32,
        shape: Shape,
    ) -> Res<(Target, Strategy)> {
        self.nested(|| self.resolve_plain_inner(fi, scope, path, line, shape))
    }

    fn resolve_plain_inner(
        &self,
        fi: u32,
        scope: Option<u32>,
        path: &[String],
        line: u32,
        shape: Shape,
    ) -> Res<(Target, Strategy)> {
        let Some(head) = path.first() else { return miss(Reason::EmptyReference) };
        let family = self.family(fi);
        // `cls(…)` in a Python class method (a method whose first parameter is `cls`, not rebound): the
        // class around.
        if family == Family::Python
            && path.len() == 1
            && head == "cls"
            && self.takes_cls(fi, scope)
            && self.lookup(fi, scope, head, line, true).is_err()
            && let Some(class) = self.enclosing_type(fi, scope)
        {
            return Ok((class, Strategy::SelfValue));
        }
        let (shape, no_locals) = if shape == Shape::Type { (Shape::Path, true) } else { (shape, false) };
        let special = family == Family::Rust && matches!(head.as_str(), "crate" | "self" | "super" | "Self");
        // A type parameter shadows the items of its name.
        if family == Family::Rust && path.len() > 1 && self.is_type_parameter(fi, scope, head) {
            return miss(Reason::TypeParameter { name: head.to_string() });
        }
        let (start, mut by) = if special {
            (self.rust_special_head(fi, scope, head)?, Strategy::Path)
        } else {
            let found = if path.len() > 1 {
                // `c.connect()` starts at a local; `task::spawn()` at an item, whatever locals share its name.
                let locals = !no_locals && (family != Family::Rust || shape != Shape::Path);
                self.as_namespace(|| self.lookup(fi, scope, head, line, locals))
            } else {
                self.lookup(fi, scope, head, line, !no_locals)
            };
            match found {
                Ok(Found::Target(target, by)) => (target, by),
                Ok(Found::Local(_)) if path.len() == 1 => return miss(Reason::LocalValueCalled),
                Ok(Found::Local(Some(ty))) => (ty, Strategy::ReceiverType),
                Ok(Found::Local(None)) => return miss(Reason::ReceiverUnknown),
                Err(missed) => {
                    let absent = matches!(missed.said(), Some(Reason::NotInScope { .. }));
                    if absent && path.len() > 1 {
                        // Rust: an unknown head of a path (`serde_json::to_string`) is an extern crate, when
                        // the package's manifest depends on one of that name (or no manifest is known).
                        if family == Family::Rust && shape != Shape::Method {
                            let package = self.t.layout.cargo_package(&self.t.files[fi as usize].path);
                            return match package {
                                Some(p) if p.unread.is_some() => miss(Reason::ManifestUnread {
                                    name: head.to_string(),
                                    package: p.crate_name.clone(),
                                }),
                                Some(p) if !p.depends_on(head) => {
                                    miss(Reason::NoDependency { name: head.to_string(), package: p.crate_name.clone() })
                                }
                                _ => Ok((Target::External(path.join("::")), Strategy::Path)),
                            };
                        }
                        return miss(Reason::ReceiverUnknown);
                    }
                    return Err(missed);
                }
            }
        };
        if path.len() == 1 {
            return Ok((start, by));
        }
        if by == Strategy::Scope {
            by = if self.is_namespace_or_type(&start) { Strategy::Path } else { Strategy::ReceiverType };
        }
        let target = self.walk_members(start, &path[1..])?;
        Ok((target, by))
    }

    /// Whether the method around `scope` (through functions nested in it) takes `cls` first: `def
    /// make(cls, …)`.
    fn takes_cls(&self, fi: u32, scope: Option<u32>) -> bool {
        let defs = &self.t.files[fi as usize].facts.defs;
        let mut at = scope;
        for _ in 0..64 {
            let Some(def) = at.and_then(|d| defs.get(d as usize)) else { return false };
            match def.kind {
                DefKind::Method => {
                    let params = def.signature.split_once('(').map_or("", |(_, rest)| rest.trim_start());
                    return params.strip_prefix("cls").is_some_and(|rest| rest.starts_with([',', ')', ':', ' ']));
                }
                DefKind::Function => at = def.parent,
                _ => return false,
            }
        }
        false
    }

    /// Whether `name` is a type parameter of the innermost function around `scope` (its own or its
    /// impl's: an item nested in a function cannot name the outer function's).
    fn is_type_parameter(&self, fi: u32, scope: Option<u32>, name: &str) -> bool {
        let defs = &self.t.files[fi as usize].facts.defs;
        let mut cur = scope;
        while let Some(def) = cur.and_then(|d| defs.get(d as usize)) {
            if matches!(def.kind, DefKind::Function | DefKind::Method) {
                return def.generics.iter().any(|g| g == name);
            }
            cur = def.parent;
        }
        false
    }

    pub(super) fn resolve_on_self(&self, fi: u32, scope: Option<u32>, path: &[String]) -> Res<(Target, Strategy)> {
        self.nested(|| self.resolve_on_self_inner(fi, scope, path))
    }

    fn resolve_on_self_inner(&self, fi: u32, scope: Option<u32>, path: &[String]) -> Res<(Target, Strategy)> {
        let Some(ty) = self.enclosing_type(fi, scope) else {
            return match self.enclosing_impl(fi, scope) {
                // `impl Tr for Vec<T>`, or a type defined inside a macro the parser cannot see into.
                Some(self_ty) => miss(Reason::ImplTypeMissing { ty: self_ty.join("::") }),
                None => miss(Reason::SelfOutsideType),
            };
        };
        let Some((first, rest)) = path.split_first() else { return miss(Reason::EmptyReference) };
        let start = match self.member(&ty, first, 0) {
            Ok(t) => t,
            Err(m) => {
                // `self.field.method()`: the field's declared type.
                if rest.is_empty() {
                    return Err(m);
                }
                match self.field_type(&ty, first) {
                    Some(field_ty) => {
                        let target = self.walk_members(field_ty, rest)?;
                        return Ok((target, Strategy::ReceiverType));
                    }
                    None => return miss(Reason::FieldUntyped { field: first.to_string(), owner: self.describe(&ty) }),
                }
            }
        };
        if rest.is_empty() {
            return Ok((start, Strategy::SelfValue));
        }
        // `self.method().x` is not a path: only fields continue.
        match self.field_type(&ty, first) {
            Some(field_ty) => Ok((self.walk_members(field_ty, rest)?, Strategy::ReceiverType)),
            None => miss(Reason::FieldUntyped { field: first.to_string(), owner: self.describe(&ty) }),
        }
    }

    fn resolve_on_super(&self, fi: u32, scope: Option<u32>, path: &[String]) -> Res<(Target, Strategy)> {
        let Some(Target::Sym(ty)) = self.enclosing_type(fi, scope) else {
            return miss(Reason::SuperOutsideClass);
        };
        let parents = self.supers.get(&ty).cloned().unwrap_or_default();
        let Some(parent) = parents.into_iter().next() else {
            return miss(Reason::NoParentClass { ty: self.sym_key(ty).to_owned() });
        };
        let target = self.walk_members(parent, path)?;
        Ok((target, Strategy::Super))
    }

    fn resolve_macro(&self, fi: u32, r: &Ref) -> Resolution {
        let last = r.path.last().map(String::as_str).unwrap_or("");
        let bare = last.trim_end_matches('!');
        if r.path.len() > 1 {
            let mut path = r.path.clone();
            if let Some(l) = path.last_mut() {
                *l = bare.to_owned();
            }
            return match self.resolve_plain(fi, r.scope, &path, r.line, Shape::Path) {
                Ok((Target::Sym(id), by)) => Resolution::Resolved { target: id, by },
                Ok((Target::External(p), _)) => Resolution::External(format!("{p}!")),
                Err(missed) => Resolution::Unresolved(self.reason(missed)),
            };
        }
        // Macros by example are scoped textually and crate-wide once exported: look in scope, then in the crate.
        match self.lookup_item(fi, r.scope, bare, r.line) {
            Ok((Target::Sym(id), by)) if self.t.syms[id as usize].kind == SymKind::Def(DefKind::Macro) => {
                return Resolution::Resolved { target: id, by };
            }
            // `use serde_json::json;` then `json!(…)`.
            Ok((Target::External(path), Strategy::Import)) => {
                return Resolution::External(format!("{path}!"));
            }
            _ => {}
        }
        let crate_name = self.crate_of(fi).unwrap_or_default().to_owned();
        let candidates = self.macros.get(&(crate_name, bare.to_owned())).map(Vec::as_slice).unwrap_or(&[]);
        match candidates {
            [one] => Resolution::Resolved { target: *one, by: Strategy::MacroScope },
            [] if builtins::is_builtin(Family::Rust, last) => Resolution::External(format!("std::{last}")),
            [] => Resolution::Unresolved(Reason::MacroNotDefined { name: last.to_string() }),
            many => Resolution::Unresolved(Reason::MacroDefinedTimes { name: last.to_string(), times: many.len() }),
        }
    }
}

/// Rust method calls (`x.m()`) look like paths in the fact model; the text tells them apart from `x::m()`.
fn is_rust_method_call(family: Family, r: &Ref) -> bool {
    if family != Family::Rust || r.path.len() < 2 {
        return false;
    }
    let text = r.text.as_str();
    match (text.rfind('.'), text.rfind("::")) {
        (Some(dot), Some(colons)) => dot > colons,
        (Some(_), None) => true,
        _ => false,
    }
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '#')
}
