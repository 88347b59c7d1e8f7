//! Why a bridge call was refused or failed, and how each reads on the wire
//! (`From<BridgeError> for CohostError`): the calling agent's model gets
//! that error as its tool result. Member names come from agents' tool
//! calls and are shown inert.

use cohost_core::bridge::ChainRefused;
use cohost_core::sanitize::inert_line;
use cohost_core::{CohostError, ErrorCode};

use crate::SessionError;

/// A bridge call that did not get its answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BridgeError {
    /// The caller is not (or no longer) a member of the room.
    #[error("{} is not a member of this room: its call of {tool} cannot be approved", inert_line(.member))]
    NotAMember {
        /// Who called.
        member: String,
        /// The tool it called.
        tool: String,
    },
    /// The room's approval said no.
    #[error("the room did not allow {}'s call of {tool}: {by}", inert_line(.member))]
    Refused {
        /// Who called.
        member: String,
        /// The tool it called.
        tool: String,
        /// Who refused, and why, as the caller reads it.
        by: String,
    },
    /// The chain rules refuse the ask.
    #[error(transparent)]
    Chain(#[from] ChainRefused),
    /// The asked member's session refused the turn.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// Part of the answer was lost: the room's events fell behind.
    #[error("lost part of {}'s answer (the room fell behind)", inert_line(.0))]
    FellBehind(String),
    /// The asked member's session ended before it answered.
    #[error("{}'s session ended before it answered", inert_line(.0))]
    EndedFirst(String),
    /// No answer within the rules' time; a started turn was interrupted.
    #[error("{} did not answer within {} s", inert_line(.member), .wait.as_secs_f32())]
    NoAnswer {
        /// The member asked.
        member: String,
        /// The time it had.
        wait: std::time::Duration,
    },
}

impl From<BridgeError> for CohostError {
    fn from(e: BridgeError) -> CohostError {
        let message = e.to_string();
        match e {
            BridgeError::NotAMember { .. } => {
                CohostError::new(ErrorCode::PermissionRequired, message)
                    .with_fix("only a room's members may call its bridge")
            }
            BridgeError::Refused { .. } => CohostError::new(ErrorCode::PermissionRequired, message)
                .with_fix("go on without it, or ask the people in the room to allow it")
                .retryable(false),
            BridgeError::Chain(e) => e.into(),
            BridgeError::Session(e) => e.into(),
            BridgeError::FellBehind(_) => CohostError::new(ErrorCode::Unknown, message),
            BridgeError::EndedFirst(_) => CohostError::new(ErrorCode::ProcessCrashed, message),
            BridgeError::NoAnswer { .. } => CohostError::new(ErrorCode::Timeout, message)
                .with_fix("answer with what you have, or ask a shorter question"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_keeps_its_wire_code_and_shows_names_inert() {
        let e = CohostError::from(BridgeError::NotAMember {
            member: "x\u{1b}[2J".into(),
            tool: "ask_member".into(),
        });
        assert_eq!(e.code, ErrorCode::PermissionRequired);
        assert!(!e.message.contains('\u{1b}'), "{e}");
        let e = CohostError::from(BridgeError::Refused {
            member: "codex".into(),
            tool: "post_to_room".into(),
            by: "denied by ann".into(),
        });
        assert_eq!(
            e.message,
            "the room did not allow codex's call of post_to_room: denied by ann"
        );
        assert!(!e.retryable);
        let e = CohostError::from(BridgeError::NoAnswer {
            member: "claude".into(),
            wait: std::time::Duration::from_millis(1500),
        });
        assert_eq!(e.code, ErrorCode::Timeout);
        assert_eq!(e.message, "claude did not answer within 1.5 s");
        let e = CohostError::from(BridgeError::from(ChainRefused::Itself("codex".into())));
        assert_eq!(e.code, ErrorCode::ConfigInvalid);
        assert_eq!(e.message, "codex cannot ask itself");
    }
}
