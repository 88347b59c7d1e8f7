//! `jsonl` and `text` plugins on the shared one-shot runner
//! ([`OneShot`]): one process per prompt, stdout mapped line by line by
//! [`PluginTurn`], the turn ends when the process exits.

use async_trait::async_trait;
use cohost_core::{
    AdapterConfig, AgentAdapter, AgentEvent, AgentEventStream, CohostError, EndReason, ErrorCode,
    Health, InitInfo, InterruptStage, PromptRequest, ProviderDescriptor, ToolDecision,
};
use cohost_process::provider::{Catalog, CliEntry};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::jsonl::JsonlNormalizer;
use super::manifest::Manifest;
use cohost_process::oneshot::{
    lock_state, turn_marks, Closing, LineMap, OneShot, RunState, TurnExit, TurnMarks,
};
use cohost_process::{
    classify_stderr, crash_report, locate_binary, tail_lines, EnvPolicy, ExitInfo, ProcessSpec,
    PROBE_TIMEOUT,
};

/// Adapter for a one-shot plugin.
pub(crate) struct OneShotAdapter {
    manifest: Manifest,
    catalog: Catalog,
    descriptor: ProviderDescriptor,
    config: AdapterConfig,
    binary: Option<PathBuf>,
    version: Option<String>,
    /// The session id and last crash, shared with the running turn.
    state: Arc<Mutex<RunState>>,
    turn: Option<OneShot>,
}

impl OneShotAdapter {
    /// An uninitialized adapter.
    pub(crate) fn new(
        manifest: Manifest,
        descriptor: ProviderDescriptor,
        catalog: Catalog,
    ) -> Self {
        OneShotAdapter {
            manifest,
            catalog,
            descriptor,
            config: AdapterConfig::default(),
            binary: None,
            version: None,
            state: Arc::default(),
            turn: None,
        }
    }

    fn env(&self) -> EnvPolicy {
        let mut env = EnvPolicy::with_prefixes(self.manifest.env_prefixes.iter().cloned());
        env.extend(self.manifest.env.iter());
        env.extend(self.config.env.iter());
        env
    }

    fn args(&self, prompt: &str, session: Option<&str>) -> Vec<String> {
        let cwd = self.config.cwd.display().to_string();
        let model = self.config.model.clone().unwrap_or_default();
        let fill = |a: &String| {
            a.replace("{prompt}", prompt)
                .replace("{cwd}", &cwd)
                .replace("{model}", &model)
                .replace("{session_id}", session.unwrap_or_default())
        };
        let mut args: Vec<String> = Vec::new();
        if session.is_some() {
            args.extend(self.manifest.resume_args.iter().map(fill));
        }
        if self.config.model.is_some() {
            args.extend(self.manifest.model_args.iter().map(fill));
        }
        args.extend(self.manifest.args.iter().map(fill));
        args.extend(self.config.extra_args.iter().cloned());
        if !self.manifest.args.iter().any(|a| a.contains("{prompt}")) {
            args.push(prompt.to_string());
        }
        args
    }
}

#[async_trait]
impl AgentAdapter for OneShotAdapter {
    fn descriptor(&self) -> &ProviderDescriptor {
        &self.descriptor
    }

    async fn initialize(&mut self, config: &AdapterConfig) -> Result<InitInfo, CohostError> {
        self.config = config.clone();
        let id = self.manifest.id.clone();
        let env = self.env();
        if let Some(name) = env.first_missing(&self.manifest.required_env) {
            return Err(CohostError::new(
                ErrorCode::AuthRequired,
                format!("agent `{id}` needs {name}, which is not set"),
            )
            .with_fix(format!("export {name}=... and retry")));
        }
        let hint = format!("install `{}` or fix `binary` in its plugin manifest", id);
        let path = env.effective_path();
        let mut found = Err(CohostError::new(ErrorCode::ProviderNotFound, "no binary"));
        for name in self.manifest.binary.to_vec() {
            found = locate_binary(&id, &name, config.binary.as_deref(), path.as_deref(), &hint)
                .map_err(CohostError::from);
            if found.is_ok() || config.binary.is_some() {
                break;
            }
        }
        let binary = found?;
        if !self.manifest.version_args.is_empty() {
            let args: Vec<&str> = self
                .manifest
                .version_args
                .iter()
                .map(String::as_str)
                .collect();
            let out = cohost_process::probe(&id, &binary, &args, &env, PROBE_TIMEOUT).await?;
            self.version = out
                .text
                .lines()
                .find(|l| !l.trim().is_empty())
                .map(|l| l.trim().to_string());
        }
        self.binary = Some(binary);
        lock_state(&self.state).session_id = config.resume.clone();
        Ok(InitInfo {
            version: self.version.clone(),
            session_id: config.resume.clone(),
        })
    }

    async fn send_prompt(
        &mut self,
        prompt: PromptRequest,
    ) -> Result<AgentEventStream, CohostError> {
        let id = self.manifest.id.clone();
        let binary = self.binary.clone().ok_or_else(|| {
            CohostError::new(
                ErrorCode::ProcessCrashed,
                format!("agent `{id}` is not initialized"),
            )
            .with_fix("start the session first")
        })?;
        if self.turn.as_ref().is_some_and(OneShot::is_running) {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                format!("agent `{id}` is already running a turn"),
            )
            .with_fix("wait for the turn to end or interrupt it"));
        }
        let session = lock_state(&self.state).session_id.clone();
        let mut text = prompt.text.clone();
        for f in &prompt.context_files {
            text.push_str(&format!("\n@{}", f.path.display()));
        }
        let mut spec = ProcessSpec::new(id.clone(), &binary, self.catalog)
            .args(self.args(&text, session.as_deref()));
        spec.env = self.env();
        spec.for_session(&self.config);
        if !self.config.cwd.as_os_str().is_empty() {
            spec.cwd = Some(self.config.cwd.clone());
        }
        let model = self.config.model.clone();
        let turn = PluginTurn {
            jsonl: self
                .manifest
                .jsonl
                .clone()
                .map(|m| JsonlNormalizer::new(&id, m, session.clone(), model.clone())),
            id,
            session,
            model,
            marks: TurnMarks::default(),
            state: self.state.clone(),
        };
        let (turn, stream) = OneShot::spawn(spec, turn, self.state.clone())?;
        self.turn = Some(turn);
        Ok(stream)
    }

    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        match self.turn.as_ref().filter(|t| t.is_running()) {
            Some(turn) => turn.interrupt(stage),
            None => Ok(()),
        }
    }

    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError> {
        Err(super::error::no_approval_channel(
            &self.manifest.id,
            &decision.tool_id,
            "use protocol = \"acp\" for agents that ask before running tools",
        ))
    }

    async fn health(&mut self) -> Health {
        Health {
            alive: self.binary.is_some(),
            binary: self.binary.as_ref().map(|b| b.display().to_string()),
            version: self.version.clone(),
            last_error: lock_state(&self.state).last_error.clone(),
        }
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        if let Some(turn) = self.turn.take() {
            turn.kill().await;
        }
        Ok(())
    }
}

/// One plugin turn's line map: the manifest's JSON-lines mapping, or each
/// line as text. The turn always ends at the process exit (a manifest's end
/// rule only records usage), so the runner calls [`LineMap::close`] then.
struct PluginTurn {
    id: String,
    jsonl: Option<JsonlNormalizer>,
    /// The session being resumed (text plugins' `Started`).
    session: Option<String>,
    model: Option<String>,
    marks: TurnMarks,
    state: Arc<Mutex<RunState>>,
}

impl PluginTurn {
    /// The failure of an unsuccessful exit, kept as the adapter's last error.
    fn failure(&self, exit: Option<ExitInfo>, stderr: &str) -> Option<CohostError> {
        if exit.is_some_and(|e| e.success()) {
            return None;
        }
        let report = crash_report(&self.id, exit, &tail_lines(stderr, 5));
        lock_state(&self.state).last_error = Some(report.clone());
        let code = classify_stderr(&tail_lines(stderr, 20)).unwrap_or(ErrorCode::ProcessCrashed);
        Some(
            CohostError::new(code, report)
                .with_fix("run the agent's command yourself to see the problem"),
        )
    }

    fn start_text(&mut self, out: &mut Vec<AgentEvent>) {
        let (session, model) = (self.session.clone(), self.model.clone());
        self.marks.start(session, model, out);
    }
}

impl LineMap for PluginTurn {
    const NAME: &'static str = "plugin";
    // `NAME` is no provider id of the list: no login fix of its own.
    const SPEC: Option<&'static CliEntry> = None;
    turn_marks!(marks);

    fn map_line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        match self.jsonl.as_mut() {
            Some(n) => n.on_line(line, out),
            None => {
                self.start_text(out);
                out.push(AgentEvent::TextDelta(format!("{line}\n")));
            }
        }
    }

    /// [`LineMap::close`] opens the turn itself (a JSON-lines mapping keeps
    /// its own `Started`).
    fn open(&mut self, _out: &mut Vec<AgentEvent>) {}

    fn close(&mut self, how: TurnExit<'_>, out: &mut Vec<AgentEvent>) -> Closing {
        let (exit, stderr, interrupted) = (how.info, how.stderr, how.interrupted);
        let failure = self.failure(exit, stderr);
        if let Some(n) = self.jsonl.as_mut() {
            if let Some(sid) = n.session_id() {
                lock_state(&self.state).session_id = Some(sid.to_string());
            }
            n.finish(interrupted, failure, out);
            return Closing::Closed;
        }
        self.start_text(out);
        let reason = if interrupted {
            EndReason::Interrupted
        } else if let Some(e) = failure {
            out.push(AgentEvent::Error(e));
            EndReason::Error
        } else {
            EndReason::Completed
        };
        out.push(AgentEvent::Ended {
            reason,
            usage: None,
        });
        Closing::Closed
    }
}
