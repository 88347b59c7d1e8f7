//! Issue 37, tried as a malicious relay operator would: a real `cohost
//! share` and a real `cohost join` reach a real relay through a proxy that
//! holds a co-driver's invite (so the room key) and can inject, re-stamp and
//! replay frames. Each attack below worked on format v1 as shipped.

use std::io::Write;
use std::process::Stdio;
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cohost_protocol::{Frame, FrameType, Invite, Role, RoomId, StreamId};
use cohost_share::e2e::{wrap_key, KeyPair, RoomKey};
use cohost_share::{Chat, CodecError, E2e, KeyRotate, Message, RoomCodec, ShareError};
use serde_json::Value;

use crate::mitm_support::{Leg, Mitm};
use crate::share_join_cli::{cohost, lines_of, start_relay, Reaper, STEP};

/// Lines from `rx` until one satisfies `want` (or the step runs out).
fn until(rx: &Receiver<String>, seen: &mut Vec<String>, what: &str, want: impl Fn(&str) -> bool) {
    let deadline = Instant::now() + STEP;
    while Instant::now() < deadline {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(100)) {
            seen.push(line.clone());
            if want(&line) {
                return;
            }
        }
    }
    panic!("{what}: not seen in {seen:#?}");
}

/// Everything `rx` says within `d`.
fn drain(rx: &Receiver<String>, seen: &mut Vec<String>, d: Duration) {
    let deadline = Instant::now() + d;
    while Instant::now() < deadline {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(50)) {
            seen.push(line);
        }
    }
}

/// What the attacker can build with an invite's keys: a participant's codec.
fn attacker(invite: &str) -> RoomCodec {
    let inv = Invite::parse(invite).unwrap();
    let keys = inv.keys.expect("the invite carries the room key");
    RoomCodec::with_codec(
        RoomId::new(&inv.room).unwrap(),
        Arc::new(
            E2e::participant(&keys, cohost_share::e2e::Identity::generate().unwrap()).unwrap(),
        ),
    )
    .as_role(Role::CoDriver)
}

/// A relay behind the proxy (its invites name the proxy, so every client
/// goes through it) and `cohost share --agent mock --approve none --json
/// EXTRA` on it: the proxy, the relay, the host, its stdout lines and its
/// first line (the invites).
pub(crate) fn shared_behind_mitm(
    home: &std::path::Path,
    extra: &[&str],
) -> (Mitm, Reaper, Reaper, Receiver<String>, Value) {
    let secrets = home.join("relay-secrets.json");
    let mitm = Mitm::bind();
    let public = mitm.addr.to_string();
    let (relay, relay_out, relay_addr) =
        start_relay(home, &secrets, &[("COHOST_RELAY_PUBLIC", &public)]);
    relay_out
        .recv_timeout(STEP)
        .expect("the relay prints its secret");
    let stored: Value = serde_json::from_slice(&std::fs::read(&secrets).unwrap()).unwrap();
    let admin = stored["admin_secret"].as_str().unwrap().to_string();
    mitm.forward_to(&relay_addr);
    let mut host = Reaper(
        cohost(home)
            .args(["share", "--agent", "mock", "--approve", "none", "--json"])
            .args(["--relay", &public])
            .args(extra)
            .env("COHOST_RELAY_ADMIN_SECRET", &admin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let host_out = lines_of(host.0.stdout.take().unwrap());
    let first: Value =
        serde_json::from_str(&host_out.recv_timeout(STEP).expect("invites")).unwrap();
    (mitm, relay, host, host_out, first)
}

#[test]
fn a_relay_in_the_middle_cannot_forge_a_turn_or_a_key_replay_or_speak_for_a_kicked_guest() {
    let home = tempfile::tempdir().unwrap();
    let (mitm, _relay, mut host, host_out, first) =
        shared_behind_mitm(home.path(), &["--suggestions", "accept"]);
    let mut host_in = host.0.stdin.take().unwrap();
    let mut host_seen = Vec::new();
    let invite = first["co_driver"].as_str().unwrap().to_string();
    let forger = attacker(&invite);
    // The guest keeps its identity in a file, so that the test can play a
    // kicked guest colluding with the relay (step 5).
    let identity = home.path().join("ana.identity");

    let mut guest = Reaper(
        cohost(home.path())
            .args(["join", "--json", "--plain", "--name", "ana", "--identity"])
            .arg(&identity)
            .env("COHOST_INVITE", &invite)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut guest_in = guest.0.stdin.take().unwrap();
    let guest_out = lines_of(guest.0.stdout.take().unwrap());
    let guest_err = lines_of(guest.0.stderr.take().unwrap());
    let (mut out_seen, mut err_seen) = (Vec::new(), Vec::new());
    let host_conn = mitm.conn_of(Role::Host, STEP);
    let guest_conn = mitm.conn_of(Role::CoDriver, STEP);
    until(&host_out, &mut host_seen, "ana joins", |l| {
        l.contains("\"ana\"")
    });

    // A real turn reaches the guest.
    writeln!(host_in, "[mock:text] the real turn").unwrap();
    until(&guest_out, &mut out_seen, "the host's turn", |l| {
        l.contains("ai.stream.end")
    });

    // 1. A forged turn: the host's frames re-sealed with the room key under a
    // stream of the attacker's, stamped CO_DRIVER (then HOST, unsigned).
    let real: Vec<Frame> = mitm
        .log()
        .into_iter()
        .filter(|(leg, conn, f)| {
            *leg == Leg::ToClient && *conn == guest_conn && f.kind().is_replayable()
        })
        .map(|(_, _, f)| f)
        .collect();
    assert!(real.len() >= 3, "{real:?}");
    for (stamp, stream) in [(Role::CoDriver, "p-forged-1"), (Role::Host, "p-forged-2")] {
        // Sealed under the role it will be stamped with, so that only the
        // missing host signature gives it away.
        let mut turn = forger
            .clone()
            .as_role(stamp)
            .turn(StreamId::new(stream).unwrap());
        for f in &real {
            let message = match forger.decode(f).unwrap().unwrap() {
                Message::TurnEvent(mut e) => {
                    if let cohost_core::EventBody::StreamChunk { delta, .. } = &mut e.body {
                        *delta = "FORGED".into();
                    }
                    Message::TurnEvent(e)
                }
                other => other,
            };
            let forged = turn.frame(&message).unwrap().restamp(f.kind(), 99, stamp);
            mitm.inject(guest_conn, forged);
        }
    }

    // 2. The guest's announcement is sealed to the host: holding the room
    // key, the attacker cannot read it (format v2). A key rotation it
    // forges is refused whatever it wraps: only the host's key signs one.
    let announce = mitm
        .log()
        .into_iter()
        .find(|(leg, conn, f)| {
            *leg == Leg::ToRelay && *conn == guest_conn && f.kind() == FrameType::KeyAnnounce
        })
        .map(|(_, _, f)| f)
        .expect("the guest announced its key");
    // Sealed under the sender's role; the relay stamps it on the way.
    let announce = announce.restamp(FrameType::KeyAnnounce, 0, Role::CoDriver);
    assert!(
        matches!(
            forger.decode(&announce),
            Err(ShareError::Codec {
                source: CodecError::NotForUs(_),
                ..
            })
        ),
        "the attacker read the guest's announcement"
    );
    let attackers_own = KeyPair::generate().unwrap();
    let welcome: cohost_protocol::Welcome = mitm
        .log()
        .into_iter()
        .find(|(leg, conn, f)| {
            *leg == Leg::ToClient && *conn == guest_conn && f.kind() == FrameType::RoomWelcome
        })
        .and_then(|(_, _, f)| f.control().ok())
        .unwrap();
    let evil = RoomKey::from_bytes([7; 32]);
    let wrapped = wrap_key(
        forger.room(),
        77,
        &evil,
        welcome.you.conn_id,
        &attackers_own.public_b64(),
    )
    .unwrap();
    let rotate = forger
        .room_frame(&Message::KeyRotate(KeyRotate {
            keys: vec![wrapped],
        }))
        .unwrap()
        .restamp(FrameType::KeyRotate, 99, Role::CoDriver);
    mitm.inject(guest_conn, rotate);

    // 3. A host chat, replayed to the guest.
    writeln!(host_in, "/chat a message said once").unwrap();
    until(&guest_out, &mut out_seen, "the host's chat", |l| {
        l.contains("a message said once")
    });
    let chat = mitm
        .log()
        .into_iter()
        .rev()
        .find(|(leg, conn, f)| {
            *leg == Leg::ToClient && *conn == guest_conn && f.kind() == FrameType::ChatMessage
        })
        .map(|(_, _, f)| f)
        .unwrap();
    mitm.inject(guest_conn, chat);

    drain(&guest_out, &mut out_seen, Duration::from_secs(2));
    drain(&guest_err, &mut err_seen, Duration::from_millis(200));
    let out = out_seen.join("\n");
    assert!(!out.contains("FORGED"), "a forged turn was shown:\n{out}");
    assert!(
        !out.contains("p-forged"),
        "a forged stream was taken:\n{out}"
    );
    assert_eq!(
        out.matches("a message said once").count(),
        1,
        "a replayed chat is shown once:\n{out}"
    );
    let err = err_seen.join("\n");
    assert!(
        !err.contains("epoch 77"),
        "a forged key was learned:\n{err}"
    );
    // The first frame of each forged turn is opened, refused and said; it
    // frees its place, so the frames behind it wait for the real chunk 0
    // the participant asks the relay for (none: the relay never held those
    // streams) and are never opened or shown. The forged key rotation is
    // the third refusal.
    assert_eq!(
        err.matches("only the host may send it").count(),
        3,
        "every forged turn and key is refused once and said so:\n{err}"
    );
    assert!(
        err.contains("already received"),
        "the replay is said:\n{err}"
    );

    // 4. A co-driver's suggestion, replayed to the host (accept policy): it
    // runs once.
    writeln!(guest_in, "[mock:text] suggested once").unwrap();
    until(&host_out, &mut host_seen, "the suggestion", |l| {
        l.contains("\"notice\":\"suggested\"")
    });
    until(&host_out, &mut host_seen, "the suggestion's turn", |l| {
        l.contains("\"turn_done\"")
    });
    let suggestion = mitm
        .log()
        .into_iter()
        .find(|(leg, conn, f)| {
            *leg == Leg::ToClient && *conn == host_conn && f.kind() == FrameType::PromptSuggested
        })
        .map(|(_, _, f)| f)
        .unwrap();
    mitm.inject(host_conn, suggestion);
    until(&host_out, &mut host_seen, "the replay refused", |l| {
        l.contains("already received")
    });

    // 5. After a kick, the guest (its keys from its identity file) and the
    // relay collude: a chat signed with its key, sealed under the room key
    // it still holds and stamped with another connection id, is refused by
    // the host: the key was removed, whatever the relay says.
    writeln!(host_in, "/kick ana").unwrap();
    until(&host_out, &mut host_seen, "the kick", |l| {
        l.contains("removed")
    });
    let kicked = {
        let inv = Invite::parse(&invite).unwrap();
        let me = cohost_sharing::identity::load_or_create(&identity).unwrap();
        RoomCodec::with_codec(
            RoomId::new(&inv.room).unwrap(),
            Arc::new(E2e::participant(&inv.keys.unwrap(), me).unwrap()),
        )
        .as_role(Role::CoDriver)
    };
    let chat = kicked
        .room_frame(&Message::Chat(Chat {
            from: None,
            text: "after my kick".into(),
            members: None,
        }))
        .unwrap()
        .restamp(FrameType::ChatMessage, 4242, Role::CoDriver);
    mitm.inject(host_conn, chat);
    until(
        &host_out,
        &mut host_seen,
        "the kicked guest's frame refused",
        |l| l.contains("signed by a participant the host removed"),
    );
    drain(&host_out, &mut host_seen, Duration::from_millis(500));
    let host_said = host_seen.join("\n");
    assert_eq!(
        host_said.matches("\"notice\":\"suggested\"").count(),
        1,
        "the replayed suggestion reached the host's queue again:\n{host_said}"
    );
    assert!(
        !host_said.contains("after my kick"),
        "the host showed a kicked guest's chat:\n{host_said}"
    );
}

/// Issue 37: a chunk the relay leaves out is noticed. Dropped once, it is
/// asked for again and the answer arrives whole, in order; never sent at
/// all, the answer still ends and says what is missing (no stall).
#[test]
fn a_chunk_the_relay_leaves_out_is_asked_again_or_reported_never_a_stall() {
    let home = tempfile::tempdir().unwrap();
    let (mitm, _relay, mut host, _host_out, first) = shared_behind_mitm(home.path(), &[]);
    let mut host_in = host.0.stdin.take().unwrap();
    let invite = first["viewer"].as_str().unwrap().to_string();
    let mut guest = Reaper(
        cohost(home.path())
            .args(["join", "--json", "--plain", "--name", "vic"])
            .env("COHOST_INVITE", &invite)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let guest_out = lines_of(guest.0.stdout.take().unwrap());
    let guest_err = lines_of(guest.0.stderr.take().unwrap());
    let guest_conn = mitm.conn_of(Role::Viewer, STEP);
    let (mut out_seen, mut err_seen) = (Vec::new(), Vec::new());

    // The turn's chunk 4 is dropped once on its way to the guest, or always.
    for (turn, always) in [(1, false), (2, true)] {
        let mut dropped = 0;
        mitm.drop_when(move |leg, conn, f| {
            let hit = leg == Leg::ToClient
                && conn == guest_conn
                && f.kind() == FrameType::StreamChunk
                && f.chunk() == 4
                && f.stream().is_some_and(|s| s.ends_with(&format!("-{turn}")));
            if hit && (always || dropped == 0) {
                dropped += 1;
                return true;
            }
            false
        });
        writeln!(host_in, "[mock:chunks:30] turn {turn}").unwrap();
        let start = out_seen.len();
        until(&guest_out, &mut out_seen, "the turn's end", |l| {
            l.contains("ai.stream.end")
        });
        let chunks: Vec<u64> = out_seen[start..]
            .iter()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| {
                v["frame"]
                    .as_str()
                    .is_some_and(|k| k.starts_with("ai.stream") || k.starts_with("ai.execution"))
            })
            .map(|v| v["chunk"].as_u64().unwrap())
            .collect();
        drain(&guest_err, &mut err_seen, Duration::from_millis(300));
        let err = err_seen.join("\n");
        if always {
            let expected: Vec<u64> = (0..=*chunks.last().unwrap()).filter(|c| *c != 4).collect();
            assert_eq!(chunks, expected, "the rest of the turn came, in order");
            assert!(
                err.contains("1 chunk missing from this answer"),
                "the loss is said:\n{err}"
            );
        } else {
            let expected: Vec<u64> = (0..=*chunks.last().unwrap()).collect();
            assert_eq!(chunks, expected, "the dropped chunk was asked for again");
            assert!(!err.contains("missing"), "{err}");
        }
    }

    // The chunk reported missing comes after all (a relay that held it):
    // shown as late, once, never dropped as a duplicate.
    let held = mitm
        .log()
        .into_iter()
        .find(|(leg, conn, f)| {
            *leg == Leg::ToClient
                && *conn == guest_conn
                && f.kind() == FrameType::StreamChunk
                && f.chunk() == 4
                && f.stream().is_some_and(|s| s.ends_with("-2"))
        })
        .map(|(_, _, f)| f)
        .expect("the proxy saw the chunk it held back");
    mitm.drop_when(|_, _, _| false);
    for _ in 0..2 {
        mitm.inject(guest_conn, held.clone());
    }
    let start = out_seen.len();
    until(&guest_out, &mut out_seen, "the late chunk", |l| {
        l.contains("\"late\":true")
    });
    drain(&guest_out, &mut out_seen, Duration::from_millis(500));
    let late: Vec<Value> = out_seen[start..]
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["late"] == Value::Bool(true))
        .collect();
    assert_eq!(late.len(), 1, "placed once, the copy refused: {late:?}");
    assert_eq!(late[0]["chunk"], 4);
    assert_eq!(late[0]["frame"], "ai.stream.chunk");
    assert!(late[0]["payload"].is_object(), "it opened: {}", late[0]);
    // The copy is counted and said when the next answer ends.
    writeln!(host_in, "[mock:chunks:3] turn 3").unwrap();
    until(&guest_err, &mut err_seen, "the count of copies", |l| {
        l.contains("1 chunk already held again")
    });
}
