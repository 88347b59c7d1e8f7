//! The IO shell: find and check the binary, spawn it through the shared
//! supervisor, pump stdout through the [`Normalizer`], route events to the
//! running turn, write what the normalizer asks to stdin.

use cohost_core::{AdapterConfig, AgentEvent, ApprovalMode, CohostError, ErrorCode};
use futures::channel::mpsc as fmpsc;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

use super::dialect::Dialect;
use super::normalize::{Normalizer, NormalizerConfig, Output};
use crate::process::{
    locate_checked, lock, probe, EnvPolicy, Frame, ProcessSpec, StdinWriter, Supervised,
    PROBE_TIMEOUT,
};

/// How long the CLI may take to answer `initialize`.
const INIT_TIMEOUT: Duration = Duration::from_secs(60);

/// Shared between the adapter and the reader task.
pub(crate) struct Shared {
    pub normalizer: Mutex<Normalizer>,
    /// Sender of the running turn's stream; `None` between turns.
    pub turn: Mutex<Option<fmpsc::UnboundedSender<AgentEvent>>>,
    /// Set when stdout reached EOF (the process is gone or going).
    pub stdout_closed: std::sync::atomic::AtomicBool,
}

/// A running CLI session.
pub(crate) struct Engine {
    pub shared: Arc<Shared>,
    pub child: Supervised,
    pub stdin: StdinWriter,
    pub binary: PathBuf,
    pub version: String,
    pub session_id: Option<String>,
}

impl Shared {
    pub(crate) fn lock_normalizer(&self) -> std::sync::MutexGuard<'_, Normalizer> {
        lock(&self.normalizer)
    }
    pub(crate) fn lock_turn(
        &self,
    ) -> std::sync::MutexGuard<'_, Option<fmpsc::UnboundedSender<AgentEvent>>> {
        lock(&self.turn)
    }
    pub(crate) fn stdout_closed(&self) -> bool {
        self.stdout_closed.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// The environment policy for a session: vendor prefixes, driver variables,
/// then the user's `AdapterConfig.env` (which wins).
pub(crate) fn env_policy(dialect: &Dialect, config: &AdapterConfig) -> EnvPolicy {
    let mut env = EnvPolicy::with_prefixes(dialect.spec.env_prefixes.iter().copied());
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    for (k, v) in dialect.driver_env(config, root) {
        env.set(k, v);
    }
    env.extend(config.env.iter());
    env
}

/// Locate, version-check and capability-check the CLI.
pub(crate) async fn check_binary(
    dialect: &Dialect,
    config: &AdapterConfig,
    env: &EnvPolicy,
) -> Result<(PathBuf, String), CohostError> {
    let (binary, version) = locate_checked(dialect.spec, config.binary.as_deref(), env).await?;
    let version = version.map(|v| v.to_string()).unwrap_or_default();
    let help = probe(dialect.id, &binary, &["--help"], env, PROBE_TIMEOUT).await?;
    let missing: Vec<&str> = dialect
        .required_help
        .iter()
        .copied()
        .filter(|f| !help.text.contains(f))
        .collect();
    if !missing.is_empty() {
        return Err(CohostError::new(
            ErrorCode::VersionUnsupported,
            format!(
                "agent `{}` {version} lacks what cohost needs: {}",
                dialect.id,
                missing.join(", ")
            ),
        )
        .with_fix(format!(
            "install a version in {} ({})",
            dialect
                .spec
                .accepted
                .map(|r| r.to_string())
                .unwrap_or_default(),
            dialect.spec.install_fix()
        )));
    }
    Ok((binary, version))
}

impl Engine {
    /// Spawn the CLI, send `initialize` and wait for its answer.
    pub(crate) async fn start(
        dialect: &Dialect,
        config: &AdapterConfig,
    ) -> Result<Engine, CohostError> {
        let env = env_policy(dialect, config);
        let (binary, version) = check_binary(dialect, config, &env).await?;
        let mut spec = ProcessSpec::new(dialect.id, &binary).args(dialect.args(config));
        spec.env = env;
        if !config.cwd.as_os_str().is_empty() {
            spec.cwd = Some(config.cwd.clone());
        }
        let mut child = Supervised::spawn(spec)?;
        let frames = child.take_stdout().ok_or_else(|| {
            CohostError::new(ErrorCode::SpawnFailed, "agent stdout was not captured")
        })?;
        let mut normalizer = Normalizer::new(NormalizerConfig {
            dialect: dialect.clone(),
            deny_all: config.approval == ApprovalMode::DenyAll,
            no_approvals: config.approval == ApprovalMode::AutoApprove,
        });
        let init_line = normalizer.initialize();
        let shared = Arc::new(Shared {
            normalizer: Mutex::new(normalizer),
            turn: Mutex::new(None),
            stdout_closed: Default::default(),
        });
        let stdin = child.stdin();
        let (init_tx, init_rx) = oneshot::channel();
        tokio::spawn(pump(frames, shared.clone(), stdin.clone(), Some(init_tx)));
        stdin.write_line(&init_line).await?;
        let session_id = match tokio::time::timeout(INIT_TIMEOUT, init_rx).await {
            Ok(Ok(id)) => id,
            Ok(Err(_)) => {
                child.settle(Duration::from_secs(2)).await;
                return Err(CohostError::new(
                    ErrorCode::SpawnFailed,
                    format!("{} before answering `initialize`", child.crash_report()),
                )
                .with_fix(format!(
                    "run `{} --version` yourself to see the problem",
                    binary.display()
                )));
            }
            Err(_) => {
                return Err(CohostError::new(
                    ErrorCode::Timeout,
                    format!(
                        "agent `{}` did not answer `initialize` within {} s",
                        dialect.id,
                        INIT_TIMEOUT.as_secs()
                    ),
                )
                .with_fix("check that the agent starts on its own (login prompts, updates)"));
            }
        };
        Ok(Engine {
            shared,
            child,
            stdin,
            binary,
            version,
            session_id: session_id.or_else(|| config.resume.clone()),
        })
    }
}

/// The reader task: stdout frames → normalizer → turn stream / stdin.
async fn pump(
    mut frames: mpsc::Receiver<Frame>,
    shared: Arc<Shared>,
    stdin: StdinWriter,
    mut init_tx: Option<oneshot::Sender<Option<String>>>,
) {
    let mut outputs = Vec::new();
    while let Some(frame) = frames.recv().await {
        {
            let mut n = shared.lock_normalizer();
            match frame {
                Frame::Line(l) => n.on_line(&l, &mut outputs),
                Frame::Oversized { bytes } => n.on_oversized(bytes, &mut outputs),
            }
        }
        for o in outputs.drain(..) {
            match o {
                Output::Event(ev) => {
                    let ended = matches!(ev, AgentEvent::Ended { .. });
                    let mut turn = shared.lock_turn();
                    if let Some(tx) = turn.as_ref() {
                        let _ = tx.unbounded_send(ev);
                    }
                    if ended {
                        // Closing the stream after `Ended` is what the engine expects.
                        *turn = None;
                    }
                }
                Output::Write(line) => {
                    if let Err(e) = stdin.write_line(&line).await {
                        tracing::debug!(error = %e, "write to agent failed");
                    }
                }
                Output::Initialized { session_id } => {
                    if let Some(tx) = init_tx.take() {
                        let _ = tx.send(session_id);
                    }
                }
            }
        }
    }
    // stdout closed: the process is gone or going. Dropping the turn sender
    // without `Ended` tells the host session engine the agent crashed.
    shared
        .stdout_closed
        .store(true, std::sync::atomic::Ordering::SeqCst);
    shared.lock_turn().take();
    drop(init_tx);
}
