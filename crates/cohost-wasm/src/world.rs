//! The `cohost:adapter` world (`wit/adapter.wit`) as Rust types, generated
//! by wasmtime's `bindgen!` from the same file component authors build
//! against, so the two sides cannot drift.

#![allow(missing_docs, unreachable_pub)]

#[cfg(feature = "runtime")]
wasmtime::component::bindgen!({
    path: "wit",
    world: "adapter",
});

#[cfg(feature = "runtime")]
pub use exports::cohost::adapter::turn::{
    ApprovalMode, Command, EndReason, Ended, ErrorCode, Event, Exit, Failure, Options, Started,
    Status, ToolCall, ToolKind, ToolResult, ToolStatus, Usage,
};

/// The world's package, without version.
pub const WORLD_PACKAGE: &str = "cohost:adapter";

/// The world version this cohost speaks (the `@` of `wit/adapter.wit`).
pub const WORLD_VERSION: &str = "0.1.0";

/// The exported interface's name without version.
#[cfg(feature = "runtime")]
pub(crate) const TURN_INTERFACE: &str = "cohost:adapter/turn";
