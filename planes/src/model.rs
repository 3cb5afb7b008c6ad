//! Plain data going into and coming out of the store: planes, nodes, edges.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Free-form properties of a node or an edge.
pub type Props = Map<String, Value>;

/// What a plane describes; stored as `code`, `git` or `ops`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlaneKind {
    /// Symbols and their relations, parsed from a source tree.
    Code,
    /// The repository's history (`<plane>_git`).
    Git,
    /// Deployment manifests (`<plane>_ops`).
    Ops,
}

impl PlaneKind {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            PlaneKind::Code => "code",
            PlaneKind::Git => "git",
            PlaneKind::Ops => "ops",
        }
    }

    /// Parses the stored spelling.
    pub fn parse(text: &str) -> Option<PlaneKind> {
        match text {
            "code" => Some(PlaneKind::Code),
            "git" => Some(PlaneKind::Git),
            "ops" => Some(PlaneKind::Ops),
            _ => None,
        }
    }
}

/// What a writer says about a plane besides its nodes and edges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlaneMeta {
    /// Unique name within the database (`myrepo`, `myrepo_git`, …).
    pub name: String,
    /// What the plane describes.
    pub kind: PlaneKind,
    /// Full sha of the commit the plane reflects.
    pub synced_commit: Option<String>,
    /// Absolute path of the tree the plane was parsed from.
    pub synced_root: Option<String>,
    /// The plugins that built the plane (opaque to the store).
    pub built_by: Value,
    /// The ledger of the last full build (opaque to the store).
    pub ledger: Value,
}

/// A plane as stored, with bookkeeping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlaneInfo {
    /// Row id; stays the same when the plane is replaced.
    pub id: i64,
    /// What the last writer said about the plane.
    pub meta: PlaneMeta,
    /// Bumped by every write to the plane; unique across the database's life, so that a plane
    /// deleted and created again never repeats an earlier generation.
    pub generation: u64,
    /// Number of nodes.
    pub node_count: u64,
    /// Number of edges.
    pub edge_count: u64,
    /// Time of the last write, in seconds since the Unix epoch.
    pub updated_at: i64,
}

/// A map as stored: a JSON object, or `""` when empty.
fn props_json(props: &Props) -> String {
    if props.is_empty() { String::new() } else { serde_json::to_string(props).expect("JSON values serialize") }
}

/// A node to be written.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NodeData {
    /// Unique within the plane.
    pub key: String,
    /// At least one; the first is the primary label.
    pub labels: Vec<String>,
    /// Last segment of the key, as the caller spells it (what users type).
    pub name: String,
    /// Path relative to the plane's `synced_root`.
    pub file: Option<String>,
    /// First line (1-based).
    pub line: Option<u32>,
    /// Last line (1-based, inclusive).
    pub end_line: Option<u32>,
    /// Everything else (`signature`, `doc`, `visibility`, `is_test`, …) as a JSON object, or `""` for
    /// none. Serialised by the writer: a map per node would dominate memory on big trees.
    /// `signature` and `doc` also feed the text index.
    pub props_json: String,
}

impl NodeData {
    /// The primary label, or `""` when the node has none.
    pub fn label(&self) -> &str {
        self.labels.first().map_or("", String::as_str)
    }

    /// Set the properties from a map.
    pub fn with_props(mut self, props: &Props) -> NodeData {
        self.props_json = props_json(props);
        self
    }
}

/// A stored node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Row id, unique in the database.
    pub id: i64,
    /// Id of the plane the node belongs to.
    pub plane: i64,
    /// Unique within the plane.
    pub key: String,
    /// All labels, primary first.
    pub labels: Vec<String>,
    /// Last segment of the key.
    pub name: String,
    /// Path relative to the plane's `synced_root`.
    pub file: Option<String>,
    /// First line (1-based).
    pub line: Option<u32>,
    /// Last line (1-based, inclusive).
    pub end_line: Option<u32>,
    /// Everything else.
    pub props: Props,
}

impl Node {
    /// The primary label.
    pub fn label(&self) -> &str {
        self.labels.first().map_or("", String::as_str)
    }

    /// The node without its ids, as it was written.
    pub fn into_data(self) -> NodeData {
        NodeData {
            key: self.key,
            labels: self.labels,
            name: self.name,
            file: self.file,
            line: self.line,
            end_line: self.end_line,
            props_json: props_json(&self.props),
        }
    }
}

/// An edge to be written by [`Store::replace_plane`](crate::Store::replace_plane): its ends are
/// positions in the node slice written with it.
///
/// Properties arrive already serialised (a JSON object, or empty for none): a plane has hundreds of
/// thousands of edges, and a map per edge would dominate the writer's memory.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewEdge {
    /// Index of the source in the node slice.
    pub src: usize,
    /// Index of the target in the node slice.
    pub dst: usize,
    /// `CALLS`, `CONTAINS`, `PARENT`, …
    pub ty: std::borrow::Cow<'static, str>,
    /// A JSON object, or `""` when the edge has no properties.
    pub props_json: String,
}

impl NewEdge {
    /// An edge with properties given as a map.
    pub fn new(src: usize, dst: usize, ty: impl Into<std::borrow::Cow<'static, str>>, props: &Props) -> NewEdge {
        NewEdge { src, dst, ty: ty.into(), props_json: props_json(props) }
    }
}

/// One batch of [`Store::replace_plane_streamed`](crate::Store::replace_plane_streamed): nodes numbered
/// after every node delivered before them, and edges whose ends may name any node delivered so far.
#[derive(Debug, Clone, Default)]
pub struct PlaneBatch {
    /// New nodes.
    pub nodes: Vec<NodeData>,
    /// New edges.
    pub edges: Vec<NewEdge>,
}

/// A stored edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    /// Row id.
    pub id: i64,
    /// Id of the plane the edge belongs to (that of both ends).
    pub plane: i64,
    /// Source node id.
    pub src: i64,
    /// Target node id.
    pub dst: i64,
    /// Edge type.
    #[serde(rename = "type")]
    pub ty: String,
    /// Properties.
    pub props: Props,
}

/// One row of [`Store::edge_summary`](crate::Store::edge_summary): how many edges of a type join
/// nodes of two primary labels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeSummary {
    /// Edge type.
    #[serde(rename = "type")]
    pub ty: String,
    /// Primary label of the sources.
    pub src_label: String,
    /// Primary label of the targets.
    pub dst_label: String,
    /// Number of edges.
    pub count: u64,
}

/// Which way an edge is followed from a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// From source to target.
    Out,
    /// From target to source.
    In,
}

/// One step of a walk, from [`Store::adjacent`](crate::Store::adjacent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adjacent {
    /// Edge id.
    pub edge: i64,
    /// Edge type.
    pub ty: String,
    /// The node at the other end.
    pub node: i64,
}

/// A plane reduced to hashes, from [`Store::plane_digest`](crate::Store::plane_digest).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlaneDigest {
    /// Node key → hash of its labels, name, span and properties.
    pub nodes: std::collections::HashMap<String, u64>,
    /// Hash of (type, source key, target key, properties) → how many such edges.
    pub edges: std::collections::HashMap<u64, u64>,
}

impl PlaneDigest {
    /// (added, changed, removed) nodes and (added, removed) edges from `self` to `after`.
    pub fn changes(&self, after: &PlaneDigest) -> DigestChanges {
        let nodes_added = after.nodes.keys().filter(|k| !self.nodes.contains_key(*k)).count() as u64;
        let nodes_removed = self.nodes.keys().filter(|k| !after.nodes.contains_key(*k)).count() as u64;
        let nodes_changed =
            after.nodes.iter().filter(|(k, h)| self.nodes.get(*k).is_some_and(|old| old != *h)).count() as u64;
        let count = |from: &std::collections::HashMap<u64, u64>, to: &std::collections::HashMap<u64, u64>| -> u64 {
            to.iter().map(|(h, n)| n.saturating_sub(from.get(h).copied().unwrap_or(0))).sum()
        };
        DigestChanges {
            nodes_added,
            nodes_changed,
            nodes_removed,
            edges_added: count(&self.edges, &after.edges),
            edges_removed: count(&after.edges, &self.edges),
        }
    }
}

/// What changed between two digests of a plane.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DigestChanges {
    pub nodes_added: u64,
    pub nodes_changed: u64,
    pub nodes_removed: u64,
    pub edges_added: u64,
    pub edges_removed: u64,
}
