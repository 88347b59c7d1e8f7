//! Members on other machines (`docs/sharing-e2e.md`, "Members on other
//! machines"): a co-driver's `cohost join --agent AGENT` offers an agent it
//! runs itself, with its own credentials, sandbox and approvals. The host
//! admits it when the room allows it (`cohost share --guest-agents`),
//! names it `AGENT@PERSON`, and from then on treats it as a member like its
//! own: prompts (its own `@NAME`, accepted suggestions, `/compare`) and
//! interrupts go to the owner as `ai.member.command`s, and the owner's
//! signed turns come back through the room, checked against the roster.
//! Nothing of the owner's machine reaches the host but those turns.

use cohost_core::sanitize::inert_line;
use cohost_core::EventBody;
use cohost_protocol::{Frame, Role};
use cohost_share::{MemberCommand, MemberOffer, MemberOp, Message, Sender, Signer};

use super::host::HostBridge;
use super::host_guest_list::Guest;
use super::host_io::HostNotice;

/// A member name for `agent` brought by `person`: `codex@ana`, made of
/// what a name may hold (`@NAME` addresses it, so no space, comma or
/// colon), numbered when taken (`codex@ana#2`).
fn guest_name(agent: &str, person: &str, taken: &[String]) -> Option<String> {
    fn part(s: &str) -> String {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            .take(24)
            .collect::<String>()
            .to_ascii_lowercase()
    }
    let (agent, person) = (part(agent), part(person));
    if agent.is_empty() {
        return None;
    }
    let person = if person.is_empty() {
        "guest".into()
    } else {
        person
    };
    let base = format!("{agent}@{person}");
    let mut name = base.clone();
    let mut n = 1;
    while taken.contains(&name) {
        n += 1;
        name = format!("{base}#{n}");
    }
    Some(name)
}

impl HostBridge {
    /// Co-drivers may bring agents running on their own machines into the
    /// room (`cohost share --guest-agents`).
    pub fn with_guest_agents(mut self, allowed: bool) -> Self {
        self.guests.allowed = allowed;
        self
    }

    /// Whether `name` is a member on another machine.
    pub(super) fn is_guest(&self, name: &str) -> bool {
        self.guests.members.contains_key(name)
    }

    /// Every member's name: the host's own, then those on other machines.
    pub(super) fn member_names(&self) -> Vec<String> {
        let mut names = crate::room_members::names(self.room.members());
        names.extend(self.guests.members.keys().cloned());
        names
    }

    /// What `/members` adds for the members on other machines.
    pub(super) fn guest_lines(&self) -> String {
        self.guests
            .members
            .iter()
            .map(|(name, g)| {
                let mark = if *name == self.focus { "*" } else { " " };
                format!(
                    "\n{mark} {} ({}) {} · on {}'s machine",
                    inert_line(name),
                    inert_line(&g.agent),
                    if g.busy { "busy" } else { "idle" },
                    inert_line(&g.owner)
                )
            })
            .collect()
    }

    /// Queue a command for the owner of member `name`.
    fn command(&mut self, name: &str, op: MemberOp, fill: impl FnOnce(&mut MemberCommand)) {
        let Some(g) = self.guests.members.get(name) else {
            return;
        };
        let mut c = MemberCommand::new(g.conn_id, name, op);
        fill(&mut c);
        self.outbox
            .push(self.codec.room_frame(&Message::MemberCommand(c)));
    }

    /// A co-driver offered an agent of its own machine.
    pub(super) async fn offered(
        &mut self,
        f: &Frame,
        sender: Option<&Sender>,
        offer: &MemberOffer,
    ) {
        let Some(Signer::Participant(b)) = sender.map(|s| &s.signer) else {
            return self.notify(HostNotice::Room(format!(
                "ignored an offer of an agent from {}: not signed by anyone in the room",
                super::participant::stamped_name(f)
            )));
        };
        let Some(key) = sender.map(|s| s.key) else {
            return;
        };
        let refuse = |bridge: &mut HostBridge, why: String| {
            bridge.notify(HostNotice::Room(format!(
                "{} offered {} as a member; refused: {why}",
                b.label(),
                inert_line(&offer.agent)
            )));
            let mut c = MemberCommand::new(b.conn_id, inert_line(&offer.agent), MemberOp::Refused);
            c.why = Some(why);
            bridge
                .outbox
                .push(bridge.codec.room_frame(&Message::MemberCommand(c)));
        };
        if !self.guests.allowed {
            return refuse(
                self,
                "this room takes no agents from participants (the host allows them with `cohost share --guest-agents`)".into(),
            );
        }
        if b.role != Role::CoDriver {
            return refuse(self, "only a co-driver may bring an agent".into());
        }
        // The same person offering the same agent again (a reconnect) is
        // the member it was.
        let again = self
            .guests
            .members
            .iter()
            .find(|(_, g)| g.key == key && g.agent == offer.agent)
            .map(|(n, _)| n.clone());
        let name = match again {
            Some(n) => n,
            None => {
                let taken = self.member_names();
                if taken.len() >= cohost_core::room::DEFAULT_MAX_MEMBERS {
                    return refuse(
                        self,
                        format!(
                            "the room holds at most {} members",
                            cohost_core::room::DEFAULT_MAX_MEMBERS
                        ),
                    );
                }
                match guest_name(&offer.agent, &b.name, &taken) {
                    Some(n) => n,
                    None => return refuse(self, "the offer names no agent".into()),
                }
            }
        };
        let Some(e2e) = self.keys.as_ref().map(super::keys::HostKeys::codec) else {
            return refuse(self, "the room has no keys".into());
        };
        if !e2e.admit_member(&key, &name) {
            return refuse(self, "its key is not bound in this room".into());
        }
        self.guests.members.insert(
            name.clone(),
            Guest {
                conn_id: b.conn_id,
                key,
                owner: b.name.clone(),
                agent: inert_line(&offer.agent),
                busy: false,
            },
        );
        // Who may send its turns goes out before its first prompt.
        self.send_roster().await;
        self.command(&name, MemberOp::Admitted, |_| {});
        let text = format!(
            "{} brought {} into the room as {name} (running on their machine)",
            b.label(),
            inert_line(&offer.agent)
        );
        self.tell_room(text, true).await;
    }

    /// Run `text` on member `name`, on its owner's machine.
    pub(super) fn prompt_guest(
        &mut self,
        name: &str,
        text: String,
        correlation_id: String,
        by: &str,
    ) {
        let author = (by != cohost_session::HOST).then(|| by.to_owned());
        self.command(name, MemberOp::Prompt, |c| {
            c.text = Some(text);
            c.correlation_id = Some(correlation_id);
            c.author = author;
        });
    }

    /// Stop member `name`'s turn; false when it runs none.
    pub(super) fn interrupt_guest(&mut self, name: &str) -> bool {
        let busy = self.guests.members.get(name).is_some_and(|g| g.busy);
        if busy {
            self.command(name, MemberOp::Interrupt, |_| {});
        }
        busy
    }

    /// Stop every member on another machine.
    pub(super) fn interrupt_guests(&mut self) {
        let names: Vec<String> = self.guests.members.keys().cloned().collect();
        for n in names {
            self.interrupt_guest(&n);
        }
    }

    /// `/drop NAME` of a member on another machine.
    pub(super) async fn drop_guest(&mut self, name: &str) {
        self.command(name, MemberOp::Dropped, |c| {
            c.why = Some("the host dropped it".into());
        });
        self.forget_guest(name);
        self.send_roster().await;
        self.tell_room(format!("{} left the room (/drop)", inert_line(name)), true)
            .await;
    }

    fn forget_guest(&mut self, name: &str) {
        self.guests.members.remove(name);
        if let Some(k) = self.keys.as_ref() {
            k.codec().drop_member(name);
        }
        self.refocus();
    }

    /// The owner on connection `conn` left or was removed: its members go
    /// with it.
    pub(super) async fn guests_gone(&mut self, conn: u64) {
        let gone: Vec<String> = self
            .guests
            .members
            .iter()
            .filter(|(_, g)| g.conn_id == conn)
            .map(|(n, _)| n.clone())
            .collect();
        for name in &gone {
            self.forget_guest(name);
        }
        if !gone.is_empty() {
            self.roster_due = true;
            let text = format!(
                "{} left the room with {} owner",
                gone.iter()
                    .map(|n| inert_line(n))
                    .collect::<Vec<_>>()
                    .join(", "),
                if gone.len() == 1 { "its" } else { "their" }
            );
            self.tell_room(text, true).await;
        }
    }

    /// A turn frame of a member on another machine (the codec checked it
    /// is its owner's): shown to the host like its own members' turns.
    pub(super) fn guest_turn(&mut self, message: Message) {
        match message {
            Message::ExecutionStarted(s) => {
                if let Some(g) = s
                    .agent
                    .as_deref()
                    .and_then(|a| self.guests.members.get_mut(a))
                {
                    g.busy = true;
                }
            }
            Message::TurnEvent(e) => {
                let ended = match &e.body {
                    EventBody::StreamEnd { reason, .. } => Some(*reason),
                    _ => None,
                };
                if let Some(g) = e
                    .agent
                    .as_deref()
                    .and_then(|a| self.guests.members.get_mut(a))
                {
                    g.busy = ended.is_none();
                }
                self.log.saw(&e);
                self.notify(HostNotice::Event(e));
                if let Some(reason) = ended {
                    self.notify(HostNotice::TurnDone(reason));
                }
            }
            // Approval notices repeat what the stream says; the owner decides.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::guest_name;

    #[test]
    fn guest_names_say_whose_and_stay_addressable() {
        assert_eq!(
            guest_name("codex", "Ana", &[]).as_deref(),
            Some("codex@ana")
        );
        let taken = vec!["codex@ana".to_string()];
        assert_eq!(
            guest_name("codex", "ana", &taken).as_deref(),
            Some("codex@ana#2")
        );
        // Nothing that would end an `@NAME` address or show as markup.
        assert_eq!(
            guest_name("co dex,:", "a\u{1b}[31mna", &[]).as_deref(),
            Some("codex@a31mna")
        );
        assert_eq!(guest_name("", "ana", &[]), None);
        assert_eq!(guest_name("codex", "", &[]).as_deref(), Some("codex@guest"));
        let (name, rest) = cohost_core::room::addressed("@codex@ana fix it").unwrap();
        assert_eq!((name, rest), ("codex@ana", "fix it"));
    }
}
