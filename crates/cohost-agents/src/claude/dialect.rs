//! What differs between Claude Code and Qwen Code. Everything else (wire
//! format, normalizer, IO loop) is shared; a new member of the family is a
//! new [`Dialect`] value, written beside its provider spec (`spec.rs`).

use cohost_core::{AdapterConfig, ApprovalMode, McpServer};
use serde_json::{json, Map, Value};

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
    /// The key of a `--mcp-config` server entry that offers the server's
    /// tools to the model from the first request on, rather than deferred
    /// behind the CLI's tool search (Claude `alwaysLoad`, Qwen
    /// `alwaysLoadTools`): the model of a room member must see
    /// `ask_member` without guessing it exists.
    pub mcp_always_load: &'static str,
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
                // One JSON string (Qwen 0.24's `--mcp-config` is a single
                // string), merged over the user's own servers.
                if let Some(json) = mcp_config_json(&config.mcp_servers, self.mcp_always_load) {
                    args.extend(["--mcp-config".into(), json]);
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
                // Claude's `--mcp-config <configs...>` is variadic: a flag
                // must follow it, or it would swallow the next word. Never
                // `--strict-mcp-config`: the user's own servers stay.
                if let Some(json) = mcp_config_json(&config.mcp_servers, self.mcp_always_load) {
                    args.extend(["--mcp-config".into(), json]);
                }
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

/// The `--mcp-config` argument for `servers`: inline JSON in the shape both
/// Claude Code and Qwen Code read (`{"mcpServers": {NAME: {"command",
/// "args", "env", ALWAYS_LOAD: true}}}`, `always_load` the dialect's
/// [`Dialect::mcp_always_load`]), or `None` when there are none, so the
/// command line stays as it was. Servers are checked first
/// ([`crate::mcp_servers::check`]).
pub(crate) fn mcp_config_json(servers: &[McpServer], always_load: &str) -> Option<String> {
    if servers.is_empty() {
        return None;
    }
    let by_name: Map<String, Value> = servers
        .iter()
        .map(|s| {
            let server = json!({
                "command": crate::mcp_servers::command(s),
                "args": s.args,
                "env": s.env,
                always_load: true,
            });
            (s.name.clone(), server)
        })
        .collect();
    Some(json!({ "mcpServers": by_name }).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claude::spec::{CLAUDE, QWEN};
    use crate::mcp_servers::tests::server;

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

    /// The parsed JSON after `--mcp-config`, and what follows it.
    fn mcp_config(args: &[String]) -> Option<(Value, Option<&str>)> {
        let at = args.iter().position(|a| a == "--mcp-config")?;
        let json = serde_json::from_str(args.get(at + 1)?).ok()?;
        Some((json, args.get(at + 2).map(String::as_str)))
    }

    #[test]
    fn no_mcp_servers_no_flag() {
        let cfg = AdapterConfig::default();
        for d in [CLAUDE, QWEN] {
            assert!(!d.args(&cfg).iter().any(|a| a.contains("mcp")), "{}", d.id);
        }
        assert_eq!(mcp_config_json(&[], "alwaysLoad"), None);
    }

    #[test]
    fn one_mcp_server_is_inline_json_before_a_flag() {
        let cfg = AdapterConfig {
            mcp_servers: vec![server(
                "cohost_room",
                "/opt/cohost/bin/cohost",
                &["room-bridge", "--member", "claude"],
                &[("COHOST_ROOM", "r-1")],
            )],
            extra_args: vec!["positional".into()],
            ..Default::default()
        };
        for (d, always_load) in [(CLAUDE, "alwaysLoad"), (QWEN, "alwaysLoadTools")] {
            let want = json!({"mcpServers": {"cohost_room": {
                "command": "/opt/cohost/bin/cohost",
                "args": ["room-bridge", "--member", "claude"],
                "env": {"COHOST_ROOM": "r-1"},
                always_load: true,
            }}});
            let args = d.args(&cfg);
            let (json, next) = mcp_config(&args).unwrap_or_else(|| panic!("{args:?}"));
            assert_eq!(json, want, "{}", d.id);
            assert_eq!(args.iter().filter(|a| *a == "--mcp-config").count(), 1);
            assert!(!args.iter().any(|a| a == "--strict-mcp-config"));
            if d.id == "claude" {
                // Its variadic flag cannot swallow the user's positional
                // word: the fixed `--permission-prompt-tool stdio` follows.
                assert_eq!(next, Some("--permission-prompt-tool"), "{args:?}");
            }
            assert_eq!(args.last().map(String::as_str), Some("positional"));
        }
    }

    #[test]
    fn two_mcp_servers_share_one_flag() {
        let cfg = AdapterConfig {
            mcp_servers: vec![
                server("cohost_room", "/bin/room", &[], &[]),
                server(
                    "notes",
                    "notes-mcp",
                    &["--quote", "a \"b\" \\c"],
                    &[("K", "v w")],
                ),
            ],
            ..Default::default()
        };
        for d in [CLAUDE, QWEN] {
            assert!(d.spec.capabilities.mcp_servers, "{}", d.id);
            let args = d.args(&cfg);
            assert_eq!(args.iter().filter(|a| *a == "--mcp-config").count(), 1);
            let (json, _) = mcp_config(&args).unwrap_or_else(|| panic!("{args:?}"));
            let servers = json["mcpServers"].as_object().unwrap();
            assert_eq!(servers.len(), 2, "{}", d.id);
            assert_eq!(servers["cohost_room"]["args"], json!([]));
            assert_eq!(servers["cohost_room"]["env"], json!({}));
            assert_eq!(servers["notes"]["command"], "notes-mcp");
            assert_eq!(servers["notes"]["args"], json!(["--quote", "a \"b\" \\c"]));
            assert_eq!(servers["notes"]["env"], json!({"K": "v w"}));
            for s in servers.values() {
                assert_eq!(s[d.mcp_always_load], true, "{}: {s}", d.id);
            }
        }
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
