//! The store: opening a database directory (or an in-memory twin) under its lock, reader handles and
//! snapshots, and bringing the text index in line with SQLite. Plane writes are in `write`.
//!
//! Reader handles (`Store::reader`) are more connections of this process to the same database:
//! read-only (`query_only`), with no lock of their own, used through `Store::snapshot` (one read
//! transaction per call; a cached plane list dropped when `PRAGMA data_version` says another handle
//! wrote; the text reader moved to the newest commit).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::error::{Error, Result, SqlContext};
use crate::lock::{DbLock, LOCK_FILE};
use crate::schema::{self, FORMAT_VERSION, Format};
use crate::text::{Stamp, TextDoc, TextIndex};

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
