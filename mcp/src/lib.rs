//! drsg-mcp: the verbs of SPEC §6 as MCP tools ([`verbs`]: the table and one dispatcher shared by
//! every surface), the rmcp server and its call gate ([`server`]), `drsg serve`'s HTTP endpoints
//! ([`http`]) and the stdio relay to a running server ([`relay`]).

pub mod http;
pub mod relay;
pub mod server;
pub mod verbs;

pub use server::{Backend, DrsgServer, Failure, INSTRUCTIONS, Limits, Rebuild, ToolSet, serve_stdio, source_label};
pub use verbs::{CallError, Env, Reply, VERBS, Verb, call};
