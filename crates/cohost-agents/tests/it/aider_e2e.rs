//! End to end: the real pinned aider (0.86.2) through
//! `cohost_core::HostSession`, offline against cohost-fakellm (scripted to
//! answer in aider's whole-file edit format), in a scratch user. Skips
//! loudly when aider is not installed, unless `CI` is set.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use crate::support;

use cohost_agents::drivers::AiderFactory;
use cohost_core::{ApprovalMode, EndReason, ErrorCode, EventBody, Policy, ToolStatus};
use cohost_testbench::{AgentCli, FakeLlmConfig};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use support::bench::*;

fn factory() -> Arc<AiderFactory> {
    Arc::new(AiderFactory)
}

fn with_model(mut w: World) -> World {
    w.config.model = Some("openai/fake-model".into());
    w
}

/// A script whose reply to "make hello" is a whole-file edit of hello.txt.
fn edit_script() -> FakeLlmConfig {
    let json = r#"{"default":"text","steps":[{"scenario":"text","match":"make hello","text":"hello.txt\n```\nhi from aider\n```\n"}]}"#;
    FakeLlmConfig {
        script: Some(
            cohost_fakellm::parse_script(json, Path::new("aider_e2e.json")).expect("script"),
        ),
        ..FakeLlmConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_with_usage_and_follow_up_restores_history() {
    let Some(w) = world(AgentCli::Aider, ApprovalMode::Ask).await else {
        return;
    };
    let w = with_model(w);
    let mut s = session(factory(), w.config.clone(), Policy::DenyAll).await;
    let (out, ev) = run(&mut s, "remember the word PAPAYA").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert_consecutive_chunks(&ev);
    let t = text(&ev);
    assert!(
        t.starts_with("Hello from fake-llm. You said: remember the word PAPAYA"),
        "banner noise must not reach the answer: {t:?}"
    );
    assert!(
        matches!(&ev.last().unwrap().body, EventBody::StreamEnd { usage: Some(u), .. } if u.input_tokens > 0)
    );
    let (out, ev) = run(&mut s, "which word?").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    let body = last_request_body(&w.bench);
    assert!(
        body.contains("PAPAYA") && body.contains("which word?"),
        "--restore-chat-history did not bring the prior turn"
    );
    // Ask mode: aider was told not to create a git repo here.
    assert!(!w.bench.cwd().join(".git").exists());
    finish(s, w).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_apply_only_under_auto_approve() {
    for (mode, applies) in [
        (ApprovalMode::Ask, false),
        (ApprovalMode::AutoApprove, true),
    ] {
        let Some(w) = world_with(AgentCli::Aider, mode, edit_script()).await else {
            return;
        };
        let w = with_model(w);
        let mut s = session(factory(), w.config.clone(), Policy::AllowAll).await;
        let (out, ev) = run(&mut s, "make hello please").await;
        assert_eq!(out.reason, EndReason::Completed, "{mode:?}: {ev:#?}");
        let file = w.bench.cwd().join("hello.txt");
        assert_eq!(file.exists(), applies, "{mode:?}: {ev:#?}");
        if applies {
            assert_eq!(std::fs::read_to_string(&file).unwrap(), "hi from aider\n");
        }
        let want = if applies {
            ToolStatus::Ok
        } else {
            ToolStatus::Denied
        };
        let edits: Vec<ToolStatus> = ev
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::ToolExecuted {
                    status,
                    output_preview,
                    ..
                } if output_preview.contains("hello.txt") && output_preview.contains("edit") => {
                    Some(*status)
                }
                _ => None,
            })
            .collect();
        assert_eq!(edits, [want], "{mode:?}: {ev:#?}");
        finish(s, w).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_a_stalled_turn_and_errors_are_typed() {
    let Some(w) = world(AgentCli::Aider, ApprovalMode::Ask).await else {
        return;
    };
    let w = with_model(w);
    let mut s = session(factory(), w.config.clone(), Policy::DenyAll).await;
    let (out, ev, took) = interrupt_mid_turn(
        &mut s,
        &w.bench,
        "wait [[scenario:stall]]",
        "scenario:stall",
    )
    .await;
    eprintln!("aider: stream_end {took:?} after the interrupt");
    assert_eq!(out.reason, EndReason::Interrupted, "{ev:#?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    let (out, ev) = run(&mut s, "x [[scenario:401]]").await;
    assert_eq!(out.reason, EndReason::Error, "{ev:#?}");
    let e = out.error.expect("error");
    assert_eq!(e.code, ErrorCode::AuthRequired, "{e:?}");
    assert!(e.suggested_fix.is_some());
    finish(s, w).await;
}
