//! Writing a plane by difference: the nodes and edges a fold removes, adds and changes, named by key,
//! applied in one SQLite transaction that also writes the plane's new meta, then mirrored in the text
//! index. Nodes that stay keep their row ids.
//!
//! The difference is applied against a stated base generation; `apply_plane_diffs` applies several
//! planes' differences in one transaction, all or none. Anything that does not match the stored
//! plane, or a moved generation, rolls the whole difference back. Text documents are rewritten only
//! for nodes whose indexed text changed, and when none did the text stamp is deferred to the next
//! commit or to closing. After the write the cached plane list is patched with the written plane's
//! counts rather than recounted.

use std::borrow::Cow;
use std::collections::HashMap;

use rusqlite::{OptionalExtension, TransactionBehavior, params};

use crate::error::{Error, Result, SqlContext};
use crate::model::{NodeData, PlaneInfo, PlaneMeta};
use crate::rows::{Counted, NodeRow, text_docs};
use crate::schema;
use crate::store::Store;
use crate::text::Stamp;

/// An edge named by the keys of its ends.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct KeyedEdge {
    pub src: String,
    pub dst: String,
    /// `CALLS`, `CONTAINS`, …
    pub ty: Cow<'static, str>,
    /// A JSON object, or `""` when the edge has no properties.
    pub props_json: String,
}

/// A change to one plane, as [`Store::apply_plane_diff`] writes it.
#[derive(Debug, Clone)]
pub struct PlaneDiff {
    /// The plane's meta after the change (its name names the plane).
    pub meta: PlaneMeta,
    /// The generation the difference was computed against: if the plane was written since, nothing is
    /// applied and [`Error::Stale`] says so.
    pub base_generation: u64,
    /// Keys of nodes to delete; their edges must be among `remove_edges`.
    pub remove_nodes: Vec<String>,
    /// Nodes to add, or to overwrite when their key exists (the row id stays).
    pub upsert_nodes: Vec<NodeData>,
    /// Edges to delete, one stored row each (edges may repeat; each listed copy removes one).
    pub remove_edges: Vec<KeyedEdge>,
    pub add_edges: Vec<KeyedEdge>,
}

impl PlaneDiff {
    /// Whether the difference changes no node and no edge.
    pub fn is_empty(&self) -> bool {
        self.remove_nodes.is_empty()
            && self.upsert_nodes.is_empty()
            && self.remove_edges.is_empty()
            && self.add_edges.is_empty()
    }
}

impl Store {
    /// Applies `diff` to its plane in one SQLite transaction (bumping the generation), then updates the
    /// text documents of the nodes it touched. Any part that does not match the stored plane (an edge or
    /// node to remove that is not there, a node removed with edges left, a dangling new edge) rolls
    /// everything back with an error: the caller then rewrites the plane whole.
    pub fn apply_plane_diff(&mut self, diff: &PlaneDiff) -> Result<PlaneInfo> {
        let mut infos = self.apply_plane_diffs(&[diff])?;
        Ok(infos.remove(0))
    }

    /// Applies the differences of several planes in one SQLite transaction, as [`Store::apply_plane_diff`]
    /// applies one: if any does not apply, none is written. Their infos come back in their order.
    pub fn apply_plane_diffs(&mut self, diffs: &[&PlaneDiff]) -> Result<Vec<PlaneInfo>> {
        for diff in diffs {
            if let Some(node) = diff.upsert_nodes.iter().find(|n| n.labels.is_empty()) {
                let detail = format!("node `{}` has no label", node.key);
                return Err(Error::InvalidInput { plane: diff.meta.name.clone(), detail });
            }
        }
        let Store { conn, shown, .. } = self;
        let shown: &std::path::Path = shown;
        let context = "applying a plane difference";
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx(shown, context)?;
        let mut applied = Vec::with_capacity(diffs.len());
        for diff in diffs {
            applied.push(apply_rows(&tx, shown, diff)?);
        }
        tx.commit().ctx(shown, context)?;
        let mut infos = Vec::with_capacity(diffs.len());
        for (diff, applied) in diffs.iter().zip(applied) {
            infos.push(self.after_diff(diff, applied)?);
        }
        Ok(infos)
    }

    /// After the commit: the cached plane list, then the text documents of a code plane's nodes touched.
    fn after_diff(&mut self, diff: &PlaneDiff, applied: Applied) -> Result<PlaneInfo> {
        let name = &diff.meta.name;
        let Applied { new_generation, mut stale, upserted, text_changed } = applied;
        // The cached plane list follows SQLite first, so a text failure below leaves it right.
        let info = self.after_write(name)?;
        if crate::rows::has_text(&diff.meta) {
            let stamp = Stamp { generation: new_generation as u64, commit: diff.meta.synced_commit.clone() };
            let (nodes, node_ids): (Vec<&NodeData>, Vec<i64>) = diff
                .upsert_nodes
                .iter()
                .zip(&upserted)
                .zip(&text_changed)
                .filter(|(_, changed)| **changed)
                .map(|((node, &id), _)| (node, id))
                .unzip();
            stale.extend(&node_ids);
            if stale.is_empty() && nodes.iter().all(|n| !crate::text::is_searchable(n.label())) {
                // Lines moved, no indexed text changed: no commit now.
                self.text.defer_stamp(name, stamp);
            } else {
                self.text.replace_docs(name, &stale, text_docs(nodes.iter().copied(), &node_ids), stamp)?;
            }
        }
        Ok(info)
    }
}

/// What writing one plane's difference did, for the text index after the commit.
struct Applied {
    new_generation: i64,
    /// Documents to drop: removed symbols, and symbols whose indexed text changes.
    stale: Vec<i64>,
    /// Row ids of the upserted nodes, in their order, and whether each one's indexed text changed.
    upserted: Vec<i64>,
    text_changed: Vec<bool>,
}

/// Writes `diff`'s rows in transaction `tx`.
fn apply_rows(tx: &rusqlite::Transaction<'_>, shown: &std::path::Path, diff: &PlaneDiff) -> Result<Applied> {
    let name = &diff.meta.name;
    let invalid = |detail: String| Error::InvalidInput { plane: name.clone(), detail };
    let context = "applying a plane difference";
    let current: Option<(i64, i64)> = tx
        .query_row("SELECT id, generation FROM planes WHERE name = ?1", [name], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()
        .ctx(shown, context)?;
    let Some((plane_id, generation)) = current else {
        return Err(invalid("there is no such plane to change".into()));
    };
    if generation as u64 != diff.base_generation {
        return Err(Error::Stale { plane: name.clone(), expected: diff.base_generation, found: generation as u64 });
    }
    let new_generation = schema::next_generation(tx).ctx(shown, context)?;
    let mut ids: HashMap<&str, i64> = HashMap::new();
    let missing = |key: &str| invalid(format!("no node `{key}`"));
    for edge in &diff.remove_edges {
        let src = node_id(tx, plane_id, &edge.src, &mut ids).ctx(shown, context)?.ok_or_else(|| missing(&edge.src))?;
        let dst = node_id(tx, plane_id, &edge.dst, &mut ids).ctx(shown, context)?.ok_or_else(|| missing(&edge.dst))?;
        let props = (!edge.props_json.is_empty()).then_some(edge.props_json.as_str());
        let removed = tx
            .prepare_cached(
                "DELETE FROM edges WHERE id = (SELECT id FROM edges
                 WHERE src = ?1 AND type = ?2 AND dst = ?3 AND props IS ?4 LIMIT 1)",
            )
            .and_then(|mut s| s.execute(params![src, edge.ty.as_ref(), dst, props]))
            .ctx(shown, context)?;
        if removed != 1 {
            return Err(invalid(format!("no edge {} -{}-> {} to remove", edge.src, edge.ty, edge.dst)));
        }
    }
    // Text documents to drop: removed symbols, and symbols whose indexed text changes.
    let mut stale = Vec::new();
    for key in &diff.remove_nodes {
        let id = node_id(tx, plane_id, key, &mut ids).ctx(shown, context)?.ok_or_else(|| missing(key))?;
        ids.remove(key.as_str());
        let label: String = tx
            .prepare_cached("SELECT label FROM nodes WHERE id = ?1")
            .and_then(|mut s| s.query_row([id], |row| row.get(0)))
            .ctx(shown, context)?;
        if crate::text::is_searchable(&label) {
            stale.push(id);
        }
        let attached: bool = tx
            .prepare_cached(
                "SELECT EXISTS(SELECT 1 FROM edges WHERE src = ?1) OR EXISTS(SELECT 1 FROM edges WHERE dst = ?1)",
            )
            .and_then(|mut s| s.query_row([id], |row| row.get(0)))
            .ctx(shown, context)?;
        if attached {
            return Err(invalid(format!("node `{key}` would be removed with edges left")));
        }
        tx.prepare_cached("DELETE FROM nodes WHERE id = ?1").and_then(|mut s| s.execute([id])).ctx(shown, context)?;
    }
    // Which upserted nodes need a new document: new ones, and those whose indexed text changes.
    let mut text_changed = Vec::with_capacity(diff.upsert_nodes.len());
    let mut existed = 0u64;
    for node in &diff.upsert_nodes {
        let before: Option<TextRow> = tx
            .prepare_cached(
                "SELECT name, label, file, props ->> '$.signature', props ->> '$.doc'
                 FROM nodes WHERE plane = ?1 AND key = ?2",
            )
            .and_then(|mut s| {
                s.query_row(params![plane_id, node.key], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?))
                })
                .optional()
            })
            .ctx(shown, context)?;
        let props = crate::rows::TextProps::of(&node.props_json);
        let now =
            (node.name.as_str(), node.label(), node.file.as_deref(), props.signature.as_deref(), props.doc.as_deref());
        let same = before.as_ref().is_some_and(|(name, label, file, signature, doc)| {
            (name.as_str(), label.as_str(), file.as_deref(), signature.as_deref(), doc.as_deref()) == now
        });
        text_changed.push(!same);
        existed += u64::from(before.is_some());
    }
    let mut upserted = Vec::with_capacity(diff.upsert_nodes.len());
    {
        let mut stmt = tx
            .prepare_cached(
                "INSERT INTO nodes(plane, key, label, labels, name, file, line, end_line, props)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                 ON CONFLICT(plane, key) DO UPDATE SET
                     label = excluded.label, labels = excluded.labels, name = excluded.name, file = excluded.file,
                     line = excluded.line, end_line = excluded.end_line, props = excluded.props
                 RETURNING id",
            )
            .ctx(shown, context)?;
        for node in &diff.upsert_nodes {
            let row = NodeRow::of(node);
            let id: i64 = stmt
                .query_row(rusqlite::params_from_iter(row.columns(&plane_id)), |row| row.get(0))
                .ctx(shown, context)?;
            upserted.push(id);
        }
    }
    ids.extend(diff.upsert_nodes.iter().map(|n| n.key.as_str()).zip(upserted.iter().copied()));
    for edge in &diff.add_edges {
        let src = node_id(tx, plane_id, &edge.src, &mut ids).ctx(shown, context)?.ok_or_else(|| missing(&edge.src))?;
        let dst = node_id(tx, plane_id, &edge.dst, &mut ids).ctx(shown, context)?.ok_or_else(|| missing(&edge.dst))?;
        let props = (!edge.props_json.is_empty()).then_some(edge.props_json.as_str());
        tx.prepare_cached("INSERT INTO edges(plane, src, dst, type, props) VALUES (?1, ?2, ?3, ?4, ?5)")
            .and_then(|mut s| s.execute(params![plane_id, src, dst, edge.ty.as_ref(), props]))
            .ctx(shown, context)?;
    }
    crate::rows::upsert_plane(tx, &diff.meta, new_generation).ctx(shown, context)?;
    let inserted = diff.upsert_nodes.len() as u64 - existed;
    let (nodes, edges) = (
        inserted as i64 - diff.remove_nodes.len() as i64,
        diff.add_edges.len() as i64 - diff.remove_edges.len() as i64,
    );
    crate::rows::count_rows(tx, plane_id, Counted::Changed(nodes, edges)).ctx(shown, context)?;
    Ok(Applied { new_generation, stale, upserted, text_changed })
}

/// A node's indexed text as stored: name, label, file, signature, doc.
type TextRow = (String, String, Option<String>, Option<String>, Option<String>);

/// The row id of node `key` of plane `plane_id`, remembered in `ids`.
fn node_id<'k>(
    tx: &rusqlite::Transaction<'_>,
    plane_id: i64,
    key: &'k str,
    ids: &mut HashMap<&'k str, i64>,
) -> rusqlite::Result<Option<i64>> {
    if let Some(&id) = ids.get(key) {
        return Ok(Some(id));
    }
    let id: Option<i64> = tx
        .prepare_cached("SELECT id FROM nodes WHERE plane = ?1 AND key = ?2")?
        .query_row(params![plane_id, key], |row| row.get(0))
        .optional()?;
    if let Some(id) = id {
        ids.insert(key, id);
    }
    Ok(id)
}
