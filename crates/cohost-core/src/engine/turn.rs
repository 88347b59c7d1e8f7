//! One turn: read the adapter's stream, route approvals, run the interrupt
//! ladder, detect crashes.

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use tokio::sync::oneshot;
use tokio::time::{sleep_until, Instant};

use super::emitter::{preview, EventSink, TurnEmitter};
use super::{Control, HostSession, PromptInput, RaisedApproval, SteerRequest, TurnOutcome};
use crate::approval::{ApprovalContext, Decision};
use crate::error::{CohostError, ErrorCode};
use crate::event::{ApprovalOption, DecisionOrigin, EndReason, EventBody, Usage};
use crate::lifecycle::State;
use crate::port::{
    AgentEvent, AgentEventStream, InterruptStage, PromptRequest, ToolCallInfo, ToolDecision,
};
use crate::steer::{self, SteerNotice};

/// Where the interrupt ladder stands.
struct Ladder {
    stage: usize,
    deadline: Instant,
}

/// Why the read loop stopped.
enum Finish {
    Ended(EndReason, Option<Usage>, Option<CohostError>),
    /// The stream closed without `Ended` and no interrupt was running.
    Crashed,
    /// The ladder reached its end (or the stream closed while it ran).
    Interrupted {
        adapter_dead: bool,
    },
}

/// Where the decisions of raised requests ([`RaisedApproval`]) go, by tool
/// id; a request not in here is the agent's own.
type Raised = HashMap<String, oneshot::Sender<Decision>>;

impl HostSession {
    /// Run one prompt to completion, emitting every event into `sink`.
    /// Always emits `stream_start` first and `stream_end` last.
    pub async fn prompt(&mut self, input: PromptInput, sink: &mut dyn EventSink) -> TurnOutcome {
        let prompt_id = self.ids.prompt_id();
        let correlation_id = input
            .correlation_id
            .clone()
            .unwrap_or_else(|| self.ids.correlation_id());
        let sanitizer = Arc::clone(&self.opts.sanitizer);
        let mut out = TurnEmitter::new(
            prompt_id.clone(),
            correlation_id.clone(),
            self.descriptor.id.clone(),
            &sanitizer,
            sink,
        );
        // Interrupts pressed and text steered while idle belong to no turn.
        self.drop_stale_controls();

        if self.state() == State::Failed {
            if let Err(e) = self.recover().await {
                return fail_turn(&mut out, e);
            }
        }
        if self.state() != State::Ready {
            let e = CohostError::new(
                ErrorCode::IllegalTransition,
                format!("cannot prompt while the session is {}", self.state()),
            )
            .with_fix("wait for the current turn to end, or start a new session");
            return fail_turn(&mut out, e);
        }
        let Some(mut adapter) = self.adapter.take() else {
            return fail_turn(
                &mut out,
                CohostError::new(ErrorCode::ProcessCrashed, "no agent is running"),
            );
        };
        if let Err(e) = self.enter(State::Streaming) {
            self.adapter = Some(adapter);
            return fail_turn(&mut out, e);
        }

        let request = PromptRequest {
            prompt_id: prompt_id.clone(),
            text: input.text,
            context_files: input.context_files,
            images: input.images,
        };
        let stream = match adapter.send_prompt(request).await {
            Ok(s) => s,
            Err(e) => {
                let crashed = matches!(e.code, ErrorCode::ProcessCrashed | ErrorCode::SpawnFailed);
                let settled = if crashed {
                    let _ = adapter.terminate().await;
                    self.mark_failed(e.clone())
                } else {
                    self.settle_ready(adapter).await
                };
                if let Err(bug) = settled {
                    out.emit(EventBody::Error(bug));
                }
                return fail_turn(&mut out, e);
            }
        };

        let finish = self.read_turn(&mut adapter, stream, &mut out).await;
        let (reason, usage, error, settled) = match finish {
            Finish::Ended(reason, usage, error) => {
                if reason == EndReason::Completed {
                    self.respawns_in_a_row = 0;
                }
                let settled = self.settle_ready(adapter).await;
                (reason, usage, error, settled)
            }
            Finish::Crashed => {
                let health = adapter.health().await;
                let detail = health
                    .last_error
                    .unwrap_or_else(|| "the event stream closed without an end".into());
                let e = CohostError::new(
                    ErrorCode::ProcessCrashed,
                    format!(
                        "agent `{}` stopped unexpectedly: {detail}",
                        self.descriptor.id
                    ),
                )
                .with_fix("cohost restarts the agent automatically for the next prompt");
                out.emit(EventBody::Error(e.clone()));
                let _ = adapter.terminate().await;
                let settled = self.mark_failed(e.clone());
                (EndReason::Error, None, Some(e), settled)
            }
            Finish::Interrupted { adapter_dead } => {
                let alive = !adapter_dead && adapter.health().await.alive;
                let settled = if alive {
                    self.settle_ready(adapter).await
                } else {
                    let _ = adapter.terminate().await;
                    drop(adapter);
                    // Interrupting -> Ready means "process reset": respawn now,
                    // outside the crash budget, so the next prompt just works.
                    match self.spawn_adapter().await {
                        Ok(a) => self.settle_ready(a).await,
                        Err(e) => self.mark_failed(e),
                    }
                };
                (EndReason::Interrupted, None, None, settled)
            }
        };
        // A refused transition ends the turn in that error, after the
        // turn's own events, so no front end misses it.
        let (reason, error) = match settled {
            Ok(()) => (reason, error),
            Err(bug) => {
                out.emit(EventBody::Error(bug.clone()));
                (EndReason::Error, Some(bug))
            }
        };
        out.end(reason, usage);
        // Text steered after the turn's last read never reached the agent.
        self.drop_stale_controls();
        TurnOutcome {
            prompt_id,
            correlation_id,
            reason,
            error,
            usage,
        }
    }

    /// Forget interrupts that belong to no turn and refuse steers no turn
    /// took (their senders queue the text instead).
    fn drop_stale_controls(&mut self) {
        while let Ok(c) = self.controls.try_recv() {
            match c {
                Control::Steer(r) => r.refuse(super::no_turn_running()),
                Control::Raise(r) => r.refuse("no turn was running to ask in"),
                Control::Interrupt => {}
            }
        }
    }

    /// Keep `adapter` and go back to READY after a turn. If the state machine
    /// refuses, the agent is stopped and the session marked FAILED (the next
    /// prompt starts a fresh agent); the refusal is returned to be surfaced.
    async fn settle_ready(
        &mut self,
        mut adapter: Box<dyn crate::port::AgentAdapter>,
    ) -> Result<(), CohostError> {
        match self.enter(State::Ready) {
            Ok(()) => {
                self.adapter = Some(adapter);
                Ok(())
            }
            Err(bug) => {
                let _ = adapter.terminate().await;
                self.mark_failed(bug.clone())?;
                Err(bug)
            }
        }
    }

    /// FAILED, remembering `e` for the respawn and for [`HostSession::last_error`];
    /// a refused transition is returned to be surfaced.
    pub(super) fn mark_failed(&mut self, e: CohostError) -> Result<(), CohostError> {
        let entered = self.enter(State::Failed);
        self.last_error = Some(e);
        entered
    }

    async fn read_turn(
        &mut self,
        adapter: &mut Box<dyn crate::port::AgentAdapter>,
        mut stream: AgentEventStream,
        out: &mut TurnEmitter<'_>,
    ) -> Finish {
        let mut queue: VecDeque<ApprovalContext> = VecDeque::new();
        let mut pending: Option<(ApprovalContext, BoxFuture<'static, Decision>)> = None;
        let mut raised = Raised::new();
        let mut ladder: Option<Ladder> = None;
        let mut last_usage: Option<Usage> = None;
        // A native id announced mid-turn is adopted only when the turn ends:
        // some agents (Gemini) persist a session only after a completed
        // turn, so resuming an id from a crashed first turn would fail.
        let mut announced_id: Option<String> = None;
        let deadline_ms = self.opts.approval_deadline.as_millis() as u64;
        let limit_at = self.opts.turn_limit.map(|d| Instant::now() + d);

        loop {
            if pending.is_none() && ladder.is_none() {
                if let Some(ctx) = queue.pop_front() {
                    let fut = self.decisions.decide(ctx.clone());
                    let deadline = self.opts.approval_deadline;
                    let timed = async move {
                        tokio::time::timeout(deadline, fut)
                            .await
                            .unwrap_or_else(|_| {
                                Decision::deny(
                                    DecisionOrigin::Deadline,
                                    "no decision before the deadline",
                                )
                            })
                    }
                    .boxed();
                    pending = Some((ctx, timed));
                }
            }
            let ladder_at = ladder.as_ref().map(|l| l.deadline);
            let ladder_tick = async move {
                match ladder_at {
                    Some(at) => sleep_until(at).await,
                    None => futures::future::pending().await,
                }
            };
            let limit_tick = async move {
                match limit_at {
                    Some(at) => sleep_until(at).await,
                    None => futures::future::pending().await,
                }
            };
            let decision = async {
                match pending.as_mut() {
                    Some((_, fut)) => fut.await,
                    None => futures::future::pending().await,
                }
            };
            enum Step {
                Interrupt,
                Steer(SteerRequest),
                Raise(RaisedApproval),
                Limit,
                Escalate,
                Decided(Decision),
                Agent(Option<AgentEvent>),
            }
            let step = tokio::select! {
                biased;
                Some(c) = self.controls.recv(), if ladder.is_none() => match c {
                    Control::Interrupt => Step::Interrupt,
                    Control::Steer(r) => Step::Steer(r),
                    Control::Raise(r) => Step::Raise(r),
                },
                _ = limit_tick, if ladder.is_none() => Step::Limit,
                _ = ladder_tick => Step::Escalate,
                d = decision => Step::Decided(d),
                ev = stream.next() => Step::Agent(ev),
            };
            if let Step::Limit = step {
                let secs = self.opts.turn_limit.unwrap_or_default().as_secs();
                out.emit(EventBody::Status {
                    message: format!("the turn ran past its limit of {secs} s: interrupting"),
                    retry_after_ms: None,
                });
            }
            match step {
                Step::Interrupt | Step::Limit => {
                    // The ladder runs even if the state machine refuses: a
                    // user's stop request is always honoured.
                    if let Err(bug) = self.enter(State::Interrupting) {
                        out.emit(EventBody::Error(bug));
                    }
                    // Pending approvals resolve as cancelled (a deny).
                    let mut cancelled: Vec<ApprovalContext> = queue.drain(..).collect();
                    if let Some((ctx, _)) = pending.take() {
                        cancelled.insert(0, ctx);
                    }
                    for ctx in cancelled {
                        let d =
                            Decision::deny(DecisionOrigin::Cancelled, "the turn was interrupted");
                        self.settle(adapter, out, &mut raised, &ctx, d).await;
                    }
                    ladder = Some(self.run_stage(adapter, 0).await);
                }
                Step::Steer(r) => self.steer(adapter, out, r).await,
                Step::Raise(r) => {
                    let ctx = requested(out, r.call, r.options, deadline_ms);
                    raised.insert(ctx.tool_id.clone(), r.reply);
                    self.wait_for_decision(out, &mut queue, ctx);
                }
                Step::Escalate => {
                    let next = ladder.as_ref().map(|l| l.stage + 1).unwrap_or(0);
                    if next >= InterruptStage::LADDER.len() {
                        return Finish::Interrupted { adapter_dead: true };
                    }
                    ladder = Some(self.run_stage(adapter, next).await);
                }
                Step::Decided(d) => {
                    if let Some((ctx, _)) = pending.take() {
                        self.settle(adapter, out, &mut raised, &ctx, d).await;
                    }
                    if queue.is_empty() && self.state() == State::WaitingForApproval {
                        if let Err(bug) = self.enter(State::Streaming) {
                            out.emit(EventBody::Error(bug));
                        }
                    }
                }
                Step::Agent(None) => {
                    if let Some(l) = &ladder {
                        let dead = InterruptStage::LADDER[l.stage] >= InterruptStage::Signal;
                        return Finish::Interrupted { adapter_dead: dead };
                    }
                    // Approvals still open die with the agent: deny.
                    let open = pending.take().map(|(ctx, _)| ctx).into_iter();
                    for ctx in open.chain(queue.drain(..)) {
                        let d = Decision::deny(DecisionOrigin::Crash, "agent died");
                        emit_decided(out, &ctx, d.clone());
                        if let Some(reply) = raised.remove(&ctx.tool_id) {
                            // The raiser may have stopped waiting.
                            let _ = reply.send(d);
                        }
                    }
                    return Finish::Crashed;
                }
                Step::Agent(Some(ev)) => match ev {
                    AgentEvent::Started { session_id, model } => {
                        if session_id.is_some() {
                            announced_id = session_id.clone();
                        }
                        out.start(session_id, model);
                    }
                    AgentEvent::TextDelta(t) => out.text(&t),
                    AgentEvent::ReasoningDelta(t) => out.reasoning(&t),
                    AgentEvent::ToolCall(mut call) => {
                        out.sanitizer().sanitize_json(&mut call.input);
                        out.emit(EventBody::ToolCall {
                            tool_id: call.tool_id,
                            name: call.name,
                            kind: call.kind,
                            input: call.input,
                        });
                    }
                    AgentEvent::ApprovalRequested { call, options } => {
                        let ctx = requested(out, call, options, deadline_ms);
                        if ladder.is_some() {
                            let d = Decision::deny(
                                DecisionOrigin::Cancelled,
                                "the turn was interrupted",
                            );
                            self.deliver(adapter, out, &ctx, d).await;
                        } else {
                            self.wait_for_decision(out, &mut queue, ctx);
                        }
                    }
                    AgentEvent::ToolExecuted {
                        tool_id,
                        status,
                        output,
                    } => {
                        out.emit(EventBody::ToolExecuted {
                            tool_id,
                            status,
                            output_preview: preview(
                                out.sanitizer(),
                                &output,
                                self.opts.output_preview_bytes,
                            ),
                        });
                    }
                    AgentEvent::Usage(u) => {
                        last_usage = Some(u);
                        out.emit(EventBody::Usage(u));
                    }
                    AgentEvent::Status {
                        message,
                        retry_after_ms,
                    } => {
                        out.emit(EventBody::Status {
                            message: out.sanitizer().sanitize(&message).into_owned(),
                            retry_after_ms,
                        });
                    }
                    AgentEvent::Error(e) => {
                        self.last_error = Some(e.clone());
                        out.emit(EventBody::Error(e));
                    }
                    AgentEvent::Ended { reason, usage } => {
                        // A raised request nobody decided yet is told so
                        // (the agent's own die with its turn).
                        let open = pending.take().map(|(ctx, _)| ctx).into_iter();
                        for ctx in open.chain(queue.drain(..)) {
                            if let Some(reply) = raised.remove(&ctx.tool_id) {
                                let d = super::unanswered();
                                emit_decided(out, &ctx, d.clone());
                                // The raiser may have stopped waiting.
                                let _ = reply.send(d);
                            }
                        }
                        if announced_id.is_some() {
                            self.native_session_id = announced_id.take();
                        }
                        let usage = usage.or(last_usage);
                        if ladder.is_some() && reason != EndReason::Error {
                            return Finish::Ended(EndReason::Interrupted, usage, None);
                        }
                        let error = (reason == EndReason::Error)
                            .then(|| self.last_error.clone())
                            .flatten();
                        return Finish::Ended(reason, usage, error);
                    }
                },
            }
        }
    }

    /// Offer steered text to the agent mid-turn; the `steered` event and
    /// the reply say that it took it, a refusal that it did not.
    async fn steer(
        &mut self,
        adapter: &mut Box<dyn crate::port::AgentAdapter>,
        out: &mut TurnEmitter<'_>,
        r: SteerRequest,
    ) {
        if r.reply.is_closed() {
            return;
        }
        match adapter.steer(&r.text).await {
            Ok(()) => {
                out.emit(EventBody::Steered(SteerNotice {
                    text: steer::preview(out.sanitizer(), &r.text),
                    by: r.by.clone(),
                }));
                // The sender queues nothing: the event said it all.
                let _ = r.reply.send(Ok(()));
            }
            Err(e) => {
                tracing::debug!(provider = %self.descriptor.id, error = %e, "steer refused");
                r.refuse(e);
            }
        }
    }

    async fn run_stage(
        &mut self,
        adapter: &mut Box<dyn crate::port::AgentAdapter>,
        stage: usize,
    ) -> Ladder {
        let which = InterruptStage::LADDER[stage];
        tracing::debug!(provider = %self.descriptor.id, ?which, "interrupt stage");
        if let Err(e) = adapter.interrupt(which).await {
            tracing::warn!(error = %e, ?which, "interrupt stage failed");
        }
        Ladder {
            stage,
            deadline: Instant::now() + self.opts.ladder_waits[stage],
        }
    }

    /// Queue `ctx` for the decision source, waiting for approval.
    fn wait_for_decision(
        &mut self,
        out: &mut TurnEmitter<'_>,
        queue: &mut VecDeque<ApprovalContext>,
        ctx: ApprovalContext,
    ) {
        if self.state() == State::Streaming {
            if let Err(bug) = self.enter(State::WaitingForApproval) {
                out.emit(EventBody::Error(bug));
            }
        }
        queue.push_back(ctx);
    }

    /// Record decision `d` on `ctx` and send it where it goes: to whoever
    /// raised the request, else to the agent.
    async fn settle(
        &mut self,
        adapter: &mut Box<dyn crate::port::AgentAdapter>,
        out: &mut TurnEmitter<'_>,
        raised: &mut Raised,
        ctx: &ApprovalContext,
        d: Decision,
    ) {
        match raised.remove(&ctx.tool_id) {
            Some(reply) => {
                emit_decided(out, ctx, d.clone());
                // The raiser may have stopped waiting: the event says it all.
                let _ = reply.send(d);
            }
            None => self.deliver(adapter, out, ctx, d).await,
        }
    }

    async fn deliver(
        &mut self,
        adapter: &mut Box<dyn crate::port::AgentAdapter>,
        out: &mut TurnEmitter<'_>,
        ctx: &ApprovalContext,
        d: Decision,
    ) {
        emit_decided(out, ctx, d.clone());
        let decision = ToolDecision {
            tool_id: ctx.tool_id.clone(),
            option: d.option,
            message: d.message,
        };
        if let Err(e) = adapter.approve_tool(decision).await {
            out.emit(EventBody::Error(e));
        }
    }
}

/// Show the request for `call` (its input sanitized) and make its context.
fn requested(
    out: &mut TurnEmitter<'_>,
    mut call: ToolCallInfo,
    options: Vec<ApprovalOption>,
    deadline_ms: u64,
) -> ApprovalContext {
    out.sanitizer().sanitize_json(&mut call.input);
    out.emit(EventBody::ToolApprovalRequested {
        tool_id: call.tool_id.clone(),
        name: call.name.clone(),
        kind: call.kind,
        input: call.input.clone(),
        options: options.clone(),
        deadline_ms,
    });
    ApprovalContext {
        prompt_id: out.prompt_id.clone(),
        tool_id: call.tool_id,
        name: call.name,
        kind: call.kind,
        input: call.input,
        options,
    }
}

fn emit_decided(out: &mut TurnEmitter<'_>, ctx: &ApprovalContext, d: Decision) {
    out.emit(EventBody::ToolApprovalDecided {
        tool_id: ctx.tool_id.clone(),
        decision: d.option,
        origin: d.origin,
        deciders: d.deciders,
    });
}

fn fail_turn(out: &mut TurnEmitter<'_>, e: CohostError) -> TurnOutcome {
    out.emit(EventBody::Error(e.clone()));
    out.end(EndReason::Error, None);
    TurnOutcome {
        prompt_id: out.prompt_id.clone(),
        correlation_id: out.correlation_id.clone(),
        reason: EndReason::Error,
        error: Some(e),
        usage: None,
    }
}
