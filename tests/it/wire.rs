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
    "export function health() {\n  return fetch(\"/health\");\n}\n",
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
            "unmatched {} {} ← {}",
            q["method"].as_str().unwrap(),
            q["path"].as_str().unwrap(),
            q["caller"]["key"].as_str().unwrap()
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
            "unmatched GET /health ← repo/frontend/src/items.health",
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
            "unmatched GET /health ← frontend/src/items.health",
            "unrequested DELETE /api/v1/items/{}",
        ]
    );

    // A path, with a method, in the text form: what serves it and what requests it.
    let out = drsg(&two, &["wire", "/api/v1/items/42", "--method", "get"], fx.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.starts_with("GET /api/v1/items/{} → app.items.read_item  app/items.py:11  (api, app/items.py:11)\n  requested by frontend/src/items.showItem  src/items.ts:7  (line 8, web)\n"), "{text}");
    // A handler by name.
    let answer = json(&drsg(&two, &["wire", "--name", "read_items", "--json"], fx.path()));
    assert_eq!(answer["routes"].as_array().unwrap().len(), 1);
    // Nothing there: exit 1.
    let out = drsg(&two, &["wire", "/nope"], fx.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no route or request matches /nope"));
}
