//! The running session: one task owns a started session and runs its turns
//! one at a time; any number of [`RunningSession`] handles send it commands
//! (`prompt`, `interrupt`, `decide`, `set_model`, `terminate`) and read its
//! events through [`crate::Subscription`]s, while a turn streams.
//!
//! Front ends are renderers plus sources of commands: none of them owns a
//! turn loop, so several sessions run side by side in one process (each its
//! own task) and a command never waits for the turn to end.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use cohost_core::sync::lock;
use cohost_core::{
    CohostError, Decision, ErrorCode, Event, EventSink, HostSession, PromptInput,
    ProviderDescriptor, SessionControl, TurnOutcome,
};
use tokio::sync::{mpsc, oneshot};

use crate::approvals::PendingApprovals;
use crate::budget::BudgetSeat;
use crate::log::{EventLog, LogLimits, Subscription};
use crate::metered::Meter;

/// A started session as the running task drives it: turns one at a time,
/// a model change between turns, and the end. Implemented by the engine's
/// [`HostSession`] and by the setup service's session (which also keeps
/// the session's record).
#[async_trait]
pub trait Turns: Send + 'static {
    /// Run one turn to its end, every event into `sink`.
    async fn turn(&mut self, input: PromptInput, sink: &mut dyn EventSink) -> TurnOutcome;

    /// The session's last turn: run it, then stop the agent (an
    /// implementation may overlap the two).
    async fn last_turn(
        &mut self,
        input: PromptInput,
        sink: &mut dyn EventSink,
    ) -> (TurnOutcome, Result<(), CohostError>) {
        let outcome = self.turn(input, sink).await;
        (outcome, self.terminate().await)
    }

    /// Go on with another model, keeping the conversation.
    async fn set_model(&mut self, model: Option<String>) -> Result<(), CohostError>;

    /// Stop the agent. Idempotent.
    async fn terminate(&mut self) -> Result<(), CohostError>;

    /// A handle that interrupts the running turn from elsewhere.
    fn control(&self) -> SessionControl;

    /// The agent's own session id, once known.
    fn native_session_id(&self) -> Option<String>;
}

#[async_trait]
impl Turns for HostSession {
    async fn turn(&mut self, input: PromptInput, sink: &mut dyn EventSink) -> TurnOutcome {
        self.prompt(input, sink).await
    }

    async fn set_model(&mut self, model: Option<String>) -> Result<(), CohostError> {
        HostSession::set_model(self, model).await
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        HostSession::terminate(self).await
    }

    fn control(&self) -> SessionControl {
        HostSession::control(self)
    }

    fn native_session_id(&self) -> Option<String> {
        HostSession::native_session_id(self).map(String::from)
    }
}

/// What a running session is, for the front ends that show it.
#[derive(Debug, Clone)]
pub struct SessionInfo {
    /// The cohost session id in the store, when the session is recorded.
    pub record_id: Option<String>,
    /// The provider's descriptor.
    pub descriptor: ProviderDescriptor,
    /// The directory the agent runs in.
    pub cwd: PathBuf,
    /// The model asked for, when one was.
    pub model: Option<String>,
}

enum Command {
    Prompt {
        input: PromptInput,
        reply: oneshot::Sender<TurnOutcome>,
        last: bool,
    },
    SetModel {
        model: Option<String>,
        reply: oneshot::Sender<Result<(), CohostError>>,
    },
    Terminate {
        reply: oneshot::Sender<Result<(), CohostError>>,
    },
}

struct Shared {
    info: SessionInfo,
    model: Mutex<Option<String>>,
    native: Mutex<Option<String>>,
    log: EventLog,
    control: SessionControl,
    approvals: Option<PendingApprovals>,
    /// Prompts queued or running.
    turns: AtomicUsize,
    /// `terminate` was asked for: queued prompts are not run.
    closing: AtomicBool,
    /// An interrupt was asked for while a prompt was queued or running: it
    /// is sent again once the turn has begun (the engine drops one that
    /// arrives before), and forgotten when the turn ends.
    interrupt_wanted: AtomicBool,
    /// The budget the session spends from, when it has one.
    budget: Option<BudgetSeat>,
}

/// A handle to a running session. Cheap to clone; the session stops (its
/// agent with it) once the last handle is dropped and the running turn, if
/// any, has ended, or at once on [`RunningSession::terminate`].
#[derive(Clone)]
pub struct RunningSession {
    shared: Arc<Shared>,
    commands: mpsc::UnboundedSender<Command>,
}

/// A queued prompt: its correlation id (every event of its turn carries
/// it) and, once it has run, how it ended.
#[derive(Debug)]
pub struct Turn {
    correlation_id: String,
    outcome: oneshot::Receiver<TurnOutcome>,
}

impl Turn {
    /// The correlation id of the turn's events.
    pub fn correlation_id(&self) -> &str {
        &self.correlation_id
    }

    /// How the turn ended, once it has; an error when the session ended
    /// before the turn could run.
    pub async fn outcome(self) -> Result<TurnOutcome, CohostError> {
        self.outcome.await.map_err(|_| {
            CohostError::new(
                ErrorCode::Cancelled,
                "the session ended before this prompt ran",
            )
            .with_fix("open a new session (or resume this one) and send it again")
        })
    }
}

fn ended(what: &str) -> CohostError {
    CohostError::new(
        ErrorCode::ProcessCrashed,
        format!("the session has ended: {what}"),
    )
    .with_fix("open a new session, or resume this one")
    .retryable(false)
}

impl RunningSession {
    /// Run `turns` (started) in a task of its own. `approvals`, when the
    /// session's approval requests wait there, is what
    /// [`RunningSession::decide`] answers. Needs a tokio runtime.
    pub fn spawn(
        turns: impl Turns,
        info: SessionInfo,
        approvals: Option<PendingApprovals>,
        limits: LogLimits,
    ) -> RunningSession {
        RunningSession::spawn_budgeted(turns, info, approvals, limits, None)
    }

    /// [`RunningSession::spawn`], spending from `budget`: its usage is
    /// counted there, a turn that spends it is interrupted and ends with
    /// reason `budget`, and prompts are refused while it is spent.
    pub fn spawn_budgeted(
        turns: impl Turns,
        info: SessionInfo,
        approvals: Option<PendingApprovals>,
        limits: LogLimits,
        budget: Option<BudgetSeat>,
    ) -> RunningSession {
        let (commands, rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            model: Mutex::new(info.model.clone()),
            native: Mutex::new(turns.native_session_id()),
            info,
            log: EventLog::new(limits),
            control: turns.control(),
            approvals,
            turns: AtomicUsize::new(0),
            closing: AtomicBool::new(false),
            interrupt_wanted: AtomicBool::new(false),
            budget,
        });
        tokio::spawn(drive(turns, shared.clone(), rx));
        RunningSession { shared, commands }
    }

    /// What the session is.
    pub fn info(&self) -> &SessionInfo {
        &self.shared.info
    }

    /// The provider's descriptor.
    pub fn descriptor(&self) -> &ProviderDescriptor {
        &self.shared.info.descriptor
    }

    /// The directory the agent runs in.
    pub fn cwd(&self) -> &Path {
        &self.shared.info.cwd
    }

    /// The cohost session id in the store, when recorded.
    pub fn record_id(&self) -> Option<&str> {
        self.shared.info.record_id.as_deref()
    }

    /// The model the agent runs with, when one was asked for.
    pub fn model(&self) -> Option<String> {
        lock(&self.shared.model).clone()
    }

    /// The agent's own session id, as of the last turn's end.
    pub fn native_session_id(&self) -> Option<String> {
        lock(&self.shared.native).clone()
    }

    /// The recent events, then every new one.
    pub fn subscribe(&self) -> Subscription {
        self.shared.log.subscribe()
    }

    /// Only the events from now on.
    pub fn subscribe_new(&self) -> Subscription {
        self.shared.log.subscribe_new()
    }

    /// Queue a prompt; it runs once the turns before it have ended. Its
    /// correlation id is the caller's, else a fresh one.
    pub fn prompt(&self, input: PromptInput) -> Result<Turn, CohostError> {
        self.queue(input, false)
    }

    /// Queue the session's last prompt: the agent is stopped as soon as its
    /// turn ends (a one-shot front end overlaps that with the record's
    /// write), and nothing after it runs.
    pub fn prompt_last(&self, input: PromptInput) -> Result<Turn, CohostError> {
        self.queue(input, true)
    }

    /// Queue a prompt caused by `person` (a shared room's participant whose
    /// suggestion was accepted, or the host): the budget's spend of its
    /// turn is attributed to them.
    pub fn prompt_by(&self, input: PromptInput, person: &str) -> Result<Turn, CohostError> {
        self.queue_by(input, false, Some(person))
    }

    fn queue(&self, input: PromptInput, last: bool) -> Result<Turn, CohostError> {
        self.queue_by(input, last, None)
    }

    fn queue_by(
        &self,
        mut input: PromptInput,
        last: bool,
        person: Option<&str>,
    ) -> Result<Turn, CohostError> {
        if self.shared.closing.load(Ordering::SeqCst) {
            return Err(ended("it is stopping"));
        }
        if let Some(seat) = &self.shared.budget {
            seat.budget().admit()?;
        }
        let correlation_id = input
            .correlation_id
            .get_or_insert_with(|| format!("c-{}", cohost_core::ids::random_tag()))
            .clone();
        if let (Some(seat), Some(person)) = (&self.shared.budget, person) {
            seat.budget().attribute(&correlation_id, person);
        }
        let (reply, outcome) = oneshot::channel();
        self.shared.turns.fetch_add(1, Ordering::SeqCst);
        if self
            .commands
            .send(Command::Prompt { input, reply, last })
            .is_err()
        {
            self.shared.turns.fetch_sub(1, Ordering::SeqCst);
            return Err(ended("its agent was stopped"));
        }
        Ok(Turn {
            correlation_id,
            outcome,
        })
    }

    /// The budget this session spends from, when it has one (`/budget`
    /// raises it, `/spend` describes it).
    pub fn budget(&self) -> Option<&crate::budget::SharedBudget> {
        self.shared.budget.as_ref().map(BudgetSeat::budget)
    }

    /// Whether a prompt is queued or running.
    pub fn busy(&self) -> bool {
        self.shared.turns.load(Ordering::SeqCst) > 0
    }

    /// Run the interrupt ladder on the running turn, or on the next queued
    /// one when none has begun yet (pressed while the session is idle, it
    /// does nothing). False when the session has ended.
    pub fn interrupt(&self) -> bool {
        if self.busy() {
            self.shared.interrupt_wanted.store(true, Ordering::SeqCst);
        }
        self.shared.control.interrupt()
    }

    /// Answer the approval request of `tool_id` (`None`: the only one
    /// waiting). False when none such is waiting, or when this session's
    /// approvals are answered by a policy or a prompt of its own.
    pub fn decide(&self, tool_id: Option<&str>, decision: Decision) -> bool {
        self.shared
            .approvals
            .as_ref()
            .is_some_and(|a| a.answer(tool_id, decision))
    }

    /// Answer the request of `tool_id` whose `tool_approval_requested`
    /// event the caller has seen, even if the engine has not asked for it
    /// yet (it emits the event first). False when this session's approvals
    /// are not answered through the handle.
    pub fn decide_seen(&self, tool_id: &str, decision: Decision) -> bool {
        match &self.shared.approvals {
            Some(a) => {
                a.answer_early(tool_id, decision);
                true
            }
            None => false,
        }
    }

    /// The approvals answered through this handle, if they are (to be told
    /// of each request as it comes).
    pub fn approvals(&self) -> Option<&PendingApprovals> {
        self.shared.approvals.as_ref()
    }

    /// Go on with `model`, keeping the conversation; runs after the queued
    /// turns.
    pub async fn set_model(&self, model: Option<String>) -> Result<(), CohostError> {
        let (reply, rx) = oneshot::channel();
        self.commands
            .send(Command::SetModel { model, reply })
            .map_err(|_| ended("its agent was stopped"))?;
        rx.await
            .map_err(|_| ended("it stopped before the change"))?
    }

    /// Stop the session now: the running turn is interrupted, waiting
    /// approvals are denied, queued prompts do not run, the agent is
    /// stopped and every subscription ends. Idempotent.
    pub async fn terminate(&self) -> Result<(), CohostError> {
        self.shared.closing.store(true, Ordering::SeqCst);
        if self.busy() {
            self.interrupt();
        }
        if let Some(a) = &self.shared.approvals {
            a.abandon_all();
        }
        let (reply, rx) = oneshot::channel();
        if self.commands.send(Command::Terminate { reply }).is_err() {
            return Ok(());
        }
        rx.await.unwrap_or(Ok(()))
    }
}

/// The session's task: the only owner of `turns`.
async fn drive(
    mut turns: impl Turns,
    shared: Arc<Shared>,
    mut commands: mpsc::UnboundedReceiver<Command>,
) {
    let mut stopped = false;
    while let Some(command) = commands.recv().await {
        match command {
            Command::Prompt { input, reply, last } => {
                if shared.closing.load(Ordering::SeqCst) {
                    shared.turns.fetch_sub(1, Ordering::SeqCst);
                    continue;
                }
                // Queued before the budget was spent: refused now.
                if let Some(refusal) = shared
                    .budget
                    .as_ref()
                    .and_then(|s| s.budget().admit().err())
                {
                    shared.turns.fetch_sub(1, Ordering::SeqCst);
                    let _ = reply.send(refused(&shared, &input, refusal));
                    continue;
                }
                let control = turns.control();
                let model = lock(&shared.model).clone();
                let mut meter = Meter::new(shared.budget.as_ref(), model, control.clone());
                let mut publish = |ev: Event| shared.log.publish(ev);
                let mut sink = |ev: Event| {
                    // The turn has begun: an interrupt asked for before the
                    // engine listened is sent again now.
                    if shared.interrupt_wanted.swap(false, Ordering::SeqCst) {
                        control.interrupt();
                    }
                    meter.pass(ev, &mut publish);
                };
                let mut outcome = if last {
                    let (outcome, result) = turns.last_turn(input, &mut sink).await;
                    if let Err(e) = result {
                        tracing::warn!(error = %e, "stopping the agent after its last turn failed");
                    }
                    stopped = true;
                    outcome
                } else {
                    turns.turn(input, &mut sink).await
                };
                outcome.reason = meter.end_reason(outcome.reason);
                *lock(&shared.native) = turns.native_session_id();
                shared.interrupt_wanted.store(false, Ordering::SeqCst);
                shared.turns.fetch_sub(1, Ordering::SeqCst);
                // The caller may have stopped waiting; the events said it all.
                let _ = reply.send(outcome);
                if stopped {
                    shared.closing.store(true, Ordering::SeqCst);
                    break;
                }
            }
            Command::SetModel { model, reply } => {
                let result = turns.set_model(model.clone()).await;
                if result.is_ok() {
                    *lock(&shared.model) = model;
                }
                *lock(&shared.native) = turns.native_session_id();
                let _ = reply.send(result);
            }
            Command::Terminate { reply } => {
                let _ = reply.send(turns.terminate().await);
                stopped = true;
                break;
            }
        }
    }
    if !stopped {
        if let Err(e) = turns.terminate().await {
            tracing::warn!(error = %e, "stopping the agent failed");
        }
    }
    if let Some(a) = &shared.approvals {
        a.abandon_all();
    }
    shared.log.close();
    // Prompts still queued never run: their tickets say so.
    commands.close();
    while let Ok(command) = commands.try_recv() {
        if let Command::Prompt { .. } = command {
            shared.turns.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// A prompt the spent budget refused after it was queued: an `error`
/// event and a `stream_end` with reason `budget` tell the front ends, under
/// a prompt id of its own.
fn refused(shared: &Shared, input: &PromptInput, refusal: CohostError) -> TurnOutcome {
    let prompt_id = format!("p-{}", cohost_core::ids::random_tag());
    let correlation_id = input.correlation_id.clone().unwrap_or_default();
    let ts = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let event = |seq: u32, body: cohost_core::EventBody| Event {
        id: format!("{prompt_id}.{seq}"),
        prompt_id: prompt_id.clone(),
        correlation_id: correlation_id.clone(),
        ts,
        agent: None,
        body,
    };
    shared
        .log
        .publish(event(0, cohost_core::EventBody::Error(refusal.clone())));
    shared.log.publish(event(
        1,
        cohost_core::EventBody::StreamEnd {
            reason: cohost_core::EndReason::Budget,
            usage: None,
        },
    ));
    TurnOutcome {
        prompt_id: prompt_id.clone(),
        correlation_id: correlation_id.clone(),
        reason: cohost_core::EndReason::Budget,
        error: Some(refusal),
        usage: None,
    }
}

#[cfg(test)]
pub(crate) mod tests;
