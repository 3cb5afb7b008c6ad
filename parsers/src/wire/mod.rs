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
//! | `@router.scope` | the function or class a router is, or the call that starts a router's method chain (actix-web's `web::scope("/api")`, over the whole chain): routes and mounts inside it, on `@router.name` or on nothing, are its; it is mounted by its name (an anonymous one where it is written, or in the scoped router around it) |
//! | `@mount`, `@mount.router`, `@mount.target`, `@mount.prefix` | `target` mounted on `router` (on none: the scoped router around) under `prefix`; a function that is no router serves the routes it handles that are on no router under the mount, and only there |
//! | `@request`, `@request.method`, `@request.url`, `@request.client` | a request; `client` is what it is made on |
//! | `@client`, `@client.name`, `@client.base` | a client bound to a name, with its base URL |
//! | `@constant`, `@constant.name`, `@constant.value` | a string constant |
//! | `@rewrite`, `@rewrite.from`, `@rewrite.to` | a proxy forwards paths starting with `from` (a string or a regular expression such as `^/api`) with that part replaced by `to` |
//! | `@prefix`, `@prefix.path` | a prefix the application puts before every route its plugin reads (NestJS's `app.setGlobalPrefix('api')`) |
//! | `@_…` | a helper capture, for predicates only |
//!
//! A router, route, mount or client named by a call chain (`Router().use(a)`, `Router::new().route(…)`)
//! takes the name the chain is bound to (`const api = …`, `export default …`), or none.

pub(crate) mod fact;
mod paths;
mod run;

use std::sync::OnceLock;

use memchr::memmem::Finder;
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor};

use crate::facts::{Family, Lang};
use crate::matcher::{Only, Patterns, Scratch};
pub use fact::{Handler, PathPart, WireFact, WireKind};
pub use paths::path_parts;
use paths::{merge_text, methods};
use run::Clients;
pub use run::Run;

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
    "rewrite",
    "rewrite.from",
    "rewrite.to",
    "prefix",
    "prefix.path",
];

/// What a plugin's manifest says, besides its queries.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    pub name: String,
    pub version: String,
    pub langs: Vec<Lang>,
    /// Strings a file must hold for the queries to run (any one of them); empty: always run.
    pub triggers: Vec<String>,
    /// Strings a file must hold, besides, for one query file to run, by the file's name (`methods.scm`).
    pub query_triggers: Vec<(String, Vec<String>)>,
    /// Text appended to the path of every route one query file declares, by the file's name (Django REST
    /// framework's `register` serves a collection and, with `/{pk}`, each of its items).
    pub query_suffixes: Vec<(String, String)>,
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
        // `[...slug].ts` is the stem `[...slug]`: only the extension goes.
        let stem = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
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
            if s.starts_with("[...") || s.starts_with("[[...") {
                // A catch-all, kept as written for the path's normal form to read.
                out.push(PathPart::Text(s.to_owned()));
            } else if s.starts_with('[') && s.ends_with(']') {
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

/// A declarative plugin: its manifest and queries, each compiled for a dialect when first needed.
pub struct Extractor {
    pub manifest: Manifest,
    /// `(file, text)` of each query, for the plane's fingerprint.
    pub sources: Vec<(String, String)>,
    /// The plugin's triggers, as searchers built once.
    plugin_triggers: Vec<Finder<'static>>,
    /// Each query's own triggers (after the plugin's); empty: none.
    triggers: Vec<Vec<Finder<'static>>>,
    grammar: fn(Lang) -> tree_sitter::Language,
    /// Per query, per dialect slot: the query compiled (`None` when it does not compile).
    compiled: Vec<[OnceLock<Option<Compiled>>; 4]>,
}

/// A plugin's query made ready for a dialect, with the node kinds its patterns start at.
struct Compiled {
    engine: Engine,
    /// The kind ids every pattern starts at, sorted, when each pattern names its root's kind; `None` when
    /// some pattern may start at any node (`(_ …)`, `((a) . (b))`), or the plugin gives a start depth,
    /// and the query cursor walks the whole tree.
    roots: Option<Vec<u16>>,
    /// Whether the query binds clients (a `@client` capture).
    makes_clients: bool,
    /// What the manifest appends to the paths of the query's routes.
    suffix: Option<String>,
    /// For drsg's matcher, the capture indices of `@request` and `@request.client`, when the query has both:
    /// a request on a name that cannot be a client is left out while it is matched.
    requests_on: Option<(u32, u32)>,
}

/// What runs a query: drsg's own matcher for a built-in query it follows (no compilation), tree-sitter's
/// for the others and for a user's plugin (compiled when loaded, which checks it).
enum Engine {
    Own(Patterns),
    TreeSitter(Query),
}

impl Extractor {
    /// A plugin whose queries compile when first used (built-in ones, which a test compiles).
    pub fn new(
        manifest: Manifest,
        sources: Vec<(String, String)>,
        grammar: fn(Lang) -> tree_sitter::Language,
    ) -> Extractor {
        let triggers = sources
            .iter()
            .map(|(file, _)| {
                let base = file.rsplit('/').next().unwrap_or(file);
                let own = manifest.query_triggers.iter().find(|(q, _)| q == base).map(|(_, t)| t.as_slice());
                own.unwrap_or_default().iter().map(|t| Finder::new(t).into_owned()).collect()
            })
            .collect();
        let compiled = sources.iter().map(|_| Default::default()).collect();
        let plugin_triggers = manifest.triggers.iter().map(|t| Finder::new(t).into_owned()).collect();
        Extractor { manifest, sources, plugin_triggers, triggers, grammar, compiled }
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
            for (i, slots) in extractor.compiled.iter().enumerate() {
                let _ = slots[lang_index(lang)].set(Some(extractor.compile(i, lang, false)?));
            }
        }
        Ok(extractor)
    }

    /// The `i`th query made ready for `lang`: by drsg's own matcher when `own` and it follows the query.
    fn compile(&self, i: usize, lang: Lang, own: bool) -> Result<Compiled, PluginError> {
        let grammar = (self.grammar)(lang);
        let (file, text) = &self.sources[i];
        let vocabulary = |names: &mut dyn Iterator<Item = &str>| {
            for capture in names {
                if !capture.starts_with('_') && !VOCABULARY.contains(&capture) {
                    let line = text.lines().position(|l| l.contains(&format!("@{capture}"))).map_or(0, |i| i + 1);
                    return Err(PluginError {
                        file: file.clone(),
                        line: line as u32,
                        message: format!("unknown capture name `@{capture}` (see the capture vocabulary)"),
                    });
                }
            }
            Ok(())
        };
        let whole_tree = self.manifest.start_depth.is_some();
        if own && let Ok(patterns) = Patterns::read(text, &grammar) {
            vocabulary(&mut patterns.capture_names().iter().map(String::as_str))?;
            let roots = if whole_tree { None } else { patterns.roots() };
            let names = patterns.capture_names();
            let makes_clients = names.iter().any(|n| n == "client");
            let index = |name: &str| names.iter().position(|n| n == name).map(|i| i as u32);
            let requests_on = index("request").zip(index("request.client"));
            let suffix = self.suffix(file);
            return Ok(Compiled { engine: Engine::Own(patterns), roots, makes_clients, requests_on, suffix });
        }
        let query = Query::new(&grammar, text).map_err(|e| PluginError {
            file: file.clone(),
            line: e.row as u32 + 1,
            message: format!("does not compile for {}: {}", lang.name(), e.message.trim()),
        })?;
        vocabulary(&mut query.capture_names().iter().copied())?;
        let roots = if whole_tree { None } else { roots(&query, text, &grammar) };
        let makes_clients = query.capture_names().contains(&"client");
        let suffix = self.suffix(file);
        Ok(Compiled { engine: Engine::TreeSitter(query), roots, makes_clients, requests_on: None, suffix })
    }

    /// What the manifest appends to the routes of query file `file`.
    fn suffix(&self, file: &str) -> Option<String> {
        let base = file.rsplit('/').next().unwrap_or(file);
        self.manifest.query_suffixes.iter().find(|(q, _)| q == base).map(|(_, s)| s.clone())
    }

    /// Whether drsg's own matcher runs the `i`th query for `lang` (a built-in query it follows).
    pub fn runs_own(&self, i: usize, lang: Lang) -> bool {
        self.query(i, lang).is_some_and(|c| matches!(c.engine, Engine::Own(_)))
    }

    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    /// The files of the queries that run over the whole tree of a `lang` file, not from the shared walk.
    pub fn whole_tree(&self, lang: Lang) -> Vec<&str> {
        (0..self.sources.len())
            .filter(|&i| self.query(i, lang).is_some_and(|c| c.roots.is_none()))
            .map(|i| self.sources[i].0.as_str())
            .collect()
    }

    /// Whether this plugin reads files of `lang`.
    pub fn takes(&self, lang: Lang) -> bool {
        self.manifest.langs.contains(&lang)
    }

    /// Whether the file at `path` holding `source` is one this plugin reads: `None` when not, else the
    /// route path the file itself gives (Next.js's route files), if any.
    fn reads(&self, source: &str, path: &str) -> Option<Option<Vec<PathPart>>> {
        let triggers = &self.plugin_triggers;
        if !triggers.is_empty() && !triggers.iter().any(|t| t.find(source.as_bytes()).is_some()) {
            return None;
        }
        match self.manifest.file_routes {
            Some(rule) => rule.path_of(path).map(Some),
            None => Some(None),
        }
    }

    /// The queries that read `source`: those whose own triggers it holds, or that have none.
    fn queries<'a, 's>(&'a self, lang: Lang, source: &'s str) -> impl Iterator<Item = &'a Compiled> + use<'a, 's> {
        (0..self.sources.len())
            .filter(|&i| {
                self.triggers[i].is_empty() || self.triggers[i].iter().any(|t| t.find(source.as_bytes()).is_some())
            })
            .filter_map(move |i| self.query(i, lang))
    }

    fn query(&self, i: usize, lang: Lang) -> Option<&Compiled> {
        // A built-in plugin's queries are compiled by a test; a user plugin's were checked when loaded.
        self.compiled[i][lang_index(lang)].get_or_init(|| self.compile(i, lang, true).ok()).as_ref()
    }

    /// The facts of the matches `compiled` makes starting at `node` (with its working room: the matcher's
    /// scratch, or tree-sitter's cursor).
    #[allow(clippy::too_many_arguments)]
    fn run_at<'t>(
        &self,
        compiled: &Compiled,
        node: Node<'t>,
        cursor: &mut QueryCursor,
        scratch: &mut Scratch<'t>,
        source: &str,
        clients: &Clients<'_>,
        out: &mut Vec<WireFact>,
    ) {
        let start = out.len();
        match &compiled.engine {
            Engine::Own(patterns) => {
                let names = patterns.capture_names();
                let mut matches = Vec::new();
                // What `collect` asks of a request's client, asked as the client is bound.
                let holds = |client: Node<'_>, text: &[u8]| {
                    may_be_a_client(client, std::str::from_utf8(text).unwrap_or_default(), clients)
                };
                let only = compiled.requests_on.filter(|_| !clients.bound).map(|(root, capture)| Only {
                    root,
                    capture,
                    holds: &holds,
                });
                patterns.matches_at(node, source.as_bytes(), only.as_ref(), scratch, &mut matches);
                for m in matches {
                    let captures = m.captures.iter().map(|&(c, n)| (names[c as usize].as_str(), n));
                    self.collect(captures, source, clients, out);
                }
            }
            Engine::TreeSitter(query) => {
                let names = query.capture_names();
                let mut matches = cursor.matches(query, node, source.as_bytes());
                while let Some(m) = matches.next() {
                    self.collect(m.captures().iter().map(|c| (names[c.index as usize], c.node)), source, clients, out);
                }
            }
        }
        if let Some(suffix) = &compiled.suffix {
            for fact in out[start..].iter_mut().filter(|f| f.kind == WireKind::Route) {
                fact.path.push(PathPart::Text(suffix.clone()));
                fact.path = merge_text(std::mem::take(&mut fact.path));
            }
        }
    }

    /// The fact of one match's captures (and the client a request helper makes), appended to `out`.
    fn collect<'t>(
        &self,
        captures: impl Iterator<Item = (&'t str, Node<'t>)>,
        source: &str,
        clients: &Clients<'_>,
        out: &mut Vec<WireFact>,
    ) {
        // A match has a handful of captures: each name's first node, in a vector.
        let mut by_name: Vec<(&str, Node<'_>)> = Vec::with_capacity(8);
        for (name, node) in captures {
            if !by_name.iter().any(|(n, _)| *n == name) {
                by_name.push((name, node));
            }
        }
        // A request on a name that cannot be a client is left out below: its fact is not made.
        if by_name.iter().find(|(n, _)| is_root(n)).is_some_and(|(n, _)| *n == "request")
            && let Some((_, client)) = by_name.iter().find(|(n, _)| *n == "request.client")
            && !may_be_a_client(*client, &source[client.byte_range()], clients)
        {
            return;
        }
        if let Some(fact) = self.fact(&by_name, source) {
            if fact.kind == WireKind::Request
                && let Some((_, node)) = by_name.iter().find(|(n, _)| *n == "request")
                && let Some(client) = wrapper(*node, &fact, source)
            {
                out.push(client);
            }
            out.push(fact);
        }
    }

    /// This plugin's facts of one file, `mine`, appended to `out`: of two matches of one construct (patterns
    /// with and without an optional part) the fuller kept, the file's own path and the default method
    /// filled in.
    fn finish(&self, mine: Vec<WireFact>, file_path: Option<Vec<PathPart>>, out: &mut Vec<WireFact>) {
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

    fn fact(&self, captured: &[(&str, Node<'_>)], source: &str) -> Option<WireFact> {
        let (root, node) = captured.iter().find(|(name, _)| is_root(name))?;
        let kind = WireKind::of_capture(root)?;
        // `@route.path` for `path`, without a string made per lookup.
        let part = |field: &str| {
            let under = |name: &str| name.strip_prefix(*root).and_then(|r| r.strip_prefix('.')) == Some(field);
            captured.iter().find(|(name, _)| under(name)).map(|(_, n)| *n)
        };
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
            WireKind::Rewrite => "from",
            WireKind::Prefix => "path",
        };
        if let Some(p) = part(path_field) {
            fact.path = match kind {
                WireKind::Rewrite => vec![PathPart::Text(paths::prefix_pattern(p, source)?)],
                _ => path_parts(p, source),
            };
        }
        let named = match kind {
            WireKind::Route | WireKind::Mount => part("router"),
            WireKind::Request => part("client"),
            _ => part("name"),
        };
        // A call chain is named by what it is bound to; a client a class holds (a field, a constructor's
        // parameter property) as its methods read it, `this.http`.
        fact.name = match named {
            Some(n) if matches!(n.kind(), "call_expression" | "call" | "new_expression") => bound_name(n, source),
            Some(n)
                if kind == WireKind::Client
                    && n.parent()
                        .is_some_and(|p| matches!(p.kind(), "public_field_definition" | "required_parameter")) =>
            {
                Some(format!("this.{}", text(n)))
            }
            Some(n) => Some(text(n)),
            None if kind == WireKind::Router => bound_name(*node, source),
            None => None,
        };
        // A function mounted where it is written (`app.register(async (api) => …)`) is named by its line.
        fact.target = part("target").map(|t| match t.kind() {
            "arrow_function" | "function_expression" | "function" | "lambda" => {
                format!("@{}", t.start_position().row + 1)
            }
            // A router built where it is mounted (`Router::new().route(…)`): the chain's router, by its line.
            "call_expression" | "call"
                if t.child_by_field_name("function").is_some_and(|f| f.kind() == "field_expression") =>
            {
                format!("@{}", t.start_position().row + 1)
            }
            _ => text(t),
        });
        if kind == WireKind::Rewrite {
            fact.target = Some(part("to").and_then(|n| paths::string_text(n, source)).unwrap_or_default());
        }
        if let Some(scope) = part("scope") {
            // A router a call makes (actix-web's `web::scope("/api")`) is over the method chain it starts.
            let over = if matches!(scope.kind(), "call_expression" | "call") { chain_top(scope) } else { scope };
            fact.scoped = true;
            fact.line = over.start_position().row as u32 + 1;
            fact.end_line = over.end_position().row as u32 + 1;
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
            "identifier" | "attribute" | "member_expression" | "property_identifier" | "scoped_identifier" => {
                Handler::Name(text(h))
            }
            _ => Handler::At(h.start_position().row as u32 + 1),
        });
        Some(fact)
    }
}

/// Whether a request's URL looks like one, for a call on an imported name that may be no client at all
/// (`cache.get(key)`, `settings.get("DEBUG")`): a literal part holding a `/` or a scheme, or a constant's
/// name (`USERS_URL`).
fn looks_like_a_url(path: &[PathPart]) -> bool {
    path.iter().any(|p| match p {
        PathPart::Text(t) => t.contains('/') || t.starts_with("http"),
        PathPart::Name(n) => {
            let last = n.rsplit('.').next().unwrap_or(n);
            last.chars().any(|c| c.is_ascii_uppercase()) && !last.chars().any(|c| c.is_ascii_lowercase())
        }
        _ => false,
    })
}

/// Whether `name` is an HTTP client library's own (`fetch`, `axios`, `requests`, `reqwest`), a client in
/// every file that names it.
pub fn builtin_client(lang: Lang, name: &str) -> bool {
    match lang.family() {
        Family::Js => ["fetch", "axios", "ky", "superagent"].contains(&name),
        Family::Python => ["requests", "httpx"].contains(&name),
        Family::Rust => name == "reqwest",
    }
}

/// The node kinds the patterns of `query` (compiled from `text`) start at; `None` when some pattern may
/// start elsewhere than at a named kind.
fn roots(query: &Query, text: &str, grammar: &tree_sitter::Language) -> Option<Vec<u16>> {
    let mut out = Vec::new();
    for pattern in 0..query.pattern_count() {
        if !query.is_pattern_rooted(pattern) {
            return None;
        }
        let source = text.get(query.start_byte_for_pattern(pattern)..query.end_byte_for_pattern(pattern))?;
        for name in crate::patterns::pattern_roots(source)? {
            // 0 is no kind at all.
            match grammar.id_for_node_kind(name, true) {
                0 => return None,
                id => out.push(id),
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

/// Whether a capture names what a match declares (`@route`), not a part of it (`@route.path`) or a helper.
/// Whether a request's client node (its text `text`) may be an HTTP client in the file: a call making one,
/// or a name [`Clients::may_be`] keeps.
fn may_be_a_client(client: Node<'_>, text: &str, clients: &Clients<'_>) -> bool {
    matches!(client.kind(), "call_expression" | "call" | "new_expression") || clients.may_be(text)
}

fn is_root(name: &str) -> bool {
    !name.contains('.') && !name.starts_with('_')
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

/// The last call of the method chain `call` starts (`web::scope("/api").route(…).service(…)`).
fn chain_top(call: Node<'_>) -> Node<'_> {
    let mut at = call;
    loop {
        let Some(member) = at.parent().filter(|p| {
            matches!(p.kind(), "field_expression" | "member_expression" | "attribute")
                && p.child_by_field_name("value").or_else(|| p.child_by_field_name("object")) == Some(at)
        }) else {
            return at;
        };
        match member.parent() {
            Some(c)
                if matches!(c.kind(), "call_expression" | "call")
                    && c.child_by_field_name("function") == Some(member) =>
            {
                at = c
            }
            _ => return at,
        }
    }
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
