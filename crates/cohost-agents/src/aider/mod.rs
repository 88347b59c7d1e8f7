//! Aider driver (provider id `aider`): `aider --message PROMPT --no-pretty
//! --stream …` per turn, plain text (aider has no structured output).
//!
//! Checked against the pinned aider-chat 0.86.2 offline. What it can do:
//! answer text line by line, edits and commits reported after the fact
//! (advisory tool events), token counts, continuation of the conversation
//! with `--restore-chat-history` (same cwd; no id, so resume is `none`
//! across cohost sessions), SIGINT to stop.
//!
//! Approvals: aider asks its own yes/no questions on stdin and, without a
//! terminal, takes the default answer. So cohost decides at launch:
//! [`ApprovalMode::AutoApprove`] passes `--yes-always` and lets it edit and
//! commit; `Ask` and `DenyAll` pass `--dry-run --no-auto-commits` (edits
//! are proposed and reported as denied, nothing is written) and
//! `--no-git` when the directory is not a git repository (otherwise aider
//! would create one unasked).

pub(crate) mod normalize;

use cohost_core::{AdapterConfig, ApprovalMode, Capabilities, StreamingGranularity, SupportTier};

pub(crate) use normalize::AiderNormalizer;

use crate::catalog::{self, AuthSpec, CliEntry, FlagTable, MakeFactory, PromptArg, QueryArgs};
use crate::process::oneshot::{oneshot_factory, parser_of, CliDriver};
use crate::process::{Version, VersionRange};

/// Aider's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "aider",
    label: "Aider",
    mode: "plain text, --message per turn",
    binaries: &["aider"],
    pin_key: Some("AIDER_VERSION"),
    auth: AuthSpec {
        env_vars: &[
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "GEMINI_API_KEY",
            "OPENROUTER_API_KEY",
            "DEEPSEEK_API_KEY",
        ],
        credential_files: &[],
        status_args: None,
    },
    install_hint: "pipx install aider-chat",
    env_prefixes: &[
        "AIDER_",
        "OPENAI_",
        "ANTHROPIC_",
        "GEMINI_",
        "OPENROUTER_",
        "OLLAMA_",
        "LITELLM_",
    ],
    relevant_env: &["OPENAI_API_BASE", "OPENAI_API_KEY", "AIDER_MODEL"],
    flags: FlagTable {
        query_prompt: PromptArg::Flag("--message"),
        terminal_prompt: PromptArg::InitialInput,
        continue_latest: Some(&["--restore-chat-history"]),
        skip_permissions: Some(&["--yes-always"]),
        model: Some("--model"),
        ..catalog::NO_FLAGS
    },
    token_streaming: true,
    capabilities: Capabilities {
        // Line by line as aider streams; not token deltas.
        streaming: StreamingGranularity::TokenDeltas,
        usage: true,
        tier: SupportTier::Structured,
        ..Capabilities::BASELINE
    },
    // 0.86.2 is pinned in `tests/agents/versions.env`.
    accepted: Some(VersionRange {
        min: Version::new(0, 86, 0),
        max_exclusive: Version::new(0, 87, 0),
    }),
    factory: Some(MakeFactory::of::<AiderFactory>()),
    parser: Some(parser_of::<Driver>()),
    ..catalog::BASE
};

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Driver;

impl CliDriver for Driver {
    type Normalizer = AiderNormalizer;
    const SPEC: &'static CliEntry = &SPEC;
    const CONTINUE_LATEST: bool = true;
    const APPROVAL_FIX: &'static str =
        "set the approval policy at launch: auto-approve lets aider apply edits (--yes-always)";

    fn fixed_env(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("AIDER_ANALYTICS", "false"),
            ("AIDER_CHECK_UPDATE", "false"),
        ]
    }
    fn adjust(&self, q: &mut QueryArgs, config: &AdapterConfig) {
        q.driver_args = [
            "--no-pretty",
            "--stream",
            "--no-fancy-input",
            "--no-check-update",
            "--no-show-model-warnings",
            "--no-show-release-notes",
            "--analytics-disable",
        ]
        .map(String::from)
        .to_vec();
        if config.approval != ApprovalMode::AutoApprove {
            q.driver_tail = vec!["--dry-run".into(), "--no-auto-commits".into()];
            if !config.cwd.join(".git").exists() {
                q.driver_tail.push("--no-git".into());
            }
        }
    }
    fn normalizer(&self, _config: &AdapterConfig, _session: Option<&str>) -> AiderNormalizer {
        AiderNormalizer::new()
    }
    fn cancel_sigints(&self) -> u32 {
        2
    }
}

oneshot_factory!(
    /// Makes Aider adapters.
    pub AiderFactory => Driver
);
