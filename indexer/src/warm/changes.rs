//! The difference between two warm states' planes, by key: nodes and edges taken away and put in their
//! place, with each stand-in kept while some file names it.

use drsg_planes::{KeyedEdge, NodeData, PlaneDiff, PlaneMeta};
use foldhash::{HashMap, HashMapExt};

use crate::graph::FileOutput;

/// The difference between two states' planes, by key.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    pub(crate) remove_nodes: Vec<String>,
    /// Nodes new or changed, and how many of them are new.
    pub(crate) upsert_nodes: Vec<NodeData>,
    pub(crate) nodes_added: u64,
    pub(crate) remove_edges: Vec<KeyedEdge>,
    pub(crate) add_edges: Vec<KeyedEdge>,
}

impl Changes {
    /// From the outputs taken away and put in their place; `stand_ins` (reference counts) is updated.
    pub(super) fn between(
        retracted: &[&FileOutput],
        added: &[&FileOutput],
        stand_ins: &mut HashMap<String, u32>,
    ) -> Changes {
        let mut changes = Changes::default();
        let old_nodes: HashMap<&str, &NodeData> =
            retracted.iter().flat_map(|o| &o.nodes).map(|n| (n.key.as_str(), n)).collect();
        let new_nodes: HashMap<&str, &NodeData> =
            added.iter().flat_map(|o| &o.nodes).map(|n| (n.key.as_str(), n)).collect();
        for (key, node) in &new_nodes {
            match old_nodes.get(key) {
                Some(old) if old == node => {}
                Some(_) => changes.upsert_nodes.push((*node).clone()),
                None => {
                    changes.nodes_added += 1;
                    changes.upsert_nodes.push((*node).clone());
                }
            }
        }
        changes.remove_nodes =
            old_nodes.keys().filter(|k| !new_nodes.contains_key(*k)).map(|k| (*k).to_owned()).collect();
        // Stand-ins live while some file names them.
        let mut touched: HashMap<&str, (u32, &NodeData)> = HashMap::new();
        for out in retracted {
            for node in &out.stand_ins {
                let count = stand_ins.get_mut(&node.key).expect("a retracted stand-in was counted");
                touched.entry(&node.key).or_insert((*count, node));
                *count -= 1;
            }
        }
        for out in added {
            for node in &out.stand_ins {
                let count = stand_ins.entry(node.key.clone()).or_insert(0);
                touched.entry(&node.key).or_insert((*count, node));
                *count += 1;
            }
        }
        for (key, (before, node)) in touched {
            let after = stand_ins.get(key).copied().unwrap_or(0);
            if before > 0 && after == 0 {
                stand_ins.remove(key);
                changes.remove_nodes.push(key.to_owned());
            } else if before == 0 && after > 0 {
                changes.nodes_added += 1;
                changes.upsert_nodes.push(node.clone());
            }
        }
        let mut counts: HashMap<&KeyedEdge, i64> = HashMap::new();
        for e in retracted.iter().flat_map(|o| &o.edges) {
            *counts.entry(e).or_insert(0) -= 1;
        }
        for e in added.iter().flat_map(|o| &o.edges) {
            *counts.entry(e).or_insert(0) += 1;
        }
        for (edge, n) in counts {
            let list = if n < 0 { &mut changes.remove_edges } else { &mut changes.add_edges };
            for _ in 0..n.unsigned_abs() {
                list.push(edge.clone());
            }
        }
        // A stable order keeps writes reproducible.
        changes.remove_nodes.sort();
        changes.upsert_nodes.sort_by(|a, b| a.key.cmp(&b.key));
        changes.remove_edges.sort();
        changes.add_edges.sort();
        changes
    }

    pub(crate) fn into_diff(self, meta: PlaneMeta, base_generation: u64) -> PlaneDiff {
        PlaneDiff {
            meta,
            base_generation,
            remove_nodes: self.remove_nodes,
            upsert_nodes: self.upsert_nodes,
            remove_edges: self.remove_edges,
            add_edges: self.add_edges,
        }
    }
}
