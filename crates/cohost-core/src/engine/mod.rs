//! The host session engine: drives one adapter through its lifecycle.
//!
//! It assigns prompt and correlation ids, numbers chunks, routes approval
//! requests to a [`DecisionSource`] under a deadline, runs the interrupt
//! ladder, and respawns a crashed adapter (at most `max_respawns` times in a
//! row, with backoff) before giving up with `PROCESS_CRASHED`.

mod emitter;
mod raised;
mod turn;

pub use emitter::EventSink;
pub use raised::{unanswered, RaisedApproval};

use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

use crate::approval::SharedDecisionSource;
use crate::error::{CohostError, ErrorCode};
use crate::event::{EndReason, Usage};
use crate::ids::IdGen;
use crate::lifecycle::{Lifecycle, State};
use crate::port::{AdapterConfig, AdapterFactory, AgentAdapter, ContextFile, Health, PromptImage};
use crate::provider::ProviderDescriptor;
use crate::sanitize::Sanitizer;

/// Tunables of a session. Defaults suit interactive use.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// How long an approval request waits before it is denied.
    pub approval_deadline: Duration,
    /// After each interrupt-ladder stage (cancel, SIGINT, SIGTERM, SIGKILL),
    /// how long to wait for the turn to end before the next stage.
    pub ladder_waits: [Duration; 4],
    /// Respawns allowed in a row before the session fails for good.
    pub max_respawns: u32,
    /// First respawn delay; doubles for each further attempt.
    pub respawn_backoff: Duration,
    /// Bytes of tool output kept in `tool_executed.output_preview`.
    pub output_preview_bytes: usize,
    /// The longest one turn may run before the interrupt ladder ends it
    /// (`None`: no limit).
    pub turn_limit: Option<Duration>,
    /// What every event passes before any sink sees it (deltas as streams,
    /// tool inputs and outputs, status texts, errors). The composition
    /// root's value (cohost-host's session setup gives every session its
    /// host's); the default knows the shapes only, no secret value, so the
    /// domain never reaches the process-wide one.
    pub sanitizer: Arc<Sanitizer>,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            approval_deadline: Duration::from_secs(120),
            // Sums to 1.8 s so an interrupt always ends the stream within 2 s.
            ladder_waits: [
                Duration::from_millis(1000),
                Duration::from_millis(300),
                Duration::from_millis(300),
                Duration::from_millis(200),
            ],
            max_respawns: 3,
            respawn_backoff: Duration::from_millis(250),
            output_preview_bytes: 2048,
            turn_limit: None,
            sanitizer: Arc::new(Sanitizer::shapes_only()),
        }
    }
}

/// Requests a caller can make while a turn runs.
#[derive(Debug)]
#[non_exhaustive]
pub enum Control {
    /// Run the interrupt ladder on the current turn.
    Interrupt,
    /// Give text to the agent during the current turn.
    Steer(SteerRequest),
    /// Ask about a call the agent did not bring to cohost, within the
    /// current turn, as if the agent had asked.
    Raise(RaisedApproval),
}

/// Text for the running turn, and where to say whether the agent took it.
#[derive(Debug)]
pub struct SteerRequest {
    /// The text.
    pub text: String,
    /// Who sent it, when someone other than the session's user did.
    pub by: Option<String>,
    /// `Ok` once the agent took the text into the running turn (the turn's
    /// `steered` event says so); an error when it did not (no turn was
    /// running, the turn was ending, or the agent takes no input
    /// mid-turn), so the caller queues it instead.
    pub reply: tokio::sync::oneshot::Sender<Result<(), CohostError>>,
}

impl SteerRequest {
    /// Answer that the text did not reach the agent, and why.
    pub fn refuse(self, why: CohostError) {
        // The caller may have stopped waiting: it queues the text either way.
        let _ = self.reply.send(Err(why));
    }
}

/// The steer arrived when no turn of this session was reading it.
pub(crate) fn no_turn_running() -> CohostError {
    CohostError::new(
        ErrorCode::IllegalTransition,
        "no turn was running to take the text",
    )
    .with_fix("the text is queued and sent as the next turn")
}

/// A cloneable handle to control a running session (e.g. from a Ctrl+C handler).
#[derive(Debug, Clone)]
pub struct SessionControl {
    tx: mpsc::UnboundedSender<Control>,
}

impl SessionControl {
    /// A control that reaches no session: for turns that cannot be
    /// interrupted (scripted test doubles, embedders' own turns).
    pub fn detached() -> SessionControl {
        let (tx, _) = mpsc::unbounded_channel();
        SessionControl { tx }
    }

    /// Ask the current turn to stop. Returns false if the session is gone.
    /// An interrupt sent while no turn runs is discarded at the next prompt.
    pub fn interrupt(&self) -> bool {
        self.tx.send(Control::Interrupt).is_ok()
    }

    /// Offer `text` to the running turn. The receiver says whether the
    /// agent took it; it closes without an answer when the session is
    /// gone. A steer sent while no turn runs is refused when the next one
    /// begins (never delivered to a later turn).
    pub fn steer(
        &self,
        text: impl Into<String>,
        by: Option<String>,
    ) -> tokio::sync::oneshot::Receiver<Result<(), CohostError>> {
        let (reply, rx) = tokio::sync::oneshot::channel();
        let request = SteerRequest {
            text: text.into(),
            by,
            reply,
        };
        if let Err(mpsc::error::SendError(Control::Steer(r))) =
            self.tx.send(Control::Steer(request))
        {
            r.refuse(no_turn_running());
        }
        rx
    }

    /// Raise an approval request for `call` in the running turn: it is
    /// shown and decided like the agent's own requests (event, decision
    /// source, deadline, record), and the decision comes back here instead
    /// of going to the agent. A request sent while no turn runs is denied
    /// when the next one begins; the receiver closes unanswered when the
    /// session is gone ([`unanswered`] is the decision to read then).
    pub fn raise_approval(
        &self,
        call: crate::port::ToolCallInfo,
        options: Vec<crate::event::ApprovalOption>,
    ) -> tokio::sync::oneshot::Receiver<crate::approval::Decision> {
        let (reply, rx) = tokio::sync::oneshot::channel();
        let raised = RaisedApproval {
            call,
            options,
            reply,
        };
        // A session that is gone drops the request: the receiver closes.
        let _ = self.tx.send(Control::Raise(raised));
        rx
    }
}

/// One prompt as the caller gives it.
#[derive(Debug, Clone, Default)]
pub struct PromptInput {
    /// Text.
    pub text: String,
    /// Correlation id to carry (e.g. a relay suggestion id); generated if absent.
    pub correlation_id: Option<String>,
    /// Attached files.
    pub context_files: Vec<ContextFile>,
    /// Attached images (only for providers whose capabilities say `images`).
    pub images: Vec<PromptImage>,
}

impl PromptInput {
    /// A plain text prompt.
    pub fn text(text: impl Into<String>) -> Self {
        PromptInput {
            text: text.into(),
            ..Default::default()
        }
    }
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    /// The turn's prompt id.
    pub prompt_id: String,
    /// The turn's correlation id.
    pub correlation_id: String,
    /// Why it ended.
    pub reason: EndReason,
    /// The error that ended it, when `reason` is `Error`.
    pub error: Option<CohostError>,
    /// Final usage.
    pub usage: Option<Usage>,
}

/// Drives one adapter. Not `Clone`: one owner runs turns; others use
/// [`SessionControl`].
pub struct HostSession {
    factory: Arc<dyn AdapterFactory>,
    descriptor: ProviderDescriptor,
    adapter: Option<Box<dyn AgentAdapter>>,
    config: AdapterConfig,
    lifecycle: Lifecycle,
    decisions: SharedDecisionSource,
    opts: SessionOptions,
    controls: mpsc::UnboundedReceiver<Control>,
    control_tx: mpsc::UnboundedSender<Control>,
    ids: IdGen,
    native_session_id: Option<String>,
    respawns_in_a_row: u32,
    last_error: Option<CohostError>,
}

impl HostSession {
    /// A session for `factory`'s provider. Call [`HostSession::start`] next.
    pub fn new(
        factory: Arc<dyn AdapterFactory>,
        mut config: AdapterConfig,
        decisions: SharedDecisionSource,
        opts: SessionOptions,
    ) -> Self {
        // The adapter's own captured text passes the session's sanitizer.
        config.sanitizer = opts.sanitizer.clone();
        let (control_tx, controls) = mpsc::unbounded_channel();
        let descriptor = factory.descriptor();
        let native_session_id = config.resume.clone();
        HostSession {
            factory,
            descriptor,
            adapter: None,
            config,
            lifecycle: Lifecycle::default(),
            decisions,
            opts,
            controls,
            control_tx,
            ids: IdGen::new(),
            native_session_id,
            respawns_in_a_row: 0,
            last_error: None,
        }
    }

    /// What this session's strings pass (its options' sanitizer).
    pub fn sanitizer(&self) -> &Arc<Sanitizer> {
        &self.opts.sanitizer
    }

    /// A handle for interrupting from elsewhere.
    pub fn control(&self) -> SessionControl {
        SessionControl {
            tx: self.control_tx.clone(),
        }
    }

    /// Current lifecycle state.
    pub fn state(&self) -> State {
        self.lifecycle.state()
    }

    /// The adapter configuration the session runs with.
    pub fn config(&self) -> &AdapterConfig {
        &self.config
    }

    /// The provider's descriptor.
    pub fn descriptor(&self) -> &ProviderDescriptor {
        &self.descriptor
    }

    /// The agent's native session id, once known (store it to resume later).
    pub fn native_session_id(&self) -> Option<&str> {
        self.native_session_id.as_deref()
    }

    /// The last error that made the session fail, if any.
    pub fn last_error(&self) -> Option<&CohostError> {
        self.last_error.as_ref()
    }

    /// Initialize the adapter: UNINITIALIZED -> INITIALIZING -> READY | FAILED.
    pub async fn start(&mut self) -> Result<(), CohostError> {
        self.enter(State::Initializing)?;
        let mut adapter = self.factory.create();
        match adapter.initialize(&self.config).await {
            Ok(info) => {
                if info.session_id.is_some() {
                    self.native_session_id = info.session_id;
                }
                self.adapter = Some(adapter);
                self.enter(State::Ready)?;
                Ok(())
            }
            Err(e) => {
                // Best effort: a half-started adapter must not leave processes.
                let _ = adapter.terminate().await;
                self.enter(State::Failed)?;
                self.last_error = Some(e.clone());
                Err(e)
            }
        }
    }

    /// Health of the current adapter.
    pub async fn health(&mut self) -> Health {
        match self.adapter.as_mut() {
            Some(a) => a.health().await,
            None => Health {
                alive: false,
                last_error: self.last_error.as_ref().map(|e| e.message.clone()),
                ..Health::default()
            },
        }
    }

    /// Bring a FAILED session back: recreate and initialize the adapter with
    /// the native session id, with backoff, within the respawn budget.
    pub async fn recover(&mut self) -> Result<(), CohostError> {
        if self.state() != State::Failed {
            return Ok(());
        }
        while self.respawns_in_a_row < self.opts.max_respawns {
            let attempt = self.respawns_in_a_row;
            self.respawns_in_a_row += 1;
            tokio::time::sleep(self.opts.respawn_backoff * 2u32.saturating_pow(attempt)).await;
            match self.spawn_adapter().await {
                Ok(adapter) => {
                    self.adapter = Some(adapter);
                    self.enter(State::Ready)?;
                    tracing::info!(provider = %self.descriptor.id, attempt = attempt + 1, "respawned");
                    return Ok(());
                }
                Err(e) => {
                    tracing::warn!(provider = %self.descriptor.id, attempt = attempt + 1, error = %e, "respawn failed");
                    self.last_error = Some(e);
                }
            }
        }
        let detail = self
            .last_error
            .as_ref()
            .map(|e| e.message.clone())
            .unwrap_or_else(|| "no detail".into());
        Err(CohostError::new(
            ErrorCode::ProcessCrashed,
            format!(
                "agent `{}` crashed and could not be restarted after {} attempts: {detail}",
                self.descriptor.id, self.opts.max_respawns
            ),
        )
        .with_fix("run `cohost doctor`, check the agent on its own, then start a new session")
        .retryable(false))
    }

    async fn spawn_adapter(&mut self) -> Result<Box<dyn AgentAdapter>, CohostError> {
        let mut adapter = self.factory.create();
        let mut config = self.config.clone();
        config.resume = self.native_session_id.clone().or(config.resume);
        match adapter.initialize(&config).await {
            Ok(info) => {
                if info.session_id.is_some() {
                    self.native_session_id = info.session_id;
                }
                Ok(adapter)
            }
            Err(e) => {
                let _ = adapter.terminate().await;
                Err(e)
            }
        }
    }

    /// Go on with `model` (`None`: the provider's default), keeping the
    /// conversation: between turns, the agent is restarted with the new
    /// model and its native session id. If the new model does not start,
    /// the previous one is started again and the error returned.
    pub async fn set_model(&mut self, model: Option<String>) -> Result<(), CohostError> {
        if self.state() != State::Ready {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                format!(
                    "cannot change the model while the session is {}",
                    self.state()
                ),
            )
            .with_fix("wait for the turn to end (or interrupt it), then change the model"));
        }
        if let Some(mut old) = self.adapter.take() {
            // Best effort: the process group is killed either way.
            let _ = old.terminate().await;
        }
        let previous = std::mem::replace(&mut self.config.model, model);
        match self.spawn_adapter().await {
            Ok(adapter) => {
                self.adapter = Some(adapter);
                Ok(())
            }
            Err(e) => {
                self.config.model = previous;
                match self.spawn_adapter().await {
                    Ok(adapter) => self.adapter = Some(adapter),
                    Err(again) => self.mark_failed(again)?,
                }
                Err(e)
            }
        }
    }

    /// Terminate the adapter: -> TERMINATING -> TERMINATED. Idempotent.
    pub async fn terminate(&mut self) -> Result<(), CohostError> {
        if matches!(self.state(), State::Terminated | State::Terminating) {
            return Ok(());
        }
        self.enter(State::Terminating)?;
        let result = match self.adapter.take() {
            Some(mut a) => a.terminate().await,
            None => Ok(()),
        };
        self.enter(State::Terminated)?;
        result
    }

    /// Move the lifecycle to `to`. A refused transition is a bug in the
    /// engine or an adapter: it is logged, kept as the session's last error
    /// and returned as a typed `ILLEGAL_TRANSITION` for the caller to surface
    /// (never ignored).
    fn enter(&mut self, to: State) -> Result<(), CohostError> {
        match self.lifecycle.transition(to) {
            Ok(_) => Ok(()),
            Err(illegal) => {
                tracing::error!(provider = %self.descriptor.id, %illegal, "lifecycle");
                let e = CohostError::from(illegal);
                self.last_error = Some(e.clone());
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod raised_tests;
#[cfg(test)]
mod steer_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod transition_tests;
