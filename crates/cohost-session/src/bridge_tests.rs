//! The room bridge on mock members: an asked member's answer comes back,
//! what is asked is told to the front end, loops and stragglers are
//! refused.

use std::time::Duration;

use cohost_core::bridge::{BridgeCall, BridgeRules};
use cohost_core::ErrorCode;
use tokio::sync::mpsc;

use super::*;
use crate::room::Member;
use crate::running::tests::mock;

async fn room_of(names: &[&str]) -> Room {
    let mut members = Vec::new();
    for n in names {
        members.push(Member {
            name: (*n).into(),
            session: mock().await,
        });
    }
    Room::new(members).unwrap()
}

fn ask(name: &str, prompt: &str) -> BridgeCall {
    BridgeCall::AskMember {
        name: name.into(),
        prompt: prompt.into(),
    }
}

#[tokio::test]
async fn an_asked_member_answers_and_the_room_is_told_who_asked_whom() {
    let room = room_of(&["claude", "codex"]).await;
    let (tx, mut notes) = mpsc::unbounded_channel();
    let bridge = RoomBridge::new(BridgeRules::default(), tx);
    bridge.set_room(room.clone());
    let out = bridge
        .handle("claude", ask("codex", "[mock:say] the sky is blue"))
        .await
        .unwrap();
    assert_eq!(out["member"], "codex");
    assert_eq!(out["answer"], "the sky is blue");
    assert_eq!(out["completed"], true);
    match notes.try_recv().unwrap() {
        BridgeNote::Asked {
            from, to, prompt, ..
        } => assert_eq!(
            (from.as_str(), to.as_str(), prompt.as_str()),
            ("claude", "codex", "[mock:say] the sky is blue")
        ),
        other => panic!("{other:?}"),
    }
    let list = bridge
        .handle("codex", BridgeCall::ListMembers)
        .await
        .unwrap();
    assert_eq!(list["members"][0]["name"], "claude");
    assert_eq!(list["members"][1]["you"], true);
    bridge
        .handle(
            "codex",
            BridgeCall::PostToRoom {
                text: "done".into(),
            },
        )
        .await
        .unwrap();
    assert_eq!(
        notes.try_recv().unwrap(),
        BridgeNote::Posted {
            from: "codex".into(),
            text: "done".into()
        }
    );
    room.terminate().await.unwrap();
}

#[tokio::test]
async fn a_member_waiting_for_an_answer_cannot_be_asked_back() {
    let room = room_of(&["claude", "codex"]).await;
    let (tx, mut notes) = mpsc::unbounded_channel();
    let bridge = RoomBridge::new(BridgeRules::default(), tx);
    bridge.set_room(room.clone());
    let asking = {
        let bridge = bridge.clone();
        tokio::spawn(async move { bridge.handle("claude", ask("codex", "[mock:slow]")).await })
    };
    // Once codex runs claude's question, codex asking claude would wait on
    // claude, who waits on codex.
    let refused = loop {
        tokio::time::sleep(Duration::from_millis(5)).await;
        if room.member("codex").unwrap().session.busy() {
            break bridge.handle("codex", ask("claude", "and you?")).await;
        }
    };
    let e = refused.unwrap_err();
    assert!(e.message.contains("claude → codex"), "{e}");
    assert!(matches!(notes.recv().await, Some(BridgeNote::Asked { .. })));
    assert!(
        matches!(notes.recv().await, Some(BridgeNote::Refused { from, .. }) if from == "codex")
    );
    room.member("codex").unwrap().session.interrupt();
    let out = asking.await.unwrap().unwrap();
    assert_eq!(out["completed"], false);
    // Once answered, the chain is gone: codex may ask claude now.
    let out = bridge
        .handle("codex", ask("claude", "[mock:say] yes"))
        .await
        .unwrap();
    assert_eq!(out["answer"], "yes");
    room.terminate().await.unwrap();
}

#[tokio::test]
async fn an_answer_late_past_its_time_is_refused_and_the_turn_stopped() {
    let room = room_of(&["claude", "codex"]).await;
    let (tx, _notes) = mpsc::unbounded_channel();
    let rules = BridgeRules {
        answer_time: Duration::from_millis(300),
        ..BridgeRules::default()
    };
    let bridge = RoomBridge::new(rules, tx);
    bridge.set_room(room.clone());
    let e = bridge
        .handle("claude", ask("codex", "[mock:slow]"))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    // The slow answer (50 deltas 20 ms apart: 1 s) was stopped, not left
    // running for its last 700 ms.
    let codex = room.member("codex").unwrap().session.clone();
    tokio::time::timeout(Duration::from_millis(400), async {
        while codex.busy() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the asked turn was interrupted");
    // Strangers are named with the members.
    let e = bridge
        .handle("claude", ask("aider", "hi"))
        .await
        .unwrap_err();
    assert!(e.suggested_fix.unwrap().contains("claude, codex"));
    room.terminate().await.unwrap();
}
