//! End to end: the real pinned Kilo Code CLI (7.7.7) through
//! `cohost_core::HostSession`, offline against cohost-fakellm, in a scratch
//! user. The driver comes from the provider list (no export of its own).
//! Skips loudly when kilo is not installed, unless `CI` is set.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use crate::support;

use cohost_core::{
    AdapterFactory, ApprovalMode, EndReason, ErrorCode, EventBody, Policy, ToolStatus,
};
use cohost_testbench::AgentCli;
use std::sync::Arc;
use std::time::Duration;
use support::bench::*;

fn factory() -> Arc<dyn AdapterFactory> {
    let entry = cohost_agents::catalog::cli("kilo").expect("kilo is in the provider list");
    (entry.factory.expect("a driver").0)()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_turn_then_resume_in_a_new_session() {
    let Some(w) = world(AgentCli::Kilo, ApprovalMode::Ask).await else {
        return;
    };
    let mut s = session(factory(), w.config.clone(), Policy::DenyAll).await;
    let (out, ev) = run(&mut s, "remember the word PAPAYA").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert!(assert_consecutive_chunks(&ev) >= 1);
    // Kilo sends an `<environment_details>` block after the prompt: the
    // block the fake server quotes.
    assert!(
        text(&ev).starts_with("Hello from fake-llm. You said: "),
        "{ev:#?}"
    );
    assert!(last_request_body(&w.bench).contains("remember the word PAPAYA"));
    let id = s.native_session_id().expect("session id").to_string();
    assert!(id.starts_with("ses_"), "{id}");
    assert!(
        matches!(&ev.last().unwrap().body, EventBody::StreamEnd { usage: Some(u), .. } if u.output_tokens > 0)
    );
    s.terminate().await.unwrap();

    let mut cfg = w.config.clone();
    cfg.resume = Some(id.clone());
    let mut s2 = session(factory(), cfg, Policy::DenyAll).await;
    let (out, ev) = run(&mut s2, "which word?").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert!(matches!(&ev[0].body, EventBody::StreamStart { session_id: Some(s), .. } if *s == id));
    let body = last_request_body(&w.bench);
    assert!(
        body.contains("PAPAYA") && body.contains("which word?"),
        "the prior turn is missing from the resumed request"
    );
    finish(s2, w).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_refused_with_a_typed_error_unless_auto_approve() {
    for mode in [ApprovalMode::Ask, ApprovalMode::AutoApprove] {
        let Some(w) = world(AgentCli::Kilo, mode).await else {
            return;
        };
        // The policy would allow: proves the launch policy, not the engine, decides.
        let mut s = session(factory(), w.config.clone(), Policy::AllowAll).await;
        let (out, ev) = run(&mut s, "run it [[scenario:tool]]").await;
        let file = w.bench.cwd().join("cohost_tool_output.txt");
        if mode == ApprovalMode::AutoApprove {
            assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
            assert!(file.exists(), "{ev:#?}");
            assert_eq!(tool_statuses(&ev), [ToolStatus::Ok]);
        } else {
            // Run mode cannot ask: Kilo rejects the call and ends the run.
            assert!(!file.exists(), "{ev:#?}");
            assert_eq!(tool_statuses(&ev), [ToolStatus::Denied]);
            assert_eq!(out.reason, EndReason::Error, "{ev:#?}");
            let e = out.error.expect("error");
            assert_eq!(e.code, ErrorCode::PermissionRequired, "{e:?}");
            assert!(e.suggested_fix.unwrap_or_default().contains("kilo-acp"));
        }
        assert!(!ev
            .iter()
            .any(|e| matches!(e.body, EventBody::ToolApprovalRequested { .. })));
        finish(s, w).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_a_stalled_turn_then_prompt_again_and_errors_are_typed() {
    let Some(w) = world(AgentCli::Kilo, ApprovalMode::Ask).await else {
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
    assert_eq!(out.reason, EndReason::Interrupted, "{ev:#?}");
    assert_eq!(end_reason(&ev), Some(EndReason::Interrupted));
    assert!(took < Duration::from_secs(2), "{took:?}");
    let (out, ev) = run(&mut s, "x [[scenario:401]]").await;
    assert_eq!(out.reason, EndReason::Error, "{ev:#?}");
    let e = out.error.expect("error");
    assert_eq!(e.code, ErrorCode::AuthRequired, "{e:?}");
    assert!(e
        .suggested_fix
        .unwrap_or_default()
        .contains("kilo auth login"));
    let (out, ev) = run(&mut s, "say hello again").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert!(text(&ev).contains("say hello again"), "{ev:#?}");
    finish(s, w).await;
}
