//! A room of mock members: one merged stream naming each member, compare,
//! interrupting one member while the others go on.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use cohost_agents::mock::MockFactory;
use cohost_core::{EndReason, EventBody, PromptInput};

use super::*;
use crate::running::tests::{fast, mock, start};

fn member(name: &str, session: RunningSession) -> Member {
    Member {
        name: name.into(),
        session,
    }
}

/// The members' events of one turn each, by member, up to every member's
/// `stream_end`.
async fn until_all_end(events: &mut RoomEvents, n: usize) -> BTreeMap<String, Vec<Event>> {
    let mut by: BTreeMap<String, Vec<Event>> = BTreeMap::new();
    let mut ended = 0;
    while ended < n {
        let ev = tokio::time::timeout(Duration::from_secs(10), events.recv())
            .await
            .expect("the room went on for 10 s")
            .expect("a member's session ended early")
            .expect("not cut off");
        let name = ev.agent.clone().expect("every room event names its member");
        if matches!(ev.body, EventBody::StreamEnd { .. }) {
            ended += 1;
        }
        by.entry(name).or_default().push(ev);
    }
    by
}

fn end_reason(events: &[Event]) -> Option<EndReason> {
    events.iter().find_map(|e| match &e.body {
        EventBody::StreamEnd { reason, .. } => Some(*reason),
        _ => None,
    })
}

fn text(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn compare_runs_one_prompt_on_every_member_and_names_each_event() {
    let room = Room::new(vec![member("a", mock().await), member("b", mock().await)]).unwrap();
    let mut events = room.subscribe_new();
    let input = PromptInput {
        text: "[mock:say] same question".into(),
        correlation_id: Some("c-cmp".into()),
        ..PromptInput::default()
    };
    let turns = room.prompt_each(&input, false);
    assert_eq!(turns.len(), 2);
    let by = until_all_end(&mut events, 2).await;
    assert_eq!(by.keys().collect::<Vec<_>>(), ["a", "b"]);
    for (name, evs) in &by {
        assert_eq!(text(evs), "same question", "{name}");
        assert_eq!(end_reason(evs), Some(EndReason::Completed), "{name}");
        // Each member's own correlation id, derived from the caller's.
        assert!(evs
            .iter()
            .all(|e| e.correlation_id == format!("c-cmp.{name}")));
    }
    for (_, turn) in turns {
        assert_eq!(
            turn.unwrap().outcome().await.unwrap().reason,
            EndReason::Completed
        );
    }
    room.terminate().await.unwrap();
    // Every member ended: so does the merged stream.
    let rest = tokio::time::timeout(Duration::from_secs(5), async {
        while events.recv().await.is_some() {}
    })
    .await;
    assert!(
        rest.is_ok(),
        "the room's stream did not end with its members"
    );
}

#[tokio::test]
async fn interrupting_one_member_leaves_the_others_running() {
    let slow = || {
        start(
            Arc::new(MockFactory::new(fast())),
            None,
            Some("slow".into()),
        )
    };
    let room = Room::new(vec![
        member("fast", mock().await),
        member("slow", slow().await),
        member("slow#2", slow().await),
    ])
    .unwrap();
    let mut events = room.subscribe_new();
    let turns = room.prompt_each(&PromptInput::text("[mock:slow] go"), false);
    // Once the first slow member streams, interrupt it alone.
    loop {
        let ev = events.recv().await.unwrap().unwrap();
        if ev.agent.as_deref() == Some("slow") && matches!(ev.body, EventBody::StreamChunk { .. }) {
            break;
        }
    }
    assert!(room.named("slow").unwrap().session.interrupt());
    let mut outcomes = BTreeMap::new();
    for (name, turn) in turns {
        outcomes.insert(name, turn.unwrap().outcome().await.unwrap().reason);
    }
    assert_eq!(outcomes["slow"], EndReason::Interrupted);
    assert_eq!(outcomes["slow#2"], EndReason::Completed);
    assert_eq!(outcomes["fast"], EndReason::Completed);
    room.terminate().await.unwrap();
}

#[tokio::test]
async fn names_are_unique_and_unknown_ones_are_answered_with_the_members() {
    let dup = Room::new(vec![member("a", mock().await), member("a", mock().await)]);
    assert!(
        matches!(dup, Err(SessionError::DuplicateMember { ref name }) if name == "a"),
        "{:?}",
        dup.err()
    );
    let room = Room::new(vec![
        member("claude", mock().await),
        member("codex", mock().await),
    ])
    .unwrap();
    assert!(matches!(
        room.named("gemini").err(),
        Some(SessionError::NoSuchMember { name, .. }) if name == "gemini"
    ));
    let e = room.named("gemini").err().unwrap();
    assert_eq!(
        e.said(),
        "no member of this room is named gemini; the members are: claude, codex"
    );
    assert!(room.member("codex").is_some());
    room.terminate().await.unwrap();
}

#[tokio::test]
async fn a_followed_member_joins_the_merged_stream() {
    let first = member("a", mock().await);
    let mut events = RoomEvents::of_member(&first);
    let late = member("b", mock().await);
    events.follow(&late);
    let room = Room::new(vec![first, late]).unwrap();
    let _turns = room.prompt_each(&PromptInput::text("[mock:say] hi"), false);
    let by = until_all_end(&mut events, 2).await;
    assert_eq!(by.keys().collect::<Vec<_>>(), ["a", "b"]);
    room.terminate().await.unwrap();
    let solo = Room::of_one("claude", mock().await);
    assert_eq!(solo.members().len(), 1);
    assert!(solo.member("claude").is_some());
    solo.terminate().await.unwrap();
}
