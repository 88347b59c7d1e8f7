//! Frame types: the one-byte `type` field of the envelope.

macro_rules! frame_types {
    ($( $(#[$doc:meta])* $variant:ident = $code:literal, $name:literal; )*) => {
        /// What a frame is. The relay routes on this and never on the payload.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum FrameType {
            $( $(#[$doc])* $variant, )*
        }

        impl FrameType {
            /// Every frame type, in wire-code order.
            pub const ALL: &'static [FrameType] = &[$(FrameType::$variant,)*];

            /// The one-byte wire code.
            pub fn code(self) -> u8 {
                match self { $(FrameType::$variant => $code,)* }
            }

            /// The frame type for a wire code, `None` if unknown.
            pub fn from_code(code: u8) -> Option<FrameType> {
                match code { $($code => Some(FrameType::$variant),)* _ => None }
            }

            /// The dotted name, e.g. `ai.stream.chunk`.
            pub fn name(self) -> &'static str {
                match self { $(FrameType::$variant => $name,)* }
            }

            /// The frame type for a dotted name, `None` if unknown.
            pub fn from_name(name: &str) -> Option<FrameType> {
                match name { $($name => Some(FrameType::$variant),)* _ => None }
            }
        }
    };
}

frame_types! {
    /// Co-driver proposes a prompt; the relay delivers it to the host as `ai.request.prompt_suggested`.
    SuggestPrompt = 1, "ai.request.suggest_prompt";
    /// A suggestion as delivered to the host (only the relay emits this type).
    PromptSuggested = 2, "ai.request.prompt_suggested";
    /// Host accepted or rejected a suggestion.
    SuggestionDecided = 3, "ai.request.suggestion_decided";
    /// Host started running a prompt (first frame of a stream).
    ExecutionStarted = 4, "ai.execution.started";
    /// One chunk of agent output.
    StreamChunk = 5, "ai.stream.chunk";
    /// The stream finished.
    StreamEnd = 6, "ai.stream.end";
    /// The stream was interrupted.
    StreamInterrupted = 7, "ai.stream.interrupted";
    /// The agent asks for tool approval (host broadcasts it).
    ToolApprovalRequested = 8, "ai.tool.approval_requested";
    /// The host decided a tool approval.
    ToolApprovalDecided = 9, "ai.tool.approval_decided";
    /// Out-of-band chat between participants.
    ChatMessage = 10, "chat.message";
    /// A participant joined (relay-generated, JSON payload).
    PresenceJoin = 11, "presence.join";
    /// A participant left (relay-generated, JSON payload).
    PresenceLeave = 12, "presence.leave";
    /// Current participant list (relay-generated, JSON payload).
    PresenceList = 13, "presence.list";
    /// A participant's X25519 public key for key rotation (to hosts only;
    /// sealed, see `docs/sharing-e2e.md`).
    KeyAnnounce = 14, "key.announce";
    /// The host hands room keys of newer epochs to participants, each
    /// wrapped to its X25519 key (sealed and signed).
    KeyRotate = 15, "key.rotate";
    /// A co-driver asks the host to stop the running turn (to hosts only;
    /// the host's policy decides).
    InterruptRequest = 16, "ai.request.interrupt";
    /// A participant allows or denies a pending tool call (to hosts only;
    /// the host counts it only from someone it granted approval to).
    ApprovalVote = 17, "ai.tool.approval_vote";
    /// Who the host lets approve which kinds of tool call, and how many
    /// approvals each kind needs (host to the room).
    ApprovalGrants = 18, "ai.tool.approval_grants";
    /// Who is in the room as the host bound them: each participant's
    /// connection, name, role and Ed25519 key (host only; format v2).
    KeyRoster = 19, "key.roster";
    /// Client asks to replay what it missed: last chunk index per stream (JSON payload).
    RoomResume = 20, "room.resume";
    /// The relay cannot replay a stream; the client must resynchronise from the host.
    RoomResync = 21, "room.resync";
    /// The relay dropped chunks for a slow consumer; resume from your last index.
    RoomGap = 22, "room.gap";
    /// The relay refused a frame or a connection (JSON payload with code and message).
    RoomError = 23, "room.error";
    /// First frame after authentication: who you are in the room.
    RoomWelcome = 24, "room.welcome";
    /// The host closed the room; everyone is disconnected.
    RoomClose = 25, "room.close";
    /// Liveness probe; the relay answers `room.pong` echoing the payload.
    RoomPing = 26, "room.ping";
    /// Answer to `room.ping`.
    RoomPong = 27, "room.pong";
    /// The host removes a participant: the relay revokes its token and
    /// disconnects it (JSON payload [`crate::control::Kick`]).
    RoomKick = 28, "room.kick";
    /// The host's answer to someone at the door of a room with `--knock`
    /// (waiting, admitted, refused, not answered in time), addressed to one
    /// connection inside the sealed body (host only, signed, under the
    /// invite's key so that someone waiting can open it).
    KeyDoor = 29, "key.door";
    /// A co-driver offers an agent running on its own machine as a member
    /// of the room (to hosts only; sealed to the host; the host's policy
    /// decides).
    MemberOffer = 30, "ai.member.offer";
    /// The host tells the owner of a member on another machine what to do
    /// (run a prompt, interrupt, leave) or that its offer was refused,
    /// addressed to one connection inside the signed body (host only).
    MemberCommand = 31, "ai.member.command";
}

impl FrameType {
    /// Frames that belong to a stream: they carry a stream id and a host-assigned,
    /// strictly increasing chunk index, and the relay keeps them in its replay ring.
    pub fn is_replayable(self) -> bool {
        matches!(
            self,
            FrameType::ExecutionStarted
                | FrameType::StreamChunk
                | FrameType::StreamEnd
                | FrameType::StreamInterrupted
        )
    }

    /// Frames whose payload is an application message between host and
    /// participants (opaque to the relay; defined by `cohost-share`).
    pub fn is_application(self) -> bool {
        matches!(
            self,
            FrameType::SuggestPrompt
                | FrameType::PromptSuggested
                | FrameType::SuggestionDecided
                | FrameType::ExecutionStarted
                | FrameType::StreamChunk
                | FrameType::StreamEnd
                | FrameType::StreamInterrupted
                | FrameType::ToolApprovalRequested
                | FrameType::ToolApprovalDecided
                | FrameType::ChatMessage
                | FrameType::KeyAnnounce
                | FrameType::KeyRotate
                | FrameType::InterruptRequest
                | FrameType::ApprovalVote
                | FrameType::ApprovalGrants
                | FrameType::KeyRoster
                | FrameType::KeyDoor
                | FrameType::MemberOffer
                | FrameType::MemberCommand
        )
    }

    /// Frames of a member's turn: besides the host, the owner of a member
    /// running on another machine sends them for that member (receivers
    /// check the member is the signer's, `docs/sharing-e2e.md`, "Members on
    /// other machines").
    pub fn is_member_turn(self) -> bool {
        matches!(
            self,
            FrameType::ExecutionStarted
                | FrameType::StreamChunk
                | FrameType::StreamEnd
                | FrameType::StreamInterrupted
                | FrameType::ToolApprovalRequested
                | FrameType::ToolApprovalDecided
        )
    }

    /// Frames whose payload is defined by this crate (`control` module, JSON) and
    /// may be decoded by the relay or the client library. All other payloads are
    /// opaque application bytes that the relay must never decode.
    pub fn is_control(self) -> bool {
        matches!(
            self,
            FrameType::PresenceJoin
                | FrameType::PresenceLeave
                | FrameType::PresenceList
                | FrameType::RoomResume
                | FrameType::RoomResync
                | FrameType::RoomGap
                | FrameType::RoomError
                | FrameType::RoomWelcome
                | FrameType::RoomKick
        )
    }
}

impl std::fmt::Display for FrameType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_are_unique_and_round_trip() {
        let mut codes = std::collections::HashSet::new();
        for t in FrameType::ALL {
            assert!(codes.insert(t.code()), "duplicate code {}", t.code());
            assert_eq!(FrameType::from_code(t.code()), Some(*t));
            assert_eq!(FrameType::from_name(t.name()), Some(*t));
        }
        assert_eq!(FrameType::from_code(0), None);
        for t in FrameType::ALL {
            assert!(
                !(t.is_application() && t.is_control()),
                "{t}: a payload has one owner"
            );
        }
        assert_eq!(FrameType::from_code(255), None);
    }
}
