//! cohost's adapters. Each family lives in its own module folder and depends
//! only on `cohost-core`'s port; the binary registers them (see [`builtin`]).

pub mod acp;
pub mod agy;
pub mod aider;
pub mod builtin;
pub mod catalog;
pub mod claude;
pub mod codex;
pub mod continue_cli;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod goose;
pub mod http;
pub mod jsonrpc;
pub mod kiro;
pub mod opencode;
pub mod plugin;
pub mod process;
pub mod pty;
mod session;
