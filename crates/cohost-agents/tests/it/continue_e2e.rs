//! End to end: the real pinned Continue CLI (`cn` 1.5.47) through
//! `cohost_core::HostSession`, offline against cohost-fakellm, in a scratch
//! user whose `~/.continue/config.yaml` names the fake model. Skips loudly
//! when `cn` is not installed, unless `CI` is set.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use crate::support;

use cohost_agents::drivers::ContinueFactory;
use cohost_core::{ApprovalMode, EndReason, ErrorCode, Policy};
use cohost_testbench::AgentCli;
use std::sync::Arc;
use std::time::Duration;
use support::bench::*;

fn factory() -> Arc<ContinueFactory> {
    Arc::new(ContinueFactory)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_chunk_per_turn_and_follow_ups_continue_the_conversation() {
    let Some(w) = world(AgentCli::Continue, ApprovalMode::Ask).await else {
        return;
    };
    let mut s = session(factory(), w.config.clone(), Policy::DenyAll).await;
    let (out, ev) = run(&mut s, "remember the word PAPAYA").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    // `cn` prints the whole answer at once (one delta); the engine's stream
    // sanitizer releases it up to the last word, then the held word at the end.
    assert_eq!(assert_consecutive_chunks(&ev), 2, "whole message: {ev:#?}");
    assert_eq!(
        text(&ev),
        "Hello from fake-llm. You said: remember the word PAPAYA"
    );
    let (out, ev) = run(&mut s, "which word?").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    let body = last_request_body(&w.bench);
    assert!(
        body.contains("PAPAYA") && body.contains("which word?"),
        "the follow-up did not continue the conversation"
    );
    let (out, _) = run(&mut s, "x [[scenario:401]]").await;
    assert_eq!(out.reason, EndReason::Error);
    assert_eq!(out.error.expect("error").code, ErrorCode::AuthRequired);
    finish(s, w).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shell_and_writes_run_only_under_auto_approve() {
    for (mode, scenario, runs) in [
        (ApprovalMode::Ask, "tool", false),
        (ApprovalMode::DenyAll, "write", false),
        (ApprovalMode::AutoApprove, "tool", true),
    ] {
        let Some(w) = world(AgentCli::Continue, mode).await else {
            return;
        };
        let mut s = session(factory(), w.config.clone(), Policy::AllowAll).await;
        let (out, ev) = run(&mut s, &format!("run it [[scenario:{scenario}]]")).await;
        assert_eq!(out.reason, EndReason::Completed, "{mode:?}: {ev:#?}");
        let file = w.bench.cwd().join("cohost_tool_output.txt");
        assert_eq!(file.exists(), runs, "{mode:?}: {ev:#?}");
        finish(s, w).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_a_stalled_turn_then_prompt_again() {
    let Some(w) = world(AgentCli::Continue, ApprovalMode::Ask).await else {
        return;
    };
    let mut s = session(factory(), w.config.clone(), Policy::DenyAll).await;
    let (out, ev, took) = interrupt_mid_turn(
        &mut s,
        &w.bench,
        "wait [[scenario:stall]]",
        "scenario:stall",
    )
    .await;
    eprintln!("continue: stream_end {took:?} after the interrupt");
    assert_eq!(out.reason, EndReason::Interrupted, "{ev:#?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    let (out, ev) = run(&mut s, "say hello again").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    finish(s, w).await;
}
