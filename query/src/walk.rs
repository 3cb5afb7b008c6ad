//! Breadth-first walks over a plane's edges with a depth bound and a node bound, shared by `impact`,
//! `fathom`, `traverse` and `trace`.

use std::collections::{BTreeMap, HashMap};

use drsg_planes::{Direction, Store};
use serde::Serialize;

use crate::{EDGE_TYPES, Result};

/// A node reached by a walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    pub node: i64,
    /// Hops from the start (the start itself is not listed).
    pub depth: u32,
    /// The edge it was first reached through, and the node on the near side of it.
    pub edge: i64,
    pub from: i64,
    pub dir: Direction,
    /// Type of that edge.
    pub ty: &'static str,
}

/// Which bound ended a walk, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// Nothing more to reach: the walk is complete.
    Exhausted,
    /// Nodes remained beyond the last depth walked.
    Depth,
    /// The node cap was hit.
    Nodes,
}

pub struct Walk {
    /// In order of discovery (so by depth).
    pub reached: Vec<Reached>,
    pub stop: Stop,
    /// Edges followed (including those to nodes already reached), per depth from depth 1, by type
    /// and direction.
    pub edges_per_depth: Vec<BTreeMap<(&'static str, Direction), u64>>,
    /// Number of edges at each expanded node.
    pub fanout: HashMap<i64, usize>,
}

/// Where a walk starts: a node, and perhaps another whose edges count as the start's at the first hop.
#[derive(Debug, Clone, Copy)]
pub struct Start<'a> {
    pub node: i64,
    pub also: Option<Also<'a>>,
    /// The same for each node the walk expands beyond the start (`crate::dispatch::also_of`).
    pub also_of: Option<AlsoOf>,
}

/// What counts as a node's edges besides its own.
pub type AlsoOf = fn(&Store, &drsg_planes::Node) -> Result<Option<Also<'static>>>;

/// A node whose edges of `types` count as the start's at the first hop: a class's instantiations for its
/// constructor, an interface method's calls for its implementation (reported as `via`, when given).
#[derive(Debug, Clone, Copy)]
pub struct Also<'a> {
    pub node: i64,
    pub types: &'a [&'a str],
    pub via: Option<&'static str>,
}

impl From<i64> for Start<'_> {
    fn from(node: i64) -> Self {
        Start { node, also: None, also_of: None }
    }
}

/// Walks from `start` along `types` (all when empty) in the directions `dirs`, up to `max_depth`
/// hops and `max_nodes` nodes. `follow(node)` decides whether a reached node is expanded further.
pub fn bfs<'a>(
    store: &Store,
    start: impl Into<Start<'a>>,
    dirs: &[Direction],
    types: &[&str],
    max_depth: u32,
    max_nodes: usize,
    mut follow: impl FnMut(i64) -> Result<bool>,
) -> Result<Walk> {
    let Start { node: start, also, also_of } = start.into();
    let mut seen: HashMap<i64, ()> = HashMap::from([(start, ())]);
    seen.extend(also.map(|a| (a.node, ())));
    let mut reached = Vec::new();
    let mut frontier = vec![start];
    let mut edges_per_depth = Vec::new();
    let mut fanout = HashMap::new();
    let mut stop = Stop::Exhausted;
    'walk: for depth in 1..=max_depth.max(1) {
        let mut next = Vec::new();
        let mut edges = BTreeMap::new();
        // Beyond the start, each frontier node's own `Also`, its nodes read in one query.
        let mut also_here: HashMap<i64, Also<'_>> = HashMap::new();
        if let Some(also_of) = also_of.filter(|_| depth > 1) {
            for n in store.nodes_by_ids(&frontier)? {
                if let Some(a) = also_of(store, &n)? {
                    also_here.insert(n.id, a);
                }
            }
        }
        for &node in &frontier {
            for &dir in dirs {
                let adjacent = store.adjacent(node, dir, types)?;
                let also = if depth == 1 { also } else { also_here.get(&node).copied() };
                let (extra, via) = match also {
                    Some(a) => (store.adjacent(a.node, dir, a.types)?, a.via),
                    None => (Vec::new(), None),
                };
                *fanout.entry(node).or_insert(0) += adjacent.len() + extra.len();
                let from_extra = extra.into_iter().map(|adj| (adj, via));
                for (adj, via) in adjacent.into_iter().map(|adj| (adj, None)).chain(from_extra) {
                    let ty = via.unwrap_or_else(|| static_type(&adj.ty));
                    *edges.entry((ty, dir)).or_insert(0) += 1;
                    if seen.insert(adj.node, ()).is_some() {
                        continue;
                    }
                    if reached.len() == max_nodes {
                        stop = Stop::Nodes;
                        edges_per_depth.push(edges);
                        break 'walk;
                    }
                    reached.push(Reached { node: adj.node, depth, edge: adj.edge, from: node, dir, ty });
                    if follow(adj.node)? {
                        next.push(adj.node);
                    }
                }
            }
        }
        edges_per_depth.push(edges);
        frontier = next;
        if frontier.is_empty() {
            break;
        }
        if depth == max_depth.max(1) {
            // Is there anything beyond? One probe per frontier node, stopping at the first.
            for &node in &frontier {
                for &dir in dirs {
                    if store.adjacent(node, dir, types)?.iter().any(|a| !seen.contains_key(&a.node)) {
                        stop = Stop::Depth;
                        break 'walk;
                    }
                }
            }
        }
    }
    Ok(Walk { reached, stop, edges_per_depth, fanout })
}

/// The static spelling of an edge type (unknown types, which a writer should not produce, are
/// reported as `OTHER`).
pub fn static_type(ty: &str) -> &'static str {
    EDGE_TYPES.iter().find(|t| **t == ty).copied().unwrap_or("OTHER")
}
