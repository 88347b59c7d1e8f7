//! The host bridge's room of several agents: which member a prompt goes
//! to (`@NAME TEXT`, else the last one addressed), the same prompt to
//! every member, the member list, interrupting, and changing the room
//! (`/add`, `/drop`, `/keep`, `/handoff`, the work itself shared with the
//! chat in `cmd::room_members`), each change told to the room.

use cohost_core::room::addressed;
use cohost_core::sanitize::inert_line;
use cohost_session::{BridgeNote, Member, Room};
use cohost_share::{Chat, Message};

use super::host::{watch_approvals, HostBridge};
use super::host_io::{deliver, HostNotice};
use crate::room_members::{self, MemberSetup, RoomPlace};

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
        if let Err(e) = self.room.named(&name) {
            if !self.is_guest(&name) {
                return self.notify(HostNotice::Room(e.said()));
            }
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
        for name in self.member_names() {
            self.queue(&name, text.to_owned(), "host".into(), None);
        }
    }

    /// `/members`: who is in the room, what each is doing, where prompts
    /// go (and where each works, when the room's members can change).
    pub(super) fn list_members(&self) {
        let place = self.setup.as_ref().map(|s| &s.place);
        let mut text = room_members::list(self.room.members(), &self.focus, place);
        text.push_str(&self.guest_lines());
        self.notify(HostNotice::Room(text));
    }

    /// The host's interrupt: the member prompts go to when it is busy,
    /// otherwise every member (Ctrl+C means "stop", whoever is talking).
    pub(super) fn interrupt(&mut self) {
        let focus = self.focus.clone();
        let focused = self
            .room
            .member(&focus)
            .is_some_and(|m| m.session.interrupt())
            || self.interrupt_guest(&focus);
        if !focused {
            self.room.interrupt_all();
            self.interrupt_guests();
        }
    }

    /// Interrupt member `name` only (Esc on its tab).
    pub(super) fn interrupt_member(&mut self, name: &str) {
        if self.is_guest(name) {
            self.interrupt_guest(name);
            return;
        }
        match self.room.member(name) {
            Some(m) => {
                m.session.interrupt();
            }
            None => self.notify(HostNotice::Room(
                "that member is not in the room any more".into(),
            )),
        }
    }

    /// What a member asked another through the room's bridge: the asked
    /// turn goes to the room under who asked, a member's note as chat, and
    /// the host hears of each.
    pub(super) async fn bridge_note(&mut self, note: BridgeNote) {
        let line = crate::bridged::note_line(&note);
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
                    members: None,
                });
                let frame = self.codec.room_frame(&chat);
                deliver(&self.client, &self.notices, frame).await;
            }
            BridgeNote::Refused { .. } => {}
        }
        self.notify(HostNotice::Room(line));
    }

    /// What `/add`, `/drop` and `/keep` need, else why they cannot run.
    fn setup(&self) -> Option<&MemberSetup> {
        if self.setup.is_none() {
            self.notify(HostNotice::Room(
                "this room's members are fixed: `cohost share --agent A --agent B` opens one that /add, /drop and /keep can change".into(),
            ));
        }
        self.setup.as_ref()
    }

    /// Tell the host and the room `text`; with the member list when it
    /// changed (participants' member views follow it).
    pub(super) async fn tell_room(&mut self, text: String, members: bool) {
        let names = self.member_names();
        if members {
            self.notify(HostNotice::Members(names.clone()));
        }
        self.notify(HostNotice::Room(text.clone()));
        let chat = Message::Chat(Chat {
            from: Some("host".into()),
            text,
            members: members.then_some(names),
        });
        let frame = self.codec.room_frame(&chat);
        deliver(&self.client, &self.notices, frame).await;
    }

    /// Someone joined a room of several agents: who its members are.
    pub(super) async fn send_members(&mut self) {
        let names = self.member_names();
        let chat = Message::Chat(Chat {
            from: Some("host".into()),
            text: format!("members: {}", names.join(", ")),
            members: Some(names),
        });
        let frame = self.codec.room_frame(&chat);
        deliver(&self.client, &self.notices, frame).await;
    }

    /// The room is `members` now: the front end beside the bridge and the
    /// room's bridge (members asking each other) hear of it.
    fn set_members(&mut self, members: Vec<Member>) {
        self.room = Room::new(members).unwrap_or_default();
        self.refocus();
        if let Some(s) = &self.setup {
            crate::bridged::serve(s.place.sockets.as_ref(), &self.room);
        }
        self.room_now.send_replace(self.room.clone());
    }

    /// The member plain prompts go to left the room: the host's first
    /// member takes them (one on a participant's machine keeps them while
    /// it is in the room).
    pub(super) fn refocus(&mut self) {
        let here =
            self.room.members().iter().any(|m| m.name == self.focus) || self.is_guest(&self.focus);
        if !here {
            self.focus = self
                .room
                .members()
                .first()
                .map(|m| m.name.clone())
                .unwrap_or_default();
        }
    }

    /// `/add AGENT`.
    pub(super) async fn add_member(&mut self, agent: &str) {
        let Some(setup) = self.setup() else { return };
        let name = match RoomPlace::name_for(self.room.members(), agent) {
            Ok(n) => n,
            Err(e) => {
                let r = room_members::Refused::Error(e);
                return self.notify(HostNotice::Room(r.text()));
            }
        };
        let req = (setup.request)(&name, agent);
        let place = setup.place.clone();
        let m = match place.open(&name, req).await {
            Ok(m) => m,
            Err(e) => {
                let r = room_members::Refused::Error(e);
                return self.notify(HostNotice::Room(r.text()));
            }
        };
        watch_approvals(&m, Some(name.clone()), &self.notices, &self.gate);
        self.events.follow(&m);
        let mut members = self.room.members().to_vec();
        members.push(m);
        self.set_members(members);
        self.tell_room(RoomPlace::joined_text(&name), true).await;
    }

    /// `/drop NAME`.
    pub(super) async fn drop_member(&mut self, name: &str) {
        if self.is_guest(name) {
            return self.drop_guest(name).await;
        }
        let Some(place) = self.setup().map(|s| s.place.clone()) else {
            return;
        };
        let mut members = self.room.members().to_vec();
        match place.drop_member(&mut members, name).await {
            Ok(text) => {
                self.set_members(members);
                self.tell_room(text, true).await;
            }
            Err(r) => self.notify(HostNotice::Room(r.text())),
        }
    }

    /// `/keep NAME [--merge]`.
    pub(super) async fn keep(&mut self, name: &str, merge: bool) {
        let Some(place) = self.setup().map(|s| s.place.clone()) else {
            return;
        };
        let mut members = self.room.members().to_vec();
        let before = members.len();
        let kept = place.keep(&mut members, name, merge).await;
        let changed = members.len() != before;
        if changed {
            self.set_members(members);
        }
        match kept {
            Ok(text) => self.tell_room(text, true).await,
            Err(r) if changed => self.tell_room(r.text(), true).await,
            Err(r) => self.notify(HostNotice::Room(r.text())),
        }
    }

    /// `/handoff TO [TEXT]`: TO gets the conversation of the member that
    /// has the word, and has the word from then on.
    pub(super) async fn handoff(&mut self, to: &str, text: &str) {
        let from = self.focus.clone();
        match room_members::handoff(&self.log, self.room.members(), &from, to, text) {
            Ok(h) => {
                let cid = format!("c-{}", cohost_core::ids::random_tag());
                self.queue(to, h.account, "host".into(), Some(cid.clone()));
                // The room sees what was asked, not the whole account.
                if let Some(t) = self.turns.get_mut(&cid) {
                    t.text = format!("(the conversation of {}) {text}", inert_line(&from));
                }
                self.focus = to.to_owned();
                self.tell_room(h.said, false).await;
            }
            Err(r) => self.notify(HostNotice::Room(r.text())),
        }
    }
}
