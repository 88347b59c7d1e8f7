use cohost_core::{Event, EventBody};
use cohost_protocol::{Frame, FrameType, RoomId, StreamId};
use std::sync::Arc;

use crate::*;

fn room() -> RoomCodec {
    RoomCodec::new(RoomId::new("r-1").unwrap())
}

fn event(line: &str) -> Event {
    Event::from_json_line(line).unwrap()
}

fn chunk(i: u64, delta: &str) -> Event {
    event(&format!(
        r#"{{"id":"p-1.{i}","prompt_id":"p-1","correlation_id":"c-1","ts":1,"type":"stream_chunk","stream_id":"text","chunk_index":{i},"delta":"{delta}"}}"#
    ))
}

fn end(reason: &str) -> Event {
    event(&format!(
        r#"{{"id":"p-1.9","prompt_id":"p-1","correlation_id":"c-1","ts":1,"type":"stream_end","reason":"{reason}"}}"#
    ))
}

#[test]
fn a_turn_is_one_numbered_stream_and_decodes_to_the_same_messages() {
    let codec = room();
    let mut turn = codec.turn(StreamId::new("p-1").unwrap());
    assert!(turn.is_new());
    let started = Message::ExecutionStarted(ExecutionStarted {
        prompt_id: "p-1".into(),
        correlation_id: "c-1".into(),
        text: "hi".into(),
        provider: "mock".into(),
        origin: "host".into(),
        agent: None,
    });
    let msgs = [
        started,
        Message::TurnEvent(chunk(0, "a")),
        Message::TurnEvent(chunk(1, "b")),
        Message::TurnEvent(end("completed")),
    ];
    let frames: Vec<Frame> = msgs.iter().map(|m| turn.frame(m).unwrap()).collect();
    let kinds: Vec<FrameType> = frames.iter().map(Frame::kind).collect();
    assert_eq!(
        kinds,
        [
            FrameType::ExecutionStarted,
            FrameType::StreamChunk,
            FrameType::StreamChunk,
            FrameType::StreamEnd
        ]
    );
    for (i, (f, m)) in frames.iter().zip(&msgs).enumerate() {
        assert_eq!(f.chunk(), i as u64);
        assert_eq!(f.stream(), Some("p-1"));
        // What the relay delivers decodes to exactly what the host sent.
        let received = Frame::decode(f.bytes().clone()).unwrap();
        assert_eq!(codec.decode(&received).unwrap().as_ref(), Some(m));
    }
    let interrupted = turn.frame(&Message::TurnEvent(end("interrupted"))).unwrap();
    assert_eq!(interrupted.kind(), FrameType::StreamInterrupted);
    assert_eq!(interrupted.chunk(), 4);
}

#[test]
fn room_messages_round_trip_and_misrouting_is_an_error_not_a_drop() {
    let codec = room();
    let msgs = [
        Message::Suggestion(Suggestion {
            suggestion_id: "s-1".into(),
            text: "add a test".into(),
            from: Some("ana".into()),
            to: None,
        }),
        Message::Suggestion(Suggestion {
            suggestion_id: "s-2".into(),
            text: "review it".into(),
            from: None,
            to: Some("codex".into()),
        }),
        Message::SuggestionDecided(SuggestionDecision {
            suggestion_id: "s-1".into(),
            accepted: true,
            prompt_id: None,
            agent: Some("codex".into()),
        }),
        Message::Chat(Chat {
            from: None,
            text: "hello".into(),
            members: None,
        }),
    ];
    for m in &msgs {
        let f = codec.room_frame(m).unwrap();
        assert_eq!(f.stream(), None);
        assert_eq!(f.kind(), m.frame_type());
        assert_eq!(codec.decode(&f).unwrap().as_ref(), Some(m));
    }
    let e = codec
        .room_frame(&Message::TurnEvent(chunk(0, "x")))
        .unwrap_err();
    assert!(
        matches!(
            e,
            ShareError::Misrouted {
                kind: FrameType::StreamChunk
            }
        ),
        "{e}"
    );
    let mut turn = codec.turn(StreamId::new("p-1").unwrap());
    assert!(matches!(
        turn.frame(&msgs[2]),
        Err(ShareError::Misrouted { .. })
    ));
    assert!(turn.is_new(), "a refused frame uses no chunk index");
}

#[test]
fn approval_events_also_go_out_as_notices() {
    let req = event(
        r#"{"id":"p-1.2","prompt_id":"p-1","correlation_id":"c-1","ts":1,"type":"tool_approval_requested","tool_id":"t1","name":"write_file","kind":"edit","input":{},"options":["allow_once"],"deadline_ms":1000}"#,
    );
    let notice = Message::approval_notice(&req).unwrap();
    assert_eq!(notice.frame_type(), FrameType::ToolApprovalRequested);
    assert_eq!(Message::approval_notice(&chunk(0, "x")), None);
    let f = room().room_frame(&notice).unwrap();
    assert_eq!(room().decode(&f).unwrap(), Some(notice));
}

#[test]
fn readers_are_tolerant_but_a_broken_payload_is_reported() {
    let codec = room();
    // A newer host: an unknown event kind and unknown fields.
    let f = Frame::build(
        FrameType::StreamChunk,
        "r-1",
        Some("p-1"),
        3,
        br#"{"id":"p-1.3","prompt_id":"p-1","correlation_id":"c-1","ts":1,"type":"hologram","depth":3}"#,
    )
    .unwrap();
    match codec.decode(&f).unwrap() {
        Some(Message::TurnEvent(e)) => assert_eq!(e.body, EventBody::Unknown),
        other => panic!("{other:?}"),
    }
    let f = Frame::build(
        FrameType::PromptSuggested,
        "r-1",
        None,
        0,
        br#"{"suggestion_id":"s-2","text":"go","mood":"happy"}"#,
    )
    .unwrap();
    assert!(matches!(codec.decode(&f).unwrap(), Some(Message::Suggestion(s)) if s.from.is_none()));

    let f = Frame::build(FrameType::ChatMessage, "r-1", None, 0, b"not json").unwrap();
    let e = codec.decode(&f).unwrap_err();
    assert!(
        matches!(
            e,
            ShareError::Decode {
                kind: FrameType::ChatMessage,
                len: 8,
                ..
            }
        ),
        "{e}"
    );
    // Relay control frames carry no application message.
    let f = Frame::build(FrameType::PresenceJoin, "r-1", None, 0, b"{}").unwrap();
    assert!(codec.decode(&f).unwrap().is_none());
}

/// A stand-in for the coming AEAD codec: it binds the payload to the clear
/// header the way associated data will, and leads with a version byte.
struct Bound;

impl PayloadCodec for Bound {
    fn seal(&self, h: &Header<'_>, plaintext: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let mut out = vec![1u8];
        out.extend(h.associated_data());
        out.extend(plaintext);
        Ok(out)
    }

    fn open(&self, h: &Header<'_>, payload: &[u8]) -> Result<crate::Opened, CodecError> {
        let ad = h.associated_data();
        match payload.split_first() {
            Some((1, rest)) if rest.starts_with(&ad) => Ok(crate::Opened {
                body: rest[ad.len()..].to_vec(),
                sender: None,
            }),
            _ => Err(CodecError::Other(
                "payload does not belong to this frame".into(),
            )),
        }
    }
}

#[test]
fn the_payload_codec_is_the_one_seam_for_end_to_end_encryption() {
    let codec = RoomCodec::with_codec(RoomId::new("r-1").unwrap(), Arc::new(Bound));
    let mut turn = codec.turn(StreamId::new("p-1").unwrap());
    let msg = Message::TurnEvent(chunk(0, "secret"));
    turn.frame(&Message::TurnEvent(chunk(0, "first"))).unwrap();
    let f = turn.frame(&msg).unwrap();
    assert_eq!(f.payload()[0], 1, "a version byte leads the payload");
    assert_eq!(codec.decode(&f).unwrap(), Some(msg));
    // The same payload under another chunk index does not open.
    let moved = Frame::build(f.kind(), "r-1", Some("p-1"), 7, &f.payload()).unwrap();
    assert!(matches!(
        codec.decode(&moved),
        Err(ShareError::Codec { .. })
    ));
}

#[test]
fn what_leaves_passes_the_sanitizer_the_front_end_gave() {
    // A value only this sanitizer knows (the host's own key, say), and the
    // process-wide one does not: a chat holding it leaves redacted.
    const PLANTED: &str = "planted-value-only-the-front-end-knows-7Qx2";
    assert_eq!(cohost_core::sanitize::global().sanitize(PLANTED), PLANTED);
    let knows = std::sync::Arc::new(
        cohost_core::sanitize::Sanitizer::shapes_only().with_known_values([PLANTED]),
    );
    let codec = RoomCodec::new(RoomId::new("room-s").unwrap()).with_sanitizer(knows);
    let chat = Message::Chat(Chat {
        from: Some("host".into()),
        text: format!("the key is {PLANTED}"),
        members: None,
    });
    let f = codec.room_frame(&chat).unwrap();
    let said = String::from_utf8(f.payload().to_vec()).unwrap();
    assert!(!said.contains(PLANTED), "{said}");
    assert!(said.contains(cohost_core::sanitize::REDACTED), "{said}");
}
