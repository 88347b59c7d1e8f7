//! cohost inside the tools people already use.
//!
//! - [`mcp`]: `cohost mcp`, an MCP server (official Rust SDK `rmcp`) whose
//!   tools ask cohost's agents questions, follow their turns and answer
//!   their approvals.
//! - [`room_bridge`]: `cohost room-bridge`, the MCP server an agent in a
//!   room starts to ask the room's other agents.
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
pub mod room_bridge;
mod stdio_guard;

pub use hub::{Hub, HubLimits, OpenRequest};
