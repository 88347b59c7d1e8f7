//! cohost's terminal UI: the chat session (`cohost`, `cohost chat`), the
//! host console (`cohost share`) and the participant view (`cohost join`).
//!
//! The state and its update logic are sans-IO: [`app::App`] takes key
//! presses and [`app::Incoming`] messages and answers with
//! [`app::Effect`]s, and [`view`] draws it on any ratatui backend, so the
//! screens are tested on ratatui's `TestBackend`. The IO shell ([`term`])
//! is thin: the crossterm event stream in, frames out at most 60 per
//! second, the terminal restored on every way out. The binary wires the
//! effects to a session or a room.

#![forbid(unsafe_code)]

pub mod app;
mod approval;
pub mod changes;
pub mod commands;
pub mod diff;
pub mod diffview;
pub mod highlight;
pub mod input;
mod keys;
pub mod markdown;
mod member_state;
mod members;
pub mod msg;
pub mod qr;
pub mod queue;
mod review;
pub mod room;
pub mod secret;
mod split;
pub mod stream;
pub mod table;
pub mod tabs;
pub mod term;
pub mod theme;
pub mod transcript;
pub mod view;
pub mod wrap;
