//! What a budget allows and what it says: its limits, and the notice of a
//! `budget` event. Apart from [`crate::budget`] so the event format needs
//! nothing of the accounting.

use serde::{Deserialize, Serialize};

use crate::error::{CohostError, ErrorCode};

/// The limits of a budget; `None` is no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct BudgetLimits {
    /// US dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd: Option<f64>,
    /// Tokens (see [`counted_tokens`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

impl BudgetLimits {
    /// Whether any limit is set.
    pub fn is_set(&self) -> bool {
        self.usd.is_some() || self.tokens.is_some()
    }

    /// `self`, with each limit `other` sets taken from `other`.
    pub fn or(self, other: BudgetLimits) -> BudgetLimits {
        BudgetLimits {
            usd: self.usd.or(other.usd),
            tokens: self.tokens.or(other.tokens),
        }
    }

    /// A limit that is negative or not a number is a configuration error.
    pub fn validate(&self) -> Result<(), CohostError> {
        match self.usd {
            Some(u) if !u.is_finite() || u < 0.0 => Err(CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("a budget of {u} US dollars is not a budget"),
            )
            .with_fix("give --budget-usd a positive number, e.g. --budget-usd 2.50")),
            _ => Ok(()),
        }
    }
}

/// How far a budget is spent, as the `budget` event tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetLevel {
    /// 80% of a limit is spent.
    Warning,
    /// A limit is reached: the running turn stops, new prompts are refused.
    Exceeded,
    /// The limits were raised (`/budget`); work may go on.
    Raised,
    /// A level this version does not know (tolerant reader).
    #[serde(other)]
    Unknown,
}

/// The body of a `budget` event: a limit crossed or raised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetNotice {
    /// What happened.
    pub level: BudgetLevel,
    /// US dollars spent so far (priced models only).
    pub spent_usd: f64,
    /// Tokens spent so far (every model).
    pub spent_tokens: u64,
    /// The limits in force.
    #[serde(flatten)]
    pub limits: BudgetLimits,
    /// Models that had no price, so their tokens count in no dollar sum.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unpriced_models: Vec<String>,
}

impl BudgetNotice {
    /// One line for a person: what happened, how much of what.
    pub fn describe(&self) -> String {
        let mut spent = Vec::new();
        if let Some(u) = self.limits.usd {
            spent.push(format!("${:.2} of ${u:.2}", self.spent_usd));
        }
        if let Some(t) = self.limits.tokens {
            spent.push(format!("{} of {t} tokens", self.spent_tokens));
        }
        let spent = spent.join(", ");
        let unpriced = if self.unpriced_models.is_empty() {
            String::new()
        } else {
            format!(
                " (no price for {}: counted in tokens only)",
                self.unpriced_models.join(", ")
            )
        };
        match self.level {
            BudgetLevel::Warning => format!("80% of the budget is spent: {spent}{unpriced}"),
            BudgetLevel::Exceeded => {
                format!("the budget is spent: {spent}{unpriced}; /budget raises it")
            }
            BudgetLevel::Raised => format!("the budget is now {spent}"),
            BudgetLevel::Unknown => format!("budget: {spent}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_read_as_a_line() {
        let n = BudgetNotice {
            level: BudgetLevel::Warning,
            spent_usd: 0.4,
            spent_tokens: 10,
            limits: BudgetLimits {
                usd: Some(0.5),
                tokens: None,
            },
            unpriced_models: vec!["fake-model".into()],
        };
        assert_eq!(
            n.describe(),
            "80% of the budget is spent: $0.40 of $0.50 (no price for fake-model: counted in tokens only)"
        );
    }
}
