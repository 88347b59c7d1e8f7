//! Steering and the queue on the mock agent: text sent while a turn runs
//! reaches it where the agent takes input mid-turn, else waits in the
//! queue; the queue is visible, reorderable and cancellable, and every
//! change is a `queue` event.

use std::sync::Arc;
use std::time::Duration;

use cohost_agents::mock::{MockFactory, MockOptions};
use cohost_core::steer::QueueChange;
use cohost_core::{EndReason, Event, EventBody, PromptInput};

use super::tests::{fast, start};
use super::*;

async fn mock(steer: bool) -> RunningSession {
    let opts = MockOptions { steer, ..fast() };
    start(Arc::new(MockFactory::new(opts)), None, None).await
}

/// The next event; fails after 10 s.
async fn next(sub: &mut Subscription) -> Event {
    tokio::time::timeout(Duration::from_secs(10), sub.recv())
        .await
        .expect("an event within 10 s")
        .expect("not cut off")
        .expect("the session did not end")
}

/// Events up to and with the first that `stop` takes.
async fn until(sub: &mut Subscription, stop: impl Fn(&Event) -> bool) -> Vec<Event> {
    let mut out = Vec::new();
    loop {
        let ev = next(sub).await;
        let done = stop(&ev);
        out.push(ev);
        if done {
            return out;
        }
    }
}

fn is_chunk(e: &Event) -> bool {
    matches!(e.body, EventBody::StreamChunk { .. })
}

fn is_end(e: &Event) -> bool {
    matches!(e.body, EventBody::StreamEnd { .. })
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

fn queue_notices(events: &[Event]) -> Vec<&cohost_core::QueueNotice> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Queue(n) => Some(n),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn text_sent_mid_turn_reaches_an_agent_that_takes_it_in_the_same_turn() {
    let s = mock(true).await;
    let mut sub = s.subscribe();
    let turn = s.prompt(PromptInput::text("[mock:slow]")).unwrap();
    let mut events = until(&mut sub, is_chunk).await;
    let outcome = s
        .steer(PromptInput::text("also check b.rs"), Some("ana"))
        .await
        .unwrap();
    assert!(matches!(outcome, SteerOutcome::Steered), "{outcome:?}");
    events.extend(until(&mut sub, is_end).await);
    let steered: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Steered(n) => Some(n),
            _ => None,
        })
        .collect();
    assert_eq!(steered.len(), 1, "{events:#?}");
    assert_eq!(steered[0].text, "also check b.rs");
    assert_eq!(steered[0].by.as_deref(), Some("ana"));
    // The agent took it into this very turn, and nothing was queued.
    assert!(text(&events).contains("[steered: also check b.rs]"));
    assert!(events
        .iter()
        .all(|e| e.correlation_id == turn.correlation_id()));
    assert!(queue_notices(&events).is_empty());
    assert!(s.queue().is_empty());
    assert_eq!(turn.outcome().await.unwrap().reason, EndReason::Completed);
    assert!(!s.busy());
}

#[tokio::test]
async fn text_sent_mid_turn_to_an_agent_without_mid_turn_input_is_queued_and_runs_next() {
    let s = mock(false).await;
    let mut sub = s.subscribe();
    let first = s.prompt(PromptInput::text("[mock:slow]")).unwrap();
    until(&mut sub, is_chunk).await;
    let SteerOutcome::Queued { item, turn } = s
        .steer(PromptInput::text("[mock:say] queued-reply"), None)
        .await
        .unwrap()
    else {
        panic!("queued");
    };
    // Every prompt of the session has a number; the first one had 1.
    assert_eq!(item.id, 2);
    assert_eq!(s.queue(), vec![item.clone()]);
    // The front ends hear of it at once, with the reason.
    let added = until(&mut sub, |e| matches!(e.body, EventBody::Queue(_))).await;
    let n = queue_notices(&added)[0];
    assert_eq!(n.change, QueueChange::Added);
    assert_eq!(n.item, item);
    assert_eq!(n.items, vec![item.clone()]);
    let note = n.note.as_deref().unwrap();
    assert!(note.contains("takes no input while a turn runs"), "{note}");
    assert!(!added
        .iter()
        .any(|e| matches!(e.body, EventBody::Steered(_))));
    // The running turn ends as it would have; then the queued one starts.
    let rest = until(&mut sub, is_end).await;
    assert!(!text(&rest).contains("queued-reply"));
    assert_eq!(first.outcome().await.unwrap().reason, EndReason::Completed);
    let second = until(&mut sub, is_end).await;
    let started = queue_notices(&second);
    assert_eq!(started[0].change, QueueChange::Started);
    assert!(started[0].items.is_empty());
    assert_eq!(text(&second).trim(), "queued-reply");
    assert_eq!(turn.outcome().await.unwrap().reason, EndReason::Completed);
    assert!(s.queue().is_empty());
}

#[tokio::test]
async fn the_queue_is_reorderable_and_cancellable() {
    let s = mock(false).await;
    let mut sub = s.subscribe();
    s.prompt(PromptInput::text("[mock:slow]")).unwrap();
    until(&mut sub, is_chunk).await;
    let mut queued = Vec::new();
    for word in ["b", "c", "d"] {
        let text = PromptInput::text(format!("[mock:say] {word}"));
        match s.steer(text, None).await.unwrap() {
            SteerOutcome::Queued { item, turn } => queued.push((item, turn)),
            other => panic!("{other:?}"),
        }
    }
    let ids: Vec<u64> = queued.iter().map(|(i, _)| i.id).collect();
    assert_eq!(ids, [2, 3, 4]);
    // d first, c cancelled.
    s.queue_move(4, 0).unwrap();
    assert_eq!(s.queue_position(4).unwrap(), 0);
    let dropped = s.queue_drop(3).unwrap();
    assert_eq!(dropped.text, "[mock:say] c");
    let order: Vec<u64> = s.queue().iter().map(|i| i.id).collect();
    assert_eq!(order, [4, 2]);
    assert!(s.queue_drop(3).is_err(), "a number is not dropped twice");
    assert!(s.queue_move(9, 0).is_err());
    s.interrupt();
    let mut seen = until(&mut sub, is_end).await;
    seen.extend(until(&mut sub, is_end).await);
    seen.extend(until(&mut sub, is_end).await);
    let changes: Vec<(QueueChange, u64)> = queue_notices(&seen)
        .iter()
        .map(|n| (n.change, n.item.id))
        .collect();
    assert_eq!(
        changes,
        [
            (QueueChange::Added, 2),
            (QueueChange::Added, 3),
            (QueueChange::Added, 4),
            (QueueChange::Moved, 4),
            (QueueChange::Dropped, 3),
            (QueueChange::Started, 4),
            (QueueChange::Started, 2),
        ]
    );
    let answers: Vec<String> = seen
        .split(is_end)
        .map(|t| text(t).trim().to_string())
        .filter(|t| t == "b" || t == "d" || t == "c")
        .collect();
    assert_eq!(answers, ["d", "b"]);
    let mut turns = queued.into_iter().map(|(_, t)| t);
    let (b, c, d) = (
        turns.next().unwrap(),
        turns.next().unwrap(),
        turns.next().unwrap(),
    );
    assert!(c.outcome().await.is_err(), "a dropped prompt never runs");
    assert_eq!(d.outcome().await.unwrap().reason, EndReason::Completed);
    assert_eq!(b.outcome().await.unwrap().reason, EndReason::Completed);
    assert!(!s.busy());
}

#[tokio::test]
async fn text_steered_while_idle_is_a_prompt_and_prompts_behind_a_turn_show_in_the_queue() {
    let s = mock(true).await;
    let mut sub = s.subscribe();
    let SteerOutcome::Started(turn) = s
        .steer(PromptInput::text("[mock:say] now"), None)
        .await
        .unwrap()
    else {
        panic!("started");
    };
    let events = until(&mut sub, is_end).await;
    assert_eq!(text(&events).trim(), "now");
    assert!(queue_notices(&events).is_empty(), "nothing waited");
    turn.outcome().await.unwrap();
    // A plain prompt sent while another runs waits visibly too.
    s.prompt(PromptInput::text("[mock:slow]")).unwrap();
    until(&mut sub, is_chunk).await;
    let behind = s.prompt(PromptInput::text("[mock:say] after")).unwrap();
    let items = s.queue();
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0].correlation_id, behind.correlation_id());
    s.interrupt();
    until(&mut sub, is_end).await;
    let second = until(&mut sub, is_end).await;
    assert_eq!(text(&second).trim(), "after");
}
