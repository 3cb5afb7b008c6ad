//! End-to-end tests of the `drsg` binary, and the workspace's dependency rules.

mod cli;
mod crash;
mod deployed;
mod history;
mod mcp;
mod report;
mod surfaces;
mod tidy;
mod verbs;
mod watching;
mod wire;
