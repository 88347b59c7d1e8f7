//! The budget `cohost serve` gives each session (or room) it opens.

use std::sync::Arc;

/// The budget `cohost serve` gives each session it opens (a room's members
/// share one): limits and the prices they are counted with.
#[derive(Clone)]
pub struct ServeBudget {
    /// The limits of each session's budget.
    pub limits: cohost_core::budget::BudgetLimits,
    /// The price table.
    pub prices: Arc<dyn cohost_core::budget::Prices>,
}

impl ServeBudget {
    pub(crate) fn budget(&self) -> cohost_session::SharedBudget {
        cohost_session::SharedBudget::new(self.limits, self.prices.clone())
    }
}
