//! `node`: one node as JSON, by key (in a plane) or by id.

use drsg_planes::Node;
use serde::{Deserialize, Serialize};

use crate::render::Text;
use crate::{Answer, Error, Result, Session};

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct NodeParams {
    /// Exact key, in the chosen plane.
    pub key: Option<String>,
    /// Node id, in any plane.
    pub id: Option<i64>,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct NodeOutput {
    /// What was asked for, as given.
    pub query: String,
    pub node: Option<Node>,
}

pub fn node(s: &Session<'_>, p: &NodeParams) -> Result<NodeOutput> {
    match (&p.key, p.id) {
        (Some(key), None) => {
            let plane = s.plane(p.plane.as_deref())?;
            Ok(NodeOutput { query: key.clone(), node: s.store.node_by_key(plane.id, key)? })
        }
        (None, Some(id)) => Ok(NodeOutput { query: format!("id {id}"), node: s.store.node(id)? }),
        _ => Err(Error::InvalidArgument("give exactly one of `key` (exact, in a plane) or `id`".into())),
    }
}

impl Answer for NodeOutput {
    fn render_to(&self, t: &mut Text) {
        match &self.node {
            Some(node) => {
                let json = serde_json::to_string_pretty(node).expect("nodes serialize");
                for line in json.lines() {
                    t.line(format_args!("{line}"));
                }
            }
            None => {
                t.line(format_args!(
                    "no node {}; `node` takes an exact key (use `context` or `search` to find one) or a node id",
                    self.query
                ));
            }
        }
    }

    fn found(&self) -> bool {
        self.node.is_some()
    }
}
