//! The IO shell for `jsonl` and `text` plugins: one process per prompt,
//! stdout mapped line by line, the turn ends when the process exits.

use async_trait::async_trait;
use cohost_core::{
    AdapterConfig, AgentAdapter, AgentEvent, AgentEventStream, CohostError, ErrorCode, Health,
    InitInfo, InterruptStage, PromptRequest, ProviderDescriptor, ToolDecision,
};
use futures::StreamExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::jsonl::JsonlNormalizer;
use super::manifest::{Manifest, Protocol};
use crate::process::oneshot::ladder_signal;
use crate::process::{
    locate_binary, lock, EnvPolicy, Frame, GroupSignal, ProcessSpec, Supervised, PROBE_TIMEOUT,
};

/// Adapter for a one-shot plugin.
pub struct OneShotAdapter {
    manifest: Manifest,
    descriptor: ProviderDescriptor,
    config: AdapterConfig,
    binary: Option<PathBuf>,
    version: Option<String>,
    /// Shared with the running turn's task.
    session_id: Arc<Mutex<Option<String>>>,
    child: Option<Arc<Supervised>>,
    interrupted: Arc<AtomicBool>,
    last_error: Arc<Mutex<Option<String>>>,
}

impl OneShotAdapter {
    /// An uninitialized adapter.
    pub fn new(manifest: Manifest, descriptor: ProviderDescriptor) -> Self {
        OneShotAdapter {
            manifest,
            descriptor,
            config: AdapterConfig::default(),
            binary: None,
            version: None,
            session_id: Arc::default(),
            child: None,
            interrupted: Arc::default(),
            last_error: Arc::default(),
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

/// Whether any of `names` is set non-empty in the child's environment.
pub(crate) fn missing_env(required: &[String], env: &EnvPolicy) -> Option<String> {
    let built = env.build_from_process();
    required
        .iter()
        .find(|n| {
            built
                .get(std::ffi::OsStr::new(n.as_str()))
                .is_none_or(|v| v.is_empty())
        })
        .cloned()
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
        if let Some(name) = missing_env(&self.manifest.required_env, &env) {
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
            found = locate_binary(&id, &name, config.binary.as_deref(), path.as_deref(), &hint);
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
            let out = crate::process::probe(&id, &binary, &args, &env, PROBE_TIMEOUT).await?;
            self.version = out
                .text
                .lines()
                .find(|l| !l.trim().is_empty())
                .map(|l| l.trim().to_string());
        }
        self.binary = Some(binary);
        *lock(&self.session_id) = config.resume.clone();
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
        if self.child.as_ref().is_some_and(|c| c.is_alive()) {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                format!("agent `{id}` is already running a turn"),
            )
            .with_fix("wait for the turn to end or interrupt it"));
        }
        let session = lock(&self.session_id).clone();
        let mut text = prompt.text.clone();
        for f in &prompt.context_files {
            text.push_str(&format!("\n@{}", f.path.display()));
        }
        let mut spec =
            ProcessSpec::new(id.clone(), &binary).args(self.args(&text, session.as_deref()));
        spec.env = self.env();
        if !self.config.cwd.as_os_str().is_empty() {
            spec.cwd = Some(self.config.cwd.clone());
        }
        let mut child = Supervised::spawn(spec)?;
        child.stdin().close().await;
        let mut frames = child.take_stdout().ok_or_else(|| {
            CohostError::new(ErrorCode::SpawnFailed, "agent stdout was not captured")
        })?;
        let child = Arc::new(child);
        self.child = Some(child.clone());
        self.interrupted.store(false, Ordering::SeqCst);
        let (tx, rx) = futures::channel::mpsc::unbounded();
        let protocol = self.manifest.protocol;
        let mut normalizer = self
            .manifest
            .jsonl
            .clone()
            .map(|m| JsonlNormalizer::new(&id, m, session.clone(), self.config.model.clone()));
        let (interrupted, session_slot, last_error) = (
            self.interrupted.clone(),
            self.session_id.clone(),
            self.last_error.clone(),
        );
        let model = self.config.model.clone();
        tokio::spawn(async move {
            let mut out = Vec::new();
            if protocol == Protocol::Text {
                out.push(AgentEvent::Started {
                    session_id: session.clone(),
                    model,
                });
            }
            while let Some(frame) = frames.recv().await {
                match (frame, normalizer.as_mut()) {
                    (Frame::Line(l), Some(n)) => n.on_line(&l, &mut out),
                    (Frame::Line(l), None) => out.push(AgentEvent::TextDelta(format!("{l}\n"))),
                    (Frame::Oversized { bytes }, _) => out.push(AgentEvent::Error(
                        crate::process::oversized_line_error(&id, bytes),
                    )),
                }
                for ev in out.drain(..) {
                    let _ = tx.unbounded_send(ev);
                }
            }
            let exit = child.settle(Duration::from_secs(5)).await;
            let was_interrupted = interrupted.load(Ordering::SeqCst);
            let failure = match exit {
                Some(e) if e.success() => None,
                _ => {
                    let report = child.crash_report();
                    *lock(&last_error) = Some(report.clone());
                    let code = crate::process::classify_stderr(&child.stderr_tail(20))
                        .unwrap_or(ErrorCode::ProcessCrashed);
                    Some(
                        CohostError::new(code, report)
                            .with_fix("run the agent's command yourself to see the problem"),
                    )
                }
            };
            match normalizer.as_mut() {
                Some(n) => {
                    if let Some(sid) = n.session_id() {
                        *lock(&session_slot) = Some(sid.to_string());
                    }
                    n.finish(was_interrupted, failure, &mut out);
                }
                None => {
                    let reason = if was_interrupted {
                        cohost_core::EndReason::Interrupted
                    } else if let Some(e) = failure {
                        out.push(AgentEvent::Error(e));
                        cohost_core::EndReason::Error
                    } else {
                        cohost_core::EndReason::Completed
                    };
                    out.push(AgentEvent::Ended {
                        reason,
                        usage: None,
                    });
                }
            }
            for ev in out.drain(..) {
                let _ = tx.unbounded_send(ev);
            }
            // The turn is over: what is left of its processes dies now.
            child.kill_tree();
        });
        Ok(rx.boxed())
    }

    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        let Some(child) = self.child.as_ref().filter(|c| c.is_alive()) else {
            return Ok(());
        };
        self.interrupted.store(true, Ordering::SeqCst);
        child.signal(ladder_signal(stage)).map(|_| ())
    }

    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError> {
        Err(CohostError::new(
            ErrorCode::UnsupportedMode,
            format!(
                "agent `{}` has no approval channel (tool call `{}`)",
                self.manifest.id, decision.tool_id
            ),
        )
        .with_fix("use protocol = \"acp\" for agents that ask before running tools"))
    }

    async fn health(&mut self) -> Health {
        Health {
            alive: self.binary.is_some(),
            binary: self.binary.as_ref().map(|b| b.display().to_string()),
            version: self.version.clone(),
            last_error: lock(&self.last_error).clone(),
        }
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        if let Some(child) = self.child.take() {
            // The group is killed when the last handle drops; do it now.
            if let Err(e) = child.signal(GroupSignal::Kill) {
                tracing::debug!(error = %e, "killing a finished plugin turn");
            }
        }
        Ok(())
    }
}
