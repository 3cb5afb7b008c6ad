//! From the symbol table and resolver to nodes and edges: structure, references, imports, inheritance,
//! with every call site accounted for exactly once (resolved, external, or unresolved with its reason).
//!
//! An invocation that binds to another file's macro adds the macro body's calls as sites at the
//! invocation (`Builder::macro_body`, nested up to four macros deep), bound where it is invoked as
//! `macro_rules!` paths are; `warm::names` passes a body's names on to the macro's, so folds resolve
//! its invokers again.

use std::collections::BTreeMap;

use drsg_parsers::{DefKind, Family, InheritKind, RefKind};
use drsg_planes::{EdgeType, KeyedEdge, NewEdge, NodeData, PlaneBatch};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use serde::Serialize;

use crate::resolve::{Resolution, Resolver, Target};
use crate::table::{SymId, SymKind, Table, separator};

/// Call-site and reference bookkeeping for the ledger.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct Accounting {
    pub call_sites: u64,
    pub resolved: u64,
    pub external: u64,
    pub unresolved: u64,
    /// Unresolved call sites by reason, names elided (`name `…` not found in scope`).
    pub unresolved_by_reason: BTreeMap<String, u64>,
    /// Type and value references bound to a symbol of the tree.
    pub references_bound: u64,
    /// Type and value references that bound to nothing in the tree (locals, external types).
    pub references_unbound: u64,
    pub imports_unresolved: u64,
    pub inherits_unresolved: u64,
}

/// Where an edge ends, before it is a node: a symbol, or a stand-in made on first use.
pub(crate) enum End<'a> {
    Sym(SymId),
    External(Family, &'a str),
    /// An unresolved reference: its file and the name used.
    Unresolved(&'a str, &'a str),
}

/// What receives the edges a builder makes.
pub(crate) trait Sink {
    fn edge(&mut self, t: &Table, src: SymId, dst: End<'_>, ty: &'static str, props_json: String);
}

/// The key of a stand-in (`ext::…`, `?::file::name`), which never takes a key of the tree.
fn stand_in_key(taken: &dyn Fn(&str) -> bool, end: &End<'_>) -> String {
    let mut key = String::new();
    write_stand_in_key(&mut key, taken, end);
    key
}

/// [`stand_in_key`] written over `key`, so that a caller looking up stand-ins made before can reuse one
/// buffer (Django: 111,000 edges end at 14,500 stand-ins).
fn write_stand_in_key(key: &mut String, taken: &dyn Fn(&str) -> bool, end: &End<'_>) {
    key.clear();
    let suffix = match *end {
        End::External(_, path) => {
            key.push_str("ext::");
            key.push_str(path);
            "#external"
        }
        End::Unresolved(file, name) => {
            key.push_str("?::");
            key.push_str(file);
            key.push_str("::");
            key.push_str(name);
            "#unresolved"
        }
        End::Sym(_) => unreachable!("a symbol is not a stand-in"),
    };
    if taken(key) {
        key.push_str(suffix);
    }
}

/// The node of the stand-in for `end`, whose key is `key`. Built only for a stand-in's first edge: most
/// edges to stand-ins end at one made before (Django: 111,000 edges, 14,500 stand-ins).
fn stand_in_node(key: String, end: &End<'_>) -> NodeData {
    match *end {
        End::External(family, path) => {
            let sep = separator(family);
            let name =
                path.rsplit(sep).next().unwrap_or(path).rsplit(['.', ':', '/']).next().unwrap_or(path).to_owned();
            NodeData { key, labels: vec!["External".into()], name, ..NodeData::default() }
        }
        End::Unresolved(file, name) => NodeData {
            key,
            labels: vec!["UnresolvedRef".into()],
            name: name.to_owned(),
            file: Some(file.to_owned()),
            ..NodeData::default()
        },
        End::Sym(_) => unreachable!("a symbol is not a stand-in"),
    }
}

/// The keys of the tree's symbols that a stand-in key could equal (those starting `ext::` or `?::`),
/// sorted: all a stand-in must avoid.
#[derive(PartialEq, Eq)]
pub(crate) struct Reserved(Vec<String>);

impl Reserved {
    pub(crate) fn of(t: &Table) -> Reserved {
        let mut keys: Vec<String> = t
            .syms
            .iter()
            .filter(|s| s.key.starts_with("ext::") || s.key.starts_with("?::"))
            .map(|s| s.key.clone())
            .collect();
        keys.sort();
        Reserved(keys)
    }

    pub(crate) fn contains(&self, key: &str) -> bool {
        self.0.binary_search_by(|r| r.as_str().cmp(key)).is_ok()
    }
}

/// The sink of a whole-plane write: nodes are numbered (symbols `0..base`, written before resolution;
/// stand-ins after, as they first appear) and handed to the store in batches.
struct Numbered {
    base: usize,
    /// Stand-in nodes already handed over in earlier batches.
    emitted: usize,
    nodes: Vec<NodeData>,
    edges: Vec<NewEdge>,
    extra: HashMap<String, usize>,
    /// Keys of the tree's symbols a stand-in could take (a crate named `ext`).
    taken: Reserved,
    /// The key of the stand-in being looked up.
    key: String,
}

impl Numbered {
    /// The stand-ins and edges made since the last batch.
    fn take_batch(&mut self) -> PlaneBatch {
        self.emitted += self.nodes.len();
        // The next batch's edges get their room at once rather than by doubling (each doubling copies and
        // faults in fresh pages, since the last batch's memory is freed by the writer's thread).
        let edges = std::mem::replace(&mut self.edges, Vec::with_capacity(BATCH_EDGES + BATCH_SLACK));
        PlaneBatch { nodes: std::mem::take(&mut self.nodes), edges }
    }
}

impl Sink for Numbered {
    fn edge(&mut self, _t: &Table, src: SymId, dst: End<'_>, ty: &'static str, props_json: String) {
        let dst = match dst {
            End::Sym(id) => id as usize,
            end => {
                let taken = &self.taken;
                write_stand_in_key(&mut self.key, &|k| taken.contains(k), &end);
                match self.extra.get(self.key.as_str()) {
                    Some(&i) => i,
                    None => {
                        let i = self.base + self.emitted + self.nodes.len();
                        self.nodes.push(stand_in_node(self.key.clone(), &end));
                        self.extra.insert(self.key.clone(), i);
                        i
                    }
                }
            }
        };
        self.edges.push(NewEdge { src: src as usize, dst, ty: ty.into(), props_json });
    }
}

struct Builder<'a, S> {
    t: &'a Table,
    r: &'a Resolver<'a>,
    sink: S,
    acc: Accounting,
}

/// `refs` are each file's references, taken out of the table beforehand: they are the bulk of the facts and
/// no other file's resolution reads them, so each file's are freed as soon as its edges are built.
pub fn build(
    t: &Table,
    r: &Resolver<'_>,
    refs: Vec<Vec<drsg_parsers::Ref>>,
    mut emit: impl FnMut(PlaneBatch) -> bool,
) -> Option<(Accounting, crate::routes::WireCounts)> {
    let sink = Numbered {
        base: t.syms.len(),
        emitted: 0,
        nodes: Vec::with_capacity(1024),
        edges: Vec::with_capacity(BATCH_EDGES + BATCH_SLACK),
        extra: HashMap::new(),
        taken: Reserved::of(t),
        key: String::new(),
    };
    let mut b = Builder { t, r, sink, acc: Accounting::default() };
    for id in 0..t.syms.len() as SymId {
        b.structure(id);
    }
    for (fi, file_refs) in refs.into_iter().enumerate() {
        let fi = fi as u32;
        b.references(fi, &file_refs);
        drop(file_refs);
        b.imports(fi);
        b.inherits(fi);
        if b.sink.edges.len() >= BATCH_EDGES && !emit(b.sink.take_batch()) {
            return None;
        }
    }
    // The route layer, from every file's wire facts: its nodes follow the stand-ins.
    let layer = crate::routes::layer(t);
    let first = b.sink.base + b.sink.emitted + b.sink.nodes.len();
    let at = |end: crate::routes::LayerEnd| match end {
        crate::routes::LayerEnd::Sym(id) => id as usize,
        crate::routes::LayerEnd::Node(i) => first + i,
    };
    for (src, dst, ty, props_json) in layer.edges {
        b.sink.edges.push(NewEdge { src: at(src), dst: at(dst), ty: ty.into(), props_json });
    }
    b.sink.nodes.extend(layer.nodes);
    emit(b.sink.take_batch()).then_some((b.acc, layer.counts))
}

/// The route layer of `t` as an output whose edges name their ends by key, with its counts.
pub fn layer_output(t: &Table) -> (FileOutput, crate::routes::WireCounts) {
    let layer = crate::routes::layer(t);
    let key = |end: crate::routes::LayerEnd| match end {
        crate::routes::LayerEnd::Sym(id) => t.syms[id as usize].key.clone(),
        crate::routes::LayerEnd::Node(i) => layer.nodes[i].key.clone(),
    };
    let edges = layer
        .edges
        .iter()
        .map(|(src, dst, ty, props_json)| KeyedEdge {
            src: key(*src),
            dst: key(*dst),
            ty: (*ty).into(),
            props_json: props_json.clone(),
        })
        .collect();
    (FileOutput { nodes: layer.nodes, edges, stand_ins: Vec::new(), acc: Accounting::default() }, layer.counts)
}

/// Edges per batch handed to the store while resolution goes on.
const BATCH_EDGES: usize = 16_384;
/// Room beyond [`BATCH_EDGES`] for the edges of the file that fills a batch.
const BATCH_SLACK: usize = 4_096;

/// What one file contributes to its plane: its symbols' nodes, the edges made from its facts (the
/// structure edges into its symbols, its references, imports and inheritance), the stand-ins those
/// edges end at, and its share of the ledger's counts.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct FileOutput {
    pub nodes: Vec<NodeData>,
    pub edges: Vec<KeyedEdge>,
    pub stand_ins: Vec<NodeData>,
    pub acc: Accounting,
}

/// The sink of one file's output, nodes named by key.
struct Keyed<'a> {
    taken: &'a dyn Fn(&str) -> bool,
    out: FileOutput,
    seen: HashSet<String>,
}

impl Sink for Keyed<'_> {
    fn edge(&mut self, t: &Table, src: SymId, dst: End<'_>, ty: &'static str, props_json: String) {
        let dst = match dst {
            End::Sym(id) => t.syms[id as usize].key.clone(),
            end => {
                let key = stand_in_key(self.taken, &end);
                if self.seen.insert(key.clone()) {
                    self.out.stand_ins.push(stand_in_node(key.clone(), &end));
                }
                key
            }
        };
        let src = t.syms[src as usize].key.clone();
        self.out.edges.push(KeyedEdge { src, dst, ty: ty.into(), props_json });
    }
}

/// The output of file `fi`, whose symbols are `syms`. `taken` tells the keys of the tree's symbols.
pub fn file_output(t: &Table, r: &Resolver<'_>, fi: u32, syms: &[SymId], taken: &dyn Fn(&str) -> bool) -> FileOutput {
    let sink = Keyed { taken, out: FileOutput::default(), seen: HashSet::new() };
    let mut b = Builder { t, r, sink, acc: Accounting::default() };
    for &id in syms {
        b.structure(id);
    }
    b.references(fi, &t.files[fi as usize].facts.refs);
    b.imports(fi);
    b.inherits(fi);
    let mut out = b.sink.out;
    out.acc = b.acc;
    out.nodes = syms.iter().map(|&id| symbol_node(t, id)).collect();
    out
}

impl Accounting {
    /// Adds another file's counts.
    pub fn add(&mut self, other: &Accounting) {
        self.call_sites += other.call_sites;
        self.resolved += other.resolved;
        self.external += other.external;
        self.unresolved += other.unresolved;
        for (reason, n) in &other.unresolved_by_reason {
            *self.unresolved_by_reason.entry(reason.clone()).or_insert(0) += n;
        }
        self.references_bound += other.references_bound;
        self.references_unbound += other.references_unbound;
        self.imports_unresolved += other.imports_unresolved;
        self.inherits_unresolved += other.inherits_unresolved;
    }
}

/// One node per symbol, in symbol order (node index = symbol id).
///
/// Built on rayon's threads: in a whole-tree run this is the serial stretch between the parse and the
/// first rows written, with the parse's threads idle.
pub fn symbol_nodes(t: &Table) -> Vec<NodeData> {
    use rayon::prelude::*;
    (0..t.syms.len() as SymId).into_par_iter().map(|id| symbol_node(t, id)).collect()
}

fn symbol_node(t: &Table, id: SymId) -> NodeData {
    let sym = &t.syms[id as usize];
    let file = &t.files[sym.file as usize];
    let mut props = NodeProps { language: file.lang.name(), is_test: file.is_test, ..NodeProps::default() };
    let (line, end_line) = match t.def_of(id) {
        Some(def) => {
            props.signature = Some(&def.signature).filter(|s| !s.is_empty()).map(String::as_str);
            props.doc = def.doc.as_deref();
            props.visibility = Some(def.visibility.as_str());
            props.is_test |= def.is_test;
            (def.line, def.end_line)
        }
        None => {
            props.doc = file.facts.module_doc.as_deref();
            (1, file.lines.max(1))
        }
    };
    NodeData {
        key: sym.key.clone(),
        labels: vec![sym.kind.label().to_owned()],
        name: sym.name.clone(),
        file: Some(file.path.clone()),
        line: Some(line),
        end_line: Some(end_line),
        props_json: serde_json::to_string(&props).expect("plain fields serialize"),
    }
}

impl<S: Sink> Builder<'_, S> {
    /// The edge from symbol `id`'s parent to it.
    fn structure(&mut self, id: SymId) {
        let sym = &self.t.syms[id as usize];
        let Some(parent) = sym.parent else { return };
        let parent_kind = self.t.syms[parent as usize].kind;
        let ty = if parent_kind.is_type() && matches!(sym.kind, SymKind::Def(DefKind::Method)) {
            EdgeType::HasMethod.as_str()
        } else {
            EdgeType::Contains.as_str()
        };
        self.edge(parent, End::Sym(id), ty, &EdgeProps::default());
    }

    fn edge(&mut self, src: SymId, dst: End<'_>, ty: &'static str, props: &EdgeProps<'_>) {
        let props_json = if props.is_empty() { String::new() } else { props.to_json() };
        self.sink.edge(self.t, src, dst, ty, props_json);
    }

    /// The symbol a reference from `scope` starts at: the enclosing definition, else the file's module.
    fn source_of(&self, fi: u32, scope: Option<u32>) -> SymId {
        let mut cur = scope;
        let defs = &self.t.files[fi as usize].facts.defs;
        while let Some(di) = cur {
            if let Some(id) = self.t.sym_of_def(fi, di) {
                return id;
            }
            cur = defs[di as usize].parent;
        }
        self.t.file_module[fi as usize]
    }

    fn target_end<'t>(family: Family, target: &'t Target) -> End<'t> {
        match target {
            Target::Sym(id) => End::Sym(*id),
            Target::External(path) => End::External(family, path),
        }
    }

    fn references(&mut self, fi: u32, refs: &[drsg_parsers::Ref]) {
        for r in refs {
            self.reference(fi, r, 0);
        }
    }

    /// One reference's edge; for an invocation of another file's macro, the calls its body writes too.
    fn reference(&mut self, fi: u32, r: &drsg_parsers::Ref, nesting: usize) {
        let file = &self.t.files[fi as usize];
        let family = file.lang.family();
        let src = self.source_of(fi, r.scope);
        let resolution = self.r.resolve_ref(fi, r);
        let call_site = Resolver::is_call_site(r.kind);
        let mut props = EdgeProps { line: Some(r.line), text: Some(&r.text), ..EdgeProps::default() };
        if !call_site {
            match resolution {
                Resolution::Resolved { target, by } if target != src => {
                    self.acc.references_bound += 1;
                    props.resolved_by = Some(by.as_str());
                    props.confidence = Some(by.confidence());
                    self.edge(src, End::Sym(target), EdgeType::References.as_str(), &props);
                }
                _ => self.acc.references_unbound += 1,
            }
            return;
        }
        self.acc.call_sites += 1;
        let instantiate = r.kind == RefKind::Instantiate;
        match &resolution {
            Resolution::Resolved { target, by } => {
                self.acc.resolved += 1;
                let kind = self.t.syms[*target as usize].kind;
                let ty = if instantiate || (kind.is_type() && kind != SymKind::Def(DefKind::Trait)) {
                    EdgeType::Instantiates.as_str()
                } else {
                    EdgeType::Calls.as_str()
                };
                props.resolved_by = Some(by.as_str());
                props.confidence = Some(by.confidence());
                self.edge(src, End::Sym(*target), ty, &props);
                if kind == SymKind::Def(DefKind::Macro) {
                    self.macro_body(fi, r, *target, nesting);
                }
            }
            Resolution::External(path) => {
                self.acc.external += 1;
                props.resolved_by = Some("external");
                props.confidence = Some("high");
                let ty = if instantiate { EdgeType::Instantiates.as_str() } else { EdgeType::Calls.as_str() };
                self.edge(src, End::External(family, path), ty, &props);
            }
            Resolution::Unresolved(reason) => {
                self.acc.unresolved += 1;
                let category = reason.category();
                match self.acc.unresolved_by_reason.get_mut(category.as_ref()) {
                    Some(n) => *n += 1,
                    None => {
                        self.acc.unresolved_by_reason.insert(category.into_owned(), 1);
                    }
                }
                let name = r.path.last().map(String::as_str).filter(|n| !n.is_empty()).unwrap_or("(computed)");
                let reason = reason.to_string();
                props.reason = Some(&reason);
                let ty = if instantiate { EdgeType::Instantiates.as_str() } else { EdgeType::Calls.as_str() };
                self.edge(src, End::Unresolved(&file.path, name), ty, &props);
            }
        }
    }

    /// The calls the body of macro `target` writes, as sites of invocation `r` in file `fi`, when the
    /// macro is another file's (a file's own invocations are expanded by its plugin). Paths bind where
    /// the macro is invoked, as `macro_rules!` paths do; `$crate` is the defining crate.
    fn macro_body(&mut self, fi: u32, r: &drsg_parsers::Ref, target: SymId, nesting: usize) {
        const MAX_NESTING: usize = 4;
        let sym = &self.t.syms[target as usize];
        if sym.file == fi || nesting >= MAX_NESTING {
            return;
        }
        let Some(def) = sym.def else { return };
        let defining = &self.t.files[sym.file as usize].facts;
        let Some(body) = defining.macro_calls.iter().find(|m| m.def == def) else { return };
        let (own_crate, their_crate) = (self.r.crate_of(fi), self.r.crate_of(sym.file));
        let name = format!("{}!", sym.name);
        for call in &body.calls {
            let mut path = call.path.clone();
            if path.first().is_some_and(|head| head == "$crate") {
                path[0] = match (own_crate, their_crate) {
                    (Some(own), Some(theirs)) if own != theirs => theirs.to_owned(),
                    _ => "crate".to_owned(),
                };
            }
            let shown = if call.method { format!(".{}(…)", path.join("::")) } else { path.join("::") };
            let site = drsg_parsers::Ref {
                kind: RefKind::Call,
                path,
                qualifier: if call.method {
                    drsg_parsers::Qualifier::Expr { call: None, then: Vec::new() }
                } else {
                    drsg_parsers::Qualifier::Plain
                },
                line: r.line,
                scope: r.scope,
                text: format!("{shown} in the body of {name}"),
                origin: drsg_parsers::Origin::MacroBody { within: name.clone() },
            };
            self.reference(fi, &site, nesting + 1);
        }
    }

    fn imports(&mut self, fi: u32) {
        let file = &self.t.files[fi as usize];
        let family = file.lang.family();
        let mut seen = HashSet::new();
        for (ii, imp) in file.facts.imports.iter().enumerate() {
            let src = self.source_of(fi, imp.scope);
            let bound = self.r.import_target(fi, ii as u32);
            let written = match &imp.name {
                Some(name) if imp.source.is_empty() => name.clone(),
                Some(name) => format!("{}{}{name}", imp.source, if family == Family::Rust { "::" } else { ":" }),
                None => imp.source.clone(),
            };
            let aliased = !imp.alias.is_empty() && Some(&imp.alias) != imp.name.as_ref();
            let mut props = EdgeProps {
                line: Some(imp.line),
                text: Some(&written),
                alias: aliased.then_some(imp.alias.as_str()),
                reexport: imp.reexport,
                ..EdgeProps::default()
            };
            match &bound {
                Ok(target) => {
                    if *target == Target::Sym(src) || !seen.insert((src, Ok(target.clone()))) {
                        continue;
                    }
                    self.edge(src, Self::target_end(family, target), EdgeType::Imports.as_str(), &props);
                }
                // An import that cannot be bound is an unresolved edge, with why, named by what it binds.
                Err(reason) => {
                    let reason = reason.to_string();
                    self.acc.imports_unresolved += 1;
                    let name = imp.name.as_deref().unwrap_or(&imp.source);
                    let separator = if family == Family::Rust { "::" } else { "." };
                    let name = name.rsplit(separator).next().filter(|n| !n.is_empty()).unwrap_or("(import)");
                    if !seen.insert((src, Err(name.to_owned()))) {
                        continue;
                    }
                    props.reason = Some(&reason);
                    self.edge(src, End::Unresolved(&file.path, name), EdgeType::Imports.as_str(), &props);
                }
            }
        }
    }

    fn inherits(&mut self, fi: u32) {
        let file = &self.t.files[fi as usize];
        let family = file.lang.family();
        for inh in &file.facts.inherits {
            let Some((child, target)) = self.r.inherit_ends(fi, inh) else {
                self.acc.inherits_unresolved += 1;
                continue;
            };
            match target {
                Ok(target) => {
                    let ty = match inh.kind {
                        InheritKind::Extends => EdgeType::Extends.as_str(),
                        InheritKind::Implements => EdgeType::Implements.as_str(),
                    };
                    let written = inh.target.join(separator(family));
                    let props = EdgeProps { line: Some(inh.line), text: Some(&written), ..EdgeProps::default() };
                    self.edge(child, Self::target_end(family, &target), ty, &props);
                }
                Err(_) => self.acc.inherits_unresolved += 1,
            }
        }
    }
}

/// Node properties, serialised once per node.
#[derive(Default, Serialize)]
struct NodeProps<'a> {
    language: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    signature: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    doc: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    visibility: Option<&'static str>,
    is_test: bool,
}

/// Edge properties, serialised once per edge (a map per edge would dominate memory on big trees).
#[derive(Default, Serialize)]
struct EdgeProps<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resolved_by: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    confidence: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    alias: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    reexport: bool,
}

impl EdgeProps<'_> {
    fn is_empty(&self) -> bool {
        self.line.is_none() && self.text.is_none() && self.reason.is_none() && self.resolved_by.is_none()
    }

    /// The properties as a JSON object, byte for byte what serde_json makes of them (a test holds the two
    /// together). Written by hand: one per edge, on the thread that resolves, and serde_json's generic
    /// serializer took 8 % of that thread's time on Django.
    fn to_json(&self) -> String {
        // Opens each field: `{` before the first, `,` before the others, then the quoted name and colon.
        fn field(out: &mut String, name: &str) {
            out.push(if out.is_empty() { '{' } else { ',' });
            out.push('"');
            out.push_str(name);
            out.push_str("\":");
        }
        let mut out = String::with_capacity(96);
        if let Some(line) = self.line {
            field(&mut out, "line");
            push_decimal(&mut out, line);
        }
        for (name, value) in [
            ("ref", self.text),
            ("resolved_by", self.resolved_by),
            ("confidence", self.confidence),
            ("reason", self.reason),
            ("alias", self.alias),
        ] {
            if let Some(value) = value {
                field(&mut out, name);
                json_string(&mut out, value);
            }
        }
        if self.reexport {
            field(&mut out, "reexport");
            out.push_str("true");
        }
        if out.is_empty() {
            out.push('{');
        }
        out.push('}');
        out
    }
}

/// Appends `value` as a JSON string, escaped as serde_json escapes: `"` and `\\`, the short forms of
/// backspace, form feed, newline, carriage return and tab, and `\u00XX` for other control characters.
fn json_string(out: &mut String, value: &str) {
    // Most texts need no escape: a pass without an early exit (which the compiler turns into vector
    // instructions), then one copy. Byte by byte, the escaping loop below was most of the 1,360
    // instructions an edge's properties took on Django (callgrind).
    let escaped = value.bytes().fold(false, |any, byte| any | (byte < 0x20) | (byte == b'"') | (byte == b'\\'));
    if !escaped {
        out.reserve(value.len() + 2);
        out.push('"');
        out.push_str(value);
        out.push('"');
        return;
    }
    out.push('"');
    let mut start = 0;
    for (i, byte) in value.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..0x20 => "",
            _ => continue,
        };
        out.push_str(&value[start..i]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&value[start..]);
    out.push('"');
}

/// Appends `n` in decimal, as `Display` writes it, without the formatting machinery.
fn push_decimal(out: &mut String, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &digit in &digits[start..] {
        out.push(char::from(digit));
    }
}

#[cfg(test)]
mod tests {
    use super::EdgeProps;

    #[test]
    fn edge_properties_are_written_as_serde_json_writes_them() {
        let texts = [
            "plain",
            "",
            "a \"quoted\" \\ path",
            "only \"quotes\"",
            "only \\ a backslash",
            "tab\tnew\nline\r\u{8}\u{c}\u{1}\u{1f}\u{7f}",
            "ünï €",
        ];
        let mut cases = vec![EdgeProps::default()];
        for (i, text) in texts.iter().enumerate() {
            cases.push(EdgeProps { line: Some(i as u32 * 1000), text: Some(text), ..EdgeProps::default() });
            cases.push(EdgeProps {
                line: None,
                text: Some(text),
                resolved_by: Some("scope"),
                confidence: Some("high"),
                reason: Some(text),
                alias: Some(text),
                reexport: i % 2 == 0,
            });
            cases.push(EdgeProps { reexport: true, ..EdgeProps::default() });
        }
        for line in [1, 9, 10, 99, 100, 65_536, u32::MAX] {
            cases.push(EdgeProps { line: Some(line), text: Some("x"), ..EdgeProps::default() });
        }
        for props in cases {
            assert_eq!(props.to_json(), serde_json::to_string(&props).expect("serializes"));
        }
    }
}
