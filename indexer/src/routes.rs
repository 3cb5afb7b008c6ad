//! The route layer of a code plane: `Route` nodes with `SERVES` edges to their handlers, and `REQUESTS`
//! edges from the functions that call an HTTP client to the route they request (or to a `Request`
//! stand-in when no route of the plane serves it), built from every file's wire facts together.
//!
//! A route's path is its router's prefixes (from every mount of the router, through routers mounted on
//! routers), the router's own prefix and the route's path; a request's is its client's base URL (scheme
//! and host dropped) and its URL. Names in paths are string constants of the file, or of the tree when
//! one constant has that name; parameters become `{}`, a trailing slash is dropped, and a part that
//! cannot be known is kept as `{?}` and marked.
//!
//! The layer depends on all files' facts (a prefix may be set in another file than its routes), so an
//! index builds it after the symbols and a fold builds it again whole and compares it by key.
//!
//! Each route and mount gets its full path through routers, mounts (followed through imports), clients
//! and constants. A request no route serves as written is tried as the tree's proxies forward it
//! (`Rewrite` facts, `rewritten`), and a stand-in lists those paths under `via`. Routes and mounts
//! inside a scoped router are its; Django's `include("m")` and Rust's `m::f` find the module's file;
//! `drsg_planes::routes::fit` picks the route a request fits best. An index appends the layer after the
//! stand-ins (`graph::build`); a fold builds it again whole (`graph::layer_output`) and compares it by
//! key with the old one like a dirty file's output, so a changed prefix re-derives every path it
//! reaches.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use drsg_parsers::wire::{Handler, PathPart, WireKind};
use drsg_parsers::{Family, Lang};
use drsg_planes::routes::{fit, normalise};
use drsg_planes::{EdgeType, NodeData};
use serde_json::{Value, json};

use crate::table::{SymId, Table};

/// An end of a layer edge: a symbol of the table, or a node of the layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LayerEnd {
    Sym(SymId),
    Node(usize),
}

/// The layer's nodes and edges (`(src, dst, type, properties)`), and its counts for the ledger.
#[derive(Debug, Default)]
pub(crate) struct Layer {
    pub nodes: Vec<NodeData>,
    pub edges: Vec<(LayerEnd, LayerEnd, &'static str, String)>,
    pub counts: WireCounts,
}

/// What the ledger says of the route layer.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct WireCounts {
    /// `Route` nodes (one per method and path).
    pub routes: u64,
    /// `REQUESTS` edges, and those ending at a `Request` stand-in (no route of the plane serves them).
    pub requests: u64,
    pub requests_unserved: u64,
    /// Routes and requests with a part of their path that could not be known (`{?}`).
    pub unknown_paths: u64,
    /// Route declarations on an object no plugin declared a router, and requests on one no plugin
    /// declared a client: left out.
    pub routes_not_on_a_router: u64,
    pub requests_not_on_a_client: u64,
    /// Application-wide prefixes left out because a framework's routes in the plane were given several
    /// different ones (two applications in one tree): which routes each covers is not known.
    pub global_prefixes_in_doubt: u64,
}

/// A router: a file's name bound to a router object, with its own prefix.
type RouterId = (u32, String);

struct Mount {
    parent: RouterId,
    prefix: Vec<PathPart>,
    replaces: bool,
}

/// A route or request path assembled: normalised (`/users/{}`), as written, and whether a part of it
/// could not be known.
struct Assembled {
    path: String,
    raw: String,
    unknown: bool,
}

/// Builds the layer of table `t`.
pub(crate) fn layer(t: &Table) -> Layer {
    let facts = |fi: usize| t.files[fi].facts.wire.iter();
    let live = (0..t.files.len()).filter(|&fi| !t.files[fi].facts.wire.is_empty());
    let files: Vec<usize> = live.collect();
    if files.is_empty() {
        return Layer::default();
    }
    // Constants: by file and name, and by name across the tree (kept only when every one agrees).
    let mut constants: HashMap<(u32, &str), String> = HashMap::new();
    let mut anywhere: HashMap<&str, Option<String>> = HashMap::new();
    for &fi in &files {
        for f in facts(fi).filter(|f| f.kind == WireKind::Constant) {
            let (Some(name), Some(value)) = (f.name.as_deref(), literal(&f.path)) else { continue };
            constants.entry((fi as u32, name)).or_insert_with(|| value.clone());
            anywhere.entry(name).and_modify(|v| *v = v.take().filter(|v| *v == value)).or_insert(Some(value));
        }
    }
    let mut scope = Scope { t, constants, anywhere, scoped: Vec::new(), inner: HashSet::new() };
    let mut routers: BTreeMap<RouterId, Vec<PathPart>> = BTreeMap::new();
    let mut clients: BTreeMap<RouterId, Vec<PathPart>> = BTreeMap::new();
    // Wrapper clients (an object whose methods call a client with a base and the URL they are handed):
    // the requests inside them are the wrapper's own, not requests of their own.
    let mut wrappers: Vec<(u32, u32, u32)> = Vec::new();
    for &fi in &files {
        for f in facts(fi) {
            match f.kind {
                WireKind::Router if f.scoped => {
                    let Some(id) = f.target.clone() else { continue };
                    routers.entry((fi as u32, id.clone())).or_insert_with(|| f.path.clone());
                    scope.scoped.push(Scoped {
                        file: fi as u32,
                        id,
                        name: f.name.clone(),
                        lines: (f.line, f.end_line),
                    });
                }
                WireKind::Router => {
                    let Some(name) = f.name.clone() else { continue };
                    let own = routers.entry((fi as u32, name)).or_default();
                    if own.is_empty() {
                        *own = f.path.clone();
                    }
                }
                WireKind::Client => {
                    let Some(name) = f.name.clone() else { continue };
                    let mut base = f.path.clone();
                    if let Some(PathPart::Name(last)) = base.last()
                        && !scope.is_constant(fi as u32, last)
                    {
                        base.pop();
                        wrappers.push((fi as u32, f.line, f.end_line));
                    }
                    clients.insert((fi as u32, name), base);
                }
                _ => {}
            }
        }
    }
    // Routers a mount of their own file places under another (a Django REST framework router included in
    // the module's `urlpatterns`): not the module's own router.
    for &fi in &files {
        for f in facts(fi).filter(|f| f.kind == WireKind::Mount) {
            if let Some(target) = &f.target
                && routers.contains_key(&(fi as u32, target.clone()))
            {
                scope.inner.insert((fi as u32, target.clone()));
            }
        }
    }
    // A router mounted on is a router, though no plugin saw it made (`export default Router().use(…)`).
    let mut mounts: BTreeMap<RouterId, Vec<Mount>> = BTreeMap::new();
    let mut parents: Vec<(usize, &drsg_parsers::wire::WireFact, RouterId)> = Vec::new();
    for &fi in &files {
        for f in facts(fi).filter(|f| f.kind == WireKind::Mount) {
            let parent = match scope.router_at(fi as u32, f.line, f.name.as_deref()) {
                Some(p) => p,
                None => (fi as u32, f.name.clone().unwrap_or_default()),
            };
            routers.entry(parent.clone()).or_default();
            parents.push((fi, f, parent));
        }
    }
    // A function mounted that is no router (actix-web's `.service(show)`): the routes it handles that are
    // declared on no router sit under the mount, and only there.
    let mut handled: HashMap<SymId, Vec<Mount>> = HashMap::new();
    for (fi, f, parent) in parents {
        let Some(target) = &f.target else { continue };
        let mount = Mount { parent, prefix: f.path.clone(), replaces: f.replaces };
        match scope.router_of(fi as u32, target, &routers) {
            Some(child) if child != mount.parent => mounts.entry(child).or_default().push(mount),
            Some(_) => {}
            None => {
                if let Some(h) = scope.handler(fi as u32, f.line, &Handler::Name(target.clone())) {
                    handled.entry(h).or_default().push(mount);
                }
            }
        }
    }
    // An anonymous scoped router no mount names (actix-web's `web::scope` inside another scope's chain or
    // a configuring function) sits in the innermost scoped router around it.
    for s in scope.scoped.iter().filter(|s| s.id.starts_with('@')) {
        let id = (s.file, s.id.clone());
        if mounts.contains_key(&id) {
            continue;
        }
        let around = scope
            .scoped
            .iter()
            .filter(|o| o.file == s.file && o.id != s.id && o.lines.0 <= s.lines.0 && s.lines.1 <= o.lines.1)
            .min_by_key(|o| o.lines.1 - o.lines.0);
        if let Some(o) = around {
            let parent = (o.file, o.id.clone());
            mounts.entry(id).or_default().push(Mount { parent, prefix: Vec::new(), replaces: false });
        }
    }

    let mut out = Layer::default();
    // Application-wide prefixes by plugin, applied only where the plane gives its routes one.
    let mut global: BTreeMap<&str, Vec<&[PathPart]>> = BTreeMap::new();
    for &fi in &files {
        for f in facts(fi).filter(|f| f.kind == WireKind::Prefix) {
            let seen = global.entry(f.plugin.as_str()).or_default();
            if !seen.contains(&f.path.as_slice()) {
                seen.push(&f.path);
            }
        }
    }
    out.counts.global_prefixes_in_doubt = global.values().filter(|p| p.len() > 1).map(|p| p.len() as u64).sum();
    // Routes, by key: one node per method and path, with a SERVES edge per declaration.
    let mut routes: BTreeMap<String, usize> = BTreeMap::new();
    let mut served: BTreeSet<(usize, SymId)> = BTreeSet::new();
    for &fi in &files {
        let file = &t.files[fi];
        for f in facts(fi).filter(|f| f.kind == WireKind::Route) {
            // A route declared on an object must be on a router; one a plugin declares on nothing (a
            // framework's module-level `@get`) sits at the root.
            let router = match scope.router_at(fi as u32, f.line, f.name.as_deref()) {
                Some(router) => Some(router),
                None => match f.name.as_deref() {
                    Some(n) => match scope.router_of(fi as u32, n, &routers) {
                        Some(router) => Some(router),
                        None => {
                            out.counts.routes_not_on_a_router += 1;
                            continue;
                        }
                    },
                    None => None,
                },
            };
            let handler = f.handler.as_ref().and_then(|h| scope.handler(fi as u32, f.line, h));
            let under = match (router, handler.and_then(|h| handled.get(&h))) {
                (Some(router), _) => prefixes(&router, &routers, &mounts, &mut Vec::new()),
                (None, Some(at)) => at
                    .iter()
                    .flat_map(|m| {
                        prefixes(&m.parent, &routers, &mounts, &mut Vec::new()).into_iter().map(|mut above| {
                            join(&mut above, &m.prefix);
                            above
                        })
                    })
                    .take(MAX_PREFIXES)
                    .collect(),
                (None, None) => vec![Vec::new()],
            };
            let application = match global.get(f.plugin.as_str()).map(Vec::as_slice) {
                Some([one]) => one,
                _ => &[][..],
            };
            for prefix in under {
                let mut parts = application.to_vec();
                join(&mut parts, &prefix);
                join(&mut parts, &f.path);
                let path = scope.assemble(fi as u32, &parts, false);
                out.counts.unknown_paths += u64::from(path.unknown);
                let methods = if f.methods.is_empty() { vec!["ANY".to_owned()] } else { f.methods.clone() };
                for method in methods {
                    let key = format!("route:{method} {}", path.path);
                    let at = *routes.entry(key.clone()).or_insert_with(|| {
                        // An inline handler (`(req, res) => …`) is no symbol: where it is, said.
                        let inline = match (&f.handler, handler) {
                            (Some(Handler::At(line)), None) => Some(*line),
                            _ => None,
                        };
                        let props = json!({
                            "method": method,
                            "path": path.path,
                            "raw": path.raw,
                            "unknown": path.unknown.then_some(true),
                            "plugin": f.plugin,
                            "inline_handler": inline,
                        });
                        out.nodes.push(node(key, "Route", &path.path, &file.path, f.line, props));
                        out.nodes.len() - 1
                    });
                    if let Some(h) = handler
                        && served.insert((at, h))
                    {
                        let props = json!({"file": file.path, "line": f.line}).to_string();
                        out.edges.push((LayerEnd::Node(at), LayerEnd::Sym(h), EdgeType::Serves.as_str(), props));
                    }
                }
            }
        }
    }
    // Requests: on a client proven to make HTTP requests, from the function around the call.
    let route_paths: Vec<(usize, String, String)> = routes
        .iter()
        .map(|(key, &at)| {
            let (method, path) = key["route:".len()..].split_once(' ').unwrap_or(("ANY", ""));
            (at, method.to_owned(), path.to_owned())
        })
        .collect();
    // Proxies in the tree (a dev server's or gateway's rewrite, `{ "^/api": "" }`): a request no route
    // serves as written may be served as the proxy forwards it.
    let rewrites: Vec<(String, String)> = files
        .iter()
        .flat_map(|&fi| facts(fi).filter(|f| f.kind == WireKind::Rewrite))
        .filter_map(|f| Some((normalise(&literal(&f.path)?), f.target.clone().unwrap_or_default())))
        .collect();
    let mut stand_ins: BTreeMap<String, usize> = BTreeMap::new();
    for &fi in &files {
        let file = &t.files[fi];
        for f in facts(fi).filter(|f| f.kind == WireKind::Request) {
            if wrappers.iter().any(|&(w, from, to)| w == fi as u32 && from <= f.line && f.line <= to) {
                continue;
            }
            // A request on nothing is one the plugin proved by its shape (a generated client's options).
            let client = f.name.as_deref().unwrap_or("");
            let base =
                if client.is_empty() { Some(Vec::new()) } else { scope.client(fi as u32, file.lang, client, &clients) };
            let Some(base) = base else {
                out.counts.requests_not_on_a_client += 1;
                continue;
            };
            let Some(caller) = scope.enclosing(fi as u32, f.line) else { continue };
            let mut parts = base;
            join(&mut parts, &f.path);
            let path = scope.assemble(fi as u32, &parts, true);
            out.counts.unknown_paths += u64::from(path.unknown);
            let methods = if f.methods.is_empty() { vec!["GET".to_owned()] } else { f.methods.clone() };
            let via = rewritten(&path.path, &rewrites);
            for method in methods {
                let best = |path: &str| {
                    route_paths
                        .iter()
                        .filter(|(_, m, _)| m == &method || m == "ANY")
                        .filter_map(|(at, m, p)| Some((fit(p, path)?, m == "ANY", at)))
                        .min_by_key(|(fit, any, _)| (*fit, *any))
                        .map(|(_, _, at)| *at)
                };
                let served_by = best(&path.path).or_else(|| via.iter().find_map(|p| best(p)));
                out.counts.requests += 1;
                let target = match served_by {
                    Some(at) => at,
                    None => {
                        out.counts.requests_unserved += 1;
                        let key = format!("request:{method} {}", path.path);
                        *stand_ins.entry(key.clone()).or_insert_with(|| {
                            let props = json!({
                                "method": method,
                                "path": path.path,
                                "unknown": path.unknown.then_some(true),
                                "via": (!via.is_empty()).then_some(&via),
                            });
                            out.nodes.push(node(key, "Request", &path.path, &file.path, f.line, props));
                            out.nodes.len() - 1
                        })
                    }
                };
                let props = json!({"line": f.line, "raw": path.raw, "client": client, "method": method}).to_string();
                out.edges.push((LayerEnd::Sym(caller), LayerEnd::Node(target), EdgeType::Requests.as_str(), props));
            }
        }
    }
    out.counts.routes = routes.len() as u64;
    out
}

/// The paths a request of `path` reaches through the tree's proxies: each rewrite whose prefix starts it
/// (whole segments), with the prefix replaced (`/api/users` through `{ "^/api": "" }` is `/users`).
fn rewritten(path: &str, rewrites: &[(String, String)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (from, to) in rewrites {
        let Some(rest) = path.strip_prefix(from.as_str()) else { continue };
        if !(rest.is_empty() || rest.starts_with('/')) || from == "/" {
            continue;
        }
        let p = normalise(&format!("{to}{rest}"));
        if p != path && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// A node of the layer; a stand-in request's file and line are those of its first call.
fn node(key: String, label: &str, path: &str, file: &str, line: u32, props: Value) -> NodeData {
    NodeData {
        key,
        labels: vec![label.to_owned()],
        name: path.to_owned(),
        file: Some(file.to_owned()),
        line: Some(line),
        ..NodeData::default()
    }
    .with_props(&crate::ops::obj(props))
}

/// Every full prefix of `router`: one per chain of mounts up to a router mounted nowhere. A mount that
/// would close a circle (Django's test URLconfs include each other) is left out, and a router's prefixes
/// stop at [`MAX_PREFIXES`].
fn prefixes(
    router: &RouterId,
    routers: &BTreeMap<RouterId, Vec<PathPart>>,
    mounts: &BTreeMap<RouterId, Vec<Mount>>,
    chain: &mut Vec<RouterId>,
) -> Vec<Vec<PathPart>> {
    let own = routers.get(router).cloned().unwrap_or_default();
    let Some(parents) = mounts.get(router).filter(|_| chain.len() < 8) else { return vec![own] };
    chain.push(router.clone());
    let mut out = Vec::new();
    for m in parents {
        if chain.contains(&m.parent) {
            continue;
        }
        for mut above in prefixes(&m.parent, routers, mounts, chain) {
            join(&mut above, &m.prefix);
            if !m.replaces || m.prefix.is_empty() {
                join(&mut above, &own);
            }
            if out.len() < MAX_PREFIXES {
                out.push(above);
            }
        }
    }
    chain.pop();
    if out.is_empty() {
        // Mounted only inside itself: where it would sit unmounted.
        out.push(own);
    }
    out
}

/// The most prefixes one router's routes take.
const MAX_PREFIXES: usize = 64;

/// `rest` appended to the path `parts`, with a `/` between them unless one side has it (Django's `users/`, NestJS's `users` and
/// ky's `users` are written without their leading one; a doubled one normalises away).
fn join(parts: &mut Vec<PathPart>, rest: &[PathPart]) {
    let ends = matches!(parts.last(), Some(PathPart::Text(t)) if t.ends_with('/'));
    let starts = matches!(rest.first(), Some(PathPart::Text(t)) if t.starts_with('/'));
    if !parts.is_empty() && !rest.is_empty() && !ends && !starts {
        parts.push(PathPart::Text("/".to_owned()));
    }
    parts.extend(rest.iter().cloned());
}

/// `{text}` appended to `out`.
fn braced(out: &mut String, text: &str) {
    out.push('{');
    out.push_str(text);
    out.push('}');
}

/// The text of a path made of literal text only.
fn literal(parts: &[PathPart]) -> Option<String> {
    parts
        .iter()
        .map(|p| match p {
            PathPart::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// What resolving names in the layer reads.
struct Scope<'t> {
    t: &'t Table,
    constants: HashMap<(u32, &'t str), String>,
    anywhere: HashMap<&'t str, Option<String>>,
    scoped: Vec<Scoped>,
    /// Routers mounted under another router of their own file.
    inner: HashSet<RouterId>,
}

/// A router that is a function or class of a file (a Fastify plugin, a NestJS controller, an axum
/// function returning a `Router`): routes and mounts within its lines, on its name or on none, are its.
struct Scoped {
    file: u32,
    id: String,
    name: Option<String>,
    lines: (u32, u32),
}

impl Scope<'_> {
    /// The innermost scoped router of file `fi` around `line` that a route or mount on `name` is on.
    fn router_at(&self, fi: u32, line: u32, name: Option<&str>) -> Option<RouterId> {
        self.scoped
            .iter()
            .filter(|s| s.file == fi && s.lines.0 <= line && line <= s.lines.1)
            .filter(|s| name.is_none() || s.name.is_none() || s.name.as_deref() == name)
            .min_by_key(|s| s.lines.1 - s.lines.0)
            .map(|s| (fi, s.id.clone()))
    }

    /// Whether `name` is a string constant file `fi` can read.
    fn is_constant(&self, fi: u32, name: &str) -> bool {
        let last = name.rsplit('.').next().unwrap_or(name);
        self.constants.contains_key(&(fi, name))
            || self.constants.contains_key(&(fi, last))
            || self.anywhere.get(last).is_some_and(Option::is_some)
    }

    /// The router `expr` names in file `fi`: one of the file's, or one it imports (`users.router`,
    /// `router as users_router`, `import router from './users'`).
    fn router_of(&self, fi: u32, expr: &str, routers: &BTreeMap<RouterId, Vec<PathPart>>) -> Option<RouterId> {
        let here = (fi, expr.to_owned());
        if routers.contains_key(&here) {
            return Some(here);
        }
        let one_of = |file: u32| {
            let mut of_file = routers.keys().filter(|id| id.0 == file && !self.inner.contains(*id));
            match (of_file.next(), of_file.next()) {
                (Some(one), None) => Some(one.clone()),
                _ => None,
            }
        };
        // Django's `include("app.urls")`: the module's one router (its `urlpatterns`), of those no mount of
        // its file places under another.
        if let Some(module) = expr.strip_prefix(['"', '\'']).and_then(|e| e.strip_suffix(['"', '\''])) {
            return one_of(self.module_file(module)?);
        }
        // Rust's `users::router`: the function `router` of the module `users` beside or below this one.
        if let Some((module, name)) = expr.rsplit_once("::")
            && let Some(file) = self.rust_module(fi, module)
        {
            let there = (file, name.to_owned());
            return routers.contains_key(&there).then_some(there);
        }
        let (file, name) = self.imported(fi, expr)?;
        let there = (file, name);
        if routers.contains_key(&there) {
            return Some(there);
        }
        // `export default router`, imported under any name: the one router of that file.
        let mut of_file = routers.keys().filter(|(f, _)| *f == there.0);
        match (of_file.next(), of_file.next(), there.1.as_str()) {
            (Some(one), None, "default") => Some(one.clone()),
            _ => None,
        }
    }

    /// The file of the module keyed `key` (`app.urls`).
    fn module_file(&self, key: &str) -> Option<u32> {
        self.t.module_by_key.get(key).map(|&id| self.t.syms[id as usize].file)
    }

    /// The file of Rust module `path` (`users`, `crate::api::users`, `super::users`) seen from file `fi`.
    fn rust_module(&self, fi: u32, path: &str) -> Option<u32> {
        let own = &self.t.syms[self.t.file_module[fi as usize] as usize].key;
        let mut base: Vec<&str> = own.split("::").collect();
        let mut rest = path;
        if let Some(r) = rest.strip_prefix("crate::").or((rest == "crate").then_some("")) {
            base.truncate(1);
            rest = r;
        }
        rest = rest.strip_prefix("self::").unwrap_or(rest);
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        // A module's children: from `main.rs`/`lib.rs`/`mod.rs` beside it, from `x.rs` in `x/`: both tried.
        let mut tries = vec![base.join("::")];
        if base.len() > 1 {
            tries.push(base[..base.len() - 1].join("::"));
        }
        tries
            .into_iter()
            .find_map(|b| {
                let key = if rest.is_empty() { b } else { format!("{b}::{rest}") };
                self.module_file(&key)
            })
            // A crate's own name (`nested_routing::app_config` from its binary).
            .or_else(|| self.module_file(path))
    }

    /// The file and name an imported `expr` stands for: `alias` imported by name, or `module.name`.
    fn imported(&self, fi: u32, expr: &str) -> Option<(u32, String)> {
        let file = &self.t.files[fi as usize];
        if file.lang.family() == Family::Rust {
            // `use crate::app_config::config_app` + `config_app`; `use crate::handlers::users` +
            // `users::list`.
            let (head, rest) = match expr.split_once("::") {
                Some((h, r)) => (h, Some(r)),
                None => (expr, None),
            };
            let import = file.facts.imports.iter().find(|i| i.alias == head && !i.glob && i.scope.is_none())?;
            let name = import.name.as_deref().filter(|n| *n != "self");
            return match (name, rest) {
                (Some(name), Some(rest)) => {
                    Some((self.rust_module(fi, &format!("{}::{name}", import.source))?, rest.to_owned()))
                }
                (None, Some(rest)) => Some((self.rust_module(fi, &import.source)?, rest.to_owned())),
                (Some(name), None) => Some((self.rust_module(fi, &import.source)?, name.to_owned())),
                (None, None) => None,
            };
        }
        let (head, rest) = match expr.split_once('.') {
            Some((h, r)) => (h, Some(r)),
            None => (expr, None),
        };
        let import = file.facts.imports.iter().find(|i| i.alias == head && i.scope.is_none())?;
        match (import.name.as_deref(), rest) {
            // `from app.api import users` + `users.router`: the module `app.api.users`.
            (Some(name), Some(rest)) => {
                let module = self.module(fi, &import.source, Some(name))?;
                Some((module, rest.to_owned()))
            }
            // `import { router as users } from './users'`, `from .users import router as users`.
            (Some(name), None) => Some((self.module(fi, &import.source, None)?, name.to_owned())),
            // `import app.api.users as users` + `users.router`.
            (None, Some(rest)) => Some((self.module(fi, &import.source, None)?, rest.to_owned())),
            // `const users = require('./routes/users')`: what the module exports.
            (None, None) => Some((self.module(fi, &import.source, None)?, "default".to_owned())),
        }
    }

    /// The file of module `source` imported from file `fi` (with `name` appended for Python's
    /// `from package import module`).
    fn module(&self, fi: u32, source: &str, name: Option<&str>) -> Option<u32> {
        let t = self.t;
        let file = &t.files[fi as usize];
        match file.lang.family() {
            Family::Python => {
                let dots = source.chars().take_while(|c| *c == '.').count();
                let rest = &source[dots..];
                let base = if dots == 0 {
                    rest.to_owned()
                } else {
                    let own = &t.syms[t.file_module[fi as usize] as usize].key;
                    let mut parts: Vec<&str> = own.split('.').collect();
                    let is_package = file.path.ends_with("__init__.py");
                    for _ in 0..dots - usize::from(is_package) {
                        parts.pop();
                    }
                    let mut joined = parts.join(".");
                    if !rest.is_empty() {
                        if !joined.is_empty() {
                            joined.push('.');
                        }
                        joined.push_str(rest);
                    }
                    joined
                };
                let lookup = |key: &str| t.module_by_key.get(key).map(|&id| t.syms[id as usize].file);
                let with_name = name.map(|n| if base.is_empty() { n.to_owned() } else { format!("{base}.{n}") });
                with_name.as_deref().and_then(lookup).or_else(|| lookup(&base).filter(|_| name.is_none()))
            }
            Family::Js => {
                if !source.starts_with('.') {
                    return None;
                }
                let dir = file.path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
                let joined = crate::ops::join(dir, source)?;
                // `./tag/tag.controller` names `tag.controller.ts`: only a script's extension is one.
                let stem = joined
                    .rsplit_once('.')
                    .filter(|(_, ext)| ["js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts"].contains(ext))
                    .map_or(joined.as_str(), |(s, _)| s);
                let stem = stem.to_owned();
                t.js_stems.get(&stem).or_else(|| t.js_stems.get(&format!("{stem}/index"))).copied()
            }
            Family::Rust => None,
        }
    }

    /// The base URL of `client` in file `fi`: none for `fetch`, `axios`, `requests` and `httpx`, the
    /// file's or an imported client's otherwise; `None` when `client` is no HTTP client drsg knows.
    fn client(
        &self,
        fi: u32,
        lang: Lang,
        client: &str,
        clients: &BTreeMap<RouterId, Vec<PathPart>>,
    ) -> Option<Vec<PathPart>> {
        if let Some(base) = clients.get(&(fi, client.to_owned())) {
            return Some(base.clone());
        }
        if drsg_parsers::wire::builtin_client(lang, client) {
            // `axios.defaults.baseURL = …` in one file sets the base of `axios` in every file.
            let default = clients.iter().find(|((_, name), _)| name == client).map(|(_, base)| base.clone());
            return Some(default.unwrap_or_default());
        }
        let (file, name) = self.imported(fi, client)?;
        if let Some(base) = clients.get(&(file, name.clone())) {
            return Some(base.clone());
        }
        let mut of_file = clients.iter().filter(|((f, _), _)| *f == file);
        match (of_file.next(), of_file.next(), name.as_str()) {
            (Some((_, base)), None, "default") => Some(base.clone()),
            _ => None,
        }
    }

    /// The symbol a handler names: the function defined at a line, or a name of the file or imported.
    fn handler(&self, fi: u32, route_line: u32, h: &Handler) -> Option<SymId> {
        let t = self.t;
        let file = &t.files[fi as usize];
        match h {
            // The innermost function holding that line and starting no earlier than the route (a decorated
            // function may start at its decorator); an inline function is none, and serves nothing named.
            Handler::At(line) => {
                let (d, _) = file
                    .facts
                    .defs
                    .iter()
                    .enumerate()
                    .filter(|(_, d)| {
                        d.kind.is_callable() && d.line <= *line && *line <= d.end_line && d.line >= route_line
                    })
                    .max_by_key(|(_, d)| d.line)?;
                self.sym(fi, d)
            }
            Handler::Name(name) => {
                // A name of the file's module, through the modules declared inside it (`v1::hello`).
                let top = |f: u32, n: &str| {
                    n.split("::").try_fold(t.file_module[f as usize], |at, segment| {
                        t.children.get(&at)?.get(segment)?.iter().copied().find(|&id| !t.syms[id as usize].dead)
                    })
                };
                if !name.contains('.')
                    && let Some(id) = top(fi, name)
                {
                    return Some(id);
                }
                if let Some((module, last)) = name.rsplit_once("::")
                    && let Some(found) = self.rust_module(fi, module).and_then(|m| top(m, last))
                {
                    return Some(found);
                }
                let (file, rest) = self.imported(fi, name)?;
                top(file, &rest)
            }
        }
    }

    /// The live symbol of def `d` of file `fi`.
    fn sym(&self, fi: u32, d: usize) -> Option<SymId> {
        let id = (*self.t.def_sym.get(fi as usize)?.get(d)?)?;
        (!self.t.syms[id as usize].dead).then_some(id)
    }

    /// The innermost function or method around `line` of file `fi`, else the file's module.
    fn enclosing(&self, fi: u32, line: u32) -> Option<SymId> {
        let file = &self.t.files[fi as usize];
        let around = file
            .facts
            .defs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.kind.is_callable() && d.line <= line && line <= d.end_line)
            .min_by_key(|(_, d)| d.end_line - d.line);
        match around {
            Some((d, _)) => self.sym(fi, d),
            None => Some(self.t.file_module[fi as usize]),
        }
    }

    /// A path's parts joined and normalised; `request` paths read an unknown name inside them as a
    /// parameter (`/users/${id}`) and at their start as unknown (`${API_URL}/users`).
    fn assemble(&self, fi: u32, parts: &[PathPart], request: bool) -> Assembled {
        let mut raw = String::new();
        let mut path = String::new();
        let mut unknown = false;
        for (i, p) in parts.iter().enumerate() {
            match p {
                PathPart::Text(text) => {
                    raw.push_str(text);
                    path.push_str(text);
                }
                PathPart::Name(name) => {
                    braced(&mut raw, name);
                    let last = name.rsplit('.').next().unwrap_or(name);
                    let value = self
                        .constants
                        .get(&(fi, name.as_str()))
                        .or_else(|| self.constants.get(&(fi, last)))
                        .or_else(|| self.anywhere.get(last)?.as_ref());
                    match value {
                        Some(v) => path.push_str(v),
                        None if request && i > 0 => path.push_str("{}"),
                        None => {
                            unknown = true;
                            path.push_str("{?}");
                        }
                    }
                }
                PathPart::Param => {
                    raw.push_str("{}");
                    path.push_str("{}");
                }
                PathPart::Unknown(text) => {
                    braced(&mut raw, text);
                    unknown = true;
                    path.push_str("{?}");
                }
            }
        }
        Assembled { path: normalise(&path), raw, unknown }
    }
}
