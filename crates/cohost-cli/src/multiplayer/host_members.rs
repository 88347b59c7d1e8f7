//! The host bridge's room of several agents: which member a prompt goes
//! to (`@NAME TEXT`, else the last one addressed), the same prompt to
//! every member, the member list, and interrupting.

use cohost_core::room::addressed;
use cohost_core::sanitize::inert_line;
use cohost_session::BridgeNote;
use cohost_share::{Chat, Message};

use super::host::HostBridge;
use super::host_io::{deliver, HostNotice};

impl HostBridge {
    /// The host's plain text: in a room of several agents `@NAME TEXT`
    /// prompts NAME (who then takes plain text too); otherwise it goes to
    /// the member last addressed. With one agent the text goes as typed
    /// (an agent's own `@file` mentions included).
    pub(super) fn prompt(&mut self, text: &str) {
        let target = if self.solo() { None } else { addressed(text) };
        let (name, rest) = match target {
            Some((name, rest)) => (name.to_owned(), rest),
            None => return self.queue(&self.focus.clone(), text.to_owned(), "host".into(), None),
        };
        if let Err(e) = self.room.require(&name) {
            let fix = e
                .suggested_fix
                .map(|f| format!("; {f}"))
                .unwrap_or_default();
            return self.notify(HostNotice::Room(format!("{}{fix}", e.message)));
        }
        self.focus = name.clone();
        if rest.trim().is_empty() {
            return self.notify(HostNotice::Room(format!(
                "plain prompts go to {} now",
                inert_line(&name)
            )));
        }
        self.queue(&name, rest.to_owned(), "host".into(), None);
    }

    /// `/compare TEXT`: the same prompt to every member, each its own turn
    /// (and its own stream in the room).
    pub(super) fn compare(&mut self, text: &str) {
        let names: Vec<String> = self.room.members().iter().map(|m| m.name.clone()).collect();
        for name in names {
            self.queue(&name, text.to_owned(), "host".into(), None);
        }
    }

    /// `/members`: who is in the room, what each is doing, where prompts go.
    pub(super) fn list_members(&self) {
        let mut text = String::from("members (plain prompts go to the one marked *):");
        for m in self.room.members() {
            let mark = if m.name == self.focus { "*" } else { " " };
            let state = if m.session.busy() { "busy" } else { "idle" };
            text.push_str(&format!(
                "\n{mark} {} ({}) {state}",
                inert_line(&m.name),
                m.session.descriptor().id
            ));
        }
        self.notify(HostNotice::Room(text));
    }

    /// The host's interrupt: the member prompts go to when it is busy,
    /// otherwise every member (Ctrl+C means "stop", whoever is talking).
    pub(super) fn interrupt(&self) {
        let focused = self
            .room
            .member(&self.focus)
            .is_some_and(|m| m.session.interrupt());
        if !focused {
            self.room.interrupt_all();
        }
    }

    /// What a member asked another through the room's bridge: the asked
    /// turn goes to the room under who asked, a member's note as chat, and
    /// the host hears of each.
    pub(super) async fn bridge_note(&mut self, note: BridgeNote) {
        let line = crate::cmd::bridged::note_line(&note);
        match note {
            BridgeNote::Asked {
                from,
                prompt,
                correlation_id,
                ..
            } => self.asked(&correlation_id, format!("{from} asks: {prompt}")),
            BridgeNote::Posted { from, text } => {
                let chat = Message::Chat(Chat {
                    from: Some(from.clone()),
                    text: format!("[{from}] {text}"),
                });
                let frame = self.codec.room_frame(&chat);
                deliver(&self.client, &self.notices, frame).await;
            }
            BridgeNote::Refused { .. } => {}
        }
        self.notify(HostNotice::Room(line));
    }
}
