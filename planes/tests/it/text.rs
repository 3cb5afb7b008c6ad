//! The text index: tokenizer, search, plane filter and reconciliation with SQLite.

use drsg_planes::{Store, identifier_terms};
use serde_json::json;

use crate::fixture::{demo_database, demo_plane, meta, node, search_keys};

fn check_terms(text: &str, expected: &str) {
    assert_eq!(identifier_terms(text).join(" "), expected, "terms of {text:?}");
}

#[test]
fn identifier_tokenizer() {
    check_terms("HTTPServer", "http server httpserver");
    check_terms("parseJSONBody", "parse json body parsejsonbody");
    check_terms("snake_case", "snake case snake_case");
    check_terms("__init__", "init __init__");
    check_terms("connect", "connect");
    check_terms("my_crate::net::Client::connect", "my crate my_crate net client connect");
    check_terms("src/api/client.rs", "src api client rs");
    check_terms("utf8Decode base64", "utf8 decode utf8decode base64");
    check_terms("XMLHttpRequest2", "xml http request2 xmlhttprequest2");
    check_terms("fn f(x: &str) -> Ähnlich", "fn f x str ähnlich");
    check_terms("  _ -- ", "");
    check_terms("", "");
}

#[test]
fn search_finds_identifiers_by_their_words() {
    let mut store = Store::in_memory().expect("store");
    let (meta, nodes, edges) = demo_plane("demo");
    let plane = store.replace_plane(&meta, &nodes, &edges).expect("write").id;
    let search = |query| search_keys(&store, Some(plane), query);

    assert_eq!(search("json body").first().map(String::as_str), Some("demo::parseJSONBody"));
    assert_eq!(search("parse_json").first().map(String::as_str), Some("demo::parseJSONBody"));
    assert_eq!(search("parseJSONBody").first().map(String::as_str), Some("demo::parseJSONBody"));
    assert_eq!(search("HTTPServer").first().map(String::as_str), Some("demo::HttpServer"));
    assert_eq!(search("serve"), ["demo::HttpServer::serve"]);
    // `doc` is stemmed English: "parsing requests" meets "Parses the body of a request".
    assert_eq!(search("requests"), ["demo::parseJSONBody"]);
    // Found by file.
    assert!(search("server.rs").contains(&"demo::HttpServer::serve".to_owned()));
    // Stand-ins are not indexed.
    assert!(search("read").is_empty());
    assert!(search("frobnicate").is_empty());
    // Any text is accepted; text without terms finds nothing.
    for query in ["", "   ", "-- ()", "title:\"unbalanced AND (", "*"] {
        assert!(store.search(Some(plane), query, 10).expect("lenient").len() <= 1, "{query:?}");
    }
    assert!(store.search(Some(plane), "", 10).expect("empty").is_empty());
    assert!(store.search(Some(plane), "json", 0).expect("k = 0").is_empty());
    assert!(store.search(Some(plane + 100), "json", 10).expect("unknown plane").is_empty());

    let scores: Vec<f32> = store.search(Some(plane), "http server", 10).expect("search").iter().map(|h| h.1).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "best first: {scores:?}");
}

#[test]
fn search_plane_filter() {
    let mut store = Store::in_memory().expect("store");
    let (meta_a, nodes, edges) = demo_plane("a");
    let a = store.replace_plane(&meta_a, &nodes, &edges).expect("write a").id;
    let other = vec![node("other::parseJSONBody", &["Function"], Some("lib.py"), Some(1), json!({}))];
    let b = store.replace_plane(&meta("b"), &other, &[]).expect("write b").id;

    assert_eq!(search_keys(&store, Some(a), "json body"), ["demo::parseJSONBody"]);
    assert_eq!(search_keys(&store, Some(b), "json body"), ["other::parseJSONBody"]);
    let mut both = search_keys(&store, None, "json body");
    both.sort();
    assert_eq!(both, ["demo::parseJSONBody", "other::parseJSONBody"]);
}

#[test]
fn reconciliation_heals_a_crash_between_the_two_commits() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    {
        let mut store = Store::open(&db).expect("open");
        assert!(store.text_reconciled_planes().is_empty());
        let (meta_a, nodes, edges) = demo_plane("demo");
        store.replace_plane(&meta_a, &nodes, &edges).expect("write demo");
        store.replace_plane(&meta("doomed"), &nodes, &edges).expect("write doomed");
    }
    {
        let store = Store::open(&db).expect("reopen");
        assert!(store.text_reconciled_planes().is_empty(), "in step after a clean close");
    }

    // A writer that committed to SQLite and died before the text commit: `demo` changed and got a
    // new generation, `doomed` was deleted, `fresh` was created.
    {
        let conn = rusqlite::Connection::open(db.join("graph.sqlite")).expect("sqlite");
        conn.execute_batch(
            "PRAGMA foreign_keys = ON;
             UPDATE nodes SET name = 'renderHtmlPage', props = NULL WHERE key = 'demo::parseJSONBody';
             UPDATE planes SET generation = 1000 WHERE name = 'demo';
             DELETE FROM edges WHERE plane = (SELECT id FROM planes WHERE name = 'doomed');
             DELETE FROM nodes WHERE plane = (SELECT id FROM planes WHERE name = 'doomed');
             DELETE FROM planes WHERE name = 'doomed';
             INSERT INTO planes(name, kind, generation, updated_at) VALUES ('fresh', 'code', 1001, 0);
             INSERT INTO nodes(plane, key, label, labels, name)
                 VALUES ((SELECT id FROM planes WHERE name = 'fresh'), 'fresh::brandNew', 'Function', '[\"Function\"]', 'brandNew');",
        )
        .expect("simulate the crash");
    }
    let store = Store::open(&db).expect("open after the crash");
    assert_eq!(store.text_reconciled_planes(), ["demo", "doomed", "fresh"].map(str::to_owned));
    let demo = store.plane("demo").expect("plane").expect("demo").id;
    assert_eq!(search_keys(&store, Some(demo), "render html"), ["demo::parseJSONBody"]);
    // Its signature and doc are gone from SQLite, so from the index too.
    assert!(search_keys(&store, Some(demo), "input").is_empty());
    assert!(search_keys(&store, Some(demo), "request").is_empty());
    assert_eq!(search_keys(&store, None, "brand new"), ["fresh::brandNew"]);
    // `doomed` shared every key with `demo`; only `demo`'s documents remain.
    let hits = store.search(None, "HTTPServer", 10).expect("search");
    let planes: Vec<i64> = hits.iter().map(|(id, _)| store.node(*id).expect("node").expect("exists").plane).collect();
    assert_eq!(planes, [demo, demo], "the struct and its method, of `demo` only");
    drop(store);

    let store = Store::open(&db).expect("open once more");
    assert!(store.text_reconciled_planes().is_empty(), "the heal was committed");
}

#[test]
fn lost_text_index_is_rebuilt() {
    let (_tmp, db, store) = demo_database();
    drop(store);
    std::fs::remove_dir_all(db.join("text")).expect("remove text index");
    let store = Store::open(&db).expect("reopen");
    assert_eq!(store.text_reconciled_planes(), ["demo".to_owned()]);
    // Rebuilt from SQLite, signature and doc included.
    assert_eq!(search_keys(&store, None, "input"), ["demo::parseJSONBody"]);
    assert_eq!(search_keys(&store, None, "json body").first().map(String::as_str), Some("demo::parseJSONBody"));
}

#[test]
fn text_index_of_another_schema_is_rebuilt() {
    let (_tmp, db, store) = demo_database();
    drop(store);
    // The schema of an earlier build, which also stored each document's node id.
    let node_id_stored = |db: &std::path::Path| -> bool {
        let text = std::fs::read_to_string(db.join("text/meta.json")).expect("meta.json");
        let tantivy_meta: serde_json::Value = serde_json::from_str(&text).expect("json");
        let fields = tantivy_meta["schema"].as_array().expect("schema fields");
        let node_id = fields.iter().find(|f| f["name"] == "node_id").expect("node_id field");
        node_id["options"]["stored"].as_bool().expect("stored flag")
    };
    assert!(!node_id_stored(&db));
    let path = db.join("text/meta.json");
    let mut tantivy_meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("meta.json")).expect("json");
    for field in tantivy_meta["schema"].as_array_mut().expect("schema fields") {
        if field["name"] == "node_id" {
            field["options"]["stored"] = json!(true);
        }
    }
    std::fs::write(&path, serde_json::to_string(&tantivy_meta).expect("json")).expect("write meta.json");

    let store = Store::open(&db).expect("reopen");
    assert_eq!(store.text_reconciled_planes(), ["demo".to_owned()]);
    assert!(!node_id_stored(&db), "the index was written again with this build's schema");
    assert_eq!(search_keys(&store, None, "json body").first().map(String::as_str), Some("demo::parseJSONBody"));
}

#[test]
fn commit_payload_records_each_plane() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("graph.drsg");
    let mut store = Store::open(&db).expect("open");
    let (meta_a, nodes, edges) = demo_plane("demo");
    let info = store.replace_plane(&meta_a, &nodes, &edges).expect("write");
    let mut git = meta("demo_git");
    git.synced_commit = None;
    let git_info = store.replace_plane(&git, &nodes[..1], &[]).expect("write git");
    // A history plane holds no symbols: it gets no documents and no stamp.
    let mut history = meta("demo_history");
    history.kind = drsg_planes::PlaneKind::Git;
    let history_info = store.replace_plane(&history, &nodes, &edges).expect("write history");
    assert_eq!(search_keys(&store, Some(history_info.id), "parseJSONBody"), Vec::<String>::new());

    let tantivy_meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(db.join("text/meta.json")).expect("meta.json")).expect("json");
    let payload: serde_json::Value =
        serde_json::from_str(tantivy_meta["payload"].as_str().expect("payload string")).expect("payload json");
    assert_eq!(
        payload,
        json!({"planes": {
            "demo": {"generation": info.generation, "commit": meta_a.synced_commit},
            "demo_git": {"generation": git_info.generation, "commit": null},
        }})
    );
}
