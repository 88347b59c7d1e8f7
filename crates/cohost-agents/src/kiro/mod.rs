//! Kiro CLI driver (provider id `kiro`), **fixture-only**: built from the
//! public Kiro CLI docs (kiro.dev/docs/cli/chat, `kiro-cli chat
//! --no-interactive`) and hand-written fixtures; never run here.
//!
//! `kiro-cli chat --no-interactive [--resume] [--trust-all-tools] PROMPT`
//! per turn. The output is plain terminal text, so each line becomes a
//! chunk after escape stripping (no tool events, no usage); the turn ends
//! with the process. `--trust-all-tools` only under
//! [`ApprovalMode::AutoApprove`]; otherwise Kiro's non-interactive mode
//! refuses tools that would need a confirmation. Follow-up turns pass
//! `--resume` (the last conversation in this directory: no id to resume by).

pub(crate) mod normalize;

use cohost_core::{AdapterConfig, Capabilities, StreamingGranularity};

pub(crate) use normalize::KiroNormalizer;

use crate::catalog::{self, AuthSpec, CliEntry, Evidence, FlagTable, MakeFactory, PromptArg};
use crate::process::oneshot::{oneshot_factory, parser_of, CliDriver};

/// Kiro CLI's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "kiro",
    label: "Kiro CLI",
    mode: "chat --no-interactive; fixture-only",
    binaries: &["kiro-cli"],
    auth: AuthSpec {
        status_args: Some(&["whoami"]),
        ..catalog::NO_AUTH
    },
    login_args: Some(&["login"]),
    install_hint: "curl -fsSL https://cli.kiro.dev/install | bash",
    env_prefixes: &["KIRO_", "AWS_"],
    flags: FlagTable {
        non_interactive: &["chat", "--no-interactive"],
        terminal_prompt: PromptArg::InitialInput,
        continue_latest: Some(&["--resume"]),
        skip_permissions: Some(&["--trust-all-tools"]),
        model: Some("--model"),
        ..catalog::NO_FLAGS
    },
    evidence: Evidence::FixtureOnly,
    capabilities: Capabilities {
        streaming: StreamingGranularity::TokenDeltas,
        ..Capabilities::BASELINE
    },
    factory: Some(MakeFactory::of::<KiroFactory>()),
    parser: Some(parser_of::<Driver>()),
    ..catalog::BASE
};

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Driver;

impl CliDriver for Driver {
    type Normalizer = KiroNormalizer;
    const SPEC: &'static CliEntry = &SPEC;
    const CONTINUE_LATEST: bool = true;
    const END_OF_OPTIONS: bool = true;

    fn fixed_env(&self) -> &'static [(&'static str, &'static str)] {
        // Plain text: no colours to strip in the first place.
        &[("NO_COLOR", "1")]
    }
    fn normalizer(&self, _config: &AdapterConfig, _session: Option<&str>) -> KiroNormalizer {
        KiroNormalizer::new()
    }
    const APPROVAL_FIX: &'static str = "set the approval policy at launch (auto-approve passes --trust-all-tools), or --trust-tools in extra_args";
}

oneshot_factory!(
    /// Makes Kiro CLI adapters.
    KiroFactory => Driver
);

#[cfg(test)]
mod tests {
    use super::Driver;
    use crate::catalog::driver_argv::{contains_seq, oneshot_case};

    /// `case -> argv` as the driver built them before reading the flag table.
    #[rustfmt::skip]
    const GOLDEN: &[(&str, &[&str])] = &[
        ("plain", &["chat", "--no-interactive", "--", "-hi"]),
        ("model", &["chat", "--no-interactive", "--model", "m1", "--", "-hi"]),
        ("resume", &["chat", "--no-interactive", "--resume", "--", "-hi"]),
        ("auto", &["chat", "--no-interactive", "--trust-all-tools", "--", "-hi"]),
    ];

    fn argv(case: &str) -> Vec<String> {
        // Follow-up turns continue the directory's last chat: no id.
        oneshot_case(Driver, case, false)
    }

    #[test]
    fn argv_is_unchanged() {
        for (case, want) in GOLDEN {
            assert_eq!(argv(case), *want, "{case}");
        }
    }

    #[test]
    fn uses_its_table_entry() {
        // Plain text output; its mode flags stand in for the output check.
        let f = super::SPEC.flags;
        assert!(f.json_output.is_none() && f.stream_json.is_none());
        let plain = argv("plain");
        assert!(plain.starts_with(&f.non_interactive_args()) && !f.non_interactive.is_empty());
        assert!(contains_seq(&argv("auto"), &f.bypass_args()));
        assert!(!contains_seq(&plain, &f.bypass_args()));
        assert!(contains_seq(&argv("model"), &f.model_args("m1")));
        assert!(contains_seq(&argv("resume"), &f.continue_args()));
    }
}
