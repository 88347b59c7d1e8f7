//! What the host sends to a room carries no secret (checked on what a
//! participant receives, i.e. what the host encrypted), and what a
//! participant sends is inert on screen and shown under the relay's stamp.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::time::Duration;

use cohost_core::sanitize::corpus;
use cohost_sharing::host::{HostInput, HostNotice};
use cohost_sharing::participant;
use tokio::time::timeout;

use crate::room_support;
use room_support::next_frame;

const T: Duration = Duration::from_secs(20);

#[tokio::test]
async fn room_payloads_hold_no_secret_and_chat_is_inert_and_stamped() {
    let room_support::Room {
        relay,
        host,
        input: input_tx,
        mut notices,
        mut co,
        viewer,
        ..
    } = room_support::room(Duration::ZERO).await;

    // The host runs a prompt full of secrets; the co-driver sees the turn.
    input_tx
        .send(HostInput::Prompt(format!("{} [mock:text]", corpus::text())))
        .unwrap();
    let mut seen = String::new();
    loop {
        let (f, _) = next_frame(&mut co).await;
        // What the host sealed: the opened payload.
        seen.push_str(&String::from_utf8_lossy(&co.codec().open(&f).unwrap().body));
        if matches!(f.kind(), cohost_protocol::FrameType::StreamEnd) {
            break;
        }
    }
    assert!(
        seen.contains("execution") || seen.contains("[REDACTED]"),
        "{seen}"
    );
    assert_eq!(
        corpus::leaks(&seen),
        Vec::<&str>::new(),
        "the room received them"
    );

    // A value only the host's sanitizer knows (no shape gives it away)
    // leaves the host's chat redacted: the bridge seals with its sanitizer.
    assert_eq!(
        cohost_core::sanitize::global().sanitize(room_support::HOST_SECRET),
        room_support::HOST_SECRET
    );
    input_tx
        .send(HostInput::Chat(format!(
            "the key is {}",
            room_support::HOST_SECRET
        )))
        .unwrap();
    let (f, _) = next_frame(&mut co).await;
    let said = String::from_utf8_lossy(&co.codec().open(&f).unwrap().body).into_owned();
    assert!(
        said.contains("the key is") && !said.contains(room_support::HOST_SECRET),
        "{said}"
    );

    // A viewer's chat with escape sequences, claiming to be the host.
    let chat = "hi\x1b]0;pwned\x07\x1b[2J\x1b[31mred";
    viewer.chat(chat).await.unwrap();
    let got = timeout(T, async {
        loop {
            if let Some(HostNotice::Chat(c)) = notices.recv().await {
                return c;
            }
        }
    })
    .await
    .unwrap();
    let from = got.from.unwrap_or_default();
    // As the host bound the viewer's key (format v2), with its role: not
    // the relay's stamp, not a name its payload claims.
    assert_eq!(from, "vic (viewer)", "shown as {from:?}");
    // What the co-driver's terminal shows of it.
    let (f, _) = next_frame(&mut co).await;
    let line = participant::frame_line(co.codec(), &f).unwrap();
    assert!(line.starts_with("<vic (viewer)>"), "{line:?}");
    assert!(line.ends_with("> hired"), "{line:?}");
    assert!(!line.contains('\x1b') && !line.contains('\x07'), "{line:?}");

    input_tx.send(HostInput::Quit).unwrap();
    let session = timeout(T, host).await.unwrap().unwrap();
    session.terminate().await.unwrap();
    relay.shutdown().await;
}
