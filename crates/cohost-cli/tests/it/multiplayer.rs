//! A shared session end to end over real WebSockets: an embedded relay, a
//! host running the mock agent, a co-driver and a viewer.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::time::Duration;

use cohost_cli::multiplayer::host::{HostInput, HostNotice};
use cohost_cli::multiplayer::participant::SendError;
use cohost_cli::multiplayer::session::ParticipantSession;
use cohost_protocol::FrameType;
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
        started.elapsed() < cohost_cli::multiplayer::host::CLOSE_ACK,
        "the bridge waited {:?}",
        started.elapsed()
    );
    // The relay may stop at once: the guest still learns the room closed.
    relay.shutdown().await;
    let reason = timeout(T, async {
        loop {
            match co.next().await {
                Some(cohost_cli::multiplayer::session::ParticipantEvent::Relay(
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
