//! Claude Code end to end: the pinned `claude` through `HostSession`,
//! against cohost-fakellm, in a scratch HOME. Skips loudly when `claude` is
//! not installed; fails when `CI` is set.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use crate::claude_support;

use claude_support::scenarios as sc;
use cohost_agents::drivers::claude::CLAUDE;
use cohost_core::ErrorCode;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_turn_and_reasoning() {
    sc::text_and_reasoning(CLAUDE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approved_tool_writes_the_file() {
    sc::tool_allow(CLAUDE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn denied_tool_writes_nothing() {
    sc::tool_deny(CLAUDE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_approve_never_asks() {
    sc::auto_approve(CLAUDE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_mid_stream_then_next_prompt() {
    sc::interrupt_then_continue(CLAUDE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_continues_the_conversation() {
    sc::resume(CLAUDE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_errors_map_to_codes() {
    sc::api_errors(
        CLAUDE,
        &[
            ("401", ErrorCode::AuthRequired),
            ("429", ErrorCode::RateLimited),
            ("context", ErrorCode::ContextWindowExceeded),
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_error_fails_fast_despite_retries() {
    sc::auth_fails_fast_with_default_retries(CLAUDE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_binary_is_provider_not_found() {
    sc::missing_binary(CLAUDE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_group_is_a_crash_then_respawn_works() {
    sc::crash_then_respawn(CLAUDE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_server_from_cohost_is_started_and_its_tool_asked_for() {
    sc::mcp_server_tool(CLAUDE).await;
}
