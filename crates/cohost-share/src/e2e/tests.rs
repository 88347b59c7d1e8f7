use std::sync::Arc;

use cohost_core::Event;
use cohost_protocol::{Frame, FrameType, InviteKeys, Role, RoomId, StreamId};
use serde_json::{json, Value};

use super::*;
use crate::payload::{Chat, KeyAnnounce, KeyRotate};
use crate::{Message, RoomCodec, ShareError};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn b64(b: &[u8]) -> String {
    B64.encode(b)
}

fn room() -> RoomId {
    RoomId::new("r-e2e").unwrap()
}

const TICKET: [u8; 16] = [9; 16];
/// The connection id the relay gives the guest in these tests.
const GUEST_CONN: u64 = 7;

fn chunk(i: u64, delta: &str) -> Event {
    Event::from_json_line(&format!(
        r#"{{"id":"p-1.{i}","prompt_id":"p-1","correlation_id":"c-1","ts":1,"type":"stream_chunk","stream_id":"text","chunk_index":{i},"delta":"{delta}"}}"#
    ))
    .unwrap()
}

fn chat(text: &str) -> Message {
    Message::Chat(Chat {
        from: None,
        text: text.into(),
        members: None,
    })
}

fn suggestion(id: &str) -> Message {
    Message::Suggestion(crate::Suggestion {
        suggestion_id: id.into(),
        text: "run the tests".into(),
        from: None,
        to: Some("codex".into()),
    })
}

fn guest_of(keys: &InviteKeys) -> Arc<E2e> {
    Arc::new(E2e::participant(keys, Identity::generate().unwrap()).unwrap())
}

/// A host codec, a co-driver codec holding its invite's keys (bound by the
/// host as `ana`), and their room codecs.
fn pair() -> (Arc<E2e>, Arc<E2e>, RoomCodec, RoomCodec) {
    let host = Arc::new(E2e::generate_host().unwrap());
    let guest = guest_of(&host.invite_keys(TICKET));
    host.bind(guest.identity().public(), bound("ana", Role::CoDriver));
    let h = RoomCodec::with_codec(room(), host.clone()).as_role(Role::Host);
    let g = RoomCodec::with_codec(room(), guest.clone()).as_role(Role::CoDriver);
    (host, guest, h, g)
}

/// A sanitizer that knows every secret shape and no value (what a codec
/// has until a front end hands it one).
fn shapes() -> cohost_core::sanitize::Sanitizer {
    cohost_core::sanitize::Sanitizer::shapes_only()
}

fn bound(name: &str, role: Role) -> Bound {
    Bound {
        conn_id: GUEST_CONN,
        name: name.into(),
        role,
        agents: Vec::new(),
    }
}

/// What the relay does to a frame: stamp the sender.
fn relayed(f: &Frame, role: Role) -> Frame {
    f.restamp(f.kind(), GUEST_CONN, role)
}

/// How a suggestion reaches the host.
fn to_host(f: &Frame, role: Role) -> Frame {
    let kind = match f.kind() {
        FrameType::SuggestPrompt => FrameType::PromptSuggested,
        k => k,
    };
    f.restamp(kind, GUEST_CONN, role)
}

fn codec_error<T: std::fmt::Debug>(r: Result<T, ShareError>) -> CodecError {
    match r {
        Err(ShareError::Codec { source, .. }) => source,
        other => panic!("expected a codec error, got {other:?}"),
    }
}

#[test]
fn host_frames_open_for_participants_and_hide_their_text() {
    let (host_e2e, _, host, guest) = pair();
    let mut turn = host.turn(StreamId::new("p-1").unwrap());
    let msg = Message::TurnEvent(chunk(0, "BANANA-MARKER"));
    let f = relayed(&turn.frame(&msg).unwrap(), Role::Host);
    assert_eq!(f.payload()[..2], [PAYLOAD_VERSION, MODE_ROOM]);
    assert!(!String::from_utf8_lossy(&f.payload()).contains("BANANA"));
    let (got, sender) = guest.receive(&f).unwrap();
    assert_eq!(got, Some(msg));
    let sender = sender.unwrap();
    assert_eq!(sender.signer, Signer::Host);
    assert_eq!(sender.key, host_e2e.identity().public());
    assert_eq!(
        sender.evidence, None,
        "the host's frames need no evidence kept"
    );
    // Two seals of the same message differ (fresh nonce) and are numbered
    // one after the other.
    let again = turn
        .frame(&Message::TurnEvent(chunk(0, "BANANA-MARKER")))
        .unwrap();
    assert_ne!(f.payload()[6..18], again.payload()[6..18]);
    let (_, next) = guest.receive(&relayed(&again, Role::Host)).unwrap();
    assert_eq!(next.unwrap().seq, sender.seq + 1);
}

#[test]
fn a_moved_or_damaged_frame_does_not_open() {
    let (_, _, host, guest) = pair();
    let mut turn = host.turn(StreamId::new("p-1").unwrap());
    turn.frame(&Message::TurnEvent(chunk(0, "a"))).unwrap();
    let f = relayed(
        &turn.frame(&Message::TurnEvent(chunk(1, "b"))).unwrap(),
        Role::Host,
    );
    let payload = f.payload();
    let at = |kind, stream: &str, chunk| {
        Frame::build_stamped(
            kind,
            "r-e2e",
            Some(stream),
            chunk,
            GUEST_CONN,
            Some(Role::Host),
            &payload,
        )
        .unwrap()
    };
    for moved in [
        at(FrameType::StreamChunk, "p-1", 5),
        at(FrameType::StreamChunk, "p-2", 1),
        at(FrameType::StreamEnd, "p-1", 1),
        Frame::build_stamped(
            FrameType::StreamChunk,
            "r-other",
            Some("p-1"),
            1,
            GUEST_CONN,
            Some(Role::Host),
            &payload,
        )
        .unwrap(),
        relayed(&f, Role::CoDriver),
    ] {
        assert_eq!(codec_error(guest.decode(&moved)), CodecError::Tampered);
    }
    let mut flipped = payload.to_vec();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    let flipped = at(FrameType::StreamChunk, "p-1", 1).with_payload(&flipped);
    assert_eq!(codec_error(guest.decode(&flipped)), CodecError::Tampered);
    let with_version = |v: u8| {
        let mut p = payload.to_vec();
        p[0] = v;
        at(FrameType::StreamChunk, "p-1", 1).with_payload(&p)
    };
    let old = codec_error(guest.decode(&with_version(1)));
    assert_eq!(old, CodecError::OldVersion(1));
    assert!(old.to_string().contains("format v2"), "{old}");
    assert_eq!(
        codec_error(guest.decode(&with_version(3))),
        CodecError::Version(3)
    );
    let mut mode = payload.to_vec();
    mode[1] = 7;
    let mode = at(FrameType::StreamChunk, "p-1", 1).with_payload(&mode);
    assert_eq!(codec_error(guest.decode(&mode)), CodecError::Version(2));
    let short = at(FrameType::StreamChunk, "p-1", 1).with_payload(&payload[..20]);
    assert!(matches!(
        codec_error(guest.decode(&short)),
        CodecError::Truncated(20)
    ));
}

#[test]
fn nobody_but_the_host_speaks_for_the_agent_whatever_the_stamp() {
    let (host_e2e, guest_e2e, _, guest) = pair();
    // The viewer/co-driver holds the room key and seals a turn of its own,
    // and a relay stamps it HOST, CO_DRIVER or VIEWER: its key is not the
    // host's, so it does not open.
    for role in [Role::Host, Role::CoDriver, Role::Viewer] {
        let mut t = guest
            .clone()
            .as_role(role)
            .turn(StreamId::new("p-2").unwrap());
        let f = relayed(
            &t.frame(&Message::TurnEvent(chunk(0, "fake"))).unwrap(),
            role,
        );
        assert_eq!(
            codec_error(guest.decode(&f)),
            CodecError::NotFromHost("ai.stream.chunk"),
            "{role:?}"
        );
    }
    // A key rotation sealed by a participant: refused (a participant would
    // otherwise learn a key of the attacker's choosing).
    let rotate = Message::KeyRotate(KeyRotate { keys: Vec::new() });
    let f = relayed(&guest.room_frame(&rotate).unwrap(), Role::CoDriver);
    assert_eq!(
        codec_error(guest.decode(&f)),
        CodecError::NotFromHost("key.rotate")
    );
    // So is a roster.
    let roster = Message::KeyRoster(host_e2e.roster());
    let f = relayed(
        &guest
            .clone()
            .as_role(Role::Host)
            .room_frame(&roster)
            .unwrap(),
        Role::Host,
    );
    assert_eq!(
        codec_error(guest.decode(&f)),
        CodecError::NotFromHost("key.roster")
    );
    // Another host key (a relay's own "host") signs validly, but it is not
    // the invite's host key.
    let other = E2e::host(
        RoomKey::from_bytes(host_e2e.invite_keys(TICKET).room_key),
        Identity::generate().unwrap(),
    );
    let other = RoomCodec::with_codec(room(), Arc::new(other)).as_role(Role::Host);
    let f = relayed(
        &other
            .turn(StreamId::new("p-1").unwrap())
            .frame(&Message::TurnEvent(chunk(0, "fake")))
            .unwrap(),
        Role::Host,
    );
    assert_eq!(
        codec_error(guest.decode(&f)),
        CodecError::NotFromHost("ai.stream.chunk")
    );
    // A signature that does not match the key inside: refused as forged.
    let mut turn = RoomCodec::with_codec(room(), host_e2e.clone())
        .as_role(Role::Host)
        .turn(StreamId::new("p-3").unwrap());
    let header_frame = turn.frame(&Message::TurnEvent(chunk(0, "x"))).unwrap();
    let stream = StreamId::new("p-3").unwrap();
    let header = Header {
        kind: FrameType::ExecutionStarted,
        room: &room(),
        stream: Some(&stream),
        chunk: 0,
        role: Some(Role::Host),
    };
    let _ = header_frame;
    let good = host_e2e
        .seal_with(
            &header,
            SealRandom {
                nonce: [1; 12],
                eph: [2; 32],
            },
            5,
            b"{}",
        )
        .unwrap();
    // Re-seal the same inner with a flipped signature bit under the room key.
    let cipher = host_e2e.ring(|r| r.cipher(0)).unwrap();
    let ad = header.associated_data();
    let mut inner = cipher
        .decrypt(
            &Nonce::from([1u8; 12]),
            Payload {
                msg: &good[18..],
                aad: &ad,
            },
        )
        .unwrap();
    inner[40] ^= 1;
    let mut forged = good[..18].to_vec();
    forged.extend(
        cipher
            .encrypt(
                &Nonce::from([1u8; 12]),
                Payload {
                    msg: &inner,
                    aad: &ad,
                },
            )
            .unwrap(),
    );
    assert_eq!(
        guest_e2e.open(&header, &forged),
        Err(CodecError::BadSignature)
    );
}

#[test]
fn a_participant_counts_only_for_the_role_the_host_bound_and_only_while_bound() {
    let (host_e2e, guest_e2e, host, guest) = pair();
    let f = relayed(&guest.room_frame(&chat("hello")).unwrap(), Role::CoDriver);
    let (got, sender) = host.receive(&f).unwrap();
    assert_eq!(got, Some(chat("hello")));
    let sender = sender.unwrap();
    assert_eq!(
        sender.signer,
        Signer::Participant(bound("ana", Role::CoDriver))
    );
    assert!(
        sender.evidence.is_some(),
        "a participant's frame keeps its proof"
    );
    // A suggestion is sealed to the host and survives the type rewrite.
    let s = guest.room_frame(&suggestion("s-1")).unwrap();
    assert_eq!(s.payload()[..2], [PAYLOAD_VERSION, MODE_TO_HOST]);
    assert_eq!(
        host.decode(&to_host(&s, Role::CoDriver)).unwrap(),
        Some(suggestion("s-1"))
    );
    // Nobody else holding the room key opens it, not even its sender.
    assert_eq!(
        codec_error(guest.decode(&to_host(&s, Role::CoDriver))),
        CodecError::NotForUs("ai.request.prompt_suggested")
    );
    // Bound as a viewer, the same key cannot suggest, whatever the relay
    // stamps on it.
    host_e2e.bind(guest_e2e.identity().public(), bound("ana", Role::Viewer));
    let s = guest.room_frame(&suggestion("s-2")).unwrap();
    assert!(matches!(
        codec_error(host.decode(&to_host(&s, Role::CoDriver))),
        CodecError::NotAllowed {
            role: Role::Viewer,
            ..
        }
    ));
    // A key the host never bound (someone holding the room key, or the
    // relay with a viewer's keys) opens nothing but its announcement.
    let stranger = guest_of(&host_e2e.invite_keys(TICKET));
    let stranger = RoomCodec::with_codec(room(), stranger).as_role(Role::CoDriver);
    let f = relayed(&stranger.room_frame(&chat("hi")).unwrap(), Role::CoDriver);
    assert_eq!(
        codec_error(host.decode(&f)),
        CodecError::UnknownSender("chat.message")
    );
    // Removed (a kick): refused under any epoch, even bound again.
    host_e2e.remove(guest_e2e.identity().public());
    host_e2e.bind(guest_e2e.identity().public(), bound("ana", Role::CoDriver));
    let f = relayed(&guest.room_frame(&chat("back")).unwrap(), Role::CoDriver);
    assert_eq!(
        codec_error(host.decode(&f)),
        CodecError::Removed("chat.message")
    );
}

#[test]
fn participants_check_each_other_against_the_hosts_roster() {
    let (host_e2e, _, host, ana) = pair();
    let bob_e2e = guest_of(&host_e2e.invite_keys(TICKET));
    let bob = RoomCodec::with_codec(room(), bob_e2e.clone()).as_role(Role::Viewer);
    let f = relayed(&ana.room_frame(&chat("from ana")).unwrap(), Role::CoDriver);
    // Bob has no roster yet: ana is nobody to him.
    assert_eq!(
        codec_error(bob.decode(&f)),
        CodecError::UnknownSender("chat.message")
    );
    let roster = relayed(
        &host
            .room_frame(&Message::KeyRoster(host_e2e.roster()))
            .unwrap(),
        Role::Host,
    );
    let Some(Message::KeyRoster(r)) = bob.decode(&roster).unwrap() else {
        panic!("not a roster")
    };
    assert_eq!(r.members.len(), 1);
    assert_eq!(r.members[0].role, Role::CoDriver);
    bob_e2e.take_roster(&r);
    let (got, sender) = bob.receive(&f).unwrap();
    assert_eq!(got, Some(chat("from ana")));
    assert_eq!(
        sender.unwrap().signer,
        Signer::Participant(bound("ana", Role::CoDriver))
    );
}

#[test]
fn a_frame_taken_again_is_a_replay_but_stream_chunks_are_placed_by_index() {
    let (_, _, host, guest) = pair();
    let mut at_host = crate::Replays::default();
    // A co-driver's suggestion replayed to the host (issue 37: with
    // `--suggestions accept` it ran the agent again).
    let f = to_host(
        &guest.room_frame(&suggestion("s-1")).unwrap(),
        Role::CoDriver,
    );
    let (_, sender) = host.receive(&f).unwrap();
    assert!(at_host.first_time(&f, sender.as_ref()));
    // Opening it again (to show it) is fine; taking it again is a replay.
    let (_, sender) = host.receive(&f).unwrap();
    assert!(!at_host.first_time(&f, sender.as_ref()));
    // The co-driver sending it again is a new frame (a new number).
    let again = to_host(
        &guest.room_frame(&suggestion("s-1")).unwrap(),
        Role::CoDriver,
    );
    let (_, sender) = host.receive(&again).unwrap();
    assert!(at_host.first_time(&again, sender.as_ref()));
    // A host chat replayed to a participant.
    let mut at_guest = crate::Replays::default();
    let f = relayed(&host.room_frame(&chat("hello")).unwrap(), Role::Host);
    let (_, sender) = guest.receive(&f).unwrap();
    assert!(at_guest.first_time(&f, sender.as_ref()));
    assert!(!at_guest.first_time(&f, sender.as_ref()));
    // A stream chunk the relay resends on resume is placed by its index.
    let mut turn = host.turn(StreamId::new("p-1").unwrap());
    let f = relayed(
        &turn.frame(&Message::TurnEvent(chunk(0, "hi"))).unwrap(),
        Role::Host,
    );
    let (_, sender) = guest.receive(&f).unwrap();
    assert!(at_guest.first_time(&f, sender.as_ref()));
    assert!(at_guest.first_time(&f, sender.as_ref()));
}

fn announce_of(guest: &E2e, conn: u64, ticket: &[u8; 16]) -> KeyAnnounce {
    let ed = guest.identity().public();
    let x = guest.identity().x25519().public_bytes();
    KeyAnnounce {
        ed25519: b64(&ed),
        x25519: b64(&x),
        name: Some("ann".into()),
        ticket: b64(&ticket_id(ticket)),
        proof: b64(&bind_proof(ticket, &room(), conn, &ed, &x)),
    }
}

#[test]
fn an_announcement_binds_only_with_the_invites_ticket_on_its_own_connection() {
    let (host_e2e, _, host, _) = pair();
    let newcomer = guest_of(&host_e2e.invite_keys(TICKET));
    let codec = RoomCodec::with_codec(room(), newcomer.clone()).as_role(Role::Viewer);
    let a = announce_of(&newcomer, 12, &TICKET);
    let f = to_host(
        &codec.room_frame(&Message::KeyAnnounce(a.clone())).unwrap(),
        Role::Viewer,
    );
    assert_eq!(f.payload()[1], MODE_TO_HOST);
    let (got, sender) = host.receive(&f).unwrap();
    assert_eq!(got, Some(Message::KeyAnnounce(a.clone())));
    assert_eq!(sender.unwrap().signer, Signer::Unbound);
    assert!(announce_holds(&room(), 12, &TICKET, &a));
    assert!(
        !announce_holds(&room(), 13, &TICKET, &a),
        "another connection"
    );
    assert!(!announce_holds(&room(), 12, &[8; 16], &a), "another invite");
    assert!(!announce_holds(
        &RoomId::new("r-2").unwrap(),
        12,
        &TICKET,
        &a
    ));
    let mut swapped = a;
    swapped.ed25519 = b64(&[5; 32]);
    assert!(
        !announce_holds(&room(), 12, &TICKET, &swapped),
        "another key"
    );
    swapped.proof = "!!".into();
    assert!(!announce_holds(&room(), 12, &TICKET, &swapped));
}

#[test]
fn rotation_shuts_out_the_old_key_and_reaches_announced_participants() {
    let (host_e2e, guest_e2e, host, guest) = pair();
    // A kicked participant keeps a copy of the invite's keys.
    let kicked = RoomCodec::with_codec(room(), guest_of(&host_e2e.invite_keys(TICKET)));
    let epoch = host_e2e.rotate().unwrap();
    assert_eq!(epoch, 1);
    let x = guest_e2e.identity().x25519().public_b64();
    let keys = host_e2e
        .later_keys()
        .iter()
        .map(|(e, k)| wrap_key(&room(), *e, k, GUEST_CONN, &x).unwrap())
        .collect();
    let rotate = Message::KeyRotate(KeyRotate { keys });
    let f = relayed(&host.room_frame(&rotate).unwrap(), Role::Host);
    assert_eq!(
        f.payload()[2..6],
        [0, 0, 0, 0],
        "key.rotate is sealed under epoch 0"
    );
    let Some(Message::KeyRotate(r)) = guest.decode(&f).unwrap() else {
        panic!("not a rotate")
    };
    for w in &r.keys {
        let k = unwrap_key(&room(), guest_e2e.identity().x25519(), w).unwrap();
        guest_e2e.learn(w.epoch, k);
    }
    assert_eq!(guest_e2e.current_epoch(), 1);
    // Another participant's key pair cannot unwrap it.
    let stranger = KeyPair::generate().unwrap();
    assert_eq!(
        unwrap_key(&room(), &stranger, &r.keys[0]),
        Err(CodecError::Tampered)
    );
    let msg = Message::TurnEvent(chunk(0, "after"));
    let f = relayed(
        &host
            .turn(StreamId::new("p-2").unwrap())
            .frame(&msg)
            .unwrap(),
        Role::Host,
    );
    assert_eq!(f.payload()[2..6], [0, 0, 0, 1]);
    assert_eq!(guest.decode(&f).unwrap(), Some(msg));
    assert_eq!(codec_error(kicked.decode(&f)), CodecError::UnknownEpoch(1));
    // Forcing the old key onto the new epoch does not help either.
    let mut forced = f.payload().to_vec();
    forced[2..6].copy_from_slice(&0u32.to_be_bytes());
    let forced = f.with_payload(&forced);
    assert_eq!(codec_error(kicked.decode(&forced)), CodecError::Tampered);
    // A co-driver's frame now goes out under epoch 1 too.
    let c = guest.room_frame(&chat("x")).unwrap();
    assert_eq!(c.payload()[2..6], [0, 0, 0, 1]);
}

#[test]
fn low_order_and_damaged_keys_are_refused() {
    let zero = b64(&[0u8; 32]);
    let k = RoomKey::generate().unwrap();
    assert!(matches!(
        wrap_key(&room(), 1, &k, 1, &zero),
        Err(CodecError::BadKey(_))
    ));
    assert!(matches!(
        wrap_key(&room(), 1, &k, 1, "short"),
        Err(CodecError::BadKey(_))
    ));
    // A participant whose invite names a low-order host X25519 key cannot
    // seal to it (nobody could read the frame but anyone could).
    let host = E2e::generate_host().unwrap();
    let mut keys = host.invite_keys(TICKET);
    keys.host_x25519 = [0; 32];
    let guest = RoomCodec::with_codec(room(), guest_of(&keys)).as_role(Role::CoDriver);
    assert!(matches!(
        guest.room_frame(&suggestion("s-1")),
        Err(ShareError::Codec {
            source: CodecError::BadKey(_),
            ..
        })
    ));
}

// ----- test vectors (crates/cohost-share/tests/vectors/e2e-v2.json) -----

const ROOM_KEY: [u8; 32] = [0x11; 32];
const HOST_SEED: [u8; 32] = [0x22; 32];
const HOST_X_SECRET: [u8; 32] = [0x23; 32];
const GUEST_SEED: [u8; 32] = [0x24; 32];
const GUEST_X_SECRET: [u8; 32] = [0x25; 32];
const VIEWER_SEED: [u8; 32] = [0x26; 32];
const VIEWER_X_SECRET: [u8; 32] = [0x27; 32];
const VEC_TICKET: [u8; 16] = [0x28; 16];
const NONCE: [u8; 12] = [0x33; 12];
const SEAL_EPH: [u8; 32] = [0x34; 32];
const FIRST_SEQ: u64 = 1_700_000_000_000_000;
const RECIPIENT_SECRET: [u8; 32] = [0x44; 32];
const EPH_SECRET: [u8; 32] = [0x55; 32];
const WRAP_NONCE: [u8; 12] = [0x66; 12];
const ROTATED_KEY: [u8; 32] = [0x77; 32];
const VEC_GUEST_CONN: u64 = 42;

struct Vec2 {
    host: E2e,
    guest: E2e,
    viewer: E2e,
}

fn vector_codecs() -> Vec2 {
    let host = E2e::host(
        RoomKey::from_bytes(ROOM_KEY),
        Identity::numbered_from(HOST_SEED, HOST_X_SECRET, FIRST_SEQ),
    );
    let keys = host.invite_keys(VEC_TICKET);
    let guest = E2e::participant(
        &keys,
        Identity::numbered_from(GUEST_SEED, GUEST_X_SECRET, FIRST_SEQ + 100),
    )
    .unwrap();
    let viewer = E2e::participant(
        &keys,
        Identity::numbered_from(VIEWER_SEED, VIEWER_X_SECRET, FIRST_SEQ + 200),
    )
    .unwrap();
    host.bind(
        guest.identity().public(),
        Bound {
            conn_id: VEC_GUEST_CONN,
            name: "ana".into(),
            role: Role::CoDriver,
            agents: Vec::new(),
        },
    );
    host.bind(
        viewer.identity().public(),
        Bound {
            conn_id: 43,
            name: "bo".into(),
            role: Role::Viewer,
            agents: Vec::new(),
        },
    );
    Vec2 {
        host,
        guest,
        viewer,
    }
}

#[allow(clippy::too_many_arguments)]
fn vector_frame(
    codec: &E2e,
    name: &str,
    kind: FrameType,
    role: Role,
    stream: Option<&str>,
    chunk: u64,
    seq: u64,
    body: &str,
) -> Value {
    let room = RoomId::new("room-vec").unwrap();
    let stream = stream.map(|s| StreamId::new(s).unwrap());
    let header = Header {
        kind,
        room: &room,
        stream: stream.as_ref(),
        chunk,
        role: Some(role),
    };
    let random = SealRandom {
        nonce: NONCE,
        eph: SEAL_EPH,
    };
    let payload = codec
        .seal_with(&header, random, seq, body.as_bytes())
        .unwrap();
    json!({
        "name": name,
        "sender_ed25519_hex": hex(&codec.identity().public()),
        "ad_inputs": {
            "envelope_version": 1,
            "frame_type": kind.name(),
            "frame_type_code": kind.code(),
            "sender_role": role.as_str(),
            "sender_role_code": role.code(),
            "chunk": chunk,
            "room": room.as_str(),
            "stream": stream.as_ref().map(|s| s.as_str()),
        },
        "ad_hex": hex(&header.associated_data()),
        "mode": payload[1],
        "epoch": 0,
        "seq": seq,
        "nonce_hex": hex(&NONCE),
        "eph_secret_hex": (payload[1] == MODE_TO_HOST).then(|| hex(&SEAL_EPH)),
        "body": body,
        "payload_hex": hex(&payload),
    })
}

fn vectors() -> Value {
    let Vec2 {
        host,
        guest,
        viewer,
    } = vector_codecs();
    let keys = host.invite_keys(VEC_TICKET);
    let recipient = KeyPair::from_secret(RECIPIENT_SECRET);
    let room = RoomId::new("room-vec").unwrap();
    let wrapped = wrap::wrap_key_with(
        EPH_SECRET,
        WRAP_NONCE,
        &room,
        1,
        &RoomKey::from_bytes(ROTATED_KEY),
        VEC_GUEST_CONN,
        &recipient.public_b64(),
    )
    .unwrap();
    let ed = guest.identity().public();
    let x = guest.identity().x25519().public_bytes();
    let announce = KeyAnnounce {
        ed25519: b64(&ed),
        x25519: b64(&x),
        name: Some("ana".into()),
        ticket: b64(&ticket_id(&VEC_TICKET)),
        proof: b64(&bind_proof(&VEC_TICKET, &room, VEC_GUEST_CONN, &ed, &x)),
    };
    let announce_body =
        String::from_utf8(Message::KeyAnnounce(announce).to_json(&shapes()).unwrap()).unwrap();
    let roster_body = String::from_utf8(
        Message::KeyRoster(host.roster())
            .to_json(&shapes())
            .unwrap(),
    )
    .unwrap();
    let door_body = String::from_utf8(
        Message::KeyDoor(crate::KeyDoor {
            to: VEC_GUEST_CONN,
            answer: crate::DoorAnswer::Waiting,
            timeout_secs: Some(300),
        })
        .to_json(&shapes())
        .unwrap(),
    )
    .unwrap();
    json!({
        "format": "cohost e2e payload v2 (docs/sharing-e2e.md)",
        "note": "generated by cohost-share's e2e unit tests (COHOST_WRITE_VECTORS=1 regenerates); the test fails when the code and this file disagree",
        "room": "room-vec",
        "room_key_hex": hex(&ROOM_KEY),
        "host_seed_hex": hex(&HOST_SEED),
        "host_x25519_secret_hex": hex(&HOST_X_SECRET),
        "host_public_hex": hex(&keys.host_public),
        "host_x25519_public_hex": hex(&keys.host_x25519),
        "ticket_hex": hex(&VEC_TICKET),
        "ticket_id_hex": hex(&ticket_id(&VEC_TICKET)),
        "invite_fragment_keys": format!("{}.{}.{}.{}", b64(&keys.room_key), b64(&keys.host_public), b64(&keys.host_x25519), b64(&keys.ticket)),
        "participants": [
            {"name": "ana", "role": "CO_DRIVER", "conn_id": VEC_GUEST_CONN, "seed_hex": hex(&GUEST_SEED), "x25519_secret_hex": hex(&GUEST_X_SECRET), "ed25519_hex": hex(&ed), "x25519_hex": hex(&x)},
            {"name": "bo", "role": "VIEWER", "conn_id": 43, "seed_hex": hex(&VIEWER_SEED), "x25519_secret_hex": hex(&VIEWER_X_SECRET), "ed25519_hex": hex(&viewer.identity().public()), "x25519_hex": hex(&viewer.identity().x25519().public_bytes())},
        ],
        "frames": [
            vector_frame(&host, "host stream chunk", FrameType::StreamChunk, Role::Host, Some("p-1"), 3, FIRST_SEQ,
                r#"{"type":"stream_chunk","delta":"Hello"}"#),
            vector_frame(&guest, "co-driver chat", FrameType::ChatMessage, Role::CoDriver, None, 0, FIRST_SEQ + 100,
                r#"{"text":"hi"}"#),
            // A room of several agents: the member travels inside the sealed
            // body, never in the envelope the relay reads.
            vector_frame(&guest, "co-driver suggestion to one room member, sealed to the host", FrameType::SuggestPrompt, Role::CoDriver, None, 0, FIRST_SEQ + 101,
                r#"{"suggestion_id":"s-1","text":"add a test","from":"ana","to":"codex"}"#),
            vector_frame(&viewer, "viewer approval vote, sealed to the host", FrameType::ApprovalVote, Role::Viewer, None, 0, FIRST_SEQ + 200,
                r#"{"tool_id":"t-1","allow":true}"#),
            vector_frame(&guest, "co-driver key announce, sealed to the host", FrameType::KeyAnnounce, Role::CoDriver, None, 0, FIRST_SEQ + 102,
                &announce_body),
            vector_frame(&host, "host key roster", FrameType::KeyRoster, Role::Host, None, 0, FIRST_SEQ + 1,
                &roster_body),
            vector_frame(&host, "room member's turn start", FrameType::ExecutionStarted, Role::Host, Some("p-2"), 0, FIRST_SEQ + 2,
                r#"{"prompt_id":"p-2","correlation_id":"s-1","text":"add a test","provider":"codex","origin":"s-1","agent":"codex"}"#),
            vector_frame(&host, "room member's stream chunk", FrameType::StreamChunk, Role::Host, Some("p-2"), 1, FIRST_SEQ + 3,
                r#"{"id":"p-2.1","prompt_id":"p-2","correlation_id":"s-1","ts":1,"agent":"codex","type":"stream_chunk","stream_id":"p-2","chunk_index":0,"delta":"Hi"}"#),
            // `--knock`: the host's answer to one connection at the door,
            // under the invite's key (epoch 0) whatever the room's epoch.
            vector_frame(&host, "host door answer", FrameType::KeyDoor, Role::Host, None, 0, FIRST_SEQ + 4,
                &door_body),
        ],
        "wrap": {
            "room": "room-vec",
            "epoch": 1,
            "to": VEC_GUEST_CONN,
            "room_key_hex": hex(&ROTATED_KEY),
            "recipient_secret_hex": hex(&RECIPIENT_SECRET),
            "recipient_public": recipient.public_b64(),
            "eph_secret_hex": hex(&EPH_SECRET),
            "nonce_hex": hex(&WRAP_NONCE),
            "expected": wrapped,
        },
    })
}

/// `--knock`: a room at epoch 1 still answers someone at the door under
/// epoch 0, the only key an invite carries, and only the host may answer.
#[test]
fn a_door_answer_opens_with_the_invite_alone_and_only_from_the_host() {
    let (host_e2e, guest_e2e, host, guest) = pair();
    host_e2e.rotate().unwrap();
    let door = Message::KeyDoor(crate::KeyDoor {
        to: 7,
        answer: crate::DoorAnswer::Refused,
        timeout_secs: None,
    });
    let f = relayed(&host.room_frame(&door).unwrap(), Role::Host);
    assert_eq!(guest_e2e.current_epoch(), 0);
    assert_eq!(guest.decode(&f).unwrap(), Some(door.clone()));
    // A participant holding the invite cannot answer for the host.
    let forged = relayed(&guest.room_frame(&door).unwrap(), Role::CoDriver);
    assert_eq!(
        codec_error(guest.decode(&forged)),
        CodecError::NotFromHost("key.door")
    );
}

const VECTOR_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/e2e-v2.json");

#[test]
fn the_test_vector_file_matches_the_code() {
    let want = vectors();
    if std::env::var_os("COHOST_WRITE_VECTORS").is_some() {
        std::fs::write(
            VECTOR_FILE,
            serde_json::to_string_pretty(&want).unwrap() + "\n",
        )
        .unwrap();
    }
    let have: Value = serde_json::from_str(&std::fs::read_to_string(VECTOR_FILE).unwrap()).unwrap();
    assert_eq!(
        have, want,
        "regenerate with COHOST_WRITE_VECTORS=1 only for a deliberate format change"
    );
    // And the receiving side opens every frame the file holds: the host
    // what is sealed to it, a participant (with the host's roster) the rest.
    let Vec2 { host, viewer, .. } = vector_codecs();
    viewer.take_roster(&host.roster());
    let room = RoomId::new("room-vec").unwrap();
    for f in have["frames"].as_array().unwrap() {
        let kind = FrameType::from_name(f["ad_inputs"]["frame_type"].as_str().unwrap()).unwrap();
        let stream = f["ad_inputs"]["stream"]
            .as_str()
            .map(|s| StreamId::new(s).unwrap());
        let role = match f["ad_inputs"]["sender_role_code"].as_u64().unwrap() {
            1 => Role::Host,
            2 => Role::CoDriver,
            _ => Role::Viewer,
        };
        let header = Header {
            kind,
            room: &room,
            stream: stream.as_ref(),
            chunk: f["ad_inputs"]["chunk"].as_u64().unwrap(),
            role: Some(role),
        };
        let payload = unhex(f["payload_hex"].as_str().unwrap());
        let receiver = if f["mode"] == 1 { &host } else { &viewer };
        let opened = receiver.open(&header, &payload).unwrap_or_else(|e| {
            panic!("{}: {e}", f["name"]);
        });
        assert_eq!(opened.body, f["body"].as_str().unwrap().as_bytes());
        assert_eq!(opened.sender.unwrap().seq, f["seq"].as_u64().unwrap());
    }
    let w: crate::WrappedKey = serde_json::from_value(have["wrap"]["expected"].clone()).unwrap();
    let k = unwrap_key(&room, &KeyPair::from_secret(RECIPIENT_SECRET), &w).unwrap();
    assert_eq!(k.to_bytes(), ROTATED_KEY);
}

/// The independent implementation (Python, on the `cryptography` package)
/// agrees with the vector file: it rebuilds every AD, signature, payload,
/// ticket id, proof and wrap from the secrets in the file alone.
#[test]
fn python_implementation_agrees() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/check_v2.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(VECTOR_FILE)
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => panic!("python3 is needed for this test (scripts/test.sh installs it): {e}"),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("No module named 'cryptography'") {
        if std::env::var_os("CI").is_some() {
            panic!("the Python package cryptography is missing in CI: {stderr}");
        }
        eprintln!("SKIP python_implementation_agrees: pip install cryptography");
        return;
    }
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("frames ok: 9"), "{stdout}");
}

#[test]
fn the_room_member_vectors_are_what_the_code_writes() {
    // The bodies in the vector file are the messages a room host and a
    // co-driver really send, byte for byte: a member named in the body, not
    // the envelope.
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/vectors/e2e-v2.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let body = |name: &str| -> String {
        file["frames"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("no vector {name}"))["body"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let suggestion = Message::Suggestion(crate::Suggestion {
        suggestion_id: "s-1".into(),
        text: "add a test".into(),
        from: Some("ana".into()),
        to: Some("codex".into()),
    });
    let started = Message::ExecutionStarted(crate::ExecutionStarted {
        prompt_id: "p-2".into(),
        correlation_id: "s-1".into(),
        text: "add a test".into(),
        provider: "codex".into(),
        origin: "s-1".into(),
        agent: Some("codex".into()),
    });
    let mut chunk = cohost_core::Event::from_json_line(
        r#"{"id":"p-2.1","prompt_id":"p-2","correlation_id":"s-1","ts":1,"type":"stream_chunk","stream_id":"p-2","chunk_index":0,"delta":"Hi"}"#,
    )
    .unwrap();
    chunk.agent = Some("codex".into());
    for (name, msg) in [
        (
            "co-driver suggestion to one room member, sealed to the host",
            suggestion,
        ),
        ("room member's turn start", started),
        ("room member's stream chunk", Message::TurnEvent(chunk)),
    ] {
        let wrote = String::from_utf8(msg.to_json(&shapes()).unwrap()).unwrap();
        assert_eq!(wrote, body(name), "{name}");
        // And it reads back as the same message, member included.
        assert_eq!(
            Message::from_json(msg.frame_type(), wrote.as_bytes())
                .unwrap()
                .as_ref(),
            Some(&msg)
        );
    }
}

#[test]
fn a_co_driver_speaks_only_for_the_member_the_host_admitted_from_her_machine() {
    let (host_e2e, guest_e2e, host, guest) = pair();
    let ana = guest_e2e.identity().public();
    let bob = guest_of(&host_e2e.invite_keys(TICKET));
    let owned = |agent: Option<&str>| {
        let mut e = chunk(0, "from her machine");
        e.agent = agent.map(str::to_owned);
        Message::TurnEvent(e)
    };
    let seal = |msg: &Message| {
        let mut t = guest.turn(StreamId::new("m7-p-1").unwrap());
        relayed(&t.frame(msg).unwrap(), Role::CoDriver)
    };
    // Before the host admits a member of hers: the host's alone.
    let f = seal(&owned(Some("codex@ana")));
    assert_eq!(
        codec_error(host.decode(&f)),
        CodecError::NotFromHost("ai.stream.chunk")
    );
    assert!(host_e2e.admit_member(&ana, "codex@ana"));
    // An unbound key gets no member.
    assert!(!host_e2e.admit_member(&[9; 32], "x@y"));
    bob.take_roster(&host_e2e.roster());
    assert_eq!(host_e2e.roster().members[0].agents, ["codex@ana"]);
    let bob = RoomCodec::with_codec(room(), bob).as_role(Role::Viewer);
    for reader in [&host, &bob] {
        let (got, sender) = reader.receive(&f).unwrap();
        assert_eq!(got, Some(owned(Some("codex@ana"))));
        assert!(matches!(sender.unwrap().signer, Signer::Participant(b) if b.name == "ana"));
        // Another member's turn, or one naming none: refused.
        for other in [Some("claude"), None] {
            let f = seal(&owned(other));
            assert!(
                matches!(codec_error(reader.decode(&f)), CodecError::NotOwner { ref agent, .. } if agent == other.unwrap_or("nobody")),
                "{other:?}"
            );
        }
        // Her member does not make her the host: the room's frames stay
        // the host's.
        let roster = Message::KeyRoster(host_e2e.roster());
        let f = relayed(&guest.room_frame(&roster).unwrap(), Role::CoDriver);
        assert_eq!(
            codec_error(reader.decode(&f)),
            CodecError::NotFromHost("key.roster")
        );
    }
    // Dropped: her turns are the host's again.
    host_e2e.drop_member("codex@ana");
    assert_eq!(
        codec_error(host.decode(&seal(&owned(Some("codex@ana"))))),
        CodecError::NotFromHost("ai.stream.chunk")
    );
}
