//! cohost's adapters. Each family lives in its own module folder and depends
//! only on `cohost-core`'s port; the binary registers them (see [`builtin`]).
//!
//! The driver folders are private: what a front end, a test or a tool may
//! use is curated here.
//!
//! - [`builtin`]: every built-in adapter factory, registered at once.
//! - [`catalog`]: the provider specs (what is installed, how it logs in).
//! - [`mock`]: the built-in scripted agent (`--agent mock`), every crate's
//!   test double above the domain.
//! - [`process`]: the shared process supervisor.
//! - [`http`]: the HTTP API adapters (OpenAI-compatible, Anthropic, ...).
//! - [`drivers`]: each CLI driver's factory and launch facts, for tests and
//!   tools that drive one provider directly.
//! - [`parsers`]: the drivers' pure parsers (line in, events out), for the
//!   fuzz targets, golden transcripts and benches. Not a stable API.

// Unsafe code only where processes are spawned and signalled (fork/exec,
// process groups, kill(2)): `process::supervisor` and `process::group`
// allow it, each block with its SAFETY comment.

mod acp;
mod agy;
mod aider;
pub mod builtin;
pub mod catalog;
mod claude;
mod cline;
mod codex;
mod continue_cli;
mod copilot;
mod cursor;
mod gemini;
mod goose;
pub mod http;
mod jsonrpc;
mod kilo;
mod kiro;
mod mcp_servers;
pub mod mock;
mod opencode;
mod plugin;
pub mod process;
mod pty;
mod session;
mod vibe;

/// The CLI drivers' public face: each family's adapter factory and the few
/// launch facts a caller needs. Wire types, state machines and argv
/// building stay private to the crate.
pub mod drivers {
    /// Claude Code and Qwen Code (stream-json, one process per session).
    pub mod claude {
        #[doc(hidden)]
        pub use crate::claude::bench_pump;
        pub use crate::claude::{Dialect, StreamJsonFactory, CLAUDE, QWEN};
    }
    /// The generic ACP client and its built-in providers.
    pub mod acp {
        pub use crate::acp::{AcpFactory, AcpSpec, ApprovalModes};
        /// The built-in ACP providers' launch specs, from the provider list.
        pub mod providers {
            pub use crate::acp::providers::{all, by_id};
            pub use crate::acp::spec::TextErrors;
        }
    }
    /// Codex CLI (app-server, `exec --json` fallback).
    pub mod codex {
        pub use crate::codex::CodexFactory;
    }
    /// Gemini CLI (`-p --output-format stream-json`).
    pub mod gemini {
        pub use crate::gemini::GeminiFactory;
    }
    pub use crate::agy::AgyFactory;
    pub use crate::aider::AiderFactory;
    pub use crate::continue_cli::ContinueFactory;
    pub use crate::copilot::CopilotFactory;
    pub use crate::opencode::OpenCodeFactory;
    /// User-defined agents from plugin manifests.
    pub mod plugin {
        pub use crate::plugin::wasm::{wasm_plugins, WasmPluginInfo};
        pub use crate::plugin::{default_plugin_dirs, load_plugins, PluginError};
    }
    /// Agents driven through a pseudo-terminal.
    pub mod pty {
        pub use crate::pty::{PtyChild, PtyFactory, PtyOutput};
    }
}

/// The drivers' pure parsers (stdout line in, events and lines to write
/// out), exposed for `fuzz/`, the golden-transcript tests and the benches.
/// Not a stable API.
pub mod parsers {
    /// Claude Code and Qwen Code's stream-json state machine.
    pub mod claude {
        pub use crate::claude::normalize::{Normalizer, NormalizerConfig, Output, Stats};
        pub use crate::claude::{Dialect, CLAUDE, QWEN};
    }
    /// Codex: the app-server core and the `exec --json` normalizer.
    pub mod codex {
        pub use crate::codex::exec::ExecNormalizer;
        pub use crate::codex::normalize::{Action, AppServerCore, CoreConfig};
    }
    /// Antigravity's (`agy`) stream-json session: wire format and core.
    pub mod agy {
        pub use crate::agy::normalize::{AgyCore, Effect, Output, Stats};
        pub use crate::agy::wire::{
            parse_line, user_line, AgyEvent, Init, Step, TurnResult, WireError, WireUsage,
        };
    }
    /// The ACP client state machine.
    pub mod acp {
        pub use crate::acp::spec::TextErrors;
        pub use crate::acp::{AcpClient, ClientConfig, FsOp, FsRequest, Opened, Output, Stats};
    }
    /// The one-shot runner's line API; each one-shot CLI's normalizer is
    /// its entry's [`crate::catalog::CliEntry::parser`].
    pub mod oneshot {
        pub use crate::process::oneshot::turn::Parser;
        pub use crate::process::{ExitInfo, TurnNormalizer};
    }
    /// Plugin manifests and their JSON-lines mapping.
    pub mod plugin {
        pub use crate::plugin::jsonl::JsonlNormalizer;
        pub use crate::plugin::manifest;
    }
    pub use crate::http::decode;
}
