//! Participants' own signatures in the record (entry version 2): a frame a
//! participant signed verifies and is listed; a host that changes what the
//! participant said, a signature byte, the frame's type or counts a frame
//! twice is caught, naming the entry; records without them read as before.

use ed25519_dalek::{Signer, SigningKey};
use proptest::prelude::*;
use serde_json::json;

use super::*;

const SEED: [u8; 32] = [7; 32];
const ANA: [u8; 32] = [9; 32];
const ROOM: &str = "r-vector";

/// The bytes a participant signs for a frame (`docs/sharing-e2e.md`,
/// "Associated data" and "Payload"), built here from the document rather
/// than from the parser under test.
fn frame(frame_type: u8, seq: u64, body: &serde_json::Value) -> Vec<u8> {
    let mut m = b"cohost-e2e-v2\0".to_vec();
    // AD: envelope version, frame type, role (co-driver = 2), chunk 0,
    // the room, no stream.
    m.extend_from_slice(&[1, frame_type, 2]);
    m.extend_from_slice(&0u64.to_be_bytes());
    m.push(ROOM.len() as u8);
    m.extend_from_slice(ROOM.as_bytes());
    m.push(0);
    // Mode 1 (sealed to the host), epoch 0, the sender's sequence number.
    m.push(1);
    m.extend_from_slice(&0u32.to_be_bytes());
    m.extend_from_slice(&seq.to_be_bytes());
    m.extend_from_slice(body.to_string().as_bytes());
    m
}

fn signed(key: &SigningKey, frame_type: u8, seq: u64, body: &serde_json::Value) -> AuthorSig {
    let signed = frame(frame_type, seq, body);
    AuthorSig {
        key: key.verifying_key().to_bytes(),
        sig: key.sign(&signed).to_bytes(),
        signed,
    }
}

fn draft(kind: &str, author: Option<&str>, body: serde_json::Value) -> Draft {
    Draft {
        kind: kind.into(),
        author: author.map(String::from),
        body: body.to_string(),
        ..Draft::default()
    }
}

/// A record of `middle` between a session entry and an end entry, as the
/// host (seed [`SEED`]) seals it.
fn sealed(middle: Vec<Draft>) -> Vec<u8> {
    let mut chain = Chain::new(SEED);
    let key = b64(&chain.public_key());
    let mut all = vec![draft(
        kind::SESSION,
        None,
        json!({"session": "s-2", "host_public_key": key, "provider": "mock"}),
    )];
    all.extend(middle);
    all.push(draft(kind::END, None, json!({"reason": "closed"})));
    let mut out = Vec::new();
    for d in all {
        let e = chain.seal(1_700_000_000_000 + chain.next_seq(), d);
        out.extend_from_slice(e.to_line().as_bytes());
        out.push(b'\n');
        chain.advance(&e);
    }
    out
}

/// ana's suggestion as she signed it, and its entry.
fn suggestion(seq: u64, text: &str) -> Draft {
    let ana = SigningKey::from_bytes(&ANA);
    let said = json!({"suggestion_id": "s-1", "text": text, "from": "ana"});
    draft(
        kind::SUGGESTION,
        Some("ana (co-driver #3)"),
        json!({"suggestion_id": "s-1", "text": text}),
    )
    .signed_by(&signed(&ana, 1, seq, &said))
}

/// ana's vote as she signed it (no tool id: the only call pending), and
/// its entry, which names the call.
fn vote(seq: u64) -> Draft {
    let ana = SigningKey::from_bytes(&ANA);
    draft(
        kind::APPROVAL_VOTE,
        Some("ana (co-driver #3)"),
        json!({"tool_id": "t-1", "allow": true}),
    )
    .signed_by(&signed(
        &ana,
        17,
        seq,
        &json!({"tool_id": null, "allow": true}),
    ))
}

/// The test vector of version 2: a suggestion and a vote, each signed by
/// the participant (seed [9; 32]) in room `r-vector`.
fn vector() -> Vec<u8> {
    sealed(vec![
        suggestion(1_700_000_000_000_001, "fix the bug"),
        vote(1_700_000_000_000_002),
    ])
}

#[test]
fn a_participants_signed_suggestion_and_vote_verify_and_are_listed() {
    let v = verify(&vector(), &Options::default()).expect("verifies");
    let ana = SigningKey::from_bytes(&ANA).verifying_key().to_bytes();
    assert_eq!(v.signed.len(), 2, "{:?}", v.signed);
    for (s, (entry, kind)) in v
        .signed
        .iter()
        .zip([(2, "suggestion"), (3, "approval_vote")])
    {
        assert_eq!((s.entry, s.kind.as_str()), (entry, kind));
        assert_eq!(s.key, ana);
        assert_eq!(s.room, ROOM);
        assert_eq!(s.author.as_deref(), Some("ana (co-driver #3)"));
    }
    assert_eq!(v.entries[1].v, VERSION_SIGNED);
    // Entries nobody else signed stay version 1.
    assert_eq!(v.entries[0].v, VERSION);
    assert_eq!(v.entries[3].v, VERSION);
}

#[test]
fn a_host_that_changes_what_a_participant_said_is_caught() {
    let ana = SigningKey::from_bytes(&ANA);
    let said = json!({"suggestion_id": "s-1", "text": "fix the bug", "to": "codex"});
    let sig = signed(&ana, 1, 5, &said);
    let forge = |entry: serde_json::Value| {
        sealed(vec![
            draft(kind::SUGGESTION, Some("ana"), entry).signed_by(&sig)
        ])
    };
    // The text, whom it is for, or dropping the member: re-sealed by the
    // host, so chain and host signature hold; the participant's word not.
    for (entry, field) in [
        (
            json!({"suggestion_id": "s-1", "text": "rm -rf /", "to": "codex"}),
            "text",
        ),
        (
            json!({"suggestion_id": "s-1", "text": "fix the bug", "to": "claude"}),
            "to",
        ),
        (json!({"suggestion_id": "s-1", "text": "fix the bug"}), "to"),
        (
            json!({"suggestion_id": "s-9", "text": "fix the bug", "to": "codex"}),
            "suggestion_id",
        ),
    ] {
        let err = verify(&forge(entry), &Options::default()).expect_err("forged");
        assert_eq!(err, RecordError::AuthorDiffers { entry: 2, field }, "{err}");
        assert!(
            err.to_string()
                .contains("says what its author did not sign"),
            "{err}"
        );
    }
    // A deny recorded for an allow.
    let allow = signed(&ana, 17, 6, &json!({"tool_id": "t-1", "allow": true}));
    let r = sealed(vec![draft(
        kind::APPROVAL_VOTE,
        Some("ana"),
        json!({"tool_id": "t-1", "allow": false}),
    )
    .signed_by(&allow)]);
    assert_eq!(
        verify(&r, &Options::default()).expect_err("forged"),
        RecordError::AuthorDiffers {
            entry: 2,
            field: "allow"
        }
    );
}

#[test]
fn a_changed_signature_byte_or_signed_byte_is_a_bad_author_signature() {
    let ana = SigningKey::from_bytes(&ANA);
    let said = json!({"suggestion_id": "s-1", "text": "fix the bug"});
    let entry = json!({"suggestion_id": "s-1", "text": "fix the bug"});
    let good = signed(&ana, 1, 5, &said);
    let mut bad_sig = good.clone();
    bad_sig.sig[10] ^= 1;
    let mut bad_bytes = good.clone();
    let last = bad_bytes.signed.len() - 3;
    bad_bytes.signed[last] ^= 1;
    let mut other_key = good;
    other_key.key = SigningKey::from_bytes(&[10; 32]).verifying_key().to_bytes();
    for a in [bad_sig, bad_bytes, other_key] {
        let r = sealed(vec![
            draft(kind::SUGGESTION, Some("ana"), entry.clone()).signed_by(&a)
        ]);
        let err = verify(&r, &Options::default()).expect_err("bad signature");
        assert_eq!(err, RecordError::AuthorSignature { entry: 2 }, "{err}");
        assert!(err.to_string().contains("bad author signature"), "{err}");
    }
}

#[test]
fn a_frame_of_another_type_or_kind_does_not_stand_behind_an_entry() {
    let ana = SigningKey::from_bytes(&ANA);
    let body = json!({"suggestion_id": "s-1", "text": "hi"});
    // ana's chat line (type 9) that says the same words is not a suggestion.
    let chat = signed(&ana, 9, 5, &body);
    let r = sealed(vec![
        draft(kind::SUGGESTION, Some("ana"), body.clone()).signed_by(&chat)
    ]);
    let err = verify(&r, &Options::default()).expect_err("not a suggestion");
    assert!(
        matches!(err, RecordError::AuthorFrame { entry: 2, .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("not ai.request.suggest_prompt"),
        "{err}"
    );
    // A kind this version does not compare carries no participant's frame.
    let sug = signed(&ana, 1, 6, &body);
    let r = sealed(vec![
        draft(kind::PROMPT, Some("ana"), body.clone()).signed_by(&sug)
    ]);
    let err = verify(&r, &Options::default()).expect_err("a prompt");
    assert!(
        matches!(err, RecordError::AuthorFrame { entry: 2, .. }),
        "{err}"
    );
    // Bytes that are no signed frame at all, signed all the same.
    let junk = b"cohost-e2e-v2\0\x01".to_vec();
    let a = AuthorSig {
        key: ana.verifying_key().to_bytes(),
        sig: ana.sign(&junk).to_bytes(),
        signed: junk,
    };
    let r = sealed(vec![
        draft(kind::SUGGESTION, Some("ana"), body).signed_by(&a)
    ]);
    let err = verify(&r, &Options::default()).expect_err("junk");
    assert!(
        matches!(err, RecordError::AuthorFrame { entry: 2, .. }),
        "{err}"
    );
}

#[test]
fn one_signed_frame_recorded_twice_is_a_replay() {
    let r = sealed(vec![suggestion(5, "once"), suggestion(5, "once")]);
    let err = verify(&r, &Options::default()).expect_err("twice");
    assert_eq!(err, RecordError::AuthorReplay { entry: 3, first: 2 });
    // The same words in two frames (two sequence numbers) are two.
    let r = sealed(vec![suggestion(5, "once"), suggestion(6, "once")]);
    assert_eq!(
        verify(&r, &Options::default()).expect("two").signed.len(),
        2
    );
}

#[test]
fn the_version_says_whether_an_entry_carries_a_frame() {
    let r = vector();
    let mut ls: Vec<&[u8]> = r.split(|b| *b == b'\n').filter(|l| !l.is_empty()).collect();
    let mut e: Entry = serde_json::from_slice(ls[1]).expect("entry");
    e.v = VERSION;
    let line = e.to_line();
    ls[1] = line.as_bytes();
    let bad: Vec<u8> = ls
        .iter()
        .flat_map(|l| l.iter().copied().chain([b'\n']))
        .collect();
    let err = verify(&bad, &Options::default()).expect_err("v1 with a frame");
    assert!(
        matches!(err, RecordError::Malformed { entry: 2, .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("version-1 entry carries no"),
        "{err}"
    );
}

#[test]
fn exports_name_the_signer_and_verify() {
    let r = vector();
    let key = b64(&SigningKey::from_bytes(&ANA).verifying_key().to_bytes());
    for format in [Format::Html, Format::Markdown, Format::Json] {
        let out = export(&r, format, &Options::default()).expect("exports");
        assert!(out.contains("signed by key") || format == Format::Json);
        // The transcript names the key of both entries (the embedded record
        // holds it too).
        assert!(out.matches(&key).count() >= 4, "{format:?}: {out}");
        let (v, _) = verify_any(out.as_bytes(), &Options::default()).expect("verifies");
        assert_eq!(v.signed.len(), 2);
    }
    let json: serde_json::Value =
        serde_json::from_str(&export(&r, Format::Json, &Options::default()).expect("json"))
            .expect("JSON");
    assert_eq!(json["transcript"][1]["author_public_key"], key.as_str());
    assert!(json["transcript"][0].get("author_public_key").is_none());
}

/// `tests/vectors/record-v2.jsonl`: what this code writes for a record
/// with a participant's signed suggestion and vote (seed [7; 32] for the
/// host, [9; 32] for the participant); `COHOST_WRITE_VECTORS=1` rewrites
/// it. The version-1 vector still verifies (old records read as before),
/// and the independent Python verifier agrees on both when it can run.
#[test]
fn the_v2_vector_file_is_what_the_code_writes_and_python_agrees() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let path = dir.join("record-v2.jsonl");
    let written = vector();
    if std::env::var_os("COHOST_WRITE_VECTORS").is_some() {
        std::fs::write(&path, &written).expect("write");
    }
    let stored = std::fs::read(&path).expect("the vector file");
    assert_eq!(stored, written, "the code and {} disagree", path.display());
    let old = std::fs::read(dir.join("record-v1.jsonl")).expect("v1 vector");
    assert!(verify(&old, &Options::default())
        .expect("v1 verifies")
        .signed
        .is_empty());
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/verify-record.py");
    for (file, signed) in [("record-v1.jsonl", 0), ("record-v2.jsonl", 2)] {
        let Ok(out) = std::process::Command::new("python3")
            .arg(&script)
            .arg(dir.join(file))
            .output()
        else {
            return;
        };
        let said = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("ModuleNotFoundError") {
            return;
        }
        assert_eq!(out.status.code(), Some(0), "{file}: {said}{err}");
        assert!(
            said.contains(&format!("{signed} signed by participants")),
            "{file}: {said}"
        );
    }
    // And it refuses a forgery the Rust verifier refuses.
    let forged = sealed(vec![draft(
        kind::SUGGESTION,
        Some("ana"),
        json!({"suggestion_id": "s-1", "text": "rm -rf /"}),
    )
    .signed_by(&signed(
        &SigningKey::from_bytes(&ANA),
        1,
        1,
        &json!({"suggestion_id": "s-1", "text": "fix the bug"}),
    ))]);
    let tmp = std::env::temp_dir().join(format!("cohost-forged-{}.jsonl", std::process::id()));
    std::fs::write(&tmp, forged).expect("temp");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg(&tmp)
        .output()
        .expect("python3 ran above");
    let _ = std::fs::remove_file(&tmp);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("entry 2: author"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any one byte of a record with participants' frames changed, and it
    /// fails, naming an entry.
    #[test]
    fn any_byte_changed_in_a_signed_record_fails_naming_an_entry(
        at in any::<prop::sample::Index>(),
        xor in 1..=255u8,
    ) {
        let mut r = vector();
        let i = at.index(r.len());
        r[i] ^= xor;
        let err = verify(&r, &Options::default()).expect_err("damage must not verify");
        prop_assert!(err.entry().is_some(), "{err} names no entry");
    }
}
