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
        F::SuggestPrompt | F::InterruptRequest | F::MemberOffer => role == CoDriver,
        // A co-driver may run a member of the room on its own machine; the
        // relay cannot tell whose member a turn is (the receivers check the
        // signature), but it keeps such streams apart by name
        // ([`may_use_stream`]).
        F::ExecutionStarted
        | F::StreamChunk
        | F::StreamEnd
        | F::StreamInterrupted
        | F::ToolApprovalRequested
        | F::ToolApprovalDecided => role == Host || role == CoDriver,
        // Any participant may vote; the host counts only granted ones.
        F::ApprovalVote => role != Host,
        F::PromptSuggested => false,
        F::SuggestionDecided
        | F::ApprovalGrants
        | F::MemberCommand
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
        FrameType::MemberOffer => Route::ToHosts(FrameType::MemberOffer),
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

/// The prefix of every stream a participant's connection may open: its
/// member's turns. The host names its streams freely; a participant's are
/// `m<connection id>-…`, so no one can write into a stream the host or
/// another participant opened, or fill the relay's replay ring under their
/// names.
pub fn member_stream_prefix(conn_id: u64) -> String {
    format!("m{conn_id}-")
}

/// May connection `conn_id`, holding `role`, send a frame on `stream`?
/// Frames outside a stream always may (as far as streams go).
pub fn may_use_stream(role: Role, conn_id: u64, stream: Option<&str>) -> bool {
    match stream {
        Some(s) if role != Role::Host => s.starts_with(&member_stream_prefix(conn_id)),
        _ => true,
    }
}
