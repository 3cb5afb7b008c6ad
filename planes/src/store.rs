//! The store: opening a database directory (or an in-memory twin), the lock, and plane writes.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, ToSql, TransactionBehavior, params};
use serde_json::Value;

use crate::bound::{Borrowed, Param};
use crate::error::{Error, Result};
use crate::lock::{DbLock, LOCK_FILE};
use crate::model::{NewEdge, NodeData, PlaneBatch, PlaneInfo, PlaneMeta};
use crate::schema::{self, FORMAT_VERSION, Format};
use crate::text::{Stamp, TextDoc, TextIndex, is_searchable};

/// The SQLite file inside the database directory.
pub const SQLITE_FILE: &str = "graph.sqlite";
/// The Tantivy index folder inside the database directory.
pub const TEXT_DIR: &str = "text";
/// The log folder inside the database directory (created by the store, written by the binaries).
pub const LOGS_DIR: &str = "logs";

/// Where `drsg init` records the server it started (written by the binary, not the store).
pub const SERVE_RECORD: &str = "serve.json";

/// Entries a directory may hold and still count as a drsg database (with `LOCK` or `graph.sqlite`).
const OWN_ENTRIES: &[&str] = &[
    LOCK_FILE,
    LOGS_DIR,
    TEXT_DIR,
    SQLITE_FILE,
    "graph.sqlite-wal",
    "graph.sqlite-shm",
    "graph.sqlite-journal",
    SERVE_RECORD,
];

/// A database: the SQLite graph of every plane, its text index, and the lock that makes this
/// process the only one using it.
///
/// Writes take `&mut self`; reads take `&self`. A store is `Send` but not `Sync`: a server shares it
/// behind a mutex.
pub struct Store {
    pub(crate) conn: Connection,
    pub(crate) text: TextIndex,
    /// The path as given by the caller, or `:memory:`.
    pub(crate) shown: PathBuf,
    dir: Option<PathBuf>,
    reconciled: Vec<String>,
    /// The planes with their counts, kept between writes: this process is the only writer (the lock), so
    /// they change only through `&mut self`.
    pub(crate) planes_cache: std::cell::RefCell<Option<Vec<crate::model::PlaneInfo>>>,
    /// A reader handle's view of other connections' writes (`PRAGMA data_version` when its plane
    /// list was cached); `None` for the writing handle, whose own writes keep its cache true.
    seen_version: Option<std::cell::Cell<i64>>,
    // Declared last so the lock is released only after SQLite and Tantivy are closed.
    _lock: Option<DbLock>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.shown).finish_non_exhaustive()
    }
}

/// What a directory holds before the store touches it.
enum DirState {
    Empty,
    Ours { has_sqlite: bool },
    Foreign,
}

impl Store {
    /// Opens the database directory at `path`, creating it (and the database) when missing.
    ///
    /// Fails without changing anything when `path` is a file, a non-empty directory that is not a
    /// drsg database, a database held by another process, or a database of a newer format.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_at(path, true)
    }

    /// Opens the database at `path`, which must exist: never creates a database.
    pub fn open_existing(path: &Path) -> Result<Store> {
        Store::open_at(path, false)
    }

    /// A fresh database in memory (SQLite `:memory:` and a Tantivy RAM index), with no lock.
    pub fn in_memory() -> Result<Store> {
        let shown = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().ctx(&shown, "opening an in-memory database")?;
        schema::set_up(&conn, false, true).ctx(&shown, "creating the schema")?;
        let text = TextIndex::in_memory(&shown)?;
        Ok(Store {
            conn,
            text,
            shown,
            dir: None,
            reconciled: Vec::new(),
            planes_cache: Default::default(),
            seen_version: None,
            _lock: None,
        })
    }

    fn open_at(path: &Path, create: bool) -> Result<Store> {
        let shown = path.to_path_buf();
        match std::fs::metadata(path) {
            Ok(meta) if !meta.is_dir() => return Err(Error::NotADirectory { path: shown }),
            Ok(_) => match inspect(path)? {
                DirState::Foreign => return Err(Error::NotADatabase { path: shown }),
                DirState::Empty | DirState::Ours { has_sqlite: false } if !create => {
                    return Err(Error::Missing { path: shown });
                }
                DirState::Empty | DirState::Ours { .. } => {}
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if !create {
                    return Err(Error::Missing { path: shown });
                }
                std::fs::create_dir_all(path).map_err(|source| Error::Io {
                    action: "create the database directory",
                    path: shown.clone(),
                    source,
                })?;
            }
            Err(source) => return Err(Error::Io { action: "inspect", path: shown, source }),
        }

        // Nothing is written before the lock is held, and nothing but the lock before the format
        // is known to be ours.
        let mut lock = DbLock::acquire(path, &shown)?;
        let conn = Connection::open(path.join(SQLITE_FILE)).ctx(&shown, "opening the database")?;
        let format = schema::check_format(&conn).map_err(|source| {
            if source.sqlite_error_code() == Some(rusqlite::ErrorCode::NotADatabase) {
                Error::NotADatabase { path: shown.clone() }
            } else {
                Error::Sqlite { path: shown.clone(), context: "reading the format version".into(), source }
            }
        })?;
        match format {
            Format::TooNew(found) => {
                return Err(Error::FormatTooNew { path: shown, found, supported: FORMAT_VERSION });
            }
            Format::Unknown(found) => return Err(Error::UnknownFormat { path: shown, found }),
            Format::Empty | Format::Current | Format::Earlier(_) => {}
        }
        lock.record_pid()?;
        let new = format == Format::Empty;
        let context = if new { "creating the schema" } else { "configuring the connection" };
        schema::set_up(&conn, true, new).ctx(&shown, context)?;
        if let Format::Earlier(from) = format {
            schema::upgrade(&conn, from).ctx(&shown, "upgrading the database's format")?;
        }
        let logs = path.join(LOGS_DIR);
        std::fs::create_dir_all(&logs).map_err(|source| Error::Io {
            action: "create the log directory",
            path: logs,
            source,
        })?;
        let text = TextIndex::open_dir(&path.join(TEXT_DIR), &shown)?;
        let mut store = Store {
            conn,
            text,
            shown,
            dir: Some(path.to_path_buf()),
            reconciled: Vec::new(),
            planes_cache: Default::default(),
            seen_version: None,
            _lock: Some(lock),
        };
        store.reconcile_text()?;
        Ok(store)
    }

    /// A second handle on this database that only reads, for another thread of this process (which
    /// holds the lock): reads on it go on while this handle writes. Use it through
    /// [`Store::snapshot`], which shows it the latest commit. `None` for an in-memory store.
    pub fn reader(&self) -> Result<Option<Store>> {
        let Some(dir) = &self.dir else { return Ok(None) };
        let shown = self.shown.clone();
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(dir.join(SQLITE_FILE), flags).ctx(&shown, "opening a reader")?;
        conn.pragma_update(None, "query_only", true).ctx(&shown, "configuring a reader")?;
        conn.pragma_update(None, "cache_size", -4096).ctx(&shown, "configuring a reader")?;
        conn.set_prepared_statement_cache_capacity(64);
        let text = TextIndex::open_reading(&dir.join(TEXT_DIR), &shown)?;
        Ok(Some(Store {
            conn,
            text,
            shown,
            dir: Some(dir.clone()),
            reconciled: Vec::new(),
            planes_cache: Default::default(),
            seen_version: Some(std::cell::Cell::new(-1)),
            _lock: None,
        }))
    }

    /// Runs `read` against one snapshot of the database: everything committed when it starts and
    /// nothing committed while it runs, so an answer never mixes two states of a plane. On a reader
    /// handle it first drops what it cached if another handle wrote since, and moves to the text
    /// index's newest commit.
    pub fn snapshot<R>(&self, read: impl FnOnce(&Store) -> R) -> Result<R> {
        if self.seen_version.is_none() {
            return Ok(read(self));
        }
        self.conn.execute_batch("BEGIN").ctx(&self.shown, "starting a read")?;
        let out = self.snapshot_inner(read);
        let end = self.conn.execute_batch("COMMIT").ctx(&self.shown, "ending a read");
        let out = out?;
        end?;
        Ok(out)
    }

    fn snapshot_inner<R>(&self, read: impl FnOnce(&Store) -> R) -> Result<R> {
        // The first read fixes the snapshot; the version then tells whether others wrote.
        self.conn.query_row("SELECT count(*) FROM meta", [], |_| Ok(())).ctx(&self.shown, "starting a read")?;
        let version: i64 =
            self.conn.query_row("PRAGMA data_version", [], |row| row.get(0)).ctx(&self.shown, "starting a read")?;
        if let Some(seen) = &self.seen_version
            && seen.replace(version) != version
        {
            self.planes_cache.borrow_mut().take();
        }
        // The text index commits after SQLite does: look for a newer commit on every read.
        self.text.refresh()?;
        Ok(read(self))
    }

    /// The database directory; `None` for an in-memory store.
    pub fn location(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Brings the text index in line with SQLite: rebuilds the documents of every plane whose
    /// generation differs from the one the index last committed, and drops those of planes that no
    /// longer exist. Runs on open; returns (and remembers) the planes it touched.
    pub fn reconcile_text(&mut self) -> Result<Vec<String>> {
        let mut truth = BTreeMap::new();
        {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT name, generation, synced_commit FROM planes WHERE kind = 'code'")
                .ctx(&self.shown, "listing planes")?;
            let rows = stmt
                .query_map([], |row| {
                    let generation: i64 = row.get(1)?;
                    Ok((row.get::<_, String>(0)?, Stamp { generation: generation as u64, commit: row.get(2)? }))
                })
                .ctx(&self.shown, "listing planes")?;
            for row in rows {
                let (name, stamp) = row.ctx(&self.shown, "listing planes")?;
                truth.insert(name, stamp);
            }
        }
        let conn = &self.conn;
        let shown = &self.shown;
        let mut load = |plane: &str, add: &mut dyn FnMut(TextDoc<'_>)| -> Result<()> {
            let context = "reading nodes to index";
            let mut stmt = conn
                .prepare_cached(
                    "SELECT n.id, n.key, n.name, n.label, n.file, n.props ->> '$.signature', n.props ->> '$.doc'
                     FROM nodes n JOIN planes p ON p.id = n.plane WHERE p.name = ?1",
                )
                .ctx(shown, context)?;
            let mut rows = stmt.query([plane]).ctx(shown, context)?;
            while let Some(row) = rows.next().ctx(shown, context)? {
                let text = |i| row.get_ref(i).ok().and_then(|v| v.as_str().ok());
                add(TextDoc {
                    node_id: row.get(0).ctx(shown, context)?,
                    key: text(1).unwrap_or_default(),
                    name: text(2).unwrap_or_default(),
                    label: text(3).unwrap_or_default(),
                    file: text(4),
                    signature: text(5).map(Cow::Borrowed),
                    doc: text(6).map(Cow::Borrowed),
                });
            }
            Ok(())
        };
        let changed = self.text.reconcile(&truth, &mut load)?;
        self.reconciled.clone_from(&changed);
        Ok(changed)
    }

    /// The planes whose text documents the last reconciliation rebuilt or dropped (at open, after
    /// a crash between a SQLite commit and the text commit, for instance).
    pub fn text_reconciled_planes(&self) -> &[String] {
        &self.reconciled
    }

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

    /// Deletes plane `name` with its nodes, edges and text documents; `false` when there was none.
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
        let Some(id) = id else { return Ok(false) };
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

/// Whether a plane's nodes get text documents: only code planes hold symbols that `search` ranks; the
/// history and deployment planes are read by their own verbs, and writing them costs no text commit.
pub(crate) fn has_text(meta: &PlaneMeta) -> bool {
    meta.kind == crate::model::PlaneKind::Code
}

/// Nodes and edges of one streamed batch, borrowed or owned.
type Batch<'b> = (Cow<'b, [NodeData]>, Cow<'b, [NewEdge]>);

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

/// Classifies an existing directory without touching it.
fn inspect(path: &Path) -> Result<DirState> {
    let io = |source| Error::Io { action: "list", path: path.to_path_buf(), source };
    let mut names = Vec::new();
    for entry in std::fs::read_dir(path).map_err(io)? {
        names.push(entry.map_err(io)?.file_name());
    }
    if names.is_empty() {
        return Ok(DirState::Empty);
    }
    let has = |wanted: &str| names.iter().any(|name| name == wanted);
    if has(SQLITE_FILE) {
        return Ok(if is_sqlite_or_empty(&path.join(SQLITE_FILE)) {
            DirState::Ours { has_sqlite: true }
        } else {
            DirState::Foreign
        });
    }
    // A database interrupted before its first SQLite write: only our own leftovers.
    if has(LOCK_FILE) && names.iter().all(|name| OWN_ENTRIES.iter().any(|own| name == own)) {
        return Ok(DirState::Ours { has_sqlite: false });
    }
    Ok(DirState::Foreign)
}

/// Whether a file starts like a SQLite database (or is empty: a creation cut short).
fn is_sqlite_or_empty(path: &Path) -> bool {
    use std::io::Read;
    const HEADER: &[u8] = b"SQLite format 3\0";
    let Ok(file) = std::fs::File::open(path) else { return false };
    let mut start = Vec::with_capacity(HEADER.len());
    match file.take(HEADER.len() as u64).read_to_end(&mut start) {
        Ok(_) => start.is_empty() || start == HEADER,
        Err(_) => false,
    }
}

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

/// Attaches the database path and what the store was doing to a SQLite error.
pub(crate) trait SqlContext<T> {
    fn ctx(self, shown: &Path, context: &str) -> Result<T>;
}

impl<T> SqlContext<T> for rusqlite::Result<T> {
    fn ctx(self, shown: &Path, context: &str) -> Result<T> {
        self.map_err(|source| Error::Sqlite { path: shown.to_path_buf(), context: context.to_owned(), source })
    }
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
