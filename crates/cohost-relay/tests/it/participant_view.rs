//! Issue 37's property: whatever a malicious relay does (drop, duplicate,
//! reorder, re-stamp, answer or ignore resumes, inject frames signed with
//! the keys of a participant it colludes with), an honest participant's
//! view is a prefix-consistent subset of what the host sent, and every gap
//! in it is said.
//!
//! The participant here is the client's [`StreamOrder`], the codec
//! (`RoomCodec::receive`), the replay window ([`Replays`]) and the stream
//! decisions ([`StreamIntake`]): the parts `cohost join` runs
//! (`crates/cohost-sharing/src/session.rs`), joined by the same
//! few lines of glue as there (a late chunk is opened, never counted as
//! taken; a stream frame that fails is asked again from the last good
//! chunk). The socket is left out so thousands of relay actions run in
//! seconds.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use cohost_core::Event;
use cohost_protocol::{Frame, Role, RoomId, StreamId};
use cohost_relay::order::{Arrival, Step, StreamOrder, GAP_ASKS, GAP_WAIT};
use cohost_share::e2e::{Bound, Identity};
use cohost_share::intake::{After, Failure, LateChunk};
use cohost_share::{
    Chat, E2e, KeyRotate, Message, Replays, RoomCodec, ShareError, Signer, StreamIntake, TurnStream,
};
use proptest::prelude::*;
use tokio::time::Instant;

const HOST: u64 = 1;
const VIC: u64 = 2;
const MAL: u64 = 3;
const STREAMS: [&str; 2] = ["p-1", "p-2"];

/// What the relay does next.
#[derive(Debug, Clone)]
enum Act {
    /// The host sends the next frame of a stream (`Some`) or a chat; the
    /// relay forwards it, or only keeps it (`dropped`).
    Send {
        stream: Option<usize>,
        dropped: bool,
    },
    /// The relay delivers the next queued frame.
    Deliver,
    /// The relay delivers the second queued frame before the first.
    Swap,
    /// The relay sends again a frame the host sent earlier.
    Again(usize),
    /// The relay re-stamps an earlier host frame as the colluding
    /// participant's, or one of that participant's as the host's.
    Restamp(usize),
    /// The colluding participant signs a chunk of a stream at `ahead` past
    /// the host's next index (negative: an index already used).
    ForgeChunk { stream: usize, ahead: i8 },
    /// ... a chat that says it is the host's (stamped as the colluder's:
    /// a stamp that differs from the sealed role does not open at all).
    ForgeChat,
    /// ... a key rotation for the honest participant.
    ForgeRotate,
    /// Time passes; the relay answers the resumes it is sent, or not.
    Tick { answer: bool },
    /// The participant takes up to this many events the client handed on
    /// (they wait in a queue between the two, as in `cohost join`).
    Process(u8),
}

/// What the relay client hands the participant, in order.
#[derive(Debug)]
enum Handed {
    Frame(Frame),
    Late(Frame),
    Missing { stream: String, from: u64, to: u64 },
}

fn act() -> impl Strategy<Value = Act> {
    prop_oneof![
        6 => (prop::option::weighted(0.8, 0..STREAMS.len()), prop::bool::weighted(0.2))
            .prop_map(|(stream, dropped)| Act::Send { stream, dropped }),
        6 => Just(Act::Deliver),
        1 => Just(Act::Swap),
        1 => any::<usize>().prop_map(Act::Again),
        1 => any::<usize>().prop_map(Act::Restamp),
        1 => (0..STREAMS.len(), -3i8..4).prop_map(|(stream, ahead)| Act::ForgeChunk { stream, ahead }),
        1 => Just(Act::ForgeChat),
        1 => Just(Act::ForgeRotate),
        2 => any::<bool>().prop_map(|answer| Act::Tick { answer }),
        5 => (1u8..6).prop_map(Act::Process),
    ]
}

fn chunk_event(stream: &str, i: u64) -> Message {
    Message::TurnEvent(
        Event::from_json_line(&format!(
            r#"{{"id":"{stream}.{i}","prompt_id":"{stream}","correlation_id":"c","ts":1,"type":"stream_chunk","stream_id":"text","chunk_index":{i},"delta":"d{i}"}}"#
        ))
        .unwrap(),
    )
}

/// What the honest participant took and said.
#[derive(Default)]
struct View {
    /// Per stream, the chunks taken in order, with their messages.
    in_order: BTreeMap<String, Vec<(u64, Message)>>,
    /// Chunks taken late (after they were said to be missing).
    late: Vec<(String, u64, Message)>,
    /// Chats taken, with who signed them.
    chats: Vec<(Signer, String)>,
    /// Ranges said to be missing, and single chunks given up.
    said: BTreeMap<String, Vec<(u64, u64)>>,
    /// Frames refused, by what the codec said.
    refused: Vec<String>,
}

impl View {
    fn said(&self, stream: &str, chunk: u64) -> bool {
        self.said
            .get(stream)
            .is_some_and(|r| r.iter().any(|&(a, b)| a <= chunk && chunk <= b))
    }
}

struct World {
    room: RoomId,
    host_turns: Vec<TurnStream>,
    host: RoomCodec,
    /// What the host sent, as an honest relay would deliver it.
    sent: Vec<Frame>,
    /// The host's messages by stream and chunk, and its chats.
    truth: HashMap<(String, u64), Message>,
    host_chats: Vec<String>,
    mal: Arc<E2e>,
    mal_turns: Vec<TurnStream>,
    /// Frames on their way to the honest participant.
    queue: VecDeque<Frame>,
    /// What its relay client handed on and it has not taken yet.
    handed: VecDeque<Handed>,
    answer: bool,
    now: Instant,
    // The honest participant.
    vic: RoomCodec,
    order: StreamOrder,
    intake: StreamIntake,
    replays: Replays,
    view: View,
}

impl World {
    fn new() -> World {
        let room = RoomId::new("r-props").unwrap();
        let host_e2e = Arc::new(E2e::generate_host().unwrap());
        let invite = host_e2e.invite_keys([7; 16]);
        let vic_e2e = Arc::new(E2e::participant(&invite, Identity::generate().unwrap()).unwrap());
        let mal = Arc::new(E2e::participant(&invite, Identity::generate().unwrap()).unwrap());
        for (e, conn, name, role) in [
            (&vic_e2e, VIC, "vic", Role::Viewer),
            (&mal, MAL, "mal", Role::CoDriver),
        ] {
            let who = Bound {
                conn_id: conn,
                name: name.into(),
                role,
                agents: Vec::new(),
            };
            host_e2e.bind(e.identity().public(), who);
        }
        vic_e2e.take_roster(&host_e2e.roster());
        let host = RoomCodec::with_codec(room.clone(), host_e2e).as_role(Role::Host);
        // Sealed as the host's, so the relay's host stamp opens it and only
        // the signature tells (v1's forged turn).
        let mal_codec = RoomCodec::with_codec(room.clone(), mal.clone()).as_role(Role::Host);
        World {
            host_turns: STREAMS
                .iter()
                .map(|s| host.turn(StreamId::new(s).unwrap()))
                .collect(),
            mal_turns: STREAMS
                .iter()
                .map(|s| mal_codec.turn(StreamId::new(s).unwrap()))
                .collect(),
            host,
            sent: Vec::new(),
            truth: HashMap::new(),
            host_chats: Vec::new(),
            mal,
            queue: VecDeque::new(),
            handed: VecDeque::new(),
            answer: true,
            now: Instant::now(),
            vic: RoomCodec::with_codec(room.clone(), vic_e2e).as_role(Role::Viewer),
            order: StreamOrder::new(),
            intake: StreamIntake::new(),
            replays: Replays::default(),
            view: View::default(),
            room,
        }
    }

    fn host_sends(&mut self, stream: Option<usize>) -> Frame {
        let f = match stream {
            Some(i) => {
                let name = STREAMS[i];
                let chunk = self.truth.keys().filter(|(s, _)| s == name).count() as u64;
                let msg = chunk_event(name, chunk);
                let f = self.host_turns[i].frame(&msg).unwrap();
                self.truth.insert((name.to_string(), chunk), msg);
                f
            }
            None => {
                let text = format!("host chat {}", self.host_chats.len());
                self.host_chats.push(text.clone());
                let chat = Message::Chat(Chat {
                    from: None,
                    text,
                    members: None,
                });
                self.host.room_frame(&chat).unwrap()
            }
        };
        let f = f.restamp(f.kind(), HOST, Role::Host);
        self.sent.push(f.clone());
        f
    }

    /// The relay's answer to a resume naming `held`: every stream it holds,
    /// after the chunk named (from its start when not named).
    fn resume(&mut self, held: &BTreeMap<String, u64>) {
        if !self.answer {
            return;
        }
        let replay: Vec<Frame> = self
            .sent
            .iter()
            .filter(|f| {
                f.stream()
                    .is_some_and(|s| held.get(s).is_none_or(|&last| f.chunk() > last))
            })
            .cloned()
            .collect();
        self.queue.extend(replay);
    }

    fn forged_chunk(&mut self, stream: usize, ahead: i8) -> Frame {
        let name = STREAMS[stream];
        let next = self.truth.keys().filter(|(s, _)| s == name).count() as i64;
        let want = (next + i64::from(ahead)).max(0) as u64;
        let turn = &mut self.mal_turns[stream];
        loop {
            let f = turn.frame(&chunk_event(name, 999)).unwrap();
            if f.chunk() >= want {
                return f.restamp(f.kind(), HOST, Role::Host);
            }
        }
    }

    fn act(&mut self, a: &Act) {
        match a {
            Act::Send { stream, dropped } => {
                let f = self.host_sends(*stream);
                if !dropped {
                    self.queue.push_back(f);
                }
            }
            Act::Deliver => self.deliver_one(),
            Act::Swap => {
                if self.queue.len() >= 2 {
                    self.queue.swap(0, 1);
                }
                self.deliver_one();
            }
            Act::Again(i) => {
                if !self.sent.is_empty() {
                    let f = self.sent[i % self.sent.len()].clone();
                    self.queue.push_back(f);
                }
            }
            Act::Restamp(i) => {
                if !self.sent.is_empty() {
                    let f = &self.sent[i % self.sent.len()];
                    self.queue
                        .push_back(f.restamp(f.kind(), MAL, Role::CoDriver));
                }
            }
            Act::ForgeChunk { stream, ahead } => {
                let f = self.forged_chunk(*stream, *ahead);
                self.queue.push_front(f);
            }
            Act::ForgeChat => {
                let mal = RoomCodec::with_codec(self.room.clone(), self.mal.clone())
                    .as_role(Role::CoDriver);
                let chat = Message::Chat(Chat {
                    text: "host chat 0".into(),
                    from: Some("host".into()),
                    members: Some(vec!["forged".into()]),
                });
                let f = mal.room_frame(&chat).unwrap();
                self.queue
                    .push_front(f.restamp(f.kind(), MAL, Role::CoDriver));
            }
            Act::ForgeRotate => {
                let mal =
                    RoomCodec::with_codec(self.room.clone(), self.mal.clone()).as_role(Role::Host);
                let f = mal
                    .room_frame(&Message::KeyRotate(KeyRotate { keys: Vec::new() }))
                    .unwrap();
                self.queue.push_front(f.restamp(f.kind(), HOST, Role::Host));
            }
            Act::Tick { answer } => {
                self.answer = *answer;
                self.tick(GAP_WAIT);
            }
            Act::Process(n) => {
                for _ in 0..*n {
                    self.process_one();
                }
            }
        }
    }

    fn process_one(&mut self) {
        match self.handed.pop_front() {
            None => {}
            Some(Handed::Frame(f)) => self.take(f),
            Some(Handed::Late(f)) => {
                // As `ParticipantSession::handle`: classed late before
                // the stream was asked again, taken in order or dropped.
                let stream = f.stream().unwrap_or("").to_string();
                match self.intake.late(&stream, f.chunk()) {
                    LateChunk::InOrder => return self.take(f),
                    LateChunk::Again => return,
                    LateChunk::Late => {}
                }
                // As `ParticipantSession::late`: opened, shown, not taken
                // as the stream's newest.
                if let Ok((Some(m), _)) = self.vic.receive(&f) {
                    let stream = f.stream().unwrap_or("").to_string();
                    self.view.late.push((stream, f.chunk(), m));
                }
            }
            Some(Handed::Missing { stream, from, to })
                if self.intake.missing(&stream, from, to) =>
            {
                self.view.said.entry(stream).or_default().push((from, to));
            }
            Some(Handed::Missing { .. }) => {}
        }
    }

    /// Everything on its way is delivered and taken.
    fn drain(&mut self) {
        let mut budget = 100_000;
        while !(self.queue.is_empty() && self.handed.is_empty()) && budget > 0 {
            self.deliver_one();
            self.process_one();
            budget -= 1;
        }
        assert!(budget > 0, "the relay's replays never end");
    }

    fn tick(&mut self, by: Duration) {
        self.now += by;
        for step in self.order.due(self.now) {
            if let Step::Missing { stream, from, to } = step {
                self.handed.push_back(Handed::Missing { stream, from, to });
            }
            let held = self.order.held().clone();
            self.resume(&held);
        }
    }

    fn deliver_one(&mut self) {
        let Some(f) = self.queue.pop_front() else {
            return;
        };
        if !f.kind().is_replayable() {
            return self.handed.push_back(Handed::Frame(f));
        }
        let stream = f.stream().unwrap_or("").to_string();
        match self.order.arrive(&stream, f.chunk(), self.now) {
            Arrival::Deliver => self.handed.push_back(Handed::Frame(f)),
            Arrival::Late => self.handed.push_back(Handed::Late(f)),
            Arrival::Duplicate => {}
            Arrival::Held { ask } => {
                if ask {
                    let held = self.order.held().clone();
                    self.resume(&held);
                }
            }
        }
    }

    /// As `ParticipantSession::handle` and `dropped`.
    fn take(&mut self, f: Frame) {
        let stream = f.stream().map(str::to_string);
        if let Some(s) = &stream {
            if self.intake.stale(s, f.chunk()) {
                return;
            }
        }
        match self.vic.receive(&f) {
            Ok((Some(Message::KeyRotate(_)), _)) => {
                panic!("a key rotation the host never sent was taken")
            }
            Ok((_, sender)) if !self.replays.first_time(&f, sender.as_ref()) => {}
            Ok((message, sender)) => match (&stream, message) {
                (Some(s), Some(m)) => {
                    self.intake.opened(s, f.chunk());
                    self.view
                        .in_order
                        .entry(s.clone())
                        .or_default()
                        .push((f.chunk(), m));
                }
                (None, Some(Message::Chat(c))) => {
                    let by = sender.expect("v2 signs every frame").signer;
                    self.view.chats.push((by, c.text));
                }
                other => panic!("nothing else is sent here: {other:?}"),
            },
            Err(e) => {
                self.view.refused.push(e.to_string());
                let Some(s) = stream else { return };
                let why = match &e {
                    ShareError::Codec { source, .. } => Failure::of(source),
                    _ => Failure::Damaged,
                };
                match self.intake.failed(&s, f.chunk(), why) {
                    After::Ask { last_good } => {
                        let named = self.order.resume_from(&s, last_good);
                        self.resume(&named);
                    }
                    After::GiveUp => {
                        self.view
                            .said
                            .entry(s)
                            .or_default()
                            .push((f.chunk(), f.chunk()));
                    }
                    After::AwaitKey | After::Quiet => {}
                }
            }
        }
    }

    /// The relay turns honest: it delivers everything, answers every
    /// resume, and the host sends one more chunk per stream (so a lost
    /// tail shows as a gap), until nothing waits.
    fn settle(&mut self) {
        self.answer = true;
        for i in 0..STREAMS.len() {
            let f = self.host_sends(Some(i));
            self.queue.push_back(f);
        }
        for _ in 0..(4 * GAP_ASKS + 8) {
            self.drain();
            if !self.order.waiting() {
                break;
            }
            self.tick(GAP_WAIT);
        }
    }

    fn accounted(&self, s: &str, c: u64) {
        let v = &self.view;
        let taken = v
            .in_order
            .get(s)
            .is_some_and(|t| t.iter().any(|(i, _)| *i == c));
        let late = v.late.iter().any(|(ls, lc, _)| ls == s && *lc == c);
        assert!(
            taken || late || v.said(s, c),
            "{s} chunk {c} vanished without a word (taken {:?}, said {:?})",
            v.in_order
                .get(s)
                .map(|t| t.iter().map(|x| x.0).collect::<Vec<_>>()),
            v.said.get(s)
        );
    }

    /// Once the relay settled: every chunk the host sent was taken, taken
    /// late, or said to be missing.
    fn check_complete(&self) {
        self.check();
        for (s, c) in self.truth.keys() {
            self.accounted(s, *c);
        }
    }

    fn check(&self) {
        let v = &self.view;
        for (s, taken) in &v.in_order {
            // In order, each chunk once, each what the host sent.
            for w in taken.windows(2) {
                assert!(w[0].0 < w[1].0, "{s}: {} then {}", w[0].0, w[1].0);
            }
            for (c, m) in taken {
                assert_eq!(
                    self.truth.get(&(s.clone(), *c)),
                    Some(m),
                    "{s} chunk {c} is what the host sent"
                );
            }
        }
        for (s, c, m) in &v.late {
            assert_eq!(self.truth.get(&(s.clone(), *c)), Some(m), "late {s} {c}");
            assert!(
                v.said(s, *c),
                "{s} chunk {c} came late without being missed"
            );
        }
        // A prefix: below the newest chunk taken, every one was taken,
        // taken late, or said to be missing.
        for (s, taken) in &v.in_order {
            let newest = taken.last().map_or(0, |x| x.0);
            for c in 0..newest {
                self.accounted(s, c);
            }
        }
        // Chats: the host's only as the host sent them, each once; the
        // colluding participant's only under its own name.
        let mut seen = std::collections::HashSet::new();
        for (by, text) in &v.chats {
            match by {
                Signer::Host => {
                    assert!(self.host_chats.contains(text), "{text}");
                    assert!(seen.insert(text.clone()), "{text} twice");
                }
                Signer::Participant(b) => assert_eq!(b.name, "mal"),
                Signer::Unbound => panic!("an unbound sender's chat was taken"),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        // 64 in the suite (about 10 s in a debug build); more with
        // PROPTEST_CASES=N for a longer search.
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_relay_leaves_an_honest_participant_a_prefix_with_every_gap_said(
        acts in prop::collection::vec(act(), 1..80)
    ) {
        let mut w = World::new();
        for a in &acts {
            w.act(a);
            w.check();
        }
        w.settle();
        w.check_complete();
    }
}

/// The adversary is not idle: a hand-picked run where each kind of action
/// happens and the checks above have something to hold.
#[test]
fn a_run_with_every_kind_of_relay_action_is_checked() {
    let mut w = World::new();
    let script = [
        // The relay ignores resumes: a gap can only be said, not filled.
        Act::Tick { answer: false },
        // A forged first chunk, ahead of the host's.
        Act::ForgeChunk {
            stream: 0,
            ahead: 0,
        },
        Act::Send {
            stream: Some(0),
            dropped: false,
        },
        Act::Send {
            stream: Some(0),
            dropped: true,
        },
        Act::Send {
            stream: Some(0),
            dropped: false,
        },
        Act::Send {
            stream: None,
            dropped: false,
        },
        Act::ForgeChat,
        Act::ForgeRotate,
        Act::Again(0),
        Act::Restamp(3),
    ];
    for a in &script {
        w.act(a);
    }
    while !w.queue.is_empty() {
        w.act(&Act::Swap);
        w.check();
    }
    w.drain();
    for _ in 0..=GAP_ASKS {
        w.act(&Act::Tick { answer: false });
        w.drain();
        w.check();
    }
    // The forged chunk 0 came first and took the real one's place at the
    // client; the ask that would have brought it again went unanswered:
    // chunk 0 is said missing with the dropped chunk 1, never shown forged.
    assert!(
        w.view.said("p-1", 0) && w.view.said("p-1", 1),
        "the chunks never replayed are said missing: {:?}",
        w.view.said
    );
    w.settle();
    w.check_complete();
    let taken: Vec<u64> = w.view.in_order["p-1"].iter().map(|x| x.0).collect();
    assert_eq!(taken, vec![2, 3], "{:?}", w.view.said);
    let forged = |what: &str| {
        w.view
            .refused
            .iter()
            .any(|r| r.contains(what) && r.contains("host"))
    };
    assert!(
        forged("ai.stream.chunk") && forged("key.rotate"),
        "the forgeries opened and were refused for their signer: {:?}",
        w.view.refused
    );
    let by_host = w.view.chats.iter().filter(|(by, _)| *by == Signer::Host);
    assert_eq!(
        by_host.count(),
        1,
        "the host's chat, once: {:?}",
        w.view.chats
    );
    assert!(
        w.view
            .chats
            .iter()
            .any(|(by, _)| matches!(by, Signer::Participant(b) if b.name == "mal")),
        "the colluder's chat is shown as its own, whatever name it wrote"
    );
}

/// A run the property test found (shrunk): a forged chunk 0 is taken by
/// the client before the real one, a forged chunk 3 opens a gap the relay
/// never fills, and the participant learns of the forgery only later.
#[test]
fn a_forged_first_chunk_found_late_leaves_no_late_chunk_unsaid() {
    let send = |stream| Act::Send {
        stream,
        dropped: false,
    };
    let script = [
        send(None),
        Act::ForgeChat,
        send(Some(0)),
        send(None),
        send(Some(0)),
        Act::ForgeChunk {
            stream: 0,
            ahead: -2,
        },
        send(Some(0)),
        Act::Deliver,
        Act::ForgeChunk {
            stream: 0,
            ahead: 0,
        },
        Act::Deliver,
        Act::Tick { answer: false },
        Act::Tick { answer: false },
        send(None),
        Act::Deliver,
        Act::Deliver,
        Act::Tick { answer: false },
        Act::Deliver,
        Act::Deliver,
    ];
    let mut w = World::new();
    for a in &script {
        w.act(a);
        w.check();
    }
    w.settle();
    w.check_complete();
}
