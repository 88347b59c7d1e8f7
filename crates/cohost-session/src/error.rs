//! What can go wrong in a running session or a room, as values a front end
//! can match on; [`CohostError`] (the wire error) is made from them only
//! where an error leaves cohost, through `From<SessionError>`.

use cohost_core::sanitize::inert_line;
use cohost_core::{CohostError, ErrorCode};

/// An error of a running session or a room.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The session is stopping or has stopped: it takes no more prompts or
    /// commands.
    #[error("the session has ended: {why}")]
    Ended {
        /// How it ended, as the user reads it ("it is stopping").
        why: &'static str,
    },
    /// The session ended while a queued prompt still waited: it never ran.
    #[error("the session ended before this prompt ran")]
    EndedBeforeTurn,
    /// No prompt waits in the queue under this number.
    #[error("no prompt #{id} is waiting in the queue (it may have started or been dropped)")]
    NotQueued {
        /// The number asked for.
        id: u64,
    },
    /// Steered text reached a turn that ended before the agent took it.
    #[error("the turn ended before the agent took the text")]
    SteerMissed,
    /// Two members of a room were given one name.
    #[error("two members of the room are named {}", inert_line(.name))]
    DuplicateMember {
        /// The name given twice.
        name: String,
    },
    /// No member of the room has this name.
    #[error("no member of this room is named {}", inert_line(.name))]
    NoSuchMember {
        /// The name asked for.
        name: String,
        /// Who is in the room, in the order they joined.
        members: Vec<String>,
    },
    /// The session's budget is spent: the budget's own refusal.
    #[error(transparent)]
    BudgetSpent(CohostError),
    /// The agent failed a command (a model change, its stop): its own
    /// error, passed on as it is.
    #[error(transparent)]
    Agent(#[from] CohostError),
}

impl SessionError {
    /// The wire code this error is reported under.
    pub fn code(&self) -> ErrorCode {
        match self {
            SessionError::Ended { .. } => ErrorCode::ProcessCrashed,
            SessionError::EndedBeforeTurn => ErrorCode::Cancelled,
            SessionError::NotQueued { .. }
            | SessionError::DuplicateMember { .. }
            | SessionError::NoSuchMember { .. } => ErrorCode::ConfigInvalid,
            SessionError::SteerMissed => ErrorCode::IllegalTransition,
            SessionError::BudgetSpent(e) | SessionError::Agent(e) => e.code,
        }
    }

    /// The message and its fix in one line (`message; fix`), for a notice.
    pub fn said(&self) -> String {
        match self.fix() {
            Some(fix) => format!("{self}; {fix}"),
            None => self.to_string(),
        }
    }

    /// What the user can do about it.
    pub fn fix(&self) -> Option<String> {
        let fix = match self {
            SessionError::Ended { .. } => "open a new session, or resume this one",
            SessionError::EndedBeforeTurn => {
                "open a new session (or resume this one) and send it again"
            }
            SessionError::NotQueued { .. } => {
                "list the queue (`/queue`, or GET the session's queue) and use a number shown there"
            }
            SessionError::SteerMissed => "the text is queued and sent as the next turn",
            SessionError::DuplicateMember { .. } => {
                "give each member its own name (claude, claude#2)"
            }
            SessionError::NoSuchMember { members, .. } => {
                return Some(format!("the members are: {}", members.join(", ")));
            }
            SessionError::BudgetSpent(e) | SessionError::Agent(e) => {
                return e.suggested_fix.clone();
            }
        };
        Some(fix.to_owned())
    }
}

impl From<SessionError> for CohostError {
    fn from(e: SessionError) -> CohostError {
        match e {
            SessionError::BudgetSpent(e) | SessionError::Agent(e) => e,
            // A stopped session stays stopped: retrying the same handle
            // cannot help, whatever the code's default says.
            SessionError::Ended { .. } => wire(&e).retryable(false),
            own => wire(&own),
        }
    }
}

/// `e`'s own code, message and fix.
fn wire(e: &SessionError) -> CohostError {
    CohostError::new(e.code(), e.to_string()).with_optional_fix(e.fix())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn own_errors_keep_their_wire_code_message_and_fix() {
        let cases = [
            (
                SessionError::Ended {
                    why: "it is stopping",
                },
                ErrorCode::ProcessCrashed,
                "the session has ended: it is stopping",
                "open a new session, or resume this one",
            ),
            (
                SessionError::EndedBeforeTurn,
                ErrorCode::Cancelled,
                "the session ended before this prompt ran",
                "open a new session (or resume this one) and send it again",
            ),
            (
                SessionError::NotQueued { id: 7 },
                ErrorCode::ConfigInvalid,
                "no prompt #7 is waiting in the queue (it may have started or been dropped)",
                "list the queue (`/queue`, or GET the session's queue) and use a number shown there",
            ),
            (
                SessionError::SteerMissed,
                ErrorCode::IllegalTransition,
                "the turn ended before the agent took the text",
                "the text is queued and sent as the next turn",
            ),
            (
                SessionError::DuplicateMember {
                    name: "claude".into(),
                },
                ErrorCode::ConfigInvalid,
                "two members of the room are named claude",
                "give each member its own name (claude, claude#2)",
            ),
            (
                SessionError::NoSuchMember {
                    name: "nobody".into(),
                    members: vec!["claude".into(), "codex".into()],
                },
                ErrorCode::ConfigInvalid,
                "no member of this room is named nobody",
                "the members are: claude, codex",
            ),
        ];
        for (error, code, message, fix) in cases {
            let wire = CohostError::from(error);
            assert_eq!(wire.code, code);
            assert_eq!(wire.message, message);
            assert_eq!(wire.suggested_fix.as_deref(), Some(fix));
            assert!(!wire.retryable, "{message}");
        }
    }

    #[test]
    fn a_passed_on_error_reaches_the_wire_unchanged() {
        let agent = CohostError::new(ErrorCode::RateLimited, "slow down").with_fix("wait");
        let e = SessionError::from(agent.clone());
        assert_eq!(e.code(), ErrorCode::RateLimited);
        assert_eq!(e.to_string(), agent.to_string());
        assert!(
            e.source().is_none(),
            "transparent: no second copy in a chain"
        );
        assert_eq!(CohostError::from(e), agent);
        let refusal = CohostError::new(ErrorCode::BudgetExceeded, "spent");
        assert_eq!(
            CohostError::from(SessionError::BudgetSpent(refusal.clone())),
            refusal
        );
    }

    #[test]
    fn a_member_name_is_shown_on_one_inert_line() {
        let e = SessionError::NoSuchMember {
            name: "a\nb".into(),
            members: vec![],
        };
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}
