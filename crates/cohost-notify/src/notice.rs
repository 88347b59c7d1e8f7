//! Which events are worth a notification, and what it says: a short title
//! and body made of ids, names and numbers, sanitized and stripped of
//! control characters. A prompt's text, a tool's arguments and an answer's
//! text never go into one.

use cohost_core::budget::BudgetLevel;
use cohost_core::sanitize::inert_line;
use cohost_core::{EndReason, Event, EventBody, Sanitizer};

/// What a notice is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoticeKind {
    /// A tool call waits for a decision.
    ApprovalNeeded,
    /// A turn ended (completed, interrupted, or stopped by its budget).
    TurnEnded,
    /// A turn failed.
    TurnFailed,
    /// 80% of the budget is spent.
    BudgetWarning,
    /// The budget is spent.
    BudgetExceeded,
}

impl NoticeKind {
    /// A stable name (the webhook's tag, the web page's `tag`).
    pub fn as_str(self) -> &'static str {
        match self {
            NoticeKind::ApprovalNeeded => "approval_needed",
            NoticeKind::TurnEnded => "turn_ended",
            NoticeKind::TurnFailed => "turn_failed",
            NoticeKind::BudgetWarning => "budget_warning",
            NoticeKind::BudgetExceeded => "budget_exceeded",
        }
    }

    /// Whether the user is waited for (approval) or money is at stake:
    /// sinks with priorities mark it urgent.
    pub fn urgent(self) -> bool {
        matches!(
            self,
            NoticeKind::ApprovalNeeded | NoticeKind::BudgetExceeded | NoticeKind::TurnFailed
        )
    }
}

/// One notification, ready for any sink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// What it is about.
    pub kind: NoticeKind,
    /// A short title (`cohost: claude needs approval`).
    pub title: String,
    /// One line of detail (a tool's name, why a turn ended).
    pub body: String,
}

/// Longest title or body a notice carries (a phone shows little).
const MAX: usize = 120;

fn clean(sanitizer: &Sanitizer, text: &str) -> String {
    let t = inert_line(&sanitizer.sanitize(text));
    let t = t.trim();
    if t.chars().count() <= MAX {
        t.to_owned()
    } else {
        let mut s: String = t.chars().take(MAX - 3).collect();
        s.push_str("...");
        s
    }
}

impl Notice {
    /// A notice with `title` and `body` passed through `sanitizer` (the
    /// notifier's), made one line and bounded.
    pub fn new(sanitizer: &Sanitizer, kind: NoticeKind, title: &str, body: &str) -> Notice {
        Notice {
            kind,
            title: clean(sanitizer, title),
            body: clean(sanitizer, body),
        }
    }
}

/// The notice `event` is worth, if any, its texts passed through
/// `sanitizer`. `who` names the agent when the event does not (a session of
/// one agent: its provider id).
pub fn notice_for(sanitizer: &Sanitizer, event: &Event, who: &str) -> Option<Notice> {
    let agent = event.agent.as_deref().unwrap_or(who);
    match &event.body {
        EventBody::ToolApprovalRequested { name, .. } => Some(Notice::new(
            sanitizer,
            NoticeKind::ApprovalNeeded,
            &format!("cohost: {agent} needs approval"),
            &format!("{agent} wants to run the tool {name}"),
        )),
        EventBody::StreamEnd { reason, .. } => {
            let (kind, body) = match reason {
                EndReason::Completed => (NoticeKind::TurnEnded, "the turn is done"),
                EndReason::Interrupted => (NoticeKind::TurnEnded, "the turn was interrupted"),
                EndReason::MaxTurns => (
                    NoticeKind::TurnEnded,
                    "the turn stopped at the agent's turn limit",
                ),
                EndReason::Budget => (
                    NoticeKind::TurnEnded,
                    "the turn was stopped: the budget is spent",
                ),
                EndReason::Error => (NoticeKind::TurnFailed, "the turn failed"),
            };
            let title = match kind {
                NoticeKind::TurnFailed => format!("cohost: {agent} failed"),
                _ => format!("cohost: {agent} is done"),
            };
            Some(Notice::new(sanitizer, kind, &title, body))
        }
        EventBody::Budget(n) => {
            let spent = match (n.limits.usd, n.limits.tokens) {
                (Some(usd), _) => format!("${:.2} of ${usd:.2} spent", n.spent_usd),
                (None, Some(t)) => format!("{} of {t} tokens spent", n.spent_tokens),
                (None, None) => String::from("no limit"),
            };
            match n.level {
                BudgetLevel::Warning => Some(Notice::new(
                    sanitizer,
                    NoticeKind::BudgetWarning,
                    "cohost: 80% of the budget is spent",
                    &spent,
                )),
                BudgetLevel::Exceeded => Some(Notice::new(
                    sanitizer,
                    NoticeKind::BudgetExceeded,
                    "cohost: the budget is spent",
                    &format!("{spent}; /budget raises it"),
                )),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A sanitizer of shapes only (no known value, no home), for tests.
#[cfg(test)]
pub(crate) fn shapes_only() -> Sanitizer {
    Sanitizer::shapes_only()
}

#[cfg(test)]
mod tests;
