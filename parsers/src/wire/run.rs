//! Running the declarative plugins over one file's tree: the queries its texts trigger, started at the
//! nodes of their root kinds (from the language plugin's walk, or a walk of its own), their facts kept per
//! plugin, and the requests on names that cannot be clients left out.

use tree_sitter::{Node, QueryCursor, Tree};

use super::{Compiled, Engine, Extractor, PathPart, WireFact, WireKind, builtin_client, looks_like_a_url};
use crate::children::{KindSet, push_nodes_of_kinds};
use crate::facts::{Family, Import, Lang};
use crate::matcher::Scratch;

/// A plugin that reads the file: the plugin, the file's own route path, and its queries that run over the
/// whole tree (indices in [`Run`]'s `queries`).
type Reading<'e> = (&'e Extractor, Option<Vec<PathPart>>, Vec<usize>);

/// A run of the plugins of `extractors` that read a `lang` file over its syntax tree: [`Run::start`] picks the
/// queries, [`Run::finish`] runs them, from the start nodes a language plugin's walk taps on its way
/// ([`crate::Language::extract_tapped`]) or from a walk of its own.
///
/// Tree-sitter's query cursor does its bookkeeping at every node it passes, and a pattern rooted at any
/// node (`(_ function: …)`) is tried at every one: over the whole tree, a plugin's query cost as much as
/// parsing the file. Queries whose patterns all name their root's kind run instead only at nodes of those
/// kinds and no deeper (found by the language plugin's walk, or by one walk in C that never makes the
/// nodes of other kinds); the others (and those with a start depth, which stop near the
/// root) run over the whole tree.
///
/// A request made on a name is kept only when the name can be an HTTP client: a library's own
/// ([`builtin_client`]), a client bound in this file, or a name this file imports (which the indexer then
/// proves or drops). `settings.get("key")` and `@app.get("/x")` are no requests.
pub struct Run<'e> {
    lang: Lang,
    active: Vec<Reading<'e>>,
    /// The queries the file triggers.
    queries: Vec<&'e Compiled>,
    /// (root kind id, plugin, query) for the queries run from the walk, by kind.
    starts: Vec<(u16, usize, usize)>,
    kinds: KindSet,
    /// Whether a client may be bound in the file.
    binds_clients: bool,
}

/// Which names a request may be made on and be kept (see [`Run::finish`]): a library's client, a client
/// bound in the file, or a name it imports.
pub(super) struct Clients<'a> {
    lang: Lang,
    imports: &'a [Import],
    pub(super) bound: bool,
}

impl Clients<'_> {
    pub(super) fn may_be(&self, name: &str) -> bool {
        self.bound || builtin_client(self.lang, name) || self.imports.iter().any(|m| m.alias == name)
    }
}

impl<'e> Run<'e> {
    /// The plugins of `extractors` that read the `lang` file at `path`, and their queries that `source`
    /// triggers.
    pub fn start(extractors: &'e [Extractor], lang: Lang, source: &str, path: &str) -> Run<'e> {
        let mut active = Vec::new();
        let mut queries = Vec::new();
        let mut starts = Vec::new();
        for extractor in extractors.iter().filter(|e| e.takes(lang)) {
            let Some(file_path) = extractor.reads(source, path) else { continue };
            let at = active.len();
            let mut whole = Vec::new();
            for compiled in extractor.queries(lang, source) {
                let q = queries.len();
                queries.push(compiled);
                match &compiled.roots {
                    Some(roots) => starts.extend(roots.iter().map(|&kind| (kind, at, q))),
                    None => whole.push(q),
                }
            }
            active.push((extractor, file_path, whole));
        }
        starts.sort_by_key(|s| s.0);
        let mut kinds = KindSet::default();
        for s in &starts {
            kinds.insert(s.0);
        }
        // Clients bound in the file: by a query's `@client`, or, in JavaScript, by request helpers.
        let binds_clients =
            matches!(lang.family(), Family::Js) || queries.iter().any(|compiled| compiled.makes_clients);
        Run { lang, active, queries, starts, kinds, binds_clients }
    }

    /// The kinds of the nodes the queries start at, if a walk is wanted.
    pub fn kinds(&self) -> Option<&KindSet> {
        (!self.starts.is_empty()).then_some(&self.kinds)
    }

    /// Runs the queries over `tree` and appends their facts to `out`: from `tapped`, every node of
    /// [`Run::kinds`] in pre-order, or from a walk of its own.
    pub fn finish<'t>(
        self,
        tree: &'t Tree,
        source: &str,
        imports: &[Import],
        tapped: Option<Vec<Node<'t>>>,
        out: &mut Vec<WireFact>,
    ) {
        let start = out.len();
        let mut cursor = QueryCursor::new();
        let mut scratch = Scratch::default();
        let clients = Clients { lang: self.lang, imports, bound: self.binds_clients };
        let mut facts: Vec<Vec<WireFact>> = Vec::with_capacity(self.active.len());
        for (extractor, _, whole) in &self.active {
            let mut mine = Vec::new();
            for &q in whole {
                let compiled = self.queries[q];
                match &compiled.engine {
                    Engine::Own(_) => each_node(tree, extractor.manifest.start_depth, |node| {
                        extractor.run_at(compiled, node, &mut cursor, &mut scratch, source, &clients, &mut mine)
                    }),
                    Engine::TreeSitter(_) => {
                        cursor.set_max_start_depth(extractor.manifest.start_depth);
                        let root = tree.root_node();
                        extractor.run_at(compiled, root, &mut cursor, &mut scratch, source, &clients, &mut mine);
                    }
                }
            }
            facts.push(mine);
        }
        if !self.starts.is_empty() {
            cursor.set_max_start_depth(Some(0));
            let nodes = tapped.unwrap_or_else(|| {
                // Room for a start every 32 bytes, more than the corpora's trees hold: one walk, not two.
                let mut nodes = Vec::with_capacity(source.len() / 32 + 16);
                push_nodes_of_kinds(tree.root_node(), &self.kinds, &mut nodes);
                nodes
            });
            for node in nodes {
                let kind = node.kind_id();
                let from = self.starts.partition_point(|s| s.0 < kind);
                for &(_, at, q) in self.starts[from..].iter().take_while(|s| s.0 == kind) {
                    let extractor = self.active[at].0;
                    extractor.run_at(
                        self.queries[q],
                        node,
                        &mut cursor,
                        &mut scratch,
                        source,
                        &clients,
                        &mut facts[at],
                    );
                }
            }
        }
        for ((extractor, file_path, _), mine) in self.active.into_iter().zip(facts) {
            extractor.finish(mine, file_path, out);
        }
        let lang = self.lang;
        let mut mine = out.split_off(start);
        let clients: Vec<String> =
            mine.iter().filter(|f| f.kind == WireKind::Client).filter_map(|f| f.name.clone()).collect();
        mine.retain(|f| {
            f.kind != WireKind::Request
                || f.name.as_deref().is_none_or(|c| {
                    builtin_client(lang, c)
                        || clients.iter().any(|k| k == c)
                        || (imports.iter().any(|m| m.alias == c) && looks_like_a_url(&f.path))
                })
        });
        out.extend(mine);
    }
}

/// Calls `f` with each node of `tree` in document order, down to `max_depth` (the root's is 0).
fn each_node<'t>(tree: &'t Tree, max_depth: Option<u32>, mut f: impl FnMut(Node<'t>)) {
    let mut walk = tree.walk();
    let mut depth = 0u32;
    loop {
        f(walk.node());
        if max_depth.is_none_or(|m| depth < m) && walk.goto_first_child() {
            depth += 1;
            continue;
        }
        while !walk.goto_next_sibling() {
            if !walk.goto_parent() {
                return;
            }
            depth -= 1;
        }
    }
}
