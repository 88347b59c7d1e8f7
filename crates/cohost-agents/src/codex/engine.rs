//! The IO shell of the app-server engine: one long-lived `codex app-server`
//! process whose stdout the session actor feeds through [`AppServerCore`];
//! the adapter's requests reach the core as the actor's commands.

use cohost_core::{AgentEventStream, CohostError, ErrorCode, InterruptStage, ToolDecision};
use std::convert::Infallible;
use std::path::PathBuf;
use std::time::Duration;

use super::normalize::{Action, AppServerCore, CoreConfig};
use crate::process::{
    oversized_line_error, Frame, GroupSignal, ProcessSpec, StdinWriter, Supervised,
};
use crate::session::{NoEffects, Session, SessionCore};

/// How long the handshake may take (first start of codex creates its home).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// The app-server core as the session actor's core.
pub(crate) struct CodexCore(AppServerCore);

impl SessionCore for CodexCore {
    type Ready = String;
    type Effect = Infallible;
    /// The prompt text and its images' paths.
    type Turn = (String, Vec<PathBuf>);

    fn start(&mut self, out: &mut Vec<Action>) {
        out.extend(self.0.start());
    }

    fn on_frame(&mut self, frame: Frame, out: &mut Vec<Action>) {
        match frame {
            Frame::Line(line) => out.extend(self.0.on_line(&line)),
            Frame::Oversized { bytes } => out.push(Action::Event(cohost_core::AgentEvent::Error(
                oversized_line_error("codex", bytes),
            ))),
        }
    }

    fn begin_turn(
        &mut self,
        (text, images): Self::Turn,
        out: &mut Vec<Action>,
    ) -> Result<(), CohostError> {
        out.extend(self.0.start_turn(&text, &images)?);
        Ok(())
    }

    fn decide(
        &mut self,
        decision: &ToolDecision,
        out: &mut Vec<Action>,
    ) -> Result<(), CohostError> {
        out.extend(self.0.decide(&decision.tool_id, decision.option)?);
        Ok(())
    }

    fn interrupt(&mut self, out: &mut Vec<Action>) {
        out.extend(self.0.interrupt());
    }

    fn steer(&mut self, text: &str, out: &mut Vec<Action>) -> Result<u64, CohostError> {
        let (actions, ticket) = self.0.steer(text)?;
        out.extend(actions);
        Ok(ticket)
    }
}

/// A running app-server session.
pub(crate) struct AppServer {
    proc: Supervised,
    stdin: StdinWriter,
    session: Session<CodexCore>,
    thread_id: String,
    terminated: bool,
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
        let core = CodexCore(AppServerCore::new(cfg));
        let (session, ready) = Session::spawn("codex", core, frames, stdin.clone(), NoEffects);
        let thread_id = match tokio::time::timeout(HANDSHAKE_TIMEOUT, ready).await {
            Ok(Ok(Ok(thread_id))) => thread_id,
            Ok(Ok(Err(e))) => return Err(e),
            Ok(Err(_)) => {
                proc.settle(Duration::from_millis(500)).await;
                return Err(startup_error(&proc));
            }
            Err(_) => {
                return Err(CohostError::new(
                    ErrorCode::Timeout,
                    format!(
                        "codex app-server did not finish its handshake within {} s",
                        HANDSHAKE_TIMEOUT.as_secs()
                    ),
                )
                .with_fix("run `codex app-server` by hand to see whether it waits for a login"))
            }
        };
        Ok(AppServer {
            proc,
            stdin,
            session,
            thread_id,
            terminated: false,
        })
    }

    /// The open thread id.
    pub(crate) fn thread_id(&self) -> Option<String> {
        Some(self.thread_id.clone())
    }

    /// Whether the process is still serving.
    pub(crate) fn alive(&self) -> bool {
        self.proc.is_alive() && !self.session.stdout_closed() && !self.terminated
    }

    /// Why the process is gone (exit status + stderr tail).
    pub(crate) async fn crash_report(&self) -> String {
        self.proc.settle(Duration::from_millis(500)).await;
        self.proc.crash_report()
    }

    /// Start a turn; the returned stream ends after `Ended` (or when the
    /// process dies, without it).
    pub(crate) async fn send_prompt(
        &self,
        text: &str,
        images: Vec<PathBuf>,
    ) -> Result<AgentEventStream, CohostError> {
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
        self.session.begin_turn((text.to_string(), images)).await
    }

    /// One step of the interrupt ladder.
    pub(crate) async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        match stage {
            InterruptStage::Cancel => self.session.interrupt().await?,
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

    /// Give `text` to the running turn (`turn/steer`); `Ok` once codex
    /// took it.
    pub(crate) async fn steer(&self, text: &str) -> Result<(), CohostError> {
        self.session.steer(text).await
    }

    /// Answer an approval.
    pub(crate) async fn decide(&self, decision: ToolDecision) -> Result<(), CohostError> {
        self.session.decide(decision).await
    }

    /// Close stdin, then SIGTERM and SIGKILL the group.
    pub(crate) async fn terminate(&mut self) {
        self.stdin.close().await;
        self.proc.terminate(Duration::from_millis(500)).await;
        self.terminated = true;
    }
}

/// The error for a process that died before the handshake finished.
pub(crate) fn startup_error(proc: &Supervised) -> CohostError {
    let report = proc.crash_report();
    let code =
        crate::process::classify_stderr(&proc.stderr_text()).unwrap_or(ErrorCode::ProcessCrashed);
    CohostError::new(code, format!("codex exited during start-up: {report}"))
        .with_fix("run `codex app-server` by hand with the same CODEX_HOME to see the problem")
}
