//! The built-in route and client plugins beyond the first ones, each on the shape its framework's users
//! write: routes with their prefixes as the program assembles them, and requests on proven clients.

use crate::index;

/// `METHOD /path -> handler` for each SERVES edge, and `caller -> METHOD /path` for each REQUESTS edge
/// (a `request:` stand-in when no route serves it).
fn wiring(spec: &str) -> (Vec<String>, Vec<String>) {
    let ix = index(spec);
    let mut serves = Vec::new();
    let mut requests = Vec::new();
    for e in ix.edges_of(&["SERVES", "REQUESTS"]) {
        let e = e.split(" [").next().unwrap_or(&e).to_owned();
        if let Some(rest) = e.strip_prefix("SERVES route:") {
            serves.push(rest.split(" L").next().unwrap_or(rest).to_owned());
        } else if let Some(rest) = e.strip_prefix("REQUESTS ") {
            requests.push(rest.replace("route:", "").split(" L").next().unwrap_or(rest).to_owned());
        }
    }
    (serves, requests)
}

#[test]
fn express_routers_chained_and_exported_by_default_with_a_superagent_helper_object() {
    let (serves, requests) = wiring(concat!(
        "//- /api/src/app/routes/tag/tag.controller.ts\nimport { Router } from 'express';\nconst router = Router();\n",
        "router.get('/tags', listTags);\nexport async function listTags() {}\nexport default router;\n",
        "//- /api/src/app/routes/routes.ts\nimport { Router } from 'express';\nimport tagsController from './tag/tag.controller';\n",
        "const api = Router()\n  .use(tagsController);\n\nexport default Router().use('/api', api);\n",
        "//- /api/src/main.ts\nimport express from 'express';\nimport routes from './app/routes/routes';\n",
        "const app = express();\napp.use(routes);\n",
        "//- /web/src/agent.js\nimport superagent from 'superagent';\nconst API_ROOT = 'https://conduit.example.io/api';\n",
        "const requests = {\n  get: url => superagent.get(`${API_ROOT}${url}`).then(r => r.body),\n};\n",
        "export function allTags() {\n  return requests.get('/tags');\n}\n",
        "export function article(slug) {\n  return requests.get(`/articles/${slug}`);\n}\n",
    ));
    assert_eq!(serves, ["GET /api/tags -> repo/api/src/app/routes/tag/tag.controller.listTags"]);
    // The helper's own `superagent.get` is no request of its own: its callers' are.
    assert_eq!(
        requests,
        ["repo/web/src/agent.allTags -> GET /api/tags", "repo/web/src/agent.article -> request:GET /api/articles/{}"]
    );
}

#[test]
fn koa_routers_with_prefixes_nested_by_their_routes() {
    let (serves, _) = wiring(concat!(
        "//- /server.js\nconst Koa = require('koa');\nconst Router = require('@koa/router');\nconst app = new Koa();\n",
        "const users = new Router({ prefix: '/users' });\nusers.get('/:id', showUser);\nusers.post('/', createUser);\n",
        "const api = new Router();\napi.use('/api', users.routes());\napp.use(api.routes());\n",
        "async function showUser(ctx) {}\nasync function createUser(ctx) {}\n",
    ));
    assert_eq!(serves, ["GET /api/users/{} -> repo/server.showUser", "POST /api/users -> repo/server.createUser"]);
}

#[test]
fn hono_base_paths_and_mounted_apps() {
    let (serves, _) = wiring(concat!(
        "//- /index.ts\nimport { Hono } from 'hono';\nconst books = new Hono();\nbooks.get('/', listBooks);\n",
        "books.get('/:id', showBook);\nfunction listBooks(c) {}\nfunction showBook(c) {}\n",
        "const app = new Hono().basePath('/api');\napp.route('/books', books);\nexport default app;\n",
    ));
    assert_eq!(serves, ["GET /api/books -> repo.listBooks", "GET /api/books/{} -> repo.showBook"]);
}

#[test]
fn fastify_plugins_registered_with_prefixes() {
    let (serves, _) = wiring(concat!(
        "//- /routes/users.js\nasync function listUsers(request, reply) { return []; }\n",
        "async function createUser(request, reply) { return 1; }\n",
        "module.exports = async function (fastify, opts) {\n  fastify.get('/users', listUsers);\n",
        "  fastify.route({ method: 'POST', url: '/users', handler: createUser });\n};\n",
        "//- /server.js\nconst Fastify = require('fastify');\nconst users = require('./routes/users');\n",
        "const app = Fastify({ logger: true });\napp.register(users, { prefix: '/v1' });\n",
        "app.register(async (admin) => {\n  admin.get('/stats', stats);\n}, { prefix: '/admin' });\n",
        "app.get('/health', health);\nasync function stats() {}\nasync function health() {}\n",
    ));
    assert_eq!(
        serves,
        [
            "GET /admin/stats -> repo/server.stats",
            "GET /health -> repo/server.health",
            "GET /v1/users -> repo/routes/users.listUsers",
            "POST /v1/users -> repo/routes/users.createUser",
        ]
    );
}

#[test]
fn nestjs_controllers_prefix_their_decorated_methods() {
    let (serves, _) = wiring(concat!(
        "//- /src/users.controller.ts\nimport { Controller, Get, Post, UseGuards } from '@nestjs/common';\n\n",
        "@Controller('users')\nexport class UsersController {\n  @Get()\n  findAll() { return []; }\n\n",
        "  @Get(':id')\n  findOne() { return {}; }\n\n  @Post()\n  @UseGuards(AuthGuard)\n  create() { return 1; }\n}\n",
    ));
    assert_eq!(
        serves,
        [
            "GET /users -> repo/src/users.controller.UsersController.findAll",
            "GET /users/{} -> repo/src/users.controller.UsersController.findOne",
            "POST /users -> repo/src/users.controller.UsersController.create",
        ]
    );
}

#[test]
fn a_nestjs_global_prefix_comes_before_every_controller_unless_the_tree_sets_several() {
    let controller = concat!(
        "//- /src/users.controller.ts\nimport { Controller, Get } from '@nestjs/common';\n\n",
        "@Controller('users')\nexport class UsersController {\n  @Get(':id')\n  findOne() { return {}; }\n}\n",
    );
    let main = |dir: &str, prefix: &str| {
        format!(
            "//- /{dir}/main.ts\nimport {{ NestFactory }} from '@nestjs/core';\nimport {{ AppModule }} from './app.module';\n\n\
             async function bootstrap() {{\n  const app = await NestFactory.create(AppModule);\n  \
             app.setGlobalPrefix('{prefix}');\n  await app.listen(3000);\n}}\nbootstrap();\n"
        )
    };
    let (serves, _) = wiring(&format!("{}{controller}", main("src", "api/v1")));
    assert_eq!(serves, ["GET /api/v1/users/{} -> repo/src/users.controller.UsersController.findOne"]);
    // Two applications with different prefixes: which controllers each serves is not read, so neither
    // prefix is given, and the ledger says so.
    let spec = format!("{}{}{controller}", main("admin", "admin"), main("src", "api"));
    let (serves, _) = wiring(&spec);
    assert_eq!(serves, ["GET /users/{} -> repo/src/users.controller.UsersController.findOne"]);
    let ix = index(&spec);
    let plane = ix.store.planes().expect("planes").into_iter().next().expect("one plane");
    assert_eq!(plane.meta.ledger["wire"]["global_prefixes_in_doubt"], 2, "{}", plane.meta.ledger["wire"]);
}

#[test]
fn next_route_files_serve_their_folders_paths() {
    let (serves, _) = wiring(concat!(
        "//- /web/app/api/users/[id]/route.ts\nexport async function GET(request: Request) { return Response.json({}); }\n",
        "export async function DELETE() { return new Response(null); }\n",
        "//- /web/app/(shop)/api/cart/route.ts\nexport async function POST() { return Response.json({}); }\n",
        "//- /web/pages/api/hello.ts\nexport default function handler(req, res) { res.status(200).json({}); }\n",
        "//- /web/app/page.tsx\nexport default function Page() { return null; }\n",
    ));
    assert_eq!(
        serves,
        [
            "ANY /api/hello -> repo/web/pages/api/hello.handler",
            "DELETE /api/users/{} -> repo/web/app/api/users/[id]/route.DELETE",
            "GET /api/users/{} -> repo/web/app/api/users/[id]/route.GET",
            "POST /api/cart -> repo/web/app/(shop)/api/cart/route.POST",
        ]
    );
}

#[test]
fn catch_all_routes_take_the_rest_of_the_path_and_a_fallback_at_the_root_takes_nothing() {
    let (serves, requests) = wiring(concat!(
        "//- /web/app/api/docs/[...slug]/route.ts\nexport async function GET() { return Response.json({}); }\n",
        "//- /web/app/api/docs/intro/route.ts\nexport async function GET() { return Response.json({}); }\n",
        "//- /web/app/api/files/[[...path]]/route.ts\nexport async function GET() { return Response.json({}); }\n",
        "//- /web/pages/api/blog/[...slug].ts\nexport default function handler(req, res) { res.json({}); }\n",
        "//- /web/server.js\nconst express = require('express');\nconst app = express();\n",
        "app.get('/static/*', assets);\napp.get('*', fallback);\nfunction assets() {}\nfunction fallback() {}\n",
        "//- /api/app.py\nfrom flask import Flask\n\napp = Flask(__name__)\n\n\n@app.get(\"/raw/<path:name>/meta\")\n",
        "def raw(name):\n    pass\n",
        "//- /web/client.ts\nexport function docs() { return fetch('/api/docs/guide/install'); }\n",
        "export function intro() { return fetch('/api/docs/intro'); }\n",
        "export function files() { return fetch('/api/files'); }\n",
        "export function asset() { return fetch('/static/js/app.js'); }\n",
        "export function meta(p: string) { return fetch(`/raw/${p}/deep/meta`); }\n",
        "export function missing() { return fetch('/api/nothing'); }\n",
        "export function post() { return fetch('/api/blog/2024/hello'); }\n",
    ));
    assert_eq!(
        serves,
        [
            "ANY /api/blog/{*} -> repo/web/pages/api/blog/[...slug].handler",
            "GET /api/docs/intro -> repo/web/app/api/docs/intro/route.GET",
            "GET /api/docs/{*} -> repo/web/app/api/docs/[...slug]/route.GET",
            "GET /api/files/{*?} -> repo/web/app/api/files/[[...path]]/route.GET",
            "GET /raw/{*}/meta -> app.raw",
            "GET /static/{*} -> repo/web/server.assets",
            "GET /{*} -> repo/web/server.fallback",
        ]
    );
    assert_eq!(
        requests,
        [
            "repo/web/client.asset -> GET /static/{*}",
            "repo/web/client.docs -> GET /api/docs/{*}",
            "repo/web/client.files -> GET /api/files/{*?}",
            "repo/web/client.intro -> GET /api/docs/intro",
            "repo/web/client.meta -> GET /raw/{*}/meta",
            "repo/web/client.missing -> request:GET /api/nothing",
            "repo/web/client.post -> ANY /api/blog/{*}",
        ]
    );
}

#[test]
fn django_urlconfs_with_includes_and_regular_expressions() {
    let (serves, _) = wiring(concat!(
        "//- /mysite/__init__.py\n",
        "//- /mysite/urls.py\nfrom django.urls import include, path\n\nurlpatterns = [\n    path(\"polls/\", include(\"polls.urls\")),\n]\n",
        "//- /polls/__init__.py\n",
        "//- /polls/urls.py\nfrom django.urls import path, re_path\n\nfrom . import views\n\nurlpatterns = [\n",
        "    path(\"\", views.index, name=\"index\"),\n    path(\"<int:question_id>/\", views.detail),\n",
        "    re_path(r\"^archive/(?P<year>[0-9]{4})/$\", views.archive),\n    path(\"list/\", views.QuestionList.as_view()),\n]\n",
        "//- /polls/views.py\ndef index(request):\n    pass\n\n\ndef detail(request, question_id):\n    pass\n\n\n",
        "def archive(request, year):\n    pass\n\n\nclass QuestionList:\n    pass\n",
    ));
    assert_eq!(
        serves,
        [
            "ANY /polls -> polls.views.index",
            "ANY /polls/archive/{} -> polls.views.archive",
            "ANY /polls/list -> polls.views.QuestionList",
            "ANY /polls/{} -> polls.views.detail",
        ]
    );
}

#[test]
fn django_rest_framework_routers_serve_collections_and_items_under_their_include() {
    let (serves, requests) = wiring(concat!(
        "//- /mysite/__init__.py\n",
        "//- /mysite/urls.py\nfrom django.urls import include, path\n\n",
        "urlpatterns = [\n    path(\"api/\", include(\"api.urls\")),\n]\n",
        "//- /api/__init__.py\n",
        "//- /api/urls.py\nfrom django.urls import include, path\nfrom rest_framework import routers\n\n",
        "from api import views\n\nrouter = routers.DefaultRouter()\nrouter.register(r\"users\", views.UserViewSet)\n",
        "router.register(\"groups\", views.GroupViewSet, basename=\"group\")\n\n",
        "urlpatterns = [\n    path(\"v1/\", include(router.urls)),\n    path(\"health/\", views.health),\n]\n",
        "//- /api/views.py\nclass UserViewSet:\n    pass\n\n\nclass GroupViewSet:\n    pass\n\n\ndef health(request):\n    pass\n",
        "//- /web/src/api.ts\nexport function users() { return fetch('/api/v1/users/'); }\n",
        "export function user(id: string) { return fetch(`/api/v1/users/${id}/`, { method: 'PATCH' }); }\n",
    ));
    // The module `include("api.urls")` names is its `urlpatterns`, not the router included inside it.
    assert_eq!(
        serves,
        [
            "ANY /api/health -> api.views.health",
            "ANY /api/v1/groups -> api.views.GroupViewSet",
            "ANY /api/v1/groups/{} -> api.views.GroupViewSet",
            "ANY /api/v1/users -> api.views.UserViewSet",
            "ANY /api/v1/users/{} -> api.views.UserViewSet",
        ]
    );
    assert_eq!(
        requests,
        ["repo/web/src/api.user -> ANY /api/v1/users/{}", "repo/web/src/api.users -> ANY /api/v1/users"]
    );
}

#[test]
fn axum_routers_nested_from_modules_with_chained_method_routers() {
    let (serves, requests) = wiring(concat!(
        "//- /Cargo.toml\n[package]\nname = \"shop\"\nversion = \"0.1.0\"\n",
        "//- /src/main.rs\nuse axum::{routing::get, Router};\n\nmod users;\n\nasync fn main() {\n",
        "    let app = Router::new()\n        .route(\"/health\", get(health))\n        .nest(\"/api\", users::router());\n    let _ = app;\n}\n\n",
        "async fn health() -> &'static str {\n    \"ok\"\n}\n",
        "//- /src/users.rs\nuse axum::{routing::get, Router};\n\npub fn router() -> Router {\n    Router::new()\n",
        "        .route(\"/users\", get(list).post(create))\n        .route(\"/users/:id\", get(show))\n}\n\n",
        "async fn list() {}\nasync fn create() {}\nasync fn show() {}\n",
        "//- /src/client.rs\nasync fn fetch_user(base: &str) {\n    let client = reqwest::Client::new();\n",
        "    let _ = client.get(format!(\"{}/api/users/{}\", base, 7)).send().await;\n",
        "    let _ = reqwest::get(\"http://shop:8080/api/users/7\").await;\n}\n",
    ));
    assert_eq!(
        serves,
        [
            "GET /api/users -> shop::users::list",
            "GET /api/users/{} -> shop::users::show",
            "GET /health -> shop::health",
            "POST /api/users -> shop::users::create",
        ]
    );
    // A base URL held in a variable is no part of the path drsg can know: said, not guessed.
    assert_eq!(
        requests,
        ["shop::client::fetch_user -> request:GET /{?}/api/users/{}", "shop::client::fetch_user -> GET /api/users/{}"]
    );
}

#[test]
fn actix_web_attribute_routes_and_resources() {
    let (serves, _) = wiring(concat!(
        "//- /Cargo.toml\n[package]\nname = \"svc\"\nversion = \"0.1.0\"\n",
        "//- /src/main.rs\nuse actix_web::{get, web, App};\n\n#[get(\"/users/{id}\")]\n#[tracing::instrument]\n",
        "async fn show() -> String {\n    String::new()\n}\n\nasync fn index() -> String {\n    String::new()\n}\n\n",
        "async fn create() -> String {\n    String::new()\n}\n\nfn app() {\n",
        "    App::new()\n        .service(show)\n        .route(\"/\", web::get().to(index))\n",
        "        .service(web::resource(\"/users\").route(web::post().to(create)));\n}\n",
    ));
    assert_eq!(serves, ["GET / -> svc::index", "GET /users/{} -> svc::show", "POST /users -> svc::create"]);
}

#[test]
fn actix_web_scopes_resources_configuring_functions_and_services_take_their_prefixes() {
    let (serves, _) = wiring(concat!(
        "//- /Cargo.toml\n[package]\nname = \"svc\"\nversion = \"0.1.0\"\n",
        "//- /src/main.rs\nuse actix_web::{get, web, App};\n\nmod config;\nmod handlers;\n\n",
        "use crate::config::config_app;\n\n",
        "#[get(\"/{id}\")]\nasync fn show() -> String {\n    String::new()\n}\n\n",
        "#[get(\"/health\")]\nasync fn health() -> String {\n    String::new()\n}\n\n",
        "async fn items() -> String {\n    String::new()\n}\n\n",
        "mod v2 {\n    use actix_web::get;\n\n    #[get(\"/hello\")]\n    pub async fn hello() -> String {\n        String::new()\n    }\n}\n\n",
        "fn app() {\n    App::new()\n        .service(health)\n        .service(web::scope(\"/v2\").service(v2::hello))\n        .service(\n            web::scope(\"/api\")\n",
        "                .service(show)\n                .configure(config_app)\n",
        "                .service(\n                    web::scope(\"/v1\")\n",
        "                        .route(\"/items\", web::get().to(items)),\n                ),\n        );\n}\n",
        "//- /src/config.rs\nuse actix_web::web;\n\nuse crate::handlers::users;\n\n",
        "pub fn config_app(cfg: &mut web::ServiceConfig) {\n",
        "    cfg.route(\"/users\", web::get().to(users::list));\n",
        "    cfg.service(\n        web::scope(\"/admin\")\n            .service(\n                web::resource(\"/users\")\n",
        "                    .route(web::get().to(users::list))\n                    .route(web::delete().to(users::purge)),\n",
        "            )\n            .service(web::resource(\"/ping\").to(users::ping)),\n    );\n}\n",
        "//- /src/handlers/mod.rs\npub mod users;\n",
        "//- /src/handlers/users.rs\npub async fn list() -> String {\n    String::new()\n}\n\n",
        "pub async fn purge() -> String {\n    String::new()\n}\n\npub async fn ping() -> String {\n    String::new()\n}\n",
    ));
    // `show` is registered only inside the `/api` scope: it serves there and nowhere else.
    assert_eq!(
        serves,
        [
            "ANY /api/admin/ping -> svc::handlers::users::ping",
            "DELETE /api/admin/users -> svc::handlers::users::purge",
            "GET /api/admin/users -> svc::handlers::users::list",
            "GET /api/users -> svc::handlers::users::list",
            "GET /api/v1/items -> svc::items",
            "GET /api/{} -> svc::show",
            "GET /health -> svc::health",
            "GET /v2/hello -> svc::v2::hello",
        ]
    );
}

#[test]
fn ky_generated_clients_and_axios_defaults() {
    let (_, requests) = wiring(concat!(
        "//- /web/src/main.ts\nimport axios from 'axios';\naxios.defaults.baseURL = 'https://shop.example.com/api';\n",
        "//- /web/src/api.ts\nimport ky from 'ky';\nimport axios from 'axios';\nimport { request as __request } from './core/request';\n\n",
        "const api = ky.create({ prefixUrl: 'https://shop.example.com/v1' });\n\n",
        "export async function books() {\n  return api.get('books').json();\n}\n\n",
        "export async function book(id: string) {\n  return __request(OpenAPI, { method: 'GET', url: '/api/books/{id}', path: { id } });\n}\n\n",
        "export async function stats() {\n  return axios.get('/admin/stats');\n}\n\n",
        "export function notARequest(router: { route(o: object): void }) {\n  router.route({ method: 'POST', url: '/users' });\n}\n",
    ));
    assert_eq!(
        requests,
        [
            "repo/web/src/api.book -> request:GET /api/books/{}",
            "repo/web/src/api.books -> request:GET /v1/books",
            "repo/web/src/api.stats -> request:GET /api/admin/stats",
        ]
    );
}

#[test]
fn urlconfs_including_each_other_give_each_route_a_bounded_set_of_prefixes() {
    let (serves, _) = wiring(concat!(
        "//- /a/__init__.py\n",
        "//- /a/urls.py\nfrom django.urls import include, path\n\nfrom . import views\n\n",
        "urlpatterns = [\n    path(\"b/\", include(\"b.urls\")),\n    path(\"x/\", views.x),\n]\n",
        "//- /a/views.py\ndef x(request):\n    pass\n",
        "//- /b/__init__.py\n",
        "//- /b/urls.py\nfrom django.urls import include, path\n\nurlpatterns = [\n    path(\"a/\", include(\"a.urls\")),\n]\n",
    ));
    // Each mount that would close the circle is left out: the route sits under the other one's prefix.
    assert_eq!(serves, ["ANY /a/x -> a.views.x"]);
}

/// The most common front-end layout: one module makes the client, the others import it and call it, with
/// no client library named in their own text; and an httpx client shared the same way in Python.
#[test]
fn clients_made_in_one_module_and_called_from_others() {
    let (serves, requests) = wiring(concat!(
        "//- /api/app.py\nfrom fastapi import FastAPI\napp = FastAPI()\n",
        "@app.get(\"/api/users\")\ndef users():\n    return []\n",
        "//- /web/src/client.ts\nimport axios from 'axios';\nexport const api = axios.create({ baseURL: '/api' });\n",
        "//- /web/src/users.ts\nimport { api } from './client';\nconst cache = new Map<string, string>();\n",
        "export function listUsers() {\n  cache.get('/users');\n  return api.get<string[]>('/users');\n}\n",
        "//- /jobs/http.py\nimport httpx\nclient = httpx.Client(base_url=\"https://example.io/api\")\n",
        "//- /jobs/sync.py\nfrom .http import client\n\ndef sync(settings):\n",
        "    settings.get(\"/users\")\n    return client.get(\"/users\")\n",
    ));
    assert_eq!(serves, ["GET /api/users -> app.users"]);
    assert_eq!(requests, ["repo/web/src/users.listUsers -> GET /api/users", "sync.sync -> GET /api/users"]);
}

/// A Create React App front end whose dev proxy strips `/api` before the Rust back end sees the path
/// (awesome-compose's react-rust-postgres): the request is served as the proxy forwards it.
#[test]
fn a_dev_proxy_that_strips_a_prefix_pairs_requests_with_the_routes_behind_it() {
    let (serves, requests) = wiring(concat!(
        "//- /backend/src/main.rs\nuse actix_web::{get, App, HttpServer, Responder};\n",
        "#[get(\"/users\")]\nasync fn list_users() -> impl Responder { \"[]\" }\n",
        "//- /frontend/src/setupProxy.js\nconst { createProxyMiddleware } = require('http-proxy-middleware');\n",
        "module.exports = function(app) {\n  app.use('/api', createProxyMiddleware({ target: 'http://backend:8000', pathRewrite: { '^/api': '' } }));\n};\n",
        "//- /frontend/src/App.js\nexport function App() {\n  fetch('/api/users');\n  fetch('/api/orders');\n}\n",
    ));
    assert_eq!(serves, ["GET /users -> backend::src::main::list_users"]);
    assert_eq!(
        requests,
        ["repo/frontend/src/App.App -> request:GET /api/orders", "repo/frontend/src/App.App -> GET /users"]
    );
}

#[test]
fn clients_a_class_holds_angular_http_client_axios_fields_and_python_self_clients() {
    let (_, requests) = wiring(concat!(
        "//- /web/src/app/users.service.ts\nimport { Injectable, inject } from '@angular/core';\n",
        "import { HttpClient } from '@angular/common/http';\nimport axios from 'axios';\n\n",
        "@Injectable({ providedIn: 'root' })\nexport class UsersService {\n  constructor(private http: HttpClient) {}\n\n",
        "  list() {\n    return this.http.get<User[]>('/api/users');\n  }\n\n",
        "  remove(id: number) {\n    return this.http.delete(`/api/users/${id}`);\n  }\n}\n\n",
        "export class OrdersService {\n  private http = inject(HttpClient);\n",
        "  private api = axios.create({ baseURL: '/api/v2' });\n  private cache = new Map<string, string>();\n\n",
        "  all() {\n    return this.http.get('/api/orders');\n  }\n\n",
        "  stats() {\n    return this.api.get('/stats');\n  }\n\n",
        "  cached() {\n    return this.cache.get('/api/users');\n  }\n}\n",
        "//- /worker/jobs.py\nimport httpx\nimport requests\n\n\nclass Sync:\n",
        "    def __init__(self):\n        self.client = httpx.Client(base_url=\"https://shop.example.com/api\")\n",
        "        self.session = requests.Session()\n        self.cache = {}\n\n",
        "    def pull(self):\n        return self.client.get(\"/orders\")\n\n",
        "    def push(self):\n        return self.session.post(\"https://shop.example.com/api/orders\")\n\n",
        "    def local(self):\n        return self.cache.get(\"/orders\")\n",
    ));
    // `this.cache.get(…)` and `self.cache.get(…)` are on no client: no requests.
    assert_eq!(
        requests,
        [
            "jobs.Sync.pull -> request:GET /api/orders",
            "jobs.Sync.push -> request:POST /api/orders",
            "repo/web/src/app/users.service.OrdersService.all -> request:GET /api/orders",
            "repo/web/src/app/users.service.OrdersService.stats -> request:GET /api/v2/stats",
            "repo/web/src/app/users.service.UsersService.list -> request:GET /api/users",
            "repo/web/src/app/users.service.UsersService.remove -> request:DELETE /api/users/{}",
        ]
    );
}

#[test]
fn hono_sub_routers_made_by_a_chain_in_other_files_are_mounted_by_their_default_export() {
    let (serves, _) = wiring(concat!(
        "//- /src/routes/users.ts\nimport { Hono } from 'hono';\n\nconst users = new Hono()\n",
        "  .get('/', listUsers)\n  .get('/:id', showUser);\n\nexport default users;\n",
        "export function listUsers() {}\nexport function showUser() {}\n",
        "//- /src/routes/books.ts\nimport { Hono } from 'hono';\n\nexport default new Hono()\n",
        "  .get('/', listBooks)\n  .post('/', addBook);\n\n",
        "export function listBooks() {}\nexport function addBook() {}\n",
        "//- /src/index.ts\nimport { Hono } from 'hono';\nimport users from './routes/users';\nimport books from './routes/books';\n\n",
        "const app = new Hono().basePath('/api');\napp.route('/users', users);\napp.route('/books', books);\nexport default app;\n",
    ));
    assert_eq!(
        serves,
        [
            "GET /api/books -> repo/src/routes/books.listBooks",
            "GET /api/users -> repo/src/routes/users.listUsers",
            "GET /api/users/{} -> repo/src/routes/users.showUser",
            "POST /api/books -> repo/src/routes/books.addBook",
        ]
    );
}

#[test]
fn koa_routes_chained_on_a_router_made_inline_and_exported_by_default() {
    let (serves, _) = wiring(concat!(
        "//- /src/books.js\nconst Router = require('@koa/router');\n\n",
        "module.exports = new Router({ prefix: '/books' })\n  .get('/', listBooks)\n  .post('/:id', saveBook);\n\n",
        "function listBooks(ctx) {}\nfunction saveBook(ctx) {}\n",
        "//- /src/server.js\nconst Koa = require('koa');\nconst Router = require('@koa/router');\n",
        "const books = require('./books');\n\nconst api = new Router();\napi.use('/api', books.routes());\n",
        "const app = new Koa();\napp.use(api.routes());\n",
    ));
    assert_eq!(serves, ["GET /api/books -> repo/src/books.listBooks", "POST /api/books/{} -> repo/src/books.saveBook"]);
}

#[test]
fn axum_routers_built_inline_where_they_are_nested_take_the_prefix() {
    let (serves, _) = wiring(concat!(
        "//- /Cargo.toml\n[package]\nname = \"svc\"\nversion = \"0.1.0\"\n",
        "//- /src/main.rs\nuse axum::{routing::get, Router};\n\nasync fn main() {\n",
        "    let app = Router::new()\n        .route(\"/health\", get(health))\n        .nest(\n            \"/api\",\n",
        "            Router::new()\n                .route(\"/users\", get(list))\n                .route(\"/users/:id\", get(show)),\n",
        "        );\n}\n\nasync fn health() {}\nasync fn list() {}\nasync fn show() {}\n",
    ));
    assert_eq!(serves, ["GET /api/users -> svc::list", "GET /api/users/{} -> svc::show", "GET /health -> svc::health"]);
}
