//! Budgets and notifications as every front end sets them up: the flags
//! (`--budget-usd`, `--budget-tokens`, `--notify`, `--no-notify`) beat the
//! config (`budget.*`, `notify.*`); the budget is a
//! [`SharedBudget`] priced by the price table, the notifications a
//! [`Notifier`] with the sinks the user did not switch off. What `/budget`
//! and `/spend` say is `cohost_sharing::spend_text`.

use std::sync::Arc;

use clap::Args;
use cohost_core::budget::BudgetLimits;
use cohost_core::CohostError;
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
