use std::sync::Arc;

use cohost_core::Event;
use cohost_protocol::{Frame, FrameType, Role, RoomId, StreamId};
use serde_json::{json, Value};

use super::*;
use crate::payload::{Chat, KeyRotate};
use crate::{Message, RoomCodec, ShareError};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn room() -> RoomId {
    RoomId::new("r-e2e").unwrap()
}

fn chunk(i: u64, delta: &str) -> Event {
    Event::from_json_line(&format!(
        r#"{{"id":"p-1.{i}","prompt_id":"p-1","correlation_id":"c-1","ts":1,"type":"stream_chunk","stream_id":"text","chunk_index":{i},"delta":"{delta}"}}"#
    ))
    .unwrap()
}

/// A host codec, a co-driver codec holding its invite's keys, and their
/// room codecs.
fn pair() -> (Arc<E2e>, Arc<E2e>, RoomCodec, RoomCodec) {
    let host = Arc::new(E2e::generate_host().unwrap());
    let guest = Arc::new(E2e::participant(&host.invite_keys()).unwrap());
    let h = RoomCodec::with_codec(room(), host.clone()).as_role(Role::Host);
    let g = RoomCodec::with_codec(room(), guest.clone()).as_role(Role::CoDriver);
    (host, guest, h, g)
}

/// What the relay does to a frame: stamp the sender.
fn relayed(f: &Frame, role: Role) -> Frame {
    f.restamp(f.kind(), 7, role)
}

fn codec_error(r: Result<Option<Message>, ShareError>) -> CodecError {
    match r {
        Err(ShareError::Codec { source, .. }) => source,
        other => panic!("expected a codec error, got {other:?}"),
    }
}

#[test]
fn host_frames_open_for_participants_and_hide_their_text() {
    let (_, _, host, guest) = pair();
    let mut turn = host.turn(StreamId::new("p-1").unwrap());
    let msg = Message::TurnEvent(chunk(0, "BANANA-MARKER"));
    let f = relayed(&turn.frame(&msg).unwrap(), Role::Host);
    assert_eq!(f.payload()[0], PAYLOAD_VERSION);
    assert!(!String::from_utf8_lossy(&f.payload()).contains("BANANA"));
    assert_eq!(guest.decode(&f).unwrap(), Some(msg));
    // Two seals of the same message differ (fresh nonce).
    let again = turn
        .frame(&Message::TurnEvent(chunk(0, "BANANA-MARKER")))
        .unwrap();
    assert_ne!(f.payload()[5..17], again.payload()[5..17]);
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
            7,
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
            7,
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
    let mut v2 = payload.to_vec();
    v2[0] = 2;
    let v2 = at(FrameType::StreamChunk, "p-1", 1).with_payload(&v2);
    assert_eq!(codec_error(guest.decode(&v2)), CodecError::Version(2));
    let short = at(FrameType::StreamChunk, "p-1", 1).with_payload(&payload[..20]);
    assert!(matches!(
        codec_error(guest.decode(&short)),
        CodecError::Truncated(20)
    ));
}

#[test]
fn a_participant_with_the_room_key_cannot_forge_host_frames() {
    let (host_e2e, _, _, guest) = pair();
    // The co-driver seals a chunk as if it were the host and a relay stamps
    // it HOST: unsigned, refused.
    let forger = guest.clone().as_role(Role::Host);
    let mut turn = forger.turn(StreamId::new("p-1").unwrap());
    let forged = turn.frame(&Message::TurnEvent(chunk(0, "fake"))).unwrap();
    let f = relayed(&forged, Role::Host);
    assert_eq!(
        codec_error(guest.decode(&f)),
        CodecError::NotFromHost("ai.stream.chunk")
    );
    // Issue 37: the same forgery stamped CO_DRIVER or VIEWER (which the
    // relay could do for a turn a viewer sealed) is refused as well: only the
    // host speaks for the agent, whatever the stamp.
    let sealed_as = |role| {
        let mut t = guest
            .clone()
            .as_role(role)
            .turn(StreamId::new("p-2").unwrap());
        relayed(
            &t.frame(&Message::TurnEvent(chunk(0, "fake"))).unwrap(),
            role,
        )
    };
    for role in [Role::CoDriver, Role::Viewer] {
        assert_eq!(
            codec_error(guest.decode(&sealed_as(role))),
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
    // Signed by another host key: refused.
    let other = Arc::new(E2e::host(
        RoomKey::from_bytes(host_e2e.invite_keys().room_key),
        [3; 32],
    ));
    let other = RoomCodec::with_codec(room(), other).as_role(Role::Host);
    let f = relayed(
        &other
            .turn(StreamId::new("p-1").unwrap())
            .frame(&Message::TurnEvent(chunk(0, "fake")))
            .unwrap(),
        Role::Host,
    );
    assert_eq!(codec_error(guest.decode(&f)), CodecError::BadSignature);
}

#[test]
fn participants_frames_open_for_the_host_and_suggestions_survive_the_type_rewrite() {
    let (_, _, host, guest) = pair();
    let chat = Message::Chat(Chat {
        from: None,
        text: "hello".into(),
        members: None,
    });
    let f = relayed(&guest.room_frame(&chat).unwrap(), Role::CoDriver);
    assert_eq!(host.decode(&f).unwrap(), Some(chat));
    let s = Message::Suggestion(crate::Suggestion {
        suggestion_id: "s-1".into(),
        text: "run the tests".into(),
        from: None,
        to: Some("codex".into()),
    });
    let f = guest.room_frame(&s).unwrap();
    let delivered = f.restamp(FrameType::PromptSuggested, 7, Role::CoDriver);
    assert_eq!(host.decode(&delivered).unwrap(), Some(s));
}

#[test]
fn a_frame_taken_again_is_a_replay_but_stream_chunks_are_placed_by_index() {
    let (_, _, host, guest) = pair();
    let mut at_host = crate::Replays::default();
    // A co-driver's suggestion replayed to the host (issue 37: with
    // `--suggestions accept` it ran the agent again).
    let s = Message::Suggestion(crate::Suggestion {
        suggestion_id: "s-1".into(),
        text: "run the tests".into(),
        from: None,
        to: None,
    });
    let f = guest
        .room_frame(&s)
        .unwrap()
        .restamp(FrameType::PromptSuggested, 7, Role::CoDriver);
    assert_eq!(host.decode(&f).unwrap(), Some(s.clone()));
    assert!(at_host.first_time(&f));
    // Opening it again (to show it) is fine; taking it again is a replay.
    assert_eq!(host.decode(&f).unwrap(), Some(s.clone()));
    assert!(!at_host.first_time(&f));
    // Sealed again (a new nonce), the same text is a new suggestion.
    let again =
        guest
            .room_frame(&s)
            .unwrap()
            .restamp(FrameType::PromptSuggested, 7, Role::CoDriver);
    assert!(at_host.first_time(&again));
    // A host chat replayed to a participant.
    let mut at_guest = crate::Replays::default();
    let chat = Message::Chat(Chat {
        from: None,
        text: "hello".into(),
        members: None,
    });
    let f = relayed(&host.room_frame(&chat).unwrap(), Role::Host);
    assert!(at_guest.first_time(&f));
    assert!(!at_guest.first_time(&f));
    // A stream chunk the relay resends on resume is placed by its index.
    let mut turn = host.turn(StreamId::new("p-1").unwrap());
    let f = relayed(
        &turn.frame(&Message::TurnEvent(chunk(0, "hi"))).unwrap(),
        Role::Host,
    );
    assert!(at_guest.first_time(&f));
    assert!(at_guest.first_time(&f));
}

#[test]
fn rotation_shuts_out_the_old_key_and_reaches_announced_participants() {
    let (host_e2e, guest_e2e, host, guest) = pair();
    // A kicked participant keeps a copy of the invite's codec.
    let kicked = RoomCodec::with_codec(
        room(),
        Arc::new(E2e::participant(&host_e2e.invite_keys()).unwrap()),
    );
    let pair_kp = KeyPair::generate().unwrap();
    let announce = Message::KeyAnnounce(crate::KeyAnnounce {
        x25519: pair_kp.public_b64(),
        name: Some("ann".into()),
    });
    let f = relayed(&guest.room_frame(&announce).unwrap(), Role::CoDriver);
    let Some(Message::KeyAnnounce(a)) = host.decode(&f).unwrap() else {
        panic!("not an announce")
    };
    let epoch = host_e2e.rotate().unwrap();
    assert_eq!(epoch, 1);
    let keys = host_e2e
        .later_keys()
        .iter()
        .map(|(e, k)| wrap_key(&room(), *e, k, 7, &a.x25519).unwrap())
        .collect();
    let rotate = Message::KeyRotate(KeyRotate { keys });
    let f = relayed(&host.room_frame(&rotate).unwrap(), Role::Host);
    assert_eq!(
        f.payload()[1..5],
        [0, 0, 0, 0],
        "key.rotate is sealed under epoch 0"
    );
    let Some(Message::KeyRotate(r)) = guest.decode(&f).unwrap() else {
        panic!("not a rotate")
    };
    for w in &r.keys {
        guest_e2e.learn(w.epoch, unwrap_key(&room(), &pair_kp, w).unwrap());
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
    assert_eq!(f.payload()[1..5], [0, 0, 0, 1]);
    assert_eq!(guest.decode(&f).unwrap(), Some(msg));
    assert_eq!(codec_error(kicked.decode(&f)), CodecError::UnknownEpoch(1));
    // Forcing the old key onto the new epoch does not help either.
    let mut forced = f.payload().to_vec();
    forced[1..5].copy_from_slice(&0u32.to_be_bytes());
    let forced = f.with_payload(&forced);
    assert_eq!(codec_error(kicked.decode(&forced)), CodecError::Tampered);
    // A co-driver's frame now goes out under epoch 1 too.
    let chat = guest
        .room_frame(&Message::Chat(Chat {
            from: None,
            text: "x".into(),
            members: None,
        }))
        .unwrap();
    assert_eq!(chat.payload()[1..5], [0, 0, 0, 1]);
}

#[test]
fn low_order_and_damaged_keys_are_refused() {
    let zero = base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, [0u8; 32]);
    let k = RoomKey::generate().unwrap();
    assert!(matches!(
        wrap_key(&room(), 1, &k, 1, &zero),
        Err(CodecError::BadKey(_))
    ));
    assert!(matches!(
        wrap_key(&room(), 1, &k, 1, "short"),
        Err(CodecError::BadKey(_))
    ));
}

// ----- test vectors (crates/cohost-share/tests/vectors/e2e-v1.json) -----

const ROOM_KEY: [u8; 32] = [0x11; 32];
const HOST_SEED: [u8; 32] = [0x22; 32];
const NONCE: [u8; 12] = [0x33; 12];
const RECIPIENT_SECRET: [u8; 32] = [0x44; 32];
const EPH_SECRET: [u8; 32] = [0x55; 32];
const WRAP_NONCE: [u8; 12] = [0x66; 12];
const ROTATED_KEY: [u8; 32] = [0x77; 32];

fn vector_frame(
    codec: &E2e,
    name: &str,
    kind: FrameType,
    role: Role,
    stream: Option<&str>,
    chunk: u64,
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
    let payload = codec.seal_with(&header, NONCE, body.as_bytes()).unwrap();
    json!({
        "name": name,
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
        "epoch": 0,
        "nonce_hex": hex(&NONCE),
        "body": body,
        "payload_hex": hex(&payload),
    })
}

fn vectors() -> Value {
    let host = E2e::host(RoomKey::from_bytes(ROOM_KEY), HOST_SEED);
    let participant = E2e::participant(&host.invite_keys()).unwrap();
    let keys = host.invite_keys();
    let recipient = KeyPair::from_secret(RECIPIENT_SECRET);
    let wrapped = wrap::wrap_key_with(
        EPH_SECRET,
        WRAP_NONCE,
        &RoomId::new("room-vec").unwrap(),
        1,
        &RoomKey::from_bytes(ROTATED_KEY),
        42,
        &recipient.public_b64(),
    )
    .unwrap();
    let b64 =
        |b: &[u8]| base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, b);
    json!({
        "format": "cohost e2e payload v1 (docs/sharing-e2e.md)",
        "note": "generated by cohost-share's e2e unit tests (COHOST_WRITE_VECTORS=1 regenerates); the test fails when the code and this file disagree",
        "room_key_hex": hex(&ROOM_KEY),
        "host_seed_hex": hex(&HOST_SEED),
        "host_public_hex": hex(&keys.host_public),
        "invite_fragment_keys": format!("{}.{}", b64(&keys.room_key), b64(&keys.host_public)),
        "frames": [
            vector_frame(&host, "host stream chunk (signed)", FrameType::StreamChunk, Role::Host, Some("p-1"), 3,
                r#"{"type":"stream_chunk","delta":"Hello"}"#),
            vector_frame(&participant, "co-driver chat (unsigned)", FrameType::ChatMessage, Role::CoDriver, None, 0,
                r#"{"text":"hi"}"#),
            // A room of several agents: the member travels inside the sealed
            // (so authenticated) body, never in the envelope the relay reads.
            vector_frame(&participant, "co-driver suggestion to one room member (unsigned)", FrameType::SuggestPrompt, Role::CoDriver, None, 0,
                r#"{"suggestion_id":"s-1","text":"add a test","from":"ana","to":"codex"}"#),
            vector_frame(&host, "room member's turn start (signed)", FrameType::ExecutionStarted, Role::Host, Some("p-2"), 0,
                r#"{"prompt_id":"p-2","correlation_id":"s-1","text":"add a test","provider":"codex","origin":"s-1","agent":"codex"}"#),
            vector_frame(&host, "room member's stream chunk (signed)", FrameType::StreamChunk, Role::Host, Some("p-2"), 1,
                r#"{"id":"p-2.1","prompt_id":"p-2","correlation_id":"s-1","ts":1,"agent":"codex","type":"stream_chunk","stream_id":"p-2","chunk_index":0,"delta":"Hi"}"#),
        ],
        "wrap": {
            "room": "room-vec",
            "epoch": 1,
            "to": 42,
            "room_key_hex": hex(&ROTATED_KEY),
            "recipient_secret_hex": hex(&RECIPIENT_SECRET),
            "recipient_public": recipient.public_b64(),
            "eph_secret_hex": hex(&EPH_SECRET),
            "nonce_hex": hex(&WRAP_NONCE),
            "expected": wrapped,
        },
    })
}

#[test]
fn the_test_vector_file_matches_the_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/e2e-v1.json");
    let want = vectors();
    if std::env::var_os("COHOST_WRITE_VECTORS").is_some() {
        std::fs::write(path, serde_json::to_string_pretty(&want).unwrap() + "\n").unwrap();
    }
    let have: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(
        have, want,
        "regenerate with COHOST_WRITE_VECTORS=1 only for a deliberate format change"
    );
    // And the participant side opens what the file says.
    let host = E2e::host(RoomKey::from_bytes(ROOM_KEY), HOST_SEED);
    let participant = E2e::participant(&host.invite_keys()).unwrap();
    let room = RoomId::new("room-vec").unwrap();
    let stream = StreamId::new("p-1").unwrap();
    let header = Header {
        kind: FrameType::StreamChunk,
        room: &room,
        stream: Some(&stream),
        chunk: 3,
        role: Some(Role::Host),
    };
    let payload: Vec<u8> = (0..have["frames"][0]["payload_hex"].as_str().unwrap().len() / 2)
        .map(|i| {
            u8::from_str_radix(
                &have["frames"][0]["payload_hex"].as_str().unwrap()[2 * i..2 * i + 2],
                16,
            )
            .unwrap()
        })
        .collect();
    assert_eq!(
        participant.open(&header, &payload).unwrap(),
        br#"{"type":"stream_chunk","delta":"Hello"}"#
    );
    let w: crate::WrappedKey = serde_json::from_value(have["wrap"]["expected"].clone()).unwrap();
    let k = unwrap_key(&room, &KeyPair::from_secret(RECIPIENT_SECRET), &w).unwrap();
    assert_eq!(k.to_bytes(), ROTATED_KEY);
}

#[test]
fn the_room_member_vectors_are_what_the_code_writes() {
    // The bodies in the vector file are the messages a room host and a
    // co-driver really send, byte for byte: a member named in the body, not
    // the envelope.
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/vectors/e2e-v1.json"
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
            "co-driver suggestion to one room member (unsigned)",
            suggestion,
        ),
        ("room member's turn start (signed)", started),
        (
            "room member's stream chunk (signed)",
            Message::TurnEvent(chunk),
        ),
    ] {
        let wrote = String::from_utf8(msg.to_json().unwrap()).unwrap();
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
