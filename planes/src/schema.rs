//! The SQLite schema, its format version and the connection settings.

use rusqlite::{Connection, OptionalExtension};

/// The on-disk format this build writes and reads; recorded as `meta.format_version`.
pub const FORMAT_VERSION: i64 = 1;

/// What `check_format` found in a database file.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// No tables at all: a new database.
    Empty,
    /// A drsg database of the current version.
    Current,
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
        _ => Format::Unknown(format!("`{text}`")),
    })
}

/// Connection settings; WAL only applies to a file database.
pub(crate) fn configure(conn: &Connection, on_disk: bool) -> rusqlite::Result<()> {
    if on_disk {
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        debug_assert_eq!(mode.to_ascii_lowercase(), "wal");
        conn.pragma_update(None, "synchronous", "NORMAL")?;
    }
    conn.pragma_update(None, "foreign_keys", true)?;
    // A larger page cache keeps bulk writes of a few hundred thousand rows in memory.
    conn.pragma_update(None, "cache_size", -16384)?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(())
}

/// Creates the tables of a new database and records the format version.
///
/// Nodes and edges carry their plane so that both a whole plane and the nodes of some files
/// (`nodes(plane, file)`) can be deleted and written again in one transaction.
pub(crate) fn create(conn: &Connection) -> rusqlite::Result<()> {
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
             updated_at    INTEGER NOT NULL
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
             props    TEXT,
             UNIQUE(plane, key)
         );
         CREATE INDEX IF NOT EXISTS nodes_plane_name_nocase ON nodes(plane, name COLLATE NOCASE);
         CREATE INDEX IF NOT EXISTS nodes_plane_file ON nodes(plane, file, line);
         CREATE INDEX IF NOT EXISTS nodes_plane_label ON nodes(plane, label);
         CREATE TABLE IF NOT EXISTS edges(
             id    INTEGER PRIMARY KEY,
             plane INTEGER NOT NULL REFERENCES planes(id) ON DELETE CASCADE,
             src   INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
             dst   INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
             type  TEXT NOT NULL,
             props TEXT
         );
         CREATE INDEX IF NOT EXISTS edges_src_type ON edges(src, type);
         CREATE INDEX IF NOT EXISTS edges_dst_type ON edges(dst, type);
         CREATE INDEX IF NOT EXISTS edges_plane_type ON edges(plane, type);
         INSERT OR IGNORE INTO meta(key, value) VALUES ('last_generation', '0');",
    )?;
    tx.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('format_version', ?1)", [FORMAT_VERSION.to_string()])?;
    tx.commit()
}

/// Takes the next plane generation: a counter that never repeats within a database.
pub(crate) fn next_generation(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(
        "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'last_generation' RETURNING CAST(value AS INTEGER)",
        [],
        |row| row.get(0),
    )
}
