//! The IO shell of one turn of a one-process-per-turn CLI: spawn, feed
//! stdout lines to a pure normalizer, and decide what a process exit
//! without a closing event means.
//!
//! Used directly by the gemini driver and codex's exec fallback, and
//! through [`super::OneShotAdapter`] by the other one-shot drivers.

use cohost_core::{AgentEvent, AgentEventStream, CohostError, EndReason, InterruptStage};
use futures::StreamExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

use crate::{
    oversized_line_error, signal_group, ExitInfo, Frame, GroupSignal, ProcessSpec, Supervised,
};

/// A pure line normalizer for one turn's output. `pub` (hidden) only so the
/// fuzz targets in `fuzz/` can drive the one-shot normalizers.
pub trait TurnNormalizer: Send + 'static {
    /// Feed one stdout line.
    fn on_line(&mut self, line: &str) -> Vec<AgentEvent>;
    /// Whether `Ended` was emitted.
    fn ended(&self) -> bool;
    /// Whether the turn ended because the normalizer itself failed (a wasm
    /// adapter broke a limit): the runner then stops the agent's process
    /// at once instead of letting it finish.
    fn aborted(&self) -> bool {
        false
    }
    /// The process exited (or closed stdout) before `Ended`. Return the
    /// closing events, or `None` for "the agent crashed" (the stream then
    /// closes without `Ended`). `interrupted`: cohost signalled it.
    fn on_exit(
        &mut self,
        exit: Option<ExitInfo>,
        stderr: &str,
        interrupted: bool,
    ) -> Option<Vec<AgentEvent>>;
}

/// Makes a one-shot driver's normalizer for a turn of session `id` (`None`:
/// a first turn): how the fuzz target and the golden tests reach every
/// one-shot parser through the provider list ([`crate::catalog::CliEntry::parser`]).
#[derive(Clone, Copy)]
pub struct Parser(pub fn(Option<&str>) -> Box<dyn TurnNormalizer>);

impl std::fmt::Debug for Parser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Parser")
    }
}

impl PartialEq for Parser {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for Parser {}

impl TurnNormalizer for Box<dyn TurnNormalizer> {
    fn on_line(&mut self, line: &str) -> Vec<AgentEvent> {
        (**self).on_line(line)
    }
    fn ended(&self) -> bool {
        (**self).ended()
    }
    fn aborted(&self) -> bool {
        (**self).aborted()
    }
    fn on_exit(
        &mut self,
        exit: Option<ExitInfo>,
        stderr: &str,
        interrupted: bool,
    ) -> Option<Vec<AgentEvent>> {
        (**self).on_exit(exit, stderr, interrupted)
    }
}

/// What outlives a turn: the native session id and the last crash report.
#[derive(Debug, Default)]
pub struct RunState {
    /// Native session id from the last `Started`.
    pub session_id: Option<String>,
    /// The session id to resume: set only once a turn of that session
    /// completed, because a CLI persists a session only after a full turn
    /// (gemini rejects `--resume` of one whose first turn failed).
    pub resumable: Option<String>,
    /// Why the last turn's process died, if it crashed.
    pub last_error: Option<String>,
}

/// A running one-shot turn. The process belongs to the reader task, which
/// lets it finish writing its session after the closing event (killing it
/// early would truncate what `--resume` reads) and kills its group at the end.
pub struct OneShot {
    pgid: i32,
    interrupted: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

/// How long a finished turn's process may take to exit on its own.
const LINGER: Duration = Duration::from_secs(5);

impl OneShot {
    /// Spawn the turn's process; events flow through the returned stream.
    pub fn spawn<N: TurnNormalizer>(
        spec: ProcessSpec,
        norm: N,
        state: Arc<Mutex<RunState>>,
    ) -> Result<(OneShot, AgentEventStream), CohostError> {
        Self::spawn_with_input(spec, norm, state, Vec::new())
    }

    /// [`OneShot::spawn`], writing `input` lines to the agent's stdin
    /// before closing it.
    pub fn spawn_with_input<N: TurnNormalizer>(
        spec: ProcessSpec,
        mut norm: N,
        state: Arc<Mutex<RunState>>,
        input: Vec<String>,
    ) -> Result<(OneShot, AgentEventStream), CohostError> {
        let provider = spec.provider_id.clone();
        let mut proc = Supervised::spawn(spec)?;
        let pgid = i32::try_from(proc.pid()).unwrap_or(0);
        let stdin = proc.stdin();
        let mut frames = proc
            .take_stdout()
            .ok_or_else(|| CohostError::new(cohost_core::ErrorCode::SpawnFailed, "no stdout"))?;
        let interrupted = Arc::new(AtomicBool::new(false));
        let flag = interrupted.clone();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(async move {
            // The prompt is in argv (or in `input`); EOF on stdin keeps CLIs
            // that also read stdin (codex exec) from waiting for it.
            if input.is_empty() {
                stdin.close().await;
            } else {
                // Its own task: an agent that prints before it reads must
                // not wait on a full stdin pipe while nobody reads stdout.
                tokio::spawn(async move {
                    for line in &input {
                        if stdin.write_line(line).await.is_err() {
                            break; // The agent is gone; its exit says the rest.
                        }
                    }
                    stdin.close().await;
                });
            }
            let mut tx = Some(tx);
            while let Some(frame) = frames.recv().await {
                let Some(sender) = tx.as_ref() else {
                    continue; // Drain after the end so the agent never blocks.
                };
                let events = match frame {
                    Frame::Line(l) => norm.on_line(&l),
                    Frame::Oversized { bytes } => {
                        vec![AgentEvent::Error(oversized_line_error(&provider, bytes))]
                    }
                };
                for ev in events {
                    match &ev {
                        AgentEvent::Started {
                            session_id: Some(s),
                            ..
                        } => lock_state(&state).session_id = Some(s.clone()),
                        AgentEvent::Ended {
                            reason: EndReason::Completed,
                            ..
                        } => {
                            let mut st = lock_state(&state);
                            st.resumable = st.session_id.clone();
                        }
                        _ => {}
                    }
                    let _ = sender.send(ev);
                }
                if norm.ended() {
                    tx = None;
                    if norm.aborted() {
                        // The normalizer failed: stop the agent now.
                        proc.kill_tree();
                    }
                }
            }
            let info = proc.settle(LINGER).await;
            let Some(sender) = tx else {
                return; // Dropping `proc` kills whatever is left of the group.
            };
            let stderr = proc.stderr_text();
            match norm.on_exit(info, &stderr, flag.load(Ordering::SeqCst)) {
                Some(events) => {
                    for ev in events {
                        let _ = sender.send(ev);
                    }
                }
                None => lock_state(&state).last_error = Some(proc.crash_report()),
            }
        });
        let stream = futures::stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed();
        Ok((
            OneShot {
                pgid,
                interrupted,
                task,
            },
            stream,
        ))
    }

    /// Whether the turn's process (or its reader) is still going.
    pub fn is_running(&self) -> bool {
        !self.task.is_finished()
    }

    /// One ladder step. Without a protocol, Cancel is SIGINT too.
    pub fn interrupt(&self, stage: InterruptStage) -> Result<(), CohostError> {
        self.interrupted.store(true, Ordering::SeqCst);
        signal_group(self.pgid, ladder_signal(stage))
            .map(|_| ())
            .map_err(|e| {
                CohostError::new(
                    cohost_core::ErrorCode::ProcessCrashed,
                    format!("could not signal the agent: {e}"),
                )
            })
    }

    /// Wait (bounded) until the previous turn's process is gone, so the
    /// next one reads a complete session.
    pub async fn finish(self) {
        let _ = tokio::time::timeout(LINGER + Duration::from_secs(1), self.task).await;
    }

    /// Kill the turn's group now.
    pub async fn kill(self) {
        let _ = signal_group(self.pgid, GroupSignal::Kill);
        self.finish().await;
    }
}

/// Lock the state shared with a turn's reader task (poison-tolerant,
/// [`crate::lock`]).
pub fn lock_state(state: &Mutex<RunState>) -> std::sync::MutexGuard<'_, RunState> {
    crate::lock(state)
}

/// The signal for a ladder step of a CLI without a protocol cancel: Cancel
/// is SIGINT too, the gentlest signal.
pub fn ladder_signal(stage: InterruptStage) -> GroupSignal {
    match stage {
        InterruptStage::Cancel | InterruptStage::Signal => GroupSignal::Interrupt,
        InterruptStage::Terminate => GroupSignal::Terminate,
        InterruptStage::Kill => GroupSignal::Kill,
    }
}

/// The usual end of a turn the user interrupted: no closing event from the
/// agent, so cohost closes it.
pub fn interrupted_end() -> Vec<AgentEvent> {
    vec![AgentEvent::Ended {
        reason: EndReason::Interrupted,
        usage: None,
    }]
}
