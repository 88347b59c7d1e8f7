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

pub mod normalize;

use cohost_core::{
    AdapterConfig, ApprovalMode, ApprovalSupport, Capabilities, InterruptSupport,
    ProviderDescriptor, ProviderKind, ResumeSupport, StreamingGranularity, SupportTier,
};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

pub use normalize::ContinueNormalizer;

use crate::process::oneshot::{oneshot_factory, CliDriver, SessionArg};
use crate::process::{EnvPolicy, Version, VersionRange};

/// Where to get it.
pub const INSTALL_HINT: &str = "npm install -g @continuedev/cli@1.5.47";

/// Tested versions: 1.5.47 is pinned in `tests/agents/versions.env`.
pub const TESTED: VersionRange = VersionRange {
    min: Version::new(1, 5, 0),
    max_exclusive: Version::new(2, 0, 0),
};

/// The descriptor.
pub fn descriptor() -> ProviderDescriptor {
    ProviderDescriptor {
        id: "continue".into(),
        label: "Continue CLI (cn -p --format json)".into(),
        kind: ProviderKind::AgentCli,
        capabilities: Capabilities {
            streaming: StreamingGranularity::WholeMessages,
            reasoning: false,
            approvals: ApprovalSupport::Advisory,
            interrupt: InterruptSupport::Signal,
            resume: ResumeSupport::None,
            usage: false,
            context_files: true,
            executes_tools: true,
            tier: SupportTier::Structured,
        },
        install_hint: Some(INSTALL_HINT.into()),
    }
}

/// The tools that change the machine, excluded unless auto-approved.
pub const MUTATING_TOOLS: [&str; 4] = ["Bash", "Write", "Edit", "MultiEdit"];

/// The Continue config file to pass, when the user did not pass one.
pub fn config_file(config: &AdapterConfig) -> Option<PathBuf> {
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

/// The arguments of one turn (pure apart from the config lookup).
pub fn turn_args(prompt: &str, config: &AdapterConfig, follow_up: bool) -> Vec<OsString> {
    let flags = crate::catalog::flags("continue");
    let mut args: Vec<OsString> = flags
        .non_interactive_args()
        .into_iter()
        .map(OsString::from)
        .collect();
    args.extend(flags.json_args().into_iter().map(OsString::from));
    if let Some(f) = config_file(config) {
        args.push("--config".into());
        args.push(f.into());
    }
    if follow_up || config.resume.is_some() {
        args.extend(flags.continue_args().into_iter().map(OsString::from));
    }
    if config.approval == ApprovalMode::AutoApprove {
        args.extend(flags.bypass_args().into_iter().map(OsString::from));
    } else {
        // `--readonly` does not stop the shell in print mode (checked on
        // 1.5.47); excluding the mutating tools does.
        for tool in MUTATING_TOOLS {
            args.push("--exclude".into());
            args.push(tool.into());
        }
    }
    args.extend(config.extra_args.iter().map(OsString::from));
    // `--` keeps a prompt that starts with `-` from parsing as a flag.
    args.push("--".into());
    args.extend(flags.prompt_args(prompt).into_iter().map(OsString::from));
    args
}

#[derive(Debug, Default)]
struct Driver {
    turns: AtomicBool,
}

impl CliDriver for Driver {
    type Normalizer = ContinueNormalizer;
    const COMMAND: &'static str = "cn";
    const INSTALL_HINT: &'static str = INSTALL_HINT;
    const TESTED: Option<VersionRange> = Some(TESTED);

    fn descriptor(&self) -> ProviderDescriptor {
        descriptor()
    }
    fn env(&self) -> EnvPolicy {
        EnvPolicy::with_prefixes(["CONTINUE_", "NODE_"])
    }
    fn turn_args(
        &self,
        prompt: &str,
        config: &AdapterConfig,
        _session: Option<&SessionArg>,
    ) -> Vec<OsString> {
        let follow_up = self.turns.swap(true, Ordering::SeqCst);
        turn_args(prompt, config, follow_up)
    }
    fn normalizer(&self, _config: &AdapterConfig, _session: Option<&str>) -> ContinueNormalizer {
        ContinueNormalizer::new()
    }
    const APPROVAL_FIX: &'static str = "set the approval policy at launch (auto-approve passes `--auto`), or use `--allow`/`--exclude` in extra_args";
}

oneshot_factory!(
    /// Makes Continue CLI adapters.
    ContinueFactory => Driver
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
        let a: Vec<String> = turn_args("-q", &cfg, false)
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
        let b: Vec<String> = turn_args("q", &cfg, true)
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        assert!(b.contains(&"--auto".to_string()) && !b.contains(&"--exclude".to_string()));
        assert!(b.contains(&"--resume".to_string()));
        cfg.extra_args = vec!["--config".into(), "mine.yaml".into()];
        assert!(config_file(&cfg).is_none());
    }
}
