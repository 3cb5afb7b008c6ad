//! The HTTP facts a declarative plugin gives, as plain data: what the file says, with paths in parts as
//! written.

use serde::{Deserialize, Serialize};

/// What a fact is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum WireKind {
    Route,
    Router,
    Mount,
    Request,
    Client,
    Constant,
    /// A proxy's rewrite of the paths it forwards: `path` is the prefix it replaces, `target` the text put
    /// in its place.
    Rewrite,
    /// A prefix the application puts before every route of its framework (NestJS's `setGlobalPrefix`).
    Prefix,
}

impl WireKind {
    pub(super) fn of_capture(root: &str) -> Option<WireKind> {
        Some(match root {
            "route" => WireKind::Route,
            "router" => WireKind::Router,
            "mount" => WireKind::Mount,
            "request" => WireKind::Request,
            "client" => WireKind::Client,
            "constant" => WireKind::Constant,
            "rewrite" => WireKind::Rewrite,
            "prefix" => WireKind::Prefix,
            _ => return None,
        })
    }
}

/// A part of a path as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PathPart {
    /// Literal text.
    Text(String),
    /// A name whose value may be a constant (`API_PREFIX`, `settings.API_V1_STR`).
    Name(String),
    /// A path parameter or a value only known at run time (`{id}`, `:id`, `${user.id}`).
    Param,
    /// An expression that cannot be read as text, as written.
    Unknown(String),
}

/// The handler of a route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Handler {
    /// The function defined at this line (a decorated definition, an inline function).
    At(u32),
    /// A function named as written (`users.list`, `getUsers`).
    Name(String),
}

/// One HTTP fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireFact {
    pub kind: WireKind,
    pub line: u32,
    /// The last line of the construct (of a scoped router's function or class, of a client's object).
    pub end_line: u32,
    /// The plugin that found it.
    pub plugin: String,
    /// Upper-case methods (`GET`); empty when the plugin gave none.
    pub methods: Vec<String>,
    /// The path, URL, prefix or constant value, in parts.
    pub path: Vec<PathPart>,
    /// A route's or request's router or client; the name a router, client or constant is bound to; the
    /// router a mount is made on.
    pub name: Option<String>,
    /// A mount's target (the router mounted); a scoped router's function or class.
    pub target: Option<String>,
    /// A router that is a function or class: routes and mounts from `line` to `end_line` are on it.
    pub scoped: bool,
    pub handler: Option<Handler>,
    /// A mount whose prefix replaces the mounted router's own.
    pub replaces: bool,
}

impl WireFact {
    /// How much a match said: the fuller of two matches of one construct is kept.
    pub(super) fn richness(&self) -> usize {
        usize::from(!self.methods.is_empty())
            + usize::from(!self.path.is_empty())
            + usize::from(self.target.is_some())
            + usize::from(self.handler.is_some())
    }
}
