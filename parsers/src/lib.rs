//! drsg-parsers: the tree-sitter runner, the `Language` trait, the plugin registry and the fact model.
//!
//! This crate owns what a single file says: definitions, references, imports, exports,
//! typed local bindings and inheritance, as plain data ([`FileFacts`]).
//! It never reads files, the environment or the clock; sources arrive as text.
//! It knows nothing of keys, other files or storage: binding names across files is the indexer's job.

pub mod facts;
pub mod patterns;
mod registry;
mod runner;
pub mod text;
pub mod wire;

pub use facts::*;
pub use registry::{Fingerprint, Registry, fnv1a};
pub use runner::{Language, parse_file, parse_file_with, syntax_errors};
