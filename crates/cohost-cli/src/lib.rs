//! The `cohost` binary's library half: subcommands, argument parsing,
//! rendering and the wiring of the front ends (the sharing host and
//! participant are `cohost-sharing`), kept in a library so integration
//! tests can drive them in-process.

// Only the terminal prompt polls stdin through libc (a cancellable read), and
// says so where it does.

pub mod approve;
pub mod cmd;
pub mod diffview;
pub mod exit;
pub mod fsutil;
pub mod hostctx;
pub mod providers;
pub mod quiet;
pub mod render;
pub mod room_render;
pub mod secrets;
pub mod signals;
pub mod spend;
