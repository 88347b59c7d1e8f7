//! Scaffolding shared by the end-to-end tests of the CLI drivers, included
//! with `mod support;` (a folder, so cargo does not build it as a test
//! target of its own). Each test uses only part of it.
//!
//! - [`events`]: run one prompt with a time limit, and read the events
//!   (answer text, approvals, chunk indexes).
//! - [`scratch`]: the codex/gemini setup: find the installed CLI (skip
//!   loudly, or fail on CI), a scratch HOME and workspace, the fake model
//!   server, a per-test process marker, the no-leftovers check.
//! - [`steps`]: scenario steps the codex and gemini suites share
//!   (interrupt, provider errors, crash, missing binary, old version).
//! - [`bench`]: the same on top of `cohost-testbench`, for opencode,
//!   copilot, aider and continue.

pub mod bench;
pub mod events;
pub mod scratch;
pub mod steps;
