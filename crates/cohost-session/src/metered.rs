//! One turn's events through a budget: every usage report is fed to the
//! session's [`BudgetSeat`]; a threshold crossed puts a `budget` event right
//! after the report (later events move up one id), and the crossing of
//! 100% interrupts the turn through the normal ladder and makes its
//! `stream_end` say `budget`.

use std::time::{SystemTime, UNIX_EPOCH};

use cohost_core::budget::{BudgetLevel, BudgetNotice};
use cohost_core::{EndReason, Event, EventBody, SessionControl};

use crate::budget::BudgetSeat;

/// The budget's view of one running turn.
pub(crate) struct Meter<'a> {
    seat: Option<&'a BudgetSeat>,
    /// The session's model, until the turn names its own.
    model: Option<String>,
    control: SessionControl,
    /// Events put in so far (each later event's id moves up by this).
    shift: u64,
    /// The budget was spent during this turn: it was interrupted.
    stopped: bool,
}

impl<'a> Meter<'a> {
    pub(crate) fn new(
        seat: Option<&'a BudgetSeat>,
        model: Option<String>,
        control: SessionControl,
    ) -> Meter<'a> {
        Meter {
            seat,
            model,
            control,
            shift: 0,
            stopped: false,
        }
    }

    /// Pass `event` on through `out`, with the budget's events put in.
    pub(crate) fn pass(&mut self, mut event: Event, out: &mut dyn FnMut(Event)) {
        let Some(seat) = self.seat else {
            return out(event);
        };
        if let EventBody::StreamStart { model: Some(m), .. } = &event.body {
            self.model = Some(m.clone());
        }
        self.renumber(&mut event);
        let notice = seat.observe(self.model.as_deref(), &event);
        let spent = notice
            .as_ref()
            .is_some_and(|n| n.level == BudgetLevel::Exceeded);
        // A turn already running when another member spent the room's
        // budget stops at its next usage report.
        let over = spent || (matches!(event.body, EventBody::Usage(_)) && seat.budget().exceeded());
        if over && !self.stopped {
            self.stopped = true;
            self.control.interrupt();
        }
        if matches!(event.body, EventBody::StreamEnd { .. }) {
            // The `budget` event goes before the turn's last event.
            if let Some(n) = notice {
                let anchor = event.clone();
                self.insert(&anchor, 0, n, out);
                self.renumber_one(&mut event);
            }
            if let EventBody::StreamEnd { reason, .. } = &mut event.body {
                *reason = self.end_reason(*reason);
            }
            out(event);
        } else {
            let anchor = notice.is_some().then(|| event.clone());
            out(event);
            if let (Some(anchor), Some(n)) = (anchor, notice) {
                self.insert(&anchor, 1, n, out);
            }
        }
    }

    /// Why the turn ended, as the budget sees it: a turn it stopped ends
    /// with `budget` (an error stays an error: it says more).
    pub(crate) fn end_reason(&self, reason: EndReason) -> EndReason {
        match reason {
            EndReason::Completed | EndReason::Interrupted if self.stopped => EndReason::Budget,
            r => r,
        }
    }

    fn renumber(&self, event: &mut Event) {
        if self.shift == 0 {
            return;
        }
        if let Some((p, n)) = split_id(&event.id) {
            event.id = format!("{p}.{}", n + self.shift);
        }
    }

    fn renumber_one(&self, event: &mut Event) {
        if let Some((p, n)) = split_id(&event.id) {
            event.id = format!("{p}.{}", n + 1);
        }
    }

    /// The `budget` event at `anchor`'s id plus `offset`.
    fn insert(
        &mut self,
        anchor: &Event,
        offset: u64,
        notice: BudgetNotice,
        out: &mut dyn FnMut(Event),
    ) {
        let id = match split_id(&anchor.id) {
            Some((p, n)) => format!("{p}.{}", n + offset),
            None => format!("{}.b{}", anchor.id, self.shift + 1),
        };
        self.shift += 1;
        out(Event {
            id,
            prompt_id: anchor.prompt_id.clone(),
            correlation_id: anchor.correlation_id.clone(),
            ts: now_ms().max(anchor.ts),
            agent: anchor.agent.clone(),
            body: EventBody::Budget(notice),
        });
    }
}

fn split_id(id: &str) -> Option<(&str, u64)> {
    let (p, n) = id.rsplit_once('.')?;
    Some((p, n.parse().ok()?))
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
