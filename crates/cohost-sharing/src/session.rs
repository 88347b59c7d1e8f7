//! A participant's session in an end-to-end encrypted room (format v2,
//! `docs/sharing-e2e.md`): joins with an invite that carries the room key,
//! the host's public keys and the invite's ticket; makes (or loads) its
//! identity and announces it, with its proof of the invite, on every
//! (re)connect; learns rotated keys and the host's roster; opens and
//! verifies every frame against who may send it, and yields typed
//! [`ParticipantEvent`]s. Rendering is the caller's (line mode in
//! `cohost-cli`'s `cmd/join.rs`, or a terminal UI).
//!
//! A frame that does not open or verify is dropped with one
//! [`ParticipantEvent::Dropped`] and the stream is asked again from the last
//! good chunk (`room.resume`); it never reaches the caller as content.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;
use cohost_core::sanitize::Sanitizer;
use cohost_protocol::{FrameType, Invite, Participant, Role, Welcome};
use cohost_relay::{ClientConfig, ClientEvent, RelayClient};
use cohost_share::e2e::{bind_proof, ticket_id, unwrap_key, Identity};
use cohost_share::intake::{After, Failure, MAX_RETRIES};
use cohost_share::{
    Chat, CodecError, E2e, InterruptRequest, KeyAnnounce, Message, RoomCodec, ShareError, Signer,
    StreamIntake, Suggestion,
};

use super::participant::SendError;

/// How long to wait for the relay's welcome after connecting.
const WELCOME_WAIT: Duration = Duration::from_secs(15);

/// Why joining failed.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    /// The invite does not parse.
    #[error("{0}")]
    Invite(#[from] cohost_protocol::InviteError),
    /// The invite carries no end-to-end keys.
    #[error(
        "this invite has no room key; ask the host for a new invite (cohost share prints them)"
    )]
    NoKey,
    /// The keys in the invite are unusable.
    #[error("the invite's keys are unusable: {0}; ask the host for a new invite")]
    Keys(CodecError),
    /// The relay could not be reached or refused.
    #[error(transparent)]
    Relay(#[from] cohost_relay::ClientError),
    /// Connected, but the relay never welcomed this participant.
    #[error("the relay accepted the connection but sent no welcome within {0:?}; check the relay")]
    NoWelcome(Duration),
    /// The identity file (`--identity`) cannot be read or made.
    #[error(transparent)]
    Identity(#[from] super::identity::IdentityError),
}

/// What a participant sees.
#[derive(Debug)]
pub enum ParticipantEvent {
    /// Connected (or reconnected) and welcomed.
    Welcome(Welcome),
    /// A frame that opened and verified (or a relay frame: presence, pong).
    Frame {
        /// The frame, header as the relay stamped it.
        frame: cohost_protocol::Frame,
        /// Its application message (`None` for relay frames); boxed, as
        /// an event in it is far larger than the other variants.
        message: Option<Box<Message>>,
        /// Who signed it (`None` for relay frames): the host, or a
        /// participant as the host's roster names it.
        from: Option<Signer>,
    },
    /// A stream chunk reported missing that came after all (the relay
    /// sent it late): it opened and verified, and is placed by its chunk
    /// index, out of order.
    Late {
        /// The frame.
        frame: cohost_protocol::Frame,
        /// Its message (boxed, like [`ParticipantEvent::Frame`]'s).
        message: Option<Box<Message>>,
    },
    /// Someone joined or left; the roster is updated.
    Presence {
        /// Joined (true) or left.
        joined: bool,
        /// Who.
        who: Participant,
    },
    /// A frame was dropped: it did not open or verify. Shown once per frame.
    Dropped {
        /// Its type.
        kind: FrameType,
        /// Its stream and chunk, when it had one (asked again).
        at: Option<(String, u64)>,
        /// Why.
        reason: String,
    },
    /// The host handed this participant the key of a newer epoch.
    KeyLearned {
        /// The epoch.
        epoch: u32,
    },
    /// Anything else from the relay connection (resync, refusal, reconnect, close).
    Relay(ClientEvent),
}

/// Joining options.
#[derive(Debug, Clone)]
pub struct JoinOptions {
    /// What this participant's chat lines pass through before they leave
    /// (the front end's sanitizer, handed in as a value).
    pub sanitizer: Arc<Sanitizer>,
    /// Display name sent with key announces and suggestions.
    pub name: Option<String>,
    /// Extra CA certificates (PEM) for `cohosts://` relays.
    pub ca_file: Option<std::path::PathBuf>,
    /// Keep this participant's identity (its signing and key-agreement
    /// keys) in this file, made owner-only on first use, so the host
    /// knows it again across runs; `None`: a fresh identity per process.
    pub identity: Option<std::path::PathBuf>,
}

impl JoinOptions {
    /// No name, the system's CA roots, a fresh identity, and `sanitizer`.
    pub fn new(sanitizer: Arc<Sanitizer>) -> JoinOptions {
        JoinOptions {
            sanitizer,
            name: None,
            ca_file: None,
            identity: None,
        }
    }
}

/// A participant in a room.
pub struct ParticipantSession {
    client: RelayClient,
    codec: RoomCodec,
    e2e: Arc<E2e>,
    /// The invite's secret, proved in every announcement.
    ticket: [u8; 16],
    name: Option<String>,
    sanitizer: Arc<Sanitizer>,
    me: Participant,
    roster: BTreeMap<u64, Participant>,
    /// What each stream took, and what to do when a chunk fails.
    streams: StreamIntake,
    /// Frames outside streams already taken (a copy is a replay).
    replays: cohost_share::Replays,
    queued: std::collections::VecDeque<ParticipantEvent>,
    /// Frames signed by a key the host's roster does not name yet: someone
    /// who just joined may speak before the host's new roster arrives
    /// here. Opened again when it does; said and dropped if still unknown.
    unknown: Vec<cohost_protocol::Frame>,
    /// Who the host lets approve what, as it last said.
    grants: cohost_share::ApprovalGrants,
}

impl ParticipantSession {
    /// Joins the room of `invite`, waiting for the relay's welcome.
    pub async fn join(invite: &str, opts: JoinOptions) -> Result<ParticipantSession, JoinError> {
        let inv = Invite::parse(invite)?;
        let keys = inv.keys.clone().ok_or(JoinError::NoKey)?;
        let me = match &opts.identity {
            Some(path) => super::identity::load_or_create(path)?,
            None => Identity::generate().map_err(JoinError::Keys)?,
        };
        let e2e = Arc::new(E2e::participant(&keys, me).map_err(JoinError::Keys)?);
        let mut cfg = ClientConfig::from_invite(&inv);
        cfg.ca_file = opts.ca_file.clone();
        let mut client = RelayClient::connect(cfg).await?;
        let mut queued = std::collections::VecDeque::new();
        let welcome = tokio::time::timeout(WELCOME_WAIT, async {
            loop {
                match client.recv().await {
                    Some(ClientEvent::Welcome(w)) => return Some(w),
                    Some(ClientEvent::Closed { reason }) => {
                        queued.push_back(ParticipantEvent::Relay(ClientEvent::Closed { reason }));
                        return None;
                    }
                    Some(other) => queued.push_back(ParticipantEvent::Relay(other)),
                    None => return None,
                }
            }
        })
        .await
        .ok()
        .flatten();
        let Some(welcome) = welcome else {
            if let Some(ParticipantEvent::Relay(ClientEvent::Closed { reason })) = queued.pop_back()
            {
                return Err(JoinError::Relay(cohost_relay::ClientError::Refused {
                    status: 401,
                    body: reason,
                }));
            }
            return Err(JoinError::NoWelcome(WELCOME_WAIT));
        };
        // What this participant says (its suggestions, chat, a member's
        // turns) passes its own sanitizer before it is sealed.
        let codec = RoomCodec::with_codec(client.room_id().clone(), e2e.clone())
            .as_role(welcome.you.role)
            .with_sanitizer(opts.sanitizer.clone());
        let mut s = ParticipantSession {
            client,
            codec,
            e2e,
            ticket: keys.ticket,
            name: opts.name,
            sanitizer: opts.sanitizer,
            me: welcome.you.clone(),
            roster: BTreeMap::new(),
            streams: StreamIntake::new(),
            replays: cohost_share::Replays::default(),
            queued,
            unknown: Vec::new(),
            grants: cohost_share::ApprovalGrants::default(),
        };
        s.welcomed(&welcome).await;
        s.queued.push_front(ParticipantEvent::Welcome(welcome));
        Ok(s)
    }

    async fn welcomed(&mut self, w: &Welcome) {
        self.me = w.you.clone();
        self.roster = w
            .participants
            .iter()
            .map(|p| (p.conn_id, p.clone()))
            .collect();
        let me = self.e2e.identity();
        let (ed, x) = (me.public(), me.x25519().public_bytes());
        let proof = bind_proof(&self.ticket, self.codec.room(), w.you.conn_id, &ed, &x);
        let announce = Message::KeyAnnounce(KeyAnnounce {
            ed25519: B64.encode(ed),
            x25519: B64.encode(x),
            name: self.name.clone(),
            ticket: B64.encode(ticket_id(&self.ticket)),
            proof: B64.encode(proof),
        });
        if let Ok(f) = self.codec.room_frame(&announce) {
            let _ = self.client.send(&f).await;
        }
    }

    /// This participant as the relay knows it (role, connection id, name).
    pub fn me(&self) -> &Participant {
        &self.me
    }

    /// Everyone in the room, as presence told it.
    pub fn who(&self) -> Vec<Participant> {
        self.roster.values().cloned().collect()
    }

    /// Stream chunks the relay sent again that were held already (each
    /// refused; a few come with every recovered gap).
    pub fn duplicates(&self) -> u64 {
        self.client.duplicates()
    }

    /// The room's codec (to open frames the same way, e.g. for `--json`).
    pub fn codec(&self) -> &RoomCodec {
        &self.codec
    }

    /// This participant's key fingerprint, as the host of a `--knock`
    /// room sees it beside its name.
    pub fn fingerprint(&self) -> String {
        super::knock::fingerprint(&self.e2e.identity().public())
    }

    /// The epoch this participant seals under (the newest it holds).
    pub fn epoch(&self) -> u32 {
        self.e2e.current_epoch()
    }

    /// Suggests a prompt to the host. A viewer is refused here, before
    /// anything is sent.
    pub async fn suggest(&self, text: &str) -> Result<String, SendError> {
        if self.me.role != Role::CoDriver {
            return Err(SendError::NotAllowed(
                "viewers cannot suggest prompts; ask the host for a co-driver invite",
            ));
        }
        // `@codex TEXT`: for one member of a room of several agents (the
        // host puts the words back together in a room of one).
        let (to, text) = match cohost_core::room::addressed(text) {
            Some((name, rest)) if !rest.trim().is_empty() => (Some(name.to_string()), rest),
            _ => (None, text),
        };
        let s = Suggestion {
            suggestion_id: super::host::new_suggestion_id(),
            text: text.to_string(),
            from: self.name.clone(),
            to,
        };
        let id = s.suggestion_id.clone();
        self.send(&Message::Suggestion(s)).await?;
        Ok(id)
    }

    /// This participant's grant to approve tool calls, if the host gave one.
    pub fn grant(&self) -> Option<&cohost_share::ApprovalGrant> {
        self.grants
            .grants
            .iter()
            .find(|g| g.conn_id == self.me.conn_id)
    }

    /// Who may approve what, and the quorum, as the host last said.
    pub fn grants(&self) -> &cohost_share::ApprovalGrants {
        &self.grants
    }

    /// Allows or denies a pending tool call (`None`: the only one). Sent
    /// whatever this side believes of its grant: the host decides whether
    /// it counts, and says so to the host's screen if not.
    pub async fn vote(&self, tool_id: Option<&str>, allow: bool) -> Result<(), SendError> {
        self.send(&Message::ApprovalVote(cohost_share::ApprovalVote {
            tool_id: tool_id.map(str::to_owned),
            allow,
        }))
        .await
    }

    /// Asks the host to stop the running turn (co-drivers only).
    pub async fn interrupt(&self) -> Result<(), SendError> {
        if self.me.role != Role::CoDriver {
            return Err(SendError::NotAllowed(
                "viewers cannot interrupt the host's turn",
            ));
        }
        self.send(&Message::InterruptRequest(InterruptRequest {
            from: self.name.clone(),
        }))
        .await
    }

    /// Says something in the room chat (sanitized first).
    pub async fn chat(&self, text: &str) -> Result<(), SendError> {
        self.send(&Message::Chat(Chat {
            from: self.name.clone(),
            text: self.sanitizer.sanitize(text).into_owned(),
            members: None,
        }))
        .await
    }

    async fn send(&self, msg: &Message) -> Result<(), SendError> {
        let f = self.codec.room_frame(msg)?;
        Ok(self.client.send(&f).await?)
    }

    /// Offers `agent`, running on this machine, as a member of the room
    /// (co-drivers only; the host's policy decides, and answers with an
    /// `ai.member.command`).
    pub async fn offer_member(&self, agent: &str) -> Result<(), SendError> {
        if self.me.role != Role::CoDriver {
            return Err(SendError::NotAllowed(
                "viewers cannot bring an agent into the room; ask the host for a co-driver invite",
            ));
        }
        self.send(&Message::MemberOffer(cohost_share::MemberOffer {
            agent: agent.to_owned(),
        }))
        .await
    }

    /// Sends a frame built with [`ParticipantSession::codec`] (the turns
    /// of a member this participant runs).
    pub async fn send_frame(&self, frame: &cohost_protocol::Frame) -> Result<(), SendError> {
        Ok(self.client.send(frame).await?)
    }

    /// Leaves the room.
    pub async fn close(&self) {
        self.client.close().await;
    }

    /// Drops the connection (it reconnects and resumes); for tests.
    pub async fn drop_connection(&self) {
        self.client.drop_connection().await;
    }

    /// The next event; `None` once the connection is closed for good.
    pub async fn next(&mut self) -> Option<ParticipantEvent> {
        if let Some(e) = self.queued.pop_front() {
            return Some(e);
        }
        loop {
            let ev = self.client.recv().await?;
            if let Some(out) = self.handle(ev).await {
                return Some(out);
            }
        }
    }

    async fn handle(&mut self, ev: ClientEvent) -> Option<ParticipantEvent> {
        let f = match ev {
            ClientEvent::Welcome(w) => {
                self.welcomed(&w).await;
                return Some(ParticipantEvent::Welcome(w));
            }
            ClientEvent::Frame(f) => f,
            // Classed late before this end asked for the stream again:
            // the chunk asked for is taken in order, one past it comes
            // again with the replay.
            ClientEvent::Late(f) => match f
                .stream()
                .map(|s| self.streams.late(s, f.chunk()))
                .unwrap_or(cohost_share::LateChunk::Late)
            {
                cohost_share::LateChunk::Late => return Some(self.late(f)),
                cohost_share::LateChunk::InOrder => f,
                cohost_share::LateChunk::Again => return None,
            },
            other => {
                match &other {
                    ClientEvent::Missing { stream, from, to }
                        if !self.streams.missing(stream, *from, *to) =>
                    {
                        return None;
                    }
                    ClientEvent::Resync(r) => self.streams.resynced(&r.streams),
                    _ => {}
                }
                return Some(ParticipantEvent::Relay(other));
            }
        };
        match f.kind() {
            FrameType::PresenceJoin | FrameType::PresenceLeave => {
                let who: Participant = f.control().ok()?;
                let joined = f.kind() == FrameType::PresenceJoin;
                if joined {
                    self.roster.insert(who.conn_id, who.clone());
                } else {
                    self.roster.remove(&who.conn_id);
                }
                return Some(ParticipantEvent::Presence { joined, who });
            }
            k if !k.is_application() => {
                return Some(ParticipantEvent::Frame {
                    frame: f,
                    message: None,
                    from: None,
                })
            }
            _ => {}
        }
        if f.stream().is_some_and(|s| self.streams.stale(s, f.chunk())) {
            return None;
        }
        match self.codec.receive(&f) {
            Ok((Some(Message::KeyRotate(r)), _)) => {
                let mut newest = None;
                for w in r.keys.iter().filter(|w| w.to == self.me.conn_id) {
                    match unwrap_key(self.codec.room(), self.e2e.identity().x25519(), w) {
                        Ok(k) => {
                            self.e2e.learn(w.epoch, k);
                            newest = newest.max(Some(w.epoch));
                        }
                        Err(e) => {
                            return Some(ParticipantEvent::Dropped {
                                kind: f.kind(),
                                at: None,
                                reason: format!("a key from the host does not unwrap: {e}"),
                            })
                        }
                    }
                }
                let epoch = newest?;
                for (stream, last) in self.streams.key_learned() {
                    self.client.resume_from(&stream, last).await;
                }
                Some(ParticipantEvent::KeyLearned { epoch })
            }
            Ok((_, sender)) if !self.replays.first_time(&f, sender.as_ref()) => {
                Some(ParticipantEvent::Dropped {
                    kind: f.kind(),
                    at: None,
                    reason: CodecError::Replayed.to_string(),
                })
            }
            Ok((mut message, sender)) => {
                match &mut message {
                    // The host's answer at the door to someone else.
                    Some(Message::KeyDoor(d)) if d.to != self.me.conn_id => return None,
                    Some(Message::ApprovalGrants(g)) => self.grants = g.clone(),
                    Some(Message::KeyRoster(r)) => {
                        self.e2e.take_roster(r);
                        self.retry_unknown().await;
                    }
                    // A participant's chat is named as the host bound its
                    // key, whatever name it wrote.
                    Some(Message::Chat(c)) => {
                        if let Some(Signer::Participant(b)) = sender.as_ref().map(|s| &s.signer) {
                            c.from = Some(b.label());
                            c.members = None;
                        }
                    }
                    _ => {}
                }
                if let Some(s) = f.stream() {
                    self.streams.opened(s, f.chunk());
                }
                Some(ParticipantEvent::Frame {
                    frame: f,
                    message: message.map(Box::new),
                    from: sender.map(|s| s.signer),
                })
            }
            Err(e) => self.dropped(&f, e).await,
        }
    }

    /// A chunk that came after it was reported missing: shown once it
    /// opens and verifies like any other (only the host speaks in streams).
    fn late(&mut self, f: cohost_protocol::Frame) -> ParticipantEvent {
        match self.codec.receive(&f) {
            Ok((message, _)) => ParticipantEvent::Late {
                frame: f,
                message: message.map(Box::new),
            },
            Err(e) => ParticipantEvent::Dropped {
                kind: f.kind(),
                at: None,
                reason: format!("a chunk that came late does not open: {e}"),
            },
        }
    }

    /// Frames from senders the new roster names are taken now; the rest
    /// were from nobody in the room.
    async fn retry_unknown(&mut self) {
        for f in std::mem::take(&mut self.unknown) {
            let reason = match self.codec.receive(&f) {
                Ok(_) => {
                    // Boxed: `handle` is async and this is its caller.
                    if let Some(ev) = Box::pin(self.handle(ClientEvent::Frame(f))).await {
                        self.queued.push_back(ev);
                    }
                    continue;
                }
                Err(e) => e.to_string(),
            };
            self.queued.push_back(ParticipantEvent::Dropped {
                kind: f.kind(),
                at: None,
                reason,
            });
        }
    }

    /// One notice for a frame that did not open; its stream is asked again
    /// from the last good chunk (a few times, then the chunk is given up).
    async fn dropped(
        &mut self,
        f: &cohost_protocol::Frame,
        e: ShareError,
    ) -> Option<ParticipantEvent> {
        let reason = match &e {
            ShareError::Codec { source, .. } => source.to_string(),
            other => other.to_string(),
        };
        // Maybe someone the host's next roster names: held until it comes
        // (a bounded few; a flood of strangers is dropped).
        if f.stream().is_none()
            && matches!(
                e,
                ShareError::Codec {
                    source: CodecError::UnknownSender(_),
                    ..
                }
            )
            && self.unknown.len() < 64
        {
            self.unknown.push(f.clone());
            return None;
        }
        let source = match &e {
            ShareError::Codec { source, .. } => Some(source),
            _ => None,
        };
        let why = source.map_or(Failure::Damaged, Failure::of);
        let Some(stream) = f.stream().map(str::to_string) else {
            return Some(ParticipantEvent::Dropped {
                kind: f.kind(),
                at: None,
                reason,
            });
        };
        let said = match self.streams.failed(&stream, f.chunk(), why) {
            After::Quiet => return None,
            After::AwaitKey => format!("{reason}; waiting for the host's key"),
            After::GiveUp => format!("{reason}; given up after {MAX_RETRIES} resyncs"),
            After::Ask { last_good } => {
                // A forgery took the real chunk's place in the client's
                // order: freed, so the real one is still taken.
                self.client.resume_from(&stream, last_good).await;
                if why == Failure::Forged {
                    reason
                } else {
                    format!("{reason}; asked the relay to send it again")
                }
            }
        };
        Some(ParticipantEvent::Dropped {
            kind: f.kind(),
            at: Some((stream, f.chunk())),
            reason: said,
        })
    }
}
