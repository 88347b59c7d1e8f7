//! The participant side: join a room with an invite, print what arrives,
//! suggest prompts and chat. Headless (a TUI comes later).

use cohost_core::sanitize::inert_line;
use cohost_protocol::{Frame, FrameType};
use cohost_relay::{ClientEvent, RelayClient};
use serde_json::{json, Value};

use super::payload::{Chat, Suggestion};

/// One received frame as `cohost join --json` prints it.
pub fn frame_json(f: &Frame) -> Value {
    let payload = f.payload();
    let parsed: Value = serde_json::from_slice(&payload)
        .unwrap_or_else(|_| json!({ "opaque_bytes": payload.len() }));
    json!({
        "frame": f.kind().name(),
        "stream": f.stream(),
        "chunk": f.chunk(),
        "sender": f.sender(),
        "sender_role": f.role().map(|r| r.as_str()),
        "payload": parsed,
    })
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
/// Everything in it came from the room: terminal control sequences are
/// removed so it is inert on screen.
pub fn frame_line(f: &Frame) -> Option<String> {
    raw_frame_line(f).map(|l| cohost_core::sanitize::strip_controls(&l).into_owned())
}

fn raw_frame_line(f: &Frame) -> Option<String> {
    let v: Value = serde_json::from_slice(&f.payload()).unwrap_or(Value::Null);
    Some(match f.kind() {
        FrameType::ExecutionStarted => format!(
            "\n▶ {} runs: {}",
            v["provider"].as_str().unwrap_or("agent"),
            v["text"].as_str().unwrap_or("")
        ),
        FrameType::StreamChunk => match v["type"].as_str() {
            Some("stream_chunk") => return v["delta"].as_str().map(String::from),
            Some("tool_call") | Some("tool_approval_requested") => {
                format!(
                    "\n[tool {}] {}",
                    v["name"].as_str().unwrap_or("?"),
                    v["input"]
                )
            }
            Some("tool_executed") => format!("\n[tool {}]", v["status"].as_str().unwrap_or("?")),
            Some("error") => format!(
                "\n[error {}] {}",
                v["code"].as_str().unwrap_or("?"),
                v["message"].as_str().unwrap_or("")
            ),
            _ => return None,
        },
        FrameType::StreamEnd => "\n■ done".into(),
        FrameType::StreamInterrupted => "\n■ interrupted".into(),
        FrameType::SuggestionDecided => format!(
            "suggestion {} {}",
            v["suggestion_id"].as_str().unwrap_or("?"),
            if v["accepted"] == true {
                "accepted"
            } else {
                "rejected"
            }
        ),
        FrameType::ChatMessage => {
            format!("<{}> {}", stamped_name(f), v["text"].as_str().unwrap_or(""))
        }
        FrameType::PresenceJoin => format!(
            "+ joined: {}",
            inert_line(&String::from_utf8_lossy(&f.payload()))
        ),
        FrameType::PresenceLeave => format!(
            "- left: {}",
            inert_line(&String::from_utf8_lossy(&f.payload()))
        ),
        _ => return None,
    })
}

/// Send a prompt suggestion (co-drivers only; the relay refuses others).
pub async fn suggest(
    client: &RelayClient,
    text: &str,
    from: Option<&str>,
) -> Result<String, cohost_relay::ClientError> {
    let s = Suggestion {
        suggestion_id: super::host::new_suggestion_id(),
        text: text.to_string(),
        from: from.map(String::from),
    };
    let body = serde_json::to_vec(&s).unwrap_or_default();
    client
        .send_new(FrameType::SuggestPrompt, None, 0, &body)
        .await?;
    Ok(s.suggestion_id)
}

/// Send a chat message.
pub async fn chat(
    client: &RelayClient,
    text: &str,
    from: Option<&str>,
) -> Result<(), cohost_relay::ClientError> {
    // Chat goes to everyone in the room: no secret pasted into it does.
    let c = Chat {
        from: from.map(String::from),
        text: cohost_core::sanitize::sanitize(text),
    };
    client
        .send_new(
            FrameType::ChatMessage,
            None,
            0,
            &serde_json::to_vec(&c).unwrap_or_default(),
        )
        .await
}

/// Whether a client event ends a turn's stream.
pub fn is_stream_end(ev: &ClientEvent) -> bool {
    matches!(ev, ClientEvent::Frame(f) if matches!(f.kind(), FrameType::StreamEnd | FrameType::StreamInterrupted))
}
