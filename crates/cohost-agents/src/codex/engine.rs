//! The IO shell of the app-server engine: one long-lived `codex app-server`
//! process, a pump task feeding its stdout through [`AppServerCore`], and
//! the adapter methods writing requests and answers to its stdin.

use cohost_core::{AgentEvent, AgentEventStream, CohostError, ErrorCode, InterruptStage};
use futures::StreamExt;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, Notify};

use super::normalize::{Action, AppServerCore, CoreConfig, Phase};
use crate::process::{
    lock, oversized_line_error, Frame, GroupSignal, ProcessSpec, StdinWriter, Supervised,
};

/// How long the handshake may take (first start of codex creates its home).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

struct Shared {
    core: AppServerCore,
    turn_tx: Option<mpsc::UnboundedSender<AgentEvent>>,
    dead: bool,
}

/// A running app-server session.
pub(crate) struct AppServer {
    proc: Supervised,
    stdin: StdinWriter,
    shared: Arc<Mutex<Shared>>,
    changed: Arc<Notify>,
}

impl AppServer {
    /// Spawn `codex app-server` and complete the handshake.
    pub(crate) async fn start(
        spec: ProcessSpec,
        cfg: CoreConfig,
    ) -> Result<AppServer, CohostError> {
        let mut proc = Supervised::spawn(spec)?;
        let stdin = proc.stdin();
        let frames = proc.take_stdout().ok_or_else(|| {
            CohostError::new(ErrorCode::SpawnFailed, "codex app-server has no stdout")
        })?;
        let shared = Arc::new(Mutex::new(Shared {
            core: AppServerCore::new(cfg),
            turn_tx: None,
            dead: false,
        }));
        let changed = Arc::new(Notify::new());
        tokio::spawn(pump(frames, shared.clone(), stdin.clone(), changed.clone()));
        let server = AppServer {
            proc,
            stdin,
            shared,
            changed,
        };
        let first = lock(&server.shared).core.start();
        server.run(first).await;
        server.wait_ready().await?;
        Ok(server)
    }

    async fn wait_ready(&self) -> Result<(), CohostError> {
        let wait = async {
            loop {
                let notified = self.changed.notified();
                tokio::pin!(notified);
                // Register before checking, so a change in between is not lost.
                notified.as_mut().enable();
                {
                    let s = lock(&self.shared);
                    match s.core.phase() {
                        Phase::Ready => return Ok::<(), Option<CohostError>>(()),
                        Phase::Failed(e) => return Err(Some(e.clone())),
                        _ if s.dead => return Err(None),
                        _ => {}
                    }
                }
                notified.await;
            }
        };
        match tokio::time::timeout(HANDSHAKE_TIMEOUT, wait).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(Some(e))) => Err(e),
            Ok(Err(None)) => {
                self.proc.settle(Duration::from_millis(500)).await;
                Err(startup_error(&self.proc))
            }
            Err(_) => Err(CohostError::new(
                ErrorCode::Timeout,
                format!(
                    "codex app-server did not finish its handshake within {} s",
                    HANDSHAKE_TIMEOUT.as_secs()
                ),
            )
            .with_fix("run `codex app-server` by hand to see whether it waits for a login")),
        }
    }

    /// The open thread id.
    pub(crate) fn thread_id(&self) -> Option<String> {
        lock(&self.shared).core.thread_id().map(String::from)
    }

    /// Whether the process is still serving.
    pub(crate) fn alive(&self) -> bool {
        self.proc.is_alive() && !lock(&self.shared).dead
    }

    /// Why the process is gone (exit status + stderr tail).
    pub(crate) async fn crash_report(&self) -> String {
        self.proc.settle(Duration::from_millis(500)).await;
        self.proc.crash_report()
    }

    /// Start a turn; the returned stream ends after `Ended` (or when the
    /// process dies, without it).
    pub(crate) async fn send_prompt(&self, text: &str) -> Result<AgentEventStream, CohostError> {
        if !self.alive() {
            return Err(CohostError::new(
                ErrorCode::ProcessCrashed,
                format!(
                    "codex app-server is not running: {}",
                    self.crash_report().await
                ),
            )
            .with_fix("cohost restarts the agent for the next prompt"));
        }
        let (tx, mut rx) = mpsc::unbounded_channel();
        let actions = {
            let mut s = lock(&self.shared);
            let actions = s.core.start_turn(text)?;
            s.turn_tx = Some(tx);
            actions
        };
        self.run(actions).await;
        Ok(futures::stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed())
    }

    /// One step of the interrupt ladder.
    pub(crate) async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        match stage {
            InterruptStage::Cancel => {
                let actions = lock(&self.shared).core.interrupt();
                self.run(actions).await;
            }
            InterruptStage::Signal => {
                self.proc.signal(GroupSignal::Interrupt)?;
            }
            InterruptStage::Terminate => {
                self.proc.signal(GroupSignal::Terminate)?;
            }
            InterruptStage::Kill => {
                self.proc.kill().await;
            }
        }
        Ok(())
    }

    /// Answer an approval.
    pub(crate) async fn decide(
        &self,
        tool_id: &str,
        option: cohost_core::ApprovalOption,
    ) -> Result<(), CohostError> {
        let actions = lock(&self.shared).core.decide(tool_id, option)?;
        self.run(actions).await;
        Ok(())
    }

    /// Close stdin, then SIGTERM and SIGKILL the group.
    pub(crate) async fn terminate(&mut self) {
        self.stdin.close().await;
        self.proc.terminate(Duration::from_millis(500)).await;
        lock(&self.shared).dead = true;
    }

    async fn run(&self, actions: Vec<Action>) {
        dispatch(actions, &self.shared, &self.stdin).await;
    }
}

/// Apply the core's actions: writes go to stdin in order, events to the turn.
async fn dispatch(actions: Vec<Action>, shared: &Mutex<Shared>, stdin: &StdinWriter) {
    for a in actions {
        match a {
            Action::Send(line) => {
                if let Err(e) = stdin.write_line(&line).await {
                    // The pump sees the exit and ends the turn as a crash.
                    tracing::debug!(error = %e, "codex: write to app-server failed");
                }
            }
            Action::Emit(ev) => {
                let mut s = lock(shared);
                let end = matches!(ev, AgentEvent::Ended { .. });
                match &s.turn_tx {
                    Some(tx) => {
                        let _ = tx.send(ev);
                    }
                    None => tracing::debug!(?ev, "codex: event outside a turn dropped"),
                }
                if end {
                    s.turn_tx = None;
                }
            }
        }
    }
}

async fn pump(
    mut frames: mpsc::Receiver<Frame>,
    shared: Arc<Mutex<Shared>>,
    stdin: StdinWriter,
    changed: Arc<Notify>,
) {
    while let Some(frame) = frames.recv().await {
        let actions = match frame {
            Frame::Line(line) => lock(&shared).core.on_line(&line),
            Frame::Oversized { bytes } => vec![Action::Emit(AgentEvent::Error(
                oversized_line_error("codex", bytes),
            ))],
        };
        dispatch(actions, &shared, &stdin).await;
        changed.notify_waiters();
    }
    // stdout closed: the process is gone. Dropping the turn's sender ends
    // its stream without `Ended`, which the session treats as a crash.
    let mut s = lock(&shared);
    s.dead = true;
    s.turn_tx = None;
    drop(s);
    changed.notify_waiters();
}

/// The error for a process that died before the handshake finished.
pub(crate) fn startup_error(proc: &Supervised) -> CohostError {
    let report = proc.crash_report();
    let code =
        crate::process::classify_stderr(&proc.stderr_text()).unwrap_or(ErrorCode::ProcessCrashed);
    CohostError::new(code, format!("codex exited during start-up: {report}"))
        .with_fix("run `codex app-server` by hand with the same CODEX_HOME to see the problem")
}
