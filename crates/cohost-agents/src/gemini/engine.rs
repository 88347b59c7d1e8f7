//! The gemini adapter: one `gemini -p … --output-format stream-json`
//! process per turn, resumed with `--resume <session id>`.

use async_trait::async_trait;
use cohost_core::{
    AdapterConfig, AgentAdapter, AgentEventStream, ApprovalMode, CohostError, ErrorCode, Health,
    InitInfo, InterruptStage, PromptRequest, ProviderDescriptor, ResumeSupport, ToolDecision,
};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::normalize::GeminiNormalizer;
use super::{descriptor, INSTALL_HINT, TESTED};
use crate::process::oneshot::{lock_state, OneShot, RunState};
use crate::process::{locate_binary, probe, probe_version, EnvPolicy, ProcessSpec};

const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// What `--help` says this installed gemini can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelpFlags {
    /// `--resume` exists.
    pub resume: bool,
    /// `--approval-mode` exists (else only `--yolo`).
    pub approval_mode: bool,
}

impl HelpFlags {
    /// Parse `gemini --help`. `stream-json` output is required.
    pub fn parse(help: &str) -> Result<HelpFlags, CohostError> {
        if !help.contains("stream-json") {
            return Err(CohostError::new(
                ErrorCode::VersionUnsupported,
                format!("this gemini has no `--output-format stream-json`; cohost is tested with {TESTED}"),
            )
            .with_fix(format!("install a gemini CLI in {TESTED} ({INSTALL_HINT})")));
        }
        Ok(HelpFlags {
            resume: help.contains("--resume"),
            approval_mode: help.contains("--approval-mode"),
        })
    }
}

/// The arguments of one turn (pure, for tests).
pub fn turn_args(
    prompt: &str,
    config: &AdapterConfig,
    flags: HelpFlags,
    session: Option<&str>,
) -> Vec<OsString> {
    let table = crate::catalog::flags("gemini");
    // `--prompt=TEXT` keeps a prompt starting with `-` from parsing as a flag.
    let mut args: Vec<OsString> = table
        .prompt_args(prompt)
        .into_iter()
        .map(OsString::from)
        .collect();
    args.extend(table.stream_json_args().into_iter().map(OsString::from));
    if let (Some(s), true) = (session, flags.resume) {
        args.extend(table.resume_args(s).into_iter().map(OsString::from));
    }
    if let Some(m) = &config.model {
        args.extend(table.model_args(m).into_iter().map(OsString::from));
    }
    // Only the user's policy may lift gemini's default (no shell/write tools
    // in headless mode). There is no blocking approval in this mode.
    if config.approval == ApprovalMode::AutoApprove {
        if flags.approval_mode {
            args.extend(table.bypass_args().into_iter().map(OsString::from));
        } else {
            // Versions before `--approval-mode` only know `--yolo`.
            args.push("--yolo".into());
        }
    }
    args.extend(config.extra_args.iter().map(OsString::from));
    args
}

/// The gemini adapter.
pub struct GeminiAdapter {
    descriptor: ProviderDescriptor,
    config: AdapterConfig,
    binary: Option<PathBuf>,
    version: Option<String>,
    flags: HelpFlags,
    state: Arc<Mutex<RunState>>,
    turn: Option<OneShot>,
    terminated: bool,
}

impl GeminiAdapter {
    /// A fresh adapter.
    pub fn new() -> Self {
        GeminiAdapter {
            descriptor: descriptor(),
            config: AdapterConfig::default(),
            binary: None,
            version: None,
            flags: HelpFlags {
                resume: true,
                approval_mode: true,
            },
            state: Arc::default(),
            turn: None,
            terminated: false,
        }
    }

    fn env(&self) -> EnvPolicy {
        let mut env = EnvPolicy::with_prefixes(["GEMINI_", "GOOGLE_"]);
        // One process, not a node parent relaunching a child: signals and
        // exit status then belong to the agent itself.
        env.set("GEMINI_CLI_NO_RELAUNCH", "true");
        env.extend(&self.config.env);
        env
    }
}

impl Default for GeminiAdapter {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl AgentAdapter for GeminiAdapter {
    fn descriptor(&self) -> &ProviderDescriptor {
        &self.descriptor
    }

    async fn initialize(&mut self, config: &AdapterConfig) -> Result<InitInfo, CohostError> {
        self.config = config.clone();
        let env = self.env();
        let path = env.effective_path();
        let binary = locate_binary(
            "gemini",
            "gemini",
            config.binary.as_deref(),
            path.as_deref(),
            INSTALL_HINT,
        )?;
        let (version, _raw) = probe_version("gemini", &binary, &env, PROBE_TIMEOUT).await?;
        TESTED.check("gemini", version, INSTALL_HINT)?;
        let help = probe("gemini", &binary, &["--help"], &env, PROBE_TIMEOUT).await?;
        self.flags = HelpFlags::parse(&help.text)?;
        if !self.flags.resume {
            self.descriptor.capabilities.resume = ResumeSupport::None;
        }
        self.binary = Some(binary);
        self.version = Some(version.to_string());
        let mut st = lock_state(&self.state);
        st.session_id = config.resume.clone();
        st.resumable = config.resume.clone();
        drop(st);
        Ok(InitInfo {
            version: self.version.clone(),
            session_id: config.resume.clone(),
        })
    }

    async fn send_prompt(
        &mut self,
        prompt: PromptRequest,
    ) -> Result<AgentEventStream, CohostError> {
        let Some(binary) = self.binary.clone().filter(|_| !self.terminated) else {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                "the gemini adapter is not initialized",
            )
            .with_fix("initialize the adapter first"));
        };
        if let Some(prev) = self.turn.take() {
            prev.finish().await;
        }
        let mut text = prompt.text;
        for f in &prompt.context_files {
            // Gemini reads `@path` references itself.
            text.push_str(&format!(" @{}", f.path.display()));
        }
        let session = lock_state(&self.state).resumable.clone();
        let mut spec = ProcessSpec::new("gemini", binary);
        spec.args = turn_args(&text, &self.config, self.flags, session.as_deref());
        spec.cwd = Some(self.config.cwd.clone()).filter(|c| !c.as_os_str().is_empty());
        spec.env = self.env();
        lock_state(&self.state).last_error = None;
        let (turn, stream) = OneShot::spawn(spec, GeminiNormalizer::new(), self.state.clone())?;
        self.turn = Some(turn);
        Ok(stream)
    }

    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        match &self.turn {
            Some(t) => t.interrupt(stage),
            None => Ok(()),
        }
    }

    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError> {
        Err(CohostError::new(
            ErrorCode::UnsupportedMode,
            format!(
                "gemini's headless mode cannot wait for approvals (tool call `{}`)",
                decision.tool_id
            ),
        )
        .with_fix("use the `gemini-acp` provider for blocking approvals"))
    }

    async fn health(&mut self) -> Health {
        Health {
            alive: !self.terminated && self.binary.is_some(),
            binary: self.binary.as_ref().map(|b| b.display().to_string()),
            version: self.version.clone(),
            last_error: lock_state(&self.state).last_error.clone(),
        }
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        self.terminated = true;
        if let Some(t) = self.turn.take() {
            t.kill().await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
