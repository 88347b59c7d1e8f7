//! cohost's built-in agents: the CLI drivers (one folder per family), the
//! provider list ([`catalog`]) and the registration of everything built in
//! ([`builtin`]). The crate ties together what it is built on, each a crate
//! of its own that knows none of the others above it:
//!
//! - `cohost-process` ([`process`]): process supervision, the one-shot
//!   runner, the long-lived session actor and the provider spec types;
//! - `cohost-http` ([`http`]): the HTTP API adapters (OpenAI-compatible,
//!   Anthropic, ...);
//! - `cohost-acp` ([`drivers::acp`]): the generic ACP client;
//! - `cohost-plugins` ([`drivers::plugin`], [`drivers::pty`]): plugin
//!   manifests, wasm plugins and the PTY tier.
//!
//! The driver folders are private: what a front end, a test or a tool may
//! use is curated here.
//!
//! - [`mock`]: the built-in scripted agent (`--agent mock`), every crate's
//!   test double above the domain.
//! - [`drivers`]: each CLI driver's factory and launch facts, for tests and
//!   tools that drive one provider directly.
//! - [`parsers`]: the drivers' pure parsers (line in, events out), for the
//!   fuzz targets, golden transcripts and benches. Not a stable API.

pub use cohost_http as http;

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
mod kilo;
mod kiro;
pub mod mock;
mod oneshot_factory;
mod opencode;
#[cfg(test)]
mod test_support;
mod vibe;

use cohost_acp::jsonrpc;
use cohost_plugins::pty;
use cohost_process::session;

/// The MCP server check the drivers share (`cohost-acp`'s).
mod mcp_servers {
    pub(crate) use cohost_acp::mcp_servers::*;

    #[cfg(test)]
    pub(crate) mod tests {
        pub(crate) use cohost_acp::mcp_servers::test_server as server;
    }
}

/// The shared process supervisor and the one-shot runner (`cohost-process`).
pub mod process {
    pub use cohost_process::*;

    /// The one-shot runner, and the declaration of a one-shot driver's
    /// factory over it.
    pub mod oneshot {
        pub use cohost_process::oneshot::*;

        pub(crate) use crate::oneshot_factory::oneshot_factory;
        #[cfg(test)]
        pub(crate) use crate::test_support::{check_snapshot, replay_fixture, resuming, strs};
    }
}

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
        use std::path::PathBuf;
        use std::sync::Arc;

        pub use cohost_plugins::{default_plugin_dirs, wasm_plugins, PluginError, WasmPluginInfo};

        /// Load every `*.toml` manifest in `dirs` (missing dirs are fine),
        /// launching with the provider list: the factories to register and
        /// the problems found (see `cohost_plugins::load_plugins`).
        pub fn load_plugins(
            dirs: &[PathBuf],
        ) -> (Vec<Arc<dyn cohost_core::AdapterFactory>>, Vec<PluginError>) {
            cohost_plugins::load_plugins(dirs, crate::catalog::catalog())
        }
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
        pub use cohost_plugins::manifest;
        pub use cohost_plugins::JsonlNormalizer;
    }
    pub use crate::http::decode;
}
