//! `fathom`: the composition of the region around a symbol: per hop, how many nodes and edges, which
//! labels and edge types (by direction), the hubs, and which bound stopped the walk.

use std::collections::{BTreeMap, HashMap};

use drsg_planes::Direction;
use serde::{Deserialize, Serialize};

use crate::lookup::{Lookup, find_symbol};
use crate::render::{NodeLine, Text};
use crate::walk::{Stop, bfs};
use crate::{Answer, Error, Result, Session};

const MAX_DEPTH: u32 = 4;
const MAX_NODES: usize = 5_000;
const HUBS: usize = 5;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct FathomParams {
    pub name: String,
    /// Hops in both directions over every edge type (default 2, at most 4).
    pub depth: Option<u32>,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct FathomOutput {
    pub plane: String,
    pub freshness: String,
    pub center: NodeLine,
    pub depth: u32,
    pub hops: Vec<HopSummary>,
    /// The nodes with the most edges among those expanded.
    pub hubs: Vec<Hub>,
    pub stop: Stop,
    pub node_cap: usize,
}

#[derive(Debug, Serialize)]
pub struct HopSummary {
    pub depth: u32,
    pub nodes: usize,
    pub edges: u64,
    pub labels: BTreeMap<String, usize>,
    /// `CALLS out`, `IMPORTS in`, … with counts.
    pub edge_types: BTreeMap<String, u64>,
}

#[derive(Debug, Serialize)]
pub struct Hub {
    #[serde(flatten)]
    pub node: NodeLine,
    pub edges: usize,
}

pub fn fathom(s: &Session<'_>, p: &FathomParams) -> Result<Lookup<FathomOutput>> {
    let depth = p.depth.unwrap_or(2);
    if depth == 0 || depth > MAX_DEPTH {
        return Err(Error::InvalidArgument(format!("depth must be 1 to {MAX_DEPTH} (got {depth})")));
    }
    let plane = s.plane(p.plane.as_deref())?;
    let center = match find_symbol(s.store, &plane, &p.name)?.into_node() {
        Ok(node) => node,
        Err(not) => return Ok(not),
    };
    // Stand-ins for things outside the tree (`len`, `Vec::new`) join unrelated code; they are counted
    // but not walked through.
    let store = s.store;
    let walk = bfs(store, center.id, &[Direction::Out, Direction::In], &[], depth, MAX_NODES, |id| {
        Ok(store.node(id)?.is_some_and(|n| !matches!(n.label(), "External" | "UnresolvedRef")))
    })?;
    let ids: Vec<i64> = walk.reached.iter().map(|r| r.node).collect();
    let labels: HashMap<i64, String> =
        s.store.nodes_by_ids(&ids)?.into_iter().map(|n| (n.id, n.label().to_owned())).collect();
    let mut hops: Vec<HopSummary> = (1..=depth)
        .map(|d| HopSummary { depth: d, nodes: 0, edges: 0, labels: BTreeMap::new(), edge_types: BTreeMap::new() })
        .collect();
    for r in &walk.reached {
        let hop = &mut hops[(r.depth - 1) as usize];
        hop.nodes += 1;
        *hop.labels.entry(labels.get(&r.node).cloned().unwrap_or_default()).or_insert(0) += 1;
    }
    for (i, counts) in walk.edges_per_depth.iter().enumerate() {
        let hop = &mut hops[i];
        for ((ty, dir), n) in counts {
            hop.edges += n;
            let dir = if *dir == Direction::In { "in" } else { "out" };
            *hop.edge_types.entry(format!("{ty} {dir}")).or_insert(0) += n;
        }
    }
    hops.retain(|h| h.nodes > 0 || h.edges > 0);
    let mut fanout: Vec<(i64, usize)> = walk.fanout.into_iter().collect();
    fanout.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    fanout.truncate(HUBS);
    let hub_nodes: HashMap<i64, NodeLine> = s
        .store
        .nodes_by_ids(&fanout.iter().map(|f| f.0).collect::<Vec<_>>())?
        .into_iter()
        .map(|n| (n.id, NodeLine::of(&n)))
        .collect();
    let hubs =
        fanout.into_iter().filter_map(|(id, edges)| Some(Hub { node: hub_nodes.get(&id)?.clone(), edges })).collect();
    Ok(Lookup::Found(FathomOutput {
        freshness: s.freshness(&plane),
        plane: plane.meta.name,
        center: NodeLine::of(&center),
        depth,
        hops,
        hubs,
        stop: walk.stop,
        node_cap: MAX_NODES,
    }))
}

impl Answer for FathomOutput {
    fn render_to(&self, t: &mut Text) {
        t.line(format_args!(
            "region around {} ({} hops, both directions, every edge type; External and unresolved stand-ins are not walked through)",
            self.center, self.depth
        ));
        for h in &self.hops {
            let labels: Vec<String> = h.labels.iter().map(|(l, n)| format!("{l} {n}")).collect();
            let types: Vec<String> = h.edge_types.iter().map(|(ty, n)| format!("{ty} {n}")).collect();
            t.line(format_args!("hop {}: {} new nodes, {} edges", h.depth, h.nodes, h.edges));
            t.line(format_args!("  labels: {}", labels.join(", ")));
            t.line(format_args!("  edges: {}", types.join(", ")));
        }
        if !self.hubs.is_empty() {
            t.line(format_args!("hubs (edges at the node):"));
            for hub in &self.hubs {
                t.line(format_args!("  {}  {} edges", hub.node, hub.edges));
            }
        }
        t.line(format_args!(
            "stopped by: {}",
            match self.stop {
                Stop::Exhausted =>
                    "nothing more to reach by the recorded edges (unresolved calls are not edges of the region)"
                        .to_owned(),
                Stop::Depth => format!("the depth bound ({} hops); more lies beyond", self.depth),
                Stop::Nodes => format!("the node cap ({} nodes); counts are lower bounds", self.node_cap),
            }
        ));
        t.line(format_args!("{}", self.freshness));
    }
}
