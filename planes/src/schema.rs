//! The SQLite schema, its format version and the connection settings.
//!
//! A new database file is switched to WAL mode and given its schema with `synchronous = OFF`, then
//! `NORMAL` whatever happened (`set_up`), as its first plane write is (see `write`). The temporary
//! store is in files (`temp_store = FILE`): SQLite's sorter packs a sort's records into one buffer
//! only then, which makes the bulk write's index builds about a fifth cheaper. Building the
//! secondary indexes is most of what SQLite costs an indexing run, so they are as few and as narrow
//! as the reads allow: key, name and label ahead of the plane, edges by source alone, and no index
//! of a plane's edges (its counts are kept in its row). An open of a format 1 database counts each
//! plane into its row and replaces its indexes (`upgrade`), in one transaction.

use rusqlite::{Connection, OptionalExtension};

/// The on-disk format this build writes and reads; recorded as `meta.format_version`.
///
/// Version 2 keeps each plane's node and edge counts in its `planes` row and indexes nodes by key, name and
/// label ahead of the plane (see `SECONDARY_INDEXES` in this module). A version 1 database is brought to
/// version 2 when it is opened (`upgrade`); a build of version 1 refuses a version 2 database, whose counts
/// it would not keep.
pub const FORMAT_VERSION: i64 = 2;

/// What `check_format` found in a database file.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// No tables at all: a new database.
    Empty,
    /// A drsg database of the current version.
    Current,
    /// A drsg database of an earlier version that [`upgrade`] brings to this one.
    Earlier(i64),
    /// A drsg database of a newer version.
    TooNew(i64),
    /// Tables but no readable version (another program's file, or damage).
    Unknown(String),
}

/// Reads the format version without writing anything.
pub(crate) fn check_format(conn: &Connection) -> rusqlite::Result<Format> {
    let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))?;
    if tables == 0 {
        return Ok(Format::Empty);
    }
    let has_meta: bool = conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta')",
        [],
        |row| row.get(0),
    )?;
    if !has_meta {
        return Ok(Format::Unknown("no meta table".to_owned()));
    }
    let value: Option<rusqlite::types::Value> =
        conn.query_row("SELECT value FROM meta WHERE key = 'format_version'", [], |row| row.get(0)).optional()?;
    let text = match value {
        None => return Ok(Format::Unknown("missing".to_owned())),
        Some(rusqlite::types::Value::Integer(n)) => n.to_string(),
        Some(rusqlite::types::Value::Text(text)) => text,
        Some(other) => return Ok(Format::Unknown(format!("{other:?}"))),
    };
    Ok(match text.trim().parse::<i64>() {
        Ok(FORMAT_VERSION) => Format::Current,
        Ok(n) if n > FORMAT_VERSION => Format::TooNew(n),
        Ok(n @ 1..FORMAT_VERSION) => Format::Earlier(n),
        _ => Format::Unknown(format!("`{text}`")),
    })
}

/// Connection settings for a database opened (`new`: with no schema yet, which is then made); WAL
/// only applies to a file database.
///
/// A `new` database is switched to WAL mode and its schema made with `synchronous = OFF`, then set to
/// `NORMAL` whatever happened: the switch and the schema go to the operating system's cache without
/// `fsync`. Only a crash of the operating system before it writes them out could lose them, and the
/// database held nothing; its first plane write is unsynced as well ([`crate::Store`]'s
/// `journal_first_write`), and the writes after that sync as usual. Those eleven syncs (six here, five
/// in the first write's switch of journal) kept `drsg index` waiting with a core idle: tokio 325.6 →
/// 322.8 ms (interleaved medians of 21).
pub(crate) fn set_up(conn: &Connection, on_disk: bool, new: bool) -> rusqlite::Result<()> {
    if on_disk && new {
        conn.pragma_update(None, "synchronous", "OFF")?;
    }
    let made = configure(conn, on_disk).and_then(|()| if new { create(conn) } else { Ok(()) });
    let synced = if on_disk { conn.pragma_update(None, "synchronous", "NORMAL") } else { Ok(()) };
    made.and(synced)
}

/// Connection settings, but for `synchronous`, which [`set_up`] sets; WAL only applies to a file
/// database.
fn configure(conn: &Connection, on_disk: bool) -> rusqlite::Result<()> {
    if on_disk {
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        debug_assert_eq!(mode.to_ascii_lowercase(), "wal");
    }
    conn.pragma_update(None, "foreign_keys", true)?;
    // A larger page cache keeps bulk writes of a few hundred thousand rows in memory.
    conn.pragma_update(None, "cache_size", -16384)?;
    // Temporary tables and sorts in files (held in the page cache until they outgrow it), not in memory:
    // SQLite's sorter packs the records of an in-memory sort into one buffer only when it may spill to a
    // file, and mallocs each record otherwise. Building the key, name and both edge indexes of Django's
    // plane took 0.30 s this way against 0.38 s (sqlite3 shell, two runs each).
    conn.pragma_update(None, "temp_store", "FILE")?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(())
}

/// Creates the tables of a new database and records the format version.
///
/// Nodes and edges carry their plane so that both a whole plane and the nodes of some files
/// (`nodes(plane, file)`) can be deleted and written again in one transaction. An edge joins two nodes of
/// its own plane, so a plane's edges are those leaving its nodes. A node's key is unique in its plane
/// through the index [`KEY_INDEX`] (databases created before it hold the same rule as a table constraint,
/// `UNIQUE(plane, key)`, which a bulk write cannot drop; see [`keyed_by_table`]). Each plane's row keeps
/// its node and edge counts, written with its rows.
fn create(conn: &Connection) -> rusqlite::Result<()> {
    let tx = conn.unchecked_transaction()?;
    tx.execute_batch(
        "CREATE TABLE IF NOT EXISTS meta(
             key   TEXT PRIMARY KEY,
             value TEXT NOT NULL
         ) WITHOUT ROWID;
         CREATE TABLE IF NOT EXISTS planes(
             id            INTEGER PRIMARY KEY,
             name          TEXT NOT NULL UNIQUE,
             kind          TEXT NOT NULL CHECK (kind IN ('code', 'git', 'ops')),
             synced_commit TEXT,
             synced_root   TEXT,
             built_by      TEXT NOT NULL DEFAULT 'null',
             ledger        TEXT NOT NULL DEFAULT 'null',
             generation    INTEGER NOT NULL DEFAULT 0,
             updated_at    INTEGER NOT NULL,
             node_count    INTEGER NOT NULL DEFAULT 0,
             edge_count    INTEGER NOT NULL DEFAULT 0
         );
         CREATE TABLE IF NOT EXISTS nodes(
             id       INTEGER PRIMARY KEY,
             plane    INTEGER NOT NULL REFERENCES planes(id) ON DELETE CASCADE,
             key      TEXT NOT NULL,
             label    TEXT NOT NULL,
             labels   TEXT NOT NULL,
             name     TEXT NOT NULL,
             file     TEXT,
             line     INTEGER,
             end_line INTEGER,
             props    TEXT
         );
         CREATE TABLE IF NOT EXISTS edges(
             id    INTEGER PRIMARY KEY,
             plane INTEGER NOT NULL REFERENCES planes(id) ON DELETE CASCADE,
             src   INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
             dst   INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
             type  TEXT NOT NULL,
             props TEXT
         );
         INSERT OR IGNORE INTO meta(key, value) VALUES ('last_generation', '0');",
    )?;
    create_secondary_indexes(&tx)?;
    tx.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('format_version', ?1)", [FORMAT_VERSION.to_string()])?;
    tx.commit()
}

/// The secondary indexes: a node by its key (unique in its plane), point lookup by name, file or label,
/// and 1-hop expansion from either end of an edge.
///
/// A bulk write drops them all and builds them once every row is in (see [`drop_bulk_indexes`]); other
/// writes keep them row by row. Sorting once is cheaper than inserting row by row even for the indexes
/// that only grow at their end as a plane's rows arrive (plane, file, label, source node): Django's plane
/// written with those four kept and the other three built after, against all seven built after, was 1.89 s
/// against 1.82 s of wall time, 3.51 against 3.46 s of CPU and 268 against 255 MB at peak (medians of 11,
/// interleaved; tokio 0.37 against 0.35 s).
///
/// Building them is most of what SQLite costs an indexing run, so there are as few as the reads need, each
/// as narrow as they allow:
/// - The key, name and label indexes lead with their own column, the plane last. Led by the plane, which
///   is one value in nearly every database, each comparison of their sort ties on it and falls through to
///   SQLite's general record comparison. One index still leads with the plane (`nodes_plane_file`): it
///   finds a plane's nodes, to delete them or to find its edges.
/// - No index finds a plane's edges: they are the edges leaving its nodes (an edge never joins two
///   planes), and its edge count is kept in its row. Scanning the edges table once more to index 287,000
///   plane numbers cost 0.56 G instructions on Django, more than the key index did.
/// - Edges are indexed by source node alone, whose edges are few (a function's calls and references) and
///   filtered by type as read; by target node with the type, as a hub's callers are read and counted by
///   type among thousands of edges.
///
/// On Django's plane (74,000 nodes, 287,000 edges; `valgrind` on the `sqlite3` shell), building this set
/// took 3.16 G instructions, against 4.21 G for the format 1 set (key, name and label after the plane,
/// edges by source and type, and by plane).
const SECONDARY_INDEXES: [SecondaryIndex; 6] = [
    SecondaryIndex { name: KEY_INDEX, unique: true, on: "nodes(key, plane)" },
    SecondaryIndex::of("nodes_name_nocase_plane", "nodes(name COLLATE NOCASE, plane)"),
    SecondaryIndex::of("nodes_plane_file", "nodes(plane, file, line)"),
    SecondaryIndex::of("nodes_label_plane", "nodes(label, plane)"),
    SecondaryIndex::of("edges_src", "edges(src)"),
    SecondaryIndex::of("edges_dst_type", "edges(dst, type)"),
];

struct SecondaryIndex {
    name: &'static str,
    unique: bool,
    /// Table and columns.
    on: &'static str,
}

impl SecondaryIndex {
    const fn of(name: &'static str, on: &'static str) -> SecondaryIndex {
        SecondaryIndex { name, unique: false, on }
    }
}

/// The index that keeps keys unique per plane.
pub(crate) const KEY_INDEX: &str = "nodes_key_plane";

/// Whether the nodes table itself keeps keys unique (`UNIQUE(plane, key)`, as databases created before
/// [`KEY_INDEX`] do); such a database has no [`KEY_INDEX`], and a bulk write keeps the constraint's index.
fn keyed_by_table(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE type = 'index' AND tbl_name = 'nodes' AND name LIKE 'sqlite_autoindex_%')",
        [],
        |row| row.get(0),
    )
}

/// Indexes of earlier formats (and earlier builds of format 1) that this one does not keep.
const RETIRED_INDEXES: [&str; 6] = [
    "edges_plane_type",
    "edges_plane",
    "edges_src_type",
    "nodes_plane_key",
    "nodes_plane_name_nocase",
    "nodes_plane_label",
];

/// Brings a database of format `from` to [`FORMAT_VERSION`] in one transaction: each plane's row gets its
/// node and edge counts (counted here, once), the retired indexes are dropped and this format's built.
pub(crate) fn upgrade(conn: &Connection, from: i64) -> rusqlite::Result<()> {
    debug_assert!(from < FORMAT_VERSION);
    let tx = conn.unchecked_transaction()?;
    // Format 1 has no count columns: this transaction adds them and sets the version together.
    tx.execute_batch(
        "ALTER TABLE planes ADD COLUMN node_count INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE planes ADD COLUMN edge_count INTEGER NOT NULL DEFAULT 0;",
    )?;
    tx.execute(
        "UPDATE planes SET node_count = (SELECT count(*) FROM nodes WHERE plane = planes.id),
                           edge_count = (SELECT count(*) FROM edges WHERE plane = planes.id)",
        [],
    )?;
    for name in RETIRED_INDEXES {
        tx.execute(&format!("DROP INDEX IF EXISTS {name}"), [])?;
    }
    create_secondary_indexes(&tx)?;
    tx.execute("UPDATE meta SET value = ?1 WHERE key = 'format_version'", [FORMAT_VERSION.to_string()])?;
    tx.commit()
}

/// Creates the secondary indexes that do not exist (in a database keyed by its table, all but
/// [`KEY_INDEX`]).
pub(crate) fn create_secondary_indexes(conn: &Connection) -> rusqlite::Result<()> {
    let keyed_by_table = keyed_by_table(conn)?;
    for SecondaryIndex { name, unique, on } in SECONDARY_INDEXES {
        if !(name == KEY_INDEX && keyed_by_table) {
            let unique = if unique { "UNIQUE " } else { "" };
            conn.execute(&format!("CREATE {unique}INDEX IF NOT EXISTS {name} ON {on}"), [])?;
        }
    }
    Ok(())
}

/// Drops the secondary indexes for a bulk write, inside its write transaction: readers keep them until
/// the commit, by which time [`create_secondary_indexes`] has built them again.
pub(crate) fn drop_bulk_indexes(conn: &Connection) -> rusqlite::Result<()> {
    for SecondaryIndex { name, .. } in SECONDARY_INDEXES {
        // In a database keyed by its table, the key index does not exist.
        conn.execute(&format!("DROP INDEX IF EXISTS {name}"), [])?;
    }
    Ok(())
}

/// Takes the next plane generation: a counter that never repeats within a database.
pub(crate) fn next_generation(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(
        "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'last_generation' RETURNING CAST(value AS INTEGER)",
        [],
        |row| row.get(0),
    )
}
