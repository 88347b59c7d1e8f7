//! Kilo Code's CLI (provider id `kilo`, npm `@kilocode/cli`): a fork of
//! OpenCode, driven the way OpenCode is. `kilo run --format json --thinking
//! PROMPT` per turn prints OpenCode's JSON lines (checked on the pinned
//! 7.7.7 against cohost-fakellm: `step_start`, `text`, `tool_use`,
//! `step_finish`, `error`; `step_finish` adds a `metrics` object the parser
//! skips), `-s SESSION_ID` resumes, SIGINT stops. Run mode auto-rejects a
//! permission set to `ask`, so approvals are launch policy through
//! `KILO_PERMISSION` (OpenCode's `OPENCODE_PERMISSION` under Kilo's name);
//! blocking approvals and a protocol cancel come through `kilo acp`
//! (provider `kilo-acp`).

use cohost_core::{AdapterConfig, ResumeSupport};

use crate::acp::providers::{pairs, spec as acp_spec};
use crate::acp::spec::AcpSpec;
use crate::catalog::{self, AcpMode, AuthSpec, CliEntry, MakeFactory, QueryArgs};
use crate::opencode::normalize::{OpenCodeNormalizer, Vendor};
use crate::opencode::{permission_env, RUN_CAPABILITIES, RUN_FLAGS};
use crate::process::oneshot::{oneshot_factory, parser_of, CliDriver};
use crate::process::{Version, VersionRange};

/// Kilo Code CLI's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "kilo",
    label: "Kilo Code CLI",
    mode: "run --format json",
    binaries: &["kilo"],
    pin_key: Some("KILO_CLI_VERSION"),
    auth: AuthSpec {
        env_vars: &[
            "KILO_API_KEY",
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "OPENROUTER_API_KEY",
        ],
        // `kilo auth login` stores keys where OpenCode does, under Kilo's name.
        credential_files: &[".local/share/kilo/auth.json"],
        status_args: None,
    },
    login_args: Some(&["auth", "login"]),
    install_hint: "npm install -g @kilocode/cli",
    env_prefixes: &["KILO_"],
    relevant_env: &["KILO_CONFIG", "KILO_CONFIG_CONTENT", "KILO_PERMISSION"],
    flags: RUN_FLAGS,
    capabilities: RUN_CAPABILITIES,
    // 7.7.7 is pinned in `tests/agents/versions.env`.
    accepted: Some(VersionRange {
        min: Version::new(7, 7, 0),
        max_exclusive: Version::new(8, 0, 0),
    }),
    factory: Some(MakeFactory::of::<KiloFactory>()),
    acp: Some(AcpMode {
        id: "kilo-acp",
        spec: acp_launch,
    }),
    parser: Some(parser_of::<Driver>()),
    ..catalog::BASE
};

/// What every Kilo process gets: no self-update replacing the binary in
/// the middle of a session, and no detached daemon that could outlive
/// cohost.
const FIXED_ENV: &[(&str, &str)] = &[("KILO_DISABLE_AUTOUPDATE", "1"), ("KILO_NO_DAEMON", "1")];

/// Kilo's ACP server (`kilo acp`, provider `kilo-acp`). Its default
/// permissions allow shell and edits without asking, so cohost asks it to
/// ask, as for OpenCode.
fn acp_launch() -> AcpSpec {
    let mut s = acp_spec(
        "kilo-acp",
        "Kilo Code CLI (ACP)",
        &SPEC,
        &["acp"],
        &[],
        FIXED_ENV,
        ResumeSupport::NativeId,
    );
    s.ask_env = pairs(&[(
        "KILO_PERMISSION",
        r#"{"bash":"ask","edit":"ask","webfetch":"ask"}"#,
    )]);
    s
}

/// Kilo's names in OpenCode's lines.
#[derive(Debug, Default)]
pub(crate) struct Kilo;

impl Vendor for Kilo {
    const NAME: &'static str = "kilo";
    const SPEC: &'static CliEntry = &SPEC;
    const AUTH_FIX: &'static str =
        "check the provider's apiKey in kilo.json or run `kilo auth login`";
    const PERMISSION_FIX: &'static str =
        "use the `kilo-acp` provider to be asked, or --approve all to let it run tools";
}

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Driver;

impl CliDriver for Driver {
    type Normalizer = OpenCodeNormalizer<Kilo>;
    const SPEC: &'static CliEntry = &SPEC;
    const END_OF_OPTIONS: bool = true;
    const APPROVAL_FIX: &'static str = "use the `kilo-acp` provider for blocking approvals";

    fn fixed_env(&self) -> &'static [(&'static str, &'static str)] {
        FIXED_ENV
    }
    fn adjust(&self, q: &mut QueryArgs, _config: &AdapterConfig) {
        q.driver_args = vec!["--thinking".into()];
    }
    fn normalizer(&self, _config: &AdapterConfig, _session: Option<&str>) -> Self::Normalizer {
        OpenCodeNormalizer::new()
    }
    fn policy_env(&self, config: &AdapterConfig) -> Vec<(&'static str, String)> {
        permission_env(config.approval)
            .map(|p| vec![("KILO_PERMISSION", p.to_string())])
            .unwrap_or_default()
    }
}

oneshot_factory!(
    /// Makes Kilo Code CLI adapters.
    KiloFactory => Driver
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::driver_argv::{contains_seq, oneshot_case};
    use crate::process::oneshot::replay_fixture;
    use cohost_core::{AgentEvent, ApprovalMode, EndReason};

    #[test]
    fn argv_is_opencodes_under_kilos_name() {
        assert_eq!(
            oneshot_case(Driver, "plain", true),
            ["run", "--format", "json", "--thinking", "--", "-hi"]
        );
        assert!(contains_seq(
            &oneshot_case(Driver, "resume", true),
            &["-s".into(), "S1".into()]
        ));
        assert!(contains_seq(
            &oneshot_case(Driver, "model", true),
            &["-m".into(), "m1".into()]
        ));
        assert!(oneshot_case(Driver, "auto", true).contains(&"--auto".to_string()));
        assert!(!oneshot_case(Driver, "plain", true).contains(&"--auto".to_string()));
    }

    #[test]
    fn permissions_are_asked_under_kilos_variable() {
        let mut cfg = AdapterConfig::default();
        let env = Driver.policy_env(&cfg);
        assert_eq!(env.len(), 1);
        assert_eq!(env[0].0, "KILO_PERMISSION");
        assert!(env[0].1.contains(r#""bash":"ask""#));
        cfg.approval = ApprovalMode::AutoApprove;
        assert!(Driver.policy_env(&cfg).is_empty());
        let acp = acp_launch();
        assert_eq!(acp.args, ["acp"]);
        assert!(acp.ask_env.iter().any(|(k, _)| k == "KILO_PERMISSION"));
    }

    #[test]
    fn golden_transcripts_replay() {
        let n = || OpenCodeNormalizer::<Kilo>::new();
        // Every capture against its events snapshot.
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kilo/7.7.7");
        let mut seen = 0;
        for f in std::fs::read_dir(dir).unwrap() {
            let path = f.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                let scenario = path.file_stem().unwrap().to_string_lossy().into_owned();
                let ev = replay_fixture("kilo", "7.7.7", &scenario, n());
                assert!(
                    matches!(ev.last(), Some(AgentEvent::Ended { .. })),
                    "{scenario}: {ev:#?}"
                );
                seen += 1;
            }
        }
        assert!(seen >= 5, "{seen} captures");
        let text = replay_fixture("kilo", "7.7.7", "text", n());
        let answer: String = text
            .iter()
            .filter_map(|e| match e {
                AgentEvent::TextDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert!(answer.starts_with("Hello from fake-llm."), "{text:#?}");
        assert!(matches!(
            text.last(),
            Some(AgentEvent::Ended { reason: EndReason::Completed, usage: Some(u) }) if u.output_tokens > 0
        ));
        let err = replay_fixture("kilo", "7.7.7", "error_401", n());
        let e = err
            .iter()
            .find_map(|e| match e {
                AgentEvent::Error(e) => Some(e),
                _ => None,
            })
            .expect("an error");
        assert_eq!(e.code, cohost_core::ErrorCode::AuthRequired, "{e:?}");
        assert!(e.message.starts_with("kilo: "), "{e:?}");
        assert!(e
            .suggested_fix
            .as_deref()
            .unwrap_or_default()
            .contains("kilo auth login"));
    }
}
