//! The actor task and its handle.

use cohost_core::{AgentEvent, AgentEventStream, CohostError, ErrorCode, Health, ToolDecision};
use futures::channel::mpsc as fmpsc;
use futures::StreamExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

use super::{Effects, Output, SessionCore};
use crate::{session_health, Frame, StdinWriter, Supervised};
use std::path::Path;

type Reply<T> = oneshot::Sender<Result<T, CohostError>>;

/// What the adapter asks of the actor.
enum Command<C: SessionCore> {
    BeginTurn(C::Turn, Reply<AgentEventStream>),
    Decide(ToolDecision, Reply<()>),
    Interrupt(Reply<()>),
    Steer(String, Reply<()>),
}

/// The adapter's handle on a running session actor. Dropping it stops the
/// actor (the turn stream, if any, then ends without `Ended`).
pub struct Session<C: SessionCore> {
    commands: mpsc::UnboundedSender<Command<C>>,
    closed: Arc<AtomicBool>,
    provider_id: Arc<str>,
}

impl<C: SessionCore> Session<C> {
    /// Start the actor over a child's stdout `frames` and `stdin`. The
    /// receiver yields the handshake's outcome; it closes without one when
    /// stdout ends first (the agent died).
    pub fn spawn<E: Effects<C::Effect>>(
        provider_id: &str,
        core: C,
        frames: mpsc::Receiver<Frame>,
        stdin: StdinWriter,
        effects: E,
    ) -> (Self, oneshot::Receiver<Result<C::Ready, CohostError>>) {
        let (commands, commands_rx) = mpsc::unbounded_channel();
        let (ready_tx, ready_rx) = oneshot::channel();
        let closed = Arc::new(AtomicBool::new(false));
        let actor = Actor {
            core,
            stdin,
            effects,
            turn: None,
            ready: Some(ready_tx),
            steers: std::collections::HashMap::new(),
            closed: closed.clone(),
            spare: Vec::new(),
        };
        tokio::spawn(actor.run(frames, commands_rx));
        let session = Session {
            commands,
            closed,
            provider_id: provider_id.into(),
        };
        (session, ready_rx)
    }

    /// Whether the agent's stdout has ended (the process is gone or going).
    pub fn stdout_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// PROCESS_CRASHED (with the crash report) when the agent behind this
    /// session is gone; checked before a turn starts.
    pub fn ensure_alive(&self, child: &Supervised) -> Result<(), CohostError> {
        if self.stdout_closed() || !child.is_alive() {
            return Err(
                CohostError::new(ErrorCode::ProcessCrashed, child.crash_report())
                    .with_fix("cohost restarts the agent for the next prompt"),
            );
        }
        Ok(())
    }

    /// The adapter's `health()`: alive, binary, version, last error.
    pub async fn health(
        &self,
        child: &Supervised,
        binary: &Path,
        version: Option<String>,
    ) -> Health {
        session_health(child, self.stdout_closed(), binary, version).await
    }

    /// Start a turn; the stream ends after `Ended`, or without it when the
    /// agent dies.
    pub async fn begin_turn(&self, turn: C::Turn) -> Result<AgentEventStream, CohostError> {
        self.ask(|reply| Command::BeginTurn(turn, reply)).await
    }

    /// Answer an approval.
    pub async fn decide(&self, decision: ToolDecision) -> Result<(), CohostError> {
        self.ask(|reply| Command::Decide(decision, reply)).await
    }

    /// The protocol's cancel.
    pub async fn interrupt(&self) -> Result<(), CohostError> {
        self.ask(Command::Interrupt).await
    }

    /// Give `text` to the running turn; `Ok` once the agent took it.
    pub async fn steer(&self, text: &str) -> Result<(), CohostError> {
        self.ask(|reply| Command::Steer(text.to_string(), reply))
            .await
    }

    async fn ask<T>(&self, command: impl FnOnce(Reply<T>) -> Command<C>) -> Result<T, CohostError> {
        let (tx, rx) = oneshot::channel();
        if self.commands.send(command(tx)).is_err() {
            return Err(self.gone());
        }
        rx.await.unwrap_or_else(|_| Err(self.gone()))
    }

    fn gone(&self) -> CohostError {
        CohostError::new(
            ErrorCode::ProcessCrashed,
            format!("agent `{}`: its session task has stopped", self.provider_id),
        )
        .with_fix("cohost restarts the agent for the next prompt")
    }
}

/// The task that alone owns the core.
struct Actor<C: SessionCore, E> {
    core: C,
    stdin: StdinWriter,
    effects: E,
    /// The running turn's stream; `None` between turns.
    turn: Option<fmpsc::UnboundedSender<AgentEvent>>,
    /// Taken by the first `Ready`.
    ready: Option<Reply<C::Ready>>,
    /// Steers waiting for the agent's answer, by ticket.
    steers: std::collections::HashMap<u64, Reply<()>>,
    closed: Arc<AtomicBool>,
    /// An output buffer kept between frames (no allocation per line).
    spare: Vec<Output<C::Ready, C::Effect>>,
}

impl<C: SessionCore, E: Effects<C::Effect>> Actor<C, E> {
    async fn run(
        mut self,
        mut frames: mpsc::Receiver<Frame>,
        mut commands: mpsc::UnboundedReceiver<Command<C>>,
    ) {
        let mut out = std::mem::take(&mut self.spare);
        self.core.start(&mut out);
        if let Err(e) = self.apply(&mut out).await {
            tracing::debug!(error = %e, "write of the first request failed");
        }
        self.spare = out;
        let mut stdout_open = true;
        loop {
            tokio::select! {
                frame = frames.recv(), if stdout_open => match frame {
                    Some(frame) => self.on_frame(frame).await,
                    None => {
                        stdout_open = false;
                        self.stdout_ended();
                    }
                },
                command = commands.recv() => match command {
                    Some(command) => self.on_command(command).await,
                    None => break,
                },
            }
        }
    }

    async fn on_frame(&mut self, frame: Frame) {
        let mut out = std::mem::take(&mut self.spare);
        self.core.on_frame(frame, &mut out);
        if let Err(e) = self.apply(&mut out).await {
            // The reader sees the exit and the turn ends as a crash.
            tracing::debug!(error = %e, "write to agent failed");
        }
        self.spare = out;
    }

    /// stdout closed: the agent is gone or going. Dropping the turn sender
    /// without `Ended` tells the host session engine the agent crashed;
    /// dropping the handshake sender tells `start` the same.
    fn stdout_ended(&mut self) {
        self.closed.store(true, Ordering::SeqCst);
        self.turn = None;
        self.ready = None;
        // Their senders hear the agent is gone and queue the text.
        self.steers.clear();
    }

    async fn on_command(&mut self, command: Command<C>) {
        let mut out = Vec::new();
        match command {
            Command::BeginTurn(turn, reply) => {
                if self.closed.load(Ordering::SeqCst) {
                    let _ = reply.send(Err(CohostError::new(
                        ErrorCode::ProcessCrashed,
                        "the agent's output has ended",
                    )
                    .with_fix("cohost restarts the agent for the next prompt")));
                    return;
                }
                if let Err(e) = self.core.begin_turn(turn, &mut out) {
                    let _ = reply.send(Err(e));
                    return;
                }
                let (tx, rx) = fmpsc::unbounded();
                // In place before the prompt is written, so no event of the
                // turn can arrive without a stream to go to.
                self.turn = Some(tx);
                let result = self.apply(&mut out).await.map(|()| rx.boxed());
                if result.is_err() {
                    self.turn = None;
                }
                // The adapter awaits this; a gone adapter needs no answer.
                let _ = reply.send(result);
            }
            Command::Decide(decision, reply) => {
                let result = match self.core.decide(&decision, &mut out) {
                    Ok(()) => self.apply(&mut out).await,
                    Err(e) => Err(e),
                };
                let _ = reply.send(result);
            }
            Command::Interrupt(reply) => {
                self.core.interrupt(&mut out);
                let _ = reply.send(self.apply(&mut out).await);
            }
            Command::Steer(text, reply) => {
                let steer = self.core.steer(&text, &mut out);
                let written = self.apply(&mut out).await;
                match (steer, written) {
                    (Err(e), _) | (Ok(_), Err(e)) => drop(reply.send(Err(e))),
                    // Answered when the agent's answer comes.
                    (Ok(ticket), Ok(())) => drop(self.steers.insert(ticket, reply)),
                }
            }
        }
    }

    /// Carry out `out` in order (draining it); the first failed write is
    /// returned after the rest was still carried out.
    async fn apply(
        &mut self,
        out: &mut Vec<Output<C::Ready, C::Effect>>,
    ) -> Result<(), CohostError> {
        let mut result = Ok(());
        for o in out.drain(..) {
            let written = match o {
                Output::Event(ev) => {
                    self.emit(ev);
                    Ok(())
                }
                Output::Write(line) => self.stdin.write_line(&line).await,
                Output::Effect(x) => match self.effects.perform(x).await {
                    Some(line) => self.stdin.write_line(&line).await,
                    None => Ok(()),
                },
                Output::Steered(ticket, answer) => {
                    match self.steers.remove(&ticket) {
                        Some(reply) => drop(reply.send(answer)),
                        None => tracing::debug!(ticket, "an answer to no steer ignored"),
                    }
                    Ok(())
                }
                Output::Ready(r) => {
                    match self.ready.take() {
                        // `start` may have given up waiting; nothing to tell.
                        Some(tx) => drop(tx.send(r)),
                        None => tracing::debug!("a second handshake outcome ignored"),
                    }
                    Ok(())
                }
            };
            if let (Err(e), Ok(())) = (written, &result) {
                result = Err(e);
            }
        }
        result
    }

    fn emit(&mut self, ev: AgentEvent) {
        let ended = matches!(ev, AgentEvent::Ended { .. });
        match &self.turn {
            // A receiver dropped mid-turn only means nobody listens any more.
            Some(tx) => drop(tx.unbounded_send(ev)),
            None => tracing::debug!(?ev, "event outside a turn dropped"),
        }
        if ended {
            // Closing the stream after `Ended` is what the engine expects.
            self.turn = None;
        }
    }
}
