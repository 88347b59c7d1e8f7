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
//! arguments and environment, [`PtyFactory::with_prompt`] sets the marker.
//! A plugin manifest with `protocol = "pty"` makes one with everything its
//! keys say ([`PtySpec`]: several binary names, `{cwd}` / `{model}` in the
//! arguments, model arguments, inherited prefixes, required variables, a
//! version probe).

mod clean;
pub(crate) mod core;
// forkpty(3), the child side before exec, and the raw master fd.
#[allow(unsafe_code)]
mod spawn;

pub use clean::TextCleaner;
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
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

use cohost_process::{
    find_on_path, locate_binary, lock, probe, EnvPolicy, GroupSignal, PROBE_TIMEOUT,
};

/// How long the program may take to show its first prompt.
pub(crate) const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// Makes [`PtyAdapter`]s for one interactive program.
#[derive(Debug, Clone)]
pub struct PtyFactory {
    descriptor: ProviderDescriptor,
    spec: PtySpec,
}

/// What a PTY provider runs and how (all of it is what a plugin manifest
/// with `protocol = "pty"` says).
#[derive(Debug, Clone)]
pub(crate) struct PtySpec {
    /// Executable names (looked up on PATH) or paths, tried in order.
    pub(crate) binaries: Vec<String>,
    /// Arguments; `{cwd}` and `{model}` are replaced.
    pub(crate) args: Vec<String>,
    /// Arguments put before `args` when a model is chosen (`{model}`).
    pub(crate) model_args: Vec<String>,
    /// Variables set for the program.
    pub(crate) env: BTreeMap<String, String>,
    /// Prefixes of the user's variables the program inherits.
    pub(crate) env_prefixes: Vec<String>,
    /// Variables that must be set (checked before spawning).
    pub(crate) required_env: Vec<String>,
    /// Arguments that print the version (empty: no probe).
    pub(crate) version_args: Vec<String>,
    /// The prompt marker (see [`PtyFactory::with_prompt`]).
    pub(crate) prompt: String,
    /// What to do when no binary is found.
    pub(crate) install_hint: String,
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
        let spec = PtySpec {
            binaries: vec![binary.into().to_string_lossy().into_owned()],
            args,
            model_args: Vec::new(),
            env,
            env_prefixes: Vec::new(),
            required_env: Vec::new(),
            version_args: Vec::new(),
            prompt: "> ".into(),
            install_hint: "install the program or give its full path".into(),
        };
        PtyFactory::from_spec(descriptor(id.into(), label.into()), spec)
    }

    /// A provider with this descriptor running `spec`.
    pub(crate) fn from_spec(descriptor: ProviderDescriptor, spec: PtySpec) -> Self {
        PtyFactory { descriptor, spec }
    }

    /// The text the program prints when it waits for input (its prompt,
    /// trailing space included), as it appears after escape stripping.
    pub fn with_prompt(mut self, marker: impl Into<String>) -> Self {
        self.spec.prompt = marker.into();
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
            version: None,
            terminated: false,
        })
    }

    fn is_available(&self) -> bool {
        let path = std::env::var_os("PATH");
        self.spec.binaries.iter().any(|b| {
            let b = Path::new(b);
            b.is_absolute() && b.exists()
                || find_on_path(&b.to_string_lossy(), path.as_deref()).is_some()
        })
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
    /// First line of the version probe's output, when the spec has one.
    version: Option<String>,
    terminated: bool,
}

impl PtyAdapter {
    fn id(&self) -> &str {
        &self.factory.descriptor.id
    }

    /// The program's arguments: model arguments (when a model is chosen),
    /// the spec's, then the config's extras; `{cwd}` and `{model}` filled.
    fn args(&self, config: &AdapterConfig) -> Vec<OsString> {
        let spec = &self.factory.spec;
        let cwd = config.cwd.display().to_string();
        let model = config.model.clone().unwrap_or_default();
        let fill = |a: &String| OsString::from(a.replace("{cwd}", &cwd).replace("{model}", &model));
        let model_args = config.model.is_some().then_some(&spec.model_args);
        model_args
            .into_iter()
            .flatten()
            .chain(&spec.args)
            .map(fill)
            .chain(config.extra_args.iter().map(OsString::from))
            .collect()
    }

    /// The first of the spec's binaries found (or the config's binary).
    fn locate(&self, config: &AdapterConfig, env: &EnvPolicy) -> Result<PathBuf, CohostError> {
        let spec = &self.factory.spec;
        let path = env.effective_path();
        let mut found = Err(CohostError::new(
            ErrorCode::ProviderNotFound,
            format!("`{}` names no program", self.id()),
        ));
        for name in &spec.binaries {
            let explicit = config.binary.clone().unwrap_or_else(|| PathBuf::from(name));
            found = locate_binary(
                self.id(),
                name,
                Some(&explicit),
                path.as_deref(),
                &spec.install_hint,
            )
            .map_err(CohostError::from);
            if found.is_ok() || config.binary.is_some() {
                break;
            }
        }
        found
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
        let spec = &self.factory.spec;
        let mut env = EnvPolicy::with_prefixes(spec.env_prefixes.iter().cloned());
        env.extend(&spec.env);
        env.extend(&config.env);
        // A real terminal type, so programs print their normal prompt.
        if !env.explicit.contains_key("TERM") {
            env.set("TERM", "xterm-256color");
        }
        let id = self.id().to_string();
        // The pty launch has no supervisor to enforce the OS sandbox.
        if config.sandbox.mode == cohost_core::SandboxMode::Required {
            return Err(CohostError::new(
                ErrorCode::UnsupportedMode,
                format!("`{id}` runs in a terminal, which cohost cannot sandbox yet"),
            )
            .with_fix("use --sandbox=on (it runs unconfined, with a warning) or --sandbox=off"));
        }
        if config.sandbox.mode.is_on() {
            tracing::warn!(provider = %id, "a terminal agent runs outside the OS sandbox");
        }
        if let Some(name) = env.first_missing(&spec.required_env) {
            return Err(CohostError::new(
                ErrorCode::AuthRequired,
                format!("agent `{id}` needs {name}, which is not set"),
            )
            .with_fix(format!("export {name}=... and retry")));
        }
        let binary = self.locate(config, &env)?;
        self.version = None;
        if !spec.version_args.is_empty() {
            let args: Vec<&str> = spec.version_args.iter().map(String::as_str).collect();
            let out = probe(&id, &binary, &args, &env, PROBE_TIMEOUT).await?;
            self.version = out
                .text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(String::from);
        }
        let args = self.args(config);
        let cwd = Some(config.cwd.clone()).filter(|c| !c.as_os_str().is_empty());
        let (child, rx) = PtyChild::spawn(&id, &binary, &args, &env, cwd.as_ref())?;
        {
            let mut s = lock(&self.shared);
            s.core = Some(PtyCore::new(self.factory.spec.prompt.clone()));
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
                    self.factory.spec.prompt,
                    READY_TIMEOUT.as_secs()
                ),
            )
            .with_fix("check the program starts interactively, and the prompt marker"));
        }
        self.ready = Some(ready_rx);
        Ok(InitInfo {
            version: self.version.clone(),
            session_id: None,
        })
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
            version: self.version.clone(),
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
