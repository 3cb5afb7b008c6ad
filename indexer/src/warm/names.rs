//! The names a change travels by: a file's surface (what other files may read of it, by name) and every
//! name its facts mention, with hashed sets of names that rule most files out in a few binary searches.

use drsg_parsers::{Def, FileFacts, Qualifier, TypeHint};
use foldhash::{HashMap, HashMapExt, HashSet};

use crate::table::ParsedFile;

/// The chain of enclosing definitions' names of def `di`, for fingerprints that do not move with lines.
fn def_path(defs: &[Def], mut di: Option<u32>) -> String {
    let mut parts = Vec::new();
    while let Some(i) = di {
        let def = &defs[i as usize];
        parts.push(def.name.as_str());
        di = def.parent;
    }
    parts.reverse();
    parts.join("/")
}

/// Surface items of a file, by the names they define: what other files may read. Lines are left out;
/// a body edit changes none of them.
fn surface(facts: &FileFacts) -> HashMap<&str, Vec<String>> {
    let mut out: HashMap<&str, Vec<String>> = HashMap::new();
    let defs = &facts.defs;
    for def in defs {
        let fingerprint = format!(
            "def {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {} {} in {}",
            def.kind,
            def.signature,
            def.visibility,
            def.impl_block,
            def.returns,
            def.generics,
            def.callbacks,
            def.callback_types,
            def.returns_fields,
            def.returns_args,
            def.external_body,
            def.is_test,
            def_path(defs, def.parent)
        );
        out.entry(&def.name).or_default().push(fingerprint);
    }
    for imp in &facts.imports {
        let fingerprint = format!(
            "import {:?} {:?} {:?} {} {} in {}",
            imp.source,
            imp.name,
            imp.alias,
            imp.glob,
            imp.reexport,
            def_path(defs, imp.scope)
        );
        for name in [Some(imp.alias.as_str()), imp.name.as_deref()].into_iter().flatten() {
            out.entry(name).or_default().push(fingerprint.clone());
        }
    }
    for e in &facts.exports {
        let fingerprint = format!("export {:?} {:?}", e.local, e.exported);
        out.entry(&e.exported).or_default().push(fingerprint.clone());
        out.entry(&e.local).or_default().push(fingerprint);
    }
    for inh in &facts.inherits {
        let child = inh.child_def.map(|d| def_path(defs, Some(d)));
        let fingerprint = format!("inherits {:?} {:?} {:?} {:?}", child, inh.child, inh.kind, inh.target);
        if let Some(name) = inh.child.last() {
            out.entry(name).or_default().push(fingerprint.clone());
        }
        if let Some(d) = inh.child_def {
            out.entry(&defs[d as usize].name).or_default().push(fingerprint);
        }
    }
    for b in facts.bindings.iter().filter(|b| is_surface_binding(defs, b.scope)) {
        let fingerprint = format!("binding {:?} in {}", b.hint, def_path(defs, b.scope));
        out.entry(&b.name).or_default().push(fingerprint);
    }
    // What a macro's body calls runs where other files invoke it.
    for m in &facts.macro_calls {
        if let Some(def) = defs.get(m.def as usize) {
            out.entry(&def.name).or_default().push(format!("macro calls {:?}", m.calls));
        }
    }
    for list in out.values_mut() {
        list.sort();
    }
    out
}

/// Bindings other files can read: module-level ones, and fields of a type.
fn is_surface_binding(defs: &[Def], scope: Option<u32>) -> bool {
    match scope {
        None => true,
        Some(d) => defs[d as usize].kind.is_type() || defs[d as usize].kind == drsg_parsers::DefKind::Module,
    }
}

/// Adds the names whose surface items differ between `old` and `new` facts of one file.
pub(super) fn surface_changes(old: &FileFacts, new: &FileFacts, names: &mut HashSet<String>) {
    let (a, b) = (surface(old), surface(new));
    for (name, items) in &a {
        if b.get(name) != Some(items) {
            names.insert((*name).to_owned());
        }
    }
    for name in b.keys() {
        if !a.contains_key(name) {
            names.insert((*name).to_owned());
        }
    }
    invoked_as_macros(old, names);
    invoked_as_macros(new, names);
}

/// Adds `name!` for each macro of `facts` whose name is in `names`: invocations name it so.
fn invoked_as_macros(facts: &FileFacts, names: &mut HashSet<String>) {
    for def in facts.defs.iter().filter(|d| d.kind == drsg_parsers::DefKind::Macro) {
        if names.contains(&def.name) {
            names.insert(format!("{}!", def.name));
        }
    }
}

/// Adds every surface name of a file that appeared or disappeared, and the stems of its path.
pub(super) fn whole_surface(file: &ParsedFile, names: &mut HashSet<String>) {
    names.extend(surface(&file.facts).into_keys().map(str::to_owned));
    invoked_as_macros(&file.facts, names);
    for part in file.path.split('/') {
        names.insert(part.split('.').next().unwrap_or(part).to_owned());
    }
}

/// Identifier-like pieces of an import source (`./a/b`, `crate::x`, `..util`).
fn source_parts(source: &str) -> impl Iterator<Item = &str> {
    source.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '-')).filter(|p| !p.is_empty())
}

/// A set of names, with a filter on their lengths that rejects most strings before hashing them.
pub(super) struct Names<'a> {
    set: HashSet<&'a str>,
    /// Bit `n` set when some name is `n` bytes long (names of 128 bytes or more always pass).
    lengths: u128,
    /// [`name_hash`] of each name, sorted, to ask a file's [`Mentions`] first.
    hashes: Vec<u64>,
}

impl<'a> Names<'a> {
    pub(super) fn new(names: impl IntoIterator<Item = &'a str>) -> Names<'a> {
        let set: HashSet<&str> = names.into_iter().collect();
        let lengths = set.iter().filter(|n| n.len() < 128).fold(0u128, |bits, n| bits | 1 << n.len());
        let mut hashes: Vec<u64> = set.iter().map(|n| name_hash(n)).collect();
        hashes.sort_unstable();
        Names { set, lengths, hashes }
    }

    pub(super) fn contains(&self, name: &str) -> bool {
        (name.len() >= 128 || self.lengths >> name.len() & 1 == 1) && self.set.contains(name)
    }
}

/// A fixed, fast hash of a name.
fn name_hash(name: &str) -> u64 {
    drsg_parsers::fnv1a(name.as_bytes())
}

/// The hashes of every name a file's facts mention where [`mentions_any`] and [`passes_on`] look,
/// sorted. Asking it first settles in a few binary searches, for all but the few files that do
/// mention a changed name, what walking their facts would (a hash collision only costs that walk).
pub(crate) struct Mentions(Vec<u64>);

impl Mentions {
    pub(super) fn of(facts: &FileFacts) -> Mentions {
        let mut hashes: Vec<u64> = mentions(facts).map(name_hash).collect();
        hashes.sort_unstable();
        hashes.dedup();
        Mentions(hashes)
    }

    /// Whether the file may name one of `names` (false: it surely does not).
    pub(super) fn may_name(&self, names: &Names<'_>) -> bool {
        names.hashes.iter().any(|h| self.0.binary_search(h).is_ok())
    }
}

pub(super) fn any_in<'a>(parts: impl IntoIterator<Item = &'a String>, names: &Names<'_>) -> bool {
    parts.into_iter().any(|p| names.contains(p.as_str()))
}

/// Calls `add` with the names of surface items of `facts` that mention one of `names`.
pub(super) fn passes_on(facts: &FileFacts, names: &Names<'_>, add: &mut dyn FnMut(&str)) {
    let defs = &facts.defs;
    for def in defs {
        let returns = def.returns.iter().flatten();
        let block = def.impl_block.iter().flat_map(|b| b.self_ty.iter().chain(b.trait_.iter().flatten()));
        let callbacks = def.callbacks.iter().flat_map(|(_, types)| types.iter().flatten().flatten());
        let callbacks = callbacks.chain(def.callback_types.iter().flat_map(|(_, path)| path));
        let fields = def.returns_fields.iter().flat_map(|(_, path)| path);
        if any_in(returns.chain(block).chain(callbacks).chain(fields), names) {
            add(&def.name);
        }
    }
    for imp in &facts.imports {
        let named = source_parts(&imp.source).any(|p| names.contains(p))
            || imp.name.as_deref().is_some_and(|n| names.contains(n))
            || names.contains(imp.alias.as_str());
        if named {
            add(&imp.alias);
            if let Some(name) = &imp.name {
                add(name);
            }
        }
    }
    for e in &facts.exports {
        if names.contains(e.local.as_str()) || names.contains(e.exported.as_str()) {
            add(&e.exported);
            add(&e.local);
        }
    }
    for inh in &facts.inherits {
        if any_in(inh.target.iter().chain(&inh.child), names) {
            if let Some(name) = inh.child.last() {
                add(name);
            }
            if let Some(d) = inh.child_def {
                add(&defs[d as usize].name);
            }
        }
    }
    for b in facts.bindings.iter().filter(|b| is_surface_binding(defs, b.scope)) {
        if any_in(hint_path(&b.hint), names) {
            add(&b.name);
        }
    }
    // Invocations of a macro in other files call what its body names.
    for m in &facts.macro_calls {
        let named =
            m.calls.iter().flat_map(|c| &c.path).any(|p| names.contains(p.trim_end_matches('!')) || names.contains(p));
        if named && let Some(def) = defs.get(m.def as usize) {
            add(&def.name);
            add(&format!("{}!", def.name));
        }
    }
}

fn hint_path(hint: &Option<TypeHint>) -> &[String] {
    match hint {
        Some(
            TypeHint::Annotated(p)
            | TypeHint::Constructed(p)
            | TypeHint::CallResult(p)
            | TypeHint::Field(p)
            | TypeHint::Alias(p),
        ) => p,
        Some(TypeHint::CallChain(call, _)) => call,
        Some(TypeHint::Callback { callee, .. }) => callee,
        Some(TypeHint::Destructured { call, .. }) => call,
        Some(TypeHint::Contextual { ty, .. }) => ty,
        None => &[],
    }
}

/// The method names of a binding's call chain: a change of any of them can change the binding's type.
fn hint_steps(hint: &Option<TypeHint>) -> &[String] {
    match hint {
        Some(TypeHint::CallChain(_, then) | TypeHint::Callback { then, .. }) => then,
        _ => &[],
    }
}

/// Every name `facts` mention where a change of meaning can reach the file: reference paths and
/// call chains, import sources (split), names and aliases, exports, inheritance, bindings and their
/// types, return types and impl blocks. [`passes_on`] looks at a subset of these.
fn mentions(facts: &FileFacts) -> impl Iterator<Item = &str> {
    let refs = facts.refs.iter().flat_map(|r| {
        let (call, then): (&[String], &[String]) = match &r.qualifier {
            Qualifier::Expr { call: Some(call), then } => (call, then),
            _ => (&[], &[]),
        };
        strs(&r.path).chain(strs(call)).chain(strs(then))
    });
    let imports = facts
        .imports
        .iter()
        .flat_map(|i| source_parts(&i.source).chain(i.name.as_deref()).chain(std::iter::once(i.alias.as_str())));
    let exports = facts.exports.iter().flat_map(|e| [e.local.as_str(), e.exported.as_str()]);
    let inherits = facts.inherits.iter().flat_map(|i| strs(&i.target).chain(strs(&i.child)));
    let bindings = facts.bindings.iter().flat_map(|b| {
        let bound = match &b.hint {
            Some(TypeHint::Callback { bound, .. }) => Some(bound.paths().flat_map(|p| strs(p))),
            _ => None,
        };
        std::iter::once(b.name.as_str())
            .chain(strs(hint_path(&b.hint)))
            .chain(strs(hint_steps(&b.hint)))
            .chain(bound.into_iter().flatten())
    });
    let defs = facts.defs.iter().flat_map(|d| {
        let block = d.impl_block.iter().flat_map(|b| strs(&b.self_ty).chain(b.trait_.iter().flat_map(|t| strs(t))));
        let callbacks = d.callbacks.iter().flat_map(|(_, types)| types.iter().flatten().flat_map(|t| strs(t)));
        let callbacks = callbacks.chain(d.callback_types.iter().flat_map(|(_, path)| strs(path)));
        let fields = d.returns_fields.iter().flat_map(|(_, path)| strs(path));
        d.returns.iter().chain(&d.returns_ok).flat_map(|r| strs(r)).chain(block).chain(callbacks).chain(fields)
    });
    refs.chain(imports).chain(exports).chain(inherits).chain(bindings).chain(defs)
}

fn strs(v: &[String]) -> impl Iterator<Item = &str> {
    v.iter().map(String::as_str)
}

/// Whether anything in `facts` names one of `names`.
pub(super) fn mentions_any(facts: &FileFacts, names: &Names<'_>) -> bool {
    mentions(facts).any(|name| names.contains(name))
}
