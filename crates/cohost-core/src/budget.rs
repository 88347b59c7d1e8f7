//! Budgets: what a session (or a room) may spend, and what it has spent.
//!
//! A pure value fed by the turns' `usage` events and a price lookup (the
//! [`Prices`] port; the pinned price table is an adapter's). It says when
//! the spend crosses 80% of a limit (a notice) and 100% (the running turn
//! is stopped and further prompts are refused with `BUDGET_EXCEEDED`);
//! the session runtime enforces what it says. A model without a price is
//! counted in tokens only, and the spend says which models those were.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::error::{CohostError, ErrorCode};
use crate::event::Usage;
pub use crate::limits::{BudgetLevel, BudgetLimits, BudgetNotice};

/// The share of a limit at which a notice is given.
pub const WARN_AT: f64 = 0.8;

/// What one model's tokens cost, in US dollars per token.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelPrice {
    /// Per prompt token.
    pub input_cost_per_token: f64,
    /// Per generated token (reasoning tokens are billed as output).
    pub output_cost_per_token: f64,
    /// Per token read from the prompt cache; the input price when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_input_token_cost: Option<f64>,
    /// Per token written to the prompt cache; the input price when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_token_cost: Option<f64>,
}

impl ModelPrice {
    /// The cost of `usage` at this price.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let read = self
            .cache_read_input_token_cost
            .unwrap_or(self.input_cost_per_token);
        let write = self
            .cache_creation_input_token_cost
            .unwrap_or(self.input_cost_per_token);
        usage.input_tokens as f64 * self.input_cost_per_token
            + usage.output_tokens as f64 * self.output_cost_per_token
            + usage.cache_read_tokens as f64 * read
            + usage.cache_write_tokens as f64 * write
    }
}

/// The price lookup port: the price of a model by the name the agent
/// reports, when known.
pub trait Prices: Send + Sync {
    /// The price of `model`, or `None` when the table has none.
    fn price(&self, model: &str) -> Option<ModelPrice>;
}

/// No prices at all: everything is counted in tokens.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPrices;

impl Prices for NoPrices {
    fn price(&self, _model: &str) -> Option<ModelPrice> {
        None
    }
}

/// The tokens a budget counts of one usage: prompt, generated and cache
/// tokens (reasoning tokens are part of the generated ones where agents
/// report both, so they are not added twice).
pub fn counted_tokens(u: &Usage) -> u64 {
    u.input_tokens
        .saturating_add(u.output_tokens)
        .saturating_add(u.cache_read_tokens)
        .saturating_add(u.cache_write_tokens)
}

/// Spend of one person on one agent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SpendLine {
    /// US dollars (priced models only).
    pub usd: f64,
    /// Tokens.
    pub tokens: u64,
}

impl SpendLine {
    fn add(&mut self, usd: f64, tokens: u64) {
        self.usd += usd;
        self.tokens = self.tokens.saturating_add(tokens);
    }
}

/// What was spent, in total and by (person, agent).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spend {
    /// The total.
    pub total: SpendLine,
    /// By person (whoever's prompt or accepted suggestion caused it), then
    /// by agent (the room member, or the provider id).
    pub by: BTreeMap<(String, String), SpendLine>,
    /// Models seen without a price.
    pub unpriced: BTreeSet<String>,
}

impl Spend {
    /// Spend per person (summed over agents).
    pub fn per_person(&self) -> BTreeMap<String, SpendLine> {
        let mut out: BTreeMap<String, SpendLine> = BTreeMap::new();
        for ((who, _), l) in &self.by {
            out.entry(who.clone()).or_default().add(l.usd, l.tokens);
        }
        out
    }

    /// Spend per agent (summed over people).
    pub fn per_agent(&self) -> BTreeMap<String, SpendLine> {
        let mut out: BTreeMap<String, SpendLine> = BTreeMap::new();
        for ((_, agent), l) in &self.by {
            out.entry(agent.clone()).or_default().add(l.usd, l.tokens);
        }
        out
    }

    /// A few lines for `/spend`: the total, then per person and per agent.
    pub fn describe(&self, limits: &BudgetLimits) -> String {
        let mut out = format!("spent {}", line(&self.total));
        match (limits.usd, limits.tokens) {
            (None, None) => out.push_str(" (no budget)"),
            (usd, tokens) => {
                let mut parts = Vec::new();
                if let Some(u) = usd {
                    parts.push(format!("${u:.2}"));
                }
                if let Some(t) = tokens {
                    parts.push(format!("{t} tokens"));
                }
                out.push_str(&format!(" of {}", parts.join(" and ")));
            }
        }
        for (who, l) in self.per_person() {
            out.push_str(&format!("\n  {who}: {}", line(&l)));
        }
        for (agent, l) in self.per_agent() {
            out.push_str(&format!("\n  agent {agent}: {}", line(&l)));
        }
        if !self.unpriced.is_empty() {
            let names: Vec<&str> = self.unpriced.iter().map(String::as_str).collect();
            out.push_str(&format!(
                "\n  no price for {}: counted in tokens only",
                names.join(", ")
            ));
        }
        out
    }
}

fn line(l: &SpendLine) -> String {
    format!("${:.4}, {} tokens", l.usd, l.tokens)
}

/// The turn a usage report belongs to, and what it has reported so far
/// (usage events are cumulative for their turn).
#[derive(Debug, Clone, Default)]
struct TurnSeen {
    prompt_id: String,
    usage: Usage,
}

/// A budget: limits, the spend so far, and which notices were given.
#[derive(Debug, Clone, Default)]
pub struct Budget {
    limits: BudgetLimits,
    spend: Spend,
    warned: bool,
    exceeded: bool,
    /// The latest usage of each session's running turn, by session key.
    turns: BTreeMap<String, TurnSeen>,
}

/// Who and what a usage report is for.
#[derive(Debug, Clone, Copy)]
pub struct UsageOf<'a> {
    /// A key unique to the session: usage reports of different sessions
    /// never subtract from each other.
    pub session: &'a str,
    /// The agent the spend is shown under (a room member's name, or the
    /// provider id).
    pub agent: &'a str,
    /// The turn's prompt id.
    pub prompt_id: &'a str,
    /// The model the turn runs, when known.
    pub model: Option<&'a str>,
    /// Whoever's prompt caused the turn.
    pub person: &'a str,
}

impl Budget {
    /// A budget with these limits and nothing spent.
    pub fn new(limits: BudgetLimits) -> Budget {
        let mut b = Budget {
            limits,
            ..Budget::default()
        };
        // A zero budget is spent before anything runs.
        b.exceeded = limits.is_set() && b.fraction() >= 1.0;
        b.warned = b.exceeded;
        b
    }

    /// The limits in force.
    pub fn limits(&self) -> BudgetLimits {
        self.limits
    }

    /// What was spent.
    pub fn spend(&self) -> &Spend {
        &self.spend
    }

    /// Whether a limit is reached: prompts are refused until it is raised.
    pub fn exceeded(&self) -> bool {
        self.exceeded
    }

    /// The typed error a refused prompt gets.
    pub fn refusal(&self) -> CohostError {
        CohostError::new(
            ErrorCode::BudgetExceeded,
            format!(
                "the budget is spent ({}); no new prompt runs",
                self.reached()
            ),
        )
        .with_fix("raise it: /budget USD (or /budget tokens N) in the session, or start again with a higher --budget-usd / --budget-tokens")
    }

    fn reached(&self) -> String {
        let mut parts = Vec::new();
        if let Some(u) = self.limits.usd {
            parts.push(format!("${:.4} of ${u:.2}", self.spend.total.usd));
        }
        if let Some(t) = self.limits.tokens {
            parts.push(format!("{} of {t} tokens", self.spend.total.tokens));
        }
        parts.join(", ")
    }

    /// The share of the tighter limit spent (0 with no limit).
    pub fn fraction(&self) -> f64 {
        let usd = self
            .limits
            .usd
            .map(|l| ratio(self.spend.total.usd, l))
            .unwrap_or(0.0);
        let tokens = self
            .limits
            .tokens
            .map(|l| ratio(self.spend.total.tokens as f64, l as f64))
            .unwrap_or(0.0);
        usd.max(tokens)
    }

    /// Take in one (cumulative) usage report of a turn; returns the notice
    /// to give when it crossed 80% or 100% of a limit.
    pub fn record(
        &mut self,
        of: UsageOf<'_>,
        usage: &Usage,
        prices: &dyn Prices,
    ) -> Option<BudgetNotice> {
        let seen = self.turns.entry(of.session.to_owned()).or_default();
        if seen.prompt_id != of.prompt_id {
            *seen = TurnSeen {
                prompt_id: of.prompt_id.to_owned(),
                usage: Usage::default(),
            };
        }
        let delta = minus(usage, &seen.usage);
        seen.usage = max_of(usage, &seen.usage);
        if delta.is_empty() {
            return None;
        }
        let tokens = counted_tokens(&delta);
        let usd = match of.model.and_then(|m| prices.price(m).map(|p| (m, p))) {
            Some((_, p)) => p.cost(&delta),
            None => {
                self.spend
                    .unpriced
                    .insert(of.model.unwrap_or("unknown model").to_owned());
                0.0
            }
        };
        self.spend.total.add(usd, tokens);
        self.spend
            .by
            .entry((of.person.to_owned(), of.agent.to_owned()))
            .or_default()
            .add(usd, tokens);
        self.check()
    }

    fn check(&mut self) -> Option<BudgetNotice> {
        let f = self.fraction();
        if f >= 1.0 && !self.exceeded {
            self.exceeded = true;
            self.warned = true;
            return Some(self.notice(BudgetLevel::Exceeded));
        }
        if f >= WARN_AT && !self.warned {
            self.warned = true;
            return Some(self.notice(BudgetLevel::Warning));
        }
        None
    }

    /// Set new limits (`/budget`); the notice says they were raised, and
    /// the spend is checked against them at once.
    pub fn raise(&mut self, limits: BudgetLimits) -> BudgetNotice {
        self.limits = limits;
        let f = self.fraction();
        self.exceeded = f >= 1.0;
        self.warned = f >= WARN_AT;
        self.notice(if self.exceeded {
            BudgetLevel::Exceeded
        } else {
            BudgetLevel::Raised
        })
    }

    /// The notice of `level` for the spend now.
    pub fn notice(&self, level: BudgetLevel) -> BudgetNotice {
        BudgetNotice {
            level,
            spent_usd: self.spend.total.usd,
            spent_tokens: self.spend.total.tokens,
            limits: self.limits,
            unpriced_models: self.spend.unpriced.iter().cloned().collect(),
        }
    }
}

fn ratio(spent: f64, limit: f64) -> f64 {
    if limit <= 0.0 {
        // A zero budget is spent before anything runs.
        1.0
    } else {
        spent / limit
    }
}

fn minus(a: &Usage, b: &Usage) -> Usage {
    Usage {
        input_tokens: a.input_tokens.saturating_sub(b.input_tokens),
        output_tokens: a.output_tokens.saturating_sub(b.output_tokens),
        reasoning_tokens: a.reasoning_tokens.saturating_sub(b.reasoning_tokens),
        cache_read_tokens: a.cache_read_tokens.saturating_sub(b.cache_read_tokens),
        cache_write_tokens: a.cache_write_tokens.saturating_sub(b.cache_write_tokens),
    }
}

fn max_of(a: &Usage, b: &Usage) -> Usage {
    Usage {
        input_tokens: a.input_tokens.max(b.input_tokens),
        output_tokens: a.output_tokens.max(b.output_tokens),
        reasoning_tokens: a.reasoning_tokens.max(b.reasoning_tokens),
        cache_read_tokens: a.cache_read_tokens.max(b.cache_read_tokens),
        cache_write_tokens: a.cache_write_tokens.max(b.cache_write_tokens),
    }
}

#[cfg(test)]
mod tests;
