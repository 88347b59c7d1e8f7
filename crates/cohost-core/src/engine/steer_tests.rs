//! Steering through the engine: text offered to the running turn reaches
//! an adapter that takes it (a `steered` event, an `Ok` reply); an adapter
//! that does not, or no running turn, refuses it so the caller queues it.

use super::tests::run;
use super::*;
use crate::approval::Policy;
use crate::double::{Factory, Options};
use crate::event::{Event, EventBody};
use crate::sync::lock;
use std::sync::Mutex;
use std::time::Duration;

async fn session(steered: Option<Arc<Mutex<Vec<String>>>>) -> HostSession {
    let factory = Arc::new(Factory::new(Options {
        steered,
        ..Options::default()
    }));
    let mut s = HostSession::new(
        factory,
        AdapterConfig::default(),
        Arc::new(Policy::AllowAll),
        SessionOptions::default(),
    );
    s.start().await.unwrap();
    s
}

/// Run a slow turn, offering `text` to it 250 ms in; the turn's events and
/// the steer's answer.
async fn steer_during_a_slow_turn(
    s: &mut HostSession,
    text: &str,
) -> (Vec<Event>, Result<(), CohostError>) {
    let control = s.control();
    let text = text.to_string();
    let offer = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(250)).await;
        control.steer(text, Some("ana".into())).await
    });
    let (_, events) = run(s, "[double:slow]").await;
    let answer = offer
        .await
        .unwrap()
        .expect("the engine answers every steer");
    (events, answer)
}

#[tokio::test(start_paused = true)]
async fn an_adapter_that_takes_input_mid_turn_is_steered_and_the_turn_says_so() {
    let kept = Arc::new(Mutex::new(Vec::new()));
    let mut s = session(Some(kept.clone())).await;
    let (events, answer) = steer_during_a_slow_turn(&mut s, "also check b.rs").await;
    answer.unwrap();
    assert_eq!(*lock(&kept), ["also check b.rs"]);
    let steered: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Steered(n) => Some(n),
            _ => None,
        })
        .collect();
    assert_eq!(steered.len(), 1, "{events:?}");
    assert_eq!(steered[0].text, "also check b.rs");
    assert_eq!(steered[0].by.as_deref(), Some("ana"));
    // In the middle of the turn, under its prompt id.
    let at = events
        .iter()
        .position(|e| matches!(e.body, EventBody::Steered(_)))
        .unwrap();
    assert!(at > 0 && at < events.len() - 1, "{events:?}");
    assert_eq!(events[at].prompt_id, events[0].prompt_id);
}

#[tokio::test(start_paused = true)]
async fn an_adapter_without_mid_turn_input_refuses_so_the_caller_queues() {
    let mut s = session(None).await;
    let (events, answer) = steer_during_a_slow_turn(&mut s, "later please").await;
    let e = answer.unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedMode);
    assert!(e
        .suggested_fix
        .as_deref()
        .unwrap_or_default()
        .contains("queued"));
    assert!(!events
        .iter()
        .any(|e| matches!(e.body, EventBody::Steered(_))));
}

#[tokio::test(start_paused = true)]
async fn a_steer_sent_between_turns_is_refused_never_given_to_a_later_turn() {
    let kept = Arc::new(Mutex::new(Vec::new()));
    let mut s = session(Some(kept.clone())).await;
    let answer = s.control().steer("stale", None);
    let (_, events) = run(&mut s, "[double:slow]").await;
    let e = answer.await.unwrap().unwrap_err();
    assert_eq!(e.code, ErrorCode::IllegalTransition);
    assert!(lock(&kept).is_empty());
    assert!(!events
        .iter()
        .any(|e| matches!(e.body, EventBody::Steered(_))));
}
