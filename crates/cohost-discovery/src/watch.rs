//! What `config.toml` says about budgets and notifications: the defaults
//! `--budget-usd`, `--budget-tokens`, `--notify` and `--no-notify` beat.

use cohost_core::budget::BudgetLimits;

use crate::config::{config_error, HostConfig};
use crate::error::DiscoveryError;

/// `[notify]`: which notifications go out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifySettings {
    /// `notify.webhook`: an ntfy-compatible URL to POST notices to.
    pub webhook: Option<String>,
    /// `notify.terminal`: OSC 9/777 and the bell while the terminal is
    /// not focused (default on).
    pub terminal: bool,
    /// `notify.desktop`: the freedesktop notification service (default on).
    pub desktop: bool,
}

fn bool_at(cfg: &HostConfig, key: &str) -> bool {
    cfg.get(key).is_none_or(|v| v != "false")
}

/// The config's notification settings.
pub fn notify_settings(cfg: &HostConfig) -> NotifySettings {
    NotifySettings {
        webhook: cfg
            .get_str("notify.webhook")
            .filter(|u| !u.trim().is_empty()),
        terminal: bool_at(cfg, "notify.terminal"),
        desktop: bool_at(cfg, "notify.desktop"),
    }
}

/// `budget.usd` and `budget.tokens` (numbers, or strings holding one).
pub fn budget_limits(cfg: &HostConfig) -> Result<BudgetLimits, DiscoveryError> {
    let read = |key: &str| -> Result<Option<f64>, DiscoveryError> {
        let Some(v) = cfg.get(key) else {
            return Ok(None);
        };
        v.trim_matches('"')
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && *n >= 0.0)
            .map(Some)
            .ok_or_else(|| {
                config_error(
                    cfg.path(),
                    None,
                    &format!("{key} is not a budget: {v}"),
                    &format!("cohost config set {key} 5   (a positive number)"),
                )
            })
    };
    let limits = BudgetLimits {
        usd: read("budget.usd")?,
        tokens: read("budget.tokens")?.map(|n| n as u64),
    };
    limits.validate()?;
    Ok(limits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_core::ErrorCode;

    fn cfg(text: &str) -> (tempfile::TempDir, HostConfig) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).unwrap();
        let c = HostConfig::load(&path).unwrap();
        (dir, c)
    }

    #[test]
    fn defaults_and_values() {
        let (_d, c) = cfg("");
        let n = notify_settings(&c);
        assert!(n.terminal && n.desktop && n.webhook.is_none());
        assert_eq!(budget_limits(&c).unwrap(), BudgetLimits::default());
        let (_d, c) = cfg(
            "[budget]\nusd = 2.5\ntokens = 100000\n[notify]\nwebhook = \"http://127.0.0.1:9/t\"\ndesktop = false\n",
        );
        let n = notify_settings(&c);
        assert_eq!(n.webhook.as_deref(), Some("http://127.0.0.1:9/t"));
        assert!(!n.desktop && n.terminal);
        let b = budget_limits(&c).unwrap();
        assert_eq!(b.usd, Some(2.5));
        assert_eq!(b.tokens, Some(100_000));
        let (_d, c) = cfg("[budget]\nusd = \"lots\"\n");
        assert_eq!(
            budget_limits(&c).unwrap_err().code(),
            ErrorCode::ConfigInvalid
        );
    }
}
