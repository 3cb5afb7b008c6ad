//! Plane writes: a plane replaced whole in one SQLite transaction, its nodes given or streamed in
//! batches while the text index stages their documents beside the rows; the first write of a database,
//! unsynced and journaled; and deleting a plane.
//!
//! `replace_plane_streamed` takes first the nodes, which carry every text document, then batches of
//! stand-in nodes and edges as a producer makes them, then the final meta; a symbol in a batch is
//! refused. Rows go in through `bound::Borrowed`, edges 64 rows to an `INSERT` (`rows::insert_edges`;
//! a fold's few edges go one to a statement), so the indexes kept row by row grow at their last page
//! instead of being searched from the root for every row.
//!
//! A bulk write (the other planes hold fewer edges than twice the new plane's symbols) drops all six
//! secondary indexes inside its transaction and builds them by sorting once every row is in, even
//! those whose rows would land at their end; other writes keep them row by row (`SECONDARY_INDEXES` in
//! `schema`). A key used twice is then found when its index is built, and refused as `DuplicateKey`;
//! databases created before the key index keep the rule as a table constraint, which stays in place.
//!
//! In a streamed or whole write of a code plane, a second thread stages the text documents of the
//! first nodes and then commits them. The row writer goes on to the batches at once, checks that
//! staging succeeded before the SQLite commit (a staging failure rolls the rows back), and hands the
//! text thread the new stamp after it; the text commit follows the SQLite commit. In a bulk write that
//! thread lowers its own scheduling priority by 10 nice steps (`text::lower_thread_priority`, Linux),
//! and the text index threads it starts inherit it: the SQLite writer and the producer feeding it
//! bound the write, and the text index's one segment builder takes the core time they leave (a second
//! builder only built the shared terms' dictionary twice). Before a first write,
//! `Store::warm_up_first_write` creates the text index's writer on a short-lived thread at that
//! priority, so the indexer can have it made while it waits for the symbol table.
//!
//! The first plane written into an empty database file goes through a rollback journal (switched back
//! to WAL right after; kept in WAL when other connections are open): there are no old pages to keep,
//! so the rows are written to the file once instead of logged and then copied by the checkpoint, and a
//! crash leaves a hot journal the next open rolls back. That write commits without `fsync`
//! (`synchronous = OFF`, set before the switch to the rollback journal, whose checkpoint would sync
//! otherwise, and back to `NORMAL` after the switch to WAL): only an operating-system crash in the
//! seconds before the cache is written out could damage the file, which held nothing before. Nothing
//! marks such a file as unsynced: should an operating-system crash damage it, the next open does not
//! notice until a read meets the damage (see the README's known gaps).

use std::borrow::Cow;
use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{Error, Result, SqlContext};
use crate::model::{NewEdge, NodeData, PlaneBatch, PlaneInfo, PlaneMeta};
use crate::rows::{Counted, count_rows, has_text, insert_edges, insert_nodes, text_docs, upsert_plane};
use crate::schema;
use crate::store::Store;
use crate::text::{Stamp, is_searchable};

impl Store {
    /// Replaces plane `meta.name` (creating it if needed) with `nodes` and `edges`, in one SQLite
    /// transaction, then updates its text documents.
    ///
    /// The plane keeps its id; its generation is bumped. Node keys must be unique and every node
    /// needs a label. If the text index fails after the SQLite commit, the error is returned and
    /// the text documents are healed by the next [`Store::reconcile_text`] (which runs on open).
    pub fn replace_plane(&mut self, meta: &PlaneMeta, nodes: &[NodeData], edges: &[NewEdge]) -> Result<PlaneInfo> {
        validate(meta, nodes, edges)?;
        let batches = std::iter::once((Cow::Borrowed(&[][..]), Cow::Borrowed(edges)));
        self.write_plane(meta, Cow::Borrowed(nodes), batches, || Some(meta.clone()))
    }

    /// Like [`Store::replace_plane`], streamed so a producer can overlap the store with its own work:
    /// `first` nodes are written (and their text staged) at once; then each batch's nodes (numbered after
    /// all nodes before them) and edges (whose ends may name any node delivered so far) as they arrive;
    /// then `finish` gives the final meta (same name). `None` from `finish` rolls everything back, which
    /// is what a producer that stopped early must answer. `first` is freed once written.
    ///
    /// In a code plane every symbol comes in `first`: batch nodes must be stand-ins (`External`,
    /// `UnresolvedRef`), which get no text document, so that the text index can write its segments while
    /// the batches arrive. A symbol in a batch is refused as invalid input and nothing changes.
    pub fn replace_plane_streamed(
        &mut self,
        meta: &PlaneMeta,
        first: Vec<NodeData>,
        batches: impl Iterator<Item = PlaneBatch>,
        finish: impl FnOnce() -> Option<PlaneMeta>,
    ) -> Result<PlaneInfo> {
        let batches = batches.map(|b| (Cow::Owned(b.nodes), Cow::Owned(b.edges)));
        self.write_plane(meta, Cow::Owned(first), batches, finish)
    }

    fn write_plane<'b>(
        &mut self,
        meta: &PlaneMeta,
        first: Cow<'_, [NodeData]>,
        batches: impl Iterator<Item = Batch<'b>>,
        finish: impl FnOnce() -> Option<PlaneMeta>,
    ) -> Result<PlaneInfo> {
        validate(meta, &first, &[])?;
        let shown = self.shown.clone();
        let shown = &shown;
        let context = "replacing a plane";
        // Edges are checked against the nodes delivered, and old rows are deleted explicitly, so the per-row
        // foreign-key checks would only cost time. The pragma cannot change inside a transaction.
        self.conn.pragma_update(None, "foreign_keys", false).ctx(shown, context)?;
        let journaled = match self.journal_first_write() {
            Ok(journaled) => journaled,
            Err(err) => {
                // Nothing was written: the connection's settings are restored as far as they can be, and
                // this first failure is the one reported.
                let _ = self.conn.pragma_update(None, "synchronous", "NORMAL");
                let _ = self.conn.pragma_update(None, "foreign_keys", true);
                return Err(err).ctx(shown, context);
            }
        };
        let result = self.write_plane_rows(meta, first, batches, finish);
        if journaled {
            // WAL mode first: switching with `synchronous = NORMAL` would sync the file after all. The
            // connection syncs again whether or not the switch went through; the first failure is kept.
            let wal = self.conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0));
            let synced = self.conn.pragma_update(None, "synchronous", "NORMAL");
            let back = wal.and(synced);
            // The write's own failure, if any, is the one to report.
            if result.is_ok() {
                back.ctx(shown, context)?;
            }
        }
        self.conn.pragma_update(None, "foreign_keys", true).ctx(shown, context)?;
        let (meta, text_committed) = match result {
            Ok(done) => done,
            Err(err) => {
                self.text.abort();
                return Err(err);
            }
        };
        let info = self.after_write(&meta.name)?;
        // A text index that failed after the SQLite commit is healed by the next `reconcile_text`.
        text_committed?;
        if !has_text(&meta) && self.text.has_plane(&meta.name) {
            // Documents of a plane that was a code plane before.
            self.text.remove_plane(&meta.name)?;
        }
        Ok(info)
    }

    /// Prepares for a bulk write of a code plane into a database that holds no node yet: its text index's
    /// writer is created now, at the bulk write's lower priority (see [`crate::lower_thread_priority`]).
    /// Nothing happens for a database that holds nodes (a write there may not be bulk), nor on failure:
    /// the write then creates the writer itself and reports what goes wrong. For the handle that writes,
    /// not a [`Store::reader`] (the writer would hold the text index's lock).
    pub fn warm_up_first_write(&mut self) {
        if self.holds_no_node().unwrap_or(false) {
            let _ = self.text.warm_up_bulk_writer();
        }
    }

    /// Whether the database holds no node yet: its next plane write is its first.
    fn holds_no_node(&self) -> rusqlite::Result<bool> {
        self.conn.query_row("SELECT NOT EXISTS (SELECT 1 FROM nodes)", [], |row| row.get(0))
    }

    /// Switches a database file that holds no node yet, and that no other connection has open, to a
    /// rollback journal for its first plane write; `true` when it did (the caller switches back to WAL).
    ///
    /// A first write has no old pages to keep, so the journal stays almost empty and the rows go to the
    /// database file once, where WAL mode writes them to the log and then copies them into the file at
    /// the checkpoint that follows the commit (about 0.25 s for Django's 73 MB). The write stays atomic:
    /// a crash leaves a hot journal, which the next open rolls back. With other connections open
    /// (a server's readers), SQLite keeps WAL mode and the write goes on in it.
    ///
    /// The first write also commits without `fsync` (`synchronous = OFF`): the file goes to the operating
    /// system's cache, which writes it out within seconds. A crash of the process still leaves the database
    /// whole; only a crash of the operating system in those seconds could leave the file damaged, and it
    /// held nothing before this write that `drsg index` cannot write again. Later writes are as durable as
    /// before (WAL mode with `synchronous = NORMAL`: the log is synced at checkpoints). The `fsync` was the
    /// commit's whole cost and ran with both cores idle: tokio 359 -> 350 ms, zod 398 -> 381 ms, Django
    /// 1,791 -> 1,771 ms (interleaved medians of 9).
    fn journal_first_write(&self) -> rusqlite::Result<bool> {
        if !self.holds_no_node()? {
            return Ok(false);
        }
        // Unsynced before the switch, whose checkpoint would otherwise sync the log and the file (the
        // database's schema, made unsynced too). Should this fail, the write syncs as any other.
        let _ = self.conn.pragma_update(None, "synchronous", "OFF");
        let mode = self.conn.pragma_update_and_check(None, "journal_mode", "DELETE", |row| row.get::<_, String>(0));
        let journaled = mode.is_ok_and(|mode| mode.eq_ignore_ascii_case("delete"));
        if !journaled {
            // Still in WAL mode (other connections are open): the write syncs as any other.
            self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        }
        Ok(journaled)
    }

    /// Plane `name` as just written, updated in the cached plane list: the other planes stand, since this
    /// process is the only writer.
    pub(crate) fn after_write(&mut self, name: &str) -> Result<PlaneInfo> {
        let vanished = || Error::Corrupt {
            path: self.shown.clone(),
            detail: format!("plane `{name}` vanished after being written"),
        };
        let info = self.query_planes("reading a plane", "p.name = ?1", [name])?.pop().ok_or_else(vanished)?;
        if let Some(list) = self.planes_cache.get_mut() {
            list.retain(|p| p.id != info.id);
            list.push(info.clone());
            list.sort_by(|a, b| a.meta.name.cmp(&b.meta.name));
        }
        Ok(info)
    }

    /// The rows of a plane write, and its text documents. A second thread stages the first nodes'
    /// documents (the text index's own threads then tokenize) while this one writes rows; the batches that
    /// follow hold stand-ins only, which have no documents, so the text segments are written beside the
    /// edges and committed right after SQLite. Returns the final meta and how the text commit went (SQLite
    /// is committed whatever it says; a failure to stage rolls SQLite back).
    fn write_plane_rows<'b>(
        &mut self,
        meta: &PlaneMeta,
        first: Cow<'_, [NodeData]>,
        batches: impl Iterator<Item = Batch<'b>>,
        finish: impl FnOnce() -> Option<PlaneMeta>,
    ) -> Result<(PlaneMeta, Result<()>)> {
        let Store { conn, text, shown, .. } = self;
        let shown: &Path = shown;
        let context = "replacing a plane";
        let invalid = |detail: String| Error::InvalidInput { plane: meta.name.clone(), detail };
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx(shown, context)?;
        let generation = schema::next_generation(&tx).ctx(shown, context)?;
        let plane_id = upsert_plane(&tx, meta, generation).ctx(shown, context)?;
        delete_plane_rows(&tx, plane_id).ctx(shown, "deleting the plane's old rows")?;
        let bulk = is_bulk(&tx, plane_id, first.len()).ctx(shown, context)?;
        if bulk {
            schema::drop_bulk_indexes(&tx).ctx(shown, "dropping indexes for a bulk write")?;
        }
        // Ids are given out here (after the highest in use) so the text documents need not wait for SQLite.
        let first_id: i64 =
            tx.query_row("SELECT coalesce(max(id), 0) + 1 FROM nodes", [], |row| row.get(0)).ctx(shown, context)?;
        let mut ids: Vec<i64> = (first_id..).take(first.len()).collect();
        // Whoever of the row writer and the text stager finishes last frees the first nodes.
        let first = std::sync::Arc::new(first);

        // The rows after the first nodes: batches, the final meta, the indexes built in bulk, and the SQLite
        // commit once `staged` says the documents are all with the text index.
        let rest =
            |tx: rusqlite::Transaction<'_>, ids: &mut Vec<i64>, staged: &dyn Fn() -> Result<()>| -> Result<PlaneMeta> {
                let mut edge_count = 0;
                for (nodes, edges) in batches {
                    edge_count += edges.len() as u64;
                    validate(meta, &nodes, &[])?;
                    if has_text(meta)
                        && let Some(node) = nodes.iter().find(|node| is_searchable(node.label()))
                    {
                        return Err(invalid(format!(
                            "node `{}` of a batch is a symbol; only stand-ins may follow the first nodes",
                            node.key
                        )));
                    }
                    let next = first_id + ids.len() as i64;
                    let more: Vec<i64> = (next..).take(nodes.len()).collect();
                    insert_nodes(&tx, shown, &meta.name, plane_id, &nodes, &more)?;
                    ids.extend(more);
                    if let Some((i, edge)) =
                        edges.iter().enumerate().find(|(_, e)| e.src >= ids.len() || e.dst >= ids.len())
                    {
                        let (src, dst, n) = (edge.src, edge.dst, ids.len());
                        return Err(invalid(format!(
                            "edge {i} of a batch ({src} -> {dst}) points past the {n} nodes delivered"
                        )));
                    }
                    insert_edges(&tx, plane_id, ids, &edges).ctx(shown, "inserting edges")?;
                }
                let Some(final_meta) = finish() else {
                    return Err(invalid("the writer gave up before the plane was complete".into()));
                };
                if final_meta.name != meta.name {
                    return Err(invalid(format!("the plane was renamed to `{}` while being written", final_meta.name)));
                }
                if bulk {
                    // Keys are checked for uniqueness here, when their index is built.
                    schema::create_secondary_indexes(&tx).map_err(|source| {
                        match duplicated_key(&tx, plane_id, &source) {
                            Some(key) => Error::DuplicateKey { plane: meta.name.clone(), key },
                            None => Error::Sqlite {
                                path: shown.to_path_buf(),
                                context: "building indexes after a bulk write".to_owned(),
                                source,
                            },
                        }
                    })?;
                }
                upsert_plane(&tx, &final_meta, generation).ctx(shown, context)?;
                count_rows(&tx, plane_id, Counted::Are(ids.len() as u64, edge_count)).ctx(shown, context)?;
                staged()?;
                tx.commit().ctx(shown, context)?;
                Ok(final_meta)
            };
        let first_rows = |tx: &rusqlite::Transaction<'_>,
                          ids: &[i64],
                          first: std::sync::Arc<Cow<'_, [NodeData]>>|
         -> Result<()> { insert_nodes(tx, shown, &meta.name, plane_id, &first, ids) };
        let panicked = |what: &str| Error::Corrupt { path: shown.to_path_buf(), detail: format!("{what} panicked") };

        if !has_text(meta) {
            first_rows(&tx, &ids, first)?;
            let final_meta = rest(tx, &mut ids, &|| Ok(()))?;
            return Ok((final_meta, Ok(())));
        }
        // The text thread stages every document, reports, lets the text index write its segments while
        // SQLite takes the rest of the rows, and commits them right after the SQLite commit.
        let first_ids = ids.clone();
        let (report, staging) = std::sync::mpsc::sync_channel::<Result<()>>(1);
        let (decide, decision) = std::sync::mpsc::sync_channel::<Stamp>(1);
        let texts = std::sync::Arc::clone(&first);
        let written = std::thread::scope(|scope| {
            let name = &meta.name;
            let committer = scope.spawn(move || {
                if bulk {
                    crate::text::lower_thread_priority();
                }
                let staged = text.stage_plane(name, text_docs(texts.iter(), &first_ids));
                drop(texts);
                let failed = staged.is_err();
                // The row writer may be gone already (its own failure); nothing is committed then.
                let _ = report.send(staged);
                if failed { Ok(()) } else { text.commit_staged(name, decision) }
            });
            let staged = || match staging.recv() {
                Ok(staged) => staged,
                Err(_) => Err(panicked("staging the text index")),
            };
            let rows = first_rows(&tx, &ids, first).and_then(|()| rest(tx, &mut ids, &staged));
            if let Ok(final_meta) = &rows {
                let stamp = Stamp { generation: generation as u64, commit: final_meta.synced_commit.clone() };
                // A committer that failed already has its error waiting below.
                let _ = decide.send(stamp);
            }
            drop(decide);
            let committed = committer.join().unwrap_or_else(|_| Err(panicked("the text commit")));
            Ok::<_, Error>((rows?, committed))
        })?;
        let (final_meta, text_committed) = written;
        Ok((final_meta, text_committed))
    }

    /// Deletes plane `name` with its nodes, edges, text documents and kept state; `false` when there was no
    /// such plane.
    pub fn delete_plane(&mut self, name: &str) -> Result<bool> {
        self.planes_cache.get_mut().take();
        let shown = &self.shown;
        let context = "deleting a plane";
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx(shown, context)?;
        let id: Option<i64> = {
            use rusqlite::OptionalExtension;
            tx.query_row("SELECT id FROM planes WHERE name = ?1", [name], |row| row.get(0)).optional()
        }
        .ctx(shown, context)?;
        crate::kept::delete_records(&tx, name).ctx(shown, context)?;
        let Some(id) = id else {
            tx.commit().ctx(shown, context)?;
            return Ok(false);
        };
        delete_plane_rows(&tx, id).ctx(shown, context)?;
        tx.execute("DELETE FROM planes WHERE id = ?1", [id]).ctx(shown, context)?;
        tx.commit().ctx(shown, context)?;
        self.text.remove_plane(name)?;
        Ok(true)
    }
}

/// Deletes the edges and nodes of plane `plane_id`: its edges are those leaving its nodes (see the
/// schema), found through the index of nodes by plane and the index of edges by source.
fn delete_plane_rows(conn: &Connection, plane_id: i64) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM edges WHERE src IN (SELECT id FROM nodes WHERE plane = ?1)", [plane_id])?;
    conn.execute("DELETE FROM nodes WHERE plane = ?1", [plane_id])?;
    Ok(())
}

/// Whether writing a plane of `symbols` first nodes is a bulk write: the rows of the other planes are few
/// beside the new plane's, so sorting the indexes once the rows are in costs less than inserting each
/// row into them (see `SECONDARY_INDEXES` in the schema module). A plane has a few edges per symbol; the
/// other planes' edges are counted (their nodes are fewer), and an empty database always writes in bulk.
/// Called once plane `plane_id`'s old rows are deleted, before its row has its new counts.
fn is_bulk(conn: &Connection, plane_id: i64, symbols: usize) -> rusqlite::Result<bool> {
    let others: i64 =
        conn.query_row("SELECT coalesce(sum(edge_count), 0) FROM planes WHERE id != ?1", [plane_id], |row| row.get(0))?;
    Ok(others < symbols as i64 * 2)
}

/// Nodes and edges of one streamed batch, borrowed or owned.
type Batch<'b> = (Cow<'b, [NodeData]>, Cow<'b, [NewEdge]>);

fn validate(meta: &PlaneMeta, nodes: &[NodeData], edges: &[NewEdge]) -> Result<()> {
    let invalid = |detail: String| Error::InvalidInput { plane: meta.name.clone(), detail };
    if meta.name.is_empty() {
        return Err(invalid("the plane name is empty".into()));
    }
    if let Some(node) = nodes.iter().find(|node| node.labels.is_empty()) {
        return Err(invalid(format!("node `{}` has no label", node.key)));
    }
    if let Some((i, edge)) = edges.iter().enumerate().find(|(_, e)| e.src >= nodes.len() || e.dst >= nodes.len()) {
        return Err(invalid(format!(
            "edge {i} ({} -> {}) points outside the {} nodes given",
            edge.src,
            edge.dst,
            nodes.len()
        )));
    }
    Ok(())
}

/// A key plane `plane_id` holds twice, when `error` is a broken uniqueness rule.
fn duplicated_key(conn: &Connection, plane_id: i64, error: &rusqlite::Error) -> Option<String> {
    if error.sqlite_error().map(|e| e.extended_code) != Some(rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE) {
        return None;
    }
    conn.query_row(
        "SELECT key FROM nodes WHERE plane = ?1 GROUP BY key HAVING count(*) > 1 ORDER BY key LIMIT 1",
        [plane_id],
        |row| row.get(0),
    )
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PlaneKind;

    fn synchronous(store: &Store) -> i64 {
        store.conn.query_row("PRAGMA synchronous", [], |row| row.get(0)).expect("synchronous")
    }

    #[test]
    fn only_a_first_write_skips_the_sync_and_the_connection_syncs_again_after_it() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open(&tmp.path().join("graph.drsg")).expect("open");
        // NORMAL once made (unsynced): a commit in WAL mode syncs the log at each checkpoint.
        assert_eq!(synchronous(&store), 1);
        let mode: String = store.conn.query_row("PRAGMA journal_mode", [], |row| row.get(0)).expect("mode");
        assert_eq!(mode, "wal");
        {
            // Another connection keeps the database in WAL mode, and the write then syncs.
            let _reader = store.reader().expect("reader").expect("on disk");
            assert!(!store.journal_first_write().expect("no switch"));
            assert_eq!(synchronous(&store), 1, "a write in WAL mode syncs");
        }
        assert!(store.journal_first_write().expect("switch"), "an empty database takes the rollback journal");
        assert_eq!(synchronous(&store), 0, "OFF for the first write");
        store.conn.pragma_update(None, "journal_mode", "WAL").expect("back");
        store.conn.pragma_update(None, "synchronous", "NORMAL").expect("back");

        let meta = PlaneMeta {
            name: "p".into(),
            kind: PlaneKind::Code,
            synced_commit: None,
            synced_root: None,
            built_by: serde_json::Value::Null,
            ledger: serde_json::Value::Null,
        };
        let node = NodeData {
            key: "p::f".into(),
            labels: vec!["Function".into()],
            name: "f".into(),
            file: Some("src/lib.rs".into()),
            line: Some(1),
            end_line: Some(2),
            props_json: String::new(),
        };
        store.replace_plane(&meta, std::slice::from_ref(&node), &[]).expect("first write");
        assert_eq!(synchronous(&store), 1, "the writes after the first sync again");
        // The database now holds a node: a second write keeps WAL mode and syncs.
        assert!(!store.journal_first_write().expect("no switch"));
        assert_eq!(synchronous(&store), 1);
        drop(store);
        // Opened again, an existing database syncs from the start.
        let store = Store::open(&tmp.path().join("graph.drsg")).expect("reopen");
        assert_eq!(synchronous(&store), 1);
    }
}
