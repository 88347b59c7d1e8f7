//! The IO shell: locate the agent, spawn it through the shared supervisor,
//! pump stdout through the [`AcpClient`], route events to the running turn,
//! write what the client asks, perform confined file requests.

use cohost_core::{AdapterConfig, AgentEvent, ApprovalMode, CohostError, ErrorCode};
use futures::channel::mpsc as fmpsc;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

use super::fs::FsRoot;
use super::normalize::{AcpClient, ClientConfig, Opened, Output};
use super::providers::{self, AcpSpec};
use crate::process::{
    classify_stderr, locate_binary, lock, EnvPolicy, Frame, ProcessSpec, StdinWriter, Supervised,
};

/// How long the handshake (initialize + session/new or load) may take; a
/// cold node agent on a busy machine needs many seconds.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(90);

/// Shared between the adapter and the reader task.
pub(crate) struct Shared {
    client: Mutex<AcpClient>,
    turn: Mutex<Option<fmpsc::UnboundedSender<AgentEvent>>>,
    stdout_closed: AtomicBool,
}

impl Shared {
    pub(crate) fn client(&self) -> MutexGuard<'_, AcpClient> {
        lock(&self.client)
    }
    pub(crate) fn turn(&self) -> MutexGuard<'_, Option<fmpsc::UnboundedSender<AgentEvent>>> {
        lock(&self.turn)
    }
    pub(crate) fn stdout_closed(&self) -> bool {
        self.stdout_closed.load(Ordering::SeqCst)
    }
}

/// A running ACP agent with an open session.
pub(crate) struct Engine {
    pub shared: Arc<Shared>,
    pub child: Supervised,
    pub stdin: StdinWriter,
    pub binary: PathBuf,
    pub cwd: PathBuf,
    pub opened: Opened,
}

/// Vendor prefixes, driver variables, then the user's `AdapterConfig.env`.
pub(crate) fn env_policy(spec: &AcpSpec, config: &AdapterConfig) -> EnvPolicy {
    let mut env = EnvPolicy::with_prefixes(spec.env_prefixes.iter().cloned());
    for (k, v) in &spec.env {
        env.set(k, v);
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        for (k, v) in &spec.root_env {
            env.set(k, v);
        }
    }
    if config.approval != ApprovalMode::AutoApprove {
        for (k, v) in &spec.ask_env {
            if !config.env.contains_key(k) && std::env::var_os(k).is_none() {
                env.set(k, v);
            }
        }
    }
    env.extend(config.env.iter());
    env
}

/// The command line: ACP args, approval-policy args, model args, then the
/// user's extra args (last, so they win).
pub(crate) fn args(spec: &AcpSpec, config: &AdapterConfig, sandbox_bwrap: bool) -> Vec<String> {
    let mut args = spec.args.clone();
    args.extend(providers::policy_args(
        &spec.id,
        config.approval,
        sandbox_bwrap,
    ));
    if let Some(model) = &config.model {
        args.extend(spec.model_args.iter().map(|a| a.replace("{model}", model)));
    }
    args.extend(config.extra_args.iter().cloned());
    args
}

fn missing_env(spec: &AcpSpec, env: &EnvPolicy) -> Option<String> {
    spec.required_env
        .iter()
        .find(|name| {
            env.explicit.get(*name).is_none_or(String::is_empty)
                && std::env::var(name).map_or(true, |v| v.is_empty() || !env.allows(name.as_ref()))
        })
        .cloned()
}

impl Engine {
    /// Spawn the agent and open a session.
    pub(crate) async fn start(
        spec: &AcpSpec,
        config: &AdapterConfig,
    ) -> Result<Engine, CohostError> {
        let env = env_policy(spec, config);
        if let Some(name) = missing_env(spec, &env) {
            return Err(CohostError::new(
                ErrorCode::AuthRequired,
                format!("agent `{}` needs {name}, which is not set", spec.id),
            )
            .with_fix(format!("export {name}=... and retry")));
        }
        let path = env.effective_path();
        let binary = locate(spec, config, path.as_deref())?;
        let cwd = if config.cwd.as_os_str().is_empty() {
            std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))
        } else {
            config.cwd.clone()
        };
        let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
        let bwrap = providers::bwrap_available(&binary, path.as_deref());
        let mut pspec = ProcessSpec::new(spec.id.clone(), &binary).args(args(spec, config, bwrap));
        pspec.env = env;
        pspec.cwd = Some(cwd.clone());
        let mut child = Supervised::spawn(pspec)?;
        let frames = child.take_stdout().ok_or_else(|| {
            CohostError::new(ErrorCode::SpawnFailed, "agent stdout was not captured")
        })?;
        let mut client = AcpClient::new(ClientConfig {
            provider_id: spec.id.clone(),
            cwd: cwd.display().to_string(),
            approval: config.approval,
            resume: config.resume.clone(),
            model: config.model.clone(),
            text_errors: spec.text_errors,
        });
        let init = client.initialize();
        let shared = Arc::new(Shared {
            client: Mutex::new(client),
            turn: Mutex::new(None),
            stdout_closed: AtomicBool::new(false),
        });
        let stdin = child.stdin();
        let (open_tx, open_rx) = oneshot::channel();
        let root = FsRoot::new(&cwd);
        tokio::spawn(pump(
            frames,
            shared.clone(),
            stdin.clone(),
            root,
            Some(open_tx),
        ));
        stdin.write_line(&init).await?;
        match tokio::time::timeout(HANDSHAKE_TIMEOUT, open_rx).await {
            Ok(Ok(Ok(opened))) => Ok(Engine {
                shared,
                child,
                stdin,
                binary,
                cwd,
                opened,
            }),
            Ok(Ok(Err(e))) => {
                child.terminate(Duration::from_millis(300)).await;
                Err(e)
            }
            Ok(Err(_)) => {
                child.settle(Duration::from_secs(2)).await;
                let report = child.crash_report();
                let code =
                    classify_stderr(&child.stderr_tail(20)).unwrap_or(ErrorCode::SpawnFailed);
                Err(
                    CohostError::new(code, format!("{report} before opening an ACP session"))
                        .with_fix(format!(
                            "run `{} {}` yourself to see the problem",
                            binary.display(),
                            spec.args.join(" ")
                        )),
                )
            }
            Err(_) => {
                child.kill().await;
                Err(CohostError::new(
                    ErrorCode::Timeout,
                    format!(
                        "agent `{}` did not open an ACP session within {} s",
                        spec.id,
                        HANDSHAKE_TIMEOUT.as_secs()
                    ),
                )
                .with_fix("check that the agent starts on its own (login prompts, updates)"))
            }
        }
    }
}

fn locate(
    spec: &AcpSpec,
    config: &AdapterConfig,
    path: Option<&std::ffi::OsStr>,
) -> Result<PathBuf, CohostError> {
    let mut first_err = None;
    for name in &spec.binaries {
        match locate_binary(
            &spec.id,
            name,
            config.binary.as_deref(),
            path,
            &spec.install_hint,
        ) {
            Ok(p) => return Ok(p),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
        if config.binary.is_some() {
            break;
        }
    }
    Err(first_err.unwrap_or_else(|| {
        CohostError::new(
            ErrorCode::ProviderNotFound,
            format!("agent `{}` names no binary", spec.id),
        )
        .with_fix(spec.install_hint.clone())
    }))
}

/// The reader task: stdout frames → client → turn stream / stdin / disk.
async fn pump(
    mut frames: mpsc::Receiver<Frame>,
    shared: Arc<Shared>,
    stdin: StdinWriter,
    root: FsRoot,
    mut open_tx: Option<oneshot::Sender<Result<Opened, CohostError>>>,
) {
    let mut outputs = Vec::new();
    while let Some(frame) = frames.recv().await {
        {
            let mut c = shared.client();
            match frame {
                Frame::Line(l) => c.on_line(&l, &mut outputs),
                Frame::Oversized { bytes } => c.on_oversized(bytes, &mut outputs),
            }
        }
        for o in outputs.drain(..) {
            match o {
                Output::Event(ev) => send_event(&shared, ev),
                Output::Write(line) => write(&stdin, &line).await,
                Output::Fs { id, op } => write(&stdin, &root.answer(&id, op).await).await,
                Output::Opened(opened) => {
                    if let Some(tx) = open_tx.take() {
                        let _ = tx.send(Ok(opened));
                    }
                }
                Output::Failed(e) => {
                    if let Some(tx) = open_tx.take() {
                        let _ = tx.send(Err(e));
                    }
                }
            }
        }
    }
    // stdout closed: the agent is gone or going. Dropping the turn sender
    // without `Ended` tells the host session engine the agent crashed.
    shared.stdout_closed.store(true, Ordering::SeqCst);
    shared.turn().take();
    drop(open_tx);
}

pub(crate) fn send_event(shared: &Shared, ev: AgentEvent) {
    let ended = matches!(ev, AgentEvent::Ended { .. });
    let mut turn = shared.turn();
    if let Some(tx) = turn.as_ref() {
        // A receiver dropped mid-turn only means nobody listens any more.
        let _ = tx.unbounded_send(ev);
    }
    if ended {
        *turn = None;
    }
}

pub(crate) async fn write(stdin: &StdinWriter, line: &str) {
    if let Err(e) = stdin.write_line(line).await {
        tracing::debug!(error = %e, "write to ACP agent failed");
    }
}
