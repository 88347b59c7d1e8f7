//! Continue CLI driver (provider id `continue`, binary `cn`):
//! `cn -p --format json [--config FILE] PROMPT` per turn.
//!
//! Checked against the pinned `@continuedev/cli` 1.5.47 offline: the JSON
//! mode prints one object at the end, so each turn is one chunk (streaming
//! `whole messages`), with no tool events and no usage. Follow-up turns pass
//! `--resume`, which continues the *last* session in Continue's global dir:
//! there is no session id to resume by, so resume is `none` across cohost
//! sessions. Headless `cn` runs its shell tool without asking (even with
//! `--readonly`), so only [`ApprovalMode::AutoApprove`] passes `--auto`;
//! `Ask` and `DenyAll` pass `--exclude` for Bash, Write, Edit and
//! MultiEdit (the model is not offered them; read tools stay).
//! Interrupt: SIGINT to the process group.
//!
//! The model comes from a Continue config file: `--config` in
//! `extra_args` wins, else `$CONTINUE_GLOBAL_DIR/config.yaml` or
//! `~/.continue/config.yaml` when present, else `cn`'s own default
//! (a logged-in Continue Hub assistant).

pub(crate) mod normalize;

use cohost_core::{AdapterConfig, ApprovalMode, Capabilities, SupportTier};
use std::path::PathBuf;

pub(crate) use normalize::ContinueNormalizer;

use crate::catalog::{self, AuthSpec, CliEntry, FlagTable, MakeFactory, QueryArgs};
use crate::process::oneshot::{oneshot_factory, parser_of, CliDriver};
use crate::process::{Version, VersionRange};

/// Continue CLI's provider spec.
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "continue",
    label: "Continue CLI",
    mode: "cn -p --format json",
    binaries: &["cn"],
    pin_key: Some("CONTINUE_CLI_VERSION"),
    auth: AuthSpec {
        env_vars: &["CONTINUE_API_KEY"],
        credential_files: &[".continue/auth.json"],
        status_args: None,
    },
    login_args: Some(&["login"]),
    install_hint: "npm install -g @continuedev/cli",
    env_prefixes: &["CONTINUE_", "NODE_"],
    relevant_env: &["CONTINUE_GLOBAL_DIR"],
    flags: FlagTable {
        non_interactive: &["-p"],
        // `--resume` resumes the last session; there is no by-id resume.
        continue_latest: Some(&["--resume"]),
        skip_permissions: Some(&["--auto"]),
        json_output: Some(&["--format", "json"]),
        ..catalog::NO_FLAGS
    },
    capabilities: Capabilities {
        context_files: true,
        tier: SupportTier::Structured,
        ..Capabilities::BASELINE
    },
    // 1.5.47 is pinned in `tests/agents/versions.env`.
    accepted: Some(VersionRange {
        min: Version::new(1, 5, 0),
        max_exclusive: Version::new(2, 0, 0),
    }),
    factory: Some(MakeFactory::of::<ContinueFactory>()),
    parser: Some(parser_of::<Driver>()),
    ..catalog::BASE
};

/// The tools that change the machine, excluded unless auto-approved.
pub(crate) const MUTATING_TOOLS: [&str; 4] = ["Bash", "Write", "Edit", "MultiEdit"];

/// The Continue config file to pass, when the user did not pass one.
pub(crate) fn config_file(config: &AdapterConfig) -> Option<PathBuf> {
    if config.extra_args.iter().any(|a| a == "--config") {
        return None;
    }
    let var = |k: &str| {
        config
            .env
            .get(k)
            .cloned()
            .or_else(|| std::env::var(k).ok())
            .filter(|v| !v.is_empty())
    };
    let dir = var("CONTINUE_GLOBAL_DIR")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".continue")))?;
    Some(dir.join("config.yaml")).filter(|p| p.is_file())
}

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Driver;

impl CliDriver for Driver {
    type Normalizer = ContinueNormalizer;
    const SPEC: &'static CliEntry = &SPEC;
    const CONTINUE_LATEST: bool = true;
    const END_OF_OPTIONS: bool = true;

    fn adjust(&self, q: &mut QueryArgs, config: &AdapterConfig) {
        if let Some(f) = config_file(config) {
            q.driver_args = vec!["--config".into(), f.display().to_string()];
        }
        if config.approval != ApprovalMode::AutoApprove {
            // `--readonly` does not stop the shell in print mode (checked on
            // 1.5.47); excluding the mutating tools does.
            for tool in MUTATING_TOOLS {
                q.driver_tail
                    .extend(["--exclude".to_string(), tool.to_string()]);
            }
        }
    }
    fn normalizer(&self, _config: &AdapterConfig, _session: Option<&str>) -> ContinueNormalizer {
        ContinueNormalizer::new()
    }
    const APPROVAL_FIX: &'static str = "set the approval policy at launch (auto-approve passes `--auto`), or use `--allow`/`--exclude` in extra_args";
}

oneshot_factory!(
    /// Makes Continue CLI adapters.
    pub ContinueFactory => Driver
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutating_tools_excluded_unless_auto_approve_and_resume_on_follow_ups() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.yaml"), "name: x\n").unwrap();
        let mut cfg = AdapterConfig::default();
        cfg.env.insert(
            "CONTINUE_GLOBAL_DIR".into(),
            dir.path().display().to_string(),
        );
        let a: Vec<String> = Driver
            .turn_args("-q", &cfg, None, false)
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        assert!(!a.contains(&"--auto".to_string()));
        assert!(a.windows(2).any(|w| w == ["--exclude", "Bash"]));
        assert!(!a.contains(&"--resume".to_string()));
        assert!(a
            .windows(2)
            .any(|w| w[0] == "--config" && w[1].ends_with("config.yaml")));
        assert_eq!(&a[a.len() - 2..], ["--", "-q"]);
        cfg.approval = ApprovalMode::AutoApprove;
        let b: Vec<String> = Driver
            .turn_args("q", &cfg, None, true)
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        assert!(b.contains(&"--auto".to_string()) && !b.contains(&"--exclude".to_string()));
        assert!(b.contains(&"--resume".to_string()));
        cfg.extra_args = vec!["--config".into(), "mine.yaml".into()];
        assert!(config_file(&cfg).is_none());
    }
}
