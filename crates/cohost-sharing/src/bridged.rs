//! A room's bridge as the room front ends (`run` with several agents,
//! `chat` rooms, `share` rooms) set it up: a private socket per member,
//! whose MCP server (the running program's hidden `room-bridge`
//! subcommand, which the `cohost` binary has) goes into the member's session
//! request, and the notes of what members asked each other, for
//! the front end to show.

use std::sync::Arc;

use cohost_core::bridge::BridgeRules;
use cohost_core::sanitize::{inert_line, strip_controls};
use cohost_host::session::{BridgeSockets, SessionRequest};
use cohost_session::{BridgeNote, Room, RoomBridge};
use tokio::sync::mpsc;

/// A room's bridge: its sockets (dropping them closes the bridge) and the
/// notes of its calls.
pub struct Bridged {
    /// The members' sockets, each served by the bridge.
    pub sockets: Arc<BridgeSockets>,
    /// What members asked each other, for the front end to show.
    pub notes: mpsc::UnboundedReceiver<BridgeNote>,
}

/// A bridge for a room about to be set up; `None` (with a warning in the
/// log) when this system cannot give one: the room runs without.
pub fn bridge() -> Option<Bridged> {
    let command = match std::env::current_exe() {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %e, "no room bridge: this program's path is unknown");
            return None;
        }
    };
    let (tx, notes) = mpsc::unbounded_channel();
    let bridge = RoomBridge::new(BridgeRules::default(), tx);
    match BridgeSockets::new(command, bridge) {
        Ok(sockets) => Some(Bridged {
            sockets: Arc::new(sockets),
            notes,
        }),
        Err(e) => {
            tracing::warn!(error = %e, "no room bridge");
            None
        }
    }
}

/// Give member `name` its bridge in `req` (when there is one).
pub fn offer(sockets: Option<&Arc<BridgeSockets>>, name: &str, req: &mut SessionRequest) {
    let Some(sockets) = sockets else { return };
    match sockets.listen(name) {
        Ok(spec) => req.mcp_servers.push(spec),
        Err(e) => tracing::warn!(member = %name, error = %e, "no room bridge for this member"),
    }
}

/// The room the bridge answers for, from now on.
pub fn serve(sockets: Option<&Arc<BridgeSockets>>, room: &Room) {
    if let Some(s) = sockets {
        s.bridge().set_room(room.clone());
    }
}

/// A note as one line for a person (inert: agents wrote it).
pub fn note_line(n: &BridgeNote) -> String {
    match n {
        BridgeNote::Asked {
            from, to, prompt, ..
        } => format!(
            "{} asks {}: {}",
            inert_line(from),
            inert_line(to),
            strip_controls(prompt)
        ),
        BridgeNote::Refused { from, why } => {
            format!(
                "{}'s bridge call was refused: {}",
                inert_line(from),
                strip_controls(why)
            )
        }
        BridgeNote::Posted { from, text } => {
            format!("{} posts: {}", inert_line(from), strip_controls(text))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_read_as_inert_lines() {
        let n = BridgeNote::Asked {
            from: "claude".into(),
            to: "codex\u{1b}[2J".into(),
            prompt: "review\u{1b}]0;x\u{7} it".into(),
            correlation_id: "b-1".into(),
        };
        let line = note_line(&n);
        assert!(line.starts_with("claude asks codex"), "{line}");
        assert!(!line.contains('\u{1b}'), "{line:?}");
        let n = BridgeNote::Posted {
            from: "codex".into(),
            text: "done".into(),
        };
        assert_eq!(note_line(&n), "codex posts: done");
    }
}
