//! The one provider list, plus the local model servers (which have no
//! driver folder; the HTTP providers' facts are their specs in
//! `crate::http::providers`). Each CLI's spec lives with its
//! driver, its ACP mode too (`gemini-acp` is [`super::CliEntry::acp`] of
//! `gemini`); adding a CLI is its driver folder and one line here.

use super::{CliEntry, ServerEntry};

/// Every known agent CLI, one spec per line, in the order `cohost agents`
/// lists them.
pub static CLIS: &[CliEntry] = &[
    crate::claude::SPEC,
    crate::codex::SPEC,
    crate::gemini::SPEC,
    crate::claude::QWEN_SPEC,
    crate::opencode::SPEC,
    crate::kilo::SPEC,
    crate::copilot::SPEC,
    crate::aider::SPEC,
    crate::continue_cli::SPEC,
    crate::cursor::SPEC,
    crate::goose::SPEC,
    crate::agy::SPEC,
    crate::kiro::SPEC,
    crate::claude::ACP_SPEC,
    crate::codex::ACP_SPEC,
    crate::cline::SPEC,
    crate::vibe::SPEC,
];

/// Known local model servers.
pub static SERVERS: &[ServerEntry] = &[
    ServerEntry {
        id: "ollama",
        label: "Ollama",
        host_env: Some("OLLAMA_HOST"),
        default_base: "http://127.0.0.1:11434",
        probe_path: "/api/tags",
        install_hint: "install Ollama from https://ollama.com and run `ollama serve`",
    },
    ServerEntry {
        id: "lmstudio",
        label: "LM Studio",
        host_env: None,
        default_base: "http://127.0.0.1:1234",
        probe_path: "/v1/models",
        install_hint: "start LM Studio's local server (Developer tab, port 1234)",
    },
];
