//! HTTP facts read by declarative plugins: routes a server declares, routers with their prefixes, mounts
//! of a router under a prefix, requests a client makes, clients with a base URL, and string constants
//! paths are built from.
//!
//! A declarative plugin is tree-sitter queries whose capture names say what each node is (the
//! vocabulary below); [`Extractor`] runs them over a parsed file and turns the captures into
//! [`WireFact`]s. Paths stay as written, in parts: joining prefixes and constants across files is the
//! indexer's job.
//!
//! | capture | what the node is |
//! | --- | --- |
//! | `@route` | a route declaration (its line is the route's) |
//! | `@route.method` | the HTTP method: a name (`get`, `post`, `route`, `all`), a string, or a list of strings |
//! | `@route.path` | the path: a string, a template or f-string, a concatenation, a constant's name |
//! | `@route.router` | what the route is declared on (`app`, `router`, `bp`) |
//! | `@route.handler` | the handler: a function definition, or a name |
//! | `@router`, `@router.name`, `@router.prefix` | a router bound to a name, with its prefix |
//! | `@mount`, `@mount.router`, `@mount.target`, `@mount.prefix` | `target` mounted on `router` under `prefix` |
//! | `@request`, `@request.method`, `@request.url`, `@request.client` | a request; `client` is what it is made on |
//! | `@client`, `@client.name`, `@client.base` | a client bound to a name, with its base URL |
//! | `@constant`, `@constant.name`, `@constant.value` | a string constant |
//! | `@_…` | a helper capture, for predicates only |

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor, Tree};

use crate::facts::Lang;

/// What a fact is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum WireKind {
    Route,
    Router,
    Mount,
    Request,
    Client,
    Constant,
}

impl WireKind {
    fn of_capture(root: &str) -> Option<WireKind> {
        Some(match root {
            "route" => WireKind::Route,
            "router" => WireKind::Router,
            "mount" => WireKind::Mount,
            "request" => WireKind::Request,
            "client" => WireKind::Client,
            "constant" => WireKind::Constant,
            _ => return None,
        })
    }
}

/// A part of a path as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PathPart {
    /// Literal text.
    Text(String),
    /// A name whose value may be a constant (`API_PREFIX`, `settings.API_V1_STR`).
    Name(String),
    /// A path parameter or a value only known at run time (`{id}`, `:id`, `${user.id}`).
    Param,
    /// An expression that cannot be read as text, as written.
    Unknown(String),
}

/// The handler of a route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Handler {
    /// The function defined at this line (a decorated definition, an inline function).
    At(u32),
    /// A function named as written (`users.list`, `getUsers`).
    Name(String),
}

/// One HTTP fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireFact {
    pub kind: WireKind,
    pub line: u32,
    /// The plugin that found it.
    pub plugin: String,
    /// Upper-case methods (`GET`); empty when the plugin gave none.
    pub methods: Vec<String>,
    /// The path, URL, prefix or constant value, in parts.
    pub path: Vec<PathPart>,
    /// A route's or request's router or client; the name a router, client or constant is bound to; the
    /// router a mount is made on.
    pub name: Option<String>,
    /// A mount's target (the router mounted).
    pub target: Option<String>,
    pub handler: Option<Handler>,
    /// A mount whose prefix replaces the mounted router's own.
    pub replaces: bool,
}

impl WireFact {
    /// How much a match said: the fuller of two matches of one construct is kept.
    fn richness(&self) -> usize {
        usize::from(!self.methods.is_empty())
            + usize::from(!self.path.is_empty())
            + usize::from(self.target.is_some())
            + usize::from(self.handler.is_some())
    }
}

/// The slot of a dialect in per-dialect tables: JavaScript shares TSX's, whose grammar it is parsed with
/// (a query compiles in about 20 ms for these grammars: once is enough).
fn lang_index(lang: Lang) -> usize {
    match lang {
        Lang::Rust => 0,
        Lang::TypeScript => 1,
        Lang::Tsx | Lang::JavaScript => 2,
        Lang::Python => 3,
    }
}

/// Why a plugin could not be loaded: the file, the line (1-based; 0 for the whole file) and the error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginError {
    pub file: String,
    pub line: u32,
    pub message: String,
}

impl std::fmt::Display for PluginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// The capture names a plugin may use.
pub const VOCABULARY: &[&str] = &[
    "route",
    "route.method",
    "route.path",
    "route.router",
    "route.handler",
    "router",
    "router.name",
    "router.prefix",
    "mount",
    "mount.router",
    "mount.target",
    "mount.prefix",
    "request",
    "request.method",
    "request.url",
    "request.client",
    "client",
    "client.name",
    "client.base",
    "constant",
    "constant.name",
    "constant.value",
];

/// What a plugin's manifest says, besides its queries.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    pub name: String,
    pub version: String,
    pub langs: Vec<Lang>,
    /// Strings a file must hold for the queries to run (any one of them); empty: always run.
    pub triggers: Vec<String>,
    /// The method of a route or request whose query captures none (Flask's `route`, `fetch`).
    pub default_method: Option<String>,
    /// A mount's prefix replaces the mounted router's own (Flask's `url_prefix`) instead of preceding it.
    pub mount_replaces: bool,
    /// The deepest node a pattern may start at (0: the root), for queries of top-level constructs that
    /// run over every file.
    pub start_depth: Option<u32>,
}

/// A declarative plugin: its manifest and queries, compiled for a dialect when first used.
pub struct Extractor {
    pub manifest: Manifest,
    /// `(file, text)` of each query, for the plane's fingerprint.
    pub sources: Vec<(String, String)>,
    grammar: fn(Lang) -> tree_sitter::Language,
    compiled: [OnceLock<Vec<Query>>; 4],
}

impl Extractor {
    /// A plugin whose queries compile when first used (built-in ones, which a test compiles).
    pub fn new(
        manifest: Manifest,
        sources: Vec<(String, String)>,
        grammar: fn(Lang) -> tree_sitter::Language,
    ) -> Extractor {
        Extractor { manifest, sources, grammar, compiled: Default::default() }
    }

    /// A plugin whose queries are compiled now for each of its languages, with every capture name checked
    /// against [`VOCABULARY`]: the first error, with its file and line, refuses it.
    pub fn checked(
        manifest: Manifest,
        sources: Vec<(String, String)>,
        grammar: fn(Lang) -> tree_sitter::Language,
    ) -> Result<Extractor, PluginError> {
        let extractor = Extractor::new(manifest, sources, grammar);
        for &lang in &extractor.manifest.langs {
            let queries = extractor.compile(lang)?;
            let _ = extractor.compiled[lang_index(lang)].set(queries);
        }
        Ok(extractor)
    }

    fn compile(&self, lang: Lang) -> Result<Vec<Query>, PluginError> {
        let mut out = Vec::new();
        for (file, text) in &self.sources {
            let query = Query::new(&(self.grammar)(lang), text).map_err(|e| PluginError {
                file: file.clone(),
                line: e.row as u32 + 1,
                message: format!("does not compile for {}: {}", lang.name(), e.message.trim()),
            })?;
            for capture in query.capture_names() {
                if !capture.starts_with('_') && !VOCABULARY.contains(capture) {
                    let line = text.lines().position(|l| l.contains(&format!("@{capture}"))).map_or(0, |i| i + 1);
                    return Err(PluginError {
                        file: file.clone(),
                        line: line as u32,
                        message: format!("unknown capture name `@{capture}` (see the capture vocabulary)"),
                    });
                }
            }
            out.push(query);
        }
        Ok(out)
    }

    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    /// Whether this plugin reads files of `lang`.
    pub fn takes(&self, lang: Lang) -> bool {
        self.manifest.langs.contains(&lang)
    }

    /// The facts its queries find in `tree`.
    pub fn run(&self, lang: Lang, tree: &Tree, source: &str, out: &mut Vec<WireFact>) {
        let triggers = &self.manifest.triggers;
        if !triggers.is_empty() && !triggers.iter().any(|t| source.contains(t.as_str())) {
            return;
        }
        // A built-in plugin's queries are compiled by a test; a user plugin's were checked when loaded.
        let queries = self.compiled[lang_index(lang)].get_or_init(|| self.compile(lang).unwrap_or_default());
        let start = out.len();
        for query in queries {
            let names = query.capture_names();
            let mut cursor = QueryCursor::new();
            cursor.set_max_start_depth(self.manifest.start_depth);
            let mut matches = cursor.matches(query, tree.root_node(), source.as_bytes());
            while let Some(m) = matches.next() {
                let mut by_name: HashMap<&str, Node<'_>> = HashMap::new();
                for c in m.captures() {
                    by_name.entry(names[c.index as usize]).or_insert(c.node);
                }
                if let Some(fact) = self.fact(&by_name, source) {
                    out.push(fact);
                }
            }
        }
        // Patterns for one construct with and without an optional part match it twice: keep the fuller.
        let mine = out.split_off(start);
        let mut kept: Vec<WireFact> = Vec::with_capacity(mine.len());
        for fact in mine {
            match kept.iter_mut().find(|k| k.kind == fact.kind && k.line == fact.line && k.name == fact.name) {
                Some(k) if fact.richness() > k.richness() => *k = fact,
                Some(_) => {}
                None => kept.push(fact),
            }
        }
        for fact in &mut kept {
            if fact.methods.is_empty()
                && matches!(fact.kind, WireKind::Route | WireKind::Request)
                && let Some(m) = &self.manifest.default_method
            {
                fact.methods.push(m.to_ascii_uppercase());
            }
        }
        out.extend(kept);
    }

    fn fact(&self, captured: &HashMap<&str, Node<'_>>, source: &str) -> Option<WireFact> {
        let (root, node) = captured.iter().find(|(name, _)| !name.contains('.') && !name.starts_with('_'))?;
        let kind = WireKind::of_capture(root)?;
        let part = |field: &str| captured.get(format!("{root}.{field}").as_str()).copied();
        let text = |n: Node<'_>| source[n.byte_range()].to_owned();
        let mut fact = WireFact {
            kind,
            line: node.start_position().row as u32 + 1,
            plugin: self.manifest.name.clone(),
            replaces: kind == WireKind::Mount && self.manifest.mount_replaces,
            methods: Vec::new(),
            path: Vec::new(),
            name: None,
            target: None,
            handler: None,
        };
        let path_field = match kind {
            WireKind::Route => "path",
            WireKind::Router | WireKind::Mount => "prefix",
            WireKind::Request => "url",
            WireKind::Client => "base",
            WireKind::Constant => "value",
        };
        if let Some(p) = part(path_field) {
            fact.path = path_parts(p, source);
        }
        fact.name = match kind {
            WireKind::Route | WireKind::Mount => part("router"),
            WireKind::Request => part("client"),
            _ => part("name"),
        }
        .map(text);
        fact.target = part("target").map(text);
        if let Some(m) = part("method") {
            fact.methods = methods(m, source);
        }
        fact.handler = part("handler").map(|h| match h.kind() {
            "identifier" | "attribute" | "member_expression" | "property_identifier" => Handler::Name(text(h)),
            _ => Handler::At(h.start_position().row as u32 + 1),
        });
        Some(fact)
    }
}

/// The methods a node names: `get` → GET, `"POST"`, `["GET", "POST"]`; `route`, `api_route`, `all`,
/// `use` → ANY.
fn methods(node: Node<'_>, source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "list" | "array" | "tuple" | "set" => {
                let mut cursor = n.walk();
                let children: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
                stack.extend(children.into_iter().rev());
            }
            _ => {
                let raw = string_text(n, source).unwrap_or_else(|| source[n.byte_range()].to_owned());
                let m = raw.trim().to_ascii_uppercase();
                let m = match m.as_str() {
                    "ROUTE" | "API_ROUTE" | "ALL" | "USE" | "METHOD" => "ANY".to_owned(),
                    "DEL" => "DELETE".to_owned(),
                    _ => m,
                };
                if !m.is_empty() && m.chars().all(|c| c.is_ascii_alphabetic() || c == '_') {
                    out.push(m);
                }
            }
        }
    }
    out
}

/// The text of a plain string literal (Python, TypeScript), without quotes; `None` for other nodes.
fn string_text(node: Node<'_>, source: &str) -> Option<String> {
    if node.kind() != "string" {
        return None;
    }
    let parts = path_parts(node, source);
    parts
        .iter()
        .map(|p| match p {
            PathPart::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect::<Option<String>>()
}

/// A path expression in parts: string literals (with their interpolations), concatenations, names.
pub fn path_parts(node: Node<'_>, source: &str) -> Vec<PathPart> {
    let text = |n: Node<'_>| source[n.byte_range()].to_owned();
    let mut out = Vec::new();
    match node.kind() {
        "string" | "template_string" => {
            let mut cursor = node.walk();
            let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            if children.is_empty() {
                // `''`, or a grammar that keeps the text in the node itself.
                let raw = text(node);
                let inner = raw.trim_matches(|c| c == '"' || c == '\'' || c == '`');
                if !inner.is_empty() {
                    out.push(PathPart::Text(inner.to_owned()));
                }
            }
            for child in children {
                match child.kind() {
                    "string_content" | "string_fragment" | "escape_sequence" => out.push(PathPart::Text(text(child))),
                    "interpolation" | "template_substitution" => {
                        let mut c = child.walk();
                        let inner: Vec<Node<'_>> = child.named_children(&mut c).collect();
                        match inner.first() {
                            Some(e) if matches!(e.kind(), "identifier" | "attribute" | "member_expression") => {
                                out.push(PathPart::Name(text(*e)));
                            }
                            _ => out.push(PathPart::Param),
                        }
                    }
                    // Python's string_start / string_end and TypeScript's quotes carry no text.
                    _ => {}
                }
            }
        }
        "concatenated_string" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                out.extend(path_parts(child, source));
            }
        }
        "binary_operator" | "binary_expression" => {
            let (l, r) = (node.child_by_field_name("left"), node.child_by_field_name("right"));
            let plus = node.child_by_field_name("operator").map(text).as_deref() == Some("+");
            match (l, r, plus) {
                (Some(l), Some(r), true) => {
                    out.extend(path_parts(l, source));
                    out.extend(path_parts(r, source));
                }
                _ => out.push(PathPart::Unknown(text(node))),
            }
        }
        "parenthesized_expression" => {
            let mut cursor = node.walk();
            let inner: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            match inner.as_slice() {
                [one] => out.extend(path_parts(*one, source)),
                _ => out.push(PathPart::Unknown(text(node))),
            }
        }
        "identifier" | "attribute" | "member_expression" => out.push(PathPart::Name(text(node))),
        _ => out.push(PathPart::Unknown(text(node))),
    }
    merge_text(out)
}

/// Adjacent text parts joined.
fn merge_text(parts: Vec<PathPart>) -> Vec<PathPart> {
    let mut out: Vec<PathPart> = Vec::with_capacity(parts.len());
    for p in parts {
        match (out.last_mut(), p) {
            (Some(PathPart::Text(a)), PathPart::Text(b)) => a.push_str(&b),
            (_, p) => out.push(p),
        }
    }
    out
}
