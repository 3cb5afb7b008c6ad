//! `wire` over a FastAPI back end and a TypeScript front end, indexed as one plane and as two planes of
//! one database.
#![allow(clippy::unwrap_used, reason = "a failed unwrap is a failed test, with its value shown")]

use serde_json::Value;

use crate::cli::drsg;
use drsg_testdata::Fixture;

const FULL_STACK: &str = concat!(
    "//- /backend/app/__init__.py\n",
    "//- /backend/app/settings.py\nAPI_PREFIX = \"/api/v1\"\n",
    "//- /backend/app/items.py\nfrom fastapi import APIRouter\n\nrouter = APIRouter(prefix=\"/items\")\n\n\n",
    "@router.get(\"/\")\ndef read_items():\n    return []\n\n\n@router.get(\"/{item_id}\")\ndef read_item(item_id: int):\n    return item_id\n\n\n",
    "@router.delete(\"/{item_id}\")\ndef delete_item(item_id: int):\n    return item_id\n",
    "//- /backend/app/main.py\nfrom fastapi import FastAPI\n\nfrom app import items\nfrom app.settings import API_PREFIX\n\napp = FastAPI()\napp.include_router(items.router, prefix=API_PREFIX)\n",
    "//- /frontend/src/api.ts\nimport axios from \"axios\";\n\nexport const api = axios.create({ baseURL: \"/api/v1\" });\n",
    "//- /frontend/src/items.ts\nimport { api } from \"./api\";\n\n",
    "export function listItems() {\n  return api.get(\"/items/\");\n}\n\n",
    "export function showItem(id: number) {\n  return api.get(`/items/${id}`);\n}\n\n",
    "export function health() {\n  return fetch(\"/health\");\n}\n\n",
    "export function addItem() {\n  return api.post(\"/items/\", {});\n}\n",
);

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// `method path ← caller (plane)` for each route's requests, then the unmatched and unrequested.
fn summary(answer: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for r in answer["routes"].as_array().unwrap() {
        let handler = r["handler"]["key"].as_str().unwrap_or("-");
        for q in r["requests"].as_array().unwrap() {
            out.push(format!(
                "{} {} → {handler} ({}) ← {} ({})",
                r["method"].as_str().unwrap(),
                r["path"].as_str().unwrap(),
                r["plane"].as_str().unwrap(),
                q["caller"]["key"].as_str().unwrap(),
                q["plane"].as_str().unwrap()
            ));
        }
    }
    for q in answer["unmatched_requests"].as_array().unwrap() {
        out.push(format!(
            "unmatched {} {} ← {}: {}",
            q["method"].as_str().unwrap(),
            q["path"].as_str().unwrap(),
            q["caller"]["key"].as_str().unwrap(),
            q["why"].as_str().unwrap()
        ));
    }
    for r in answer["unrequested_routes"].as_array().unwrap() {
        out.push(format!("unrequested {} {}", r["method"].as_str().unwrap(), r["path"].as_str().unwrap()));
    }
    out
}

#[test]
fn wire_pairs_front_end_calls_with_routes_in_one_plane_and_across_two() {
    let fx = Fixture::inline(FULL_STACK);
    let one = fx.outside().join("one.drsg");
    assert!(drsg(&one, &["index", fx.path().to_str().unwrap()], fx.outside()).status.success());
    let answer = json(&drsg(&one, &["wire", "--json"], fx.path()));
    assert_eq!(
        summary(&answer),
        [
            "GET /api/v1/items → app.items.read_items (repo) ← repo/frontend/src/items.listItems (repo)",
            "GET /api/v1/items/{} → app.items.read_item (repo) ← repo/frontend/src/items.showItem (repo)",
            "unmatched POST /api/v1/items ← repo/frontend/src/items.addItem: this path is served for GET only",
            "unmatched GET /health ← repo/frontend/src/items.health: no route in the database has this path",
            "unrequested DELETE /api/v1/items/{}",
        ]
    );

    // The back end and the front end as two planes of one database: the same pairs, across planes.
    let two = fx.outside().join("two.drsg");
    let index = |dir: &str, plane: &str| {
        let out = drsg(&two, &["index", fx.path().join(dir).to_str().unwrap(), "--plane", plane], fx.outside());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    index("backend", "api");
    index("frontend", "web");
    let answer = json(&drsg(&two, &["wire", "--json"], fx.path()));
    assert_eq!(
        summary(&answer),
        [
            "GET /api/v1/items → app.items.read_items (api) ← frontend/src/items.listItems (web)",
            "GET /api/v1/items/{} → app.items.read_item (api) ← frontend/src/items.showItem (web)",
            "unmatched POST /api/v1/items ← frontend/src/items.addItem: this path is served for GET only",
            "unmatched GET /health ← frontend/src/items.health: no route in the database has this path",
            "unrequested DELETE /api/v1/items/{}",
        ]
    );

    // A path, with a method, in the text form: what serves it and what requests it.
    let out = drsg(&two, &["wire", "/api/v1/items/42", "--method", "get"], fx.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.starts_with("GET /api/v1/items/{} → app.items.read_item  app/items.py:11  (api, app/items.py:11)\n  requested by frontend/src/items.showItem  src/items.ts:7  (line 8, web)\n"), "{text}");
    // A route whose handler is an inline function says where it is.
    let inline = Fixture::inline(concat!(
        "//- /server.js\nconst express = require('express');\nconst app = express();\n",
        "app.get('/ping', (req, res) => res.send('pong'));\n",
    ));
    let db = inline.outside().join("i.drsg");
    assert!(drsg(&db, &["index", inline.path().to_str().unwrap()], inline.outside()).status.success());
    let text = String::from_utf8_lossy(&drsg(&db, &["wire"], inline.path()).stdout).into_owned();
    assert!(text.contains("GET /ping → an inline function at server.js:3  (repo, server.js:3)"), "{text}");
    // A handler by name.
    let answer = json(&drsg(&two, &["wire", "--name", "read_items", "--json"], fx.path()));
    assert_eq!(answer["routes"].as_array().unwrap().len(), 1);
    // Impact and trace cross the wire (one plane: the request is tied to the route at index time).
    let text = String::from_utf8_lossy(&drsg(&one, &["impact", "read_item"], fx.path()).stdout).into_owned();
    assert!(text.contains("route:GET /api/v1/items/{}  Route  backend/app/items.py:11  via SERVES"), "{text}");
    assert!(
        text.contains("repo/frontend/src/items.showItem  Function  frontend/src/items.ts:7  via REQUESTS"),
        "{text}"
    );
    let text = String::from_utf8_lossy(&drsg(&one, &["trace", "showItem", "read_item"], fx.path()).stdout).into_owned();
    assert!(text.starts_with("2 hops from repo/frontend/src/items.showItem to app.items.read_item\n"), "{text}");
    assert!(text.contains("(requested at line 8)") && text.contains("(the route's handler)"), "{text}");
    // Across two planes, `impact --across all` names the front end's callers.
    let out = drsg(&two, &["impact", "read_item", "--plane", "api", "--across", "all"], fx.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("across planes, via REQUESTS: 1\n  frontend/src/items.showItem (web) requests GET /api/v1/items/{} at line 8"), "{text}");
    // And `trace` crosses from the front end's plane to the back end's handler.
    let out = drsg(&two, &["trace", "showItem", "read_item", "--plane", "web"], fx.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("`read_item` is app.items.read_item of plane api: the path crosses the wire"), "{text}");
    assert!(text.contains("3 hops from frontend/src/items.showItem to app.items.read_item\n"), "{text}");
    assert!(
        text.contains(concat!(
            "  → request:GET /api/v1/items/{}  Request  src/items.ts:8  (requested at line 8)\n",
            "  → route:GET /api/v1/items/{}  Route  app/items.py:11  (the route of another plane serving it)\n",
            "  → app.items.read_item  Function  app/items.py:11  (the route's handler)\n"
        )),
        "{text}"
    );
    // Nothing there: exit 1.
    let out = drsg(&two, &["wire", "/nope"], fx.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no route or request matches /nope"));
}

#[test]
fn a_user_plugin_adds_a_framework_and_a_changed_plugin_set_is_said_until_rebuild() {
    let fx = Fixture::inline(concat!(
        "//- /drsg.toml\n[plugins]\ndir = \"tools/drsg-plugins\"\n",
        "//- /tools/drsg-plugins/bottle/plugin.toml\nname = \"bottle\"\nversion = \"1\"\nlanguages = [\"python\"]\nextracts = [\"routes\"]\ntriggers = [\"bottle\"]\n",
        "//- /tools/drsg-plugins/bottle/routes.scm\n",
        "(decorated_definition\n  (decorator (call function: (identifier) @route.method arguments: (argument_list . (string) @route.path)))\n",
        "  definition: (function_definition) @route.handler\n  (#any-of? @route.method \"get\" \"post\")) @route\n",
        "//- /tools/drsg-plugins/broken/plugin.toml\nname = \"broken\"\nlanguages = [\"python\"]\n",
        "//- /tools/drsg-plugins/broken/routes.scm\n(call) @route.verb\n",
        "//- /app.py\nfrom bottle import get\n\n\n@get(\"/hello/<name>\")\ndef hello(name):\n    return name\n",
    ));
    let db = fx.outside().join("p.drsg");
    let out = drsg(&db, &["index", fx.path().to_str().unwrap()], fx.outside());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("warning: plugin refused: broken/routes.scm:1: unknown capture name `@route.verb`"), "{err}");
    let out = drsg(&db, &["wire", "/hello/ada"], fx.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("GET /hello/{} → app.hello  app.py:4"), "{text}");
    assert!(!text.contains("plugins changed"), "{text}");

    // The plugin changes on disk: every answer says so until `rebuild`.
    let query = fx.path().join("tools/drsg-plugins/bottle/routes.scm");
    let changed = std::fs::read_to_string(&query).unwrap().replace("\"post\"", "\"post\" \"put\"");
    std::fs::write(&query, changed).unwrap();
    let text = String::from_utf8_lossy(&drsg(&db, &["context", "hello"], fx.path()).stdout).into_owned();
    assert!(text.contains("plugins changed since this plane was built; `rebuild` re-reads the tree"), "{text}");
    let out = drsg(&db, &["rebuild"], fx.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&drsg(&db, &["context", "hello"], fx.path()).stdout).into_owned();
    assert!(!text.contains("plugins changed"), "{text}");

    // A config that does not read is said, and the built-in plugins still work.
    std::fs::write(fx.path().join("drsg.toml"), "[plugins\n").unwrap();
    let out = drsg(&db, &["wire"], fx.path());
    assert!(String::from_utf8_lossy(&out.stderr).contains("drsg.toml:1:"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_built_in_plugins_can_be_left_out() {
    let fx = Fixture::inline(concat!(
        "//- /drsg.toml\n[plugins]\nbuiltin = false\n",
        "//- /app.py\nfrom flask import Flask\napp = Flask(__name__)\n\n\n@app.route(\"/hello\")\ndef hello():\n    return 'hi'\n",
    ));
    let db = fx.outside().join("p.drsg");
    let out = drsg(&db, &["index", fx.path().to_str().unwrap()], fx.outside());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = drsg(&db, &["wire", "/hello"], fx.path());
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    // With them (another config), the same tree serves the route.
    let on = fx.outside().join("on.toml");
    std::fs::write(&on, "[plugins]\nbuiltin = true\n").unwrap();
    let db = fx.outside().join("q.drsg");
    let out = drsg(&db, &["index", fx.path().to_str().unwrap(), "--config", on.to_str().unwrap()], fx.outside());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&drsg(&db, &["wire", "/hello"], fx.path()).stdout).into_owned();
    assert!(text.starts_with("GET /hello → app.hello"), "{text}");
    std::fs::write(fx.path().join("drsg.toml"), "[plugins]\nbuiltin = \"no\"\n").unwrap();
    let out = drsg(&db, &["wire"], fx.path());
    assert!(String::from_utf8_lossy(&out.stderr).contains("`[plugins] builtin` must be true or false"));
}

#[test]
fn a_front_end_plane_behind_a_dev_proxy_pairs_with_the_back_end_plane() {
    let fx = Fixture::inline(concat!(
        "//- /backend/app.py\nfrom flask import Flask\napp = Flask(__name__)\n\n\n@app.route(\"/users\")\ndef users():\n    return []\n",
        "//- /frontend/src/setupProxy.js\nmodule.exports = (app) => {\n",
        "  app.use('/api', createProxyMiddleware({ target: 'http://backend', pathRewrite: { '^/api': '' } }));\n};\n",
        "//- /frontend/src/App.js\nexport function load() {\n  return fetch('/api/users');\n}\n",
    ));
    let db = fx.outside().join("two.drsg");
    for (dir, plane) in [("backend", "api"), ("frontend", "web")] {
        let out = drsg(&db, &["index", fx.path().join(dir).to_str().unwrap(), "--plane", plane], fx.outside());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let answer = json(&drsg(&db, &["wire", "--json"], fx.path()));
    assert_eq!(summary(&answer), ["GET /users → app.users (api) ← frontend/src/App.load (web)"]);
}
