//! A shared session end to end over real WebSockets: an embedded relay, a
//! host running the mock agent, a co-driver and a viewer.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::time::Duration;

use cohost_protocol::FrameType;
use cohost_sharing::host::{HostInput, HostNotice};
use cohost_sharing::participant::SendError;
use cohost_sharing::session::ParticipantSession;
use tokio::time::timeout;

use crate::room_support;

const T: Duration = Duration::from_secs(20);

/// Collects a participant's stream frames until the stream ends.
async fn collect_turn(
    client: &mut ParticipantSession,
    drop_after: Option<u64>,
) -> Vec<(u64, FrameType, serde_json::Value)> {
    let mut frames = Vec::new();
    let mut dropped = false;
    loop {
        let (f, _) = room_support::next_frame(client).await;
        if f.kind().is_replayable() {
            let v = room_support::payload_json(client, &f);
            frames.push((f.chunk(), f.kind(), v));
            if Some(f.chunk()) == drop_after && !dropped {
                dropped = true;
                client.drop_connection().await;
            }
        }
        if matches!(
            f.kind(),
            FrameType::StreamEnd | FrameType::StreamInterrupted
        ) {
            return frames;
        }
    }
}

#[tokio::test]
async fn co_driver_suggests_host_runs_everyone_sees_every_chunk() {
    let room_support::Room {
        relay,
        host,
        input: input_tx,
        mut notices,
        mut co,
        mut viewer,
        ..
    } = room_support::room(Duration::from_millis(15)).await;

    // The viewer may not suggest: refused before anything is sent, and the
    // host never hears of it.
    let refused = viewer.suggest("rm -rf / [mock:text]").await.unwrap_err();
    assert!(
        matches!(&refused, SendError::NotAllowed(w) if w.contains("viewers cannot suggest")),
        "{refused}"
    );

    // The co-driver's suggestion reaches the host, who accepts it.
    let sid = co.suggest("count with me [mock:text]").await.unwrap();
    let suggested = timeout(T, async {
        loop {
            match notices.recv().await.unwrap() {
                HostNotice::Suggested(s) => return s,
                _ => continue,
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(suggested.suggestion_id, sid);
    assert_eq!(suggested.text, "count with me [mock:text]");
    input_tx.send(HostInput::Accept(sid.clone())).unwrap();

    // Both receive the whole turn in order; the viewer drops its connection
    // mid-stream, reconnects and misses nothing.
    let (co_frames, viewer_frames) = tokio::join!(
        collect_turn(&mut co, None),
        collect_turn(&mut viewer, Some(3))
    );
    for frames in [&co_frames, &viewer_frames] {
        let idx: Vec<u64> = frames.iter().map(|f| f.0).collect();
        let expected: Vec<u64> = (0..idx.len() as u64).collect();
        assert_eq!(idx, expected, "every chunk exactly once, in order");
        assert_eq!(frames[0].1, FrameType::ExecutionStarted);
        assert_eq!(frames[0].2["correlation_id"], sid.as_str());
        assert_eq!(frames.last().unwrap().1, FrameType::StreamEnd);
        assert_eq!(frames.last().unwrap().2["reason"], "completed");
        let text: String = frames
            .iter()
            .filter(|f| f.2["type"] == "stream_chunk")
            .map(|f| f.2["delta"].as_str().unwrap())
            .collect();
        assert!(
            text.contains("You said: \"count with me [mock:text]\""),
            "{text}"
        );
        // The payloads are the host's cohost events, chunk numbering intact.
        let chunk_idx: Vec<u64> = frames
            .iter()
            .filter(|f| f.2["type"] == "stream_chunk")
            .map(|f| f.2["chunk_index"].as_u64().unwrap())
            .collect();
        assert_eq!(chunk_idx, (0..chunk_idx.len() as u64).collect::<Vec<_>>());
    }
    assert_eq!(co_frames.len(), viewer_frames.len());

    // The host's interrupt reaches the adapter: a slow turn ends interrupted.
    input_tx
        .send(HostInput::Prompt("[mock:slow]".into()))
        .unwrap();
    let mut saw_chunk = false;
    let frames = timeout(T, async {
        let mut frames = Vec::new();
        loop {
            let (f, _) = room_support::next_frame(&mut co).await;
            if f.kind() == FrameType::StreamChunk && !saw_chunk {
                saw_chunk = true;
                input_tx.send(HostInput::Interrupt).unwrap();
            }
            let end = matches!(
                f.kind(),
                FrameType::StreamEnd | FrameType::StreamInterrupted
            );
            frames.push(f.kind());
            if end {
                return frames;
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(*frames.last().unwrap(), FrameType::StreamInterrupted);

    input_tx.send(HostInput::Quit).unwrap();
    let session = timeout(T, host).await.unwrap().unwrap();
    session.terminate().await.unwrap();
    relay.shutdown().await;
}

#[tokio::test]
async fn quitting_waits_for_the_relays_close_ack_then_guests_see_room_closed() {
    let room_support::Room {
        relay,
        host,
        input,
        mut co,
        ..
    } = room_support::room(Duration::ZERO).await;
    let started = std::time::Instant::now();
    input.send(HostInput::Quit).unwrap();
    timeout(T, host).await.unwrap().unwrap();
    // Acknowledged by the relay, not given up on after the bound.
    assert!(
        started.elapsed() < cohost_sharing::host::CLOSE_ACK,
        "the bridge waited {:?}",
        started.elapsed()
    );
    // The relay may stop at once: the guest still learns the room closed.
    relay.shutdown().await;
    let reason = timeout(T, async {
        loop {
            match co.next().await {
                Some(cohost_sharing::session::ParticipantEvent::Relay(
                    cohost_relay::ClientEvent::Closed { reason },
                )) => return reason,
                Some(_) => continue,
                None => return String::new(),
            }
        }
    })
    .await
    .unwrap();
    assert!(reason.contains("room closed"), "{reason}");
}

/// A participant's turns until `n` streams have ended: per stream, its
/// opened payloads in order.
async fn collect_turns(
    client: &mut ParticipantSession,
    n: usize,
) -> std::collections::BTreeMap<String, Vec<serde_json::Value>> {
    let mut by = std::collections::BTreeMap::<String, Vec<serde_json::Value>>::new();
    let mut ended = 0;
    while ended < n {
        let (f, _) = room_support::next_frame(client).await;
        if !f.kind().is_replayable() {
            continue;
        }
        let v = room_support::payload_json(client, &f);
        by.entry(f.stream().unwrap().to_string())
            .or_default()
            .push(v);
        if matches!(
            f.kind(),
            FrameType::StreamEnd | FrameType::StreamInterrupted
        ) {
            ended += 1;
        }
    }
    by
}

/// One stream's member (from `ai.execution.started`), after checking that
/// every event of it names the same member, and its answer text.
fn member_and_text(frames: &[serde_json::Value]) -> (String, String) {
    let member = frames[0]["agent"]
        .as_str()
        .expect("the start names its member");
    for f in &frames[1..] {
        assert_eq!(f["agent"], member, "every event names its member: {f}");
    }
    let text = frames
        .iter()
        .filter(|f| f["type"] == "stream_chunk")
        .map(|f| f["delta"].as_str().unwrap())
        .collect();
    (member.to_string(), text)
}

async fn next_notice<T>(
    notices: &mut tokio::sync::mpsc::UnboundedReceiver<HostNotice>,
    mut pick: impl FnMut(HostNotice) -> Option<T>,
) -> T {
    timeout(T, async {
        loop {
            if let Some(t) = pick(notices.recv().await.expect("the bridge is running")) {
                return t;
            }
        }
    })
    .await
    .expect("the notice in time")
}

#[tokio::test]
async fn a_shared_room_of_two_agents_runs_a_suggestion_on_the_member_it_names() {
    let room_support::Room {
        relay,
        host,
        input,
        mut notices,
        mut co,
        mut viewer,
        ..
    } = room_support::room_with(
        Duration::from_millis(5),
        room_support::Setup {
            members: vec!["alpha", "beta"],
            ..room_support::Setup::default()
        },
    )
    .await;

    // `@beta TEXT` from a co-driver: the host sees whom it is for, and
    // accepting it runs it on beta alone.
    let sid = co.suggest("@beta [mock:say] only beta").await.unwrap();
    let s = next_notice(&mut notices, |n| match n {
        HostNotice::Suggested(s) => Some(s),
        _ => None,
    })
    .await;
    assert_eq!(
        (s.suggestion_id.as_str(), s.text.as_str(), s.to.as_deref()),
        (sid.as_str(), "[mock:say] only beta", Some("beta"))
    );
    input.send(HostInput::Accept(sid.clone())).unwrap();
    let decided = next_notice(&mut notices, |n| match n {
        HostNotice::SuggestionDecided(d) => Some(d),
        _ => None,
    })
    .await;
    assert_eq!(decided.agent.as_deref(), Some("beta"));
    for p in [&mut co, &mut viewer] {
        let turns = collect_turns(p, 1).await;
        let (member, text) = member_and_text(turns.values().next().unwrap());
        assert_eq!((member.as_str(), text.as_str()), ("beta", "only beta"));
    }

    // For a member the room does not have: rejected, never run elsewhere.
    let sid = co.suggest("@gamma [mock:say] nobody").await.unwrap();
    let why = next_notice(&mut notices, |n| match n {
        HostNotice::Room(m) if m.contains("gamma") => Some(m),
        _ => None,
    })
    .await;
    assert!(why.contains("not in this room"), "{why}");
    let rejected = next_notice(&mut notices, |n| match n {
        HostNotice::SuggestionDecided(d) => Some(d),
        _ => None,
    })
    .await;
    assert_eq!((rejected.suggestion_id, rejected.accepted), (sid, false));

    // `/compare`: one stream per member, at once, each naming its member.
    input
        .send(HostInput::Compare("[mock:say] same to both".into()))
        .unwrap();
    let turns = collect_turns(&mut viewer, 2).await;
    let mut seen: Vec<(String, String)> = turns.values().map(|f| member_and_text(f)).collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("alpha".to_string(), "same to both".to_string()),
            ("beta".to_string(), "same to both".to_string())
        ]
    );

    // The host's `@alpha TEXT` runs on alpha, who takes plain text next.
    input
        .send(HostInput::Prompt("@alpha [mock:say] to alpha".into()))
        .unwrap();
    input
        .send(HostInput::Prompt("[mock:say] alpha again".into()))
        .unwrap();
    // The co-driver has the compare's two streams first, then these two.
    let turns = collect_turns(&mut co, 4).await;
    let mut mine: Vec<(String, String)> = turns
        .values()
        .map(|f| member_and_text(f))
        .filter(|(_, t)| t != "same to both")
        .collect();
    mine.sort();
    assert_eq!(
        mine,
        [
            ("alpha".to_string(), "alpha again".to_string()),
            ("alpha".to_string(), "to alpha".to_string())
        ]
    );
    input.send(HostInput::Quit).unwrap();
    let room = timeout(T, host).await.unwrap().unwrap();
    room.terminate().await.unwrap();
    relay.shutdown().await;
}
