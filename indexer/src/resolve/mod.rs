//! Name resolution: binding what a file names to the symbols of the tree, import- and scope-aware.
//!
//! A reference resolves through, in order: typed locals and nested definitions of the enclosing
//! functions, the enclosing namespace (module items, imports, glob imports), then the names every file
//! of the language sees (prelude, builtins, globals) which are `External`. Paths continue member by
//! member; receivers are typed from declared facts only (annotations, constructor calls, recorded return
//! types). Anything uncertain (a tie, an unknown receiver, a missing module) is a [`Miss`] with a reason,
//! never a guess.
//!
//! The resolver's methods are split by concern: `refs` binds one reference, `lookup` finds a name in
//! scope, `members` takes a path's next step, `types` says what a value holds, `imports` what an import
//! binds.
//!
//! What a lookup wants is `Resolver::wanted` (set by `wanting`): a lookup wanting a value or a type
//! bypasses the import memo. A `Miss` that only says where a name was absent keeps the name and the
//! symbol looked in, and is written out as text only when a reference ends unresolved with it, since most
//! misses are passed over by a lookup that looks further.
//!
//! The rules every language keeps: a call site never binds to a module, nor does any Rust reference, nor
//! does a call bind to the type of a value it calls (`make()(x)`). In Rust and Python a second pass looks
//! for a value of the same name: a function the module shares its name with, or one the package's
//! `__init__.py` imports over its submodule; none found is unresolved. A name a function binds (typed or
//! not: parameters, locals, loop and pattern variables, closure and lambda parameters) shadows every
//! outer meaning of that name there, so a call or value of it binds to no definition. In Python that
//! holds from anywhere in the function, as the language scopes it; in Rust and TypeScript from its line
//! on, and for a `let`, assignment, `if let` or `for` from the line after its value, which still reads
//! the name's earlier meaning. Bindings carry lines, not columns, and function-wide, not block, scope; a
//! Rust path (`task::spawn`), `use` or macro never starts at a local. A binding read from a block outside
//! any function (a macro invocation, `rgtest!(name, |dir: Dir| { … })`, or a TypeScript callback) holds
//! within that block's lines (`FileFacts::local_blocks`).

use std::cell::RefCell;

use drsg_parsers::{DefKind, Family, RefKind};
use foldhash::{HashMap, HashMapExt};

mod imports;
mod lookup;
mod members;
mod reason;
mod refs;
mod types;

pub use reason::Reason;

use crate::table::{SymId, SymKind, Table};

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
    Said(Reason),
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
    /// Whether the name is absent (the caller may look further).
    fn is_not_found(&self) -> bool {
        match &self.0 {
            Why::Said(reason) => reason.is_not_found(),
            Why::NotIn(..) | Why::NotOn(..) => true,
            Why::NotFound(..) | Why::Untyped(_) => false,
        }
    }

    /// The reason, when it is made already.
    fn said(&self) -> Option<&Reason> {
        match &self.0 {
            Why::Said(reason) => Some(reason),
            _ => None,
        }
    }
}

type Res<T> = Result<T, Miss>;

/// (file, import) → what it binds; `None` while being resolved (a cycle).
type ImportMemo = HashMap<(u32, u32), Option<Res<Target>>>;

fn miss<T>(reason: Reason) -> Res<T> {
    Err(Miss(Why::Said(reason)))
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
    /// A call the body of the file's own macro makes, read from its expansion at the invocation.
    Macro,
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
            Strategy::Macro => "macro",
        }
    }

    pub fn confidence(self) -> &'static str {
        match self {
            Strategy::ReceiverType | Strategy::MacroScope | Strategy::Macro => "medium",
            _ => "high",
        }
    }
}

/// The outcome of one reference.
#[derive(Debug, Clone)]
pub enum Resolution {
    Resolved { target: SymId, by: Strategy },
    External(String),
    Unresolved(Reason),
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
    /// A type an annotation names: a [`Shape::Path`] whose head is never a local, in any language (a
    /// TypeScript callback's parameter does not hide the interface its constant shares a name with).
    Type,
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
    /// Rust: the tree's types by key, to tell an external stand-in that names one.
    rust_types: HashMap<String, SymId>,
    /// Rust: each file's crate, found when first asked (macro calls and `crate::` paths ask often).
    file_crates: Vec<std::cell::OnceCell<Option<String>>>,
    /// The language family being resolved: it decides how external paths are joined.
    family: std::cell::Cell<Family>,
    /// The meaning a lookup of a name wants, when one name has several: Rust keeps modules and values in
    /// separate namespaces, so while a call `x::name(…)` that first bound to a module `name` is resolved
    /// again, lookups of `name` skip modules (see `resolve_ref`); TypeScript merges an interface and a
    /// value of one name, a call meaning the value and an annotation the type.
    wanted: RefCell<Option<(String, Want)>>,
}

/// What a lookup of a name wants (see `Resolver::wanted`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Want {
    Value,
    Type,
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
        let mut rust_types = HashMap::new();
        for (id, sym) in t.syms.iter().enumerate() {
            if sym.kind.is_type() && !sym.dead && t.files[sym.file as usize].lang.family() == Family::Rust {
                rust_types.insert(sym.key.clone(), id as SymId);
            }
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
            rust_types,
            impl_self: HashMap::new(),
            supers: HashMap::new(),
            links: Vec::new(),
            import_memo: RefCell::new(HashMap::new()),
            depth: std::cell::Cell::new(0),
            family: std::cell::Cell::new(Family::Rust),
            wanted: RefCell::new(None),
            file_crates: vec![std::cell::OnceCell::new(); t.files.len()],
        }
    }

    /// The crate of Rust file `fi`, if it is in a Cargo target.
    pub(crate) fn crate_of(&self, fi: u32) -> Option<&str> {
        self.file_crates[fi as usize]
            .get_or_init(|| self.t.layout.rust_module(&self.t.files[fi as usize].path).map(|m| m.crate_name))
            .as_deref()
    }

    /// The per-file indexes, impl self types and types' parents, to build a later resolver from.
    pub fn into_parts(self) -> ResolverParts {
        ResolverParts { index: self.index, impl_self: self.impl_self, links: self.links }
    }

    /// Whether lookups of `name` skip modules (the value pass of a call, see `resolve_ref`).
    fn wants_value(&self, name: &str) -> bool {
        matches!(self.wanted.borrow().as_ref(), Some((n, Want::Value)) if n == name)
    }

    fn wants_type(&self, name: &str) -> bool {
        matches!(self.wanted.borrow().as_ref(), Some((n, Want::Type)) if n == name)
    }

    /// Runs `lookup` wanting `want` of `name` (and what an alias of it imports), then restores the wish.
    fn wanting<T>(&self, name: &str, want: Want, lookup: impl FnOnce() -> T) -> T {
        let saved = self.wanted.borrow_mut().replace((name.to_owned(), want));
        let out = lookup();
        *self.wanted.borrow_mut() = saved;
        out
    }

    /// Runs a lookup of a path's head or middle segment, which names a namespace or a type, so the
    /// value pass does not apply to it.
    fn as_namespace<T>(&self, lookup: impl FnOnce() -> T) -> T {
        let saved = self.wanted.borrow_mut().take();
        let out = lookup();
        *self.wanted.borrow_mut() = saved;
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

    /// The reason of a miss.
    fn reason(&self, miss: Miss) -> Reason {
        let key = |id: SymId| self.sym_key(id).to_owned();
        match miss.0 {
            Why::Said(reason) => reason,
            Why::NotIn(name, ns) => Reason::NotIn { name: name.into(), namespace: key(ns) },
            Why::NotOn(name, ty) => Reason::NotOn { name: name.into(), ty: key(ty) },
            Why::NotFound(name, id) => Reason::NotFoundIn { name: name.into(), owner: key(id) },
            Why::Untyped(id) => {
                Reason::ReceiverUntyped { key: key(id), label: self.t.syms[id as usize].kind.label().to_string() }
            }
        }
    }

    fn describe(&self, target: &Target) -> String {
        match target {
            Target::Sym(id) => self.sym_key(*id).to_owned(),
            Target::External(path) => path.clone(),
        }
    }

    /// Run a step of a resolution that may recurse (paths type bindings, imports chase re-exports,
    /// members climb parents), bounding the total nesting so no input can exhaust the stack.
    fn nested<T>(&self, step: impl FnOnce() -> Res<T>) -> Res<T> {
        if self.depth.get() >= MAX_NESTING {
            return miss(Reason::ChainTooDeep);
        }
        self.depth.set(self.depth.get() + 1);
        let result = step();
        self.depth.set(self.depth.get() - 1);
        result
    }

    /// Bind what an import statement names, for IMPORTS edges; why not, when it cannot be bound.
    pub fn import_target(&self, fi: u32, ii: u32) -> Result<Target, Reason> {
        self.resolve_import(fi, ii).map_err(|missed| self.reason(missed))
    }

    pub fn target_key(&self, target: &Target) -> String {
        self.describe(target)
    }

    /// Whether a reference kind is a call site (accounted exactly once).
    pub fn is_call_site(kind: RefKind) -> bool {
        matches!(kind, RefKind::Call | RefKind::Instantiate | RefKind::Decorator | RefKind::Jsx)
    }
}
