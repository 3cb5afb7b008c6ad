//! `traverse`: the nodes reached from a symbol along edges of given types, in a direction, between a
//! minimum and a maximum number of hops.

use std::collections::HashMap;

use drsg_planes::Direction;
use serde::{Deserialize, Serialize};

use crate::lookup::{Lookup, find_symbol};
use crate::render::{Group, NodeLine, Page, Text};
use crate::walk::{Stop, bfs};
use crate::{Answer, Error, Result, Session, edge_types};

const MAX_HOPS: u32 = 10;
const MAX_NODES: usize = 20_000;
const LIST_CAP: usize = 200;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct TraverseParams {
    pub from: String,
    /// `out` (default), `in` or `both`.
    pub direction: Option<String>,
    /// Edge types, comma-separated (default: all).
    pub edge_type: Option<String>,
    /// Fewest hops for a node to be listed (default 1).
    pub min: Option<u32>,
    /// Most hops walked (default 1, at most 10).
    pub max: Option<u32>,
    /// Nodes listed (default 200); with `offset`, a page of the list.
    pub limit: Option<usize>,
    /// Nodes skipped before the page.
    pub offset: Option<usize>,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct TraverseOutput {
    pub plane: String,
    pub freshness: String,
    pub from: NodeLine,
    pub direction: String,
    pub edge_types: Vec<&'static str>,
    pub min: u32,
    pub max: u32,
    pub nodes: Group<Hop>,
    pub stop: Stop,
}

#[derive(Debug, Serialize)]
pub struct Hop {
    pub depth: u32,
    /// Type of the edge the node was first reached through.
    pub via: &'static str,
    #[serde(flatten)]
    pub node: NodeLine,
}

pub fn traverse(s: &Session<'_>, p: &TraverseParams) -> Result<Lookup<TraverseOutput>> {
    let direction = p.direction.as_deref().map(|d| d.trim().to_ascii_lowercase()).unwrap_or_default();
    let dirs: &[Direction] = match direction.as_str() {
        "out" | "" => &[Direction::Out],
        "in" => &[Direction::In],
        "both" => &[Direction::Out, Direction::In],
        other => {
            return Err(Error::InvalidArgument(format!("direction `{other}` is not one of `out`, `in`, `both`")));
        }
    };
    let types: Vec<String> =
        p.edge_type.as_deref().unwrap_or("").split(',').filter(|t| !t.trim().is_empty()).map(str::to_owned).collect();
    let types = edge_types(&types)?;
    let max = p.max.unwrap_or(1);
    let min = p.min.unwrap_or(1);
    if max == 0 || max > MAX_HOPS || min > max {
        return Err(Error::InvalidArgument(format!(
            "hops must satisfy 1 <= min <= max <= {MAX_HOPS} (got min {min}, max {max})"
        )));
    }
    let page = Page::new(p.limit, p.offset);
    page.check()?;
    let plane = s.plane(p.plane.as_deref())?;
    let start = match find_symbol(s.store, &plane, &p.from)?.into_node() {
        Ok(node) => node,
        Err(not) => return Ok(not),
    };
    let walk = bfs(s.store, start.id, dirs, &types, max, MAX_NODES, |_| Ok(true))?;
    let listed: Vec<_> = walk.reached.iter().filter(|r| r.depth >= min).collect();
    let total = listed.len();
    // Only the page's nodes are read.
    let page = Group::paged(listed, page, LIST_CAP);
    let ids: Vec<i64> = page.items.iter().map(|r| r.node).collect();
    let nodes: HashMap<i64, NodeLine> =
        s.store.nodes_by_ids(&ids)?.into_iter().map(|n| (n.id, NodeLine::of(&n))).collect();
    let hops: Vec<Hop> = page
        .items
        .iter()
        .filter_map(|r| Some(Hop { depth: r.depth, via: r.ty, node: nodes.get(&r.node)?.clone() }))
        .collect();
    Ok(Lookup::Found(TraverseOutput {
        freshness: s.freshness(&plane),
        plane: plane.meta.name,
        from: NodeLine::of(&start),
        direction: p.direction.clone().unwrap_or_else(|| "out".into()),
        edge_types: types,
        min,
        max,
        nodes: Group::of_page(hops, page.offset, total),
        stop: walk.stop,
    }))
}

impl Answer for TraverseOutput {
    fn render_to(&self, t: &mut Text) {
        let types = if self.edge_types.is_empty() { "all edges".to_owned() } else { self.edge_types.join(",") };
        t.line(format_args!("from {}", self.from));
        t.line(format_args!(
            "{} nodes reached {} over {types}, {}..{} hops{}",
            self.nodes.total,
            self.direction,
            self.min,
            self.max,
            match self.stop {
                Stop::Exhausted => "",
                Stop::Depth => " (more lie beyond the last hop)",
                Stop::Nodes => " (stopped at the node cap; the count is a lower bound)",
            }
        ));
        t.page(&self.nodes, |t, h| {
            t.line(format_args!("  [{}] {}  via {}", h.depth, h.node, h.via));
        });
        t.line(format_args!("{}", self.freshness));
    }

    fn found(&self) -> bool {
        !self.nodes.is_empty()
    }
}
