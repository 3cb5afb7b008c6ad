//! Name resolution: binding what a file names to the symbols of the tree, import- and scope-aware.
//!
//! A reference resolves through, in order: typed locals and nested definitions of the enclosing
//! functions, the enclosing namespace (module items, imports, glob imports), then the names every file
//! of the language sees (prelude, builtins, globals) which are `External`. Paths continue member by
//! member; receivers are typed from declared facts only (annotations, constructor calls, recorded return
//! types). Anything uncertain (a tie, an unknown receiver, a missing module) is a [`Miss`] with a reason,
//! never a guess.

use std::cell::RefCell;

use drsg_parsers::{DefKind, Family, Inherit, Qualifier, Ref, RefKind, TypeHint};
use foldhash::{HashMap, HashMapExt};

mod imports;

use crate::builtins;
use crate::table::{SymId, SymKind, Table, separator};

/// What a name or path is bound to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    Sym(SymId),
    /// Outside the tree: std, builtins, a dependency. The path as the language writes it.
    External(String),
}

/// Why a name could not be bound: a reason, or one of the common misses kept unformatted until a reference
/// ends with it ([`Resolver::reason`]). Most misses are passed over: a lookup that finds nothing in one
/// place looks in the next. Formatting each one cost Django's index 1.4 % of its instructions (callgrind).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Miss(Why);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Why {
    Text(String),
    /// ``not found: `name` in `namespace` ``.
    NotIn(Box<str>, SymId),
    /// ``not found: `name` on `type` ``.
    NotOn(Box<str>, SymId),
    /// `` `name` not found in `namespace or type` ``.
    NotFound(Box<str>, SymId),
    /// ``method call: receiver type unknown (`key` is a label)``.
    Untyped(SymId),
}

impl Miss {
    /// Whether the name is absent (the caller may look further): the reason starts with "not found".
    fn is_not_found(&self) -> bool {
        match &self.0 {
            Why::Text(reason) => reason.starts_with("not found"),
            Why::NotIn(..) | Why::NotOn(..) => true,
            Why::NotFound(..) | Why::Untyped(_) => false,
        }
    }

    /// The reason, when it is text already.
    fn text(&self) -> Option<&str> {
        match &self.0 {
            Why::Text(reason) => Some(reason),
            _ => None,
        }
    }
}

type Res<T> = Result<T, Miss>;

/// (file, import) → what it binds; `None` while being resolved (a cycle).
type ImportMemo = HashMap<(u32, u32), Option<Res<Target>>>;

fn miss<T>(reason: impl Into<String>) -> Res<T> {
    Err(Miss(Why::Text(reason.into())))
}

/// How a reference was bound (`resolved_by`), and how sure we are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Scope,
    Import,
    Path,
    SelfValue,
    Super,
    ReceiverType,
    MacroScope,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Scope => "scope",
            Strategy::Import => "import",
            Strategy::Path => "path",
            Strategy::SelfValue => "self",
            Strategy::Super => "super",
            Strategy::ReceiverType => "receiver-type",
            Strategy::MacroScope => "macro-scope",
        }
    }

    pub fn confidence(self) -> &'static str {
        match self {
            Strategy::ReceiverType | Strategy::MacroScope => "medium",
            _ => "high",
        }
    }
}

/// The outcome of one reference.
#[derive(Debug, Clone)]
pub enum Resolution {
    Resolved { target: SymId, by: Strategy },
    External(String),
    Unresolved(String),
}

/// What a Rust reference's path is, which decides where its head may be found. Other languages look heads
/// up the same way whatever the shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `x.m()`: the head is a value, a local first; an unknown one is an untyped receiver.
    Method,
    /// `a::b()`, a type, a macro's path, a base: the head is an item, never a local; an unknown one is an
    /// extern crate.
    Path,
    /// A callee path a binding's type comes from (`let x = c.make();`, `let x = Client::new();`), which the
    /// facts keep without telling `.` from `::`: a local first, an unknown head an extern crate.
    Either,
}

/// A head name found in scope.
enum Found {
    Target(Target, Strategy),
    /// A local or parameter; its type when it has one that could be bound.
    Local(Option<Target>),
}

/// Lookup indexes over one file's facts (they depend on nothing else, so a fold keeps those of
/// unchanged files).
#[derive(Default)]
pub struct FileIndex {
    /// (scope, alias) → imports.
    imports: HashMap<(Option<u32>, String), Vec<u32>>,
    /// scope → glob imports.
    globs: HashMap<Option<u32>, Vec<u32>>,
    /// (scope, name) → bindings, in source order.
    bindings: HashMap<(Option<u32>, String), Vec<u32>>,
    /// exported name → exports.
    exports: HashMap<String, Vec<u32>>,
}

impl FileIndex {
    pub fn of(facts: &drsg_parsers::FileFacts) -> FileIndex {
        let mut ix = FileIndex::default();
        for (i, imp) in facts.imports.iter().enumerate() {
            if imp.glob {
                ix.globs.entry(imp.scope).or_default().push(i as u32);
            } else if !imp.alias.is_empty() {
                ix.imports.entry((imp.scope, imp.alias.clone())).or_default().push(i as u32);
            }
        }
        for (i, b) in facts.bindings.iter().enumerate() {
            ix.bindings.entry((b.scope, b.name.clone())).or_default().push(i as u32);
        }
        for (i, e) in facts.exports.iter().enumerate() {
            ix.exports.entry(e.exported.clone()).or_default().push(i as u32);
        }
        ix
    }
}

/// What a resolver computed over a whole table that a fold may keep.
#[derive(Default)]
pub struct ResolverParts {
    pub index: Vec<std::sync::Arc<FileIndex>>,
    pub impl_self: HashMap<(u32, u32), Target>,
    /// Per file: the (type, parent) links its inheritance facts resolved to.
    pub links: Vec<Vec<(SymId, Target)>>,
}

pub struct Resolver<'t> {
    t: &'t Table,
    index: Vec<std::sync::Arc<FileIndex>>,
    /// Rust: (file, def) of an impl method → its resolved self type.
    pub impl_self: HashMap<(u32, u32), Target>,
    /// Resolved `extends`/`implements` targets of each type.
    pub supers: HashMap<SymId, Vec<Target>>,
    /// Per file: the links `supers` was merged from.
    pub links: Vec<Vec<(SymId, Target)>>,
    import_memo: RefCell<ImportMemo>,
    /// Nesting of path resolutions (types of bindings resolve paths, which may type bindings…).
    depth: std::cell::Cell<u32>,
    /// Rust: the tree's crates by name → their root module.
    crates: HashMap<String, SymId>,
    /// Rust: macros by example, by (crate, name).
    macros: HashMap<(String, String), Vec<SymId>>,
    /// The language family being resolved: it decides how external paths are joined.
    family: std::cell::Cell<Family>,
    /// Rust keeps modules and values in separate namespaces: while a call `x::name(…)` that first
    /// bound to a module `name` is resolved again, lookups of `name` skip modules (see `resolve_ref`).
    value_name: RefCell<Option<String>>,
}

const MAX_DEPTH: usize = 12;

/// Bound on nested resolution steps; each step is a handful of stack frames.
const MAX_NESTING: u32 = 160;

impl<'t> Resolver<'t> {
    /// A resolver over `t` whose files' indexes are given (one per file, in order).
    pub fn with_index(t: &'t Table, index: Vec<std::sync::Arc<FileIndex>>) -> Resolver<'t> {
        debug_assert_eq!(index.len(), t.files.len());
        let crate_of = |fi: u32| t.layout.rust_module(&t.files[fi as usize].path).map(|m| m.crate_name);
        let mut crates = HashMap::new();
        for (name, root) in t.layout.crate_roots() {
            if let Some(fi) = t.files.iter().position(|f| f.path == root) {
                crates.insert(name, t.file_module[fi]);
            }
        }
        let mut macros: HashMap<(String, String), Vec<SymId>> = HashMap::new();
        for (id, sym) in t.syms.iter().enumerate() {
            if sym.kind == SymKind::Def(DefKind::Macro)
                && !sym.dead
                && let Some(krate) = crate_of(sym.file)
            {
                macros.entry((krate, sym.name.clone())).or_default().push(id as SymId);
            }
        }
        Resolver {
            t,
            index,
            crates,
            macros,
            impl_self: HashMap::new(),
            supers: HashMap::new(),
            links: Vec::new(),
            import_memo: RefCell::new(HashMap::new()),
            depth: std::cell::Cell::new(0),
            family: std::cell::Cell::new(Family::Rust),
            value_name: RefCell::new(None),
        }
    }

    /// The per-file indexes, impl self types and types' parents, to build a later resolver from.
    pub fn into_parts(self) -> ResolverParts {
        ResolverParts { index: self.index, impl_self: self.impl_self, links: self.links }
    }

    /// Whether lookups of `name` skip modules (the value pass of a call, see `resolve_ref`).
    fn wants_value(&self, name: &str) -> bool {
        self.value_name.borrow().as_deref() == Some(name)
    }

    /// Runs a lookup of a path's head or middle segment, which names a namespace or a type, so the
    /// value pass does not apply to it.
    fn as_namespace<T>(&self, lookup: impl FnOnce() -> T) -> T {
        let saved = self.value_name.borrow_mut().take();
        let out = lookup();
        *self.value_name.borrow_mut() = saved;
        out
    }

    fn is_module(&self, target: &Target) -> bool {
        matches!(target, Target::Sym(id) if self.t.syms[*id as usize].kind.is_namespace())
    }

    fn family(&self, fi: u32) -> Family {
        self.t.files[fi as usize].lang.family()
    }

    fn sym_key(&self, id: SymId) -> &str {
        &self.t.syms[id as usize].key
    }

    /// The text of a miss.
    fn reason(&self, miss: Miss) -> String {
        match miss.0 {
            Why::Text(reason) => reason,
            Why::NotIn(name, ns) => format!("not found: `{name}` in `{}`", self.sym_key(ns)),
            Why::NotOn(name, ty) => format!("not found: `{name}` on `{}`", self.sym_key(ty)),
            Why::NotFound(name, id) => format!("`{name}` not found in `{}`", self.sym_key(id)),
            Why::Untyped(id) => format!(
                "method call: receiver type unknown (`{}` is a {})",
                self.sym_key(id),
                self.t.syms[id as usize].kind.label()
            ),
        }
    }

    fn describe(&self, target: &Target) -> String {
        match target {
            Target::Sym(id) => self.sym_key(*id).to_owned(),
            Target::External(path) => path.clone(),
        }
    }

    // ---- references -------------------------------------------------------------------------

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
            Qualifier::Expr { call: Some(inner) } => match self.call_result_type(fi, r.scope, inner, r.line) {
                Some(Target::Sym(ty)) if r.path.is_empty() => self.call_of_value(ty),
                Some(ty) => self.walk_members(ty, &r.path).map(|t| (t, Strategy::ReceiverType)),
                None => match self.resolve_plain(fi, r.scope, inner, r.line, Shape::Method) {
                    Ok((Target::External(path), _)) => {
                        miss(format!("method call: receiver is the result of external `{path}`"))
                    }
                    Ok((Target::Sym(id), _)) => miss(format!(
                        "method call: receiver is the result of `{}` (return type not recorded)",
                        self.sym_key(id)
                    )),
                    Err(_) => miss("method call: receiver type unknown"),
                },
            },
            Qualifier::Expr { call: None }
                if r.path.len() <= 1 && !r.path.first().is_some_and(|p| is_identifier(p)) =>
            {
                miss("call of a computed expression")
            }
            Qualifier::Expr { call: None } => miss("method call: receiver type unknown"),
        };
        let mut result = run();
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
            *self.value_name.borrow_mut() = Some(name.clone());
            let again = run();
            *self.value_name.borrow_mut() = None;
            result = match again {
                Ok((t, by)) if !self.is_module(&t) => Ok((t, by)),
                _ if Self::is_call_site(r.kind) => miss(format!(
                    "call of `{name}` binds only to the module `{module}`: no function of that name is visible"
                )),
                _ => miss(format!("`{name}` names only the module `{module}` here, which is no value or type")),
            };
        }
        match result {
            Ok((Target::Sym(id), by)) => Resolution::Resolved { target: id, by },
            Ok((Target::External(path), _)) => Resolution::External(path),
            Err(missed) => Resolution::Unresolved(self.reason(missed)),
        }
    }

    /// A call of a value of type `ty` (`make()(x)`): the type says what the value looks like, not which
    /// definition is called, so it is no call target itself.
    fn call_of_value(&self, ty: SymId) -> Res<(Target, Strategy)> {
        miss(format!("call of a value of type `{}`: which definition it holds is not known", self.sym_key(ty)))
    }

    fn resolve_plain(
        &self,
        fi: u32,
        scope: Option<u32>,
        path: &[String],
        line: u32,
        shape: Shape,
    ) -> Res<(Target, Strategy)> {
        self.nested(|| self.resolve_plain_inner(fi, scope, path, line, shape))
    }

    /// Run a step of a resolution that may recurse (paths type bindings, imports chase re-exports,
    /// members climb parents), bounding the total nesting so no input can exhaust the stack.
    fn nested<T>(&self, step: impl FnOnce() -> Res<T>) -> Res<T> {
        if self.depth.get() >= MAX_NESTING {
            return miss("resolution chain too deep");
        }
        self.depth.set(self.depth.get() + 1);
        let result = step();
        self.depth.set(self.depth.get() - 1);
        result
    }

    fn resolve_plain_inner(
        &self,
        fi: u32,
        scope: Option<u32>,
        path: &[String],
        line: u32,
        shape: Shape,
    ) -> Res<(Target, Strategy)> {
        let Some(head) = path.first() else { return miss("empty reference") };
        let family = self.family(fi);
        let special = family == Family::Rust && matches!(head.as_str(), "crate" | "self" | "super" | "Self");
        let (start, mut by) = if special {
            (self.rust_special_head(fi, scope, head)?, Strategy::Path)
        } else {
            let found = if path.len() > 1 {
                // `c.connect()` starts at a local; `task::spawn()` at an item, whatever locals share its name.
                let locals = family != Family::Rust || shape != Shape::Path;
                self.as_namespace(|| self.lookup(fi, scope, head, line, locals))
            } else {
                self.lookup_name(fi, scope, head, line)
            };
            match found {
                Ok(Found::Target(target, by)) => (target, by),
                Ok(Found::Local(_)) if path.len() == 1 => return miss("call of a local value"),
                Ok(Found::Local(Some(ty))) => (ty, Strategy::ReceiverType),
                Ok(Found::Local(None)) => return miss("method call: receiver type unknown"),
                Err(missed) => {
                    let absent = missed
                        .text()
                        .is_some_and(|reason| reason.starts_with("name `") && reason.ends_with("not found in scope"));
                    if absent && path.len() > 1 {
                        // Rust: an unknown head of a path (`serde_json::to_string`) is an extern crate.
                        if family == Family::Rust && shape != Shape::Method {
                            return Ok((Target::External(path.join("::")), Strategy::Path));
                        }
                        return miss("method call: receiver type unknown");
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

    fn is_namespace_or_type(&self, target: &Target) -> bool {
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
    fn walk_members(&self, start: Target, rest: &[String]) -> Res<Target> {
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
                    return miss(format!("field `{seg}` of `{}` has no known type", self.describe(&current)));
                }
                Err(m) => return Err(m),
            };
        }
        Ok(current)
    }

    fn resolve_on_self(&self, fi: u32, scope: Option<u32>, path: &[String]) -> Res<(Target, Strategy)> {
        self.nested(|| self.resolve_on_self_inner(fi, scope, path))
    }

    fn resolve_on_self_inner(&self, fi: u32, scope: Option<u32>, path: &[String]) -> Res<(Target, Strategy)> {
        let Some(ty) = self.enclosing_type(fi, scope) else {
            return match self.enclosing_impl(fi, scope) {
                // `impl Tr for Vec<T>`, or a type defined inside a macro the parser cannot see into.
                Some(self_ty) => miss(format!("`self`: impl type `{}` is not defined in the tree", self_ty.join("::"))),
                None => miss("`self` outside a type"),
            };
        };
        let Some((first, rest)) = path.split_first() else { return miss("empty reference") };
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
                    None => return miss(format!("field `{first}` of `{}` has no known type", self.describe(&ty))),
                }
            }
        };
        if rest.is_empty() {
            return Ok((start, Strategy::SelfValue));
        }
        // `self.method().x` is not a path: only fields continue.
        match self.field_type(&ty, first) {
            Some(field_ty) => Ok((self.walk_members(field_ty, rest)?, Strategy::ReceiverType)),
            None => miss(format!("field `{first}` of `{}` has no known type", self.describe(&ty))),
        }
    }

    fn resolve_on_super(&self, fi: u32, scope: Option<u32>, path: &[String]) -> Res<(Target, Strategy)> {
        let Some(Target::Sym(ty)) = self.enclosing_type(fi, scope) else {
            return miss("`super` outside a class");
        };
        let parents = self.supers.get(&ty).cloned().unwrap_or_default();
        let Some(parent) = parents.into_iter().next() else {
            return miss(format!("`super` in `{}`: no known parent class", self.sym_key(ty)));
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
        let crate_name =
            self.t.layout.rust_module(&self.t.files[fi as usize].path).map(|m| m.crate_name).unwrap_or_default();
        let candidates = self.macros.get(&(crate_name, bare.to_owned())).map(Vec::as_slice).unwrap_or(&[]);
        match candidates {
            [one] => Resolution::Resolved { target: *one, by: Strategy::MacroScope },
            [] if builtins::is_builtin(Family::Rust, last) => Resolution::External(format!("std::{last}")),
            [] => Resolution::Unresolved(format!("macro `{last}` not defined in this crate (a dependency's?)")),
            many => Resolution::Unresolved(format!("macro `{last}` defined {} times in the crate", many.len())),
        }
    }

    // ---- scope ------------------------------------------------------------------------------

    /// Look a bare name up from a scope: enclosing functions, the namespace, then the language's builtins.
    fn lookup_name(&self, fi: u32, scope: Option<u32>, name: &str, line: u32) -> Res<Found> {
        self.lookup(fi, scope, name, line, true)
    }

    /// Look a name up as [`Self::lookup_name`] does, past the functions' locals: the head of a Rust path
    /// (`task::spawn`, a `use`) and a macro's name never name a local value.
    fn lookup_item(&self, fi: u32, scope: Option<u32>, name: &str, line: u32) -> Res<(Target, Strategy)> {
        match self.lookup(fi, scope, name, line, false)? {
            Found::Target(target, by) => Ok((target, by)),
            Found::Local(_) => unreachable!("a lookup past the locals finds no local"),
        }
    }

    fn lookup(&self, fi: u32, scope: Option<u32>, name: &str, line: u32, locals: bool) -> Res<Found> {
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
                    if let Some(sym) = self.t.sym_of_def(fi, di) {
                        match self.t.members(sym, name) {
                            [one] => return Ok(Found::Target(Target::Sym(*one), Strategy::Scope)),
                            [] => {}
                            many => return miss(format!("name `{name}` defined {} times in scope", many.len())),
                        }
                    }
                    if let Some(list) = ix.imports.get(&(Some(di), name.to_owned())) {
                        return self.resolve_import_list(fi, list).map(|t| Found::Target(t, Strategy::Import));
                    }
                }
                DefKind::Module => {
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
                _ => {}
            }
            cur = def.parent;
        }
        let module = self.t.file_module[fi as usize];
        match self.namespace_member(module, name, true, 0) {
            Ok((t, by)) => Ok(Found::Target(t, by)),
            Err(m) if !m.is_not_found() => Err(m),
            Err(_) => self.builtin_or_miss(fi, name),
        }
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
        miss(format!("name `{name}` not found in scope"))
    }

    /// A member of a module or inline module, seen from inside (all imports) or outside (re-exports only).
    /// Errors starting with "not found" mean absent (the caller may look further).
    fn namespace_member(&self, ns: SymId, name: &str, inside: bool, depth: usize) -> Res<(Target, Strategy)> {
        self.nested(|| self.namespace_member_inner(ns, name, inside, depth))
    }

    fn namespace_member_inner(&self, ns: SymId, name: &str, inside: bool, depth: usize) -> Res<(Target, Strategy)> {
        if depth > MAX_DEPTH {
            return miss("not found: re-export chain too deep");
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
                        if let Ok((t, _)) = self.member_of(module, name, depth + 1)
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
                n => return miss(format!("name `{name}` comes from {n} glob imports")),
            }
            if let [only] = external_globs.as_slice() {
                return Ok((Target::External(format!("{only}{}{name}", separator(family))), Strategy::Import));
            }
        }
        Err(Miss(Why::NotIn(name.into(), ns)))
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

    /// One step along a path: `target.name`.
    fn member(&self, target: &Target, name: &str, depth: usize) -> Res<Target> {
        match target {
            Target::External(path) => {
                let sep = separator(self.family.get());
                Ok(Target::External(format!("{path}{sep}{name}")))
            }
            Target::Sym(id) if !self.is_namespace_or_type(target) => {
                // `connection.cursor()` on a module-level variable: its type is not recorded.
                Err(Miss(Why::Untyped(*id)))
            }
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
            return miss("not found: inheritance chain too deep");
        }
        if let Some(id) = self.pick(self.t.members(ty, name), name)? {
            return Ok(Target::Sym(id));
        }
        let mut found: Vec<Target> = Vec::new();
        let mut external: Option<Target> = None;
        for parent in self.supers.get(&ty).map(Vec::as_slice).unwrap_or(&[]) {
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
            n => return miss(format!("`{name}` inherited from {n} parents of `{}`", self.sym_key(ty))),
        }
        if let Some(ext) = external {
            return Ok(ext);
        }
        let family = self.family(self.t.syms[ty as usize].file);
        let kind = self.t.syms[ty as usize].kind;
        if family == Family::Rust
            && kind == SymKind::Def(DefKind::Enum)
            && name.starts_with(|c: char| c.is_ascii_uppercase())
        {
            // `Error::Io(e)`: a variant constructs its enum.
            return Ok(Target::Sym(ty));
        }
        if family == Family::Rust && is_derivable_method(name) {
            // Derived or blanket trait methods (`clone`, `to_string`) come from std.
            return Ok(Target::External(format!("{}::{name}", self.sym_key(ty))));
        }
        Err(Miss(Why::NotOn(name.into(), ty)))
    }

    /// One symbol among several of the same name: a tie is a miss, never a guess.
    fn pick(&self, ids: &[SymId], name: &str) -> Res<Option<SymId>> {
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
                miss(format!("name `{name}` defined {} times in scope", many.len()))
            }
        }
    }

    fn rust_special_head(&self, fi: u32, scope: Option<u32>, head: &str) -> Res<Target> {
        match head {
            "crate" => {
                let file = &self.t.files[fi as usize];
                let Some(m) = self.t.layout.rust_module(&file.path) else {
                    return miss("`crate` outside a Cargo target");
                };
                match self.t.module_by_key.get(&m.crate_name) {
                    Some(&id) => Ok(Target::Sym(id)),
                    None => miss(format!("crate root of `{}` not in the tree", m.crate_name)),
                }
            }
            "self" => Ok(Target::Sym(self.current_namespace(fi, scope))),
            "super" => {
                let ns = self.current_namespace(fi, scope);
                match self.t.syms[ns as usize].parent {
                    Some(p) => Ok(Target::Sym(p)),
                    None => miss("`super` of a crate root"),
                }
            }
            _ => self
                .enclosing_type(fi, scope)
                .ok_or_else(|| Miss(Why::Text("`Self` outside an impl or trait".to_owned()))),
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
    fn enclosing_impl(&self, fi: u32, scope: Option<u32>) -> Option<&[String]> {
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

    // ---- types ------------------------------------------------------------------------------

    fn binding_type(&self, fi: u32, bi: u32) -> Option<Target> {
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
    fn call_result_type(&self, fi: u32, scope: Option<u32>, callee: &[String], line: u32) -> Option<Target> {
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
    fn field_type(&self, ty: &Target, field: &str) -> Option<Target> {
        let Target::Sym(id) = ty else { return None };
        let sym = &self.t.syms[*id as usize];
        let di = sym.def?;
        let list = self.index[sym.file as usize].bindings.get(&(Some(di), field.to_owned()))?;
        let &b = list.last()?;
        self.binding_type(sym.file, b)
    }

    // ---- inheritance and impls (computed before references) --------------------------------

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

    /// Bind what an import statement names, for IMPORTS edges.
    pub fn import_target(&self, fi: u32, ii: u32) -> Res<Target> {
        self.resolve_import(fi, ii)
    }

    pub fn target_key(&self, target: &Target) -> String {
        self.describe(target)
    }

    /// Whether a reference kind is a call site (accounted exactly once).
    pub fn is_call_site(kind: RefKind) -> bool {
        matches!(kind, RefKind::Call | RefKind::Instantiate | RefKind::Decorator | RefKind::Jsx)
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
