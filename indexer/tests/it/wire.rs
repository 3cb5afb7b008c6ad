//! The route layer: routes with their handlers and the requests that reach them, across files and
//! languages, and kept in step by folds.

use drsg_indexer::{FactsCache, IndexOptions, Silent, fold};

use crate::index;

/// A FastAPI back end (a router with a prefix, mounted on a router mounted under a settings constant)
/// and a TypeScript front end (an axios instance with a base URL in another file, `fetch`).
pub const FULL_STACK: &str = concat!(
    "//- /backend/app/__init__.py\n",
    "//- /backend/app/core/__init__.py\n",
    "//- /backend/app/core/config.py\nclass Settings:\n    API_V1_STR: str = \"/api/v1\"\n\n\nsettings = Settings()\n",
    "//- /backend/app/api/__init__.py\n",
    "//- /backend/app/api/routes/__init__.py\n",
    "//- /backend/app/api/routes/items.py\nfrom fastapi import APIRouter\n\nrouter = APIRouter(prefix=\"/items\", tags=[\"items\"])\n\n\n",
    "@router.get(\"/\")\ndef read_items():\n    return []\n\n\n@router.get(\"/{id}\")\ndef read_item(id: int):\n    return id\n\n\n",
    "@router.post(\"/\")\ndef create_item():\n    return 1\n",
    "//- /backend/app/api/main.py\nfrom fastapi import APIRouter\n\nfrom app.api.routes import items\n\napi_router = APIRouter()\napi_router.include_router(items.router)\n",
    "//- /backend/app/main.py\nfrom fastapi import FastAPI\n\nfrom app.api.main import api_router\nfrom app.core.config import settings\n\napp = FastAPI()\napp.include_router(api_router, prefix=settings.API_V1_STR)\n",
    "//- /frontend/src/client.ts\nimport axios from \"axios\";\n\nexport const api = axios.create({ baseURL: \"http://localhost:8000/api/v1\" });\n",
    "//- /frontend/src/items.ts\nimport { api } from \"./client\";\n\n",
    "export async function listItems() {\n  return api.get(\"/items/\");\n}\n\n",
    "export async function getItem(id: number) {\n  return api.get(`/items/${id}`);\n}\n\n",
    "export async function createItem() {\n  return fetch(\"/api/v1/items\", { method: \"POST\" });\n}\n\n",
    "export async function ping() {\n  return fetch(\"/health\");\n}\n\n",
    "export function notARequest(router: { get(p: string): void }) {\n  router.get(\"/items\");\n}\n",
    "//- /frontend/src/cache.ts\nexport const cache = new Map<string, string>();\n",
    "//- /frontend/src/cached.ts\nimport { cache } from \"./cache\";\n\nexport function cached() {\n  return cache.get(\"/items\");\n}\n",
);

#[test]
fn routes_are_served_by_their_handlers_and_requested_across_languages() {
    let ix = index(FULL_STACK);
    let edges = ix.edges_of(&["SERVES", "REQUESTS"]);
    let serves: Vec<&String> = edges.iter().filter(|e| e.starts_with("SERVES")).collect();
    assert_eq!(
        serves,
        [
            "SERVES route:GET /api/v1/items -> app.api.routes.items.read_items L6 []",
            "SERVES route:GET /api/v1/items/{} -> app.api.routes.items.read_item L11 []",
            "SERVES route:POST /api/v1/items -> app.api.routes.items.create_item L16 []",
        ],
        "{edges:#?}"
    );
    let requests: Vec<String> = edges
        .iter()
        .filter(|e| e.starts_with("REQUESTS"))
        .map(|e| e.split(" [").next().unwrap_or(e).to_owned())
        .collect();
    assert_eq!(
        requests,
        [
            "REQUESTS repo/frontend/src/items.createItem -> route:POST /api/v1/items L12",
            "REQUESTS repo/frontend/src/items.getItem -> route:GET /api/v1/items/{} L8",
            "REQUESTS repo/frontend/src/items.listItems -> route:GET /api/v1/items L4",
            "REQUESTS repo/frontend/src/items.ping -> request:GET /health L16",
        ],
        "{edges:#?}"
    );
    // The ledger counts them, and what was left out: `cache.get` on an imported name that is no client.
    // (`router.get` on a parameter is not even read as a request.)
    let plane = ix.store.plane("repo").expect("read").expect("plane");
    assert_eq!(
        plane.meta.ledger["wire"],
        serde_json::json!({
            "routes": 3, "requests": 4, "requests_unserved": 1, "unknown_paths": 0,
            "routes_not_on_a_router": 0, "requests_not_on_a_client": 1, "global_prefixes_in_doubt": 0
        })
    );
}

#[test]
fn a_fold_derives_the_paths_a_changed_prefix_reaches() {
    let ix = index(FULL_STACK);
    let fx = &ix.fixture;
    let mut store = ix.store;
    fx.write(
        "backend/app/core/config.py",
        "class Settings:\n    API_V1_STR: str = \"/api/v2\"\n\n\nsettings = Settings()\n",
    );
    fx.commit_all("v2");
    let registry = drsg_plugins::builtin();
    fold(&mut store, &registry, "repo", None, &IndexOptions::default(), &FactsCache::default(), &Silent).expect("fold");
    let plane = store.plane("repo").expect("read").expect("plane");
    let mut routes: Vec<String> =
        store.nodes_by_label(plane.id, "Route").expect("nodes").into_iter().map(|n| n.key).collect();
    routes.sort();
    assert_eq!(routes, ["route:GET /api/v2/items", "route:GET /api/v2/items/{}", "route:POST /api/v2/items"]);
    // The front end still asks for v1: its calls now reach no route.
    let mut requests: Vec<String> =
        store.nodes_by_label(plane.id, "Request").expect("nodes").into_iter().map(|n| n.key).collect();
    requests.sort();
    assert_eq!(
        requests,
        [
            "request:GET /api/v1/items",
            "request:GET /api/v1/items/{}",
            "request:GET /health",
            "request:POST /api/v1/items"
        ]
    );
}
