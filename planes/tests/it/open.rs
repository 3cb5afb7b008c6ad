//! Opening databases: creation, the lock, refusals that leave the disk unchanged, format versions.

use std::path::Path;

use drsg_planes::{Error, Store};

use crate::fixture::{demo_database, demo_plane};

/// Names in a directory, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).expect("list").map(|e| e.expect("entry").file_name().to_string_lossy().into()).collect();
    names.sort();
    names
}

#[test]
fn open_creates_the_database_layout() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    let store = Store::open(&db).expect("open");
    assert_eq!(store.location(), Some(db.as_path()));
    let names = listing(&db);
    for wanted in ["LOCK", "graph.sqlite", "logs", "text"] {
        assert!(names.iter().any(|n| n == wanted), "{wanted} missing from {names:?}");
    }
    let pid = std::fs::read_to_string(db.join("LOCK")).expect("read LOCK");
    assert_eq!(pid.trim(), std::process::id().to_string());
    let conn = rusqlite::Connection::open(db.join("graph.sqlite")).expect("sqlite");
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).expect("journal mode");
    assert_eq!(mode, "wal");
    let version: String =
        conn.query_row("SELECT value FROM meta WHERE key = 'format_version'", [], |r| r.get(0)).expect("version");
    assert_eq!(version, "2");
}

#[test]
fn open_accepts_an_empty_directory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = Store::open(tmp.path()).expect("open empty dir");
    assert!(store.planes().expect("planes").is_empty());
}

#[test]
fn second_open_is_refused_while_the_first_is_alive() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    let mut first = Store::open(&db).expect("first open");
    let (meta, nodes, edges) = demo_plane("demo");
    first.replace_plane(&meta, &nodes, &edges).expect("write");

    // Linux flock locks belong to the open file description, so a second handle in this process
    // conflicts just like another process would.
    let err = Store::open(&db).expect_err("second open must fail");
    let message = err.to_string();
    match err {
        Error::Locked { path, pid } => {
            assert_eq!(path, db);
            assert_eq!(pid, Some(std::process::id()));
        }
        other => panic!("expected Locked, got {other:?}"),
    }
    assert!(message.contains("drsg serve"), "{message}");
    assert!(message.contains(&format!("(pid {})", std::process::id())), "{message}");
    assert!(matches!(Store::open_existing(&db), Err(Error::Locked { .. })));

    // The first store keeps working, and nothing was damaged.
    let info = first.replace_plane(&meta, &nodes[..3], &edges[..2]).expect("write after refused open");
    assert_eq!((info.node_count, info.edge_count), (3, 2));
    drop(first);
    let reopened = Store::open_existing(&db).expect("reopen after the first closed");
    let info = reopened.plane("demo").expect("plane").expect("demo exists");
    assert_eq!((info.node_count, info.edge_count), (3, 2));
    let pid = std::fs::read_to_string(db.join("LOCK")).expect("read LOCK");
    assert_eq!(pid.trim(), std::process::id().to_string());
}

#[test]
fn stale_lock_file_is_taken_over() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    drop(Store::open(&db).expect("create"));
    std::fs::write(db.join("LOCK"), "999999999\n").expect("write stale pid");
    let _store = Store::open(&db).expect("a LOCK without a live holder does not block");
    let pid = std::fs::read_to_string(db.join("LOCK")).expect("read LOCK");
    assert_eq!(pid.trim(), std::process::id().to_string());
}

#[test]
fn regular_file_is_not_a_directory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("graph.drsg");
    std::fs::write(&file, "precious").expect("write");
    for open in [Store::open, Store::open_existing] {
        let err = open(&file).expect_err("a file is not a database");
        assert!(matches!(&err, Error::NotADirectory { path } if *path == file), "{err:?}");
        assert_eq!(err.to_string(), format!("{} is a file, not a drsg database directory", file.display()));
    }
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "precious");
    assert_eq!(listing(tmp.path()), ["graph.drsg"]);
}

#[test]
fn foreign_directory_is_refused_untouched() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("notes.txt"), "mine").expect("write");
    std::fs::create_dir(tmp.path().join("logs")).expect("mkdir");
    for open in [Store::open, Store::open_existing] {
        let err = open(tmp.path()).expect_err("foreign directory");
        assert!(matches!(err, Error::NotADatabase { .. }), "{err:?}");
    }
    assert_eq!(listing(tmp.path()), ["logs", "notes.txt"]);
    assert!(listing(&tmp.path().join("logs")).is_empty());
}

#[test]
fn foreign_sqlite_file_is_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("graph.sqlite"), "not sqlite at all, just some bytes that are long enough")
        .expect("write");
    let err = Store::open(tmp.path()).expect_err("garbage sqlite");
    assert!(matches!(err, Error::NotADatabase { .. }), "{err:?}");
    assert_eq!(listing(tmp.path()), ["graph.sqlite"], "nothing was added");
}

#[test]
fn open_existing_never_creates() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    let err = Store::open_existing(&db).expect_err("missing");
    assert!(matches!(&err, Error::Missing { path } if *path == db), "{err:?}");
    assert!(err.to_string().contains("run `drsg index` or `drsg init` first"), "{err}");
    assert!(!db.exists());

    std::fs::create_dir(&db).expect("mkdir");
    assert!(matches!(Store::open_existing(&db), Err(Error::Missing { .. })));
    assert!(listing(&db).is_empty());
}

/// Creates a database, then sets `meta.format_version` by hand.
fn database_with_version(version: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    drop(Store::open(&db).expect("create"));
    let conn = rusqlite::Connection::open(db.join("graph.sqlite")).expect("sqlite");
    conn.execute("UPDATE meta SET value = ?1 WHERE key = 'format_version'", [version]).expect("set version");
    (tmp, db)
}

fn check_format_refused(version: &str, expected: &str) {
    let (_tmp, db) = database_with_version(version);
    let before = listing(&db);
    let err = Store::open(&db).expect_err("open must fail");
    let rendered = match &err {
        Error::FormatTooNew { found, supported, .. } => format!("too new: {found} > {supported}"),
        Error::UnknownFormat { found, .. } => format!("unknown: {found}"),
        other => panic!("unexpected error {other:?}"),
    };
    assert_eq!(rendered, expected, "{err}");
    assert_eq!(listing(&db), before, "a refused open leaves the directory as it was");
    let conn = rusqlite::Connection::open(db.join("graph.sqlite")).expect("sqlite");
    let stored: String =
        conn.query_row("SELECT value FROM meta WHERE key = 'format_version'", [], |r| r.get(0)).expect("version");
    assert_eq!(stored, version);
}

#[test]
fn format_versions() {
    check_format_refused("3", "too new: 3 > 2");
    check_format_refused("garbage", "unknown: `garbage`");
    check_format_refused("0", "unknown: `0`");
}

#[test]
fn format_too_new_message() {
    let (_tmp, db) = database_with_version("7");
    let err = Store::open_existing(&db).expect_err("too new");
    assert_eq!(
        err.to_string(),
        format!(
            "database {} has format version 7, newer than version 2 that this drsg supports; upgrade drsg",
            db.display()
        )
    );
}

#[test]
fn store_is_send() {
    fn assert_send<T: Send>() {}
    assert_send::<Store>();
}

/// Bytes in the database's write-ahead log (0 when there is none).
fn wal_bytes(db: &Path) -> u64 {
    std::fs::metadata(db.join("graph.sqlite-wal")).map_or(0, |m| m.len())
}

#[test]
fn a_first_write_skips_the_log_and_leaves_the_database_in_wal_mode() {
    let (_tmp, db, mut store) = demo_database();
    // Through a rollback journal, the rows went straight to the database file: nothing is in a log.
    assert_eq!(wal_bytes(&db), 0, "{:?}", listing(&db));
    assert!(!listing(&db).iter().any(|n| n.ends_with("-journal")), "no journal is left behind");
    // The second write logs as usual, and the mode is WAL again for readers beside the writer.
    let (other, nodes, edges) = demo_plane("other");
    store.replace_plane(&other, &nodes, &edges).expect("second write");
    assert!(wal_bytes(&db) > 0);
    let conn = rusqlite::Connection::open(db.join("graph.sqlite")).expect("sqlite");
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).expect("journal mode");
    assert_eq!(mode, "wal");
    assert_eq!(store.planes().expect("planes").len(), 2);
    // The first write was a bulk one: the indexes it dropped were built again.
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .expect("prepare");
    let indexes: Vec<String> = stmt.query_map([], |r| r.get(0)).expect("query").map(|n| n.expect("name")).collect();
    assert_eq!(
        indexes,
        [
            "edges_dst_type",
            "edges_src",
            "nodes_key_plane",
            "nodes_label_plane",
            "nodes_name_nocase_plane",
            "nodes_plane_file"
        ]
    );
}

/// The names of a database's indexes, those SQLite makes for table constraints included.
fn index_names(db: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(db.join("graph.sqlite")).expect("sqlite");
    let mut stmt = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name").expect("prepare");
    stmt.query_map([], |r| r.get(0)).expect("query").map(|n| n.expect("name")).collect()
}

#[test]
fn a_bulk_write_with_a_key_used_twice_is_refused_and_writes_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    let mut store = Store::open(&db).expect("open");
    let (meta, mut nodes, edges) = demo_plane("demo");
    let twice = nodes[1].key.clone();
    nodes.push(nodes[1].clone());
    // A first write is a bulk one: keys are checked when their index is built, once every row is in.
    let err = store.replace_plane(&meta, &nodes, &edges).expect_err("a key used twice");
    assert!(matches!(&err, Error::DuplicateKey { plane, key } if plane == "demo" && *key == twice), "{err:?}");
    assert!(store.planes().expect("planes").is_empty());
    assert!(index_names(&db).contains(&"nodes_key_plane".to_owned()), "the rollback restored the index");
    nodes.pop();
    store.replace_plane(&meta, &nodes, &edges).expect("the same plane without the second copy");
}

#[test]
fn a_database_whose_table_keeps_keys_unique_keeps_working_without_a_key_index() {
    // The layout of databases created before the key had an index of its own: the rule is a table
    // constraint.
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    std::fs::create_dir_all(&db).expect("mkdir");
    let conn = rusqlite::Connection::open(db.join("graph.sqlite")).expect("sqlite");
    conn.execute_batch(
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
         CREATE TABLE planes(
             id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
             kind TEXT NOT NULL CHECK (kind IN ('code', 'git', 'ops')), synced_commit TEXT, synced_root TEXT,
             built_by TEXT NOT NULL DEFAULT 'null', ledger TEXT NOT NULL DEFAULT 'null',
             generation INTEGER NOT NULL DEFAULT 0, updated_at INTEGER NOT NULL);
         CREATE TABLE nodes(
             id INTEGER PRIMARY KEY, plane INTEGER NOT NULL REFERENCES planes(id) ON DELETE CASCADE,
             key TEXT NOT NULL, label TEXT NOT NULL, labels TEXT NOT NULL, name TEXT NOT NULL, file TEXT,
             line INTEGER, end_line INTEGER, props TEXT, UNIQUE(plane, key));
         CREATE TABLE edges(
             id INTEGER PRIMARY KEY, plane INTEGER NOT NULL REFERENCES planes(id) ON DELETE CASCADE,
             src INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
             dst INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE, type TEXT NOT NULL, props TEXT);
         CREATE INDEX nodes_plane_name_nocase ON nodes(plane, name COLLATE NOCASE);
         CREATE INDEX nodes_plane_file ON nodes(plane, file, line);
         CREATE INDEX nodes_plane_label ON nodes(plane, label);
         CREATE INDEX edges_src_type ON edges(src, type);
         CREATE INDEX edges_dst_type ON edges(dst, type);
         CREATE INDEX edges_plane_type ON edges(plane, type);
         INSERT INTO meta(key, value) VALUES ('last_generation', '0'), ('format_version', '1');",
    )
    .expect("the earlier layout");
    drop(conn);

    let mut store = Store::open(&db).expect("open");
    let (meta, mut nodes, edges) = demo_plane("demo");
    let info = store.replace_plane(&meta, &nodes, &edges).expect("a bulk write");
    assert_eq!(info.node_count, nodes.len() as u64);
    let key = nodes[1].key.clone();
    assert!(store.node_by_key(info.id, &key).expect("lookup").is_some());
    let indexes = index_names(&db);
    assert!(!indexes.contains(&"nodes_key_plane".to_owned()), "{indexes:?}");
    // Format 1's indexes were replaced by this format's when the store opened.
    assert_eq!(
        indexes,
        [
            "edges_dst_type",
            "edges_src",
            "nodes_label_plane",
            "nodes_name_nocase_plane",
            "nodes_plane_file",
            "sqlite_autoindex_nodes_1",
            "sqlite_autoindex_planes_1"
        ]
    );
    // The table's constraint still refuses a key used twice.
    nodes.push(nodes[1].clone());
    let err = store.replace_plane(&meta, &nodes, &edges).expect_err("a key used twice");
    assert!(matches!(&err, Error::DuplicateKey { key: twice, .. } if *twice == key), "{err:?}");
}

#[test]
fn a_first_write_with_a_reader_open_stays_in_wal_mode_and_the_reader_sees_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    let mut store = Store::open(&db).expect("open");
    let reader = store.reader().expect("reader").expect("a file database has readers");
    assert!(reader.snapshot(|r| r.planes().expect("planes").is_empty()).expect("read"));
    let (meta, nodes, edges) = demo_plane("demo");
    store.replace_plane(&meta, &nodes, &edges).expect("first write");
    // The reader's connection keeps the log in use, so the write went through it.
    assert!(wal_bytes(&db) > 0);
    let names = reader.snapshot(|r| r.planes().expect("planes").into_iter().map(|p| p.meta.name).collect::<Vec<_>>());
    assert_eq!(names.expect("read"), ["demo"]);
}

/// Turns the version 2 database at `db` into the layout format 1 wrote: no counts in the planes' rows,
/// the plane ahead of key, name and label in their indexes, edges indexed by source and type and by plane.
fn make_format_1(db: &Path) {
    let conn = rusqlite::Connection::open(db.join("graph.sqlite")).expect("sqlite");
    conn.execute_batch(
        "DROP INDEX nodes_key_plane; DROP INDEX nodes_name_nocase_plane; DROP INDEX nodes_label_plane;
         DROP INDEX edges_src;
         ALTER TABLE planes DROP COLUMN node_count; ALTER TABLE planes DROP COLUMN edge_count;
         CREATE UNIQUE INDEX nodes_plane_key ON nodes(plane, key);
         CREATE INDEX nodes_plane_name_nocase ON nodes(plane, name COLLATE NOCASE);
         CREATE INDEX nodes_plane_label ON nodes(plane, label);
         CREATE INDEX edges_src_type ON edges(src, type);
         CREATE INDEX edges_plane ON edges(plane);
         UPDATE meta SET value = '1' WHERE key = 'format_version';",
    )
    .expect("the format 1 layout");
}

#[test]
fn a_format_1_database_is_upgraded_when_opened_and_keeps_its_planes() {
    let (_tmp, db, mut store) = demo_database();
    let (other, other_nodes, mut other_edges) = demo_plane("other");
    other_edges.truncate(4);
    store.replace_plane(&other, &other_nodes, &other_edges).expect("a second plane");
    let before: Vec<_> =
        store.planes().expect("planes").into_iter().map(|p| (p.meta.name, p.node_count, p.edge_count)).collect();
    assert_eq!(before, [("demo".to_owned(), 6, 6), ("other".to_owned(), 6, 4)]);
    let edges_before =
        store.edges(store.plane("demo").expect("read").expect("the demo plane").id, None).expect("edges");
    drop(store);
    make_format_1(&db);

    let mut store = Store::open(&db).expect("an upgrading open");
    let version = |db: &Path| -> String {
        let conn = rusqlite::Connection::open(db.join("graph.sqlite")).expect("sqlite");
        conn.query_row("SELECT value FROM meta WHERE key = 'format_version'", [], |r| r.get(0)).expect("version")
    };
    assert_eq!(version(&db), "2");
    let after: Vec<_> =
        store.planes().expect("planes").into_iter().map(|p| (p.meta.name, p.node_count, p.edge_count)).collect();
    assert_eq!(after, before, "each plane's counts were counted into its row");
    assert_eq!(
        index_names(&db),
        [
            "edges_dst_type",
            "edges_src",
            "nodes_key_plane",
            "nodes_label_plane",
            "nodes_name_nocase_plane",
            "nodes_plane_file",
            "sqlite_autoindex_planes_1"
        ]
    );
    let demo = store.plane("demo").expect("read").expect("the demo plane");
    assert_eq!(store.edges(demo.id, None).expect("edges"), edges_before);
    assert!(store.node_by_key(demo.id, "demo::HttpServer::serve").expect("lookup").is_some());
    // Writes keep the counts from there.
    assert!(store.delete_plane("other").expect("delete"));
    let (meta, nodes, edges) = demo_plane("demo");
    let info = store.replace_plane(&meta, &nodes[..4], &edges[..3]).expect("a smaller plane");
    assert_eq!((info.node_count, info.edge_count), (4, 3));
    drop(store);
    // A second open finds the current format and changes nothing.
    let listed = index_names(&db);
    let store = Store::open(&db).expect("open again");
    assert_eq!(version(&db), "2");
    assert_eq!(index_names(&db), listed);
    let planes: Vec<_> =
        store.planes().expect("planes").into_iter().map(|p| (p.meta.name, p.node_count, p.edge_count)).collect();
    assert_eq!(planes, [("demo".to_owned(), 4, 3)]);
}
