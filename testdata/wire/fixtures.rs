use axum::{routing::get, Router};

mod users;

async fn main() {
    let app = Router::new()
        .route("/health", get(health))
        .nest("/api", users::router());
    let _ = app;
}

async fn health() -> &'static str {
    "ok"
}
// ---
use axum::{routing::get, Router};

pub fn router() -> Router {
    Router::new()
        .route("/users", get(list).post(create))
        .route("/users/:id", get(show))
}

async fn list() {}
async fn create() {}
async fn show() {}
// ---
async fn fetch_user(base: &str) {
    let client = reqwest::Client::new();
    let _ = client.get(format!("{}/api/users/{}", base, 7)).send().await;
    let _ = reqwest::get("http://shop:8080/api/users/7").await;
}
// ---
use actix_web::{get, web, App};

#[get("/users/{id}")]
#[tracing::instrument]
async fn show() -> String {
    String::new()
}

async fn index() -> String {
    String::new()
}

async fn create() -> String {
    String::new()
}

fn app() {
    App::new()
        .service(show)
        .route("/", web::get().to(index))
        .service(web::resource("/users").route(web::post().to(create)));
}
// ---
use actix_web::{get, web, App};

mod config;
mod handlers;

use crate::config::config_app;

#[get("/{id}")]
async fn show() -> String {
    String::new()
}

#[get("/health")]
async fn health() -> String {
    String::new()
}

async fn items() -> String {
    String::new()
}

mod v2 {
    use actix_web::get;

    #[get("/hello")]
    pub async fn hello() -> String {
        String::new()
    }
}

fn app() {
    App::new()
        .service(health)
        .service(web::scope("/v2").service(v2::hello))
        .service(
            web::scope("/api")
                .service(show)
                .configure(config_app)
                .service(
                    web::scope("/v1")
                        .route("/items", web::get().to(items)),
                ),
        );
}
// ---
use actix_web::web;

use crate::handlers::users;

pub fn config_app(cfg: &mut web::ServiceConfig) {
    cfg.route("/users", web::get().to(users::list));
    cfg.service(
        web::scope("/admin")
            .service(
                web::resource("/users")
                    .route(web::get().to(users::list))
                    .route(web::delete().to(users::purge)),
            )
            .service(web::resource("/ping").to(users::ping)),
    );
}
// ---
pub mod users;
// ---
pub async fn list() -> String {
    String::new()
}

pub async fn purge() -> String {
    String::new()
}

pub async fn ping() -> String {
    String::new()
}
// ---
use actix_web::{get, App, HttpServer, Responder};
#[get("/users")]
async fn list_users() -> impl Responder { "[]" }
// ---
use axum::{routing::get, Router};

async fn main() {
    let app = Router::new()
        .route("/health", get(health))
        .nest(
            "/api",
            Router::new()
                .route("/users", get(list))
                .route("/users/:id", get(show)),
        );
}

async fn health() {}
async fn list() {}
async fn show() {}
// ---
use axum::{routing::get, Router};

mod users;

async fn main() {
// ---
use axum::{routing::get, Router};

pub fn router() -> Router {
    Router::new()
// ---
async fn fetch_user(base: &str) {
    let client = reqwest::Client::new();
// ---
use actix_web::{get, web, App};

#[get("/users/{id}")]
#[tracing::instrument]
// ---
use actix_web::{get, web, App};

mod config;
mod handlers;
// ---
use actix_web::web;

use crate::handlers::users;
// ---
pub mod users;
// ---
pub async fn list() -> String {
    String::new()
}
// ---
use actix_web::{get, App, HttpServer, Responder};
// ---
use axum::{routing::get, Router};

async fn main() {
