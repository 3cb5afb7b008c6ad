//! drsg-mcp: the verbs of SPEC §6 as MCP tools, derived from the query crate's verb table, the rmcp
//! server and its call gate ([`server`]), `drsg serve`'s HTTP endpoints ([`http`]) and the stdio
//! relay to a running server ([`relay`]). It adds transport, never logic.

pub mod http;
pub mod relay;
pub mod server;

pub use drsg_query::verbs::{Backend, CallError, Failure, Reply, Writer};
pub use server::{DrsgServer, INSTRUCTIONS, Limits, ToolSet, serve_stdio, source_label};
