//! The key file, and a recorder's file checked by the verifier.

use std::os::unix::fs::PermissionsExt;

use cohost_core::{Event, EventBody, PromptInput};
use cohost_record::{verify, Options};

use super::*;

/// A sanitizer of shapes only (no known value, no home).
fn shapes_only() -> std::sync::Arc<cohost_core::Sanitizer> {
    let none: [(&str, &str); 0] = [];
    std::sync::Arc::new(cohost_core::Sanitizer::new(none, None))
}

fn ev(correlation: &str, seq: u32, body: EventBody) -> Event {
    Event {
        id: format!("p1.{seq}"),
        prompt_id: "p1".into(),
        correlation_id: correlation.into(),
        ts: 1,
        agent: None,
        body,
    }
}

fn chunk(i: u64, delta: &str) -> EventBody {
    EventBody::StreamChunk {
        stream_id: "t".into(),
        chunk_index: i,
        delta: delta.into(),
    }
}

#[test]
fn the_host_key_is_made_once_owner_only() {
    let dir = tempfile::tempdir().expect("tmp");
    let a = HostKey::load_or_create(dir.path()).expect("made");
    let b = HostKey::load_or_create(dir.path()).expect("loaded");
    assert_eq!(a.public(), b.public());
    let mode = std::fs::metadata(dir.path().join(KEY_FILE))
        .expect("file")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    std::fs::write(dir.path().join(KEY_FILE), "not a key\n").expect("write");
    let err = HostKey::load_or_create(dir.path()).expect_err("damaged");
    assert!(matches!(err, RecordError::KeyDamaged { .. }), "{err:?}");
    assert!(cohost_core::CohostError::from(err).suggested_fix.is_some());
}

#[test]
fn a_recorded_session_verifies_with_prompts_in_place_and_text_joined() {
    let dir = tempfile::tempdir().expect("tmp");
    let rec = SessionRecord::new("s-test", "mock", dir.path());
    let r = Recorder::open(dir.path(), &rec, shapes_only()).expect("open");
    r.note(Note::Suggestion {
        id: "sg-1".into(),
        author: "alice (co-driver)".into(),
        text: "say hi".into(),
        to: None,
        signed: None,
    });
    r.note(Note::SuggestionDecided {
        id: "sg-1".into(),
        accepted: true,
        decider: "host".into(),
    });
    r.prompt(&PromptInput {
        text: "say hi".into(),
        correlation_id: Some("sg-1".into()),
        ..PromptInput::default()
    });
    r.event(&ev(
        "sg-1",
        0,
        EventBody::StreamStart {
            provider: "mock".into(),
            session_id: None,
            model: None,
        },
    ));
    r.event(&ev("sg-1", 1, chunk(0, "hel")));
    r.event(&ev(
        "sg-1",
        2,
        EventBody::Usage(cohost_core::Usage::default()),
    ));
    r.event(&ev("sg-1", 2, chunk(1, "lo")));
    r.event(&ev(
        "sg-1",
        3,
        EventBody::StreamEnd {
            reason: cohost_core::EndReason::Completed,
            usage: None,
        },
    ));
    r.end("done");
    let path = path_of(dir.path(), "s-test").expect("path");
    let bytes = std::fs::read(&path).expect("record");
    let mode = std::fs::metadata(&path).expect("file").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let v = verify(&bytes, &Options::default()).expect("verifies");
    let kinds: Vec<(&str, Option<&str>)> = v
        .entries
        .iter()
        .map(|e| (e.kind.as_str(), e.author.as_deref()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("session", None),
            ("suggestion", Some("alice (co-driver)")),
            ("suggestion_decided", Some("host")),
            ("prompt", Some("alice (co-driver)")),
            ("event", None),
            ("text", None),
            ("event", None),
            ("event", None),
            ("end", None),
        ]
    );
    // The usage in the middle of the answer neither cuts it nor is lost.
    assert!(
        v.entries[5].body.contains("\"hello\""),
        "{}",
        v.entries[5].body
    );
    assert!(
        v.entries[6].body.contains("\"type\":\"usage\""),
        "{}",
        v.entries[6].body
    );
}

#[test]
fn a_resumed_session_goes_on_and_a_torn_tail_is_dropped_with_a_note() {
    let dir = tempfile::tempdir().expect("tmp");
    let rec = SessionRecord::new("s-resume", "mock", dir.path());
    Recorder::open(dir.path(), &rec, shapes_only())
        .expect("open")
        .end("first run");
    let path = path_of(dir.path(), "s-resume").expect("path");
    // A crash mid-entry.
    let mut bytes = std::fs::read(&path).expect("read");
    bytes.extend_from_slice(b"{\"v\":1,\"seq\":3,\"ts\"");
    std::fs::write(&path, &bytes).expect("write");
    assert!(matches!(
        verify(&bytes, &Options::default()),
        Err(cohost_record::RecordError::Torn {
            entry: 3,
            verified: 2
        })
    ));
    let r = Recorder::open(dir.path(), &rec, shapes_only()).expect("reopen");
    r.end("second run");
    let v = verify(&std::fs::read(&path).expect("read"), &Options::default()).expect("verifies");
    let kinds: Vec<&str> = v.entries.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["session", "end", "session", "note", "end"]);
    assert!(v.entries[2].body.contains("\"resumed\":true"));
}

#[test]
fn a_record_that_does_not_verify_is_moved_aside_not_appended_to() {
    let dir = tempfile::tempdir().expect("tmp");
    let rec = SessionRecord::new("s-bad", "mock", dir.path());
    Recorder::open(dir.path(), &rec, shapes_only())
        .expect("open")
        .end("x");
    let path = path_of(dir.path(), "s-bad").expect("path");
    let mut bytes = std::fs::read(&path).expect("read");
    bytes[40] ^= 1;
    std::fs::write(&path, &bytes).expect("write");
    Recorder::open(dir.path(), &rec, shapes_only())
        .expect("reopen")
        .end("y");
    let v = verify(&std::fs::read(&path).expect("read"), &Options::default())
        .expect("new one verifies");
    assert_eq!(v.entries[1].kind, "note");
    let aside = std::fs::read_dir(path.parent().expect("dir"))
        .expect("list")
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().contains(".bad-"));
    assert!(aside);
}

#[test]
fn ids_that_are_paths_name_no_record() {
    let d = std::path::Path::new("/s");
    assert!(path_of(d, "../x").is_none());
    assert!(path_of(d, "a/b").is_none());
    assert!(path_of(d, ".hidden").is_none());
    assert!(path_of(d, "s-1a2b").is_some());
}

/// What ana signs for a suggestion (`docs/sharing-e2e.md`, "Payload"):
/// sealed to the host (mode 1) in room `r-1`.
fn ana_suggests(seq: u64, body: &serde_json::Value) -> cohost_record::AuthorSig {
    use ed25519_dalek::Signer;
    let ana = ed25519_dalek::SigningKey::from_bytes(&[9; 32]);
    let mut signed = b"cohost-e2e-v2\0".to_vec();
    signed.extend_from_slice(&[1, 1, 2]);
    signed.extend_from_slice(&0u64.to_be_bytes());
    signed.extend_from_slice(&[3, b'r', b'-', b'1', 0, 1]);
    signed.extend_from_slice(&0u32.to_be_bytes());
    signed.extend_from_slice(&seq.to_be_bytes());
    signed.extend_from_slice(body.to_string().as_bytes());
    cohost_record::AuthorSig {
        key: ana.verifying_key().to_bytes(),
        sig: ana.sign(&signed).to_bytes(),
        signed,
    }
}

#[test]
fn a_participants_signed_suggestion_is_kept_only_when_it_is_clean_and_says_the_same() {
    let dir = tempfile::tempdir().expect("tmp");
    let rec = SessionRecord::new("s-signed", "mock", dir.path());
    let r = Recorder::open(dir.path(), &rec, shapes_only()).expect("open");
    let secret = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345-_x";
    let note = |id: &str, text: &str, said: serde_json::Value, seq| Note::Suggestion {
        id: id.into(),
        author: "ana (co-driver #3)".into(),
        text: text.into(),
        to: None,
        signed: Some(ana_suggests(seq, &said)),
    };
    // As signed: kept with the frame.
    r.note(note(
        "sg-1",
        "say hi",
        serde_json::json!({"suggestion_id": "sg-1", "text": "say hi"}),
        1,
    ));
    // A secret in the text: the entry holds it redacted, so it no longer
    // says what was signed, and the frame (which holds it) stays out.
    r.note(note(
        "sg-2",
        secret,
        serde_json::json!({"suggestion_id": "sg-2", "text": secret}),
        2,
    ));
    // A secret elsewhere in the frame (a field the entry does not show).
    r.note(note(
        "sg-3",
        "hi",
        serde_json::json!({"suggestion_id": "sg-3", "text": "hi", "from": secret}),
        3,
    ));
    r.end("done");
    let bytes = std::fs::read(path_of(dir.path(), "s-signed").expect("path")).expect("record");
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains("AbCdEfGhIjKlMnOp"), "{text}");
    let v = verify(&bytes, &Options::default()).expect("verifies");
    let signed: Vec<u64> = v.signed.iter().map(|s| s.entry).collect();
    assert_eq!(signed, vec![2], "{text}");
    let kinds: Vec<&str> = v.entries.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "session",
            "suggestion",
            "suggestion",
            "note",
            "suggestion",
            "note",
            "end"
        ]
    );
    assert!(
        v.entries[3]
            .body
            .contains("not what the participant signed"),
        "{text}"
    );
    assert!(
        v.entries[5].body.contains("the sanitizer redacts"),
        "{text}"
    );
}

/// Every string the record keeps passes the sanitizer the recorder was
/// given: a value only it knows (no shape, no secret name; the
/// process-wide sanitizer lets it through) is redacted in the prompt, the
/// answer, a suggestion and the session entry.
#[test]
fn the_record_passes_the_sanitizer_it_was_given() {
    const PLANTED: &str = "planted-q7Xw2Lm9Rk4Zt8Vn";
    assert_eq!(cohost_core::sanitize::global().sanitize(PLANTED), PLANTED);
    let dir = tempfile::tempdir().expect("tmp");
    let mut rec = SessionRecord::new("s-planted", "mock", dir.path());
    rec.model = Some(format!("model-{PLANTED}"));
    let none: [(&str, &str); 0] = [];
    let given = cohost_core::Sanitizer::new(none, None).with_known_values([PLANTED]);
    let r = Recorder::open(dir.path(), &rec, std::sync::Arc::new(given)).expect("open");
    let mut input = PromptInput::text(format!("say {PLANTED}"));
    input.correlation_id = Some("c1".into());
    r.prompt(&input);
    r.event(&ev("c1", 0, chunk(0, &format!("you said {PLANTED}"))));
    r.note(Note::Suggestion {
        id: "sg-1".into(),
        author: format!("alice {PLANTED}"),
        text: format!("ask {PLANTED}"),
        to: None,
        signed: None,
    });
    r.end("done");
    let path = path_of(dir.path(), "s-planted").expect("path");
    let text = std::fs::read_to_string(path).expect("record");
    assert!(!text.contains(PLANTED), "{text}");
    assert!(text.matches("[REDACTED]").count() >= 4, "{text}");
}
