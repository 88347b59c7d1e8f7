//! The running session: one task owns a started session and runs its turns
//! one at a time; any number of [`RunningSession`] handles send it commands
//! (`prompt`, `steer`, `interrupt`, `decide`, `set_model`, `terminate`) and
//! read its events through [`crate::Subscription`]s, while a turn streams.
//!
//! Prompts wait their turn in a visible queue: numbered, reorderable and
//! cancellable (`queue`, `queue_move`, `queue_drop`), each change a `queue`
//! event once something waits behind a running turn. Text steered while a
//! turn runs reaches the agent in that turn where its protocol takes input
//! mid-turn (a `steered` event), else joins the queue.
//!
//! Front ends are renderers plus sources of commands: none of them owns a
//! turn loop, so several sessions run side by side in one process (each its
//! own task) and a command never waits for the turn to end.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use cohost_core::sanitize::Sanitizer;
use cohost_core::steer::{QueueChange, QueueItem, QueueNotice};
use cohost_core::sync::lock;
use cohost_core::EventBody;
use cohost_core::{
    CohostError, Decision, Event, EventSink, HostSession, PromptInput, ProviderDescriptor,
    SessionControl, TurnOutcome,
};
use tokio::sync::{mpsc, oneshot, watch};

use crate::approvals::PendingApprovals;
use crate::budget::BudgetSeat;
use crate::error::SessionError;
use crate::log::{EventLog, LogLimits, Subscription};
use crate::metered::Meter;

mod queue;
mod raise;
use queue::PromptQueue;

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

    /// What the session's strings pass before anyone sees them (its
    /// host's sanitizer, from its options).
    fn sanitizer(&self) -> Arc<Sanitizer>;
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

    fn sanitizer(&self) -> Arc<Sanitizer> {
        HostSession::sanitizer(self).clone()
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
    /// A prompt was queued: run the queue's next one.
    Wake,
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
    /// Prompts waiting for their turn.
    queue: Mutex<PromptQueue>,
    /// What the session's own notes pass (its host's sanitizer).
    sanitizer: Arc<Sanitizer>,
    /// Numbers the `queue` events (they belong to no turn).
    queue_events: QueueEvents,
    /// A turn is streaming: it has emitted its first event and not ended.
    streaming: AtomicBool,
    /// Counts ended turns: a steer waiting for its answer learns that the
    /// turn it was sent to is over.
    turns_ended: watch::Sender<u64>,
}

/// The ids of a session's `queue` events: `q-TAG.N`.
struct QueueEvents {
    prompt_id: String,
    seq: std::sync::atomic::AtomicU64,
}

/// What became of steered text.
#[derive(Debug)]
pub enum SteerOutcome {
    /// It reached the agent during the running turn (the turn's `steered`
    /// event says so).
    Steered,
    /// The agent could not take it mid-turn (or the turn was ending): it
    /// waits in the queue for its own turn (a `queue` event says so).
    Queued {
        /// The queue item.
        item: QueueItem,
        /// Its turn, once it runs.
        turn: Turn,
    },
    /// No turn was running: it runs now, as a prompt.
    Started(Turn),
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
    pub async fn outcome(self) -> Result<TurnOutcome, SessionError> {
        self.outcome
            .await
            .map_err(|_| SessionError::EndedBeforeTurn)
    }
}

fn ended(why: &'static str) -> SessionError {
    SessionError::Ended { why }
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
            queue: Mutex::new(PromptQueue::with_sanitizer(turns.sanitizer())),
            sanitizer: turns.sanitizer(),
            queue_events: QueueEvents {
                prompt_id: format!("q-{}", cohost_core::ids::random_tag()),
                seq: std::sync::atomic::AtomicU64::new(0),
            },
            streaming: AtomicBool::new(false),
            turns_ended: watch::Sender::new(0),
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
    pub fn prompt(&self, input: PromptInput) -> Result<Turn, SessionError> {
        self.enqueue(input, false, None, None).map(|(_, t)| t)
    }

    /// Queue the session's last prompt: the agent is stopped as soon as its
    /// turn ends (a one-shot front end overlaps that with the record's
    /// write), and nothing after it runs.
    pub fn prompt_last(&self, input: PromptInput) -> Result<Turn, SessionError> {
        self.enqueue(input, true, None, None).map(|(_, t)| t)
    }

    /// Queue a prompt caused by `person` (a shared room's participant whose
    /// suggestion was accepted, or the host): the budget's spend of its
    /// turn is attributed to them.
    pub fn prompt_by(&self, input: PromptInput, person: &str) -> Result<Turn, SessionError> {
        self.enqueue(input, false, Some(person), None)
            .map(|(_, t)| t)
    }

    /// Text sent while a turn may be running (chat's input, an accepted
    /// suggestion, the API, MCP), caused by `person` when that is not the
    /// session's user. Where the agent takes input mid-turn it reaches the
    /// running turn; otherwise it waits in the queue for a turn of its own;
    /// with no turn running it runs now. Its attached files and images, if
    /// any, go only with a turn of its own (a steer carries text).
    pub async fn steer(
        &self,
        input: PromptInput,
        person: Option<&str>,
    ) -> Result<SteerOutcome, SessionError> {
        if self.shared.closing.load(Ordering::SeqCst) {
            return Err(ended("it is stopping"));
        }
        if let Some(seat) = &self.shared.budget {
            seat.budget().admit().map_err(SessionError::BudgetSpent)?;
        }
        let mut note = None;
        let plain = input.context_files.is_empty() && input.images.is_empty();
        if plain && !input.text.trim().is_empty() {
            // Watch for the turn's end before looking whether it runs.
            let mut ended = self.shared.turns_ended.subscribe();
            if self.shared.streaming.load(Ordering::SeqCst) {
                let mut answer = self
                    .shared
                    .control
                    .steer(input.text.clone(), person.map(String::from));
                let taken = tokio::select! {
                    a = &mut answer => a.unwrap_or_else(|_| Err(ended_error())),
                    _ = ended.changed() => answer.try_recv().unwrap_or_else(|_| Err(ended_error())),
                };
                match taken {
                    Ok(()) => return Ok(SteerOutcome::Steered),
                    Err(e) => note = Some(e.message),
                }
            }
        }
        if !self.busy() {
            return self
                .enqueue(input, false, person, None)
                .map(|(_, t)| SteerOutcome::Started(t));
        }
        let note = note.unwrap_or_else(|| "a turn is running".into());
        let (item, turn) = self.enqueue(input, false, person, Some(note))?;
        Ok(SteerOutcome::Queued { item, turn })
    }

    /// The prompts waiting for their turn, next first.
    pub fn queue(&self) -> Vec<QueueItem> {
        lock(&self.shared.queue).items()
    }

    /// Cancel the waiting prompt `id`: it does not run (its [`Turn`] says
    /// so) and a `queue` event tells every front end.
    pub fn queue_drop(&self, id: u64) -> Result<QueueItem, SessionError> {
        let mut q = lock(&self.shared.queue);
        let gone = q.remove(id)?;
        self.shared.turns.fetch_sub(1, Ordering::SeqCst);
        let items = q.items();
        self.shared
            .publish_queue(QueueChange::Dropped, gone.item.clone(), None, items);
        Ok(gone.item)
    }

    /// Move the waiting prompt `id` to place `to` (0: next).
    pub fn queue_move(&self, id: u64, to: usize) -> Result<QueueItem, SessionError> {
        let mut q = lock(&self.shared.queue);
        let item = q.move_to(id, to)?;
        let items = q.items();
        self.shared
            .publish_queue(QueueChange::Moved, item.clone(), None, items);
        Ok(item)
    }

    /// Where the waiting prompt `id` is (0: next).
    pub fn queue_position(&self, id: u64) -> Result<usize, SessionError> {
        lock(&self.shared.queue).position(id)
    }

    /// Queue a prompt; `note` set means it waits behind a running turn and
    /// the front ends are told why.
    fn enqueue(
        &self,
        mut input: PromptInput,
        last: bool,
        person: Option<&str>,
        note: Option<String>,
    ) -> Result<(QueueItem, Turn), SessionError> {
        if self.shared.closing.load(Ordering::SeqCst) {
            return Err(ended("it is stopping"));
        }
        if let Some(seat) = &self.shared.budget {
            seat.budget().admit().map_err(SessionError::BudgetSpent)?;
        }
        let correlation_id = input
            .correlation_id
            .get_or_insert_with(|| format!("c-{}", cohost_core::ids::random_tag()))
            .clone();
        if let (Some(seat), Some(person)) = (&self.shared.budget, person) {
            seat.budget().attribute(&correlation_id, person);
        }
        let (reply, outcome) = oneshot::channel();
        let mut q = lock(&self.shared.queue);
        // Something runs or waits already: this one waits visibly.
        let behind = self.shared.turns.fetch_add(1, Ordering::SeqCst) > 0;
        let announced = behind || note.is_some();
        let item = q.push(
            input,
            correlation_id.clone(),
            person.map(String::from),
            reply,
            last,
            announced,
        );
        if self.commands.send(Command::Wake).is_err() {
            let _ = q.remove(item.id);
            self.shared.turns.fetch_sub(1, Ordering::SeqCst);
            return Err(ended("its agent was stopped"));
        }
        if announced {
            let items = q.items();
            self.shared
                .publish_queue(QueueChange::Added, item.clone(), note, items);
        }
        drop(q);
        Ok((
            item,
            Turn {
                correlation_id,
                outcome,
            },
        ))
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
    pub async fn set_model(&self, model: Option<String>) -> Result<(), SessionError> {
        let (reply, rx) = oneshot::channel();
        self.commands
            .send(Command::SetModel { model, reply })
            .map_err(|_| ended("its agent was stopped"))?;
        rx.await
            .map_err(|_| ended("it stopped before the change"))?
            .map_err(SessionError::Agent)
    }

    /// Stop the session now: the running turn is interrupted, waiting
    /// approvals are denied, queued prompts do not run, the agent is
    /// stopped and every subscription ends. Idempotent.
    pub async fn terminate(&self) -> Result<(), SessionError> {
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
        rx.await.unwrap_or(Ok(())).map_err(SessionError::Agent)
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
            Command::Wake => {
                let next = {
                    let mut q = lock(&shared.queue);
                    let next = q.pop();
                    if let Some(n) = next.as_ref().filter(|n| n.announced) {
                        let items = q.items();
                        shared.publish_queue(QueueChange::Started, n.item.clone(), None, items);
                    }
                    next
                };
                // Dropped from the queue since it was sent.
                let Some(queue::Queued {
                    input, reply, last, ..
                }) = next
                else {
                    continue;
                };
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
                let streaming = &shared.streaming;
                let mut sink = |ev: Event| {
                    // The turn has begun: an interrupt asked for before the
                    // engine listened is sent again now.
                    if shared.interrupt_wanted.swap(false, Ordering::SeqCst) {
                        control.interrupt();
                    }
                    // From its first event the turn takes steered text.
                    streaming.store(
                        !matches!(ev.body, EventBody::StreamEnd { .. }),
                        Ordering::SeqCst,
                    );
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
                shared.streaming.store(false, Ordering::SeqCst);
                shared.turns_ended.send_modify(|n| *n += 1);
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
    while commands.try_recv().is_ok() {}
    for _ in lock(&shared.queue).drain() {
        shared.turns.fetch_sub(1, Ordering::SeqCst);
    }
    shared.streaming.store(false, Ordering::SeqCst);
    shared.turns_ended.send_modify(|n| *n += 1);
}

impl Shared {
    /// A `queue` event: `change` happened to `item`; `items` wait now.
    fn publish_queue(
        &self,
        change: QueueChange,
        item: QueueItem,
        note: Option<String>,
        items: Vec<QueueItem>,
    ) {
        let seq = self.queue_events.seq.fetch_add(1, Ordering::SeqCst);
        let prompt_id = self.queue_events.prompt_id.clone();
        self.log.publish(Event {
            id: format!("{prompt_id}.{seq}"),
            prompt_id,
            correlation_id: item.correlation_id.clone(),
            ts: now_ms(),
            agent: None,
            body: EventBody::Queue(QueueNotice {
                change,
                item,
                note: note.map(|n| self.sanitizer.sanitize(&n).into_owned()),
                items,
            }),
        });
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// The turn a steer was sent to ended before it answered (the steer's
/// answer channel carries the agent's wire error, so this is one too).
fn ended_error() -> CohostError {
    SessionError::SteerMissed.into()
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
mod steer_tests;
#[cfg(test)]
pub(crate) mod tests;
