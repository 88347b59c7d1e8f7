//! The permission matrix (frame type x role -> may send?) and routing rules.
//!
//! This is the ONE place that decides who may send what. The relay checks
//! [`may_send`] on every frame a client sends, with the role from its token.

use crate::frames::FrameType;
use crate::roles::Role;

/// Where the relay sends a frame a client was allowed to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Fan out to every other connection in the room (all nodes).
    Room,
    /// Deliver only to the room's host connections, with the frame type
    /// rewritten to the given type (e.g. `suggest_prompt` -> `prompt_suggested`).
    ToHosts(FrameType),
    /// Consumed by the relay itself (resume, ping, pong, kick); never forwarded.
    Relay,
}

/// May a client holding `role` send a frame of type `ty` to the relay?
///
/// Frames only the relay emits (`prompt_suggested`, presence, welcome, error,
/// gap, resync) may be sent by nobody.
pub fn may_send(ty: FrameType, role: Role) -> bool {
    use FrameType as F;
    use Role::*;
    match ty {
        F::SuggestPrompt | F::InterruptRequest => role == CoDriver,
        // Any participant may vote; the host counts only granted ones.
        F::ApprovalVote => role != Host,
        F::PromptSuggested => false,
        F::SuggestionDecided
        | F::ExecutionStarted
        | F::StreamChunk
        | F::StreamEnd
        | F::StreamInterrupted
        | F::ToolApprovalRequested
        | F::ToolApprovalDecided
        | F::ApprovalGrants
        | F::KeyRoster
        | F::KeyDoor
        | F::RoomClose => role == Host,
        F::ChatMessage => true,
        F::KeyAnnounce => role != Host,
        F::KeyRotate | F::RoomKick => role == Host,
        F::PresenceJoin | F::PresenceLeave | F::PresenceList => false,
        F::RoomResume | F::RoomPing | F::RoomPong => true,
        F::RoomResync | F::RoomGap | F::RoomError | F::RoomWelcome => false,
    }
}

/// How the relay routes a client frame of type `ty` (meaningful only when
/// [`may_send`] allowed it).
pub fn route(ty: FrameType) -> Route {
    match ty {
        FrameType::SuggestPrompt => Route::ToHosts(FrameType::PromptSuggested),
        // A public key is for the hosts, who answer with `key.rotate`; an
        // interrupt request is for the hosts to decide.
        FrameType::KeyAnnounce => Route::ToHosts(FrameType::KeyAnnounce),
        FrameType::InterruptRequest => Route::ToHosts(FrameType::InterruptRequest),
        FrameType::ApprovalVote => Route::ToHosts(FrameType::ApprovalVote),
        FrameType::RoomResume | FrameType::RoomPing | FrameType::RoomPong | FrameType::RoomKick => {
            Route::Relay
        }
        _ => Route::Room,
    }
}

/// Whether the relay delivers frames of type `ty` to the room's hosts only:
/// it is the type some [`route`] rewrites a client frame to for the hosts
/// (a suggestion, a key announcement, an interrupt request, an approval
/// vote). Everyone else never receives one, whatever its sender wanted.
pub fn to_hosts_only(ty: FrameType) -> bool {
    FrameType::ALL
        .iter()
        .any(|&from| route(from) == Route::ToHosts(ty))
}
