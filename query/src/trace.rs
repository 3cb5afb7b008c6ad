//! `trace`: the shortest recorded call path from one symbol to another, a hop per line with the
//! call-site line and how the call was bound; the reverse path when there is none forward; and when
//! there is none either way, where the chain breaks: the unresolved calls reachable from the start.
//!
//! `trace` steps through dispatch (`interface`: from an interface or trait method to its
//! implementations; `constructor`: from a class to its constructor) and through the wire between
//! planes (`wire` hops, paired by `across`), and looks a `to` up in the other code planes when the
//! caller's has none. It resolves its names with `lookup::find_for_calls`, which takes the one
//! function or method among a name's module and callable matches (a module's exact key too, when
//! its function is keyed `#2`) and says so; given a module, it searches the paths of its functions
//! (`lookup::module_functions`) and names the one it took, or lists them.

use std::collections::{HashMap, HashSet};

use drsg_planes::{Direction, EdgeType, PlaneKind, Store};
use serde::{Deserialize, Serialize};

use crate::CALL_TYPES;
use crate::across::Across;
use crate::dispatch;
use crate::lookup::{Lookup, Resolved, find_for_calls};
use crate::render::{NodeLine, Text};
use crate::unresolved::CutFiles;
use crate::walk::bfs;
use crate::{Answer, Result, Session};

/// Longest path searched, in hops.
const MAX_HOPS: u32 = 12;
/// Nodes visited per search before giving up.
const MAX_NODES: usize = 50_000;
/// Nodes walked when explaining a missing path.
const EXPLAIN_NODES: usize = 5_000;
const MAX_BREAKS: usize = 8;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct TraceParams {
    pub from: String,
    pub to: String,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct TraceOutput {
    pub plane: String,
    pub freshness: String,
    pub from: NodeLine,
    pub to: NodeLine,
    /// `forward` (from reaches to), `reverse` (to reaches from) or `none`.
    pub found: &'static str,
    /// The path's nodes after the first, each with the call that reaches it.
    pub hops: Vec<TraceHop>,
    /// When no path exists: unresolved calls reachable from `from`, the likeliest breaks first.
    pub breaks: Vec<Break>,
    /// How far the search for breaks looked, when no path exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explored: Option<Explored>,
    /// Which symbol a name that matched a module and a function was taken for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub picked: Vec<String>,
    /// Files of the plane part of which was not read: a path through calls there is not seen.
    #[serde(skip_serializing_if = "CutFiles::is_empty")]
    pub cut_files: CutFiles,
    /// An end that is a module, which neither calls nor is called: its functions, which were tried.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<ModuleEnd>,
}

/// A module given as an end of a trace.
#[derive(Debug, Serialize)]
pub struct ModuleEnd {
    pub key: String,
    /// Its functions and methods, most referenced first (at most [`MODULE_FUNCTIONS`]).
    pub functions: Vec<NodeLine>,
    /// How many it has; the paths of the first [`MODULE_TRIED`] were searched.
    pub total: usize,
}

/// Functions of a module end listed.
const MODULE_FUNCTIONS: usize = 8;
/// Functions of a module end whose paths are searched.
const MODULE_TRIED: usize = 100;

#[derive(Debug, Serialize)]
pub struct Explored {
    /// Symbols `from` reaches by calls.
    pub from_reaches: usize,
    /// Symbols that reach `to` by calls.
    pub reach_to: usize,
}

#[derive(Debug, Serialize)]
pub struct TraceHop {
    #[serde(flatten)]
    pub node: NodeLine,
    /// Line of the call in the previous hop.
    pub site_line: Option<u32>,
    /// The edge's type; `interface` (an implementation of the method before) or `constructor` (of the
    /// class before) for a last hop no edge makes.
    #[serde(rename = "type")]
    pub ty: String,
    pub resolved_by: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Break {
    /// The symbol holding the unresolved call.
    pub caller: NodeLine,
    pub text: Option<String>,
    pub line: Option<u32>,
    pub reason: Option<String>,
    /// The symbol that reaches the target and shares the call's name, when one does.
    pub could_be: Option<NodeLine>,
}

pub fn trace(s: &Session<'_>, p: &TraceParams) -> Result<Lookup<TraceOutput>> {
    let plane = s.plane(p.plane.as_deref())?;
    let mut picked = Vec::new();
    let mut pick = |query: &str| -> Result<std::result::Result<drsg_planes::Node, Lookup<TraceOutput>>> {
        let (found, note) = find_for_calls(s.store, &plane, query)?;
        picked.extend(note);
        Ok(found.into_node())
    };
    let from = match pick(&p.from)? {
        Ok(node) => node,
        Err(not) => return Ok(not),
    };
    let to = match pick(&p.to)? {
        Ok(node) => node,
        // A handler of another code plane, reached across the wire (`trace loadUsers list_users`).
        Err(Lookup::Missing(missing)) => match elsewhere(s, &plane, &p.to)? {
            Some((node, note)) => {
                picked.push(note);
                node
            }
            None => return Ok(Lookup::Missing(missing)),
        },
        Err(not) => return Ok(not),
    };
    let mut out = TraceOutput {
        freshness: s.freshness(&plane),
        plane: plane.meta.name.clone(),
        from: NodeLine::of(&from),
        to: NodeLine::of(&to),
        found: "none",
        hops: Vec::new(),
        breaks: Vec::new(),
        explored: None,
        picked,
        cut_files: CutFiles::of(&plane),
        modules: Vec::new(),
    };
    if from.label() == "Module" || to.label() == "Module" {
        through_modules(s.store, &from, &to, &mut out)?;
        return Ok(Lookup::Found(out));
    }
    for (found, a, b) in [("forward", from.id, to.id), ("reverse", to.id, from.id)] {
        if let Some(edges) = shortest_path(s.store, a, b)? {
            out.found = found;
            out.hops = hops(s.store, &edges)?;
            return Ok(Lookup::Found(out));
        }
    }
    explain(s.store, from.id, &to, &mut out)?;
    Ok(Lookup::Found(out))
}

/// The one symbol `query` names in a code plane other than `plane`, and the note that says where.
fn elsewhere(
    s: &Session<'_>,
    plane: &drsg_planes::PlaneInfo,
    query: &str,
) -> Result<Option<(drsg_planes::Node, String)>> {
    for other in s.store.planes()?.into_iter().filter(|o| o.meta.kind == PlaneKind::Code && o.id != plane.id) {
        if let (Resolved::One(node), _) = find_for_calls(s.store, &other, query)? {
            let note = format!("`{query}` is {} of plane {}: the path crosses the wire", node.key, other.meta.name);
            return Ok(Some((node, note)));
        }
    }
    Ok(None)
}

/// A step of a call path: a call edge, or a dispatch to node `.0` (`interface`: from an interface or
/// trait method to an implementation; `constructor`: from a class to its constructor).
#[derive(Debug, Clone, Copy)]
enum Step {
    Edge(i64),
    Via(i64, &'static str),
}

/// The edges a path follows: calls, and across the wire a request to a route and the route to its handler.
/// The route layer's edge types, as the steps of a path name them.
const REQUESTS: &str = EdgeType::Requests.as_str();
const SERVES: &str = EdgeType::Serves.as_str();
const PATH_TYPES: &[&str] = &[
    EdgeType::Calls.as_str(),
    EdgeType::Instantiates.as_str(),
    EdgeType::Requests.as_str(),
    EdgeType::Serves.as_str(),
];

/// A shortest call path from `a` to `b`, by a bidirectional breadth-first search that always grows the
/// smaller side (so a start or end with few neighbours settles "no path" fast). Besides call edges it
/// steps through dispatch ([`dispatch::steps`]): a call bound to a trait method may run an
/// implementation, an instantiation runs the constructor.
fn shortest_path(store: &Store, a: i64, b: i64) -> Result<Option<Vec<Step>>> {
    if a == b {
        return Ok(Some(Vec::new()));
    }
    // node → (previous node, step) on each side; backward, the step leads from the node to the previous.
    let mut fwd: HashMap<i64, (i64, Step)> = HashMap::from([(a, (a, Step::Edge(0)))]);
    let mut bwd: HashMap<i64, (i64, Step)> = HashMap::from([(b, (b, Step::Edge(0)))]);
    let (mut f_front, mut b_front) = (vec![a], vec![b]);
    let mut across: Option<Across> = None;
    let mut hops = 0;
    while !f_front.is_empty() && !b_front.is_empty() && hops < MAX_HOPS && fwd.len() + bwd.len() < MAX_NODES {
        hops += 1;
        let forward = f_front.len() <= b_front.len();
        let (front, seen, other, dir) = if forward {
            (&mut f_front, &mut fwd, &bwd, Direction::Out)
        } else {
            (&mut b_front, &mut bwd, &fwd, Direction::In)
        };
        let (dispatching, wired): (HashMap<i64, drsg_planes::Node>, HashMap<i64, drsg_planes::Node>) = store
            .nodes_by_ids(front)?
            .into_iter()
            .filter(|n| matches!(n.label(), "Method" | "Class" | "Request" | "Route"))
            .map(|n| (n.id, n))
            .partition(|(_, n)| matches!(n.label(), "Method" | "Class"));
        let mut next = Vec::new();
        let mut meet = None;
        'grow: for &node in front.iter() {
            let mut adjacent: Vec<(i64, Step)> = store
                .adjacent(node, dir, PATH_TYPES)?
                .into_iter()
                .map(|adj| (adj.node, Step::Edge(adj.edge)))
                .collect();
            // Across the wire: a request no route of its plane serves, to the route of another plane that
            // does (forward); a route, back to the requests of other planes it serves.
            if let Some(n) = wired.get(&node) {
                if across.is_none() {
                    across = Some(Across::load(store)?);
                }
                let wire = across.as_ref().expect("loaded above");
                match (forward, n.label()) {
                    (true, "Request") => adjacent.extend(wire.route_for(node).map(|r| (r, Step::Via(r, "wire")))),
                    (false, "Route") => {
                        adjacent.extend(wire.requests_of(node).iter().map(|&q| (q, Step::Via(node, "wire"))))
                    }
                    _ => {}
                }
            }
            if let Some(n) = dispatching.get(&node) {
                for (far, kind) in dispatch::steps(store, n, dir)? {
                    // Forward the step leads to the far node; backward, to this one.
                    adjacent.push((far, Step::Via(if forward { far } else { node }, kind)));
                }
            }
            for (adj, step) in adjacent {
                if seen.contains_key(&adj) {
                    continue;
                }
                seen.insert(adj, (node, step));
                if other.contains_key(&adj) {
                    meet = Some(adj);
                    break 'grow;
                }
                next.push(adj);
            }
        }
        if let Some(m) = meet {
            let mut path = Vec::new();
            let mut cur = m;
            while cur != a {
                let (prev, step) = fwd[&cur];
                path.push(step);
                cur = prev;
            }
            path.reverse();
            let mut cur = m;
            while cur != b {
                let (next, step) = bwd[&cur];
                path.push(step);
                cur = next;
            }
            return Ok(Some(path));
        }
        *front = next;
    }
    Ok(None)
}

fn hops(store: &Store, steps: &[Step]) -> Result<Vec<TraceHop>> {
    let mut hops = Vec::with_capacity(steps.len());
    for &step in steps {
        let hop = match step {
            Step::Edge(id) => {
                let Some(edge) = store.edge(id)? else { continue };
                let Some(node) = store.node(edge.dst)? else { continue };
                TraceHop {
                    node: NodeLine::of(&node),
                    site_line: edge.props.get("line").and_then(|v| v.as_u64()).and_then(|l| u32::try_from(l).ok()),
                    ty: edge.ty,
                    resolved_by: edge.props.get("resolved_by").and_then(|v| v.as_str()).map(str::to_owned),
                }
            }
            Step::Via(id, kind) => {
                let Some(node) = store.node(id)? else { continue };
                TraceHop { node: NodeLine::of(&node), site_line: None, ty: kind.to_owned(), resolved_by: None }
            }
        };
        hops.push(hop);
    }
    Ok(hops)
}

/// No path either way: list the unresolved calls reachable from the start, first those named like a
/// symbol that reaches the target.
/// A trace with a module at one end or both: the shortest path from or to one of its functions (a module
/// neither calls nor is called), or, when none has one, the module's functions to ask about.
fn through_modules(
    store: &Store,
    from: &drsg_planes::Node,
    to: &drsg_planes::Node,
    out: &mut TraceOutput,
) -> Result<()> {
    let mut ends = |node: &drsg_planes::Node| -> Result<Vec<drsg_planes::Node>> {
        if node.label() != "Module" {
            return Ok(vec![node.clone()]);
        }
        let (functions, total) = crate::lookup::module_functions(store, node, MODULE_TRIED)?;
        out.modules.push(ModuleEnd {
            key: node.key.clone(),
            functions: functions.iter().take(MODULE_FUNCTIONS).map(NodeLine::of).collect(),
            total,
        });
        Ok(functions)
    };
    let starts = ends(from)?;
    let finishes = ends(to)?;
    if from.label() == "Module" && to.label() == "Module" {
        // Pairs of functions of two modules are too many to search: ask about one of each.
        return Ok(());
    }
    let mut best: Option<(&'static str, usize, usize, Vec<Step>)> = None;
    for (i, a) in starts.iter().enumerate() {
        for (j, b) in finishes.iter().enumerate() {
            for (found, x, y) in [("forward", a.id, b.id), ("reverse", b.id, a.id)] {
                if let Some(edges) = shortest_path(store, x, y)?
                    && best.as_ref().is_none_or(|(_, _, _, e)| edges.len() < e.len())
                {
                    best = Some((found, i, j, edges));
                }
            }
        }
    }
    let Some((found, i, j, edges)) = best else { return Ok(()) };
    let (start, finish) = (&starts[i], &finishes[j]);
    for (module, function) in [(from, start), (to, finish)] {
        if module.label() == "Module" {
            let total = out.modules.iter().find(|m| m.key == module.key).map_or(0, |m| m.total);
            out.picked.push(format!(
                "`{}` is a module: the path is the shortest of its {total} functions', through {}",
                module.key, function.key
            ));
        }
    }
    out.from = NodeLine::of(start);
    out.to = NodeLine::of(finish);
    out.found = found;
    out.hops = hops(store, &edges)?;
    Ok(())
}

fn explain(store: &Store, from: i64, to: &drsg_planes::Node, out: &mut TraceOutput) -> Result<()> {
    let forward = bfs(store, from, &[Direction::Out], CALL_TYPES, MAX_HOPS, EXPLAIN_NODES, |_| Ok(true))?;
    let backward = bfs(store, to.id, &[Direction::In], CALL_TYPES, MAX_HOPS, EXPLAIN_NODES, |_| Ok(true))?;
    let back_ids: Vec<i64> = backward.reached.iter().map(|r| r.node).collect();
    let mut reaching: HashMap<String, drsg_planes::Node> = HashMap::new();
    reaching.insert(to.name.clone(), to.clone());
    for n in store.nodes_by_ids(&back_ids)? {
        reaching.entry(n.name.clone()).or_insert(n);
    }
    let fwd_ids: Vec<i64> = forward.reached.iter().map(|r| r.node).collect();
    let fwd_nodes: HashMap<i64, drsg_planes::Node> =
        store.nodes_by_ids(&fwd_ids)?.into_iter().map(|n| (n.id, n)).collect();
    let unresolved: Vec<_> = forward
        .reached
        .iter()
        .filter(|r| fwd_nodes.get(&r.node).is_some_and(|n| n.label() == "UnresolvedRef"))
        .collect();
    out.explored =
        Some(Explored { from_reaches: forward.reached.len() - unresolved.len(), reach_to: backward.reached.len() });
    let mut breaks = Vec::new();
    let mut listed = HashSet::new();
    // Likely breaks (the unresolved name matches a symbol reaching the target), then the nearest others.
    for likely in [true, false] {
        for r in &unresolved {
            let Some(node) = fwd_nodes.get(&r.node) else { continue };
            let could_be = reaching.get(&node.name);
            if could_be.is_some() != likely || breaks.len() == MAX_BREAKS || !listed.insert(r.edge) {
                continue;
            }
            let edge = store.edge(r.edge)?;
            let caller = match fwd_nodes.get(&r.from) {
                Some(n) => NodeLine::of(n),
                None => match store.node(r.from)? {
                    Some(n) => NodeLine::of(&n),
                    None => continue,
                },
            };
            let prop =
                |name: &str| edge.as_ref().and_then(|e| e.props.get(name)).and_then(|v| v.as_str()).map(str::to_owned);
            breaks.push(Break {
                caller,
                text: prop("ref"),
                line: edge
                    .as_ref()
                    .and_then(|e| e.props.get("line"))
                    .and_then(|v| v.as_u64())
                    .and_then(|l| u32::try_from(l).ok()),
                reason: prop("reason"),
                could_be: could_be.map(NodeLine::of),
            });
        }
    }
    out.breaks = breaks;
    Ok(())
}

impl Answer for TraceOutput {
    fn render_to(&self, t: &mut Text) {
        for picked in &self.picked {
            t.line(format_args!("{picked}"));
        }
        match self.found {
            "none" if !self.modules.is_empty() => {
                for m in &self.modules {
                    let tried =
                        if m.total > MODULE_TRIED { format!("the first {MODULE_TRIED} of ") } else { String::new() };
                    let other = if m.key == self.from.key { &self.to.key } else { &self.from.key };
                    if self.modules.len() == 2 {
                        t.line(format_args!(
                            "{} is a module, which neither calls nor is called: name a function of it",
                            m.key
                        ));
                    } else {
                        t.line(format_args!(
                            "{} is a module, which neither calls nor is called: no call path joins {tried}its {} functions and {other}",
                            m.key, m.total
                        ));
                    }
                    for f in &m.functions {
                        t.line(format_args!("  {f}"));
                    }
                }
            }
            "none" => {
                t.line(format_args!("no recorded call path from {} to {}, nor back", self.from.key, self.to.key));
                if let Some(e) = &self.explored {
                    t.line(format_args!(
                        "{} reaches {} symbols by calls; {} symbols reach {}",
                        self.from.key, e.from_reaches, e.reach_to, self.to.key
                    ));
                }
                if self.breaks.is_empty() && self.cut_files.is_empty() {
                    t.line(format_args!(
                        "no unresolved call is reachable from {}: the two are not connected by calls",
                        self.from.key
                    ));
                } else if self.breaks.is_empty() {
                    t.line(format_args!(
                        "no unresolved call is reachable from {}, but {}",
                        self.from.key,
                        self.cut_files.sentence()
                    ));
                } else {
                    t.line(format_args!(
                        "where the chain may break (unresolved calls reachable from {}):",
                        self.from.key
                    ));
                    for b in &self.breaks {
                        let line = b.line.map(|l| format!(" line {l}")).unwrap_or_default();
                        t.line(format_args!(
                            "  {} in {}{line}: {}",
                            b.text.as_deref().unwrap_or("?"),
                            b.caller,
                            b.reason.as_deref().unwrap_or("unresolved")
                        ));
                        if let Some(c) = &b.could_be {
                            t.line(format_args!("    could be {c}, which reaches {}", self.to.key));
                        }
                    }
                }
            }
            found => {
                let (start, end) = if found == "forward" { (&self.from, &self.to) } else { (&self.to, &self.from) };
                let note = if found == "reverse" { " (no path forward; this is the reverse)" } else { "" };
                t.line(format_args!("{} hops from {} to {}{note}", self.hops.len(), start.key, end.key));
                t.line(format_args!("  {start}"));
                for h in &self.hops {
                    let line = h.site_line.map(|l| format!("line {l}")).unwrap_or_else(|| "line ?".into());
                    let by = h.resolved_by.as_deref().unwrap_or("?");
                    match h.ty.as_str() {
                        "interface" => {
                            t.line(format_args!("  → {}  (via interface: it implements the method above)", h.node))
                        }
                        "constructor" => t.line(format_args!("  → {}  (the constructor of the class above)", h.node)),
                        REQUESTS => t.line(format_args!("  → {}  (requested at {line})", h.node)),
                        SERVES => t.line(format_args!("  → {}  (the route's handler)", h.node)),
                        "wire" => t.line(format_args!("  → {}  (the route of another plane serving it)", h.node)),
                        ty => t.line(format_args!("  → {}  ({ty} at {line}, by {by})", h.node)),
                    };
                }
            }
        }
        t.line(format_args!("{}", self.freshness));
    }

    fn found(&self) -> bool {
        self.found != "none"
    }
}
