//! Checkpoints, diffs and undo on real git repositories and plain
//! directories in temp dirs.

// A test crate: a failed unwrap is a failed test with its line.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod bad_input;
mod repo;
mod roundtrip;
mod support;
mod worktrees;
