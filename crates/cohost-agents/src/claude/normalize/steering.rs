//! Steering Claude Code: user messages written while a turn runs, and the
//! bookkeeping that folds what they cause into that one cohost turn.
//!
//! Observed with Claude Code 2.1.332 (`--input-format stream-json`), and
//! what its embedded SDK schema says: a user message sent with a `uuid`
//! gets `command_lifecycle` lines (`queued`, then `started` when a turn
//! takes it in, then one terminal state). A message that arrives while the
//! running turn still calls tools is `started` inside that turn (joined to
//! the next tool result: "The user sent a new message while you were
//! working"), and the turn's one `result` answers it too. A message that
//! arrives when the turn makes no further model request stays `queued`, the
//! turn's `result` comes, and then the CLI runs it as a turn of its own
//! (`started`, a second `system/init`, a second `result`).
//!
//! So a `result` ends the cohost turn only when none of the turn's steered
//! messages is still waiting (sent but not yet `queued`, or `queued` and
//! not yet `started`), and no CLI turn started for one of them is still
//! running. Otherwise the result is folded: its usage is added, its
//! reason kept, and the turn goes on.

use cohost_core::{CohostError, EndReason, ErrorCode, Usage};

/// Where a steered message is, as its `command_lifecycle` lines say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Written; the CLI has not said anything of it yet.
    Sent,
    /// In the CLI's queue: a turn will take it in.
    Queued,
    /// A turn has taken it in.
    Started,
    /// Completed, cancelled, discarded or refused: nothing more comes of it.
    Done,
}

#[derive(Debug)]
struct Steer {
    uuid: String,
    ticket: u64,
    state: State,
    /// Whether the steer's caller has been answered.
    answered: bool,
}

/// What a `command_lifecycle` line changed.
#[derive(Debug, PartialEq)]
pub(super) enum Lifecycle {
    /// Nothing for the host (a message of no steer, or no change).
    Nothing,
    /// The steer of this ticket is answered: taken, or refused.
    Answer(u64, Result<(), CohostError>),
}

/// The steering state of one CLI process; reset by every new turn.
#[derive(Debug, Default)]
pub(super) struct Steering {
    /// `msg_lifecycle_v1` seen on `system/init`: the CLI reports what
    /// becomes of a message sent with a `uuid`.
    lifecycle: bool,
    /// `interrupt_cancel_queued_v1` seen: an interrupt can drop the
    /// messages still queued, so a steer cannot outlive its turn.
    pub(super) cancel_queued: bool,
    steers: Vec<Steer>,
    next_ticket: u64,
    /// A CLI turn of this cohost turn is running (false from a `result`
    /// until a steered message starts the next one).
    cli_turn: bool,
    /// Results folded into the turn so far: the sum of their usage.
    usage: Option<Usage>,
    /// The first reason other than `Completed` among the folded results.
    reason: Option<EndReason>,
    /// A `result` has come and the turn waits only for its steers.
    held: bool,
}

impl Steering {
    /// Note what `system/init` advertises.
    pub(super) fn capabilities(&mut self, caps: &[String]) {
        if caps.is_empty() {
            return; // An `init` without the list says nothing new.
        }
        let has = |c: &str| caps.iter().any(|x| x == c);
        self.lifecycle = has("msg_lifecycle_v1");
        self.cancel_queued = has("interrupt_cancel_queued_v1");
    }

    /// A new cohost turn: forget the last one's steers.
    pub(super) fn begin_turn(&mut self) {
        self.steers.clear();
        self.cli_turn = true;
        self.usage = None;
        self.reason = None;
        self.held = false;
    }

    /// Why a steer cannot be taken now, if it cannot.
    pub(super) fn refusal(&self, provider: &str) -> Option<CohostError> {
        (!self.lifecycle || !self.cancel_queued).then(|| {
            CohostError::new(
                ErrorCode::UnsupportedMode,
                format!(
                    "agent `{provider}` does not report what becomes of a message sent mid-turn \
                     (no `msg_lifecycle_v1` and `interrupt_cancel_queued_v1` on its `system/init`)"
                ),
            )
            .with_fix("the text is queued and sent as the next turn; Claude Code 2.1.332 takes it mid-turn")
        })
    }

    /// Record a steer written with `uuid`; returns its ticket.
    pub(super) fn add(&mut self, uuid: &str) -> u64 {
        self.next_ticket += 1;
        self.steers.push(Steer {
            uuid: uuid.to_owned(),
            ticket: self.next_ticket,
            state: State::Sent,
            answered: false,
        });
        self.next_ticket
    }

    /// A `command_lifecycle` line.
    pub(super) fn on_lifecycle(&mut self, uuid: &str, state: &str, provider: &str) -> Lifecycle {
        let Some(s) = self.steers.iter_mut().find(|s| s.uuid == uuid) else {
            return Lifecycle::Nothing; // Not ours, or of a turn that is over.
        };
        let taken = match state {
            "queued" => {
                if s.state == State::Sent {
                    s.state = State::Queued;
                }
                true
            }
            "started" => {
                s.state = State::Started;
                // Started after the turn's `result`: a CLI turn of its own,
                // whose `result` is still to come.
                self.cli_turn = true;
                true
            }
            "completed" => {
                s.state = State::Done;
                true
            }
            // cancelled, discarded, refused, and any state a later version
            // adds: nothing more comes of it.
            _ => {
                s.state = State::Done;
                false
            }
        };
        if s.answered {
            return Lifecycle::Nothing;
        }
        s.answered = true;
        let answer = if taken {
            Ok(())
        } else {
            Err(CohostError::new(
                ErrorCode::IllegalTransition,
                format!("agent `{provider}` did not take the text mid-turn ({state})"),
            )
            .with_fix("the text is queued and sent as the next turn"))
        };
        Lifecycle::Answer(s.ticket, answer)
    }

    /// Add a `result`'s usage to the turn's ([`Steering::usage`]).
    pub(super) fn add_usage(&mut self, usage: Option<Usage>) {
        self.usage = match (self.usage, usage) {
            (Some(a), Some(b)) => Some(sum(&a, &b)),
            (a, b) => a.or(b),
        };
    }

    /// A `result` ended with `reason` (its usage already added). `Some`
    /// with the turn's end (its reason and the usage of all its results)
    /// when nothing steered is left to answer; `None` when the turn goes on.
    /// `stopping`: the turn was interrupted with `cancel_queued`, so no
    /// steered message still waiting will run (the CLI drops them with the
    /// interrupt), whether or not it has said so yet: the turn ends here.
    pub(super) fn on_result(
        &mut self,
        reason: EndReason,
        stopping: bool,
    ) -> Option<(EndReason, Option<Usage>)> {
        if reason != EndReason::Completed && self.reason.is_none() {
            self.reason = Some(reason);
        }
        self.cli_turn = false;
        self.held = true;
        if stopping {
            for s in &mut self.steers {
                if matches!(s.state, State::Sent | State::Queued) {
                    s.state = State::Done;
                }
            }
        }
        self.finish()
    }

    /// After a steer's terminal state: the turn's end when it was held for
    /// it alone (a queued steer cancelled by an interrupt).
    pub(super) fn after_lifecycle(&mut self) -> Option<(EndReason, Option<Usage>)> {
        if self.held {
            self.finish()
        } else {
            None
        }
    }

    fn finish(&mut self) -> Option<(EndReason, Option<Usage>)> {
        let waiting = self
            .steers
            .iter()
            .any(|s| matches!(s.state, State::Sent | State::Queued));
        if waiting || self.cli_turn {
            return None;
        }
        self.held = false;
        Some((self.reason.unwrap_or(EndReason::Completed), self.usage))
    }

    /// The usage of the turn's results so far.
    pub(super) fn usage(&self) -> Option<Usage> {
        self.usage
    }
}

fn sum(a: &Usage, b: &Usage) -> Usage {
    Usage {
        input_tokens: a.input_tokens.saturating_add(b.input_tokens),
        output_tokens: a.output_tokens.saturating_add(b.output_tokens),
        reasoning_tokens: a.reasoning_tokens.saturating_add(b.reasoning_tokens),
        cache_read_tokens: a.cache_read_tokens.saturating_add(b.cache_read_tokens),
        cache_write_tokens: a.cache_write_tokens.saturating_add(b.cache_write_tokens),
    }
}
