//! The host side of a shared session: drives the room's running sessions
//! (one agent, or several members) with the host's and the room's commands
//! and publishes every event they stream to the room. Co-driver suggestions
//! queue for the host's decision; tool approvals are the host's, and of the
//! participants it grants approval to (under the room's quorum).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use cohost_core::{Decision, DecisionOrigin, Event, EventBody, PromptInput};
use cohost_host::record::Note;
use cohost_protocol::{Frame, FrameType, InviteKeys, Kick, Participant, Role};
use cohost_relay::{ClientEvent, RelayClient};
use cohost_session::{BridgeNote, Room, RoomEvents, RunningSession};
use cohost_share::{
    Chat, CodecError, DoorAnswer, KeyDoor, Message, PayloadCodec, Presence, RoomCodec, Sender,
    ShareError, Signer, Suggestion, SuggestionDecision, TurnStream,
};

use super::host_approvals::{kinds_text, ApprovalGate, VoteOutcome, Voter};

use super::host_io::deliver;
pub use super::host_io::{HostInput, HostNotice, SuggestionPolicy};
use super::host_record;
use super::host_turn::{interrupt_policy, publish, Started};
use super::keys::{HostKeys, NoKeys};
use super::knock::{Door, Knock};
pub use super::participant::describe;
use crate::room_members::{HandoffLog, MemberSetup};
use tokio::sync::mpsc;

/// How long the bridge waits for the relay to acknowledge the room's close.
pub const CLOSE_ACK: std::time::Duration = std::time::Duration::from_secs(2);

/// Why an approval the host never answered was denied.
pub const HOST_GONE: &str = "host went away";

/// The decision a finished ballot gives the agent: made by people (the
/// host, granted participants), each named.
fn ballot_decision(allow: bool, deciders: Vec<String>) -> Decision {
    let decision = if allow {
        Decision::allow(DecisionOrigin::User)
    } else {
        let names: Vec<&str> = deciders
            .iter()
            .map(|d| if d == "host" { "the host" } else { d })
            .collect();
        Decision::deny(
            DecisionOrigin::User,
            format!("denied by {}", names.join(", ")),
        )
    };
    if deciders == ["host"] {
        // The host alone: the origin says so, as it always did.
        return decision;
    }
    decision.by(deciders)
}

/// The room's approval gate, shared with the sessions' request callbacks
/// (which open each call's ballot before anyone hears of it).
pub(super) type SharedGate = Arc<Mutex<ApprovalGate>>;

/// Each approval request of member `m` (named `agent` in a room of several
/// agents) opens its ballot and reaches the host's notices.
pub(super) fn watch_approvals(
    m: &cohost_session::Member,
    agent: Option<String>,
    notices: &mpsc::UnboundedSender<HostNotice>,
    gate: &SharedGate,
) {
    let Some(a) = m.session.approvals() else {
        return;
    };
    let notices = notices.clone();
    let gate = gate.clone();
    a.on_request(move |request| {
        let short = {
            let mut g = gate.lock().unwrap_or_else(PoisonError::into_inner);
            g.requested(&request.tool_id, request.kind, agent.clone());
            g.short_of(request.kind)
        };
        if let Some((need, can)) = short {
            let _ = notices.send(HostNotice::Room(format!(
                "{} calls need {need} approvals and only {can} of you may approve: /grant NAME approve, or the deadline denies it",
                request.kind.name()
            )));
        }
        let _ = notices.send(HostNotice::ApprovalNeeded {
            request,
            agent: agent.clone(),
        });
    });
}

/// What `ai.execution.started` tells the room of a queued turn.
pub(super) struct TurnMeta {
    pub(super) text: String,
    origin: String,
}

/// Drives a room's running sessions for the relay's room.
pub struct HostBridge {
    pub(super) room: Room,
    pub(super) events: RoomEvents,
    /// The member the host's plain prompts and untargeted suggestions go
    /// to: the last one addressed.
    pub(super) focus: String,
    pub(super) client: RelayClient,
    pub(super) codec: RoomCodec,
    policy: SuggestionPolicy,
    pub(super) notices: mpsc::UnboundedSender<HostNotice>,
    pending: HashMap<String, Suggestion>,
    /// Who made each pending suggestion (name, role and connection, from
    /// the roster and the relay's stamp): an accepted one's spend is theirs.
    authors: HashMap<String, String>,
    /// Queued and running turns, by correlation id.
    pub(super) turns: HashMap<String, TurnMeta>,
    /// The room's streams of the turns being published, by prompt id
    /// (members' turns run at once).
    streams: HashMap<String, TurnStream>,
    quit: bool,
    pub(super) keys: Option<HostKeys>,
    /// `--knock`: who waits to be let in (`None`: everyone with an invite
    /// comes in).
    door: Option<Door>,
    /// Mints personal invites while the room runs (`/invite NAME ROLE`),
    /// and whether they say `cohosts://`.
    pub(super) mint: Option<(crate::invite_mint::InviteMint, bool)>,
    roster: BTreeMap<u64, Participant>,
    /// Participants the host removed, by connection: their frames are
    /// refused from then on, whatever the relay forwards.
    kicked: BTreeMap<u64, String>,
    /// Participants' frames already taken (a copy is a replay: a replayed
    /// suggestion must never run the agent twice).
    replays: cohost_share::Replays,
    interrupts: SuggestionPolicy,
    /// What the room's members asked each other (its bridge), to show.
    bridge_notes: Option<mpsc::UnboundedReceiver<BridgeNote>>,
    /// Who may approve besides the host, the quorum, the open ballots.
    pub(super) gate: SharedGate,
    /// The room is to hear the grants again (they changed, or someone
    /// joined who has not heard them).
    grants_due: bool,
    /// The room is to hear who its members are (someone joined a room of
    /// several agents).
    pub(super) members_due: bool,
    /// Someone's key was bound, left or was removed: the room gets the
    /// new `key.roster`.
    pub(super) roster_due: bool,
    /// Each member's turns, for `/handoff`.
    pub(super) log: HandoffLog,
    /// What `/add` opens members with, `/drop` and `/keep` tidy with
    /// (`None`: the room's members are fixed).
    pub(super) setup: Option<MemberSetup>,
    /// The room as it is now, for the front end beside the bridge.
    pub(super) room_now: tokio::sync::watch::Sender<Room>,
    /// Members running on participants' machines (`--guest-agents`).
    pub(super) guests: super::host_guest_list::Guests,
    /// Frames to send once the event at hand is handled (built where
    /// sending cannot wait).
    pub(super) outbox: Vec<Result<Frame, ShareError>>,
}

impl HostBridge {
    /// A bridge for one running session connected as HOST. When the
    /// session's approvals are answered through its handle, each request
    /// reaches the notices and [`HostInput::Approve`] answers it.
    pub fn new(
        session: RunningSession,
        client: RelayClient,
        policy: SuggestionPolicy,
        notices: mpsc::UnboundedSender<HostNotice>,
    ) -> Self {
        let name = session.descriptor().id.clone();
        HostBridge::for_room(Room::of_one(name, session), client, policy, notices)
    }

    /// A bridge for a room of several agents: each member's events reach
    /// the room tagged with its name, `@NAME TEXT` prompts one member.
    pub fn for_room(
        room: Room,
        client: RelayClient,
        policy: SuggestionPolicy,
        notices: mpsc::UnboundedSender<HostNotice>,
    ) -> Self {
        let solo = room.members().len() == 1;
        let gate: SharedGate = Arc::default();
        for m in room.members() {
            watch_approvals(m, (!solo).then(|| m.name.clone()), &notices, &gate);
        }
        let events = room.subscribe_new();
        let focus = room
            .members()
            .first()
            .map(|m| m.name.clone())
            .unwrap_or_default();
        let room_id = client.room_id().clone();
        let (keys, codec): (Option<HostKeys>, Arc<dyn PayloadCodec>) =
            match HostKeys::generate(room_id.clone()) {
                Ok(keys) => {
                    let codec = keys.codec();
                    (Some(keys), codec)
                }
                Err(e) => {
                    let why = format!("no room key ({e}); nothing is shared");
                    let _ = notices.send(HostNotice::Room(why.clone()));
                    (None, Arc::new(NoKeys(why)))
                }
            };
        let codec = RoomCodec::with_codec(room_id, codec).as_role(Role::Host);
        let room_now = room.clone();
        HostBridge {
            room,
            events,
            focus,
            client,
            codec,
            policy,
            notices,
            pending: HashMap::new(),
            authors: HashMap::new(),
            turns: HashMap::new(),
            streams: HashMap::new(),
            quit: false,
            keys,
            door: None,
            mint: None,
            roster: BTreeMap::new(),
            kicked: BTreeMap::new(),
            replays: cohost_share::Replays::default(),
            interrupts: SuggestionPolicy::Ask,
            bridge_notes: None,
            gate,
            grants_due: false,
            members_due: false,
            roster_due: false,
            log: HandoffLog::default(),
            setup: None,
            room_now: tokio::sync::watch::Sender::new(room_now),
            guests: super::host_guest_list::Guests::default(),
            outbox: Vec::new(),
        }
    }

    /// Calls of some kinds need several approvals (`--quorum execute=2`):
    /// the host's and those of participants it grants approval to.
    pub fn with_quorum(self, rules: Vec<cohost_share::QuorumRule>) -> Self {
        self.gate().set_quorum(rules);
        self
    }

    fn gate(&self) -> std::sync::MutexGuard<'_, ApprovalGate> {
        self.gate.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The room's budget (its members share one), when it has one.
    fn budget(&self) -> Option<&cohost_session::SharedBudget> {
        self.room.members().iter().find_map(|m| m.session.budget())
    }

    /// Whether the room has one agent (whose events name no member, as a
    /// session of one agent always did).
    pub(super) fn solo(&self) -> bool {
        self.room.members().len() == 1 && self.guests.members.is_empty()
    }

    /// The same bridge whose members `/add`, `/drop` and `/keep` can
    /// change, as `setup` says.
    pub fn with_members(mut self, setup: MemberSetup) -> Self {
        self.setup = Some(setup);
        self
    }

    /// The room as it is from now on (members added, dropped, kept), for
    /// a front end beside the bridge.
    pub fn room_now(&self) -> tokio::sync::watch::Receiver<Room> {
        self.room_now.subscribe()
    }

    /// The same bridge with these end-to-end keys and the invites issued
    /// with them (a host that minted its invites before creating the
    /// bridge).
    pub fn with_keys(mut self, keys: HostKeys) -> Self {
        let room = self.codec.room().clone();
        self.codec = RoomCodec::with_codec(room, keys.codec())
            .as_role(Role::Host)
            .with_sanitizer(self.codec.sanitizer().clone());
        self.keys = Some(keys);
        self
    }

    /// Everything the bridge says to the room passes `sanitizer` (the front
    /// end's, which knows this machine's secret values) before it is
    /// sealed: the host's chat, the members' turns, every notice.
    pub fn with_sanitizer(mut self, sanitizer: Arc<cohost_core::sanitize::Sanitizer>) -> Self {
        self.codec = self.codec.clone().with_sanitizer(sanitizer);
        self
    }

    /// Everyone who opens an invite waits until the host answers
    /// (`/admit NAME`, `/refuse NAME`), at most `timeout` (then refused).
    /// The room moves to a key no invite carries first, so nothing said in
    /// it opens for someone waiting.
    pub fn with_knock(mut self, timeout: std::time::Duration) -> Result<Self, CodecError> {
        let Some(keys) = self.keys.as_ref() else {
            return Err(CodecError::Other(
                "the room has no keys, so it cannot keep anyone at the door".into(),
            ));
        };
        super::knock::start(&keys.codec())?;
        self.door = Some(Door::new(timeout));
        Ok(self)
    }

    /// Show the room what its members ask each other through `notes`
    /// (the room's bridge): each asked turn under who asked, each note
    /// a member posts as chat.
    pub fn with_bridge_notes(mut self, notes: mpsc::UnboundedReceiver<BridgeNote>) -> Self {
        self.bridge_notes = Some(notes);
        self
    }

    /// What to do with a co-driver's interrupt request (default: ask).
    pub fn with_interrupt_policy(mut self, policy: SuggestionPolicy) -> Self {
        self.interrupts = policy;
        self
    }

    /// The keys of a new invite to this room for `role`, personal when it
    /// has a `name` (`None`: no keys, so nothing is shared).
    pub fn issue_invite(&mut self, role: Role, name: Option<&str>) -> Option<InviteKeys> {
        self.keys.as_mut().and_then(|k| k.issue(role, name).ok())
    }

    pub(super) fn notify(&self, n: HostNotice) {
        let _ = self.notices.send(n);
    }

    /// Run until `Quit`, the inputs close, or the room closes. Returns the
    /// room (its sessions still running: the caller ends them).
    pub async fn run(mut self, mut inputs: mpsc::UnboundedReceiver<HostInput>) -> Room {
        // The host's commands, the room's frames and the members' events,
        // each acted on as it comes: turns run in the sessions' own tasks.
        while !self.quit {
            tokio::select! {
                ev = self.events.recv() => match ev {
                    Some(Ok(e)) => self.publish(e).await,
                    None => {
                        self.notify(HostNotice::Room("the session ended".into()));
                        self.quit = true;
                    }
                    Some(Err(lagged)) => {
                        self.notify(HostNotice::Room(format!("the room fell behind {lagged}")));
                        // Only that member's subscription was cut off.
                        if let Some(m) = self.room.member(&lagged.member) {
                            self.events.follow(m);
                        }
                    }
                },
                input = inputs.recv() => match input {
                    Some(i) => self.handle_input(i).await,
                    None => self.quit = true,
                },
                ev = self.client.recv() => match ev {
                    Some(ev) => self.handle_relay(ev).await,
                    None => self.quit = true,
                },
                Some(note) = next_note(&mut self.bridge_notes) => self.bridge_note(note).await,
                // A knock nobody answered runs out (never, with nobody
                // at the door).
                () = super::participant::until(self.door.as_ref().and_then(Door::next_deadline)) => {
                    self.knocks_expired().await;
                }
            }
            for frame in std::mem::take(&mut self.outbox) {
                deliver(&self.client, &self.notices, frame).await;
            }
            if std::mem::take(&mut self.grants_due) {
                self.send_grants().await;
            }
            if std::mem::take(&mut self.members_due) {
                self.send_members().await;
            }
            if std::mem::take(&mut self.roster_due) {
                self.send_roster().await;
            }
        }
        deliver(&self.client, &self.notices, self.codec.room_close()).await;
        self.await_close().await;
        self.room
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

    /// Queue a turn on member `member`; the room hears of it when it starts.
    pub(super) fn queue(
        &mut self,
        member: &str,
        text: String,
        origin: String,
        correlation_id: Option<String>,
    ) {
        self.queue_by(member, text, origin, correlation_id, cohost_session::HOST);
    }

    /// [`HostBridge::queue`] for a turn caused by `by` (whose accepted
    /// suggestion it is): the budget's spend of the turn is theirs.
    pub(super) fn queue_by(
        &mut self,
        member: &str,
        text: String,
        origin: String,
        correlation_id: Option<String>,
        by: &str,
    ) {
        if self.is_guest(member) {
            let cid =
                correlation_id.unwrap_or_else(|| format!("c-{}", cohost_core::ids::random_tag()));
            self.log.prompted(member, &cid, &text);
            return self.prompt_guest(member, text, cid, by);
        }
        let session = match self.room.named(member) {
            Ok(m) => m.session.clone(),
            Err(e) => return self.notify(HostNotice::Room(e.said())),
        };
        let mut input = PromptInput {
            text: text.clone(),
            correlation_id,
            ..PromptInput::default()
        };
        if session.busy() {
            // While a turn runs the text steers it, or waits in the queue
            // under this correlation id (the session's `steered` / `queue`
            // event says which; the meta names the queued turn when it starts).
            let cid = input
                .correlation_id
                .get_or_insert_with(|| format!("c-{}", cohost_core::ids::random_tag()))
                .clone();
            self.log.prompted(member, &cid, &text);
            self.turns.insert(cid, TurnMeta { text, origin });
            // The host's own line is the session user's: no `by`.
            let by = (by != cohost_session::HOST).then(|| by.to_owned());
            let notices = self.notices.clone();
            tokio::spawn(async move {
                if let Err(e) = session.steer(input, by.as_deref()).await {
                    let _ = notices.send(HostNotice::Room(format!("the prompt did not run: {e}")));
                }
            });
            return;
        }
        // The spend of the turn is the prompt's author's (the host, or the
        // participant whose suggestion was accepted).
        match session.prompt_by(input, by) {
            Ok(turn) => {
                self.log.prompted(member, turn.correlation_id(), &text);
                self.turns
                    .insert(turn.correlation_id().to_string(), TurnMeta { text, origin });
            }
            Err(e) => self.notify(HostNotice::Room(format!("the prompt did not run: {e}"))),
        }
    }

    /// A turn the room's bridge queued (one member asking another): the
    /// room hears of it as `text` when it starts.
    pub(super) fn asked(&mut self, correlation_id: &str, text: String) {
        self.turns.insert(
            correlation_id.to_owned(),
            TurnMeta {
                text,
                origin: "host".into(),
            },
        );
    }

    /// One event of a member: to the room, then to the host.
    async fn publish(&mut self, mut e: Event) {
        if matches!(e.body, EventBody::Queue(_)) {
            // The session's queue belongs to no turn (a stream of its own
            // would show the room an empty turn); the room sees each
            // queued prompt's turn when it starts.
            return self.notify(HostNotice::Event(e));
        }
        if !self.turns.contains_key(&e.correlation_id) {
            // A bridge turn's note is sent before its prompt, but may wait
            // in its channel behind the turn's first event.
            while let Some(n) = self.bridge_notes.as_mut().and_then(|r| r.try_recv().ok()) {
                self.bridge_note(n).await;
            }
        }
        let member = e.agent.clone().unwrap_or_else(|| self.focus.clone());
        self.log.saw(&e);
        if self.solo() {
            // One agent: the wire and the host's notices as they always were.
            e.agent = None;
        } else {
            // One agent of the host's and members on other machines.
            e.agent.get_or_insert_with(|| member.clone());
        }
        let provider = self
            .room
            .member(&member)
            .map(|m| m.session.descriptor().id.clone())
            .unwrap_or_default();
        let (text, origin) = match self.turns.get(&e.correlation_id) {
            Some(m) => (m.text.as_str(), m.origin.as_str()),
            None => ("", "host"),
        };
        let started = Started {
            text,
            provider: &provider,
            origin,
        };
        publish(
            &self.client,
            &self.codec,
            &self.notices,
            &mut self.streams,
            &e,
            started,
        )
        .await;
        if let EventBody::ToolApprovalDecided { tool_id, .. } = &e.body {
            // However it was decided (here, the deadline, an interrupt).
            self.gate().closed(tool_id);
        }
        let ended = match &e.body {
            EventBody::StreamEnd { reason, .. } => Some(*reason),
            _ => None,
        };
        let (correlation, prompt) = (e.correlation_id.clone(), e.prompt_id.clone());
        self.notify(HostNotice::Event(e));
        if let Some(reason) = ended {
            self.streams.remove(&prompt);
            self.turns.remove(&correlation);
            self.notify(HostNotice::TurnDone(reason));
        }
    }

    async fn handle_input(&mut self, input: HostInput) {
        match input {
            HostInput::Prompt(text) => self.prompt(&text),
            HostInput::Compare(text) => self.compare(&text),
            HostInput::Members => self.list_members(),
            HostInput::AddMember(agent) => self.add_member(&agent).await,
            HostInput::DropMember(name) => self.drop_member(&name).await,
            HostInput::Keep { name, merge } => self.keep(&name, merge).await,
            HostInput::Handoff { to, text } => self.handoff(&to, &text).await,
            HostInput::Accept(id) => self.decide_suggestion(&id, true, "host").await,
            HostInput::Reject(id) => self.decide_suggestion(&id, false, "host").await,
            HostInput::Approve { tool_id, allow } => {
                self.vote(tool_id.as_deref(), &Voter::Host, allow, None);
            }
            HostInput::Grant { who, kinds } => self.grant(&who, kinds).await,
            HostInput::Revoke(who) => self.revoke(&who).await,
            HostInput::Grants => {
                let g = self.gate().snapshot();
                let mut said: Vec<String> = g
                    .grants
                    .iter()
                    .map(|g| {
                        format!(
                            "#{} {} ({})",
                            g.conn_id,
                            inert(&g.name),
                            kinds_text(&g.kinds)
                        )
                    })
                    .collect();
                if said.is_empty() {
                    said.push("only the host approves".into());
                }
                for r in &g.quorum {
                    said.push(format!(
                        "{} calls need {} approvals",
                        r.kind.name(),
                        r.approvals
                    ));
                }
                self.notify(HostNotice::Room(said.join("; ")));
            }
            HostInput::Interrupt => self.interrupt(),
            HostInput::InterruptMember(name) => self.interrupt_member(&name),
            HostInput::InterruptAll => {
                self.room.interrupt_all();
                self.interrupt_guests();
            }
            HostInput::Chat(text) => {
                let chat = Message::Chat(Chat {
                    from: Some("host".into()),
                    text,
                    members: None,
                });
                let frame = self.codec.room_frame(&chat);
                deliver(&self.client, &self.notices, frame).await;
            }
            HostInput::Kick(who) => self.kick(&who).await,
            HostInput::Admit(who) => self.admit(&who).await,
            HostInput::Invite { name, role } => self.invite(&name, role).await,
            HostInput::Refuse(who) => self.refuse(&who).await,
            HostInput::Who => {
                let names: Vec<String> = self.roster.values().map(describe).collect();
                let mut said = if names.is_empty() {
                    "nobody else is in the room".to_string()
                } else {
                    format!("in the room: {}", names.join(", "))
                };
                let waiting = self.door.as_ref().map(Door::waiting).unwrap_or_default();
                if !waiting.is_empty() {
                    said.push_str(&format!(
                        "; at the door: {} (/admit NAME or /refuse NAME)",
                        waiting.join(", ")
                    ));
                }
                self.notify(HostNotice::Room(said));
            }
            HostInput::Budget(arg) => {
                let said =
                    crate::spend_text::budget_command(self.budget(), &arg).unwrap_or_else(|e| {
                        match e.suggested_fix {
                            Some(fix) => format!("{} ({fix})", e.message),
                            None => e.message,
                        }
                    });
                self.notify(HostNotice::Room(said));
            }
            HostInput::Spend => {
                let said = crate::spend_text::spend_command(self.budget());
                self.notify(HostNotice::Room(said));
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
        if let Err(e) = self.send_kick(p.conn_id).await {
            self.notify(HostNotice::Room(format!("the kick was not sent: {e}")));
            return;
        }
        self.roster.remove(&p.conn_id);
        self.kicked.insert(p.conn_id, describe(&p));
        self.guests_gone(p.conn_id).await;
        if self.gate().revoke(p.conn_id).is_some() {
            self.send_grants().await;
        }
        let Some(keys) = self.keys.as_mut() else {
            return;
        };
        match keys.kick(p.conn_id) {
            Ok((epoch, rotate, open)) => {
                if let Some(m) = rotate {
                    let frame = self.codec.room_frame(&m);
                    deliver(&self.client, &self.notices, frame).await;
                }
                self.roster_due = true;
                let shared = if open {
                    "; it came in through an open invite, which is now revoked for everyone \
                     holding it (personal invites: cohost share --invite NAME=ROLE)"
                } else {
                    ""
                };
                self.notify(HostNotice::Room(format!(
                    "removed {}: its invite is revoked and the room key rotated (epoch {epoch}){shared}",
                    describe(&p)
                )));
            }
            Err(e) => self.notify(HostNotice::Room(format!(
                "removed {}, but the room key did not rotate: {e}",
                describe(&p)
            ))),
        }
    }

    /// Ask the relay to remove connection `conn` and revoke its invite.
    /// (`&mut`: a shared borrow of the bridge, held across the send, would
    /// make the bridge's future not `Send`.)
    async fn send_kick(&mut self, conn: u64) -> Result<(), String> {
        let kick = Frame::control_frame(
            FrameType::RoomKick,
            self.codec.room().as_str(),
            None,
            &Kick { conn_id: conn },
        )
        .map_err(|e| e.to_string())?;
        self.client.send(&kick).await.map_err(|e| e.to_string())
    }

    /// Accept or reject suggestion `id`; `decider` is who did, for the
    /// record (`host`, or `policy` when the room's policy decided).
    async fn decide_suggestion(&mut self, id: &str, accept: bool, decider: &str) {
        let Some(s) = self.pending.remove(id) else {
            self.notify(HostNotice::Room(format!("no pending suggestion {id}")));
            return;
        };
        let author = self.authors.remove(id);
        let member = s.to.clone().unwrap_or_else(|| self.focus.clone());
        let noted = Note::SuggestionDecided {
            id: s.suggestion_id.clone(),
            accepted: accept,
            decider: decider.to_owned(),
        };
        host_record::note(&self.room, Some(&member), &noted);
        let decision = SuggestionDecision {
            suggestion_id: s.suggestion_id.clone(),
            accepted: accept,
            prompt_id: None,
            agent: (accept && !self.solo()).then(|| member.clone()),
        };
        let frame = self
            .codec
            .room_frame(&Message::SuggestionDecided(decision.clone()));
        deliver(&self.client, &self.notices, frame).await;
        self.notify(HostNotice::SuggestionDecided(decision));
        if accept {
            let id = s.suggestion_id.clone();
            let by = author
                .or(s.from.clone())
                .unwrap_or_else(|| "a co-driver".into());
            self.queue_by(&member, s.text, id.clone(), Some(id), &by);
        }
    }

    /// Count a vote on a tool approval; a finished ballot answers the
    /// session whose call it is. A participant's counted vote goes into
    /// the record first, with the frame it `signed`.
    fn vote(
        &mut self,
        tool_id: Option<&str>,
        voter: &Voter,
        allow: bool,
        signed: Option<cohost_record::AuthorSig>,
    ) {
        let outcome = self.gate().vote(tool_id, voter, allow);
        if let Voter::Participant(p) = voter {
            let counted = match &outcome {
                VoteOutcome::Decided {
                    tool_id, member, ..
                } => Some((tool_id.clone(), member.clone())),
                VoteOutcome::Counted { tool_id, .. } => {
                    Some((tool_id.clone(), self.gate().member_of(tool_id)))
                }
                VoteOutcome::Refused(_) => None,
            };
            if let Some((tool_id, member)) = counted {
                let noted = Note::ApprovalVote {
                    tool_id,
                    allow,
                    voter: describe(p),
                    signed,
                };
                host_record::note(&self.room, member.as_deref(), &noted);
            }
        }
        match outcome {
            VoteOutcome::Decided {
                tool_id,
                member,
                allow,
                deciders,
            } => {
                let decision = ballot_decision(allow, deciders);
                let decided = match member.as_deref().and_then(|m| self.room.member(m)) {
                    Some(m) => m.session.decide(Some(&tool_id), decision),
                    None => self
                        .room
                        .members()
                        .iter()
                        .any(|m| m.session.decide(Some(&tool_id), decision.clone())),
                };
                if !decided {
                    self.notify(HostNotice::Room(format!(
                        "the approval of {} was no longer pending",
                        inert(&tool_id)
                    )));
                }
            }
            VoteOutcome::Counted {
                tool_id,
                have,
                need,
            } => self.notify(HostNotice::Room(format!(
                "{} approved {} ({have} of {need} approvals); waiting for {} more",
                match voter {
                    Voter::Host => "you".to_string(),
                    Voter::Participant(p) => describe(p),
                },
                inert(&tool_id),
                need - have
            ))),
            VoteOutcome::Refused(why) => self.notify(HostNotice::Room(why)),
        }
    }

    /// `/grant WHO approve [KINDS]`.
    async fn grant(&mut self, who: &str, kinds: Vec<cohost_core::ToolKind>) {
        let Some(p) = self.find(who) else {
            return self.notify(HostNotice::Room(format!(
                "nobody named {} is in the room; /who lists them",
                inert(who)
            )));
        };
        self.gate().grant(&p, kinds.clone());
        self.notify(HostNotice::Room(format!(
            "{} may now approve tool calls ({}); /revoke {} takes it back",
            describe(&p),
            kinds_text(&kinds),
            p.conn_id
        )));
        self.send_grants().await;
    }

    /// `/revoke WHO`.
    async fn revoke(&mut self, who: &str) {
        let Some(p) = self.find(who) else {
            return self.notify(HostNotice::Room(format!(
                "nobody named {} is in the room; /who lists them",
                inert(who)
            )));
        };
        let had = self.gate().revoke(p.conn_id).is_some();
        self.notify(HostNotice::Room(if had {
            format!("{} may no longer approve tool calls", describe(&p))
        } else {
            format!("{} had no grant to approve", describe(&p))
        }));
        if had {
            self.send_grants().await;
        }
    }

    /// Tell the room whose keys are whose (`key.roster`).
    pub(super) async fn send_roster(&mut self) {
        if let Some(roster) = self.keys.as_ref().map(HostKeys::roster) {
            let frame = self.codec.room_frame(&roster);
            deliver(&self.client, &self.notices, frame).await;
        }
    }

    /// Tell the room who may approve what.
    async fn send_grants(&mut self) {
        let grants = Message::ApprovalGrants(self.gate().snapshot());
        let frame = self.codec.room_frame(&grants);
        deliver(&self.client, &self.notices, frame).await;
    }

    /// A participant's frame opened, once: a copy of one already taken is
    /// refused as a replay. Returns who signed it.
    fn take(&mut self, f: &Frame) -> Result<(Option<Message>, Option<Sender>), ShareError> {
        let (message, sender) = self.codec.receive(f)?;
        if !self.replays.first_time(f, sender.as_ref()) {
            return Err(ShareError::Codec {
                kind: f.kind(),
                source: CodecError::Replayed,
            });
        }
        Ok((message, sender))
    }

    /// Who a participant's frame is from: the name the host bound its key
    /// to (format v2), never the relay's stamp; the stamp only for a room
    /// without keys.
    fn signed_name(&self, f: &Frame, sender: Option<&Sender>) -> String {
        match sender.map(|s| &s.signer) {
            Some(Signer::Participant(b)) => b.label(),
            Some(Signer::Host) => "host".into(),
            _ => super::participant::stamped_name(f),
        }
    }

    /// The participant a signed frame is from, as the roster knows it
    /// (named as the host bound it).
    fn signed_participant(&self, f: &Frame, sender: Option<&Sender>) -> Option<Participant> {
        let conn = match sender.map(|s| &s.signer) {
            Some(Signer::Participant(b)) => b.conn_id,
            Some(_) => return None,
            None => f.sender(),
        };
        self.roster.get(&conn).cloned()
    }

    async fn handle_relay(&mut self, ev: ClientEvent) {
        match ev {
            ClientEvent::Frame(f)
                if f.kind().is_application() && self.kicked.contains_key(&f.sender()) =>
            {
                // The relay revoked its invite; a frame from it now is the
                // relay's doing (or a bug), and the host does not take it.
                let who = &self.kicked[&f.sender()];
                self.notify(HostNotice::Room(format!(
                    "refused a {} frame from {who}, removed from the room earlier",
                    f.kind()
                )));
            }
            ClientEvent::Frame(f) => match (f.kind(), self.take(&f)) {
                (FrameType::PromptSuggested, Ok((Some(Message::Suggestion(mut s)), sender))) => {
                    // The record keeps what the participant signed, before
                    // the host reads a one-agent room's `@word` into it.
                    let said = (s.text.clone(), s.to.clone());
                    // The key that signed it names the sender (the host
                    // bound it to an invite), not the payload or the relay.
                    s.from = Some(self.signed_name(&f, sender.as_ref()));
                    s.to = s.to.map(|t| cohost_core::sanitize::inert_line(&t));
                    if self.solo() {
                        if let Some(to) = s.to.take_if(|t| self.room.member(t).is_none()) {
                            // One agent: `@word` was part of the prompt (an
                            // agent's own `@file` mention), as typed.
                            s.text = format!("@{to} {}", s.text);
                        }
                    }
                    self.pending.insert(s.suggestion_id.clone(), s.clone());
                    let author = self
                        .signed_participant(&f, sender.as_ref())
                        .map(|p| describe(&p))
                        .unwrap_or_else(|| s.from.clone().unwrap_or_default());
                    self.authors.insert(s.suggestion_id.clone(), author.clone());
                    let member = s.to.clone().unwrap_or_else(|| self.focus.clone());
                    let noted = Note::Suggestion {
                        id: s.suggestion_id.clone(),
                        author,
                        text: said.0,
                        to: said.1,
                        signed: host_record::author_sig(sender.as_ref()),
                    };
                    host_record::note(&self.room, Some(&member), &noted);
                    if let Some(to) =
                        s.to.as_deref()
                            .filter(|t| self.room.member(t).is_none() && !self.is_guest(t))
                    {
                        // For nobody here: never run it on another member.
                        self.notify(HostNotice::Room(format!(
                            "{} suggested a prompt for {to}, who is not in this room; rejected",
                            s.from.as_deref().unwrap_or("a co-driver")
                        )));
                        self.decide_suggestion(&s.suggestion_id, false, "policy")
                            .await;
                        return;
                    }
                    self.notify(HostNotice::Suggested(s.clone()));
                    match self.policy {
                        SuggestionPolicy::Ask => {}
                        SuggestionPolicy::Accept => {
                            self.decide_suggestion(&s.suggestion_id, true, "policy")
                                .await;
                        }
                        SuggestionPolicy::Reject => {
                            self.decide_suggestion(&s.suggestion_id, false, "policy")
                                .await;
                        }
                    }
                }
                (_, Ok((Some(Message::Chat(mut c)), sender))) => {
                    c.from = Some(self.signed_name(&f, sender.as_ref()));
                    // Only the host says who the room's members are.
                    c.members = None;
                    self.notify(HostNotice::Chat(c));
                }
                (FrameType::KeyAnnounce, Ok((Some(Message::KeyAnnounce(a)), Some(sender)))) => {
                    self.announced(&f, &sender, &a).await;
                }
                (FrameType::ApprovalVote, Ok((Some(Message::ApprovalVote(v)), sender))) => {
                    match self.signed_participant(&f, sender.as_ref()) {
                        Some(p) => {
                            let signed = host_record::author_sig(sender.as_ref());
                            self.vote(
                                v.tool_id.as_deref(),
                                &Voter::Participant(p),
                                v.allow,
                                signed,
                            );
                        }
                        None => self.notify(HostNotice::Room(format!(
                            "refused an approval from {}, who is not in the room",
                            self.signed_name(&f, sender.as_ref())
                        ))),
                    }
                }
                // Under the room's policy; between turns nothing stops. A
                // co-driver cannot say which member: every one stops.
                (FrameType::InterruptRequest, Ok((Some(_), _)))
                    if interrupt_policy(self.interrupts, &self.notices, &f) =>
                {
                    self.room.interrupt_all();
                    self.interrupt_guests();
                }
                (FrameType::MemberOffer, Ok((Some(Message::MemberOffer(o)), sender))) => {
                    self.offered(&f, sender.as_ref(), &o).await;
                }
                // A member's turn on its owner's machine (the codec let it
                // through only for a member the host admitted from there).
                (kind, Ok((Some(m), Some(sender))))
                    if kind.is_member_turn() && matches!(sender.signer, Signer::Participant(_)) =>
                {
                    self.guest_turn(m);
                }
                (FrameType::PresenceJoin | FrameType::PresenceLeave, _) => {
                    if let Some(p) = Presence::from_frame(&f) {
                        let left = match &p {
                            Presence::Left { who } => Some(who.conn_id),
                            _ => None,
                        };
                        self.presence(p);
                        if let Some(conn) = left {
                            self.guests_gone(conn).await;
                        }
                    }
                }
                (kind, Err(e)) => {
                    self.notify(HostNotice::Room(format!("ignored a {kind} frame: {e}")));
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
            // Streams are the host's own: nothing of them is missing here.
            ClientEvent::Resync(_)
            | ClientEvent::Error(_)
            | ClientEvent::Missing { .. }
            | ClientEvent::Late(_) => {}
            ClientEvent::Disconnected { reason } => self.notify(HostNotice::Room(format!(
                "relay connection lost ({reason}); reconnecting"
            ))),
            ClientEvent::Closed { reason } => {
                self.notify(HostNotice::Room(format!("room closed: {reason}")));
                self.quit = true;
            }
        }
    }

    /// A participant announced its keys: bound to the invite it proves it
    /// holds, it gets the room's newer keys and the room the new roster;
    /// refused, the host is told why and it gets nothing.
    async fn announced(&mut self, f: &Frame, sender: &Sender, a: &cohost_share::KeyAnnounce) {
        let stamped = super::participant::stamped_name(f);
        let (Some(keys), Some(door)) = (self.keys.as_ref(), self.door.as_mut()) else {
            return self.bind(f.sender(), sender, a, &stamped).await;
        };
        if !door.must_knock(&sender.key) {
            return self.bind(f.sender(), sender, a, &stamped).await;
        }
        // At the door: checked as a binding would be, bound on `/admit`.
        let (said, waits) = match keys.check(f.sender(), sender, a, &stamped) {
            Ok(who) => {
                let knock = Knock {
                    sender: sender.clone(),
                    announce: a.clone(),
                    stamped,
                    who,
                };
                (
                    door.wait(f.sender(), knock, tokio::time::Instant::now()),
                    true,
                )
            }
            Err(why) => (
                format!("refused the keys of {stamped}: {why}; it sees nothing of the room"),
                false,
            ),
        };
        self.notify(HostNotice::Room(said));
        if waits {
            // They hear that they wait, and for how long at most.
            self.answer_door(f.sender(), DoorAnswer::Waiting).await;
        }
    }

    /// Tell connection `to` the host's answer at the door (`key.door`,
    /// under the invite's key: they hold no other).
    async fn answer_door(&mut self, to: u64, answer: DoorAnswer) {
        let timeout_secs = (answer == DoorAnswer::Waiting)
            .then(|| self.door.as_ref().map(|d| d.timeout().as_secs()))
            .flatten();
        let frame = self.codec.room_frame(&Message::KeyDoor(KeyDoor {
            to,
            answer,
            timeout_secs,
        }));
        deliver(&self.client, &self.notices, frame).await;
    }

    /// Knocks nobody answered in time: refused as if `/refuse`d, and the
    /// host is told.
    async fn knocks_expired(&mut self) {
        let Some(door) = self.door.as_mut() else {
            return;
        };
        let waited = super::knock::timeout_text(door.timeout());
        for (conn, k) in door.expired(tokio::time::Instant::now()) {
            let why = format!("nobody answered {} within {waited}", k.who.label());
            self.turn_away(conn, k, DoorAnswer::TimedOut, &why).await;
        }
    }

    /// `/admit WHO`: the knock is answered with the room's keys.
    async fn admit(&mut self, who: &str) {
        let Some((conn, k)) = self.door.as_mut().and_then(|d| d.take(who)) else {
            return self.nobody_knocks(who);
        };
        if let Some(d) = self.door.as_mut() {
            d.admitted(k.sender.key);
        }
        self.door_record("admitted", &k);
        self.notify(HostNotice::Room(format!("let {} in", k.who.label())));
        self.answer_door(conn, DoorAnswer::Admitted).await;
        self.bind(conn, &k.sender, &k.announce, &k.stamped).await;
    }

    /// `/refuse WHO`: the knock's key never opens the room; a personal
    /// invite is revoked with it (at the relay too), an open one keeps
    /// working for the others who hold it.
    async fn refuse(&mut self, who: &str) {
        let Some((conn, k)) = self.door.as_mut().and_then(|d| d.take(who)) else {
            return self.nobody_knocks(who);
        };
        let why = format!("refused {}", k.who.label());
        self.turn_away(conn, k, DoorAnswer::Refused, &why).await;
    }

    /// Send knock `k` on `conn` away (`answer`: refused or timed out): it
    /// is told first, then its key is removed (and a personal invite
    /// revoked, at the relay too, which disconnects it); the host hears
    /// `why` and what became of the invite.
    async fn turn_away(&mut self, conn: u64, k: Knock, answer: DoorAnswer, why: &str) {
        if self.keys.is_none() {
            return;
        }
        // Told before the relay drops a personal invite's connection.
        self.answer_door(conn, answer).await;
        let Some(keys) = self.keys.as_mut() else {
            return;
        };
        let personal = keys.refuse(k.sender.key, &k.announce);
        let change = if answer == DoorAnswer::TimedOut {
            "timed_out"
        } else {
            "refused"
        };
        self.door_record(change, &k);
        let said = if personal {
            match self.send_kick(conn).await {
                Ok(()) => format!("{why}: its personal invite is revoked"),
                Err(e) => format!(
                    "{why}: its key opens nothing, but the relay was not told to revoke its invite: {e}"
                ),
            }
        } else {
            format!(
                "{why}: that key never opens the room; the open invite it used still works for others (personal invites: --invite NAME=ROLE)"
            )
        };
        self.notify(HostNotice::Room(said));
    }

    /// The host's answer to a knock, in every member's record: who let
    /// whom in, or turned them away.
    fn door_record(&self, change: &str, k: &Knock) {
        let noted = Note::Presence {
            change: change.into(),
            name: k.who.name.clone(),
            role: k.who.role.as_str().to_ascii_lowercase().replace('_', "-"),
            conn_id: k.who.conn_id,
        };
        host_record::note(&self.room, None, &noted);
    }

    fn nobody_knocks(&self, who: &str) {
        self.notify(HostNotice::Room(if self.door.is_some() {
            format!(
                "nobody named {} is at the door; /who lists who waits",
                inert(who)
            )
        } else {
            "this room lets everyone with an invite in (start it with --knock to answer each)"
                .into()
        }));
    }

    /// Bind the keys `a` announced on `conn`: it gets the room's newer
    /// keys and the room the new roster; refused, the host is told why and
    /// it gets nothing.
    async fn bind(
        &mut self,
        conn: u64,
        sender: &Sender,
        a: &cohost_share::KeyAnnounce,
        stamped: &str,
    ) {
        let Some(keys) = self.keys.as_mut() else {
            return;
        };
        let admitted = match keys.announced(conn, sender, a, stamped) {
            Ok(admitted) => admitted,
            Err(why) => {
                self.notify(HostNotice::Room(format!(
                    "refused the keys of {stamped}: {why}; it sees nothing of the room"
                )));
                return;
            }
        };
        if let Some(m) = &admitted.rotate {
            let frame = self.codec.room_frame(m);
            deliver(&self.client, &self.notices, frame).await;
        }
        self.roster_due = true;
        // The name the host knows it by from now on (a personal invite's,
        // or the one it gave), for /who, /kick and /grant.
        if let Some(p) = self.roster.get_mut(&conn) {
            let bound = &admitted.who;
            if p.name != bound.name || p.role != bound.role {
                p.name = bound.name.clone();
                p.role = bound.role;
                let who = p.clone();
                self.notify(HostNotice::Presence(Presence::Renamed { who }));
            }
        }
        if admitted.replaced {
            self.notify(HostNotice::Room(format!(
                "{} came back with a new key (a new tab or process); the old one opens nothing now",
                admitted.who.name
            )));
        }
    }

    /// Keep the roster and tell the host: a join of someone known under
    /// another role is a role change.
    fn presence(&mut self, p: Presence) {
        let change = match &p {
            Presence::Joined { who, you: false } => Some(("joined", who)),
            Presence::Left { who } => Some(("left", who)),
            _ => None,
        };
        if let Some((change, who)) = change {
            let noted = Note::Presence {
                change: change.into(),
                name: who.name.clone(),
                role: who.role.as_str().to_ascii_lowercase().replace('_', "-"),
                conn_id: who.conn_id,
            };
            host_record::note(&self.room, None, &noted);
        }
        let p = match p {
            Presence::Joined { who, you } => {
                if !you && self.gate().has_rules() {
                    // Its page shows approval cards only when granted.
                    self.grants_due = true;
                }
                // A room of several agents: whom it may address.
                self.members_due |= !you && !self.solo();
                let before = self.roster.insert(who.conn_id, who.clone());
                match before {
                    Some(b) if b.role != who.role => Presence::RoleChanged { who, from: b.role },
                    _ => Presence::Joined { who, you },
                }
            }
            Presence::Left { who } => {
                self.roster.remove(&who.conn_id);
                self.roster_due = true;
                // A grant is for that connection: back, it is granted again.
                if self.gate().revoke(who.conn_id).is_some() {
                    self.grants_due = true;
                }
                if let Some(k) = self.keys.as_mut() {
                    k.left(who.conn_id);
                }
                if let Some(d) = self.door.as_mut() {
                    d.left(who.conn_id);
                }
                Presence::Left { who }
            }
            other => other,
        };
        self.notify(HostNotice::Presence(p));
    }
}

fn inert(text: &str) -> String {
    cohost_core::sanitize::inert_line(text)
}

/// The next bridge note, or never when the room has no bridge (or it is
/// done), so the bridge's `select!` waits on the rest.
async fn next_note(notes: &mut Option<mpsc::UnboundedReceiver<BridgeNote>>) -> Option<BridgeNote> {
    match notes {
        Some(rx) => match rx.recv().await {
            Some(n) => Some(n),
            None => {
                *notes = None;
                None
            }
        },
        None => std::future::pending().await,
    }
}

/// A fresh suggestion id.
pub fn new_suggestion_id() -> String {
    format!("s-{}", cohost_core::ids::random_tag())
}
