//! End to end: the real pinned GitHub Copilot CLI (1.0.102, bring-your-own
//! key) through `cohost_core::HostSession`, offline against cohost-fakellm,
//! in a scratch user. Skips loudly when copilot is not installed, unless
//! `CI` is set.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use crate::support;

use cohost_agents::drivers::CopilotFactory;
use cohost_core::{ApprovalMode, EndReason, ErrorCode, EventBody, Policy, ToolStatus};
use cohost_testbench::{AgentCli, FakeLlmConfig};
use std::sync::Arc;
use std::time::Duration;
use support::bench::*;

fn factory() -> Arc<CopilotFactory> {
    Arc::new(CopilotFactory)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deltas_stream_then_resume_in_a_new_session() {
    let Some(w) = world(AgentCli::Copilot, ApprovalMode::Ask).await else {
        return;
    };
    let mut s = session(factory(), w.config.clone(), Policy::DenyAll).await;
    let (out, ev) = run(&mut s, "remember the word PAPAYA").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert!(assert_consecutive_chunks(&ev) >= 2, "token deltas: {ev:#?}");
    let t = text(&ev);
    assert!(
        t.starts_with("Hello from fake-llm. You said: ") && t.ends_with("remember the word PAPAYA"),
        "{t:?}"
    );
    // cohost named the session, so the id is there from the first event.
    let id = s.native_session_id().expect("session id").to_string();
    assert!(matches!(&ev[0].body, EventBody::StreamStart { session_id: Some(x), .. } if *x == id));
    s.terminate().await.unwrap();

    let mut cfg = w.config.clone();
    cfg.resume = Some(id.clone());
    let mut s2 = session(factory(), cfg, Policy::DenyAll).await;
    let (out, ev) = run(&mut s2, "which word?").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    let body = last_request_body(&w.bench);
    assert!(
        body.contains("PAPAYA") && body.contains("which word?"),
        "the prior turn is missing from the resumed request"
    );
    finish(s2, w).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_denied_unless_auto_approve() {
    for (mode, runs) in [
        (ApprovalMode::Ask, false),
        (ApprovalMode::AutoApprove, true),
    ] {
        let Some(w) = world(AgentCli::Copilot, mode).await else {
            return;
        };
        let mut s = session(factory(), w.config.clone(), Policy::AllowAll).await;
        let (out, ev) = run(&mut s, "run it [[scenario:tool]]").await;
        assert_eq!(out.reason, EndReason::Completed, "{mode:?}: {ev:#?}");
        let file = w.bench.cwd().join("cohost_tool_output.txt");
        assert_eq!(file.exists(), runs, "{mode:?}: {ev:#?}");
        let want = if runs {
            ToolStatus::Ok
        } else {
            ToolStatus::Denied
        };
        assert_eq!(tool_statuses(&ev), [want], "{mode:?}");
        assert!(!ev
            .iter()
            .any(|e| matches!(e.body, EventBody::ToolApprovalRequested { .. })));
        finish(s, w).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_mid_stream_then_prompt_again_and_errors_are_typed() {
    let fake = FakeLlmConfig {
        slow_delay: Duration::from_millis(200),
        ..FakeLlmConfig::default()
    };
    let Some(w) = world_with(AgentCli::Copilot, ApprovalMode::Ask, fake).await else {
        return;
    };
    let mut s = session(factory(), w.config.clone(), Policy::DenyAll).await;
    let (out, ev, took) =
        interrupt_mid_turn(&mut s, &w.bench, "count [[scenario:slow]]", "scenario:slow").await;
    eprintln!("copilot: stream_end {took:?} after the interrupt");
    assert_eq!(out.reason, EndReason::Interrupted, "{ev:#?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    let (out, ev) = run(&mut s, "x [[scenario:401]]").await;
    assert_eq!(out.reason, EndReason::Error, "{ev:#?}");
    let e = out.error.expect("error");
    assert_eq!(e.code, ErrorCode::AuthRequired, "{e:?}");
    let (out, ev) = run(&mut s, "say hello again").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert!(text(&ev).ends_with("say hello again"));
    finish(s, w).await;
}
