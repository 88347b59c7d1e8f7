//! The participant side's rendering helpers: a received frame as a line or
//! as JSON, and who sent it. Joining, sending and the typed events are
//! [`super::session::ParticipantSession`]. Frames are read through
//! `cohost-share`'s typed messages, the same schema the host writes.

use cohost_core::sanitize::inert_line;
use cohost_core::{EventBody, ToolStatus};
use cohost_protocol::{Frame, FrameType};
use cohost_share::{Message, RoomCodec, ShareError};
use serde_json::{json, Value};

/// Why a participant's message was not sent.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The message could not be built.
    #[error(transparent)]
    Share(#[from] ShareError),
    /// The relay connection is gone.
    #[error(transparent)]
    Relay(#[from] cohost_relay::ClientError),
    /// This participant's role may not send it; nothing was sent.
    #[error("{0}")]
    NotAllowed(&'static str),
}

/// One received frame as `cohost join --json` prints it. The payload is
/// shown as its sender wrote it (a newer host's unknown fields included),
/// once the codec has opened it, except what only the host may say: a
/// chat's `members` list counts only under the host's signature
/// (docs/sharing-e2e.md, "Rooms of several agents"), so a participant's is
/// left out, as [`super::session::ParticipantSession`] does for the typed
/// message.
pub fn frame_json(codec: &RoomCodec, f: &Frame) -> Value {
    let payload = codec
        .open(f)
        .ok()
        .and_then(|opened| {
            let mut v = serde_json::from_slice::<Value>(&opened.body).ok()?;
            let by_host = matches!(
                opened.sender.map(|s| s.signer),
                Some(cohost_share::Signer::Host)
            );
            if f.kind() == FrameType::ChatMessage && !by_host {
                if let Some(o) = v.as_object_mut() {
                    o.remove("members");
                }
            }
            Some(v)
        })
        .unwrap_or_else(|| json!({ "opaque_bytes": f.payload_len() }));
    json!({
        "frame": f.kind().name(),
        "stream": f.stream(),
        "chunk": f.chunk(),
        "sender": f.sender(),
        "sender_role": f.role().map(|r| r.as_str()),
        "payload": payload,
    })
}

/// How long past the host's own deadline a participant at the door waits
/// for its answer before it leaves on its own: a relay may hold the answer
/// back, but cannot keep anyone waiting forever.
pub const DOOR_GRACE: std::time::Duration = std::time::Duration::from_secs(30);

/// What a participant says when it leaves the door on its own: not the
/// host's word, its answer never came.
pub const NO_ANSWER: &str =
    "no answer came from the host in time, so you were not let in; nothing of the room reached you";

/// What a participant says when its connection closes while it waits at
/// the door (a refused personal invite is revoked at the relay, which may
/// close it before the host's answer comes).
pub const DOOR_SHUT: &str = "the host did not let you in; nothing of the room reached you";

/// When a participant the host told to wait (at most `timeout_secs`)
/// stops waiting for the answer, from `now`; `None`: no deadline said.
pub fn door_gives_up(
    timeout_secs: Option<u64>,
    now: tokio::time::Instant,
) -> Option<tokio::time::Instant> {
    timeout_secs.map(|s| now + std::time::Duration::from_secs(s) + DOOR_GRACE)
}

/// Sleeps until `at`, or forever without one (a `select!` arm that never
/// fires).
pub async fn until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// What a participant is told of the host's answer at the door of a
/// `--knock` room (`key.door`), with its own key's fingerprint, which the
/// host sees beside its name; `None` for an answer this build does not
/// know.
pub fn door_line(d: &cohost_share::KeyDoor, fingerprint: &str) -> Option<String> {
    use cohost_share::DoorAnswer;
    Some(match d.answer {
        DoorAnswer::Waiting => {
            let within = d
                .timeout_secs
                .map(|s| {
                    format!(
                        " (refused in {} without an answer)",
                        super::knock::timeout_text(std::time::Duration::from_secs(s))
                    )
                })
                .unwrap_or_default();
            format!(
                "waiting for the host to let you in; your key fingerprint is {fingerprint}: the host sees it beside your name{within}"
            )
        }
        DoorAnswer::Admitted => "the host let you in".into(),
        DoorAnswer::Refused => format!(
            "the host did not let you in (your key fingerprint {fingerprint}); nothing of the room reached you"
        ),
        DoorAnswer::TimedOut => format!(
            "the host did not answer in time, so you were not let in (your key fingerprint {fingerprint}); nothing of the room reached you"
        ),
        _ => return None,
    })
}

/// "1 chunk" or "N chunks" for a missing range of a stream.
pub fn missing(from: u64, to: u64) -> String {
    chunks(to.saturating_sub(from) + 1)
}

/// "1 chunk" or "N chunks".
pub fn chunks(n: u64) -> String {
    match n {
        1 => "1 chunk".into(),
        n => format!("{n} chunks"),
    }
}

fn status_name(s: ToolStatus) -> &'static str {
    match s {
        ToolStatus::Ok => "ok",
        ToolStatus::Error => "error",
        ToolStatus::Denied => "denied",
    }
}

/// A participant as the host shows it: `ana (co-driver #3)`.
pub fn describe(p: &cohost_protocol::Participant) -> String {
    format!(
        "{} ({} #{})",
        cohost_core::sanitize::inert_line(&p.name),
        p.role.as_str().to_ascii_lowercase().replace('_', "-"),
        p.conn_id
    )
}

/// Who sent a frame, from the relay's stamp (role and connection id), never
/// from the payload: a participant cannot claim another's name or role.
pub fn stamped_name(f: &Frame) -> String {
    match f.role() {
        Some(cohost_protocol::Role::Host) => "host".into(),
        Some(r) => format!(
            "{} #{}",
            r.as_str().to_ascii_lowercase().replace('_', "-"),
            f.sender()
        ),
        None => format!("unknown #{}", f.sender()),
    }
}

/// A short human line for a frame, or `None` for frames not worth a line.
/// A payload that does not decode gets a line saying so. Everything in it
/// came from the room: terminal control sequences are removed so it is inert
/// on screen.
pub fn frame_line(codec: &RoomCodec, f: &Frame) -> Option<String> {
    raw_frame_line(codec, f).map(|l| cohost_core::sanitize::strip_controls(&l).into_owned())
}

fn raw_frame_line(codec: &RoomCodec, f: &Frame) -> Option<String> {
    let (msg, sender) = match codec.receive(f) {
        Ok(m) => m,
        Err(e) => return Some(format!("\n· unreadable frame: {e}")),
    };
    // Who said it: as the key that signed it is bound (format v2), the
    // relay's stamp only in a room without keys.
    let said_by = match sender.map(|s| s.signer) {
        Some(cohost_share::Signer::Host) => "host".to_string(),
        Some(cohost_share::Signer::Participant(b)) => b.label(),
        _ => stamped_name(f),
    };
    Some(match (f.kind(), msg) {
        (_, Some(Message::ExecutionStarted(s))) => match s.agent {
            Some(member) if member != s.provider => {
                format!("\n▶ {member} ({}) runs: {}", s.provider, s.text)
            }
            Some(member) => format!("\n▶ {member} runs: {}", s.text),
            None => format!("\n▶ {} runs: {}", s.provider, s.text),
        },
        (FrameType::StreamChunk, Some(Message::TurnEvent(e))) => match e.body {
            EventBody::StreamChunk { delta, .. } => return Some(delta),
            EventBody::ToolCall { name, input, .. } => format!("\n[tool {name}] {input}"),
            // The call was shown once already; this only says who decides.
            // A member on a participant's machine: its owner decides.
            EventBody::ToolApprovalRequested { .. } if said_by != "host" => {
                format!("\n  waiting for the approval of {said_by}, whose agent it is")
            }
            EventBody::ToolApprovalRequested { .. } => "\n  waiting for the host's approval".into(),
            EventBody::ToolExecuted { status, .. } => format!("\n[tool {}]", status_name(status)),
            EventBody::Error(e) => format!("\n[error {}] {}", e.code, e.message),
            // Text that reached the running turn: who sent it (no `by`:
            // the host's own line), on a line of its own in the answer.
            EventBody::Steered(n) => format!(
                "\n↪ {} → this turn: {}",
                n.by.as_deref().map_or_else(|| "host".into(), inert_line),
                n.text
            ),
            _ => return None,
        },
        (FrameType::StreamEnd, _) => "\n■ done".into(),
        (FrameType::StreamInterrupted, _) => "\n■ interrupted".into(),
        (_, Some(Message::SuggestionDecided(d))) => format!(
            "suggestion {} {}{}",
            d.suggestion_id,
            if d.accepted { "accepted" } else { "rejected" },
            d.agent
                .map(|a| format!(": {} runs it", inert_line(&a)))
                .unwrap_or_default()
        ),
        (_, Some(Message::Chat(c))) => format!("<{said_by}> {}", c.text),
        (FrameType::PresenceJoin | FrameType::PresenceLeave, None) => {
            let who = f
                .control::<cohost_protocol::Participant>()
                .map(|p| describe(&p))
                .unwrap_or_else(|_| inert_line(&String::from_utf8_lossy(&f.payload())));
            let joined = f.kind() == FrameType::PresenceJoin;
            format!(
                "{} {who} {}",
                if joined { "+" } else { "-" },
                if joined { "joined" } else { "left" }
            )
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What someone at the door reads, for each answer the host gives; a
    /// participant told to wait gives up only past the host's deadline.
    #[test]
    fn the_door_is_said_in_words_and_waiting_has_an_end() {
        use cohost_share::{DoorAnswer, KeyDoor};
        let door = |answer, timeout_secs| KeyDoor {
            to: 7,
            answer,
            timeout_secs,
        };
        let fp = "72cd-6e84-22c4-07fb";
        assert_eq!(
            door_line(&door(DoorAnswer::Waiting, Some(300)), fp).as_deref(),
            Some("waiting for the host to let you in; your key fingerprint is 72cd-6e84-22c4-07fb: the host sees it beside your name (refused in 5m without an answer)")
        );
        assert_eq!(
            door_line(&door(DoorAnswer::Admitted, None), fp).as_deref(),
            Some("the host let you in")
        );
        for (answer, says) in [
            (DoorAnswer::Refused, "the host did not let you in"),
            (DoorAnswer::TimedOut, "the host did not answer in time"),
        ] {
            let line = door_line(&door(answer, None), fp).unwrap_or_default();
            assert!(line.starts_with(says) && line.contains(fp), "{line}");
        }
        assert_eq!(door_line(&door(DoorAnswer::Unknown, None), fp), None);
        let now = tokio::time::Instant::now();
        assert_eq!(
            door_gives_up(Some(300), now),
            Some(now + std::time::Duration::from_secs(330))
        );
        assert_eq!(door_gives_up(None, now), None);
    }
    use base64::Engine as _;
    use cohost_protocol::{Role, RoomId};
    use cohost_share::e2e::Identity;
    use cohost_share::{Chat, E2e, KeyRoster, RosterMember};
    use std::sync::Arc;

    fn chat(members: &[&str]) -> Message {
        Message::Chat(Chat {
            from: Some("host".into()),
            text: "members: mock, evil".into(),
            members: Some(members.iter().map(|m| (*m).to_string()).collect()),
        })
    }

    /// Issue 33: `cohost join --json` prints a chat's member list only when
    /// the host signed the chat; a co-driver's copy of the field is left out.
    #[test]
    fn json_keeps_members_only_from_the_hosts_chat() {
        let room = RoomId::new("r-room").unwrap();
        let host = E2e::generate_host().unwrap();
        let keys = host.invite_keys([7; 16]);
        let ana = Identity::generate().unwrap();
        let ana_key = ana.public();
        let ana = RoomCodec::with_codec(
            room.clone(),
            Arc::new(E2e::participant(&keys, ana).unwrap()),
        )
        .as_role(Role::CoDriver);
        let host = RoomCodec::with_codec(room.clone(), Arc::new(host)).as_role(Role::Host);
        let bob = E2e::participant(&keys, Identity::generate().unwrap()).unwrap();
        bob.take_roster(&KeyRoster {
            members: vec![RosterMember {
                conn_id: 4,
                name: "ana".into(),
                role: Role::CoDriver,
                ed25519: base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(ana_key),
                agents: Vec::new(),
            }],
        });
        let bob = RoomCodec::with_codec(room, Arc::new(bob)).as_role(Role::Viewer);

        let forged = ana.room_frame(&chat(&["evil"])).unwrap().restamp(
            FrameType::ChatMessage,
            4,
            Role::CoDriver,
        );
        let v = frame_json(&bob, &forged);
        assert_eq!(v["payload"]["text"], "members: mock, evil", "{v}");
        assert!(v["payload"].get("members").is_none(), "{v}");

        let real = host
            .room_frame(&chat(&["mock", "mock#2"]))
            .unwrap()
            .restamp(FrameType::ChatMessage, 1, Role::Host);
        let v = frame_json(&bob, &real);
        assert_eq!(v["payload"]["members"], json!(["mock", "mock#2"]), "{v}");
    }
}
