//! The host side of a shared session: runs the agent locally through the
//! session engine and publishes every event to the room. Co-driver
//! suggestions queue for the host's decision; tool approvals stay with the
//! host.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use cohost_core::{ApprovalContext, Decision, DecisionOrigin, EndReason, Event, PromptInput};
use cohost_host::{OpenSession, PendingApprovals};
use cohost_protocol::{Frame, FrameType, InviteKeys, Kick, Participant, Role};
use cohost_relay::{ClientEvent, RelayClient};
use cohost_share::{
    Chat, E2e, Message, PayloadCodec, Presence, RoomCodec, ShareError, Suggestion,
    SuggestionDecision, TurnStream,
};

use super::host_turn::{interrupt_policy, publish, Started};
use super::keys::{HostKeys, NoKeys};
pub use super::participant::describe;
use tokio::sync::mpsc;

/// How long the bridge waits for the relay to acknowledge the room's close.
pub const CLOSE_ACK: std::time::Duration = std::time::Duration::from_secs(2);

/// What the host (a person or a test) tells the bridge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostInput {
    /// Run this prompt.
    Prompt(String),
    /// Run a pending suggestion.
    Accept(String),
    /// Reject a pending suggestion.
    Reject(String),
    /// Decide a pending tool approval (`None`: the only pending one).
    Approve {
        /// Which call.
        tool_id: Option<String>,
        /// Allow or deny.
        allow: bool,
    },
    /// Interrupt the running turn.
    Interrupt,
    /// Say something in the room chat.
    Chat(String),
    /// Remove a participant (by name, `#id` or id): its token is revoked at
    /// the relay and the room key rotates.
    Kick(String),
    /// List who is in the room.
    Who,
    /// Close the room and stop.
    Quit,
}

/// What the bridge tells the host.
#[derive(Debug, Clone)]
pub enum HostNotice {
    /// A co-driver suggested a prompt (waiting for Accept/Reject under `Ask`).
    Suggested(Suggestion),
    /// A suggestion was decided (by the policy or the host).
    SuggestionDecided(SuggestionDecision),
    /// A local event of the running turn (for rendering).
    Event(Event),
    /// The agent asks to run a tool; answer with `HostInput::Approve`.
    ApprovalNeeded(ApprovalContext),
    /// Chat from the room.
    Chat(Chat),
    /// Who is in the room changed (the host's own connection included, once
    /// welcomed).
    Presence(Presence),
    /// Something about the room or its connection, to show as it is.
    Room(String),
    /// A turn finished.
    TurnDone(EndReason),
    /// A co-driver asks to stop the running turn (under the `Ask` policy:
    /// answer with `HostInput::Interrupt`).
    InterruptRequested {
        /// Who asked.
        from: String,
    },
}

/// What to do with co-driver suggestions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuggestionPolicy {
    /// Queue them for the host to accept or reject.
    Ask,
    /// Run them in order (trusted rooms, tests).
    Accept,
    /// Reject them all.
    Reject,
}

/// Tool approvals answered by the host through [`HostInput::Approve`].
pub fn host_approvals() -> PendingApprovals {
    PendingApprovals::new("host went away")
}

/// Answer the host's `/allow` or `/deny`; false when nothing was pending.
fn answer(approvals: Option<&PendingApprovals>, tool_id: Option<&str>, allow: bool) -> bool {
    let d = if allow {
        Decision::allow(DecisionOrigin::User)
    } else {
        Decision::deny(DecisionOrigin::User, "denied by the host")
    };
    approvals.is_some_and(|a| a.answer(tool_id, d))
}

/// Send a built frame; a frame that could not be built or sent is told to
/// the host (never dropped silently).
pub(super) async fn deliver(
    client: &RelayClient,
    notices: &mpsc::UnboundedSender<HostNotice>,
    frame: Result<Frame, ShareError>,
) {
    let sent = match frame {
        Ok(f) => client.send(&f).await.map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    if let Err(e) = sent {
        let _ = notices.send(HostNotice::Room(format!("a frame was not sent: {e}")));
    }
}

/// Drives an [`OpenSession`] for a room.
pub struct HostBridge {
    session: OpenSession,
    client: RelayClient,
    codec: RoomCodec,
    policy: SuggestionPolicy,
    approvals: Option<PendingApprovals>,
    notices: mpsc::UnboundedSender<HostNotice>,
    pending: HashMap<String, Suggestion>,
    queue: VecDeque<(String, String, Option<String>)>,
    quit: bool,
    keys: Option<HostKeys>,
    roster: BTreeMap<u64, Participant>,
    interrupts: SuggestionPolicy,
}

impl HostBridge {
    /// A bridge for a started session connected as HOST. Pass the
    /// [`host_approvals`] the session decides with, if any, so approval
    /// requests reach the notices.
    pub fn new(
        session: OpenSession,
        client: RelayClient,
        policy: SuggestionPolicy,
        approvals: Option<PendingApprovals>,
        notices: mpsc::UnboundedSender<HostNotice>,
    ) -> Self {
        if let Some(a) = &approvals {
            let notices = notices.clone();
            a.on_request(move |r| {
                let _ = notices.send(HostNotice::ApprovalNeeded(r));
            });
        }
        let room = client.room_id().clone();
        let (keys, codec): (Option<HostKeys>, Arc<dyn PayloadCodec>) = match E2e::generate_host() {
            Ok(e2e) => {
                let keys = HostKeys::new(room.clone(), Arc::new(e2e));
                let codec = keys.codec();
                (Some(keys), codec)
            }
            Err(e) => {
                let why = format!("no room key ({e}); nothing is shared");
                let _ = notices.send(HostNotice::Room(why.clone()));
                (None, Arc::new(NoKeys(why)))
            }
        };
        let codec = RoomCodec::with_codec(room, codec).as_role(Role::Host);
        HostBridge {
            session,
            client,
            codec,
            policy,
            approvals,
            notices,
            pending: HashMap::new(),
            queue: VecDeque::new(),
            quit: false,
            keys,
            roster: BTreeMap::new(),
            interrupts: SuggestionPolicy::Ask,
        }
    }

    /// The same bridge with these end-to-end keys (a host that minted its
    /// invites before creating the bridge).
    pub fn with_e2e(mut self, e2e: Arc<E2e>) -> Self {
        let room = self.codec.room().clone();
        self.codec = RoomCodec::with_codec(room.clone(), e2e.clone()).as_role(Role::Host);
        self.keys = Some(HostKeys::new(room, e2e));
        self
    }

    /// What to do with a co-driver's interrupt request (default: ask).
    pub fn with_interrupt_policy(mut self, policy: SuggestionPolicy) -> Self {
        self.interrupts = policy;
        self
    }

    /// The keys to add to every invite of this room (`None`: no keys, so
    /// nothing is shared).
    pub fn invite_keys(&self) -> Option<InviteKeys> {
        self.keys.as_ref().map(HostKeys::invite_keys)
    }

    fn notify(&self, n: HostNotice) {
        let _ = self.notices.send(n);
    }

    /// Run until `Quit`, the inputs close, or the room closes. Returns the session.
    pub async fn run(mut self, mut inputs: mpsc::UnboundedReceiver<HostInput>) -> OpenSession {
        while !self.quit {
            if let Some((text, origin, correlation)) = self.queue.pop_front() {
                self.run_turn(text, origin, correlation, &mut inputs).await;
                continue;
            }
            tokio::select! {
                input = inputs.recv() => match input {
                    Some(i) => self.handle_input(i).await,
                    None => self.quit = true,
                },
                ev = self.client.recv() => match ev {
                    Some(ev) => self.handle_relay(ev).await,
                    None => self.quit = true,
                },
            }
        }
        deliver(&self.client, &self.notices, self.codec.room_close()).await;
        self.await_close().await;
        self.session
    }

    /// After `room.close`: the relay has fanned it out to everyone once it
    /// closes this connection too ("room closed"), which is the ack waited
    /// for, within [`CLOSE_ACK`] (a relay that is gone never answers).
    async fn await_close(&mut self) {
        let acked = tokio::time::timeout(CLOSE_ACK, async {
            while let Some(ev) = self.client.recv().await {
                if let ClientEvent::Closed { reason } = ev {
                    return reason.contains("room closed");
                }
            }
            false
        })
        .await;
        if !matches!(acked, Ok(true)) {
            tracing::debug!(?acked, "the relay did not acknowledge the room's close");
        }
        self.client.close().await;
    }

    async fn handle_input(&mut self, input: HostInput) {
        match input {
            HostInput::Prompt(text) => self.queue.push_back((text, "host".into(), None)),
            HostInput::Accept(id) => self.decide_suggestion(&id, true).await,
            HostInput::Reject(id) => self.decide_suggestion(&id, false).await,
            HostInput::Approve { tool_id, allow } => {
                if !answer(self.approvals.as_ref(), tool_id.as_deref(), allow) {
                    self.notify(HostNotice::Room("no tool approval is pending".into()));
                }
            }
            HostInput::Interrupt => {
                self.session.control().interrupt();
            }
            HostInput::Chat(text) => {
                let chat = Message::Chat(Chat {
                    from: Some("host".into()),
                    text,
                });
                let frame = self.codec.room_frame(&chat);
                deliver(&self.client, &self.notices, frame).await;
            }
            HostInput::Kick(who) => self.kick(&who).await,
            HostInput::Who => {
                let names: Vec<String> = self.roster.values().map(describe).collect();
                self.notify(HostNotice::Room(if names.is_empty() {
                    "nobody else is in the room".into()
                } else {
                    format!("in the room: {}", names.join(", "))
                }));
            }
            HostInput::Quit => self.quit = true,
        }
    }

    /// Who `/kick WHO` names: a connection id (`#3`, `3`) or a name.
    fn find(&self, who: &str) -> Option<Participant> {
        let id = who.trim_start_matches('#').parse::<u64>().ok();
        self.roster
            .values()
            .filter(|p| p.role != Role::Host)
            .find(|p| Some(p.conn_id) == id || p.name == who)
            .cloned()
    }

    async fn kick(&mut self, who: &str) {
        let Some(p) = self.find(who) else {
            self.notify(HostNotice::Room(format!(
                "nobody named {} is in the room; /who lists them",
                cohost_core::sanitize::inert_line(who)
            )));
            return;
        };
        let kick = Frame::control_frame(
            FrameType::RoomKick,
            self.codec.room().as_str(),
            None,
            &Kick { conn_id: p.conn_id },
        );
        match kick {
            Ok(f) => {
                if let Err(e) = self.client.send(&f).await {
                    self.notify(HostNotice::Room(format!("the kick was not sent: {e}")));
                    return;
                }
            }
            Err(e) => {
                self.notify(HostNotice::Room(format!("the kick was not sent: {e}")));
                return;
            }
        }
        self.roster.remove(&p.conn_id);
        let Some(keys) = self.keys.as_mut() else {
            return;
        };
        match keys.kick(p.conn_id) {
            Ok((epoch, rotate)) => {
                if let Some(m) = rotate {
                    let frame = self.codec.room_frame(&m);
                    deliver(&self.client, &self.notices, frame).await;
                }
                self.notify(HostNotice::Room(format!(
                    "removed {}: its invite is revoked and the room key rotated (epoch {epoch})",
                    describe(&p)
                )));
            }
            Err(e) => self.notify(HostNotice::Room(format!(
                "removed {}, but the room key did not rotate: {e}",
                describe(&p)
            ))),
        }
    }

    async fn decide_suggestion(&mut self, id: &str, accept: bool) {
        let Some(s) = self.pending.remove(id) else {
            self.notify(HostNotice::Room(format!("no pending suggestion {id}")));
            return;
        };
        let decision = SuggestionDecision {
            suggestion_id: s.suggestion_id.clone(),
            accepted: accept,
            prompt_id: None,
        };
        let frame = self
            .codec
            .room_frame(&Message::SuggestionDecided(decision.clone()));
        deliver(&self.client, &self.notices, frame).await;
        self.notify(HostNotice::SuggestionDecided(decision));
        if accept {
            self.queue
                .push_back((s.text, s.suggestion_id.clone(), Some(s.suggestion_id)));
        }
    }

    async fn handle_relay(&mut self, ev: ClientEvent) {
        match ev {
            ClientEvent::Frame(f) => match (f.kind(), self.codec.decode(&f)) {
                (FrameType::PromptSuggested, Ok(Some(Message::Suggestion(mut s)))) => {
                    // The relay's stamp names the sender, not the payload.
                    s.from = Some(super::participant::stamped_name(&f));
                    self.pending.insert(s.suggestion_id.clone(), s.clone());
                    self.notify(HostNotice::Suggested(s.clone()));
                    match self.policy {
                        SuggestionPolicy::Ask => {}
                        SuggestionPolicy::Accept => {
                            self.decide_suggestion(&s.suggestion_id, true).await
                        }
                        SuggestionPolicy::Reject => {
                            self.decide_suggestion(&s.suggestion_id, false).await
                        }
                    }
                }
                (_, Ok(Some(Message::Chat(mut c)))) => {
                    c.from = Some(super::participant::stamped_name(&f));
                    self.notify(HostNotice::Chat(c))
                }
                (FrameType::KeyAnnounce, Ok(Some(Message::KeyAnnounce(a)))) => {
                    // The name a participant chose (`--name`), for /who and /kick.
                    if let (Some(p), Some(n)) = (self.roster.get_mut(&f.sender()), &a.name) {
                        let name = cohost_core::sanitize::inert_line(n);
                        if p.name != name {
                            p.name = name;
                            let who = p.clone();
                            self.notify(HostNotice::Presence(Presence::Renamed { who }));
                        }
                    }
                    let answer = self.keys.as_mut().map(|k| k.announced(f.sender(), &a));
                    match answer {
                        Some(Ok(Some(m))) => {
                            let frame = self.codec.room_frame(&m);
                            deliver(&self.client, &self.notices, frame).await;
                        }
                        Some(Err(e)) => self.notify(HostNotice::Room(format!(
                            "a participant's key was refused: {e}"
                        ))),
                        _ => {}
                    }
                }
                (FrameType::InterruptRequest, Ok(Some(_))) => {
                    // Between turns there is nothing to stop.
                    let _ = interrupt_policy(self.interrupts, &self.notices, &f);
                }
                (FrameType::PresenceJoin | FrameType::PresenceLeave, _) => {
                    if let Some(p) = Presence::from_frame(&f) {
                        self.presence(p);
                    }
                }
                (kind, Err(e)) => {
                    self.notify(HostNotice::Room(format!("ignored a {kind} frame: {e}")))
                }
                _ => {}
            },
            ClientEvent::Welcome(w) => {
                self.notify(HostNotice::Room(format!("hosting room {}", w.room)));
                self.notify(HostNotice::Presence(Presence::Joined {
                    who: w.you.clone(),
                    you: true,
                }));
                self.roster.clear();
                for p in w
                    .participants
                    .into_iter()
                    .filter(|p| p.conn_id != w.you.conn_id)
                {
                    self.presence(Presence::Joined { who: p, you: false });
                }
            }
            ClientEvent::Resync(_) | ClientEvent::Error(_) => {}
            ClientEvent::Disconnected { reason } => self.notify(HostNotice::Room(format!(
                "relay connection lost ({reason}); reconnecting"
            ))),
            ClientEvent::Closed { reason } => {
                self.notify(HostNotice::Room(format!("room closed: {reason}")));
                self.quit = true;
            }
        }
    }

    /// Keep the roster and tell the host: a join of someone known under
    /// another role is a role change.
    fn presence(&mut self, p: Presence) {
        let p = match p {
            Presence::Joined { who, you } => {
                let before = self.roster.insert(who.conn_id, who.clone());
                match before {
                    Some(b) if b.role != who.role => Presence::RoleChanged { who, from: b.role },
                    _ => Presence::Joined { who, you },
                }
            }
            Presence::Left { who } => {
                self.roster.remove(&who.conn_id);
                if let Some(k) = self.keys.as_mut() {
                    k.left(who.conn_id);
                }
                Presence::Left { who }
            }
            other => other,
        };
        self.notify(HostNotice::Presence(p));
    }

    async fn run_turn(
        &mut self,
        text: String,
        origin: String,
        correlation: Option<String>,
        inputs: &mut mpsc::UnboundedReceiver<HostInput>,
    ) {
        let (tx, mut rx) = mpsc::unbounded_channel::<Event>();
        let mut sink = move |e: Event| {
            let _ = tx.send(e);
        };
        let provider = self.session.descriptor().id.clone();
        let control = self.session.control();
        let input = PromptInput {
            text: text.clone(),
            correlation_id: correlation,
            ..PromptInput::default()
        };
        let approvals = self.approvals.clone();
        let notices = self.notices.clone();
        let interrupts = self.interrupts;
        let mut deferred: Vec<HostInput> = Vec::new();
        let mut relay_events: Vec<ClientEvent> = Vec::new();
        let mut outcome = None;
        {
            let client = &mut self.client;
            let codec = &self.codec;
            let turn = self.session.prompt(input, &mut sink);
            tokio::pin!(turn);
            let mut stream: Option<TurnStream> = None;
            loop {
                tokio::select! {
                    biased;
                    Some(e) = rx.recv() => {
                        let started = Started { text: &text, provider: &provider, origin: &origin };
                        publish(client, codec, &notices, &mut stream, &e, started).await;
                        let _ = notices.send(HostNotice::Event(e));
                    }
                    o = &mut turn, if outcome.is_none() => outcome = Some(o),
                    Some(i) = inputs.recv() => match i {
                        HostInput::Interrupt => { control.interrupt(); }
                        HostInput::Approve { tool_id, allow } => {
                            if !answer(approvals.as_ref(), tool_id.as_deref(), allow) {
                                let _ = notices.send(HostNotice::Room("no tool approval is pending".into()));
                            }
                        }
                        other => deferred.push(other),
                    },
                    Some(ev) = client.recv() => match &ev {
                        // A co-driver's interrupt acts during the turn; the
                        // rest waits for the turn's end.
                        ClientEvent::Frame(f) if f.kind() == FrameType::InterruptRequest => {
                            if codec.decode(f).is_ok_and(|m| m.is_some())
                                && interrupt_policy(interrupts, &notices, f)
                            {
                                control.interrupt();
                            }
                        }
                        _ => relay_events.push(ev),
                    },
                    else => {}
                }
                // The turn is over once its future finished and every event is published.
                if outcome.is_some() && rx.is_empty() {
                    break;
                }
            }
        }
        if let Some(o) = outcome {
            self.notify(HostNotice::TurnDone(o.reason));
        }
        for ev in relay_events {
            self.handle_relay(ev).await;
        }
        for i in deferred {
            self.handle_input(i).await;
        }
    }
}

/// A fresh suggestion id.
pub fn new_suggestion_id() -> String {
    format!("s-{}", cohost_core::ids::random_tag())
}
