//! What `/budget` and `/spend` say and do to a session's (or room's)
//! shared budget: the text every front end shows (the chat, a room's chat,
//! a shared room's host, which also tells its participants).

use cohost_core::budget::BudgetLimits;
use cohost_core::{CohostError, ErrorCode};
use cohost_session::SharedBudget;

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
    use std::sync::Arc;

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
