//! The room screens on a terminal: the host console (`cohost share`) and
//! the participant view (`cohost join`). A small adapter between the
//! multiplayer API (the host bridge's notices and inputs, the participant
//! session's events and sends) and the terminal UI's messages and effects;
//! line mode stays in `share.rs` and `join.rs`.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command's own terminal output"
)]

use crate::cmd::turn_changes::ChangesCommand;

use cohost_core::sanitize::inert_line;
use cohost_core::CohostError;
use cohost_protocol::{Participant, Role};
use cohost_relay::{ClientEvent, RelayClient};
use cohost_session::{Room, RunningSession};
use cohost_share::{Message, Signer};
use cohost_tui::app::{App, Effect, Incoming, SessionInfo};
use cohost_tui::commands::Mode;
use cohost_tui::room;
use cohost_tui::theme::Theme;
use tokio::sync::mpsc;

use crate::cmd::hosting::{changes_in_room, end_room, room_title};
use crate::cmd::screen::{decide, on_terminal, watch_signals};
use crate::exit::CmdResult;
use cohost_sharing::host::{HostBridge, HostInput, HostNotice, SuggestionPolicy};
use cohost_sharing::participant::{
    door_gives_up, door_line, stamped_name, until, DOOR_SHUT, NO_ANSWER,
};
use cohost_sharing::room_members::MemberSetup;
use cohost_sharing::session::{ParticipantEvent, ParticipantSession};

/// The terminal UI, unless the output is for a program (`--json`), the user
/// asked for lines (`--plain`) or there is no terminal.
pub fn wanted(json: bool, plain: bool) -> bool {
    !json && !plain && on_terminal()
}

/// Everything the host console needs from `cohost share`'s setup.
pub struct HostParts {
    /// The running sessions: one agent, or the members of a room.
    pub room: Room,
    /// Connected to the room as host.
    pub client: RelayClient,
    /// The room's keys and the invites issued with them.
    pub keys: cohost_sharing::keys::HostKeys,
    /// Co-driver suggestions.
    pub suggestions: SuggestionPolicy,
    /// Co-driver interrupt requests.
    pub interrupts: SuggestionPolicy,
    /// The guests' open invites (`None` with `--invite-only`).
    pub invites: Option<room::Invites>,
    /// The personal invites (`--invite NAME=ROLE`).
    pub personal: Vec<cohost_sharing::invite_mint::PersonalInvite>,
    /// What mints personal invites while the room runs (`/invite`), and
    /// whether they say `cohosts://`.
    pub mint: Option<(cohost_sharing::invite_mint::InviteMint, bool)>,
    /// What the room's members ask each other (its bridge), when it has one.
    pub bridge_notes: Option<mpsc::UnboundedReceiver<cohost_session::BridgeNote>>,
    /// `--knock`: everyone waits at the door until the host answers, at
    /// most this long (`None`: invites let people straight in).
    pub knock: Option<std::time::Duration>,
    /// Calls that need several approvals (`--quorum`).
    pub quorum: Vec<cohost_share::QuorumRule>,
    /// What `/add` opens members with (`None`: the members are fixed).
    pub(crate) members: Option<MemberSetup>,
}

fn role_word(r: Role) -> String {
    r.as_str().to_ascii_lowercase().replace('_', "-")
}

fn participant(p: &Participant, present: bool) -> room::Participant {
    room::Participant {
        id: p.conn_id,
        name: inert_line(&p.name),
        role: role_word(p.role),
        present,
    }
}

/// A typed presence event as the screen takes it: the host's own
/// connection is named `NAME (you)`.
fn presence(p: cohost_share::Presence) -> Option<Incoming> {
    use cohost_share::Presence;
    Some(match p {
        Presence::Joined { who, you } => {
            let mut q = participant(&who, true);
            if you {
                q.name = format!("{} (you)", q.name);
            }
            Incoming::Joined(q)
        }
        Presence::Renamed { who } | Presence::RoleChanged { who, .. } => {
            Incoming::Joined(participant(&who, true))
        }
        Presence::Left { who } => Incoming::Left(who.conn_id),
        _ => return None,
    })
}

/// A host notice as the screen takes it.
fn host_incoming(n: HostNotice) -> Option<Incoming> {
    Some(match n {
        HostNotice::Event(e) => Incoming::Event(e),
        HostNotice::Suggested(s) => Incoming::Suggested(room::Suggestion {
            id: inert_line(&s.suggestion_id),
            from: inert_line(s.from.as_deref().unwrap_or("a co-driver")),
            text: cohost_core::sanitize::strip_controls(&s.text).into_owned(),
        }),
        HostNotice::SuggestionDecided(d) => Incoming::SuggestionDecided {
            id: d.suggestion_id,
            accepted: d.accepted,
        },
        // The turn's own approval event draws the card.
        HostNotice::ApprovalNeeded { .. } | HostNotice::TurnDone(_) => return None,
        HostNotice::Chat(c) => Incoming::Chat {
            from: inert_line(c.from.as_deref().unwrap_or("someone")),
            text: cohost_core::sanitize::strip_controls(&c.text).into_owned(),
        },
        HostNotice::Presence(p) => return presence(p),
        HostNotice::Room(m) => Incoming::Notice(m),
        HostNotice::Invited(p) => Incoming::Notice(cohost_sharing::invite_mint::personal_line(&p)),
        HostNotice::Members(names) => Incoming::Members(names),
        HostNotice::InterruptRequested { from } => Incoming::Notice(format!(
            "{} asks to interrupt the turn (Esc interrupts)",
            inert_line(&from)
        )),
    })
}

/// A host bridge running for a screen: what it is told, and the room it
/// hands back when it is done.
struct Hosting {
    inputs: mpsc::UnboundedSender<HostInput>,
    bridge: tokio::task::JoinHandle<Room>,
    /// The room as the bridge has it (`/add`, `/drop`, `/keep` change it).
    room: tokio::sync::watch::Receiver<Room>,
}

/// Start the bridge over `p`'s session and room; its notices and its end
/// go to the screen. Fails only when `--knock` cannot keep the door: the
/// room must then not open at all.
fn start_hosting(
    p: HostParts,
    to_app: &mpsc::UnboundedSender<Incoming>,
) -> Result<Hosting, CohostError> {
    let (notice_tx, mut notices) = mpsc::unbounded_channel();
    let mut bridge = HostBridge::for_room(p.room, p.client, p.suggestions, notice_tx)
        .with_sanitizer(crate::secrets::sanitizer())
        .with_keys(p.keys)
        .with_interrupt_policy(p.interrupts)
        .with_quorum(p.quorum);
    if let Some(timeout) = p.knock {
        bridge = bridge
            .with_knock(timeout)
            .map_err(cohost_sharing::knock::door_error)?;
    }
    if let Some((mint, secure)) = p.mint {
        bridge = bridge.with_mint(mint, secure);
    }
    if let Some(notes) = p.bridge_notes {
        bridge = bridge.with_bridge_notes(notes);
    }
    if let Some(setup) = p.members {
        bridge = bridge.with_members(setup);
    }
    let room = bridge.room_now();
    let (inputs, bridge_inputs) = mpsc::unbounded_channel();
    let news = to_app.clone();
    tokio::spawn(async move {
        while let Some(n) = notices.recv().await {
            if let Some(m) = host_incoming(n) {
                let _ = news.send(m);
            }
        }
    });
    let closed = to_app.clone();
    let bridge = tokio::spawn(async move {
        let s = bridge.run(bridge_inputs).await;
        let _ = closed.send(Incoming::Closed("the room closed".into()));
        s
    });
    Ok(Hosting {
        inputs,
        bridge,
        room,
    })
}

impl Hosting {
    /// The screen's effects as the bridge's inputs, until the host quits.
    async fn relay(
        &self,
        from_app: &mut mpsc::UnboundedReceiver<Effect>,
        say: &mpsc::UnboundedSender<Incoming>,
    ) {
        // Built on the first `/diff` or `/undo`: the session's checkpoints
        // are read through the host services, which a console without one
        // never needs.
        let mut host: Option<cohost_discovery::Host> = None;
        while let Some(e) = from_app.recv().await {
            let changes = match e {
                Effect::Diff(turn) => Some(ChangesCommand::Diff(turn)),
                Effect::Undo(turn) => Some(ChangesCommand::Undo(turn)),
                _ => None,
            };
            let room = self.room.borrow().clone();
            if let Some(cmd) = changes {
                let _ = say.send(changes_in_room(&room, cmd, &mut host).await);
                continue;
            }
            let input = match e {
                // While a turn runs the bridge steers it or queues.
                Effect::Prompt(t) | Effect::Steer(t) => HostInput::Prompt(t),
                Effect::Queue(command) => {
                    // The queue of the agent the host's prompts go to.
                    let said = match room.members().first() {
                        Some(m) => crate::cmd::queue::queue_command(&m.session, command),
                        None => Some(Incoming::Notice("the room has no agent".into())),
                    };
                    if let Some(m) = said {
                        let _ = say.send(m);
                    }
                    continue;
                }
                Effect::Compare(t) => HostInput::Compare(t),
                Effect::Members => HostInput::Members,
                Effect::AddMember(agent) => HostInput::AddMember(agent),
                Effect::DropMember(name) => HostInput::DropMember(name),
                Effect::Keep { name, merge } => HostInput::Keep { name, merge },
                Effect::Handoff { to, text } => HostInput::Handoff { to, text },
                Effect::Admit(who) => HostInput::Admit(who),
                Effect::Refuse(who) => HostInput::Refuse(who),
                Effect::Accept(id) => HostInput::Accept(id),
                Effect::Reject(id) => HostInput::Reject(id),
                // The screen's second Ctrl+C in a room: every member
                // (those on participants' machines too).
                Effect::Interrupt if room.members().len() > 1 => HostInput::InterruptAll,
                Effect::Interrupt => HostInput::Interrupt,
                // Esc on a member's tab: that member only.
                Effect::InterruptMember(name) => HostInput::InterruptMember(name),
                Effect::Chat(t) => HostInput::Chat(t),
                Effect::Kick(who) => HostInput::Kick(who),
                Effect::Who => HostInput::Who,
                Effect::Invite(words) => match cohost_sharing::host_invite::invite_input(&words) {
                    Ok(input) => input,
                    Err(e) => {
                        let _ = say.send(Incoming::Notice(format!("/invite: {e}")));
                        continue;
                    }
                },
                Effect::Budget(arg) => HostInput::Budget(arg),
                Effect::Spend => HostInput::Spend,
                Effect::Decide {
                    tool_id,
                    option,
                    agent,
                } => {
                    // The card names its member; one agent's names none.
                    let member = match agent {
                        Some(name) => room.member(&name),
                        None => room.members().first(),
                    };
                    match member {
                        Some(m) => decide(&m.session, &tool_id, option),
                        None => {
                            let _ = say.send(Incoming::Notice(
                                "that member is not in the room any more".into(),
                            ));
                        }
                    }
                    continue;
                }
                Effect::Quit => {
                    let _ = self.inputs.send(HostInput::Interrupt);
                    let _ = self.inputs.send(HostInput::Quit);
                    return;
                }
                other => {
                    let _ = say.send(Incoming::Notice(format!(
                        "{other:?} is not for a shared session"
                    )));
                    continue;
                }
            };
            if self.inputs.send(input).is_err() {
                return;
            }
        }
    }

    /// The room closed (the bridge returned once the relay acknowledged
    /// it, or `CLOSE_ACK` passed, so an embedded relay may stop next: the
    /// guests have "room closed" queued, not a reconnect); the session
    /// ends. The quit budget bounds it: a turn that will not stop is killed.
    async fn finish(self) {
        crate::signals::exit_within(crate::signals::QUIT_BUDGET, 0);
        drop(self.inputs);
        // The bridge has returned (or failed): the session ends either way.
        let room = match self.bridge.await {
            Ok(room) => room,
            Err(_) => self.room.borrow().clone(),
        };
        end_room(&room).await;
    }
}

/// The host console until the host quits or the room closes.
pub async fn host(p: HostParts) -> CmdResult {
    let members: Vec<String> = p.room.members().iter().map(|m| m.name.clone()).collect();
    let info = SessionInfo {
        agent: room_title(&p.room),
        model: None,
        session_id: Some(p.client.room_id().as_str().to_string()),
    };
    let invites = p.invites.clone();
    let (to_app, mut inbox) = mpsc::unbounded_channel();
    let (effects, mut from_app) = mpsc::unbounded_channel();
    // Also on the main screen: still there to copy after the console ends.
    match &invites {
        Some(i) => println!(
            "Sharing {} — give each guest an invite; they run `cohost join` and paste it:\n  co-driver: {}\n  viewer:    {}",
            info.agent, i.co_driver, i.viewer
        ),
        None => println!(
            "Sharing {} with the people named (/invite NAME co-driver|viewer names one more):",
            info.agent
        ),
    }
    for p in &p.personal {
        println!("  {}", cohost_sharing::invite_mint::personal_line(p));
    }
    let _ = to_app.send(Incoming::Session(info));
    if let Some(invites) = invites {
        let _ = to_app.send(Incoming::Invites(invites));
    }
    let several = members.len() > 1;
    if several {
        let _ = to_app.send(Incoming::Members(members));
    }
    let _ = to_app.send(Incoming::Notice(if several {
        "@NAME TEXT prompts one member, plain text the last one named, /compare TEXT all; /help for commands and keys".into()
    } else {
        "type a prompt to run it; /help for commands and keys".into()
    }));
    watch_signals(effects.clone(), to_app.clone());
    let hosting = start_hosting(p, &to_app)?;
    let say = to_app.clone();
    let relay = tokio::spawn(async move {
        hosting.relay(&mut from_app, &say).await;
        hosting
    });
    let mut app = App::new(Mode::Host, Theme::from_env());
    app.set_review_format(cohost_share::review::review_prompt);
    let shown = cohost_tui::term::run(&mut app, &mut inbox, &effects).await;
    drop(inbox);
    if let Ok(hosting) = relay.await {
        hosting.finish().await;
    }
    shown.map_err(|e| crate::exit::internal(format!("the terminal failed: {e}")))?;
    Ok(0)
}

/// `/share` in `cohost chat`: the running session goes on in `room`, the
/// screen turns into the host console (participants, suggestions,
/// invites), until the host quits.
pub(crate) async fn share_in_place(
    session: RunningSession,
    room: crate::cmd::hosting::OpenRoom,
    mut effects: mpsc::UnboundedReceiver<Effect>,
    to_app: mpsc::UnboundedSender<Incoming>,
) {
    if let Some(invites) = room.invites.clone() {
        let _ = to_app.send(Incoming::Shared(invites));
    }
    let parts = HostParts {
        room: cohost_session::Room::of_one(session.descriptor().id.clone(), session),
        client: room.client,
        keys: room.keys,
        suggestions: SuggestionPolicy::Ask,
        interrupts: SuggestionPolicy::Ask,
        invites: room.invites,
        personal: room.personal,
        mint: Some((room.mint, room.secure_invites)),
        bridge_notes: None,
        quorum: Vec::new(),
        knock: None,
        members: None,
    };
    // No door in a chat's room (`knock: None`): this cannot fail.
    let Ok(hosting) = start_hosting(parts, &to_app) else {
        return;
    };
    hosting.relay(&mut effects, &to_app).await;
    hosting.finish().await;
    if let Some(r) = room.embedded {
        r.shutdown().await;
    }
}

/// A participant's event as the screen takes it.
fn participant_incoming(ev: ParticipantEvent) -> Vec<Incoming> {
    match ev {
        ParticipantEvent::Welcome(w) => {
            let mut out = vec![Incoming::Notice(format!(
                "joined room {} as {} ({})",
                inert_line(&w.room),
                role_word(w.you.role),
                inert_line(&w.you.name)
            ))];
            out.extend(
                w.participants
                    .iter()
                    .map(|p| Incoming::Joined(participant(p, true))),
            );
            out
        }
        ParticipantEvent::Frame {
            frame,
            message,
            from,
        } => match message.map(|m| *m) {
            Some(Message::ExecutionStarted(s)) => {
                let mut who = if s.origin == "host" {
                    "host".to_string()
                } else {
                    "co-driver".to_string()
                };
                let text = cohost_core::sanitize::strip_controls(&s.text).into_owned();
                // A member's turn: its block goes to the member's tab.
                match s.agent {
                    Some(member) => {
                        who = format!("{who} → {}", inert_line(&member));
                        vec![Incoming::PromptedMember { who, member, text }]
                    }
                    None => vec![Incoming::Prompted { who, text }],
                }
            }
            Some(Message::TurnEvent(mut e)) => {
                if let cohost_core::EventBody::Steered(n) = &mut e.body {
                    // The screen says "you → this turn" for a steer with
                    // no sender: here that is the host's own line.
                    n.by = Some(n.by.as_deref().map_or_else(|| "host".into(), inert_line));
                    n.text = cohost_core::sanitize::strip_controls(&n.text).into_owned();
                }
                vec![Incoming::Event(e)]
            }
            Some(Message::Chat(c)) => {
                // Who said it is who signed it (the host, or the name the
                // host bound that key to); the relay's stamp only where
                // nothing was signed.
                let said_by = match &from {
                    Some(Signer::Host) => "host".to_string(),
                    Some(Signer::Participant(b)) => b.label(),
                    _ => stamped_name(&frame),
                };
                let mut out = vec![Incoming::Chat {
                    from: said_by,
                    text: cohost_core::sanitize::strip_controls(&c.text).into_owned(),
                }];
                // Only the host says who the members are: the list counts
                // only in a chat its key signed, whatever the relay
                // stamped as the sender's role.
                if let (Some(names), Some(Signer::Host)) = (c.members, &from) {
                    out.push(Incoming::Members(
                        names.iter().map(|n| inert_line(n)).collect(),
                    ));
                }
                out
            }
            Some(Message::SuggestionDecided(d)) => vec![Incoming::SuggestionDecided {
                id: inert_line(&d.suggestion_id),
                accepted: d.accepted,
            }],
            _ => Vec::new(),
        },
        // The answer on screen was closed over the gap; the late chunk is
        // said, not spliced into text already drawn.
        ParticipantEvent::Late { frame, .. } => vec![Incoming::Notice(format!(
            "chunk {} of an answer came late, after it was reported missing",
            frame.chunk()
        ))],
        ParticipantEvent::Presence { joined: true, who } => {
            vec![Incoming::Joined(participant(&who, true))]
        }
        ParticipantEvent::Presence { joined: false, who } => vec![Incoming::Left(who.conn_id)],
        ParticipantEvent::Dropped { kind, reason, .. } => {
            vec![Incoming::Notice(format!(
                "dropped a {kind} frame: {reason}"
            ))]
        }
        ParticipantEvent::KeyLearned { epoch } => {
            vec![Incoming::Notice(format!(
                "the host rotated the room key (epoch {epoch})"
            ))]
        }
        ParticipantEvent::Relay(ev) => match ev {
            ClientEvent::Closed { reason } => {
                vec![Incoming::Closed(format!("room closed: {reason}"))]
            }
            ClientEvent::Disconnected { reason } => {
                vec![Incoming::Notice(format!(
                    "connection lost ({reason}); reconnecting"
                ))]
            }
            ClientEvent::Error(e) => vec![Incoming::Notice(format!(
                "refused by the relay: {}",
                e.message
            ))],
            ClientEvent::Missing { stream, from, to } => vec![Incoming::Notice(format!(
                "{} missing from this answer ({stream}): the relay never sent them",
                cohost_sharing::participant::missing(from, to)
            ))],
            ClientEvent::Resync(r) => vec![Incoming::Notice(format!(
                "the relay could not replay: {}",
                r.reason
            ))],
            ClientEvent::Welcome(_) | ClientEvent::Frame(_) | ClientEvent::Late(_) => Vec::new(),
        },
    }
}

/// What the host lets this participant approve, as the screen takes it.
fn grant_of(me: &ParticipantSession) -> Option<cohost_tui::app::Grant> {
    let g = me.grant()?;
    Some(cohost_tui::app::Grant {
        kinds: g.kinds.clone(),
        quorum: me
            .grants()
            .quorum
            .iter()
            .map(|r| (r.kind, r.approvals))
            .collect(),
    })
}

/// The participant view until the room closes or the participant leaves.
pub async fn participant_view(
    mut me: ParticipantSession,
    suggest: Option<String>,
    chat: Option<String>,
) -> CmdResult {
    let co_driver = me.me().role == Role::CoDriver;
    let (to_app, mut inbox) = mpsc::unbounded_channel();
    let (effects, mut from_app) = mpsc::unbounded_channel();
    let _ = to_app.send(Incoming::Session(SessionInfo {
        agent: "host".into(),
        model: None,
        session_id: None,
    }));
    let hint = if co_driver {
        "type a prompt to suggest it to the host; /chat TEXT to talk"
    } else {
        "you are watching; type to chat"
    };
    let _ = to_app.send(Incoming::Notice(hint.into()));
    if let Some(t) = suggest {
        let _ = effects.send(Effect::Suggest(t));
    }
    if let Some(t) = chat {
        let _ = effects.send(Effect::Chat(t));
    }
    watch_signals(effects.clone(), to_app.clone());
    let say = to_app.clone();
    let driver = tokio::spawn(async move {
        let mut turned_away = None;
        // At the door of a `--knock` room (the host said it waits), and
        // until when this side waits for the answer.
        let mut at_door = false;
        let mut gives_up = None;
        loop {
            tokio::select! {
                ev = me.next() => match ev {
                    Some(ev) => {
                        if at_door && matches!(ev, ParticipantEvent::Relay(ClientEvent::Closed { .. })) {
                            // A refused personal invite is revoked at the
                            // relay, which may close the connection before
                            // the host's answer comes.
                            turned_away = Some(DOOR_SHUT.to_owned());
                            let _ = say.send(Incoming::Closed(DOOR_SHUT.into()));
                            break;
                        }
                        if let ParticipantEvent::Frame { message: Some(m), .. } = &ev {
                            // `--knock`: the host's answer at the door, in
                            // words; turned away, the screen closes and the
                            // words stay on the terminal.
                            if let Message::KeyDoor(d) = &**m {
                                at_door = d.answer == cohost_share::DoorAnswer::Waiting;
                                gives_up = at_door
                                    .then(|| door_gives_up(d.timeout_secs, tokio::time::Instant::now()))
                                    .flatten();
                                let line = door_line(d, &me.fingerprint());
                                if d.answer.turned_away() {
                                    turned_away = line.clone();
                                    let _ = say.send(Incoming::Closed(line.unwrap_or_default()));
                                    break;
                                }
                                if let Some(line) = line {
                                    let _ = say.send(Incoming::Notice(line));
                                }
                                continue;
                            }
                            if let Message::ApprovalGrants(_) = **m {
                                // The session took the host's new grants:
                                // this participant's share of them.
                                let _ = say.send(Incoming::Grant(grant_of(&me)));
                            }
                        }
                        for m in participant_incoming(ev) {
                            let _ = say.send(m);
                        }
                    }
                    None => {
                        let _ = say.send(Incoming::Closed("the room closed".into()));
                        break;
                    }
                },
                () = until(gives_up) => {
                    turned_away = Some(NO_ANSWER.to_owned());
                    let _ = say.send(Incoming::Closed(NO_ANSWER.into()));
                    break;
                }
                e = from_app.recv() => {
                    let result = match e {
                        Some(Effect::Suggest(t)) => me.suggest(&t).await.map(|_| ()),
                        Some(Effect::Chat(t)) => me.chat(&t).await,
                        Some(Effect::Interrupt) => me.interrupt().await,
                        Some(Effect::Vote { tool_id, allow }) => {
                            let sent = me.vote(Some(&tool_id), allow).await;
                            if sent.is_ok() {
                                let what = if allow { "approval" } else { "denial" };
                                let _ = say.send(Incoming::Notice(format!(
                                    "sent your {what} of {} to the host",
                                    inert_line(&tool_id)
                                )));
                            }
                            sent
                        }
                        Some(Effect::Quit) | None => break,
                        Some(_) => Ok(()),
                    };
                    if let Err(e) = result {
                        let _ = say.send(Incoming::Notice(format!("not sent: {e}")));
                    }
                }
            }
        }
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), me.close()).await;
        turned_away
    });
    let mut app = App::new(Mode::Participant { co_driver }, Theme::from_env());
    app.set_review_format(cohost_share::review::review_prompt);
    let shown = cohost_tui::term::run(&mut app, &mut inbox, &effects).await;
    drop(inbox);
    let turned_away = driver.await.ok().flatten();
    shown.map_err(|e| crate::exit::internal(format!("the terminal failed: {e}")))?;
    if let Some(line) = turned_away {
        // Said again on the main screen: the full-screen view is gone.
        eprintln!("cohost: {line}");
        return Ok(crate::exit::TURNED_AWAY);
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_share::Presence;

    /// A chat frame as the relay delivers it, stamped `role`, signed by `from`.
    fn chat(role: Role, from: Signer, members: Option<Vec<&str>>) -> ParticipantEvent {
        let frame = cohost_protocol::Frame::build_stamped(
            cohost_protocol::FrameType::ChatMessage,
            "r-room",
            None,
            0,
            4,
            Some(role),
            b"",
        )
        .unwrap();
        ParticipantEvent::Frame {
            frame,
            message: Some(Box::new(Message::Chat(cohost_share::Chat {
                from: Some("host".into()),
                text: "members: mock, evil".into(),
                members: members.map(|m| m.into_iter().map(String::from).collect()),
            }))),
            from: Some(from),
        }
    }

    fn members_of(out: &[Incoming]) -> Option<Vec<String>> {
        out.iter().find_map(|m| match m {
            Incoming::Members(names) => Some(names.clone()),
            _ => None,
        })
    }

    /// Issue 33: the member list counts only from the host's signature; a
    /// participant's chat carrying one (even stamped as the host's by the
    /// relay) is a chat under the name the host bound, and no list.
    #[test]
    fn members_are_taken_only_from_a_chat_the_host_signed() {
        let ana = Signer::Participant(cohost_share::e2e::Bound {
            conn_id: 4,
            name: "ana\u{1b}[2J".into(),
            role: Role::CoDriver,
            agents: Vec::new(),
        });
        let out = participant_incoming(chat(Role::Host, ana, Some(vec!["evil"])));
        assert_eq!(members_of(&out), None, "{out:?}");
        match &out[..] {
            [Incoming::Chat { from, .. }] => {
                assert!(
                    from.starts_with("ana") && from.ends_with("(co-driver)"),
                    "{from}"
                );
                assert!(!from.contains('\u{1b}'), "{from:?}");
            }
            other => panic!("{other:?}"),
        }
        let out =
            participant_incoming(chat(Role::Host, Signer::Host, Some(vec!["mock", "x\u{7}"])));
        let names = members_of(&out).expect("the host's list");
        assert_eq!(names.len(), 2);
        assert_eq!(names[0], "mock");
        assert!(!names[1].contains('\u{7}'), "{names:?}");
        assert!(matches!(&out[0], Incoming::Chat { from, .. } if from == "host"));
    }

    /// A steer with no sender is the host's own line: the participant's
    /// screen must not say "you".
    #[test]
    fn a_steer_without_a_sender_is_the_hosts() {
        let frame = cohost_protocol::Frame::build_stamped(
            cohost_protocol::FrameType::StreamChunk,
            "r-room",
            Some("p-1"),
            3,
            1,
            Some(Role::Host),
            b"",
        )
        .unwrap();
        let steered = |by: Option<&str>| ParticipantEvent::Frame {
            frame: frame.clone(),
            message: Some(Box::new(Message::TurnEvent(cohost_core::Event {
                id: "p-1.3".into(),
                prompt_id: "p-1".into(),
                correlation_id: "c-1".into(),
                ts: 0,
                agent: None,
                body: cohost_core::EventBody::Steered(cohost_core::SteerNotice {
                    text: "also \u{1b}[31mthis".into(),
                    by: by.map(String::from),
                }),
            }))),
            from: Some(Signer::Host),
        };
        for (by, want) in [(None, "host"), (Some("ana (co-driver)"), "ana (co-driver)")] {
            match &participant_incoming(steered(by))[..] {
                [Incoming::Event(e)] => match &e.body {
                    cohost_core::EventBody::Steered(n) => {
                        assert_eq!(n.by.as_deref(), Some(want));
                        assert!(!n.text.contains('\u{1b}'), "{:?}", n.text);
                    }
                    other => panic!("{other:?}"),
                },
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn typed_presence_reaches_the_pane() {
        let p = Participant {
            conn_id: 7,
            role: Role::CoDriver,
            name: "ada (the) lovelace".into(),
        };
        match presence(Presence::Joined {
            who: p.clone(),
            you: false,
        }) {
            Some(Incoming::Joined(q)) => assert_eq!(
                (q.id, q.name.as_str(), q.role.as_str(), q.present),
                (7, "ada (the) lovelace", "co-driver", true)
            ),
            other => panic!("{other:?}"),
        }
        let host = Participant {
            conn_id: 1,
            role: Role::Host,
            name: "host".into(),
        };
        match presence(Presence::Joined {
            who: host,
            you: true,
        }) {
            Some(Incoming::Joined(q)) => {
                assert_eq!((q.name.as_str(), q.role.as_str()), ("host (you)", "host"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            presence(Presence::Left { who: p }),
            Some(Incoming::Left(7))
        ));
        assert!(presence(Presence::Unknown).is_none());
    }
}
