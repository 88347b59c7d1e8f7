//! The long-lived session actor shared by every driver that keeps one CLI
//! process per session (Claude Code and Qwen Code over stream-json, Codex
//! over app-server JSON-RPC, every ACP agent).
//!
//! Each driver has a sans-IO core: stdout lines in, [`Output`]s out. The
//! actor is the one task that owns that core. It reads the child's stdout
//! frames, feeds them to the core, writes what the core asks to stdin,
//! performs the driver's side effects (ACP's confined file requests) and
//! routes events to the running turn's stream. The adapter never touches
//! the core: it sends `begin_turn` / `decide` / `interrupt` as commands
//! over a channel ([`Session`]) and awaits the answer, so there is no lock
//! shared between the reader and the adapter and a command is ordered with
//! the lines around it.

mod actor;

use cohost_core::{AgentEvent, CohostError, ToolDecision};
use std::convert::Infallible;
use std::future::Future;

use crate::Frame;

pub use actor::Session;

/// What a sans-IO session core wants done: the one output type of the
/// stream-json, app-server and ACP cores.
///
/// `R` is what the handshake yields once it is over (a session id, an open
/// ACP session); `X` a driver's own side effect the actor performs through
/// its [`Effects`] (none by default).
#[derive(Debug, Clone, PartialEq)]
pub enum Output<R, X = Infallible> {
    /// An event for the running turn.
    Event(AgentEvent),
    /// A line to write to the agent's stdin.
    Write(String),
    /// The handshake finished (or failed); the session is usable (or not).
    Ready(Result<R, CohostError>),
    /// A side effect whose answer, if any, is written to stdin.
    Effect(X),
    /// The agent answered the steer of this ticket ([`SessionCore::steer`]):
    /// it took the text into the running turn, or refused it.
    Steered(u64, Result<(), CohostError>),
}

/// A sans-IO session core the actor drives. Every method only records what
/// should happen in `out`; the actor does the IO, in order.
pub trait SessionCore: Send + 'static {
    /// What the handshake yields.
    type Ready: Send + 'static;
    /// The driver's own side effects.
    type Effect: Send + 'static;
    /// A turn's input (prompt text, ACP content blocks).
    type Turn: Send + 'static;

    /// The first outputs, before any stdout line (the `initialize` request).
    fn start(&mut self, out: &mut Vec<Output<Self::Ready, Self::Effect>>);
    /// One stdout frame.
    fn on_frame(&mut self, frame: Frame, out: &mut Vec<Output<Self::Ready, Self::Effect>>);
    /// Start a turn; refused when one is running or no session is open.
    fn begin_turn(
        &mut self,
        turn: Self::Turn,
        out: &mut Vec<Output<Self::Ready, Self::Effect>>,
    ) -> Result<(), CohostError>;
    /// Answer an approval the agent asked for.
    fn decide(
        &mut self,
        decision: &ToolDecision,
        out: &mut Vec<Output<Self::Ready, Self::Effect>>,
    ) -> Result<(), CohostError>;
    /// The protocol's cancel (first rung of the interrupt ladder).
    fn interrupt(&mut self, out: &mut Vec<Output<Self::Ready, Self::Effect>>);
    /// Give `text` to the running turn, where the protocol takes input
    /// mid-turn; refused (by default) where it does not. The ticket names
    /// the [`Output::Steered`] that will carry the agent's answer.
    fn steer(
        &mut self,
        text: &str,
        out: &mut Vec<Output<Self::Ready, Self::Effect>>,
    ) -> Result<u64, CohostError> {
        let _ = (text, out);
        Err(CohostError::new(
            cohost_core::ErrorCode::UnsupportedMode,
            "this agent takes no input while a turn runs",
        )
        .with_fix("the text is queued and sent as the next turn"))
    }
}

/// Performs a core's side effects; the answer line is written to stdin.
pub trait Effects<X>: Send + 'static {
    /// Perform `effect`.
    fn perform(&mut self, effect: X) -> impl Future<Output = Option<String>> + Send;
}

/// PROCESS_CRASHED for an adapter asked to act before it started (or
/// after it stopped) its session.
pub fn not_running(provider_id: &str) -> CohostError {
    CohostError::new(
        cohost_core::ErrorCode::ProcessCrashed,
        format!("agent `{provider_id}` is not running"),
    )
    .with_fix("start the session first")
}

/// The effects of a core that has none.
pub struct NoEffects;

impl Effects<Infallible> for NoEffects {
    async fn perform(&mut self, effect: Infallible) -> Option<String> {
        match effect {}
    }
}
