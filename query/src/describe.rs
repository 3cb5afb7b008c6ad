//! `describe`: a symbol's properties alone, the light view of `context`.

use drsg_planes::{Node, Props};
use serde::{Deserialize, Serialize};

use crate::lookup::{Lookup, find_symbol};
use crate::render::{NodeLine, Text, one_line};
use crate::{Answer, Result, Session};

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct DescribeParams {
    /// A key, a key segment (`Client.connect`) or a name.
    pub name: String,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct DescribeOutput {
    pub plane: String,
    pub freshness: String,
    pub symbol: Symbol,
}

/// A symbol with its properties.
#[derive(Debug, Clone, Serialize)]
pub struct Symbol {
    #[serde(flatten)]
    pub node: NodeLine,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    pub labels: Vec<String>,
    pub props: Props,
}

impl Symbol {
    pub fn of(node: &Node) -> Symbol {
        Symbol {
            node: NodeLine::of(node),
            name: node.name.clone(),
            end_line: node.end_line,
            labels: node.labels.clone(),
            props: node.props.clone(),
        }
    }

    fn prop(&self, name: &str) -> Option<&str> {
        self.props.get(name).and_then(|v| v.as_str()).filter(|s| !s.is_empty())
    }

    /// The symbol's line with its span, then its signature and the first line of its doc.
    pub fn render_header(&self, t: &mut Text) {
        let span = match (self.node.line, self.end_line) {
            (Some(a), Some(b)) if b > a => format!("-{b}"),
            _ => String::new(),
        };
        t.line(format_args!("{}{span}", self.node));
        if let Some(sig) = self.prop("signature") {
            t.line(format_args!("  {}", one_line(sig, 200)));
        }
        if let Some(doc) = self.prop("doc") {
            t.line(format_args!("  doc: {}", one_line(doc, 200)));
        }
    }
}

pub fn describe(s: &Session<'_>, p: &DescribeParams) -> Result<Lookup<DescribeOutput>> {
    let plane = s.plane(p.plane.as_deref())?;
    let node = match find_symbol(s.store, &plane, &p.name)?.into_node() {
        Ok(node) => node,
        Err(not) => return Ok(not),
    };
    Ok(Lookup::Found(DescribeOutput {
        freshness: s.freshness(&plane),
        plane: plane.meta.name,
        symbol: Symbol::of(&node),
    }))
}

impl Answer for DescribeOutput {
    fn render_to(&self, t: &mut Text) {
        let s = &self.symbol;
        t.line(format_args!("{}", s.node));
        if let Some(end) = s.end_line {
            t.line(format_args!("  end_line: {end}"));
        }
        if s.labels.len() > 1 {
            t.line(format_args!("  labels: {}", s.labels.join(", ")));
        }
        for (name, value) in &s.props {
            let value = match value {
                serde_json::Value::String(text) => one_line(text, 300),
                other => other.to_string(),
            };
            t.line(format_args!("  {name}: {value}"));
        }
        t.line(format_args!("{}", self.freshness));
    }
}
