//! Claude Code (`claude`) and Qwen Code (`qwen`): one long-lived CLI process
//! per session speaking stream-json on stdin/stdout with the control
//! protocol (`initialize`, `can_use_tool`, `interrupt`).
//!
//! - [`wire`]: the vendors' message types, tolerant.
//! - [`normalize`]: the pure state machine (lines in → events and lines out).
//! - [`dialect`]: the differences between the two CLIs, in one place.
//! - `spec`: their provider specs ([`SPEC`], [`QWEN_SPEC`]) and dialects
//!   ([`CLAUDE`], [`QWEN`]).
//! - `adapter`: the adapter and its factory ([`StreamJsonFactory`]).
//! - `engine`: binary checks, spawn through [`crate::process`], the IO loop.

mod acp;
mod adapter;
mod bench;
pub(crate) mod dialect;
mod engine;
pub(crate) mod normalize;
mod spec;
pub(crate) mod wire;

pub(crate) use acp::ACP_SPEC;
pub use adapter::StreamJsonFactory;
#[doc(hidden)]
pub use bench::bench_pump;
pub use dialect::Dialect;
pub use spec::{CLAUDE, QWEN};
pub(crate) use spec::{QWEN_SPEC, SPEC};
