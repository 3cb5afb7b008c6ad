//! Rows: the statements that write a plane's row, its counts, nodes and edges, shared by whole writes
//! and by differences; and the text documents a plane's nodes get.

use std::path::Path;

use rusqlite::{Connection, ToSql, params};
use serde_json::Value;

use crate::bound::{Borrowed, Param};
use crate::error::{Error, Result, SqlContext};
use crate::model::{NewEdge, NodeData, PlaneMeta};
use crate::text::TextDoc;

/// A plane's row counts as a write leaves them.
pub(crate) enum Counted {
    /// This many nodes and edges (a whole plane written).
    Are(u64, u64),
    /// As many more nodes and edges as these (negative: fewer), a difference applied.
    Changed(i64, i64),
}

/// Records plane `plane_id`'s node and edge counts in its row.
pub(crate) fn count_rows(conn: &Connection, plane_id: i64, counted: Counted) -> rusqlite::Result<()> {
    let (sql, nodes, edges) = match counted {
        Counted::Are(nodes, edges) => (
            "UPDATE planes SET node_count = ?2, edge_count = ?3 WHERE id = ?1",
            i64::try_from(nodes).unwrap_or(i64::MAX),
            i64::try_from(edges).unwrap_or(i64::MAX),
        ),
        Counted::Changed(nodes, edges) => {
            ("UPDATE planes SET node_count = node_count + ?2, edge_count = edge_count + ?3 WHERE id = ?1", nodes, edges)
        }
    };
    conn.prepare_cached(sql)?.execute(params![plane_id, nodes, edges])?;
    Ok(())
}

/// Whether a plane's nodes get text documents: only code planes hold symbols that `search` ranks; the
/// history and deployment planes are read by their own verbs, and writing them costs no text commit.
pub(crate) fn has_text(meta: &PlaneMeta) -> bool {
    meta.kind == crate::model::PlaneKind::Code
}

/// The text documents of `nodes`, whose ids are `ids`.
pub(crate) fn text_docs<'a>(
    nodes: impl IntoIterator<Item = &'a NodeData>,
    ids: &'a [i64],
) -> impl Iterator<Item = TextDoc<'a>> {
    nodes.into_iter().zip(ids).map(|(node, &node_id)| {
        let props = TextProps::of(&node.props_json);
        TextDoc {
            node_id,
            key: &node.key,
            name: &node.name,
            label: node.label(),
            file: node.file.as_deref(),
            signature: props.signature,
            doc: props.doc,
        }
    })
}

pub(crate) fn upsert_plane(conn: &Connection, meta: &PlaneMeta, generation: i64) -> rusqlite::Result<i64> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    conn.prepare_cached(
        "INSERT INTO planes(name, kind, synced_commit, synced_root, built_by, ledger, generation, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT(name) DO UPDATE SET
             kind = excluded.kind, synced_commit = excluded.synced_commit, synced_root = excluded.synced_root,
             built_by = excluded.built_by, ledger = excluded.ledger, generation = excluded.generation,
             updated_at = excluded.updated_at
         RETURNING id",
    )?
    .query_row(
        params![
            meta.name,
            meta.kind.as_str(),
            meta.synced_commit,
            meta.synced_root,
            json_text(&meta.built_by),
            json_text(&meta.ledger),
            generation,
            now
        ],
        |row| row.get(0),
    )
}

/// Inserts `nodes` with row ids `ids` into plane `plane_id`; a key the plane holds already (where its
/// index is kept) is [`Error::DuplicateKey`].
pub(crate) fn insert_nodes(
    conn: &Connection,
    shown: &Path,
    plane: &str,
    plane_id: i64,
    nodes: &[NodeData],
    ids: &[i64],
) -> Result<()> {
    let context = "inserting nodes";
    let mut stmt = Borrowed::prepare(
        conn,
        "INSERT INTO nodes(id, plane, key, label, labels, name, file, line, end_line, props)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .ctx(shown, context)?;
    for (node, &id) in nodes.iter().zip(ids) {
        let row = NodeRow::of(node);
        stmt.execute(std::iter::once(Param::Int(id)).chain(row.params(plane_id))).map_err(|source| {
            let unique =
                source.sqlite_error().map(|e| e.extended_code) == Some(rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE);
            if unique {
                Error::DuplicateKey { plane: plane.to_owned(), key: node.key.clone() }
            } else {
                Error::Sqlite { path: shown.to_path_buf(), context: context.to_owned(), source }
            }
        })?;
    }
    Ok(())
}

/// A node's stored columns after `plane`: key, label, labels, name, file, line, end_line, props (the
/// order of the `?1`–`?9` parameters of every statement writing a node).
pub(crate) struct NodeRow<'a> {
    node: &'a NodeData,
    label: &'a str,
    labels: String,
    props: Option<&'a str>,
}

impl<'a> NodeRow<'a> {
    pub(crate) fn of(node: &'a NodeData) -> NodeRow<'a> {
        let labels = serde_json::to_string(&node.labels).expect("strings serialize");
        let props = (!node.props_json.is_empty()).then_some(node.props_json.as_str());
        NodeRow { node, label: node.label(), labels, props }
    }

    /// `?1` (the plane) to `?9`.
    pub(crate) fn columns<'r>(&'r self, plane_id: &'r i64) -> [&'r dyn ToSql; 9] {
        let n = self.node;
        [plane_id, &n.key, &self.label, &self.labels, &n.name, &n.file, &n.line, &n.end_line, &self.props]
    }

    /// [`NodeRow::columns`] for a [`Borrowed`] statement.
    pub(crate) fn params(&self, plane_id: i64) -> [Param<'_>; 9] {
        let n = self.node;
        [
            Param::Int(plane_id),
            Param::Text(&n.key),
            Param::Text(self.label),
            Param::Text(&self.labels),
            Param::Text(&n.name),
            n.file.as_deref().into(),
            n.line.into(),
            n.end_line.into(),
            self.props.into(),
        ]
    }
}

/// Edge rows per `INSERT` statement in [`insert_edges`].
const EDGES_PER_INSERT: usize = 64;

/// Inserts `edges`, whose ends index into `ids`, into plane `plane_id`.
///
/// Rows go [`EDGES_PER_INSERT`] to a statement: each statement opens its cursors afresh, so one row per
/// statement searches every index kept row by row (a write that is not bulk keeps them all) from its
/// root, where a statement of many rows keeps its cursors on the last page while the rows arrive in key
/// order.
pub(crate) fn insert_edges(conn: &Connection, plane_id: i64, ids: &[i64], edges: &[NewEdge]) -> rusqlite::Result<()> {
    static MANY: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let rows = vec!["(?, ?, ?, ?, ?)"; EDGES_PER_INSERT].join(", ");
        format!("INSERT INTO edges(plane, src, dst, type, props) VALUES {rows}")
    });
    fn props(edge: &NewEdge) -> Option<&str> {
        (!edge.props_json.is_empty()).then_some(edge.props_json.as_str())
    }
    fn row<'e>(plane_id: i64, ids: &[i64], edge: &'e NewEdge) -> [Param<'e>; 5] {
        [
            Param::Int(plane_id),
            Param::Int(ids[edge.src]),
            Param::Int(ids[edge.dst]),
            Param::Text(edge.ty.as_ref()),
            props(edge).into(),
        ]
    }
    let mut chunks = edges.chunks_exact(EDGES_PER_INSERT);
    if chunks.len() > 0 {
        let mut stmt = Borrowed::prepare(conn, &MANY)?;
        for chunk in &mut chunks {
            stmt.execute(chunk.iter().flat_map(|edge| row(plane_id, ids, edge)))?;
        }
    }
    if !chunks.remainder().is_empty() {
        let mut stmt =
            Borrowed::prepare(conn, "INSERT INTO edges(plane, src, dst, type, props) VALUES (?, ?, ?, ?, ?)")?;
        for edge in chunks.remainder() {
            stmt.execute(row(plane_id, ids, edge))?;
        }
    }
    Ok(())
}

/// The properties the text index reads, picked out of a node's JSON without building a map.
#[derive(Default, serde::Deserialize)]
pub(crate) struct TextProps<'a> {
    #[serde(borrow)]
    pub(crate) signature: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    pub(crate) doc: Option<std::borrow::Cow<'a, str>>,
}

impl<'a> TextProps<'a> {
    pub(crate) fn of(props_json: &'a str) -> TextProps<'a> {
        if props_json.is_empty() { TextProps::default() } else { serde_json::from_str(props_json).unwrap_or_default() }
    }
}

fn json_text(value: &Value) -> String {
    serde_json::to_string(value).expect("JSON values serialize")
}
