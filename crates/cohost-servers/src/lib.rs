//! cohost inside the tools people already use.
//!
//! - [`mcp`]: `cohost mcp`, an MCP server (official Rust SDK `rmcp`) whose
//!   tools ask cohost's agents questions, follow their turns and answer
//!   their approvals.
//! - [`acp`]: `cohost acp`, cohost as an ACP agent (the
//!   `agent-client-protocol` crate) for editors such as Zed.
//!
//! Both are front ends on cohost-host's one session path, through the
//! shared [`hub::Hub`]; neither re-implements policy. This crate depends on
//! cohost-core and cohost-host, never the reverse.

#![forbid(unsafe_code)]

pub mod acp;
pub mod hub;
pub mod mcp;
mod stdio_guard;

pub use hub::{Hub, HubLimits, OpenRequest};
