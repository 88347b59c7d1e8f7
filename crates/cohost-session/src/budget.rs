//! A budget enforced on running sessions: one [`SharedBudget`] is given to
//! a session (or to every member of a room, which then spend from one
//! purse). The session's task feeds it each event; when a usage report
//! crosses 80% the session publishes a `budget` warning, at 100% it
//! interrupts the running turn through the normal ladder and the turn ends
//! with reason `budget`; a prompt queued while it is spent is refused with
//! `BUDGET_EXCEEDED` until the host raises it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cohost_core::budget::{Budget, BudgetLimits, BudgetNotice, Prices, Spend, UsageOf};
use cohost_core::sync::lock;
use cohost_core::{CohostError, EventBody};

/// Who a prompt is attributed to when the caller names nobody.
pub const HOST: &str = "host";

struct Inner {
    budget: Budget,
    /// Whoever caused each turn, by correlation id (kept until the turn ends).
    authors: HashMap<String, String>,
}

/// Told of a budget's notices.
type Listener = Box<dyn Fn(&BudgetNotice) + Send>;

/// A budget shared by the sessions it is given to. Cheap to clone.
#[derive(Clone)]
pub struct SharedBudget {
    inner: Arc<Mutex<Inner>>,
    prices: Arc<dyn Prices>,
    /// Told of every notice (the sessions publish theirs as events; a room
    /// front end may want them once).
    listeners: Arc<Mutex<Vec<Listener>>>,
}

impl std::fmt::Debug for SharedBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedBudget")
            .field("limits", &self.limits())
            .finish_non_exhaustive()
    }
}

impl SharedBudget {
    /// A budget of `limits`, priced by `prices`.
    pub fn new(limits: BudgetLimits, prices: Arc<dyn Prices>) -> SharedBudget {
        SharedBudget {
            inner: Arc::new(Mutex::new(Inner {
                budget: Budget::new(limits),
                authors: HashMap::new(),
            })),
            prices,
            listeners: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> BudgetLimits {
        lock(&self.inner).budget.limits()
    }

    /// What was spent so far.
    pub fn spend(&self) -> Spend {
        lock(&self.inner).budget.spend().clone()
    }

    /// `/spend`: the total, per person and per agent.
    pub fn describe(&self) -> String {
        let inner = lock(&self.inner);
        inner.budget.spend().describe(&inner.budget.limits())
    }

    /// Whether it is spent (prompts are refused).
    pub fn exceeded(&self) -> bool {
        lock(&self.inner).budget.exceeded()
    }

    /// The refusal of a prompt, when it is spent.
    pub fn admit(&self) -> Result<(), CohostError> {
        let inner = lock(&self.inner);
        if inner.budget.exceeded() {
            Err(inner.budget.refusal())
        } else {
            Ok(())
        }
    }

    /// Set new limits (`/budget`). The notice is returned and told to the
    /// listeners; the sessions publish it with their next turn's events.
    pub fn raise(&self, limits: BudgetLimits) -> Result<BudgetNotice, CohostError> {
        limits.validate()?;
        let notice = lock(&self.inner).budget.raise(limits);
        self.tell(&notice);
        Ok(notice)
    }

    /// Be told of every notice (warning, exceeded, raised).
    pub fn on_notice(&self, f: impl Fn(&BudgetNotice) + Send + 'static) {
        lock(&self.listeners).push(Box::new(f));
    }

    fn tell(&self, notice: &BudgetNotice) {
        for f in lock(&self.listeners).iter() {
            f(notice);
        }
    }

    /// The turn with `correlation_id` is caused by `person`.
    pub fn attribute(&self, correlation_id: &str, person: &str) {
        lock(&self.inner)
            .authors
            .insert(correlation_id.to_owned(), person.to_owned());
    }

    /// A seat for one session spending from this budget, its spend shown
    /// under `agent` (a room member's name, or the provider id).
    pub fn seat(&self, agent: impl Into<String>) -> BudgetSeat {
        BudgetSeat {
            budget: self.clone(),
            agent: agent.into(),
            key: format!("s-{}", cohost_core::ids::random_tag()),
        }
    }

    /// Feed one event of a session's turn (running `model`); the notice to
    /// publish when it crossed a threshold.
    fn observe(
        &self,
        seat: &BudgetSeat,
        model: Option<&str>,
        event: &cohost_core::Event,
    ) -> Option<BudgetNotice> {
        let usage = match &event.body {
            EventBody::Usage(u) => *u,
            EventBody::StreamEnd { usage: Some(u), .. } => *u,
            EventBody::StreamEnd { usage: None, .. } => {
                lock(&self.inner).authors.remove(&event.correlation_id);
                return None;
            }
            _ => return None,
        };
        let notice = {
            let mut inner = lock(&self.inner);
            let person = inner
                .authors
                .get(&event.correlation_id)
                .cloned()
                .unwrap_or_else(|| HOST.to_owned());
            let of = UsageOf {
                session: &seat.key,
                agent: &seat.agent,
                prompt_id: &event.prompt_id,
                model,
                person: &person,
            };
            let notice = inner.budget.record(of, &usage, self.prices.as_ref());
            if matches!(event.body, EventBody::StreamEnd { .. }) {
                inner.authors.remove(&event.correlation_id);
            }
            notice
        };
        if let Some(n) = &notice {
            self.tell(n);
        }
        notice
    }
}

/// One session's place at a [`SharedBudget`]: what the session's task
/// feeds its events through.
#[derive(Clone, Debug)]
pub struct BudgetSeat {
    budget: SharedBudget,
    agent: String,
    key: String,
}

impl BudgetSeat {
    /// The budget this seat spends from.
    pub fn budget(&self) -> &SharedBudget {
        &self.budget
    }

    /// Feed one event of this session's turn (running `model`).
    pub(crate) fn observe(
        &self,
        model: Option<&str>,
        event: &cohost_core::Event,
    ) -> Option<BudgetNotice> {
        self.budget.observe(self, model, event)
    }
}

#[cfg(test)]
mod tests;
