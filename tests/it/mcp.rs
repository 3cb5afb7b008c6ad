//! `drsg-mcp` over stdio, driven by the official MCP Python SDK (installed by
//! `testdata/mcp-client.sh` into `.venv-mcp`, or the interpreter named by `$DRSG_MCP_PYTHON`).

use std::path::PathBuf;
use std::process::Command;

use drsg_testdata::Fixture;

use crate::cli::drsg;

pub(crate) const TREE: &str = r#"
//- commit: first
//- /pkg/__init__.py
//- /pkg/util.py
def helper():
    return 40
//- /pkg/app.py
from pkg.util import helper


def main():
    return helper()
"#;

/// A Kubernetes manifest the MCP clients ask `deployed` about.
const MANIFEST: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: ghcr.io/acme/pkg:latest\n";

/// The Python that has the `mcp` SDK.
fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("DRSG_MCP_PYTHON").filter(|p| !p.is_empty()) {
        return p.into();
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv-mcp/bin/python");
    assert!(
        venv.exists(),
        "the MCP client tests need the Python SDK: run testdata/mcp-client.sh (it makes .venv-mcp), or set DRSG_MCP_PYTHON"
    );
    venv
}

#[test]
fn the_python_sdk_drives_drsg_mcp_over_stdio() {
    let fx = Fixture::inline(TREE);
    fx.write("pkg/util.py", "def helper():\n    return 41\n");
    fx.write("deploy/app.yaml", MANIFEST);
    fx.commit_all("second");
    let db = fx.outside().join("graph.drsg");
    let out = drsg(&db, &["index", fx.path().to_str().expect("utf-8 path")], fx.outside());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mcp/tests/client/stdio_session.py");
    let out = Command::new(python())
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_drsg-mcp"))
        .arg(&db)
        .arg(fx.path())
        .env_remove("DRSG_DB")
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "client failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let sizes: serde_json::Value = serde_json::from_str(stdout.trim()).expect("the client prints its sizes");
    let full = sizes["tools_list_bytes"].as_u64().expect("a size");
    let compact = sizes["compact_tools_list_bytes"].as_u64().expect("a size");
    eprintln!("tools/list: {full} bytes; compact: {compact} bytes");
    assert!(full <= 8 * 1024, "tools/list is {full} bytes, over 8 KB");
    assert!(compact <= 1024, "compact tools/list is {compact} bytes, over 1 KB");
}

#[test]
fn the_python_sdk_drives_drsg_init_serve_and_the_relay_over_http() {
    let fx = Fixture::inline(TREE);
    fx.write("pkg/util.py", "def helper():\n    return 41\n");
    fx.write("deploy/app.yaml", MANIFEST);
    fx.commit_all("second");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mcp/tests/client/http_session.py");
    let out = Command::new(python())
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_drsg"))
        .arg(env!("CARGO_BIN_EXE_drsg-mcp"))
        .arg(fx.path())
        .env_remove("DRSG_DB")
        .env_remove("DRSG_TOKEN")
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Whatever happened, leave no server behind.
    let _ = Command::new(env!("CARGO_BIN_EXE_drsg")).args(["stop"]).current_dir(fx.path()).output();
    assert!(out.status.success(), "client failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    eprintln!("{}", stdout.trim());
}

#[test]
fn drsg_serve_refuses_a_public_address_without_a_token_and_a_missing_database() {
    let fx = Fixture::inline(TREE);
    let db = fx.outside().join("graph.drsg");
    let out = drsg(&db, &["index", fx.path().to_str().expect("utf-8 path")], fx.outside());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new(env!("CARGO_BIN_EXE_drsg"))
        .arg("--db")
        .arg(&db)
        .args(["serve", "--addr", "0.0.0.0:0"])
        .env_remove("DRSG_TOKEN")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("refusing to serve 0.0.0.0:0 without a token") && err.contains("DRSG_TOKEN"), "{err}");

    let missing = fx.outside().join("none.drsg");
    let out = Command::new(env!("CARGO_BIN_EXE_drsg"))
        .arg("--db")
        .arg(&missing)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no database at"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!missing.exists(), "serve without watch never creates a database");
}

#[test]
fn drsg_mcp_refuses_a_missing_database_and_a_held_one() {
    let fx = Fixture::inline(TREE);
    let missing = fx.outside().join("nothing.drsg");
    let out = Command::new(env!("CARGO_BIN_EXE_drsg-mcp")).arg("--db").arg(&missing).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no database at") && err.contains("drsg index"), "{err}");
    assert!(!missing.exists(), "drsg-mcp must not create a database");
    assert!(out.stdout.is_empty(), "stdout is for JSON-RPC only");

    let db = fx.outside().join("graph.drsg");
    let out = drsg(&db, &["index", fx.path().to_str().expect("utf-8 path")], fx.outside());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let held = drsg_planes::Store::open_existing(&db).expect("open");
    let out = Command::new(env!("CARGO_BIN_EXE_drsg-mcp")).arg(&db).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("drsg serve"), "{err}");
    drop(held);

    let help = Command::new(env!("CARGO_BIN_EXE_drsg-mcp")).arg("--help").output().expect("run");
    assert!(help.status.success() && String::from_utf8_lossy(&help.stdout).contains("usage: drsg-mcp"));
}

/// A tree whose walk takes a second: a `grep` over it is slow.
struct SlowFiles;

impl drsg_query::SourceFiles for SlowFiles {
    fn read(&self, root: &std::path::Path, path: &str) -> Result<Vec<u8>, drsg_query::FileError> {
        drsg::files::DiskFiles.read(root, path)
    }

    fn visit(
        &self,
        _: &std::path::Path,
        _: Option<&str>,
        _: bool,
        _: &(dyn Fn(&str, &[u8]) + Sync),
    ) -> Result<(), drsg_query::FileError> {
        std::thread::sleep(std::time::Duration::from_secs(1));
        Ok(())
    }

    fn modified(&self, _: &std::path::Path, _: &str) -> Option<i64> {
        None
    }
}

#[test]
fn a_call_past_its_deadline_says_whether_the_server_was_busy_or_the_call_slow() {
    use std::time::Duration;

    let (_fx, _db, store) = indexed_store();
    let mut backend = drsg::serving::backend(store.clone());
    backend.files = Box::new(SlowFiles);
    let limits = drsg_mcp::Limits { concurrent: 1, deadline: Some(Duration::from_millis(300)) };
    let server = drsg_mcp::DrsgServer::new(backend, drsg_mcp::ToolSet::Full, limits);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let args = |json: serde_json::Value| json.as_object().expect("an object").clone();
    let planes = || {
        let reply = runtime.block_on(server.call("planes", args(serde_json::json!({"format": "json"})), "test"));
        let reply = reply.expect("planes answers");
        let planes: serde_json::Value = serde_json::from_str(&reply.text).expect("JSON");
        planes["planes"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|p| p["name"].as_str().unwrap_or("").to_owned())
            .collect::<Vec<_>>()
    };

    // A grep over a slow tree runs past the deadline; the call queued behind it finds no turn.
    let (slow, busy) = runtime.block_on(async {
        let first = server.clone();
        let slow =
            tokio::spawn(async move { first.call("grep", args(serde_json::json!({"pattern": "x"})), "test").await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let busy = server.call("planes", serde_json::Map::new(), "test").await;
        (slow.await.expect("joined"), busy)
    });
    let slow = slow.expect_err("past the deadline").to_string();
    assert!(slow.contains("the call was slow") && slow.contains("DRSG_MCP_TOOL_DEADLINE_SECS"), "{slow}");
    let busy = busy.expect_err("no turn").to_string();
    assert!(busy.contains("drsg was busy") && busy.contains("at most 1 run at once"), "{busy}");
    // The abandoned grep keeps its turn until it ends; then calls answer again.
    std::thread::sleep(Duration::from_millis(900));
    assert_eq!(planes().len(), 2);

    // While a fold holds the write gate, reads go on beside it; a rebuild waits, and past its
    // deadline is told the server was busy.
    let held = store.lock();
    assert_eq!(planes().len(), 2, "reads run on reader handles, apart from the writer");
    let waiting = runtime.block_on(server.call("rebuild", serde_json::Map::new(), "test"));
    let waiting = waiting.expect_err("the gate was held").to_string();
    assert!(waiting.contains("drsg was busy") && waiting.contains("a fold or rebuild held the database"), "{waiting}");
    drop(held);
    std::thread::sleep(Duration::from_millis(100));
    // A write by the writing handle is in the next read (the reader drops its cached plane list).
    let git_plane = planes().into_iter().find(|p| p.ends_with("_git")).expect("a history plane");
    assert!(store.lock().delete_plane(&git_plane).expect("delete"));
    assert_eq!(planes().len(), 1, "the deleted plane is gone from the next read");

    // `/rpc` runs verbs whatever the tool set; the compact tool set lists only `drsg`.
    let compact = drsg_mcp::DrsgServer::new(
        drsg::serving::backend(store.clone()),
        drsg_mcp::ToolSet::Compact,
        drsg_mcp::Limits::default(),
    );
    assert!(runtime.block_on(compact.call_verb("planes", serde_json::Map::new(), "rpc")).is_ok());
    let as_tool = runtime.block_on(compact.call("planes", serde_json::Map::new(), "test"));
    assert!(as_tool.expect_err("not a tool here").to_string().contains("the tool is `drsg`"));
}

#[test]
fn drsg_mcp_skips_a_mcp_json_others_can_write() {
    use std::os::unix::fs::PermissionsExt as _;
    let fx = Fixture::inline(TREE);
    let declared = r#"{"mcpServers": {"drsg": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}"#;
    let path = fx.path().join(".mcp.json");
    std::fs::write(&path, declared).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).expect("chmod");
    // drsg-mcp below the checkout's root, no database named: it exits 2; its stderr.
    let run_without_database = || {
        let out = Command::new(env!("CARGO_BIN_EXE_drsg-mcp"))
            .current_dir(fx.path().join("pkg"))
            .env_remove("DRSG_DB")
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{err}");
        err
    };
    let err = run_without_database();
    assert!(err.contains(".mcp.json: writable by group or others"), "{err}");
    assert!(err.contains("no database at graph.drsg"), "{err}");

    // Its own, private: read, but the declared server does not answer, so the database opens here
    // (and there is none).
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let err = run_without_database();
    assert!(!err.contains("skipped") && err.contains("does not answer"), "{err}");
}

#[test]
fn idle_connections_cannot_starve_the_server() {
    use std::io::{Read, Write};
    use std::time::{Duration, Instant};

    let (_fx, runtime, served) = http_server();
    let Served { addr, token, stop, serving } = served;

    // 600 connections that never send a byte: more than the server keeps open at once.
    let idle: Vec<std::net::TcpStream> = (0..600).filter_map(|_| std::net::TcpStream::connect(addr).ok()).collect();
    assert!(idle.len() >= 520, "{} connections opened", idle.len());
    std::thread::sleep(Duration::from_millis(300));
    let ask = |request: String| {
        let started = Instant::now();
        let mut stream = std::net::TcpStream::connect(addr).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        stream.write_all(request.as_bytes()).expect("send");
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        (answer, started.elapsed())
    };
    let (health, took) = ask(format!("GET /health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"));
    assert!(health.starts_with("HTTP/1.1 200") && took < Duration::from_secs(3), "{took:?} {health}");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"planes"}"#;
    let (rpc, took) = ask(format!(
        "POST /rpc HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    assert!(
        rpc.starts_with("HTTP/1.1 200") && rpc.contains("\"found\":true") && took < Duration::from_secs(3),
        "{took:?} {rpc}"
    );
    drop(idle);

    stop.cancel();
    let _ = runtime.block_on(serving);
}

#[test]
fn requests_whose_bodies_never_finish_cannot_starve_the_server() {
    use std::io::{Read, Write};
    use std::time::{Duration, Instant};

    let (_fx, runtime, served) = http_server();
    let Served { addr, token, stop, serving } = served;

    // 520 authenticated requests whose bodies stop after 1 byte of 100, each waiting until the server
    // has read its headers: they count against the connection cap like idle connections.
    let slow: Vec<std::net::TcpStream> = (0..520)
        .filter_map(|_| {
            let mut stream = std::net::TcpStream::connect(addr).ok()?;
            let head = format!(
                "POST /rpc HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
            );
            stream.write_all(head.as_bytes()).ok()?;
            Some(stream)
        })
        .collect();
    assert!(slow.len() >= 512, "{} slow connections opened", slow.len());
    std::thread::sleep(Duration::from_millis(1_500));
    let started = Instant::now();
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    stream
        .write_all(format!("GET /health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes())
        .expect("send");
    let mut health = String::new();
    let _ = stream.read_to_string(&mut health);
    let took = started.elapsed();
    assert!(health.starts_with("HTTP/1.1 200") && took < Duration::from_secs(1), "{took:?} {health}");
    drop(slow);
    stop.cancel();
    let _ = runtime.block_on(serving);
}

#[test]
fn an_error_sent_to_a_client_names_paths_relative_to_the_tree() {
    let (fx, _db, store) = indexed_store();
    let server =
        drsg_mcp::DrsgServer::new(drsg::serving::backend(store), drsg_mcp::ToolSet::Full, drsg_mcp::Limits::default());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let args = serde_json::json!({"name": "nowhere/missing.py:1-3"}).as_object().expect("an object").clone();
    let err = runtime.block_on(server.call_verb("snippet", args, "rpc")).expect_err("no such file").to_string();
    let root = fx.path().canonicalize().expect("root").to_string_lossy().into_owned();
    let name = root.rsplit('/').next().unwrap_or_default();
    assert!(!err.contains(&root) && err.contains("missing.py") && err.contains(name), "{err}");
}

/// An HTTP server of the test tree on a loopback port, with a bearer token.
struct Served {
    addr: std::net::SocketAddr,
    token: String,
    stop: tokio_util::sync::CancellationToken,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

fn http_server() -> (Fixture, tokio::runtime::Runtime, Served) {
    let (fx, _db, store) = indexed_store();
    let server =
        drsg_mcp::DrsgServer::new(drsg::serving::backend(store), drsg_mcp::ToolSet::Full, drsg_mcp::Limits::default());
    let token = "t".repeat(32);
    let options = drsg_mcp::http::HttpOptions {
        token: Some(token.clone()),
        allowed_hosts: Vec::new(),
        max_body: drsg_mcp::http::DEFAULT_MAX_BODY,
        session_idle: drsg_mcp::http::SESSION_IDLE,
        session_init: drsg_mcp::http::SESSION_INIT,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("bind");
    let addr = listener.local_addr().expect("address");
    let stop = tokio_util::sync::CancellationToken::new();
    let serving = runtime.spawn(drsg_mcp::http::serve(listener, server, options, stop.clone()));
    (fx, runtime, Served { addr, token, stop, serving })
}

/// The test tree indexed into a database beside it, opened as a server shares it.
fn indexed_store() -> (Fixture, PathBuf, std::sync::Arc<drsg_planes::SharedStore>) {
    let fx = Fixture::inline(TREE);
    let db = fx.outside().join("graph.drsg");
    let out = drsg(&db, &["index", fx.path().to_str().expect("utf-8 path")], fx.outside());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let store = drsg_planes::Store::open_existing(&db).expect("open");
    (fx, db, std::sync::Arc::new(drsg_planes::SharedStore::new(store)))
}
