//! Budgets and notifications as every front end sets them up: the flags
//! (`--budget-usd`, `--budget-tokens`, `--notify`, `--no-notify`) beat the
//! config (`budget.*`, `notify.*`); the budget is a
//! [`SharedBudget`] priced by the price table, the notifications a
//! [`Notifier`] with the sinks the user did not switch off.

use std::sync::Arc;

use clap::Args;
use cohost_core::budget::BudgetLimits;
use cohost_core::{CohostError, ErrorCode};
use cohost_discovery::prices::PriceTable;
use cohost_discovery::watch::{budget_limits, notify_settings};
use cohost_discovery::HostConfig;
use cohost_notify::{DesktopSink, Focus, Notifier, TerminalSink, WebhookSink};
use cohost_session::SharedBudget;

/// Budget flags of `run`, `chat`, `share` and `serve`.
#[derive(Debug, Default, Clone, Args)]
pub struct BudgetArgs {
    /// Budget in US dollars, priced from the usage events and the model
    /// price table (`cohost prices`): a notice at 80%; at 100% the turn
    /// stops with reason `budget` and prompts get BUDGET_EXCEEDED until
    /// `/budget` raises it. Default: the config's `budget.usd`.
    #[arg(long, value_name = "USD", help_heading = "Budget and notifications")]
    pub budget_usd: Option<f64>,
    /// Budget in tokens (prompt, output and cache tokens of every model).
    /// Default: the config's `budget.tokens`.
    #[arg(long, value_name = "N", help_heading = "Budget and notifications")]
    pub budget_tokens: Option<u64>,
}

impl BudgetArgs {
    /// The limits in force: the flags, else the config's.
    pub fn limits(&self, cfg: &HostConfig) -> Result<BudgetLimits, CohostError> {
        let flags = BudgetLimits {
            usd: self.budget_usd,
            tokens: self.budget_tokens,
        };
        flags.validate()?;
        Ok(flags.or(budget_limits(cfg)?))
    }
}

/// Budget and notification flags of `run`, `chat` and `share`.
#[derive(Debug, Default, Clone, Args)]
pub struct WatchArgs {
    /// The budget.
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// POST a short ntfy-compatible notification to URL when a turn needs
    /// approval, ends, fails or nears its budget (e.g.
    /// https://ntfy.sh/YOUR-TOPIC). Default: the config's `notify.webhook`.
    #[arg(long, value_name = "URL", help_heading = "Budget and notifications")]
    pub notify: Option<String>,
    /// No notifications for this session (terminal, desktop, webhook).
    #[arg(long, help_heading = "Budget and notifications")]
    pub no_notify: bool,
}

impl WatchArgs {
    /// The limits in force: the flags, else the config's.
    pub fn limits(&self, cfg: &HostConfig) -> Result<BudgetLimits, CohostError> {
        self.budget.limits(cfg)
    }

    /// The session's (or room's) budget, when a limit is set.
    pub fn budget(&self, cfg: &HostConfig) -> Result<Option<SharedBudget>, CohostError> {
        let limits = self.limits(cfg)?;
        if !limits.is_set() {
            return Ok(None);
        }
        let prices = PriceTable::load(cfg)?;
        Ok(Some(SharedBudget::new(limits, Arc::new(prices))))
    }

    /// The notifier: the webhook (flag, else config), the desktop when a
    /// session bus is there, and the terminal when `terminal` is the
    /// screen's (only the terminal UI knows the focus). A sink that keeps
    /// failing is told to `report`, once.
    pub fn notifier(
        &self,
        cfg: &HostConfig,
        terminal: bool,
        report: impl Fn(String) + Send + Sync + 'static,
    ) -> Result<Notifier, CohostError> {
        let mut n = Notifier::new(crate::secrets::sanitizer()).on_report(report);
        if self.no_notify {
            return Ok(n);
        }
        let settings = notify_settings(cfg);
        if let Some(url) = self.notify.as_ref().or(settings.webhook.as_ref()) {
            n = n.with_sink(WebhookSink::new(url)?);
        }
        if settings.desktop && DesktopSink::available() {
            n = n.with_sink(DesktopSink::session());
        }
        if terminal && settings.terminal {
            n = n.with_sink(TerminalSink::new(
                Box::new(std::io::stdout()),
                Focus::from_fn(cohost_tui::term::focused),
            ));
        }
        Ok(n)
    }
}

/// `/budget ARG`: with no words, what the budget is; `USD` (`2.50`,
/// `$2.50`), `tokens N`, `usd X`, or `off` set the limit named (the other
/// stays). What to show the host.
pub fn budget_command(budget: Option<&SharedBudget>, arg: &str) -> Result<String, CohostError> {
    let Some(budget) = budget else {
        return Err(
            CohostError::new(ErrorCode::ConfigInvalid, "this session has no budget").with_fix(
                "start it with --budget-usd or --budget-tokens (or set budget.usd in the config)",
            ),
        );
    };
    let words: Vec<&str> = arg.split_whitespace().collect();
    if words.is_empty() {
        return Ok(budget.describe());
    }
    let mut limits = budget.limits();
    let bad = || {
        CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("/budget {arg}: not a budget"),
        )
        .with_fix("/budget 5 (US dollars), /budget tokens 200000, or /budget off")
    };
    let number = |w: &str| w.trim_start_matches('$').parse::<f64>().map_err(|_| bad());
    match words.as_slice() {
        ["off"] => limits = BudgetLimits::default(),
        ["tokens", n] => limits.tokens = Some(number(n)? as u64),
        ["usd", x] | [x] => limits.usd = Some(number(x)?),
        _ => return Err(bad()),
    }
    let notice = budget.raise(limits)?;
    let state = if budget.exceeded() {
        "still spent: raise it above what was spent"
    } else {
        "prompts run again"
    };
    Ok(format!(
        "budget {}: {state}",
        describe_limits(&notice.limits)
    ))
}

fn describe_limits(l: &BudgetLimits) -> String {
    match (l.usd, l.tokens) {
        (None, None) => "off".into(),
        (Some(u), None) => format!("${u:.2}"),
        (None, Some(t)) => format!("{t} tokens"),
        (Some(u), Some(t)) => format!("${u:.2} and {t} tokens"),
    }
}

/// `/spend`: what was spent, per person and per agent.
pub fn spend_command(budget: Option<&SharedBudget>) -> String {
    match budget {
        Some(b) => b.describe(),
        None => {
            "no budget is kept for this session (start it with --budget-usd or --budget-tokens)"
                .into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_core::budget::NoPrices;

    #[test]
    fn budget_words() {
        let b = SharedBudget::new(
            BudgetLimits {
                usd: Some(1.0),
                tokens: None,
            },
            Arc::new(NoPrices),
        );
        assert!(budget_command(Some(&b), "").unwrap().contains("of $1.00"));
        let said = budget_command(Some(&b), "$2.5").unwrap();
        assert!(
            said.contains("$2.50") && said.contains("run again"),
            "{said}"
        );
        budget_command(Some(&b), "tokens 500").unwrap();
        assert_eq!(b.limits().tokens, Some(500));
        assert_eq!(b.limits().usd, Some(2.5));
        assert_eq!(
            budget_command(Some(&b), "lots").unwrap_err().code,
            ErrorCode::ConfigInvalid
        );
        assert!(budget_command(Some(&b), "off").unwrap().contains("off"));
        assert!(budget_command(None, "5").is_err());
        assert!(spend_command(None).contains("no budget"));
    }
}
