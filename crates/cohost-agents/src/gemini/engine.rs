//! The gemini driver on the shared one-shot runner: one `gemini -p …
//! --output-format stream-json` process per turn, resumed with `--resume
//! <session id>` once a turn of that session completed. What `--help` says
//! decides the flags. Its provider spec ([`SPEC`]) is here too: the spec
//! names the driver and the driver reads the spec.

use cohost_core::{
    AdapterConfig, Capabilities, CohostError, ErrorCode, ProviderDescriptor, ResumeSupport,
    StreamingGranularity, SupportTier,
};
#[cfg(test)]
use std::ffi::OsString;
use std::sync::Mutex;

use super::auth;
use super::normalize::GeminiNormalizer;
use crate::acp::providers::spec as acp_spec;
use crate::acp::spec::AcpSpec;
use crate::catalog::{
    self, AcpMode, AuthSpec, CliEntry, FlagTable, HookKind, HookSpec, MakeFactory, Preflight,
    PromptArg, QueryArgs,
};
#[cfg(test)]
use crate::process::oneshot::resuming;
use crate::process::oneshot::{oneshot_factory, parser_of, CliDriver};
use crate::process::{lock, Version, VersionRange};

/// Gemini CLI's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "gemini",
    label: "Gemini CLI",
    mode: "headless stream-json",
    binaries: &["gemini"],
    pin_key: Some("GEMINI_CLI_VERSION"),
    auth: AuthSpec {
        env_vars: &[
            "GEMINI_API_KEY",
            "GOOGLE_API_KEY",
            "GOOGLE_GENAI_USE_VERTEXAI",
            "GOOGLE_GENAI_USE_GCA",
        ],
        credential_files: &[".gemini/oauth_creds.json"],
        status_args: None,
    },
    // Gemini signs in from its own TUI ("Login with Google").
    login_args: Some(&[]),
    install_hint: "npm install -g @google/gemini-cli",
    env_prefixes: &["GEMINI_", "GOOGLE_"],
    relevant_env: &[
        "GEMINI_API_KEY",
        "GOOGLE_GEMINI_BASE_URL",
        "GEMINI_CLI_HOME",
    ],
    flags: FlagTable {
        // `--prompt=TEXT`: a prompt starting with `-` stays a prompt.
        query_prompt: PromptArg::Joined("--prompt"),
        terminal_prompt: PromptArg::InitialInput,
        // 0.61 `--resume` takes `latest` or an index; ids need `--session-id`.
        resume: Some(&["--resume", "{id}"]),
        continue_latest: Some(&["--resume", "latest"]),
        // The driver's spelling; `--yolo` is the older alias.
        skip_permissions: Some(&["--approval-mode", "yolo"]),
        model: Some("--model"),
        json_output: Some(&["--output-format", "json"]),
        stream_json: Some(&["--output-format", "stream-json"]),
        ..catalog::NO_FLAGS
    },
    token_streaming: true,
    api_provider: Some("gemini-api"),
    capabilities: Capabilities {
        streaming: StreamingGranularity::TokenDeltas,
        resume: ResumeSupport::NativeId,
        usage: true,
        context_files: true,
        tier: SupportTier::Structured,
        ..Capabilities::BASELINE
    },
    // 0.61.0 is pinned in `tests/agents/versions.env`; the stream-json
    // format is checked at start-up, so later 0.x releases are accepted.
    accepted: Some(VersionRange {
        min: Version::new(0, 61, 0),
        max_exclusive: Version::new(1, 0, 0),
    }),
    factory: Some(MakeFactory::of::<GeminiFactory>()),
    preflight: Some(Preflight(auth::preflight)),
    acp: Some(AcpMode {
        id: "gemini-acp",
        spec: acp_launch,
    }),
    parser: Some(parser_of::<Driver>()),
    hooks: Some(HookSpec {
        kind: HookKind::JsonEvents(&["AfterTool", "AfterAgent"]),
        dir_env: None,
        home_dir: ".gemini",
        file: "settings.json",
    }),
    ..catalog::BASE
};
/// Gemini CLI in ACP mode (`gemini --acp`, provider `gemini-acp`).
fn acp_launch() -> AcpSpec {
    let mut s = acp_spec(
        "gemini-acp",
        "Gemini CLI (ACP)",
        &SPEC,
        &["--acp"],
        &["--model", "{model}"],
        // One process instead of a re-spawned child: signals reach the agent.
        &[("GEMINI_CLI_NO_RELAUNCH", "true")],
        ResumeSupport::NativeId,
    );
    s.usage = true;
    s
}

oneshot_factory!(
    /// Makes gemini adapters (the shared one-shot runner over [`Driver`]).
    pub GeminiFactory => Driver
);

/// What `--help` says this installed gemini can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HelpFlags {
    /// `--resume` exists.
    pub resume: bool,
    /// `--approval-mode` exists (else only `--yolo`).
    pub approval_mode: bool,
}

impl HelpFlags {
    /// Parse `gemini --help`. `stream-json` output is required.
    pub(crate) fn parse(help: &str) -> Result<HelpFlags, CohostError> {
        if !help.contains("stream-json") {
            let range = SPEC.accepted.map(|r| r.to_string()).unwrap_or_default();
            return Err(CohostError::new(
                ErrorCode::VersionUnsupported,
                format!("this gemini has no `--output-format stream-json`; cohost is tested with {range}"),
            )
            .with_fix(format!("install a gemini CLI in {range} ({})", SPEC.install_fix())));
        }
        Ok(HelpFlags {
            resume: help.contains("--resume"),
            approval_mode: help.contains("--approval-mode"),
        })
    }
}

/// The arguments of one turn (pure, for tests).
#[cfg(test)]
pub(crate) fn turn_args(
    prompt: &str,
    config: &AdapterConfig,
    flags: HelpFlags,
    session: Option<&str>,
) -> Vec<OsString> {
    Driver::with(flags).turn_args(prompt, config, resuming(session).as_ref(), false)
}

/// The gemini driver: the flags its `--help` showed at start-up.
#[derive(Debug)]
pub(crate) struct Driver {
    flags: Mutex<HelpFlags>,
}

impl Driver {
    fn with(flags: HelpFlags) -> Driver {
        Driver {
            flags: Mutex::new(flags),
        }
    }
}

impl Default for Driver {
    fn default() -> Self {
        Driver::with(HelpFlags {
            resume: true,
            approval_mode: true,
        })
    }
}

impl CliDriver for Driver {
    type Normalizer = GeminiNormalizer;
    const SPEC: &'static CliEntry = &SPEC;
    const APPROVAL_FIX: &'static str = "use the `gemini-acp` provider for blocking approvals";
    // Gemini rejects `--resume` of a session whose first turn failed.
    const RESUME_COMPLETED_ONLY: bool = true;
    const PROBE_HELP: bool = true;
    const STREAM: bool = true;
    // `--prompt=TEXT` first, as the pinned gemini was driven.
    const PROMPT_FIRST: bool = true;

    fn fixed_env(&self) -> &'static [(&'static str, &'static str)] {
        // One process, not a node parent relaunching a child: signals and
        // exit status then belong to the agent itself.
        &[("GEMINI_CLI_NO_RELAUNCH", "true")]
    }
    fn policy_env(&self, config: &AdapterConfig) -> Vec<(&'static str, String)> {
        // An auth type for a user whose settings choose none.
        auth::defaults_env(config).into_iter().collect()
    }
    fn check_help(
        &self,
        help: Option<&str>,
        descriptor: &mut ProviderDescriptor,
    ) -> Result<(), CohostError> {
        let Some(help) = help else {
            return Ok(());
        };
        let flags = HelpFlags::parse(help)?;
        if !flags.resume {
            descriptor.capabilities.resume = ResumeSupport::None;
        }
        *lock(&self.flags) = flags;
        Ok(())
    }
    fn adjust(&self, q: &mut QueryArgs, _config: &AdapterConfig) {
        let flags = *lock(&self.flags);
        if !flags.resume {
            q.resume = None;
        }
        // Only the user's policy may lift gemini's default (no shell/write
        // tools in headless mode). There is no blocking approval here.
        if q.skip_permissions && !flags.approval_mode {
            // Versions before `--approval-mode` only know `--yolo`.
            q.skip_permissions = false;
            q.driver_tail.push("--yolo".into());
        }
    }
    fn normalizer(&self, _config: &AdapterConfig, _session: Option<&str>) -> GeminiNormalizer {
        GeminiNormalizer::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_core::ApprovalMode;

    #[test]
    fn bypass_only_under_auto_approve() {
        let flags = HelpFlags {
            resume: true,
            approval_mode: true,
        };
        let mut cfg = AdapterConfig::default();
        let ask = turn_args("hi", &cfg, flags, Some("s1"));
        let ask: Vec<String> = ask.iter().map(|a| a.to_string_lossy().into()).collect();
        assert!(!ask.iter().any(|a| a.contains("yolo")), "{ask:?}");
        assert!(ask.windows(2).any(|w| w == ["--resume", "s1"]));
        assert_eq!(ask[0], "--prompt=hi");
        cfg.approval = ApprovalMode::AutoApprove;
        let auto = turn_args("-x", &cfg, flags, None);
        let auto: Vec<String> = auto.iter().map(|a| a.to_string_lossy().into()).collect();
        assert!(auto.windows(2).any(|w| w == ["--approval-mode", "yolo"]));
        assert!(!auto.iter().any(|a| a == "--resume"));
        cfg.approval = ApprovalMode::DenyAll;
        let deny = turn_args("x", &cfg, flags, None);
        assert!(!deny.iter().any(|a| a.to_string_lossy().contains("yolo")));
    }

    #[test]
    fn help_without_stream_json_is_unsupported() {
        let e = HelpFlags::parse("Usage: gemini [options]").unwrap_err();
        assert_eq!(e.code, ErrorCode::VersionUnsupported);
        let f = HelpFlags::parse("-o stream-json --resume --approval-mode").unwrap();
        assert!(f.resume && f.approval_mode);
    }
}
