//! End-to-end encrypted rooms over TLS, against a relay that sees only
//! ciphertext and a network (a TLS proxy made in the test) that tampers;
//! kick and rotation; co-driver interrupts.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::Duration;

use cohost_protocol::{Frame, FrameType};
use cohost_relay::{ClientEvent, RelayConfig};
use cohost_share::{CodecError, Message, Presence, ShareError};
use cohost_sharing::host::{HostInput, HostNotice, SuggestionPolicy};
use cohost_sharing::session::{ParticipantEvent, ParticipantSession};
use tokio::time::timeout;

use crate::room_support;
use crate::tls_support;

const T: Duration = Duration::from_secs(30);

/// What a participant saw of one turn: frames in order, drop notices.
#[derive(Default, Debug)]
struct Turn {
    chunks: Vec<u64>,
    text: String,
    prompt: String,
    dropped: Vec<String>,
    last: Option<FrameType>,
}

async fn watch_turn(p: &mut ParticipantSession) -> Turn {
    let mut t = Turn::default();
    timeout(T, async {
        loop {
            match p.next().await.expect("participant open") {
                ParticipantEvent::Frame { frame, message, .. } if frame.kind().is_replayable() => {
                    t.chunks.push(frame.chunk());
                    match message.map(|m| *m) {
                        Some(Message::ExecutionStarted(s)) => t.prompt = s.text,
                        Some(Message::TurnEvent(e)) => {
                            if let cohost_core::EventBody::StreamChunk { delta, .. } = e.body {
                                t.text.push_str(&delta);
                            }
                        }
                        _ => {}
                    }
                    if matches!(
                        frame.kind(),
                        FrameType::StreamEnd | FrameType::StreamInterrupted
                    ) {
                        t.last = Some(frame.kind());
                        return;
                    }
                }
                ParticipantEvent::Dropped { reason, .. } => t.dropped.push(reason),
                _ => {}
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("the turn did not end in time: {t:?}"));
    t
}

/// The host quits, its session ends and the relay shuts down.
async fn finish(
    input: tokio::sync::mpsc::UnboundedSender<HostInput>,
    host: tokio::task::JoinHandle<cohost_session::Room>,
    relay: cohost_relay::RelayHandle,
) {
    input.send(HostInput::Quit).unwrap();
    let session = timeout(T, host).await.unwrap().unwrap();
    session.terminate().await.unwrap();
    relay.shutdown().await;
}

/// `cohost join INVITE --until-end --ca-file CA`, run to its end.
async fn join_binary(invite: &str, ca: &std::path::Path) -> std::process::Output {
    let (invite, ca) = (invite.to_string(), ca.to_path_buf());
    tokio::task::spawn_blocking(move || {
        let home = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_cohost"))
            .env_clear()
            .env("PATH", home.path())
            .env("HOME", home.path())
            .env("NO_COLOR", "1")
            .env("COHOST_INVITE", &invite)
            .args(["join", "--until-end", "--ca-file"])
            .arg(&ca)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + T;
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_tls_the_relay_sees_ciphertext_and_tampering_is_dropped_then_resynced() {
    let pki = tls_support::pki();
    let proxy = tls_support::proxy(pki.acceptor.clone()).await;
    let config = RelayConfig {
        public_tls: true,
        public_authority: Some(proxy.addr.to_string()),
        ..RelayConfig::default()
    };
    let setup = room_support::Setup {
        interrupts: SuggestionPolicy::Ask,
        config,
        ca_file: Some(pki.ca_file.clone()),
        upstream: Some(proxy.upstream.clone()),
        members: Vec::new(),
    };
    let room_support::Room {
        relay,
        host,
        input,
        mut co,
        mut viewer,
        viewer_invite,
        ..
    } = room_support::room_with(Duration::from_millis(5), setup).await;
    assert!(viewer_invite.starts_with("cohosts://"), "{viewer_invite}");

    // Turn A, clean.
    input
        .send(HostInput::Prompt("PROMPTMARK-A1 [mock:text]".into()))
        .unwrap();
    let a = watch_turn(&mut viewer).await;
    assert!(a.prompt.contains("PROMPTMARK-A1"), "{a:?}");
    assert!(a.text.contains("You said"), "{a:?}");
    assert!(a.dropped.is_empty(), "{a:?}");
    let _ = watch_turn(&mut co).await;

    // Turns through a tampering network: a flipped byte, a payload replayed
    // at another chunk index, a payload moved from another stream. Each is
    // dropped with one notice and the stream goes on after a resync.
    for (n, mode) in [tls_support::FLIP, tls_support::REPLAY, tls_support::MOVE]
        .into_iter()
        .enumerate()
    {
        proxy.tamper.mode.store(mode, Ordering::SeqCst);
        let prompt = format!("PROMPTMARK-B{n} one two three four five six [mock:text]");
        input.send(HostInput::Prompt(prompt.clone())).unwrap();
        let (b, b_co) = tokio::join!(watch_turn(&mut viewer), watch_turn(&mut co));
        for t in [&b, &b_co] {
            assert_eq!(t.dropped.len(), 1, "one notice for the bad frame: {t:?}");
            assert!(
                t.dropped[0].contains("does not authenticate")
                    && t.dropped[0].contains("asked the relay to send it again"),
                "{t:?}"
            );
            let want: Vec<u64> = (0..t.chunks.len() as u64).collect();
            assert_eq!(t.chunks, want, "every chunk once, in order: {t:?}");
            assert!(t.chunks.len() > 5, "{t:?}");
            assert_eq!(t.last, Some(FrameType::StreamEnd));
            assert_eq!(t.prompt, prompt);
            assert!(
                t.text.contains("You said") && t.text.contains("six"),
                "{t:?}"
            );
        }
        assert_eq!(b.text, b_co.text);
    }
    proxy.tamper.mode.store(0, Ordering::SeqCst);

    // Every byte the relay received holds neither the prompts nor the answers.
    let received = proxy.received.lock().unwrap().clone();
    assert!(received.len() > 1000, "the proxy saw the traffic");
    // It is what the relay reads, after TLS: the upgrade requests are there in clear.
    assert!(
        contains(&received, "cohost.token."),
        "the proxy captured after TLS"
    );
    for marker in ["PROMPTMARK", "You said", "said:"] {
        assert!(
            !contains(&received, marker),
            "the relay received {marker:?} in the clear"
        );
    }
    // Nor does what its replay ring holds: all of it, replayed to a late
    // client that has no key (a raw relay client).
    let inv = cohost_protocol::Invite::parse(&viewer_invite).unwrap();
    let mut cfg = cohost_relay::ClientConfig::from_invite(&inv);
    cfg.ca_file = Some(pki.ca_file.clone());
    let mut raw = cohost_relay::RelayClient::connect(cfg).await.unwrap();
    let mut ring = Vec::new();
    let mut ends = 0;
    timeout(T, async {
        while ends < 4 {
            if let Some(ClientEvent::Frame(f)) = raw.recv().await {
                if f.kind().is_replayable() {
                    ring.extend_from_slice(&f.payload());
                    ends += usize::from(f.kind() == FrameType::StreamEnd);
                }
            }
        }
    })
    .await
    .unwrap();
    for marker in ["PROMPTMARK", "You said"] {
        assert!(!contains(&ring, marker), "the replay ring holds {marker:?}");
    }
    raw.close().await;

    // The real `cohost join` speaks wss:// to the TLS proxy with --ca-file.
    let out = join_binary(&viewer_invite, &pki.ca_file).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("PROMPTMARK-A1") && stdout.contains("You said"),
        "{stdout}"
    );

    finish(input, host, relay).await;
}

fn codec_error(e: Result<cohost_share::Opened, ShareError>) -> CodecError {
    match e {
        Err(ShareError::Codec { source, .. }) => source,
        other => panic!("expected a codec error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_kicked_participant_is_out_and_cannot_read_what_follows() {
    let room_support::Room {
        relay,
        host,
        input,
        mut co,
        mut viewer,
        viewer_invite,
        mut notices,
        ..
    } = room_support::room(Duration::ZERO).await;
    // Wait until the host has seen the viewer join, then kick it by name.
    timeout(T, async {
        loop {
            if let Some(HostNotice::Presence(Presence::Joined { who, .. })) = notices.recv().await {
                if who.name == "vic" && who.role == cohost_protocol::Role::Viewer {
                    return;
                }
            }
        }
    })
    .await
    .unwrap();
    input.send(HostInput::Kick("vic".into())).unwrap();
    let closed = timeout(T, async {
        loop {
            match viewer.next().await {
                Some(ParticipantEvent::Relay(ClientEvent::Closed { reason })) => return reason,
                Some(_) => continue,
                None => return String::new(),
            }
        }
    })
    .await
    .unwrap();
    assert!(
        closed.contains("revoked") || closed.contains("401"),
        "{closed}"
    );
    // Its invite is refused from now on.
    let again = ParticipantSession::join(&viewer_invite, room_support::join_options()).await;
    let err = again
        .err()
        .expect("a revoked invite is refused")
        .to_string();
    assert!(err.contains("revoked"), "{err}");
    // The co-driver got the new key; the next turn is sealed with it.
    let learned = timeout(T, async {
        loop {
            if let Some(ParticipantEvent::KeyLearned { epoch }) = co.next().await {
                return epoch;
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(learned, 1);
    input
        .send(HostInput::Prompt("after the kick [mock:text]".into()))
        .unwrap();
    let mut after: Vec<Frame> = Vec::new();
    timeout(T, async {
        loop {
            let (f, _) = room_support::next_frame(&mut co).await;
            if f.kind().is_replayable() {
                after.push(f.clone());
                if f.kind() == FrameType::StreamEnd {
                    return;
                }
            }
        }
    })
    .await
    .unwrap();
    for f in &after {
        assert!(co.codec().open(f).is_ok());
        // The kicked viewer's keys do not open it, even forced to its epoch.
        assert_eq!(
            codec_error(viewer.codec().open(f)),
            CodecError::UnknownEpoch(1)
        );
        let mut forced = f.payload().to_vec();
        // v2: version, mode, then the epoch.
        forced[2..6].copy_from_slice(&[0, 0, 0, 0]);
        let forced = f.with_payload(&forced);
        assert_eq!(
            codec_error(viewer.codec().open(&forced)),
            CodecError::Tampered
        );
    }
    finish(input, host, relay).await;
}

#[tokio::test]
async fn a_co_driver_interrupt_stops_a_slow_turn_under_an_accepting_policy() {
    let setup = room_support::Setup {
        interrupts: SuggestionPolicy::Accept,
        ..room_support::Setup::default()
    };
    let room_support::Room {
        relay,
        host,
        input,
        mut co,
        viewer,
        ..
    } = room_support::room_with(Duration::ZERO, setup).await;
    // A viewer may not interrupt: refused before sending.
    assert!(viewer.interrupt().await.is_err());
    input.send(HostInput::Prompt("[mock:slow]".into())).unwrap();
    let end = timeout(T, async {
        loop {
            let (f, _) = room_support::next_frame(&mut co).await;
            match f.kind() {
                FrameType::StreamChunk => co.interrupt().await.unwrap(),
                FrameType::StreamEnd | FrameType::StreamInterrupted => return f.kind(),
                _ => {}
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(end, FrameType::StreamInterrupted);
    finish(input, host, relay).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn join_works_against_the_relays_own_tls() {
    let pki = tls_support::pki();
    let setup = room_support::Setup {
        config: RelayConfig {
            tls: Some((pki.cert.clone(), pki.key.clone())),
            ..RelayConfig::default()
        },
        ca_file: Some(pki.ca_file.clone()),
        ..room_support::Setup::default()
    };
    let room_support::Room {
        relay,
        host,
        input,
        mut viewer,
        viewer_invite,
        ..
    } = room_support::room_with(Duration::ZERO, setup).await;
    assert!(
        viewer_invite.starts_with("cohosts://127.0.0.1:"),
        "{viewer_invite}"
    );
    input
        .send(HostInput::Prompt("OWNTLS-MARK [mock:text]".into()))
        .unwrap();
    let t = watch_turn(&mut viewer).await;
    assert!(
        t.prompt.contains("OWNTLS-MARK") && t.text.contains("You said"),
        "{t:?}"
    );
    let out = join_binary(&viewer_invite, &pki.ca_file).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("OWNTLS-MARK"), "{stdout}");
    // Without the test's CA the relay's certificate is not trusted.
    let refused = ParticipantSession::join(&viewer_invite, room_support::join_options()).await;
    let err = refused
        .err()
        .expect("an untrusted certificate is refused")
        .to_string();
    assert!(err.to_lowercase().contains("certificate"), "{err}");
    finish(input, host, relay).await;
}
