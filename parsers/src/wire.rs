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
//! | `@router.scope` | the function or class a router is: routes and mounts inside it, on `@router.name` or on nothing, are its; it is mounted by its name (an anonymous one where it is written) |
//! | `@mount`, `@mount.router`, `@mount.target`, `@mount.prefix` | `target` mounted on `router` under `prefix` |
//! | `@request`, `@request.method`, `@request.url`, `@request.client` | a request; `client` is what it is made on |
//! | `@client`, `@client.name`, `@client.base` | a client bound to a name, with its base URL |
//! | `@constant`, `@constant.name`, `@constant.value` | a string constant |
//! | `@_…` | a helper capture, for predicates only |
//!
//! A router, route, mount or client named by a call chain (`Router().use(a)`, `Router::new().route(…)`)
//! takes the name the chain is bound to (`const api = …`, `export default …`), or none.

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
    /// The last line of the construct (of a scoped router's function or class, of a client's object).
    pub end_line: u32,
    /// The plugin that found it.
    pub plugin: String,
    /// Upper-case methods (`GET`); empty when the plugin gave none.
    pub methods: Vec<String>,
    /// The path, URL, prefix or constant value, in parts.
    pub path: Vec<PathPart>,
    /// A route's or request's router or client; the name a router, client or constant is bound to; the
    /// router a mount is made on.
    pub name: Option<String>,
    /// A mount's target (the router mounted); a scoped router's function or class.
    pub target: Option<String>,
    /// A router that is a function or class: routes and mounts from `line` to `end_line` are on it.
    pub scoped: bool,
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
    "router.scope",
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
    /// Routes whose path is their file's (`next`: Next.js's `app/**/route.ts` and `pages/api/**`); the
    /// plugin reads no other file.
    pub file_routes: Option<FileRoutes>,
}

/// A framework whose routes are files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRoutes {
    Next,
}

impl FileRoutes {
    /// The route path of a file: `app/users/[id]/route.ts` → `/users/{}` (route groups `(x)` and slots
    /// `@x` left out), `pages/api/users/index.ts` → `/api/users`; `None` for a file that serves no route.
    pub fn path_of(self, path: &str) -> Option<Vec<PathPart>> {
        let FileRoutes::Next = self;
        let (dirs, file) = path.rsplit_once('/').unwrap_or(("", path));
        let stem = file.split('.').next().unwrap_or(file);
        let all: Vec<&str> = dirs.split('/').filter(|s| !s.is_empty()).collect();
        // The app's folder may sit anywhere in the tree (`web/src/app/…`): the last `app` or `pages/api`.
        let segments: Vec<&str> = if stem == "route" {
            let at = all.iter().rposition(|s| *s == "app")?;
            all[at + 1..].to_vec()
        } else {
            let at = all.windows(2).rposition(|w| w == ["pages", "api"])?;
            let mut s = all[at + 1..].to_vec();
            if stem != "index" {
                s.push(stem);
            }
            s
        };
        let mut out = Vec::new();
        for s in segments {
            if (s.starts_with('(') && s.ends_with(')')) || s.starts_with('@') {
                continue;
            }
            out.push(PathPart::Text("/".to_owned()));
            if s.starts_with('[') && s.ends_with(']') {
                out.push(PathPart::Param);
            } else {
                out.push(PathPart::Text(s.to_owned()));
            }
        }
        if out.is_empty() {
            out.push(PathPart::Text("/".to_owned()));
        }
        Some(merge_text(out))
    }
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

    /// The facts its queries find in `tree`, the syntax tree of the file at `path`.
    pub fn run(&self, lang: Lang, tree: &Tree, source: &str, path: &str, out: &mut Vec<WireFact>) {
        let triggers = &self.manifest.triggers;
        if !triggers.is_empty() && !triggers.iter().any(|t| source.contains(t.as_str())) {
            return;
        }
        let file_path = match self.manifest.file_routes {
            Some(rule) => match rule.path_of(path) {
                Some(p) => Some(p),
                None => return,
            },
            None => None,
        };
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
                    if fact.kind == WireKind::Request
                        && let Some(node) = by_name.get("request")
                        && let Some(client) = wrapper(*node, &fact, source)
                    {
                        out.push(client);
                    }
                    out.push(fact);
                }
            }
        }
        // Patterns for one construct with and without an optional part match it twice: keep the fuller.
        let mine = out.split_off(start);
        let mut kept: Vec<WireFact> = Vec::with_capacity(mine.len());
        for fact in mine {
            let same = |k: &WireFact| {
                k.kind == fact.kind
                    && k.line == fact.line
                    && k.name == fact.name
                    && (k.path == fact.path || k.path.is_empty() || fact.path.is_empty())
                    && (k.methods == fact.methods || k.methods.is_empty() || fact.methods.is_empty())
            };
            match kept.iter_mut().find(|k| same(k)) {
                Some(k) if fact.richness() > k.richness() => *k = fact,
                Some(_) => {}
                None => kept.push(fact),
            }
        }
        for fact in &mut kept {
            if let Some(p) = &file_path
                && fact.kind == WireKind::Route
                && fact.path.is_empty()
            {
                fact.path = p.clone();
            }
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
            line: own_line(*node),
            end_line: node.end_position().row as u32 + 1,
            plugin: self.manifest.name.clone(),
            replaces: kind == WireKind::Mount && self.manifest.mount_replaces,
            methods: Vec::new(),
            path: Vec::new(),
            name: None,
            target: None,
            handler: None,
            scoped: false,
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
        let named = match kind {
            WireKind::Route | WireKind::Mount => part("router"),
            WireKind::Request => part("client"),
            _ => part("name"),
        };
        // A call chain is named by what it is bound to.
        fact.name = match named {
            Some(n) if matches!(n.kind(), "call_expression" | "call" | "new_expression") => bound_name(n, source),
            Some(n) => Some(text(n)),
            None if kind == WireKind::Router => bound_name(*node, source),
            None => None,
        };
        // A function mounted where it is written (`app.register(async (api) => …)`) is named by its line.
        fact.target = part("target").map(|t| match t.kind() {
            "arrow_function" | "function_expression" | "function" | "lambda" => {
                format!("@{}", t.start_position().row + 1)
            }
            _ => text(t),
        });
        if let Some(scope) = part("scope") {
            fact.scoped = true;
            fact.line = scope.start_position().row as u32 + 1;
            fact.end_line = scope.end_position().row as u32 + 1;
            fact.target = scope
                .child_by_field_name("name")
                .map(text)
                .or_else(|| bound_name(scope, source))
                .or_else(|| Some(format!("@{}", fact.line)));
        }
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

/// The line a construct is on: a call in a chain (`Router::new()\n.route(…)\n.route(…)`) is on its
/// method's line, not the chain's first.
fn own_line(node: Node<'_>) -> u32 {
    let method = node
        .child_by_field_name("function")
        .filter(|f| matches!(f.kind(), "field_expression" | "member_expression" | "attribute"))
        .and_then(|f| f.child_by_field_name("field").or_else(|| f.child_by_field_name("property")));
    method.unwrap_or(node).start_position().row as u32 + 1
}

/// A client that a request makes: the object of request helpers around `request` when the URL it
/// requests ends with a parameter of its helper (`const requests = { get: url =>
/// superagent.get(`${API_ROOT}${url}`) }`): a client named `requests` whose base is that URL, over the
/// object's lines. Calls of `requests.get('/user')` are then requests on it.
fn wrapper(request: Node<'_>, fact: &WireFact, source: &str) -> Option<WireFact> {
    let Some(PathPart::Name(param)) = fact.path.last() else { return None };
    // `${API_ROOT}${url}` wraps; `/articles/${slug}` requests one article (unless its name says URL).
    let before = fact.path.len().checked_sub(2).map(|i| &fact.path[i]);
    let urlish = ["url", "path", "uri", "endpoint", "route"].iter().any(|w| param.to_ascii_lowercase().contains(w));
    if matches!(before, Some(PathPart::Text(t)) if t.ends_with(['/', '=', '?', '&'])) && !urlish {
        return None;
    }
    let text = |n: Node<'_>| &source[n.byte_range()];
    let mut at = request;
    let function = loop {
        at = at.parent()?;
        if matches!(at.kind(), "arrow_function" | "function_expression" | "function" | "method_definition") {
            break at;
        }
    };
    let params = function.child_by_field_name("parameters").or_else(|| function.child_by_field_name("parameter"))?;
    if !text(params).split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).any(|w| w == param) {
        return None;
    }
    let member = if function.kind() == "method_definition" { function } else { function.parent()? };
    let object =
        member.parent().filter(|o| o.kind() == "object" && matches!(member.kind(), "pair" | "method_definition"))?;
    let name = bound_name(object, source)?;
    Some(WireFact {
        kind: WireKind::Client,
        line: object.start_position().row as u32 + 1,
        end_line: object.end_position().row as u32 + 1,
        plugin: fact.plugin.clone(),
        methods: Vec::new(),
        path: fact.path.clone(),
        name: Some(name),
        target: None,
        handler: None,
        replaces: false,
        scoped: false,
    })
}

/// The name the value of `node` is bound to: `const api = Router().use(…)` → `api`, `export default …`
/// and `module.exports = …` → `default`, `app = Flask()` → `app`, `let app = Router::new()…` → `app`;
/// call chains, `await` and parentheses looked through.
fn bound_name(node: Node<'_>, source: &str) -> Option<String> {
    let text = |n: Node<'_>| source[n.byte_range()].to_owned();
    let mut at = node;
    while let Some(parent) = at.parent() {
        match parent.kind() {
            "call_expression"
            | "member_expression"
            | "field_expression"
            | "call"
            | "attribute"
            | "parenthesized_expression"
            | "await_expression"
            | "await"
            | "new_expression" => at = parent,
            "variable_declarator" => return parent.child_by_field_name("name").map(text),
            "let_declaration" => return parent.child_by_field_name("pattern").map(text),
            "export_statement" => return Some("default".to_owned()),
            "assignment" | "assignment_expression" => {
                let left = parent.child_by_field_name("left").map(text)?;
                return Some(if left == "module.exports" { "default".to_owned() } else { left });
            }
            _ => return None,
        }
    }
    None
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
        "string" | "template_string" | "string_literal" | "raw_string_literal" => {
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
        "macro_invocation" if node.child_by_field_name("macro").map(text).as_deref() == Some("format") => {
            out.extend(format_parts(node, source));
        }
        _ => out.push(PathPart::Unknown(text(node))),
    }
    merge_text(out)
}

/// Rust's `format!("{}/users/{id}", base)` in parts: its placeholders named (`{id}`) or parameters, one
/// before the first `/` unknown (a base URL held elsewhere).
fn format_parts(node: Node<'_>, source: &str) -> Vec<PathPart> {
    let mut cursor = node.walk();
    let tokens = node.named_children(&mut cursor).find(|c| c.kind() == "token_tree");
    let Some(template) = tokens.and_then(|t| {
        let mut c = t.walk();
        t.named_children(&mut c).find(|n| n.kind() == "string_literal")
    }) else {
        return vec![PathPart::Unknown(source[node.byte_range()].to_owned())];
    };
    let raw: String = path_parts(template, source)
        .into_iter()
        .map(|p| match p {
            PathPart::Text(t) => t,
            _ => String::new(),
        })
        .collect();
    let mut out = Vec::new();
    let mut rest = raw.as_str();
    while let Some(open) = rest.find('{') {
        if rest[open..].starts_with("{{") {
            out.push(PathPart::Text(rest[..open + 1].to_owned()));
            rest = &rest[open + 2..];
            continue;
        }
        out.push(PathPart::Text(rest[..open].to_owned()));
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c);
        let inner = rest[open + 1..close].split(':').next().unwrap_or("");
        let before_path = !out.iter().any(|p| matches!(p, PathPart::Text(t) if t.contains('/')));
        out.push(match (inner.is_empty(), before_path) {
            (_, true) => PathPart::Unknown(format!("{{{inner}}}")),
            (true, false) => PathPart::Param,
            (false, false) => PathPart::Name(inner.to_owned()),
        });
        rest = &rest[(close + 1).min(rest.len())..];
    }
    out.push(PathPart::Text(rest.to_owned()));
    merge_text(out.into_iter().filter(|p| !matches!(p, PathPart::Text(t) if t.is_empty())).collect())
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
