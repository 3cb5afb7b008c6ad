//! Reads: planes, nodes, edges, counts and text search.
//!
//! The reads walks use are narrow: `adjacent` (edge id, type and far node, no properties),
//! `nodes_by_ids`, `unresolved_sites_named`; `plane_digest` hashes a plane's nodes and edges from
//! their stored text, to count what a write changed. The plane list with its row counts is cached
//! between writes: counting costs milliseconds on a large plane, and the lock makes this process
//! the only writer.

use rusqlite::types::Value as SqlValue;
use rusqlite::{OptionalExtension, Params, Row, params_from_iter};

use crate::error::{Error, Result, SqlContext};
use crate::model::{Adjacent, Direction, Edge, EdgeSummary, Node, PlaneDigest, PlaneInfo, PlaneKind, PlaneMeta, Props};
use crate::store::Store;

// `ORDER BY +key` (an expression, not the column) keeps SQLite from walking the whole key index in
// order instead of using the narrower name or label index and sorting the few rows.
const NODE_COLUMNS: &str = "id, plane, key, labels, name, file, line, end_line, props";
const EDGE_COLUMNS: &str = "e.id, e.plane, e.src, e.dst, e.type, e.props";
const PLANE_COLUMNS: &str = "p.id, p.name, p.kind, p.synced_commit, p.synced_root, p.built_by, p.ledger, \
     p.generation, p.updated_at, p.node_count, p.edge_count";
/// The edges of plane `?1`: those leaving its nodes (an edge never joins two planes). The nodes come first
/// (`CROSS JOIN` keeps that order), through the index of nodes by plane, then their edges by source; a
/// scan of the edges table instead would read every plane's.
const PLANE_EDGES: &str = "nodes n CROSS JOIN edges e ON e.src = n.id WHERE n.plane = ?1";

impl Store {
    /// Every plane, by name.
    pub fn planes(&self) -> Result<Vec<PlaneInfo>> {
        if let Some(planes) = self.planes_cache.borrow().as_ref() {
            return Ok(planes.clone());
        }
        let planes = self.query_planes("listing planes", "1 ORDER BY p.name", [])?;
        *self.planes_cache.borrow_mut() = Some(planes.clone());
        Ok(planes)
    }

    /// The plane named `name`.
    pub fn plane(&self, name: &str) -> Result<Option<PlaneInfo>> {
        Ok(self.planes()?.into_iter().find(|p| p.meta.name == name))
    }

    /// The plane with id `id`.
    pub fn plane_by_id(&self, id: i64) -> Result<Option<PlaneInfo>> {
        Ok(self.planes()?.into_iter().find(|p| p.id == id))
    }

    /// The node with id `id`.
    pub fn node(&self, id: i64) -> Result<Option<Node>> {
        Ok(self.query_nodes("reading a node", "id = ?1", [id])?.pop())
    }

    /// The node of plane `plane_id` with key `key`.
    pub fn node_by_key(&self, plane_id: i64, key: &str) -> Result<Option<Node>> {
        Ok(self.query_nodes("reading a node by key", "plane = ?1 AND key = ?2", (plane_id, key))?.pop())
    }

    /// Nodes of plane `plane_id` named exactly `name`, by key.
    pub fn nodes_by_name(&self, plane_id: i64, name: &str) -> Result<Vec<Node>> {
        // The case-insensitive index serves both lookups (one index less to maintain on every write).
        self.query_nodes(
            "reading nodes by name",
            "plane = ?1 AND name = ?2 COLLATE NOCASE AND name = ?2 ORDER BY +key",
            (plane_id, name),
        )
    }

    /// Nodes of plane `plane_id` named `name` ignoring ASCII case, by key.
    pub fn nodes_by_name_ci(&self, plane_id: i64, name: &str) -> Result<Vec<Node>> {
        self.query_nodes(
            "reading nodes by name",
            "plane = ?1 AND name = ?2 COLLATE NOCASE ORDER BY +key",
            (plane_id, name),
        )
    }

    /// Nodes of plane `plane_id` whose primary label is `label`, by key.
    pub fn nodes_by_label(&self, plane_id: i64, label: &str) -> Result<Vec<Node>> {
        self.query_nodes("reading nodes by label", "plane = ?1 AND label = ?2 ORDER BY +key", (plane_id, label))
    }

    /// Every node of plane `plane_id`, by key.
    pub fn nodes(&self, plane_id: i64) -> Result<Vec<Node>> {
        self.query_nodes("reading nodes", "plane = ?1 ORDER BY key", [plane_id])
    }

    /// Nodes of plane `plane_id` in file `file`, by line (nodes without a line first), then key.
    pub fn nodes_in_file(&self, plane_id: i64, file: &str) -> Result<Vec<Node>> {
        self.query_nodes("reading nodes of a file", "plane = ?1 AND file = ?2 ORDER BY line, key", (plane_id, file))
    }

    /// Edges of plane `plane_id`, of the given types when `types` is given, by id.
    pub fn edges(&self, plane_id: i64, types: Option<&[&str]>) -> Result<Vec<Edge>> {
        let Some(types) = types else {
            return self.query_edges("reading edges", &format!("{PLANE_EDGES} ORDER BY e.id"), [plane_id]);
        };
        if types.is_empty() {
            return Ok(Vec::new());
        }
        let placeholders: Vec<String> = (2..types.len() + 2).map(|i| format!("?{i}")).collect();
        let filter = format!("{PLANE_EDGES} AND e.type IN ({}) ORDER BY e.id", placeholders.join(", "));
        let values =
            std::iter::once(SqlValue::Integer(plane_id)).chain(types.iter().map(|ty| SqlValue::Text((*ty).to_owned())));
        self.query_edges("reading edges", &filter, params_from_iter(values))
    }

    /// Edges leaving node `node_id`, of type `ty` when given, by id.
    pub fn edges_out(&self, node_id: i64, ty: Option<&str>) -> Result<Vec<Edge>> {
        match ty {
            Some(ty) => self.query_edges(
                "reading out-edges",
                "edges e WHERE e.src = ?1 AND e.type = ?2 ORDER BY e.id",
                (node_id, ty),
            ),
            None => self.query_edges("reading out-edges", "edges e WHERE e.src = ?1 ORDER BY e.id", [node_id]),
        }
    }

    /// Edges entering node `node_id`, of type `ty` when given, by id.
    pub fn edges_in(&self, node_id: i64, ty: Option<&str>) -> Result<Vec<Edge>> {
        match ty {
            Some(ty) => self.query_edges(
                "reading in-edges",
                "edges e WHERE e.dst = ?1 AND e.type = ?2 ORDER BY e.id",
                (node_id, ty),
            ),
            None => self.query_edges("reading in-edges", "edges e WHERE e.dst = ?1 ORDER BY e.id", [node_id]),
        }
    }

    /// Edges of type `ty` leaving (`Direction::Out`) or entering (`Direction::In`) any of the nodes `ids`,
    /// by id: one query per 400 nodes instead of one per node.
    pub fn edges_at(&self, ids: &[i64], dir: Direction, ty: &str) -> Result<Vec<Edge>> {
        let end = match dir {
            Direction::Out => "src",
            Direction::In => "dst",
        };
        let mut edges = Vec::new();
        for chunk in ids.chunks(400) {
            let placeholders: Vec<String> = (2..chunk.len() + 2).map(|i| format!("?{i}")).collect();
            let from = format!("edges e WHERE e.type = ?1 AND e.{end} IN ({})", placeholders.join(", "));
            let values =
                std::iter::once(SqlValue::Text(ty.to_owned())).chain(chunk.iter().map(|&id| SqlValue::Integer(id)));
            edges.extend(self.query_edges("reading edges at nodes", &from, params_from_iter(values))?);
        }
        edges.sort_by_key(|e| e.id);
        Ok(edges)
    }

    /// The edge with id `id`.
    pub fn edge(&self, id: i64) -> Result<Option<Edge>> {
        Ok(self.query_edges("reading an edge", "edges e WHERE e.id = ?1", [id])?.pop())
    }

    /// The nodes with the given ids that exist, in no particular order.
    pub fn nodes_by_ids(&self, ids: &[i64]) -> Result<Vec<Node>> {
        let mut nodes = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(400) {
            let placeholders: Vec<String> = (1..=chunk.len()).map(|i| format!("?{i}")).collect();
            let filter = format!("id IN ({})", placeholders.join(", "));
            nodes.extend(self.query_nodes("reading nodes by id", &filter, params_from_iter(chunk.iter()))?);
        }
        Ok(nodes)
    }

    /// The edges at node `node_id` in direction `dir`, of the given types (all types when `types` is
    /// empty): edge id, type and the node at the other end, by edge id. Properties are not read, so
    /// that graph walks stay cheap; read a path's edges with [`Store::edge`].
    pub fn adjacent(&self, node_id: i64, dir: Direction, types: &[&str]) -> Result<Vec<Adjacent>> {
        let context = "walking edges";
        let (near, far) = match dir {
            Direction::Out => ("src", "dst"),
            Direction::In => ("dst", "src"),
        };
        let read = |row: &Row<'_>| Ok(Adjacent { edge: row.get(0)?, ty: row.get(1)?, node: row.get(2)? });
        if types.is_empty() {
            let sql = format!("SELECT id, type, {far} FROM edges WHERE {near} = ?1");
            let mut stmt = self.conn.prepare_cached(&sql).ctx(&self.shown, context)?;
            let rows = stmt.query_map([node_id], read).ctx(&self.shown, context)?;
            let mut out: Vec<Adjacent> = rows.collect::<rusqlite::Result<_>>().ctx(&self.shown, context)?;
            out.sort_by_key(|a| a.edge);
            return Ok(out);
        }
        let sql = format!("SELECT id, type, {far} FROM edges WHERE {near} = ?1 AND type = ?2");
        let mut stmt = self.conn.prepare_cached(&sql).ctx(&self.shown, context)?;
        let mut out = Vec::new();
        for ty in types {
            let rows = stmt.query_map((node_id, ty), read).ctx(&self.shown, context)?;
            for row in rows {
                out.push(row.ctx(&self.shown, context)?);
            }
        }
        if types.len() > 1 {
            out.sort_by_key(|a| a.edge);
        }
        Ok(out)
    }

    /// Up to `limit` distinct names in plane `plane_id` starting with `prefix`, ignoring ASCII case.
    /// Names closest in length to `near_len` come first. (`+plane`: the range of names is read in the name
    /// index, not the whole plane in the plane's.)
    pub fn names_with_prefix(&self, plane_id: i64, prefix: &str, near_len: usize, limit: usize) -> Result<Vec<String>> {
        let context = "reading names";
        let upper = format!("{prefix}\u{10FFFF}");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT DISTINCT name FROM nodes
                 WHERE +plane = ?1 AND name >= ?2 COLLATE NOCASE AND name < ?3 COLLATE NOCASE
                   AND label NOT IN ('UnresolvedRef', 'External')
                 ORDER BY abs(length(name) - ?5)
                 LIMIT ?4",
            )
            .ctx(&self.shown, context)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let near_len = i64::try_from(near_len).unwrap_or(i64::MAX);
        let rows =
            stmt.query_map((plane_id, prefix, upper, limit, near_len), |row| row.get(0)).ctx(&self.shown, context)?;
        rows.collect::<rusqlite::Result<_>>().ctx(&self.shown, context)
    }

    /// Up to `limit` keys of plane `plane_id` starting with `prefix` (exactly, case and all), in order: a
    /// range of the key index.
    pub fn keys_with_prefix(&self, plane_id: i64, prefix: &str, limit: usize) -> Result<Vec<String>> {
        let context = "reading keys";
        let upper = format!("{prefix}\u{10FFFF}");
        let mut stmt = self
            .conn
            .prepare_cached("SELECT key FROM nodes WHERE key >= ?2 AND key < ?3 AND plane = ?1 ORDER BY key LIMIT ?4")
            .ctx(&self.shown, context)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt.query_map((plane_id, prefix, upper, limit), |row| row.get(0)).ctx(&self.shown, context)?;
        rows.collect::<rusqlite::Result<_>>().ctx(&self.shown, context)
    }

    /// Number of edges of the given types entering `UnresolvedRef` nodes of plane `plane_id` named
    /// `name`: the sites whose binding failed and that might have meant a symbol of that name.
    pub fn unresolved_sites_named(&self, plane_id: i64, name: &str, types: &[&str]) -> Result<u64> {
        let context = "counting unresolved sites";
        let placeholders: Vec<String> = (3..types.len() + 3).map(|i| format!("?{i}")).collect();
        let sql = format!(
            "SELECT count(*) FROM nodes n JOIN edges e ON e.dst = n.id
             WHERE n.plane = ?1 AND n.name = ?2 COLLATE NOCASE AND n.name = ?2 AND +n.label = 'UnresolvedRef'
               AND e.type IN ({})",
            placeholders.join(", ")
        );
        let values = [SqlValue::Integer(plane_id), SqlValue::Text(name.to_owned())]
            .into_iter()
            .chain(types.iter().map(|ty| SqlValue::Text((*ty).to_owned())));
        self.conn
            .prepare_cached(&sql)
            .ctx(&self.shown, context)?
            .query_row(params_from_iter(values), |row| Ok(count(row.get(0)?)))
            .ctx(&self.shown, context)
    }

    /// A page of the edges that [`Store::unresolved_sites_named`] counts, for any of `names`: `limit`
    /// edges from `offset`, by the file of the symbol holding the site, then the site's line.
    pub fn unresolved_sites_of(
        &self,
        plane_id: i64,
        names: &[&str],
        types: &[&str],
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Edge>> {
        if names.is_empty() || types.is_empty() {
            return Ok(Vec::new());
        }
        let list = |from: usize, n: usize| (from..from + n).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ");
        let (names_at, types_at) = (4, 4 + names.len());
        let from = format!(
            "nodes n JOIN edges e ON e.dst = n.id JOIN nodes s ON s.id = e.src
             WHERE n.plane = ?1 AND n.name COLLATE NOCASE IN ({names}) AND n.name IN ({names})
               AND +n.label = 'UnresolvedRef' AND e.type IN ({types})
             ORDER BY s.file, json_extract(e.props, '$.line'), e.id LIMIT ?2 OFFSET ?3",
            names = list(names_at, names.len()),
            types = list(types_at, types.len()),
        );
        let values = [
            SqlValue::Integer(plane_id),
            SqlValue::Integer(i64::try_from(limit).unwrap_or(i64::MAX)),
            SqlValue::Integer(i64::try_from(offset).unwrap_or(i64::MAX)),
        ]
        .into_iter()
        .chain(names.iter().chain(types).map(|t| SqlValue::Text((*t).to_owned())));
        self.query_edges("listing unresolved sites", &from, params_from_iter(values))
    }

    /// A plane reduced to hashes, read as stored text (no JSON decoding): each node's labels, name,
    /// span and properties by key, and the edges as a multiset of (type, source key, target key,
    /// properties). Two digests compare what changed between two writes of a plane.
    pub fn plane_digest(&self, plane_id: i64) -> Result<PlaneDigest> {
        use std::hash::{DefaultHasher, Hash, Hasher};
        let context = "reading a plane's digest";
        let mut nodes = std::collections::HashMap::new();
        let mut stmt = self
            .conn
            .prepare_cached("SELECT key, labels, name, file, line, end_line, props FROM nodes WHERE plane = ?1")
            .ctx(&self.shown, context)?;
        let mut rows = stmt.query([plane_id]).ctx(&self.shown, context)?;
        while let Some(row) = rows.next().ctx(&self.shown, context)? {
            let read = || -> rusqlite::Result<(String, u64)> {
                let mut h = DefaultHasher::new();
                row.get_ref(1)?.as_str_or_null()?.hash(&mut h);
                row.get_ref(2)?.as_str_or_null()?.hash(&mut h);
                row.get_ref(3)?.as_str_or_null()?.hash(&mut h);
                row.get::<_, Option<i64>>(4)?.hash(&mut h);
                row.get::<_, Option<i64>>(5)?.hash(&mut h);
                row.get_ref(6)?.as_str_or_null()?.hash(&mut h);
                Ok((row.get(0)?, h.finish()))
            };
            let (key, hash) = read().ctx(&self.shown, context)?;
            nodes.insert(key, hash);
        }
        let mut edges = std::collections::HashMap::new();
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT e.type, n.key, d.key, e.props FROM nodes n CROSS JOIN edges e ON e.src = n.id
                 JOIN nodes d ON d.id = e.dst WHERE n.plane = ?1",
            )
            .ctx(&self.shown, context)?;
        let mut rows = stmt.query([plane_id]).ctx(&self.shown, context)?;
        while let Some(row) = rows.next().ctx(&self.shown, context)? {
            let read = || -> rusqlite::Result<u64> {
                let mut h = DefaultHasher::new();
                for i in 0..4 {
                    row.get_ref(i)?.as_str_or_null()?.hash(&mut h);
                }
                Ok(h.finish())
            };
            *edges.entry(read().ctx(&self.shown, context)?).or_insert(0u64) += 1;
        }
        Ok(PlaneDigest { nodes, edges })
    }

    /// Number of edges entering node `node_id` other than containment (`CONTAINS`, `HAS_METHOD`): how
    /// much the rest of the plane refers to it.
    pub fn referenced(&self, node_id: i64) -> Result<u64> {
        let context = "counting references to a node";
        self.conn
            .prepare_cached("SELECT count(*) FROM edges WHERE dst = ?1 AND type NOT IN ('CONTAINS', 'HAS_METHOD')")
            .ctx(&self.shown, context)?
            .query_row([node_id], |row| Ok(count(row.get(0)?)))
            .ctx(&self.shown, context)
    }

    /// Number of edges of type `ty` entering node `node_id`.
    pub fn in_degree(&self, node_id: i64, ty: &str) -> Result<u64> {
        let context = "counting edges of a node";
        self.conn
            .prepare_cached("SELECT count(*) FROM edges WHERE dst = ?1 AND type = ?2")
            .ctx(&self.shown, context)?
            .query_row((node_id, ty), |row| Ok(count(row.get(0)?)))
            .ctx(&self.shown, context)
    }

    /// Number of nodes per primary label in plane `plane_id`, by label.
    pub fn label_counts(&self, plane_id: i64) -> Result<Vec<(String, u64)>> {
        let context = "counting labels";
        let mut stmt = self
            .conn
            .prepare_cached("SELECT label, count(*) FROM nodes WHERE plane = ?1 GROUP BY label ORDER BY label")
            .ctx(&self.shown, context)?;
        let rows = stmt.query_map([plane_id], |row| Ok((row.get(0)?, count(row.get(1)?)))).ctx(&self.shown, context)?;
        rows.collect::<rusqlite::Result<_>>().ctx(&self.shown, context)
    }

    /// Number of edges per (type, source label, target label) in plane `plane_id`, sorted.
    pub fn edge_summary(&self, plane_id: i64) -> Result<Vec<EdgeSummary>> {
        let context = "summarising edges";
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT e.type, n.label, d.label, count(*)
                 FROM nodes n CROSS JOIN edges e ON e.src = n.id JOIN nodes d ON d.id = e.dst
                 WHERE n.plane = ?1
                 GROUP BY e.type, n.label, d.label
                 ORDER BY e.type, n.label, d.label",
            )
            .ctx(&self.shown, context)?;
        let rows = stmt
            .query_map([plane_id], |row| {
                Ok(EdgeSummary {
                    ty: row.get(0)?,
                    src_label: row.get(1)?,
                    dst_label: row.get(2)?,
                    count: count(row.get(3)?),
                })
            })
            .ctx(&self.shown, context)?;
        rows.collect::<rusqlite::Result<_>>().ctx(&self.shown, context)
    }

    /// Number of edges (entering, leaving) node `node_id`.
    pub fn degree(&self, node_id: i64) -> Result<(u64, u64)> {
        let context = "counting edges of a node";
        self.conn
            .prepare_cached(
                "SELECT (SELECT count(*) FROM edges WHERE dst = ?1), (SELECT count(*) FROM edges WHERE src = ?1)",
            )
            .ctx(&self.shown, context)?
            .query_row([node_id], |row| Ok((count(row.get(0)?), count(row.get(1)?))))
            .ctx(&self.shown, context)
    }

    /// Full-text search over node names, keys, signatures, docs and files: up to `k` node ids with
    /// their BM25 scores, best first, within plane `plane_id` when given.
    ///
    /// Any text is accepted (it is cut into terms, never parsed as query syntax); text without
    /// terms finds nothing. `External` and `UnresolvedRef` nodes are not indexed.
    pub fn search(&self, plane_id: Option<i64>, query: &str, k: usize) -> Result<Vec<(i64, f32)>> {
        let plane = match plane_id {
            Some(id) => match self.plane_name(id)? {
                Some(name) => Some(name),
                None => return Ok(Vec::new()),
            },
            None => None,
        };
        let hits = self.text.search(plane.as_deref(), query, k)?;
        // Documents of a write whose text commit failed may outlive their nodes until the next
        // reconciliation; SQLite decides.
        let mut stmt = self
            .conn
            .prepare_cached("SELECT EXISTS(SELECT 1 FROM nodes WHERE id = ?1)")
            .ctx(&self.shown, "checking search hits")?;
        let mut live = Vec::with_capacity(hits.len());
        for (id, score) in hits {
            if stmt.query_row([id], |row| row.get::<_, bool>(0)).ctx(&self.shown, "checking search hits")? {
                live.push((id, score));
            }
        }
        Ok(live)
    }

    fn plane_name(&self, id: i64) -> Result<Option<String>> {
        self.conn
            .prepare_cached("SELECT name FROM planes WHERE id = ?1")
            .and_then(|mut stmt| stmt.query_row([id], |row| row.get(0)).optional())
            .ctx(&self.shown, "reading a plane name")
    }

    /// Plane `name` without counting its rows (the counts read 0).
    pub(crate) fn query_planes(&self, context: &str, filter: &str, params: impl Params) -> Result<Vec<PlaneInfo>> {
        let sql = format!("SELECT {PLANE_COLUMNS} FROM planes p WHERE {filter}");
        let mut stmt = self.conn.prepare_cached(&sql).ctx(&self.shown, context)?;
        let mut rows = stmt.query(params).ctx(&self.shown, context)?;
        let mut planes = Vec::new();
        while let Some(row) = rows.next().ctx(&self.shown, context)? {
            planes.push(self.plane_from_row(row).ctx(&self.shown, context)??);
        }
        Ok(planes)
    }

    fn plane_from_row(&self, row: &Row<'_>) -> rusqlite::Result<Result<PlaneInfo>> {
        let id: i64 = row.get(0)?;
        let name: String = row.get(1)?;
        let kind: String = row.get(2)?;
        let built_by: String = row.get(5)?;
        let ledger: String = row.get(6)?;
        let generation: i64 = row.get(7)?;
        let (synced_commit, synced_root, updated_at) = (row.get(3)?, row.get(4)?, row.get(8)?);
        let (node_count, edge_count) = (count(row.get(9)?), count(row.get(10)?));
        Ok((|| {
            let kind = PlaneKind::parse(&kind)
                .ok_or_else(|| self.corrupt(format!("plane `{name}` has unknown kind `{kind}`")))?;
            let json = |text: &str, what: &str| {
                serde_json::from_str(text).map_err(|e| self.corrupt(format!("{what} of plane `{name}`: {e}")))
            };
            let meta = PlaneMeta {
                kind,
                synced_commit,
                synced_root,
                built_by: json(&built_by, "built_by")?,
                ledger: json(&ledger, "ledger")?,
                name: name.clone(),
            };
            Ok(PlaneInfo { id, meta, generation: count(generation), node_count, edge_count, updated_at })
        })())
    }

    fn query_nodes(&self, context: &str, filter: &str, params: impl Params) -> Result<Vec<Node>> {
        let sql = format!("SELECT {NODE_COLUMNS} FROM nodes WHERE {filter}");
        let mut stmt = self.conn.prepare_cached(&sql).ctx(&self.shown, context)?;
        let mut rows = stmt.query(params).ctx(&self.shown, context)?;
        let mut nodes = Vec::new();
        while let Some(row) = rows.next().ctx(&self.shown, context)? {
            let id: i64 = row.get(0).ctx(&self.shown, context)?;
            let labels: String = row.get(3).ctx(&self.shown, context)?;
            let props: Option<String> = row.get(8).ctx(&self.shown, context)?;
            let labels =
                serde_json::from_str(&labels).map_err(|e| self.corrupt(format!("labels of node {id}: {e}")))?;
            let props = self.props(props.as_deref(), || format!("properties of node {id}"))?;
            let node = (|| {
                Ok(Node {
                    id,
                    plane: row.get(1)?,
                    key: row.get(2)?,
                    labels,
                    name: row.get(4)?,
                    file: row.get(5)?,
                    line: row.get(6)?,
                    end_line: row.get(7)?,
                    props,
                })
            })()
            .ctx(&self.shown, context)?;
            nodes.push(node);
        }
        Ok(nodes)
    }

    /// Edges read from `from` (tables, with the edges as `e`, and the conditions).
    fn query_edges(&self, context: &str, from: &str, params: impl Params) -> Result<Vec<Edge>> {
        let sql = format!("SELECT {EDGE_COLUMNS} FROM {from}");
        let mut stmt = self.conn.prepare_cached(&sql).ctx(&self.shown, context)?;
        let mut rows = stmt.query(params).ctx(&self.shown, context)?;
        let mut edges = Vec::new();
        while let Some(row) = rows.next().ctx(&self.shown, context)? {
            let id: i64 = row.get(0).ctx(&self.shown, context)?;
            let props: Option<String> = row.get(5).ctx(&self.shown, context)?;
            let props = self.props(props.as_deref(), || format!("properties of edge {id}"))?;
            let edge =
                (|| Ok(Edge { id, plane: row.get(1)?, src: row.get(2)?, dst: row.get(3)?, ty: row.get(4)?, props }))()
                    .ctx(&self.shown, context)?;
            edges.push(edge);
        }
        Ok(edges)
    }

    fn props(&self, text: Option<&str>, what: impl FnOnce() -> String) -> Result<Props> {
        match text {
            None => Ok(Props::new()),
            Some(text) => serde_json::from_str(text).map_err(|e| self.corrupt(format!("{}: {e}", what()))),
        }
    }

    fn corrupt(&self, detail: String) -> Error {
        Error::Corrupt { path: self.shown.clone(), detail }
    }
}

/// SQLite counts are never negative.
fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}
