//! Participants' own signatures in the host's record (issue 34), through
//! the binaries: `cohost share -a mock --approve ask --suggestions accept`
//! on its embedded relay, a co-driver in `cohost join --plain --identity
//! FILE` whose suggestion runs and whose `/allow` decides the tool call
//! (`/grant ana approve`). `cohost record verify` names both entries as
//! signed by her, with the key her identity file holds; exports show it;
//! a host that re-signs the record with her suggestion's text, her vote,
//! or a byte of her signature changed is caught, naming the entry.

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

use cohost_record::{Chain, Draft, Entry};
use serde_json::Value;

use crate::knock_room::{share_json, until};
use crate::room_cli::{cohost, committed_repo, quit};
use crate::share_join_cli::{lines_of, Reaper};

fn json(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_default()
}

fn said(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The record re-signed by its host (seed `seed`) after `edit`: the chain
/// and every host signature hold, as a host forging a participant's word
/// would make it.
fn reseal(seed: [u8; 32], record: &[u8], edit: impl Fn(&mut Entry)) -> Vec<u8> {
    let mut chain = Chain::new(seed);
    let mut out = Vec::new();
    for line in record.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let mut e: Entry = serde_json::from_slice(line).unwrap();
        edit(&mut e);
        let d = Draft {
            kind: e.kind,
            author: e.author,
            author_public_key: e
                .author_public_key
                .as_deref()
                .and_then(cohost_record::unb64),
            author_sig: e.author_sig.as_deref().and_then(cohost_record::unb64),
            author_signed: e
                .author_signed
                .as_deref()
                .and_then(cohost_record::unb64_vec),
            body: e.body,
        };
        let sealed = chain.seal(e.ts, d);
        out.extend_from_slice(sealed.to_line().as_bytes());
        out.push(b'\n');
        chain.advance(&sealed);
    }
    out
}

#[test]
fn a_co_drivers_suggestion_and_vote_are_in_the_record_under_her_own_signature() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let repo = committed_repo();
    let (mut host, out, mut stdin) = share_json(
        h,
        repo.path(),
        &["-a", "mock", "--suggestions", "accept", "--approve", "ask"],
    );
    let mut seen = Vec::new();
    let co = until(&out, &mut seen, "the invites", |l| {
        let n = json(l);
        (n["notice"] == "invites").then(|| n["co_driver"].as_str().unwrap().to_owned())
    });

    // ana keeps her identity in a file: its first secret is her signing key.
    let identity = h.join("ana.identity");
    let mut ana = Reaper(
        cohost(h, h)
            .args(["join", "--plain", "--name", "ana", "--identity"])
            .arg(&identity)
            .env("COHOST_INVITE", &co)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let notes = lines_of(ana.0.stderr.take().unwrap());
    let mut ana_in = ana.0.stdin.take().unwrap();
    let mut heard = Vec::new();
    until(&notes, &mut heard, "ana in the room", |l| {
        l.contains("joined room").then_some(())
    });
    until(&out, &mut seen, "ana's keys bound", |l| {
        let n = json(l);
        (n["notice"] == "presence" && l.contains("ana")).then_some(())
    });
    writeln!(stdin, "/grant ana approve").unwrap();
    until(&notes, &mut heard, "ana's grant", |l| {
        l.contains("the host lets you approve tool calls")
            .then_some(())
    });

    // Her suggestion runs (the room's policy accepts it) and asks for a
    // tool; her `/allow` decides it.
    writeln!(ana_in, "[mock:tool] tidy up").unwrap();
    let tool = until(&out, &mut seen, "the approval request", |l| {
        let n = json(l);
        (n["notice"] == "approval_needed").then(|| n["tool_id"].as_str().unwrap().to_owned())
    });
    until(&notes, &mut heard, "ana's approval card", |l| {
        l.contains(&format!("/allow {tool}")).then_some(())
    });
    writeln!(ana_in, "/allow {tool}").unwrap();
    let deciders = until(&out, &mut seen, "the decision", |l| {
        let e = &json(l)["event"];
        (e["type"] == "tool_approval_decided").then(|| e["deciders"].to_string())
    });
    assert!(deciders.contains("ana (co-driver #"), "{deciders}");
    until(&out, &mut seen, "the turn's end", |l| {
        (json(l)["event"]["type"] == "stream_end").then_some(())
    });
    writeln!(ana_in, "/quit").unwrap();
    drop(ana_in);
    let status = quit(&mut host, stdin);
    assert_eq!(status.code(), Some(0), "{seen:#?}");

    // Her public key, from her own file, not from anything the host wrote.
    let id_text = std::fs::read_to_string(&identity).unwrap();
    let seed: [u8; 32] = cohost_record::unb64(id_text.lines().nth(1).unwrap()).unwrap();
    let ana_key = cohost_record::b64(&cohost_record::public_key(&seed));

    let list = cohost(h, h).args(["sessions", "--json"]).output().unwrap();
    let list: Value = serde_json::from_slice(&list.stdout).unwrap();
    let id = list[0]["id"].as_str().unwrap().to_owned();
    let o = cohost(h, h)
        .args(["record", "verify", &id, "--json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let signed = v["participant_signed"].as_array().unwrap();
    let kinds: Vec<&str> = signed.iter().map(|s| s["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["suggestion", "approval_vote"], "{v}");
    for s in signed {
        assert_eq!(s["author_public_key"], ana_key.as_str(), "{s}");
        assert!(
            s["author"]
                .as_str()
                .unwrap()
                .starts_with("ana (co-driver #"),
            "{s}"
        );
    }
    assert_eq!(v["participant_unsigned"], 0, "{v}");
    let o = cohost(h, h)
        .args(["record", "verify", &id])
        .output()
        .unwrap();
    let text = said(&o);
    assert!(
        text.contains("(suggestion) is signed by its author ana (co-driver #")
            && text.contains("(approval_vote) is signed by its author ana"),
        "{text}"
    );

    // The entries say what she signed.
    let path = cohost(h, h).args(["record", "path", &id]).output().unwrap();
    let path = std::path::PathBuf::from(String::from_utf8(path.stdout).unwrap().trim());
    let record = std::fs::read(&path).unwrap();
    let entries: Vec<Entry> = record
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let at = |kind: &str| entries.iter().find(|e| e.kind == kind).unwrap().seq;
    let (suggestion, vote) = (at("suggestion"), at("approval_vote"));
    let body =
        |seq: u64| -> Value { serde_json::from_str(&entries[seq as usize - 1].body).unwrap() };
    assert_eq!(body(suggestion)["text"], "[mock:tool] tidy up");
    assert_eq!(body(vote)["tool_id"], tool.as_str());
    assert_eq!(body(vote)["allow"], true);

    // The independent verifier (scripts/verify-record.py, written from the
    // book) agrees, when this machine has Python with `cryptography`.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/verify-record.py");
    if let Ok(o) = std::process::Command::new("python3")
        .arg(&script)
        .arg(&path)
        .output()
    {
        let text = said(&o);
        if !text.contains("ModuleNotFoundError") {
            assert_eq!(o.status.code(), Some(0), "{text}");
            assert!(text.contains("2 signed by participants"), "{text}");
        }
    }

    // Exports name her key beside her entries.
    let o = cohost(h, h)
        .args(["export", &id, "--format", "json", "-o", "-"])
        .output()
        .unwrap();
    let export: Value = serde_json::from_slice(&o.stdout).unwrap();
    let item = &export["transcript"][suggestion as usize - 1];
    assert_eq!(item["author_public_key"], ana_key.as_str(), "{item}");

    // A host that forges her word, re-signing the whole record.
    let host_seed: [u8; 32] = cohost_record::unb64(
        std::fs::read_to_string(h.join(".local/state/cohost/host-key"))
            .unwrap()
            .trim(),
    )
    .unwrap();
    let forged = h.join("forged.jsonl");
    let check = |bytes: Vec<u8>, entry: u64, message: &str| {
        std::fs::write(&forged, bytes).unwrap();
        let o = cohost(h, h)
            .args(["record", "verify"])
            .arg(&forged)
            .output()
            .unwrap();
        let text = said(&o);
        assert_eq!(o.status.code(), Some(12), "{message}: {text}");
        assert!(
            text.contains(&format!("entry {entry} {message}")),
            "{message}: {text}"
        );
        assert!(text.contains("fix:"), "{text}");
    };
    // Re-signing what is there changes nothing.
    let same = reseal(host_seed, &record, |_| {});
    assert_eq!(same, record);
    check(
        reseal(host_seed, &record, |e| {
            if e.seq == suggestion {
                e.body = e.body.replace("tidy up", "rm -rf ~");
            }
        }),
        suggestion,
        "says what its author did not sign: its `text`",
    );
    check(
        reseal(host_seed, &record, |e| {
            if e.seq == vote {
                e.body = e.body.replace("\"allow\":true", "\"allow\":false");
            }
        }),
        vote,
        "says what its author did not sign: its `allow`",
    );
    check(
        reseal(host_seed, &record, |e| {
            if e.seq == suggestion {
                let mut sig: [u8; 64] =
                    cohost_record::unb64(e.author_sig.as_deref().unwrap()).unwrap();
                sig[7] ^= 0x20;
                e.author_sig = Some(cohost_record::b64(&sig));
            }
        }),
        suggestion,
        "has a bad author signature",
    );
    // Her frame put in twice, as if she had suggested it again.
    let twice = {
        let lines: Vec<&[u8]> = record
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        let mut copy: Vec<u8> = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            copy.extend_from_slice(l);
            copy.push(b'\n');
            if i as u64 + 1 == suggestion {
                copy.extend_from_slice(l);
                copy.push(b'\n');
            }
        }
        reseal(host_seed, &copy, |_| {})
    };
    check(
        twice,
        suggestion + 1,
        "repeats a frame its author signed once",
    );
    // Without re-signing, one byte of her signed frame changed: the hash.
    let plain = String::from_utf8(record).unwrap();
    let signed = entries[suggestion as usize - 1]
        .author_signed
        .clone()
        .unwrap();
    let flipped = format!(
        "{}{}",
        if signed.starts_with('A') { "B" } else { "A" },
        &signed[1..]
    );
    check(
        plain.replacen(&signed, &flipped, 1).into_bytes(),
        suggestion,
        "was altered",
    );
}
