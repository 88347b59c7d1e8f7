//! [`WasmError`]: everything that can go wrong with an adapter component,
//! each naming the plugin and, for a broken limit, the limit.

use cohost_core::{CohostError, ErrorCode};
use std::fmt;

/// A limit of [`crate::Limits`] (or of the world) a component broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// A call ran longer than `call_time`.
    CallTime,
    /// The instance asked for more than `memory_bytes`.
    Memory,
    /// A call returned more than `events_per_call` events or more than
    /// `output_bytes_per_call` bytes of text.
    OutputPerCall,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::CallTime => "time per call",
            Limit::Memory => "memory",
            Limit::OutputPerCall => "output per call",
        })
    }
}

/// Why an adapter component cannot be loaded or why its turn failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WasmError {
    /// The file could not be read.
    #[error("wasm plugin `{plugin}`: cannot read {path}: {reason}")]
    Read {
        /// Plugin id.
        plugin: String,
        /// The component file.
        path: String,
        /// The OS error.
        reason: String,
    },
    /// The component's sha256 is not the one the manifest pins.
    #[error(
        "wasm plugin `{plugin}`: the component's sha256 is {actual}, the manifest pins {pinned}"
    )]
    HashMismatch {
        /// Plugin id.
        plugin: String,
        /// What the manifest says.
        pinned: String,
        /// What the file is.
        actual: String,
    },
    /// Not a valid WebAssembly component (a core module, garbage, or a
    /// component wasmtime cannot compile).
    #[error("wasm plugin `{plugin}`: not a usable WebAssembly component: {reason}")]
    Invalid {
        /// Plugin id.
        plugin: String,
        /// wasmtime's reason.
        reason: String,
    },
    /// The component imports something the world does not give.
    #[error("wasm plugin `{plugin}`: the component imports `{import}`, which the {world} world does not give (it imports nothing: no files, network, environment or clock)")]
    ForbiddenImport {
        /// Plugin id.
        plugin: String,
        /// The first import found.
        import: String,
        /// `cohost:adapter@0.1.0`.
        world: String,
    },
    /// Built for another version of the world.
    #[error("wasm plugin `{plugin}`: the component was built for cohost:adapter@{found}, this cohost speaks cohost:adapter@{expected}")]
    WorldVersion {
        /// Plugin id.
        plugin: String,
        /// The version the component exports.
        found: String,
        /// [`crate::WORLD_VERSION`].
        expected: String,
    },
    /// It does not export the world's interface with the right types.
    #[error("wasm plugin `{plugin}`: the component does not implement the cohost:adapter world: {reason}")]
    NotAnAdapter {
        /// Plugin id.
        plugin: String,
        /// What is missing or mistyped.
        reason: String,
    },
    /// A limit was broken during `call`.
    #[error("wasm plugin `{plugin}`: `{call}` broke the {limit} limit ({detail})")]
    LimitExceeded {
        /// Plugin id.
        plugin: String,
        /// The call (`on-line`).
        call: &'static str,
        /// Which limit.
        limit: Limit,
        /// The numbers.
        detail: String,
    },
    /// The component trapped (a panic, `unreachable`, an out-of-bounds
    /// access, a stack overflow).
    #[error("wasm plugin `{plugin}`: `{call}` trapped: {reason}")]
    Trap {
        /// Plugin id.
        plugin: String,
        /// The call.
        call: &'static str,
        /// wasmtime's description of the trap.
        reason: String,
    },
    /// It returned something that breaks the world's rules (invalid JSON
    /// for a tool input, an event after `ended`, a record the canonical ABI
    /// cannot read).
    #[error("wasm plugin `{plugin}`: `{call}` returned a malformed event: {reason}")]
    Malformed {
        /// Plugin id.
        plugin: String,
        /// The call.
        call: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// `start` refused the options (its own message).
    #[error("wasm plugin `{plugin}`: the adapter refused the turn: {reason}")]
    Refused {
        /// Plugin id.
        plugin: String,
        /// The component's message.
        reason: String,
    },
    /// Every slot of the instance pool is taken by a running turn.
    #[error("wasm plugin `{plugin}`: {max} WebAssembly adapter turns are already running in this cohost; no instance is free for another")]
    Busy {
        /// Plugin id.
        plugin: String,
        /// The pool's slots (`Runtime::POOL_INSTANCES` in cohost).
        max: u32,
    },
    /// The instance failed earlier in this turn and cannot be called again.
    #[error("wasm plugin `{plugin}`: the adapter failed earlier in this turn")]
    Poisoned {
        /// Plugin id.
        plugin: String,
    },
}

impl WasmError {
    /// The plugin the error is about.
    pub fn plugin(&self) -> &str {
        match self {
            WasmError::Read { plugin, .. }
            | WasmError::HashMismatch { plugin, .. }
            | WasmError::Invalid { plugin, .. }
            | WasmError::ForbiddenImport { plugin, .. }
            | WasmError::WorldVersion { plugin, .. }
            | WasmError::NotAnAdapter { plugin, .. }
            | WasmError::LimitExceeded { plugin, .. }
            | WasmError::Trap { plugin, .. }
            | WasmError::Malformed { plugin, .. }
            | WasmError::Refused { plugin, .. }
            | WasmError::Busy { plugin, .. }
            | WasmError::Poisoned { plugin } => plugin,
        }
    }

    /// The broken limit, if that is what happened.
    pub fn limit(&self) -> Option<Limit> {
        match self {
            WasmError::LimitExceeded { limit, .. } => Some(*limit),
            _ => None,
        }
    }

    /// The same problem in cohost's error taxonomy, with a fix.
    pub fn to_cohost(&self) -> CohostError {
        let (code, fix) = match self {
            WasmError::Read { .. } => (ErrorCode::ConfigInvalid, "fix `[wasm] component` in the plugin manifest (a path relative to the manifest)"),
            WasmError::HashMismatch { .. } => (ErrorCode::ConfigInvalid, "the component changed since the manifest pinned it: check where it came from, then update `[wasm] sha256`"),
            WasmError::Invalid { .. } | WasmError::NotAnAdapter { .. } => (ErrorCode::ConfigInvalid, "build the adapter as a component of the cohost:adapter world (see the WebAssembly adapters page of the book)"),
            WasmError::ForbiddenImport { .. } => (ErrorCode::ConfigInvalid, "an adapter may import nothing: remove the import (in Rust, build `no_std` as the example does)"),
            WasmError::WorldVersion { .. } => (ErrorCode::VersionUnsupported, "rebuild the adapter against this cohost's wit/adapter.wit, or use the cohost it was built for"),
            WasmError::LimitExceeded { .. } | WasmError::Trap { .. } | WasmError::Malformed { .. } | WasmError::Poisoned { .. } => (ErrorCode::InvalidOutput, "the adapter component is faulty: report it to its author, or raise the limit in `[wasm]` if the work is legitimate"),
            WasmError::Refused { .. } => (ErrorCode::UnsupportedMode, "change the request (the adapter's message says what it cannot do)"),
            WasmError::Busy { .. } => (ErrorCode::SpawnFailed, "retry when some of the running turns have ended"),
        };
        CohostError::new(code, self.to_string()).with_fix(fix)
    }
}
