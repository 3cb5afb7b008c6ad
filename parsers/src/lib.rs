//! drsg-parsers: the tree-sitter runner, the `Language` trait, the plugin registry and the fact model.
//!
//! This crate owns what a single file says: definitions, references, imports, exports,
//! typed local bindings and inheritance, as plain data ([`FileFacts`]).
//! It never reads files, the environment or the clock; sources arrive as text.
//! It knows nothing of keys, other files or storage: binding names across files is the indexer's job.
//!
//! The `wire` module is also the engine of declarative plugins. A built-in extractor's query files are
//! read by `matcher`, drsg's own matcher of tree-sitter patterns, which needs no compilation, when a
//! file first holds their triggers; a user's plugin is compiled by tree-sitter at once (which refuses a
//! bad one with its file and line) and runs on tree-sitter's engine. `wire::Run` runs them in
//! `parse_file_with` over the tree the language plugin read: queries whose patterns name their roots'
//! kinds (which `patterns` reads from a pattern's text) start at nodes of those kinds only, which the
//! language plugin's walk taps on its way (`Language::extract_tapped`) or one walk in C finds; the others
//! run the query cursor over the whole tree. Patterns matching one construct twice keep the fuller
//! match, and a request on a name that is no library's client, no client of the file and no import is
//! dropped (`wire::builtin_client`). The engine names a call chain by what it is bound to, gives a
//! scoped router (`@router.scope`) the lines and name of its function or class, turns an object of
//! helpers around a client into a client, reads Rust's `format!` URLs, and gives Next.js route files
//! their folder's path (`FileRoutes`); `wire::paths` reads paths, URLs and methods from captured
//! nodes.

pub mod children;
pub mod facts;
pub mod matcher;
pub mod patterns;
mod registry;
mod runner;
pub mod text;
pub mod wire;

pub use facts::*;
pub use registry::{Fingerprint, Registry, fnv1a};
pub use runner::{Language, parse_file, parse_file_with, syntax_errors};
