//! `wire`: which handler serves a route and which functions request it, across languages and across every
//! code plane of the database (a front end and a back end indexed as two planes match each other).
//!
//! Within a plane the index has already tied each request to the route serving it (`REQUESTS` to a
//! `Route`); a request no route of its plane serves ends at a `Request` stand-in, which is matched here,
//! at each call, against the routes of the other planes, so the answer is never staler than the planes.

use std::collections::HashMap;

use drsg_planes::routes::{normalise, same_path};

use crate::across::Across;
use drsg_planes::{Direction, EdgeType, Node, PlaneInfo, PlaneKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::render::Text;
use crate::{Answer, Error, Result, Session};

const DEFAULT_LIMIT: usize = 50;
const MAX_LIMIT: usize = 1000;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct WireParams {
    /// A route path (`/api/v1/items/42`, `/items/{id}`): what serves it and what requests it.
    pub path: Option<String>,
    pub method: Option<String>,
    /// A handler or a caller: the routes it serves or requests.
    pub name: Option<String>,
    pub limit: Option<usize>,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct WireOutput {
    pub routes: Vec<RouteOut>,
    pub unmatched_requests: Vec<RequestOut>,
    pub unrequested_routes: Vec<RouteOut>,
    /// Totals of the three lists before `limit` cut them.
    pub totals: [usize; 3],
    /// What was asked, in words, for the text form.
    #[serde(skip)]
    pub asked: Option<String>,
    /// Each plane read, with its freshness line.
    pub freshness: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RouteOut {
    pub method: String,
    pub path: String,
    pub raw: String,
    pub file: String,
    pub line: u32,
    pub plane: String,
    pub handler: Option<Place>,
    /// The line of an inline handler (an anonymous function), which is no symbol.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inline_handler: Option<u32>,
    pub requests: Vec<RequestOut>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RequestOut {
    pub method: String,
    pub path: String,
    pub raw: String,
    pub caller: Place,
    pub line: u32,
    pub plane: String,
    /// Of a request no route serves: why not, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Place {
    pub key: String,
    pub file: Option<String>,
    pub line: Option<u32>,
}

impl Place {
    fn of(n: &Node) -> Place {
        Place { key: n.key.clone(), file: n.file.clone(), line: n.line }
    }
}

pub fn wire(s: &Session<'_>, p: &WireParams) -> Result<WireOutput> {
    let limit = p.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(Error::InvalidArgument(format!("limit must be 1 to {MAX_LIMIT} (got {limit})")));
    }
    let planes: Vec<PlaneInfo> = match &p.plane {
        Some(name) => vec![s.plane(Some(name))?],
        None => s.store.planes()?.into_iter().filter(|pl| pl.meta.kind == PlaneKind::Code).collect(),
    };
    let text = |n: &Node, k: &str| n.props.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let mut routes: Vec<RouteOut> = Vec::new();
    // Requests no route of their own plane serves, by their `Request` stand-in.
    let mut open: Vec<(i64, RequestOut)> = Vec::new();
    let mut route_at: HashMap<i64, usize> = HashMap::new();
    for plane in &planes {
        let name = &plane.meta.name;
        // The plane's wire edges and the symbols at their ends, read at once: one query per route took
        // 0.7 s on a plane of 22,000 routes.
        let route_nodes = s.store.nodes_by_label(plane.id, "Route")?;
        let request_nodes = s.store.nodes_by_label(plane.id, "Request")?;
        let ids: Vec<i64> = route_nodes.iter().chain(&request_nodes).map(|n| n.id).collect();
        let route_ids: Vec<i64> = route_nodes.iter().map(|n| n.id).collect();
        let mut edges = s.store.edges_at(&route_ids, Direction::Out, EdgeType::Serves.as_str())?;
        edges.extend(s.store.edges_at(&ids, Direction::In, EdgeType::Requests.as_str())?);
        let mut ends: Vec<i64> =
            edges.iter().map(|e| if e.ty == EdgeType::Serves.as_str() { e.dst } else { e.src }).collect();
        ends.sort_unstable();
        ends.dedup();
        let symbols: HashMap<i64, Node> = s.store.nodes_by_ids(&ends)?.into_iter().map(|n| (n.id, n)).collect();
        let mut handler_of: HashMap<i64, i64> = HashMap::new();
        let mut requests_of: HashMap<i64, Vec<&drsg_planes::Edge>> = HashMap::new();
        for e in &edges {
            match EdgeType::parse(&e.ty) {
                Some(EdgeType::Serves) => {
                    handler_of.entry(e.src).or_insert(e.dst);
                }
                _ => requests_of.entry(e.dst).or_default().push(e),
            }
        }
        let callers_of = |target: &Node| -> Vec<RequestOut> {
            let mut out: Vec<RequestOut> = requests_of
                .get(&target.id)
                .into_iter()
                .flatten()
                .filter_map(|e| Some(request_out(e, symbols.get(&e.src)?, target, name)))
                .collect();
            out.sort_by(|a, b| (&a.caller.key, a.line).cmp(&(&b.caller.key, b.line)));
            out
        };
        for r in route_nodes {
            let handler = handler_of.get(&r.id).and_then(|h| symbols.get(h)).map(Place::of);
            let requests = callers_of(&r);
            route_at.insert(r.id, routes.len());
            routes.push(RouteOut {
                method: text(&r, "method"),
                path: text(&r, "path"),
                raw: text(&r, "raw"),
                file: r.file.clone().unwrap_or_default(),
                line: r.line.unwrap_or(0),
                plane: name.clone(),
                handler,
                inline_handler: r.props.get("inline_handler").and_then(Value::as_u64).map(|l| l as u32),
                requests,
            });
        }
        for q in request_nodes {
            open.extend(callers_of(&q).into_iter().map(|out| (q.id, out)));
        }
    }
    // Matched against the other planes' routes as `impact --across` and `trace` match them; a route of a
    // plane not listed serves nothing here.
    let across = if open.is_empty() { None } else { Some(Across::load(s.store)?) };
    let mut unmatched = Vec::new();
    for (stand_in, q) in open {
        let served = across.as_ref().and_then(|a| a.route_for(stand_in)).and_then(|r| route_at.get(&r));
        match served {
            Some(&at) => routes[at].requests.push(q),
            None => unmatched.push(q),
        }
    }
    for q in &mut unmatched {
        q.why = Some(unserved(q, &routes));
    }
    routes.sort_by(|a, b| (&a.path, &a.method, &a.plane).cmp(&(&b.path, &b.method, &b.plane)));
    unmatched.sort_by(|a, b| (&a.path, &a.method, &a.caller.key).cmp(&(&b.path, &b.method, &b.caller.key)));

    // What was asked for: a path, a handler or caller, or everything.
    let mut asked = None;
    if let Some(path) = &p.path {
        let wanted = normalise(path);
        let method = p.method.as_deref().map(str::to_ascii_uppercase);
        let fits = |m: &str, pth: &str| {
            same_path(pth, &wanted) && method.as_deref().is_none_or(|want| m == want || m == "ANY")
        };
        routes.retain(|r| fits(&r.method, &r.path));
        unmatched.retain(|q| fits(&q.method, &q.path));
        asked = Some(format!("{}{wanted}", method.map(|m| format!("{m} ")).unwrap_or_default()));
    } else if let Some(name) = &p.name {
        let hits = |key: &str| key == name || key.ends_with(&format!(".{name}")) || key.ends_with(&format!("::{name}"));
        routes.retain(|r| {
            r.handler.as_ref().is_some_and(|h| hits(&h.key)) || r.requests.iter().any(|q| hits(&q.caller.key))
        });
        unmatched.retain(|q| hits(&q.caller.key));
        asked = Some(name.clone());
    }
    let (requested, unrequested): (Vec<RouteOut>, Vec<RouteOut>) =
        if asked.is_some() { (routes, Vec::new()) } else { routes.into_iter().partition(|r| !r.requests.is_empty()) };
    let totals = [requested.len(), unmatched.len(), unrequested.len()];
    let (mut requested, mut unmatched, mut unrequested) = (requested, unmatched, unrequested);
    requested.truncate(limit);
    unmatched.truncate(limit);
    unrequested.truncate(limit);
    Ok(WireOutput {
        routes: requested,
        unmatched_requests: unmatched,
        unrequested_routes: unrequested,
        totals,
        asked,
        freshness: planes.iter().map(|pl| format!("{}: {}", pl.meta.name, s.freshness(pl))).collect(),
    })
}

/// The functions of code planes other than `plane` whose requests (`Request` stand-ins) the `routes` of
/// `plane` serve, as `caller (plane) requests METHOD path at line N`.
pub(crate) fn requested_elsewhere(s: &Session<'_>, plane: &PlaneInfo, routes: &[&Node]) -> Result<Vec<String>> {
    let mut out = Vec::new();
    if routes.is_empty() {
        return Ok(out);
    }
    // Each request is its best-fitting route's only: `/articles/${slug}` reaches `/articles/{}`, not
    // `/articles/feed`.
    let across = Across::load(s.store)?;
    let names: std::collections::HashMap<i64, String> =
        s.store.planes()?.into_iter().map(|p| (p.id, p.meta.name)).collect();
    let text = |n: &Node, k: &str| n.props.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    for route in routes.iter().filter(|r| r.plane == plane.id) {
        for &q in across.requests_of(route.id) {
            let Some(q) = s.store.node(q)? else { continue };
            let (method, path) = (text(&q, "method"), text(&q, "path"));
            let other = names.get(&q.plane).cloned().unwrap_or_default();
            for c in callers(s, &q, &other)? {
                out.push(format!("{} ({}) requests {method} {path} at line {}", c.caller.key, c.plane, c.line));
            }
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The request a `REQUESTS` edge from `caller` to `target` makes.
fn request_out(e: &drsg_planes::Edge, caller: &Node, target: &Node, plane: &str) -> RequestOut {
    let prop = |k: &str| e.props.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    RequestOut {
        method: prop("method"),
        path: target.props.get("path").and_then(Value::as_str).unwrap_or("").to_owned(),
        raw: prop("raw"),
        caller: Place::of(caller),
        line: e.props.get("line").and_then(Value::as_u64).unwrap_or(0) as u32,
        plane: plane.to_owned(),
        why: None,
    }
}

/// Why no route of `routes` serves request `q`: a part of its URL not known, a path served for other
/// methods only, or a path no route has.
fn unserved(q: &RequestOut, routes: &[RouteOut]) -> String {
    if q.path.contains("{?}") {
        return format!("a part of its URL is not known (`{}`)", q.raw);
    }
    let mut methods: Vec<&str> =
        routes.iter().filter(|r| same_path(&r.path, &q.path)).map(|r| r.method.as_str()).collect();
    methods.sort_unstable();
    methods.dedup();
    if methods.is_empty() {
        "no route in the database has this path".to_owned()
    } else {
        format!("this path is served for {} only", methods.join(", "))
    }
}

/// The requests ending at `target` (a route or a request stand-in), one per calling site.
fn callers(s: &Session<'_>, target: &Node, plane: &str) -> Result<Vec<RequestOut>> {
    let mut out = Vec::new();
    for e in s.store.edges_in(target.id, Some(EdgeType::Requests.as_str()))? {
        let Some(caller) = s.store.node(e.src)? else { continue };
        out.push(request_out(&e, &caller, target, plane));
    }
    out.sort_by(|a, b| (&a.caller.key, a.line).cmp(&(&b.caller.key, b.line)));
    Ok(out)
}

impl Answer for WireOutput {
    fn render_to(&self, t: &mut Text) {
        let place = |p: &Place| match (&p.file, p.line) {
            (Some(f), Some(l)) => format!("{}  {f}:{l}", p.key),
            _ => p.key.clone(),
        };
        let route_line = |t: &mut Text, r: &RouteOut| {
            let handler = match (&r.handler, r.inline_handler) {
                (Some(h), _) => format!(" → {}", place(h)),
                (None, Some(line)) => format!(" → an inline function at {}:{line}", r.file),
                (None, None) => " → no handler found".to_owned(),
            };
            t.line(format_args!("{} {}{handler}  ({}, {}:{})", r.method, r.path, r.plane, r.file, r.line))
        };
        let [requested, unmatched, unrequested] = self.totals;
        if let Some(asked) = &self.asked {
            if self.routes.is_empty() && self.unmatched_requests.is_empty() {
                t.line(format_args!("no route or request matches {asked}"));
            }
            for r in &self.routes {
                route_line(t, r);
                if r.requests.is_empty() {
                    t.line(format_args!("  requested by nothing in the database"));
                }
                for q in &r.requests {
                    t.line(format_args!("  requested by {}  (line {}, {})", place(&q.caller), q.line, q.plane));
                }
            }
        } else {
            t.line(format_args!("routes requested: {requested}"));
            for r in &self.routes {
                route_line(t, r);
                t.line(format_args!("  {} requests", r.requests.len()));
            }
            more(t, requested, self.routes.len());
        }
        if unmatched > 0 {
            t.line(format_args!("requests no route serves: {unmatched}"));
            for q in &self.unmatched_requests {
                t.line(format_args!(
                    "  {} {}  from {}  (line {}, {}): {}",
                    q.method,
                    q.path,
                    place(&q.caller),
                    q.line,
                    q.plane,
                    q.why.as_deref().unwrap_or("no route serves it")
                ));
            }
            more(t, unmatched, self.unmatched_requests.len());
        }
        if self.asked.is_none() && unrequested > 0 {
            t.line(format_args!("routes nothing in the database requests: {unrequested}"));
            for r in &self.unrequested_routes {
                route_line(t, r);
            }
            more(t, unrequested, self.unrequested_routes.len());
        }
        for f in &self.freshness {
            t.line(format_args!("{f}"));
        }
    }

    fn found(&self) -> bool {
        !(self.routes.is_empty() && self.unmatched_requests.is_empty() && self.unrequested_routes.is_empty())
    }
}

fn more(t: &mut Text, total: usize, shown: usize) {
    if total > shown {
        t.line(format_args!("  … and {} more (--limit)", total - shown));
    }
}
