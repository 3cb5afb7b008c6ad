//! drsg-mcp: the verbs of SPEC §6 as MCP tools ([`verbs`]: the table and one dispatcher shared by
//! every surface) and the rmcp server over stdio ([`server`]).

pub mod server;
pub mod verbs;

pub use server::{Backend, DrsgServer, INSTRUCTIONS, ToolSet, serve_stdio};
pub use verbs::{CallError, Env, Reply, VERBS, Verb, call};
