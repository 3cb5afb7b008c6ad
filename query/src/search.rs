//! `search`: ranked symbols for words or identifiers: Tantivy BM25 over names split on case and `_`,
//! keys, signatures and docs, re-ranked by how many of the query's words a symbol's own text holds, how
//! referenced it is, and whether it is a test (a definition ranks above the tests that exercise it).

use serde::{Deserialize, Serialize};

use drsg_planes::identifier_terms;

use crate::render::{NodeLine, Text, one_line};
use crate::{Answer, Error, Result, Session};

const DEFAULT_K: usize = 10;
const MAX_K: usize = 100;
/// Text hits read before re-ranking, per result asked for.
const POOL: usize = 4;

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct SearchParams {
    pub query: String,
    /// Results (default 10, at most 100): the page size.
    pub k: Option<usize>,
    /// Ranked results skipped before the page.
    pub offset: Option<usize>,
    pub plane: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct SearchOutput {
    pub plane: String,
    pub freshness: String,
    pub query: String,
    /// Ranked results before the first hit here.
    pub offset: usize,
    pub hits: Vec<Hit>,
    /// Whether more ranked results follow the page.
    pub more: bool,
}

#[derive(Debug, Serialize)]
pub struct Hit {
    #[serde(flatten)]
    pub node: NodeLine,
    /// BM25 score times the graph boost.
    pub score: f32,
    /// Edges entering the symbol other than containment (calls, references, imports, …).
    pub referenced: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

pub fn search(s: &Session<'_>, p: &SearchParams) -> Result<SearchOutput> {
    let k = p.k.unwrap_or(DEFAULT_K);
    if k == 0 || k > MAX_K {
        return Err(Error::InvalidArgument(format!("k must be 1 to {MAX_K} (got {k})")));
    }
    if p.query.trim().is_empty() {
        return Err(Error::InvalidArgument("the query is empty; give words or an identifier".into()));
    }
    let offset = p.offset.unwrap_or(0);
    if offset > crate::MAX_PAGE {
        return Err(Error::InvalidArgument(format!("offset is at most {} (got {offset})", crate::MAX_PAGE)));
    }
    let plane = s.plane(p.plane.as_deref())?;
    let raw = s.store.search(Some(plane.id), &p.query, (offset + k) * POOL)?;
    let scores: std::collections::HashMap<i64, f32> = raw.iter().copied().collect();
    let nodes = s.store.nodes_by_ids(&raw.iter().map(|(id, _)| *id).collect::<Vec<_>>())?;
    let wanted = p.query.trim();
    let words = words(wanted);
    let mut hits = Vec::with_capacity(nodes.len());
    for n in nodes {
        let referenced = s.store.referenced(n.id)?;
        let bm25 = scores.get(&n.id).copied().unwrap_or(0.0);
        // A name typed exactly is what the caller meant; beyond that, a little weight for use.
        let exact = if n.name == wanted {
            2.0
        } else if n.name.eq_ignore_ascii_case(wanted) {
            1.5
        } else {
            1.0
        };
        let boost = 1.0 + 0.15 * (1.0 + referenced as f32).ln();
        // Words of a sentence ("load config from environment variables") found in the symbol's own name,
        // key, signature and doc: a symbol that holds them all before one that holds a rare one.
        let coverage = if words.len() > 1 {
            let prop = |k: &str| n.props.get(k).and_then(|v| v.as_str()).unwrap_or("");
            let own = identifier_terms(&format!("{} {} {} {}", n.name, n.key, prop("signature"), prop("doc")));
            let held = words.iter().filter(|w| own.iter().any(|o| same_word(w, o))).count();
            0.5 + 0.5 * (held as f32 / words.len() as f32).powi(2)
        } else {
            1.0
        };
        let test = if n.props.get("is_test").and_then(|v| v.as_bool()) == Some(true) { 0.6 } else { 1.0 };
        hits.push(Hit {
            node: NodeLine::of(&n),
            score: bm25 * exact * boost * coverage * test,
            referenced,
            signature: n.props.get("signature").and_then(|v| v.as_str()).map(|sig| one_line(sig, 160)),
        });
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.key.cmp(&b.node.key)));
    let ranked = hits.len();
    hits.truncate(offset + k);
    hits.drain(..offset.min(hits.len()));
    let more = ranked > offset + hits.len();
    Ok(SearchOutput {
        freshness: s.freshness(&plane),
        plane: plane.meta.name,
        query: p.query.clone(),
        offset,
        hits,
        more,
    })
}

/// The words of `text` in lower case, at least two letters long.
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> =
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() > 1).map(str::to_lowercase).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Two words are one when they share a stem of five letters or are equal (`variables`, `variable`;
/// `environment`, `environ`; `env` only as itself).
fn same_word(a: &str, b: &str) -> bool {
    let stem = |w: &str| w.chars().take(5).collect::<String>();
    a == b || (a.chars().count() >= 5 && b.chars().count() >= 5 && stem(a) == stem(b))
}

impl Answer for SearchOutput {
    fn render_to(&self, t: &mut Text) {
        if self.hits.is_empty() && self.offset > 0 {
            t.line(format_args!("no more symbols match `{}` past the first {}", self.query, self.offset));
        } else if self.hits.is_empty() {
            t.line(format_args!(
                "no symbol matches `{}` in plane {}; try other words, a part of an identifier, or `grep` for text",
                self.query, self.plane
            ));
        }
        for h in &self.hits {
            t.line(format_args!("{}  ({} refs)", h.node, h.referenced));
            if let Some(sig) = &h.signature {
                t.line(format_args!("    {sig}"));
            }
        }
        if self.more {
            let next = t.surface.arg("offset", self.offset + self.hits.len());
            t.line(format_args!("… more symbols match ({next})"));
        }
        t.line(format_args!("{}", self.freshness));
    }

    fn found(&self) -> bool {
        !self.hits.is_empty()
    }
}
