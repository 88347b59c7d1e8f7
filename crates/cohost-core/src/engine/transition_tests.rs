//! The engine handles its own state machine's errors: a refused lifecycle
//! transition (fault-injected with `Lifecycle::refuse`) is surfaced as a
//! typed `ILLEGAL_TRANSITION`, in the event stream and in the turn's
//! outcome, and the session stays usable.

use super::tests::{double_session, end_of, run, tool_events};
use super::*;
use crate::approval::Policy;
use crate::event::{ApprovalOption, EndReason, Event, EventBody, ToolStatus};
use crate::port::ApprovalMode;

fn illegal_errors(events: &[Event]) -> Vec<&CohostError> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Error(err) if err.code == ErrorCode::IllegalTransition => Some(err),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_refused_return_to_ready_ends_the_turn_in_that_error_and_the_session_recovers() {
    let mut s = double_session(ApprovalMode::Ask, Arc::new(Policy::DenyAll)).await;
    s.lifecycle.refuse(State::Ready);
    let (outcome, events) = run(&mut s, "hello").await;
    assert_eq!(outcome.reason, EndReason::Error);
    let err = outcome.error.expect("the refusal is the turn's error");
    assert_eq!(err.code, ErrorCode::IllegalTransition);
    assert!(err.message.contains("-> READY"), "{}", err.message);
    assert_eq!(end_of(&events).0, EndReason::Error);
    assert_eq!(illegal_errors(&events).len(), 1, "{events:?}");
    // The text still arrived before the error: nothing was dropped.
    assert!(events
        .iter()
        .any(|e| matches!(e.body, EventBody::StreamChunk { .. })));
    assert_eq!(s.state(), State::Failed, "a fresh agent next time");
    assert_eq!(
        s.last_error().map(|e| e.code),
        Some(ErrorCode::IllegalTransition)
    );

    s.lifecycle.allow(State::Ready);
    let (outcome, _) = run(&mut s, "again").await;
    assert_eq!(outcome.reason, EndReason::Completed);
    assert_eq!(s.state(), State::Ready);
}

#[tokio::test(start_paused = true)]
async fn a_refused_interrupting_state_is_reported_and_the_interrupt_still_ends_the_turn() {
    let mut s = double_session(ApprovalMode::Ask, Arc::new(Policy::DenyAll)).await;
    s.lifecycle.refuse(State::Interrupting);
    let control = s.control();
    let mut events = Vec::new();
    let outcome = s
        .prompt(PromptInput::text("[double:slow]"), &mut |e: Event| {
            if matches!(e.body, EventBody::StreamChunk { chunk_index: 2, .. }) {
                control.interrupt();
            }
            events.push(e);
        })
        .await;
    assert_eq!(outcome.reason, EndReason::Interrupted);
    assert_eq!(end_of(&events).0, EndReason::Interrupted);
    let errs = illegal_errors(&events);
    assert_eq!(errs.len(), 1, "{events:?}");
    assert!(
        errs[0].message.contains("-> INTERRUPTING"),
        "{}",
        errs[0].message
    );
    assert_eq!(s.state(), State::Ready);
}

#[tokio::test(start_paused = true)]
async fn a_refused_approval_wait_is_reported_and_the_decision_still_applies() {
    let mut s = double_session(ApprovalMode::Ask, Arc::new(Policy::AllowAll)).await;
    s.lifecycle.refuse(State::WaitingForApproval);
    let (outcome, events) = run(&mut s, "[double:tool]").await;
    assert_eq!(outcome.reason, EndReason::Completed);
    let errs = illegal_errors(&events);
    assert_eq!(errs.len(), 1, "{events:?}");
    assert!(
        errs[0].message.contains("-> WAITING_FOR_APPROVAL"),
        "{}",
        errs[0].message
    );
    let (requested, decided, executed) = tool_events(&events);
    assert!(requested);
    assert_eq!(decided.map(|d| d.0), Some(ApprovalOption::AllowOnce));
    assert_eq!(executed, Some(ToolStatus::Ok));
}

#[tokio::test(start_paused = true)]
async fn a_refused_start_and_terminate_are_typed_errors() {
    let factory = Arc::new(crate::double::Factory::default());
    let mut s = HostSession::new(
        factory,
        AdapterConfig::default(),
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    s.lifecycle.refuse(State::Initializing);
    let e = s.start().await.unwrap_err();
    assert_eq!(e.code, ErrorCode::IllegalTransition);
    s.lifecycle.allow(State::Initializing);
    s.start().await.unwrap();
    s.lifecycle.refuse(State::Terminated);
    let e = s.terminate().await.unwrap_err();
    assert_eq!(e.code, ErrorCode::IllegalTransition);
}
