//! A code plane's kept state: what the indexer needs to fold the plane in a fresh process without reading
//! its whole tree again, stored beside the plane as one opaque record per source file.
//!
//! The records are valid for one generation of the plane, named in their header with the commit and an
//! identity string the indexer chooses (its build and the options that shape a record): a reader checks
//! all three and treats anything else as no state. A write either replaces every record of the plane or
//! changes the records of some files, the latter only when the records stored are those of the
//! generation the caller derived its own from; each is one transaction, header included.
//!
//! The tables are made on first write, so a database written by a build without them still opens, and
//! a build without them ignores them.
//!
//! Deleting a plane deletes its records.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use crate::error::{Result, SqlContext};
use crate::store::Store;

const TABLES: &str = "CREATE TABLE IF NOT EXISTS kept_planes(
         plane      TEXT PRIMARY KEY,
         generation INTEGER NOT NULL,
         commit_id  TEXT NOT NULL,
         identity   TEXT NOT NULL
     );
     CREATE TABLE IF NOT EXISTS kept_files(
         plane  TEXT NOT NULL,
         path   TEXT NOT NULL,
         blob   TEXT NOT NULL,
         record BLOB NOT NULL,
         PRIMARY KEY (plane, path)
     );";

/// Which state the records of a plane hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptHeader {
    /// The plane's generation the records describe.
    pub generation: u64,
    /// The commit the plane was synced to at that generation.
    pub commit: String,
    /// What else the records depend on, as the writer spells it.
    pub identity: String,
}

/// One source file's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptFile {
    pub path: String,
    /// The file's blob id at the header's commit.
    pub blob: String,
    pub record: Vec<u8>,
}

/// A write of a plane's records.
pub enum KeptWrite {
    /// Every record of the plane; the ones stored before go.
    Whole(Vec<KeptFile>),
    /// The records of the files that changed since the records of generation `since`: a path with a
    /// record replaces its own, `None` removes it. Written only when the stored header is at `since`.
    Since { since: u64, files: Vec<(String, Option<KeptFile>)> },
}

impl Store {
    /// The header of plane `plane`'s records, if it has any.
    pub fn kept_header(&self, plane: &str) -> Result<Option<KeptHeader>> {
        let context = "reading a plane's kept state";
        if !has_tables(&self.conn).ctx(&self.shown, context)? {
            return Ok(None);
        }
        self.conn
            .query_row("SELECT generation, commit_id, identity FROM kept_planes WHERE plane = ?1", [plane], |row| {
                Ok(KeptHeader { generation: row.get::<_, i64>(0)? as u64, commit: row.get(1)?, identity: row.get(2)? })
            })
            .optional()
            .ctx(&self.shown, context)
    }

    /// Every record of plane `plane`, by path.
    pub fn kept_files(&self, plane: &str) -> Result<Vec<KeptFile>> {
        let context = "reading a plane's kept state";
        if !has_tables(&self.conn).ctx(&self.shown, context)? {
            return Ok(Vec::new());
        }
        let read = || -> rusqlite::Result<Vec<KeptFile>> {
            let mut statement =
                self.conn.prepare_cached("SELECT path, blob, record FROM kept_files WHERE plane = ?1 ORDER BY path")?;
            let rows = statement
                .query_map([plane], |row| Ok(KeptFile { path: row.get(0)?, blob: row.get(1)?, record: row.get(2)? }))?;
            rows.collect()
        };
        read().ctx(&self.shown, context)
    }

    /// Writes plane `plane`'s records as `header` says; `false` (and nothing written) for a
    /// [`KeptWrite::Since`] whose base generation is not the one stored.
    pub fn keep(&mut self, plane: &str, header: &KeptHeader, write: KeptWrite) -> Result<bool> {
        let shown = self.shown.clone();
        let context = "writing a plane's kept state";
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx(&shown, context)?;
        let written = (|| -> rusqlite::Result<bool> {
            tx.execute_batch(TABLES)?;
            match write {
                KeptWrite::Whole(files) => {
                    tx.execute("DELETE FROM kept_files WHERE plane = ?1", [plane])?;
                    let mut insert =
                        tx.prepare_cached("INSERT INTO kept_files(plane, path, blob, record) VALUES (?1, ?2, ?3, ?4)")?;
                    for file in &files {
                        insert.execute(rusqlite::params![plane, file.path, file.blob, file.record])?;
                    }
                }
                KeptWrite::Since { since, files } => {
                    let stored: Option<i64> = tx
                        .query_row("SELECT generation FROM kept_planes WHERE plane = ?1", [plane], |row| row.get(0))
                        .optional()?;
                    if stored != Some(since as i64) {
                        return Ok(false);
                    }
                    let mut upsert = tx.prepare_cached(
                        "INSERT OR REPLACE INTO kept_files(plane, path, blob, record) VALUES (?1, ?2, ?3, ?4)",
                    )?;
                    let mut delete = tx.prepare_cached("DELETE FROM kept_files WHERE plane = ?1 AND path = ?2")?;
                    for (path, file) in &files {
                        match file {
                            Some(file) => upsert.execute(rusqlite::params![plane, path, file.blob, file.record])?,
                            None => delete.execute(rusqlite::params![plane, path])?,
                        };
                    }
                }
            }
            tx.execute(
                "INSERT OR REPLACE INTO kept_planes(plane, generation, commit_id, identity) VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![plane, header.generation as i64, header.commit, header.identity],
            )?;
            Ok(true)
        })()
        .ctx(&shown, context)?;
        if written {
            tx.commit().ctx(&shown, context)?;
        }
        Ok(written)
    }

    /// Removes plane `plane`'s records.
    pub fn forget_kept(&mut self, plane: &str) -> Result<()> {
        let context = "removing a plane's kept state";
        if !has_tables(&self.conn).ctx(&self.shown, context)? {
            return Ok(());
        }
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx(&self.shown, context)?;
        delete_records(&tx, plane).ctx(&self.shown, context)?;
        tx.commit().ctx(&self.shown, context)
    }

    /// Bytes of plane `plane`'s records.
    pub fn kept_bytes(&self, plane: &str) -> Result<u64> {
        let context = "reading a plane's kept state";
        if !has_tables(&self.conn).ctx(&self.shown, context)? {
            return Ok(0);
        }
        self.conn
            .query_row(
                "SELECT coalesce(sum(length(record) + length(path) + length(blob)), 0) FROM kept_files WHERE plane = ?1",
                [plane],
                |row| row.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .ctx(&self.shown, context)
    }
}

fn has_tables(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) = 2 FROM sqlite_master WHERE type = 'table' AND name IN ('kept_planes', 'kept_files')",
        [],
        |row| row.get(0),
    )
}

/// Deletes plane `plane`'s records and header, if the tables exist.
pub(crate) fn delete_records(conn: &Connection, plane: &str) -> rusqlite::Result<()> {
    if has_tables(conn)? {
        conn.execute("DELETE FROM kept_files WHERE plane = ?1", [plane])?;
        conn.execute("DELETE FROM kept_planes WHERE plane = ?1", [plane])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, blob: &str, record: &[u8]) -> KeptFile {
        KeptFile { path: path.to_owned(), blob: blob.to_owned(), record: record.to_vec() }
    }

    fn header(generation: u64) -> KeptHeader {
        KeptHeader { generation, commit: format!("c{generation}"), identity: "id".to_owned() }
    }

    #[test]
    fn records_are_written_whole_then_by_difference_from_the_generation_stored() {
        let mut store = Store::in_memory().expect("store");
        assert_eq!(store.kept_header("p").expect("read"), None);
        assert!(store.kept_files("p").expect("read").is_empty());
        let whole = vec![file("a.rs", "1", b"A"), file("b.rs", "2", b"B")];
        assert!(store.keep("p", &header(3), KeptWrite::Whole(whole.clone())).expect("write"));
        assert_eq!(store.kept_header("p").expect("read"), Some(header(3)));
        assert_eq!(store.kept_files("p").expect("read"), whole);

        // A difference from a generation that is not the stored one writes nothing.
        let stale = KeptWrite::Since { since: 2, files: vec![("a.rs".to_owned(), None)] };
        assert!(!store.keep("p", &header(4), stale).expect("write"));
        assert_eq!(store.kept_header("p").expect("read"), Some(header(3)));
        assert_eq!(store.kept_files("p").expect("read"), whole);

        let files = vec![
            ("a.rs".to_owned(), None),
            ("b.rs".to_owned(), Some(file("b.rs", "3", b"B2"))),
            ("c.rs".to_owned(), Some(file("c.rs", "4", b"C"))),
        ];
        assert!(store.keep("p", &header(4), KeptWrite::Since { since: 3, files }).expect("write"));
        assert_eq!(store.kept_header("p").expect("read"), Some(header(4)));
        assert_eq!(store.kept_files("p").expect("read"), vec![file("b.rs", "3", b"B2"), file("c.rs", "4", b"C")]);
        assert_eq!(store.kept_bytes("p").expect("size"), (4 + 1 + 2) + (4 + 1 + 1));

        // Another plane's records are its own; forgetting one leaves the other.
        assert!(store.keep("q", &header(9), KeptWrite::Whole(vec![file("x.py", "5", b"X")])).expect("write"));
        store.forget_kept("p").expect("forget");
        assert_eq!(store.kept_header("p").expect("read"), None);
        assert!(store.kept_files("p").expect("read").is_empty());
        assert_eq!(store.kept_files("q").expect("read").len(), 1);
    }

    #[test]
    fn deleting_a_plane_forgets_its_records() {
        let mut store = Store::in_memory().expect("store");
        assert!(store.keep("p", &header(1), KeptWrite::Whole(vec![file("a.rs", "1", b"A")])).expect("write"));
        store.delete_plane("p").expect("delete");
        assert_eq!(store.kept_header("p").expect("read"), None);
        assert!(store.kept_files("p").expect("read").is_empty());
    }
}
