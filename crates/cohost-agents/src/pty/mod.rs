//! The PTY tier: drive an interactive program that has no structured mode
//! by typing into a pseudo-terminal and reading its screen output.
//!
//! Degraded by design ([`SupportTier::Pty`]): text arrives as whatever the
//! program prints, cleaned of escape sequences; no tool events, no
//! approvals, no usage, no resume. A turn ends when the program shows its
//! prompt marker again. Interrupts type Ctrl-C first (the terminal sends
//! SIGINT to the program's foreground job, which may keep the program
//! alive), then signal the session's process group.
//!
//! Generic: [`PtyFactory::new`] makes a provider from an id, label, binary,
//! arguments and environment (what a plugin manifest with
//! `protocol = "pty"` carries), [`PtyFactory::with_prompt`] sets the marker.

mod clean;
pub(crate) mod core;
// forkpty(3), the child side before exec, and the raw master fd.
#[allow(unsafe_code)]
mod spawn;

pub(crate) use clean::TextCleaner;
pub(crate) use core::{PtyCore, CTRL_C};
pub use spawn::{PtyChild, PtyOutput};

use async_trait::async_trait;
use cohost_core::{
    AdapterConfig, AdapterFactory, AgentAdapter, AgentEvent, AgentEventStream, ApprovalSupport,
    Capabilities, CohostError, ErrorCode, Health, InitInfo, InterruptStage, PromptRequest,
    ProviderDescriptor, ProviderKind, StreamingGranularity, SupportTier, ToolDecision,
};
use futures::StreamExt;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

use crate::process::{find_on_path, locate_binary, lock, EnvPolicy, GroupSignal};

/// How long the program may take to show its first prompt.
pub(crate) const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// Makes [`PtyAdapter`]s for one interactive program.
#[derive(Debug, Clone)]
pub struct PtyFactory {
    descriptor: ProviderDescriptor,
    binary: PathBuf,
    args: Vec<String>,
    env: BTreeMap<String, String>,
    prompt: String,
}

impl PtyFactory {
    /// A provider `id` that runs `binary args` with `env` on a PTY. The
    /// prompt marker defaults to `"> "`.
    pub fn new(
        id: impl Into<String>,
        label: impl Into<String>,
        binary: impl Into<PathBuf>,
        args: Vec<String>,
        env: BTreeMap<String, String>,
    ) -> Self {
        PtyFactory {
            descriptor: descriptor(id.into(), label.into()),
            binary: binary.into(),
            args,
            env,
            prompt: "> ".into(),
        }
    }

    /// The text the program prints when it waits for input (its prompt,
    /// trailing space included), as it appears after escape stripping.
    pub fn with_prompt(mut self, marker: impl Into<String>) -> Self {
        self.prompt = marker.into();
        self
    }
}

/// The descriptor of a PTY provider: everything degraded, said plainly.
pub(crate) fn descriptor(id: String, label: String) -> ProviderDescriptor {
    ProviderDescriptor {
        id,
        label,
        kind: ProviderKind::AgentCli,
        capabilities: Capabilities {
            streaming: StreamingGranularity::TokenDeltas,
            approvals: ApprovalSupport::None,
            tier: SupportTier::Pty,
            ..Capabilities::BASELINE
        },
        install_hint: None,
    }
}

impl AdapterFactory for PtyFactory {
    fn descriptor(&self) -> ProviderDescriptor {
        self.descriptor.clone()
    }

    fn create(&self) -> Box<dyn AgentAdapter> {
        Box::new(PtyAdapter {
            factory: self.clone(),
            shared: Arc::default(),
            child: None,
            ready: None,
            binary: None,
            terminated: false,
        })
    }

    fn is_available(&self) -> bool {
        self.binary.is_absolute() && self.binary.exists()
            || find_on_path(
                &self.binary.to_string_lossy(),
                std::env::var_os("PATH").as_deref(),
            )
            .is_some()
    }
}

/// State shared with the reader task.
#[derive(Default)]
struct Shared {
    core: Option<PtyCore>,
    turn: Option<mpsc::UnboundedSender<AgentEvent>>,
    last_error: Option<String>,
    alive: bool,
}

/// A running interactive program.
pub(crate) struct PtyAdapter {
    factory: PtyFactory,
    shared: Arc<Mutex<Shared>>,
    child: Option<PtyChild>,
    ready: Option<watch::Receiver<bool>>,
    binary: Option<PathBuf>,
    terminated: bool,
}

impl PtyAdapter {
    fn id(&self) -> &str {
        &self.factory.descriptor.id
    }
}

async fn pump(
    mut rx: mpsc::Receiver<PtyOutput>,
    shared: Arc<Mutex<Shared>>,
    ready: watch::Sender<bool>,
) {
    while let Some(out) = rx.recv().await {
        let mut s = lock(&shared);
        match out {
            PtyOutput::Bytes(b) => {
                let Some(core) = s.core.as_mut() else {
                    continue;
                };
                let events = core.on_output(&b);
                let is_ready = core.is_ready();
                let done = events.iter().any(|e| matches!(e, AgentEvent::Ended { .. }));
                if let Some(tx) = &s.turn {
                    for e in events {
                        let _ = tx.send(e);
                    }
                }
                if done {
                    s.turn = None;
                }
                let _ = ready.send(is_ready);
            }
            PtyOutput::Closed => {
                s.alive = false;
                let closing = s.core.as_mut().and_then(PtyCore::on_exit);
                let banner = s.core.as_ref().map(PtyCore::banner_tail);
                // Without closing events, dropping the sender closes the
                // stream without `Ended`: the engine sees a crash.
                if let (Some(tx), Some(events)) = (s.turn.take(), closing) {
                    for e in events {
                        let _ = tx.send(e);
                    }
                }
                s.last_error = Some(format!(
                    "the program's terminal closed; last output: {}",
                    banner.unwrap_or_default()
                ));
                let _ = ready.send(false);
                return;
            }
        }
    }
}

#[async_trait]
impl AgentAdapter for PtyAdapter {
    fn descriptor(&self) -> &ProviderDescriptor {
        &self.factory.descriptor
    }

    async fn initialize(&mut self, config: &AdapterConfig) -> Result<InitInfo, CohostError> {
        let mut env = EnvPolicy::default();
        env.extend(&self.factory.env);
        env.extend(&config.env);
        // A real terminal type, so programs print their normal prompt.
        if !env.explicit.contains_key("TERM") {
            env.set("TERM", "xterm-256color");
        }
        let id = self.id().to_string();
        let path = env.effective_path();
        let explicit = config.binary.as_deref().unwrap_or(&self.factory.binary);
        let binary = locate_binary(
            &id,
            &self.factory.binary.to_string_lossy(),
            Some(explicit),
            path.as_deref(),
            "install the program or give its full path",
        )?;
        let mut args: Vec<OsString> = self.factory.args.iter().map(OsString::from).collect();
        args.extend(config.extra_args.iter().map(OsString::from));
        let cwd = Some(config.cwd.clone()).filter(|c| !c.as_os_str().is_empty());
        let (child, rx) = PtyChild::spawn(&id, &binary, &args, &env, cwd.as_ref())?;
        {
            let mut s = lock(&self.shared);
            s.core = Some(PtyCore::new(self.factory.prompt.clone()));
            s.alive = true;
            s.last_error = None;
        }
        let (ready_tx, mut ready_rx) = watch::channel(false);
        tokio::spawn(pump(rx, self.shared.clone(), ready_tx));
        self.child = Some(child);
        self.binary = Some(binary);
        // Reduced to a bool at once: the watch guard must not live across an await.
        let ready = matches!(
            tokio::time::timeout(READY_TIMEOUT, ready_rx.wait_for(|r| *r)).await,
            Ok(Ok(_))
        );
        if !ready {
            let tail = lock(&self.shared)
                .core
                .as_ref()
                .map(PtyCore::banner_tail)
                .unwrap_or_default();
            let exited = !lock(&self.shared).alive;
            if let Some(mut c) = self.child.take() {
                c.kill().await;
            }
            if exited {
                return Err(CohostError::new(
                    ErrorCode::ProcessCrashed,
                    format!("`{id}` exited before showing its prompt; last output: {tail}"),
                )
                .with_fix("run the program by hand to see why it exits"));
            }
            return Err(CohostError::new(
                ErrorCode::Timeout,
                format!(
                    "`{id}` did not show its prompt {:?} within {} s; last output: {tail}",
                    self.factory.prompt,
                    READY_TIMEOUT.as_secs()
                ),
            )
            .with_fix("check the program starts interactively, and the prompt marker"));
        }
        self.ready = Some(ready_rx);
        Ok(InitInfo::default())
    }

    async fn send_prompt(
        &mut self,
        prompt: PromptRequest,
    ) -> Result<AgentEventStream, CohostError> {
        let Some(child) = self.child.as_ref().filter(|_| !self.terminated) else {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                format!("the {} adapter is not running", self.id()),
            )
            .with_fix("initialize the adapter first"));
        };
        let (tx, mut rx) = mpsc::unbounded_channel();
        let bytes = {
            let mut s = lock(&self.shared);
            if !s.alive {
                return Err(CohostError::new(
                    ErrorCode::ProcessCrashed,
                    s.last_error.clone().unwrap_or_default(),
                ));
            }
            let Some(core) = s.core.as_mut().filter(|c| c.is_ready()) else {
                return Err(CohostError::new(
                    ErrorCode::IllegalTransition,
                    "the program is not at its prompt",
                )
                .with_fix("wait for the previous turn to end"));
            };
            let bytes = core.begin_turn(&prompt.text);
            let _ = tx.send(AgentEvent::Started {
                session_id: None,
                model: None,
            });
            s.turn = Some(tx);
            bytes
        };
        child.write(&bytes).await?;
        Ok(futures::stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed())
    }

    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        let Some(child) = self.child.as_ref() else {
            return Ok(());
        };
        match stage {
            InterruptStage::Cancel => {
                let bytes = lock(&self.shared)
                    .core
                    .as_mut()
                    .map(PtyCore::interrupt)
                    .unwrap_or(CTRL_C);
                child.write(bytes).await
            }
            InterruptStage::Signal => child.signal(GroupSignal::Interrupt),
            InterruptStage::Terminate => child.signal(GroupSignal::Terminate),
            InterruptStage::Kill => child.signal(GroupSignal::Kill),
        }
    }

    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError> {
        Err(CohostError::new(
            ErrorCode::UnsupportedMode,
            format!(
                "{} runs on a terminal; cohost cannot answer approvals (tool `{}`)",
                self.id(),
                decision.tool_id
            ),
        )
        .with_fix("use a structured driver for this agent, or set its approval policy at launch"))
    }

    async fn health(&mut self) -> Health {
        let alive = self.child.as_mut().is_some_and(PtyChild::is_alive);
        Health {
            alive: alive && !self.terminated,
            binary: self.binary.as_ref().map(|b| b.display().to_string()),
            version: None,
            last_error: lock(&self.shared).last_error.clone(),
        }
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        self.terminated = true;
        if let Some(mut c) = self.child.take() {
            c.kill().await;
        }
        Ok(())
    }
}
