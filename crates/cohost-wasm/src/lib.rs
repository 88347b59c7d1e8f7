//! cohost's WebAssembly adapter host.
//!
//! A third-party adapter is a WebAssembly component implementing the
//! `cohost:adapter` world (`wit/adapter.wit`, the contract): given a
//! prompt it returns the agent's command line, then it turns the agent's
//! stdout, line by line, into cohost's normalized events. This crate runs
//! such components under wasmtime with nothing imported (no WASI: no file,
//! socket, environment or clock), a time limit per call, a memory limit per
//! instance and a bound on each call's output; it checks every event and
//! turns any misbehaviour into a [`WasmError`] naming the plugin and the
//! limit. Spawning, supervising, approving, sanitizing and numbering stay
//! with cohost (`cohost-agents`' `protocol = "wasm"` plugins).
//!
//! The public interface is: [`inspect`] (hash, pin and world checks
//! without compiling), [`Runtime`] (the engine and its compiled-
//! component cache), [`AdapterComponent`] (one loaded, checked component),
//! [`TurnInstance`] (one instance for one turn), [`Limits`], [`WasmError`]
//! and the world's own types in [`world`].
//!
//! Without the `runtime` feature (on by default) the crate has no wasmtime
//! and holds only what names a component's settings and failures
//! ([`Limits`], [`WasmError`], the world's version): what a cohost built
//! without WebAssembly plugins still shows and reports.

#![forbid(unsafe_code)]

#[cfg(feature = "runtime")]
mod component;
#[cfg(feature = "runtime")]
mod convert;
mod error;
#[cfg(feature = "runtime")]
mod inspect;
#[cfg(feature = "runtime")]
mod instance;
#[cfg(feature = "runtime")]
mod limiter;
mod limits;
#[cfg(feature = "runtime")]
mod runtime;
pub mod world;

#[cfg(feature = "runtime")]
pub use component::{AdapterComponent, LoadOptions};
#[cfg(feature = "runtime")]
pub use convert::Classify;
pub use error::{Limit, WasmError};
#[cfg(feature = "runtime")]
pub use inspect::{inspect, sha256_hex, Inspection};
#[cfg(feature = "runtime")]
pub use instance::{Exit, StartOptions, TurnCommand, TurnInstance};
pub use limits::Limits;
#[cfg(feature = "runtime")]
pub use runtime::Runtime;
pub use world::{WORLD_PACKAGE, WORLD_VERSION};

/// Lock a mutex, tolerating poison (a panicking holder cannot leave the
/// cache in a half-written state: inserts are single calls).
#[cfg(feature = "runtime")]
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
