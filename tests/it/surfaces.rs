//! One verb table, every surface: a verb added to the table is a command, an MCP tool and an
//! `/rpc` method with no other edit; and the terminal beside a running server answers through it
//! with the text and exit codes it has in process.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use drsg_query::verbs::{Param, Registry, Reply, Run, Verb};
use drsg_testdata::Fixture;
use serde_json::{Value, json};

use crate::cli::drsg;

/// The two-module Python tree of the MCP tests.
use crate::mcp::TREE;

/// `shout`: a verb that exists only in this test. It reads the store (its planes) and its argument.
fn shout() -> Verb {
    const PARAMS: &[Param] = &[
        Param::text("word", "The word to shout.").required(),
        Param::integer("times", "How often.").short('t').default("1"),
    ];
    Verb {
        name: "shout",
        summary: "Shout a word, once per plane (a test verb).",
        params: PARAMS,
        run: Run::Read(|env, args, shape| {
            let word = args["word"].as_str().unwrap_or_default().to_uppercase();
            let times = args.get("times").and_then(Value::as_u64).unwrap_or(1) as usize;
            let planes = drsg_query::planes(env.session.store)?.planes.len();
            let text = if shape.json {
                // Written by hand: keys in an order of its own, which every surface keeps.
                format!(r#"{{"word":"{word}","times":{times},"planes":{planes}}}"#)
            } else {
                format!("{}\n", vec![word.as_str(); times * planes].join(" "))
            };
            Ok(Reply { text, found: word != "NOTHING" })
        }),
        tool: true,
        cli: true,
    }
}

fn registry() -> Registry {
    let mut verbs = Registry::builtin();
    verbs.add(shout()).expect("a new name");
    assert!(verbs.add(shout()).is_err(), "a second verb of the same name is refused");
    verbs
}

fn indexed(fx: &Fixture) -> std::path::PathBuf {
    let db = fx.outside().join("graph.drsg");
    let out = drsg(&db, &["index", fx.path().to_str().expect("utf-8 path")], fx.outside());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    db
}

#[test]
fn a_verb_added_to_the_table_is_a_command_a_tool_and_an_rpc_method() {
    let fx = Fixture::inline(TREE);
    let db = indexed(&fx);

    // The command line: a subcommand with its positional argument and short flag.
    let command = clap::Command::new("drsg").subcommands(drsg::cli::verb_commands(&registry()));
    let matches = command.try_get_matches_from(["drsg", "shout", "hey", "-t", "2"]).expect("parses");
    let (name, sub) = matches.subcommand().expect("a subcommand");
    let verbs = registry();
    let args = drsg::cli::arguments(verbs.get(name).expect("a verb"), sub);
    assert_eq!(Value::Object(args.clone()), json!({"word": "hey", "times": 2}));
    let mut out = Vec::new();
    let code = drsg::cli::run_verb(registry(), name, args, &db, &mut out).expect("answers");
    // Two planes (code and history), twice each.
    assert_eq!((String::from_utf8(out).expect("utf-8"), code), ("HEY HEY HEY HEY\n".to_owned(), 0));
    let help = clap::Command::new("drsg").subcommands(drsg::cli::verb_commands(&registry()));
    let err = help.try_get_matches_from(["drsg", "shout"]).expect_err("the word is required");
    assert!(err.to_string().contains("<WORD>"), "{err}");

    let grep = json!({"pattern": "def", "max_results": 1}).as_object().cloned().unwrap_or_default();
    let mut out = Vec::new();
    drsg::cli::run_verb(registry(), "grep", grep.clone(), &db, &mut out).expect("answers");
    let on_cli = String::from_utf8(out).expect("utf-8");
    assert!(on_cli.contains("narrow with --path DIR, or read on with --offset 1"), "{on_cli}");

    // MCP and /rpc, on one server over the same store.
    let store = Arc::new(drsg_planes::SharedStore::new(drsg_planes::Store::open_existing(&db).expect("open")));
    let backend = || drsg_query::verbs::Backend { verbs: registry(), ..drsg::serving::backend(store.clone()) };
    let server = drsg_mcp::DrsgServer::new(backend(), drsg_mcp::ToolSet::Full, drsg_mcp::Limits::default());
    let tool = server.tools().into_iter().find(|t| t.name == "shout").expect("listed as a tool");
    let schema = Value::Object((*tool.input_schema).clone());
    assert_eq!(schema["required"], json!(["word"]));
    assert_eq!(schema["properties"]["times"], json!({"type": "integer"}));
    assert!(server.guide().contains("- `shout(word, times?)`: Shout a word"), "{}", server.guide());

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let as_tool =
        runtime.block_on(server.call("shout", json!({"word": "mcp"}).as_object().cloned().unwrap_or_default(), "test"));
    assert_eq!(as_tool.expect("the tool answers").text, "MCP MCP\n");
    // A hint to read on names the surface's own terms: arguments in a tool result (flags on the
    // command line, above).
    let as_tool = runtime.block_on(server.call("grep", grep, "mcp:test")).expect("grep answers").text;
    assert!(as_tool.contains("narrow with path: DIR, or read on with offset: 1"), "{as_tool}");

    // The compact tool offers it too, with its help, and takes its arguments under `args` or beside
    // `verb` (the same one in both places is refused).
    let compact = drsg_mcp::DrsgServer::new(backend(), drsg_mcp::ToolSet::Compact, drsg_mcp::Limits::default());
    let call = |args: Value| {
        let args = args.as_object().cloned().unwrap_or_default();
        runtime.block_on(compact.call("drsg", args, "mcp:test")).map(|r| r.text).map_err(|f| f.to_string())
    };
    assert_eq!(call(json!({"verb": "shout", "args": {"word": "a"}})), Ok("A A\n".to_owned()));
    assert_eq!(call(json!({"verb": "shout", "word": "b"})), Ok("B B\n".to_owned()));
    let twice = call(json!({"verb": "shout", "word": "b", "args": {"word": "c"}})).expect_err("refused");
    assert!(twice.contains("`word` is given twice"), "{twice}");
    let help = call(json!({"help": "shout"})).expect("help");
    assert!(help.starts_with("shout: Shout a word") && help.contains(r#""required":["word"]"#), "{help}");

    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("non-blocking");
    let addr = listener.local_addr().expect("address").to_string();
    let stop = tokio_util::sync::CancellationToken::new();
    let options = drsg_mcp::http::HttpOptions::from_env().expect("options");
    let serving = {
        let (server, stop) = (server.clone(), stop.clone());
        runtime.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            drsg_mcp::http::serve(listener, server, options, stop).await
        })
    };
    let rpc = |params: Value| {
        let params = params.as_object().cloned().unwrap_or_default();
        runtime.block_on(drsg_mcp::relay::rpc(&addr, None, "shout", params)).expect("the server answers")
    };
    match rpc(json!({"word": "rpc", "times": 3})) {
        drsg_mcp::relay::RpcAnswer::Found { found, answer } => {
            assert!(found);
            // JSON by default for programs, in the answer's own key order.
            assert_eq!(answer.get(), r#"{"word":"RPC","times":3,"planes":2}"#);
        }
        other => panic!("{other:?}"),
    }
    match rpc(json!({"word": "nothing", "format": "text"})) {
        drsg_mcp::relay::RpcAnswer::Found { found, answer } => {
            assert!(!found, "a miss is an answer that found nothing");
            assert_eq!(answer.get(), r#""NOTHING NOTHING\n""#);
        }
        other => panic!("{other:?}"),
    }
    match rpc(json!({"times": 3})) {
        drsg_mcp::relay::RpcAnswer::Failed { code, message } => {
            assert_eq!((code, message.as_str()), (-32602, "`shout` needs `word`"));
        }
        other => panic!("{other:?}"),
    }
    // The write verb over /rpc, with no arguments or its plane (it takes no `format`).
    for params in [json!({}), json!({"plane": "repo"})] {
        let params = params.as_object().cloned().unwrap_or_default();
        match runtime.block_on(drsg_mcp::relay::rpc(&addr, None, "rebuild", params)).expect("answers") {
            drsg_mcp::relay::RpcAnswer::Found { found, answer } => {
                assert!(found && answer.get().starts_with(r#""rebuilt plane repo from "#), "{}", answer.get());
            }
            other => panic!("{other:?}"),
        }
    }
    stop.cancel();
    runtime.block_on(serving).expect("joined").expect("served");
}

/// `drsg` with `args` in `dir`, the database found as a user's would be (`graph.drsg` there).
fn drsg_in(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_drsg"))
        .args(args)
        .current_dir(dir)
        .env_remove("DRSG_DB")
        .env_remove("DRSG_TOKEN")
        .output()
        .expect("run drsg");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (text(&out.stdout), text(&out.stderr), out.status.code().unwrap_or(-1))
}

#[test]
fn the_terminal_beside_a_running_server_answers_through_it() {
    let fx = Fixture::inline(TREE);
    let root = fx.path();
    let (_, err, code) = drsg_in(root, &["init"]);
    assert_eq!(code, 0, "{err}");
    let calls: &[&[&str]] = &[
        &["context", "helper"],
        &["impact", "helper", "--json"],
        &["grep", "return 40"],
        &["context", "no_such_symbol"],
        &["search", "helper", "-k", "2"],
        &["recall", "HEAD", "--path", "pkg/util.py"],
        &["planes"],
        &["export", "--nodes"],
    ];
    let (out, err, code) = drsg_in(root, &["-v", "context", "helper"]);
    assert_eq!(code, 0);
    assert!(out.contains("pkg.app.main") && err.contains("answered by the drsg server at 127.0.0.1:"), "{out}\n{err}");

    // Writes the server owns say what to do and change nothing; rebuild goes to the server.
    let (out, err, code) = drsg_in(root, &["index", "."]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("holds") && err.contains("`drsg index` changed nothing") && err.contains("drsg rebuild"),
        "{err}"
    );
    let (_, err, code) = drsg_in(root, &["fold"]);
    assert!(code == 2 && err.contains("`drsg fold` changed nothing"), "{err}");
    let (out, err, code) = drsg_in(root, &["rebuild"]);
    assert!(code == 0 && out.starts_with("rebuilt plane "), "{out}\n{err}");

    // A commit shows from the terminal within a second or so (the server folds it).
    fx.write("pkg/extra.py", "from pkg.util import helper\n\n\ndef extra():\n    return helper() + 1\n");
    fx.commit_all("extra");
    let committed = Instant::now();
    loop {
        let (out, _, code) = drsg_in(root, &["context", "extra.extra"]);
        // The history plane follows the code plane: both name the new commit.
        let (planes, _, _) = drsg_in(root, &["planes"]);
        let head = fx.git(&["rev-parse", "--short=12", "HEAD"]);
        if code == 0 && out.contains("pkg.extra.extra") && planes.matches(head.trim()).count() == 2 {
            break;
        }
        assert!(committed.elapsed() < Duration::from_secs(20), "the commit never showed: {out}");
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!("a commit showed from the terminal after {} ms", committed.elapsed().as_millis());

    // The same calls through the server and, once it is gone, in process: the same text and exit
    // codes (the plane stays at the commit the server folded).
    let served: Vec<(String, String, i32)> = calls.iter().map(|args| drsg_in(root, args)).collect();
    let (_, err, code) = drsg_in(root, &["stop"]);
    assert_eq!(code, 0, "{err}");
    for (args, served) in calls.iter().zip(&served) {
        let here = drsg_in(root, args);
        assert_eq!((&here.0, here.2), (&served.0, served.2), "`drsg {}`", args.join(" "));
    }
    assert_eq!(served[3].2, 1, "a miss exits 1 through the server too");

    // A held database whose server does not answer keeps the lock's error.
    let held = drsg_planes::Store::open_existing(&root.join("graph.drsg")).expect("open");
    let (_, err, code) = drsg_in(root, &["context", "helper"]);
    assert!(code == 2 && err.contains("in use by another drsg process"), "{err}");
    drop(held);
}

#[test]
fn drsg_stop_ends_a_server_that_no_longer_answers_and_nothing_else() {
    let fx = Fixture::inline(TREE);
    let root = fx.path();
    let (_, err, code) = drsg_in(root, &["init"]);
    assert_eq!(code, 0, "{err}");
    let db = root.join("graph.drsg");
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(db.join("serve.json")).expect("the record")).expect("JSON");
    let pid = record["pid"].as_u64().expect("a pid").to_string();
    assert!(matches!(drsg_planes::lock_state(&db), Ok(drsg_planes::LockState::Held { .. })));

    // Frozen, it answers nothing: `stop` finds the lock held by the recorded pid and signals it.
    let frozen = Command::new("kill").args(["-STOP", &pid]).status().expect("kill");
    assert!(frozen.success());
    let out = Command::new(env!("CARGO_BIN_EXE_drsg"))
        .arg("stop")
        .current_dir(root)
        .env("DRSG_STOP_GRACE_SECS", "1")
        .env_remove("DRSG_DB")
        .output()
        .expect("run drsg stop");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("sending SIGTERM") && err.contains("sending SIGKILL"), "{err}");
    assert_eq!(drsg_planes::lock_state(&db).expect("the lock"), drsg_planes::LockState::Free);

    // Nothing runs now: exit 1. A recorded pid that holds no lock (here a live process that is no
    // drsg server) is never signalled.
    let (out, _, code) = drsg_in(root, &["stop"]);
    assert_eq!(code, 1, "{out}");
    let mut bystander = Command::new("sleep").arg("30").spawn().expect("sleep");
    let mut record = record;
    record["pid"] = bystander.id().into();
    std::fs::write(db.join("serve.json"), record.to_string()).expect("write the record");
    let (out, err, code) = drsg_in(root, &["stop"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(bystander.try_wait().expect("wait").is_none(), "the bystander still runs");
    let _ = bystander.kill();
    let _ = bystander.wait();
}

#[test]
fn drsg_init_declares_the_server_to_each_editor_whose_folder_the_checkout_has() {
    use std::os::unix::fs::PermissionsExt as _;
    let fx = Fixture::inline(TREE);
    let root = fx.path();
    std::fs::create_dir(root.join(".vscode")).expect("mkdir");
    let theirs = r#"{"servers": {"other": {"type": "stdio", "command": "other-server"}}, "inputs": []}"#;
    std::fs::write(root.join(".vscode/mcp.json"), theirs).expect("write");
    std::fs::create_dir(root.join(".cursor")).expect("mkdir");
    let (out, err, code) = drsg_in(root, &["init"]);
    let stop = || drsg_in(root, &["stop"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(".mcp.json") && out.contains(".cursor/mcp.json") && out.contains(".vscode/mcp.json"), "{out}");
    let read = |path: &str| -> Value {
        let full = root.join(path);
        let mode = std::fs::metadata(&full).expect("written").permissions().mode();
        assert_eq!(mode & 0o077, 0, "{path} holds the token: private to its user");
        serde_json::from_str(&std::fs::read_to_string(full).expect("read")).expect("JSON")
    };
    let claude = read(".mcp.json");
    let url = claude["mcpServers"]["drsg"]["url"].as_str().expect("a url").to_owned();
    let auth = claude["mcpServers"]["drsg"]["headers"]["Authorization"].clone();
    assert_eq!(claude["mcpServers"]["drsg"]["type"], "http");
    let cursor = read(".cursor/mcp.json");
    assert_eq!(cursor["mcpServers"]["drsg"], json!({"url": url, "headers": {"Authorization": auth}}));
    let vscode = read(".vscode/mcp.json");
    assert_eq!(vscode["servers"]["drsg"], json!({"type": "http", "url": url, "headers": {"Authorization": auth}}));
    assert_eq!(vscode["servers"]["other"]["command"], "other-server", "the user's own servers are kept");
    assert_eq!(vscode["inputs"], json!([]));
    let ignored = std::fs::read_to_string(root.join(".gitignore")).expect("read");
    for entry in ["*.drsg", ".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json"] {
        assert!(ignored.lines().any(|l| l == entry), "{entry} is ignored: {ignored}");
    }
    assert_eq!(stop().2, 0);

    // A checkout without an editor's folder gets none.
    let plain = Fixture::inline(TREE);
    let (_, err, code) = drsg_in(plain.path(), &["init"]);
    assert_eq!(code, 0, "{err}");
    assert!(!plain.path().join(".cursor").exists() && !plain.path().join(".vscode").exists());
    assert_eq!(drsg_in(plain.path(), &["stop"]).2, 0);
}

#[test]
fn two_inits_racing_in_one_checkout_share_one_server() {
    let fx = Fixture::inline(TREE);
    let root = fx.path().to_owned();
    let racers: Vec<_> = (0..2)
        .map(|_| {
            let root = root.clone();
            std::thread::spawn(move || drsg_in(&root, &["init"]))
        })
        .collect();
    let results: Vec<(String, String, i32)> = racers.into_iter().map(|r| r.join().expect("joined")).collect();
    let stop = drsg_in(&root, &["stop"]);
    for (out, err, code) in &results {
        assert_eq!(*code, 0, "both succeed: {out}{err}");
    }
    let reused = results.iter().filter(|(out, _, _)| out.contains("already running, reused")).count();
    assert_eq!(reused, 1, "the second reuses the first's server: {results:?}");
    let pid = |out: &str| out.split("pid ").nth(1).and_then(|p| p.split(')').next()).map(str::to_owned);
    assert_eq!(pid(&results[0].0), pid(&results[1].0), "{results:?}");
    assert_eq!(stop.2, 0, "{stop:?}");
}
