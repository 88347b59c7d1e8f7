//! cohost's adapters. Each family lives in its own module folder and depends
//! only on `cohost-core`'s port; the binary registers them (see [`builtin`]).

pub mod acp;
pub mod builtin;
pub mod catalog;
pub mod claude;
pub mod codex;
pub mod gemini;
pub mod http;
pub mod plugin;
pub mod process;
