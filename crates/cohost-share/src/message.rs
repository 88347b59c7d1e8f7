//! Every application frame, typed, and the one routing table from a
//! message to its frame type.

use cohost_core::sanitize::Sanitizer;
use cohost_core::{EndReason, Event, EventBody};
use cohost_protocol::{EnvelopeError, FrameType};
use serde::de::DeserializeOwned;

use crate::codec::CodecError;
use crate::payload::{
    ApprovalGrants, ApprovalVote, Chat, ExecutionStarted, InterruptRequest, KeyAnnounce, KeyDoor,
    KeyRoster, KeyRotate, MemberCommand, MemberOffer, RosterMember, Suggestion, SuggestionDecision,
};

/// What host and participants say to each other.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Message {
    /// A co-driver's prompt suggestion (`ai.request.suggest_prompt`; the
    /// relay hands it to hosts as `ai.request.prompt_suggested`).
    Suggestion(Suggestion),
    /// The host accepted or rejected a suggestion.
    SuggestionDecided(SuggestionDecision),
    /// The first frame of a turn's stream.
    ExecutionStarted(ExecutionStarted),
    /// One cohost event of a turn; its `stream_end` closes the stream.
    TurnEvent(Event),
    /// An approval request or decision, also sent outside the stream for
    /// UIs that show only pending decisions.
    ApprovalNotice(Event),
    /// Room chat.
    Chat(Chat),
    /// A participant's X25519 public key (`key.announce`).
    KeyAnnounce(KeyAnnounce),
    /// Room keys wrapped for participants (`key.rotate`).
    KeyRotate(KeyRotate),
    /// Who the host let into the room, with their keys (`key.roster`).
    KeyRoster(KeyRoster),
    /// A co-driver asks to stop the running turn.
    InterruptRequest(InterruptRequest),
    /// A participant allows or denies a pending tool call.
    ApprovalVote(ApprovalVote),
    /// Who may approve what (host to the room).
    ApprovalGrants(ApprovalGrants),
    /// The host's answer to someone at the door (`key.door`).
    KeyDoor(KeyDoor),
    /// A co-driver offers an agent on its machine as a member.
    MemberOffer(MemberOffer),
    /// The host tells a member's owner what to do.
    MemberCommand(MemberCommand),
}

/// Why an application frame could not be built or read.
#[derive(Debug, thiserror::Error)]
pub enum ShareError {
    /// The message could not be serialized.
    #[error("cannot encode a {kind} payload: {source}")]
    Encode {
        /// Frame type.
        kind: FrameType,
        /// Cause.
        source: serde_json::Error,
    },
    /// A received payload is not the message its frame type promises.
    #[error("cannot read a {kind} payload ({len} bytes): {source}; the sender may run an incompatible cohost")]
    Decode {
        /// Frame type.
        kind: FrameType,
        /// Payload size.
        len: usize,
        /// Cause.
        source: serde_json::Error,
    },
    /// The payload codec refused.
    #[error("cannot seal or open a {kind} payload: {source}")]
    Codec {
        /// Frame type.
        kind: FrameType,
        /// Cause.
        source: CodecError,
    },
    /// A stream message was sent outside its turn's stream, or the reverse.
    #[error("{kind} frames {}; this is a bug in cohost", if kind.is_replayable() { "belong to a turn's stream" } else { "do not belong to a stream" })]
    Misrouted {
        /// Frame type.
        kind: FrameType,
    },
    /// An id is not valid for the envelope.
    #[error(transparent)]
    Envelope(#[from] EnvelopeError),
}

impl Message {
    /// The frame type this message travels as: the routing, decided here once.
    pub fn frame_type(&self) -> FrameType {
        match self {
            Message::Suggestion(_) => FrameType::SuggestPrompt,
            Message::SuggestionDecided(_) => FrameType::SuggestionDecided,
            Message::ExecutionStarted(_) => FrameType::ExecutionStarted,
            Message::TurnEvent(e) => match &e.body {
                EventBody::StreamEnd {
                    reason: EndReason::Interrupted,
                    ..
                } => FrameType::StreamInterrupted,
                EventBody::StreamEnd { .. } => FrameType::StreamEnd,
                _ => FrameType::StreamChunk,
            },
            Message::ApprovalNotice(e) => match &e.body {
                EventBody::ToolApprovalDecided { .. } => FrameType::ToolApprovalDecided,
                _ => FrameType::ToolApprovalRequested,
            },
            Message::Chat(_) => FrameType::ChatMessage,
            Message::KeyAnnounce(_) => FrameType::KeyAnnounce,
            Message::KeyRotate(_) => FrameType::KeyRotate,
            Message::KeyRoster(_) => FrameType::KeyRoster,
            Message::InterruptRequest(_) => FrameType::InterruptRequest,
            Message::ApprovalVote(_) => FrameType::ApprovalVote,
            Message::ApprovalGrants(_) => FrameType::ApprovalGrants,
            Message::KeyDoor(_) => FrameType::KeyDoor,
            Message::MemberOffer(_) => FrameType::MemberOffer,
            Message::MemberCommand(_) => FrameType::MemberCommand,
        }
    }

    /// The out-of-stream notice for an approval event, if it is one.
    pub fn approval_notice(event: &Event) -> Option<Message> {
        matches!(
            event.body,
            EventBody::ToolApprovalRequested { .. } | EventBody::ToolApprovalDecided { .. }
        )
        .then(|| Message::ApprovalNotice(event.clone()))
    }

    /// The message's JSON, every string in it sanitized: this is the last
    /// point before the payload is sealed and leaves for the room (a prompt
    /// full of secrets, an echoed key), and the relay cannot help after that.
    pub(crate) fn to_json(&self, sanitizer: &Sanitizer) -> Result<Vec<u8>, ShareError> {
        let value = match self {
            Message::Suggestion(s) => serde_json::to_value(s),
            Message::SuggestionDecided(d) => serde_json::to_value(d),
            Message::ExecutionStarted(s) => serde_json::to_value(s),
            Message::TurnEvent(e) | Message::ApprovalNotice(e) => serde_json::to_value(e),
            Message::Chat(c) => serde_json::to_value(c),
            // Key messages carry keys, which look like secrets to the
            // sanitizer by design; their one free text (a name) is sanitized.
            Message::KeyAnnounce(a) => serde_json::to_value(KeyAnnounce {
                name: a
                    .name
                    .as_deref()
                    .map(|n| sanitizer.sanitize(n).into_owned()),
                ..a.clone()
            }),
            Message::KeyRotate(r) => serde_json::to_value(r),
            Message::KeyRoster(r) => serde_json::to_value(KeyRoster {
                members: r
                    .members
                    .iter()
                    .map(|m| RosterMember {
                        name: sanitizer.sanitize(&m.name).into_owned(),
                        ..m.clone()
                    })
                    .collect(),
            }),
            Message::InterruptRequest(i) => serde_json::to_value(i),
            Message::ApprovalVote(v) => serde_json::to_value(v),
            Message::ApprovalGrants(g) => serde_json::to_value(g),
            Message::KeyDoor(d) => serde_json::to_value(d),
            Message::MemberOffer(o) => serde_json::to_value(o),
            Message::MemberCommand(c) => serde_json::to_value(c),
        };
        let encode_error = |source| ShareError::Encode {
            kind: self.frame_type(),
            source,
        };
        let mut value = value.map_err(encode_error)?;
        if !matches!(
            self,
            Message::KeyAnnounce(_) | Message::KeyRotate(_) | Message::KeyRoster(_)
        ) {
            sanitizer.sanitize_json(&mut value);
        }
        serde_json::to_vec(&value).map_err(encode_error)
    }

    /// The message a frame of type `kind` carries in `json`; `Ok(None)` for
    /// frame types that carry no application message (relay control, room
    /// frames).
    pub(crate) fn from_json(kind: FrameType, json: &[u8]) -> Result<Option<Message>, ShareError> {
        fn read<T: DeserializeOwned>(kind: FrameType, json: &[u8]) -> Result<T, ShareError> {
            serde_json::from_slice(json).map_err(|source| ShareError::Decode {
                kind,
                len: json.len(),
                source,
            })
        }
        if !kind.is_application() {
            return Ok(None);
        }
        Ok(Some(match kind {
            FrameType::SuggestPrompt | FrameType::PromptSuggested => {
                Message::Suggestion(read(kind, json)?)
            }
            FrameType::SuggestionDecided => Message::SuggestionDecided(read(kind, json)?),
            FrameType::ExecutionStarted => Message::ExecutionStarted(read(kind, json)?),
            FrameType::StreamChunk | FrameType::StreamEnd | FrameType::StreamInterrupted => {
                Message::TurnEvent(read(kind, json)?)
            }
            FrameType::ToolApprovalRequested | FrameType::ToolApprovalDecided => {
                Message::ApprovalNotice(read(kind, json)?)
            }
            FrameType::ChatMessage => Message::Chat(read(kind, json)?),
            FrameType::KeyAnnounce => Message::KeyAnnounce(read(kind, json)?),
            FrameType::KeyRotate => Message::KeyRotate(read(kind, json)?),
            FrameType::KeyRoster => Message::KeyRoster(read(kind, json)?),
            FrameType::InterruptRequest => Message::InterruptRequest(read(kind, json)?),
            FrameType::ApprovalVote => Message::ApprovalVote(read(kind, json)?),
            FrameType::ApprovalGrants => Message::ApprovalGrants(read(kind, json)?),
            FrameType::KeyDoor => Message::KeyDoor(read(kind, json)?),
            FrameType::MemberOffer => Message::MemberOffer(read(kind, json)?),
            FrameType::MemberCommand => Message::MemberCommand(read(kind, json)?),
            _ => return Ok(None),
        }))
    }
}
