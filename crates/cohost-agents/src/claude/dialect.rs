//! What differs between Claude Code and Qwen Code. Everything else (wire
//! format, normalizer, IO loop) is shared; a new member of the family is a
//! new [`Dialect`] value, written beside its provider spec (`spec.rs`).

use cohost_core::{AdapterConfig, ApprovalMode};

use crate::catalog::CliEntry;

/// One member of the Claude stream-json family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialect {
    /// The provider spec (label, install hint, env prefixes, accepted
    /// versions, flag table).
    pub spec: &'static CliEntry,
    /// Provider id (`claude`, `qwen`), the spec's.
    pub id: &'static str,
    /// Command looked up on PATH, the spec's.
    pub command: &'static str,
    /// Whether `can_use_tool` arrives after the message's `message_stop`
    /// (Qwen) rather than before it (Claude). Decides how long a tool call
    /// is held back to see whether it needs approval.
    pub approval_after_message_stop: bool,
    /// `--help` must mention each of these, or the version cannot be driven.
    pub required_help: &'static [&'static str],
    /// A message whose first text delta starts with this is the CLI
    /// reporting an API error as if the model said it (Qwen). It is kept out
    /// of the answer; the turn's `result` carries the error.
    pub error_text_prefix: Option<&'static str>,
}

impl Dialect {
    /// The command line (without the binary) for a session.
    pub fn args(&self, config: &AdapterConfig) -> Vec<String> {
        let flags = self.spec.flags;
        let mut args: Vec<String> = Vec::new();
        match self.id {
            "qwen" => {
                // Qwen's own default mode auto-approves "safe" tools; cohost
                // must see every request unless the user chose auto-approve.
                args.extend(flags.stream_session_args());
                match config.approval {
                    ApprovalMode::AutoApprove => args.extend(flags.bypass_args()),
                    ApprovalMode::Ask | ApprovalMode::DenyAll => {
                        args.extend(["--approval-mode".into(), "default".into()]);
                    }
                }
                let has_auth_type = config
                    .extra_args
                    .iter()
                    .any(|a| a.starts_with("--auth-type"));
                let key_configured = config.env.contains_key("OPENAI_API_KEY")
                    || std::env::var_os("OPENAI_API_KEY").is_some();
                if !has_auth_type && key_configured {
                    // An OpenAI-compatible key is configured: use it rather
                    // than Qwen's interactive OAuth, which cannot run headless.
                    args.extend(["--auth-type".into(), "openai".into()]);
                }
                if let Some(m) = &config.model {
                    args.extend(flags.model_args(m));
                }
                if let Some(id) = &config.resume {
                    args.extend(flags.resume_args(id));
                }
            }
            _ => {
                args.extend(flags.non_interactive_args());
                args.extend(flags.stream_session_args());
                // Approvals come back over stdio as control requests.
                args.extend(["--permission-prompt-tool".into(), "stdio".into()]);
                if config.approval == ApprovalMode::AutoApprove {
                    args.extend(flags.bypass_args());
                }
                if let Some(m) = &config.model {
                    args.extend(flags.model_args(m));
                }
                if let Some(id) = &config.resume {
                    args.extend(flags.resume_args(id));
                    if config.fork {
                        // A new session id for the branch; the original stays.
                        args.push("--fork-session".into());
                    }
                }
            }
        }
        if let Some(s) = &config.system_prompt {
            args.extend(["--append-system-prompt".into(), s.clone()]);
        }
        args.extend(config.extra_args.iter().cloned());
        args
    }

    /// Variables the driver sets itself (before `AdapterConfig.env`, which wins).
    pub fn driver_env(
        &self,
        config: &AdapterConfig,
        running_as_root: bool,
    ) -> Vec<(String, String)> {
        let mut env = Vec::new();
        if self.id == "claude" && config.approval == ApprovalMode::AutoApprove && running_as_root {
            // Claude Code refuses `--dangerously-skip-permissions` as root
            // unless told it runs in a sandbox. Only the user's explicit
            // auto-approve policy gets here; Ask and DenyAll never set it.
            env.push(("IS_SANDBOX".to_string(), "1".to_string()));
        }
        env
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claude::spec::{CLAUDE, QWEN};

    #[test]
    fn claudes_documented_switches_reach_it_and_other_secrets_do_not() {
        use std::ffi::OsStr;
        let env = crate::claude::engine::env_policy(&CLAUDE, &AdapterConfig::default());
        for name in [
            "DISABLE_TELEMETRY",
            "DISABLE_AUTOUPDATER",
            "DISABLE_ERROR_REPORTING",
            "DISABLE_PROMPT_CACHING_HAIKU",
            "MAX_THINKING_TOKENS",
            "BASH_DEFAULT_TIMEOUT_MS",
            "DO_NOT_TRACK",
            "ANTHROPIC_API_KEY",
        ] {
            assert!(env.allows(OsStr::new(name)), "{name} is dropped");
        }
        for name in [
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "OPENAI_API_KEY",
            "DISABLE",
        ] {
            assert!(!env.allows(OsStr::new(name)), "{name} passes");
        }
    }

    #[test]
    fn bypass_flag_only_with_auto_approve() {
        let mut cfg = AdapterConfig::default();
        for mode in [ApprovalMode::Ask, ApprovalMode::DenyAll] {
            cfg.approval = mode;
            let args = CLAUDE.args(&cfg);
            assert!(!args.iter().any(|a| a.contains("dangerously")), "{mode:?}");
            assert!(CLAUDE.driver_env(&cfg, true).is_empty());
            assert!(QWEN
                .args(&cfg)
                .windows(2)
                .any(|w| w == ["--approval-mode", "default"]));
        }
        cfg.approval = ApprovalMode::AutoApprove;
        assert!(CLAUDE
            .args(&cfg)
            .contains(&"--dangerously-skip-permissions".to_string()));
        assert_eq!(
            CLAUDE.driver_env(&cfg, true),
            vec![("IS_SANDBOX".to_string(), "1".to_string())]
        );
        assert!(CLAUDE.driver_env(&cfg, false).is_empty());
        assert!(QWEN
            .args(&cfg)
            .windows(2)
            .any(|w| w == ["--approval-mode", "yolo"]));
    }

    #[test]
    fn model_resume_and_extra_args() {
        let cfg = AdapterConfig {
            model: Some("m1".into()),
            resume: Some("sess-1".into()),
            extra_args: vec!["--x".into()],
            ..Default::default()
        };
        let args = CLAUDE.args(&cfg);
        assert!(args.windows(2).any(|w| w == ["--model", "m1"]));
        assert!(args.windows(2).any(|w| w == ["--resume", "sess-1"]));
        assert_eq!(args.last().map(String::as_str), Some("--x"));
        let args = QWEN.args(&cfg);
        assert!(args.windows(2).any(|w| w == ["-m", "m1"]));
        assert!(args.windows(2).any(|w| w == ["--resume", "sess-1"]));
    }

    #[test]
    fn fork_resumes_into_a_new_session() {
        let mut cfg = AdapterConfig {
            resume: Some("sess-1".into()),
            ..Default::default()
        };
        assert!(!CLAUDE.args(&cfg).contains(&"--fork-session".to_string()));
        cfg.fork = true;
        let args = CLAUDE.args(&cfg);
        assert!(args
            .windows(3)
            .any(|w| w == ["--resume", "sess-1", "--fork-session"]));
    }
}
