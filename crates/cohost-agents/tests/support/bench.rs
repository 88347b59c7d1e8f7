//! Shared helpers of the end-to-end tests that drive the real pinned
//! OpenCode, Copilot, Aider and Continue CLIs through
//! `cohost_core::HostSession` against cohost-fakellm in a scratch user
//! (`cohost-testbench`).

use cohost_core::{
    AdapterConfig, AdapterFactory, ApprovalMode, EndReason, Event, EventBody, HostSession, Policy,
    PromptInput, SessionOptions, ToolStatus, TurnOutcome,
};
// Re-exported for the `use support::bench::*` tests; unused by the others.
#[allow(unused_imports)]
pub use super::events::text;
use super::events::{chunk_indexes, run_within};
use cohost_testbench::{assert_no_leftovers, require_cli, AgentCli, Bench, FakeLlmConfig};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One test's world: a bench (fake server + scratch user) and the adapter
/// config pointing the CLI at it.
pub struct World {
    pub bench: Arc<Bench>,
    pub config: AdapterConfig,
}

/// A bench for `cli`, or `None` (with a loud notice) when it is not
/// installed and `CI` is unset; on CI a missing CLI panics.
pub async fn world(cli: AgentCli, approval: ApprovalMode) -> Option<World> {
    world_with(cli, approval, FakeLlmConfig::default()).await
}

/// [`world`] with a tuned fake server.
pub async fn world_with(
    cli: AgentCli,
    approval: ApprovalMode,
    fake: FakeLlmConfig,
) -> Option<World> {
    let bin = require_cli(cli)?;
    let bench = Bench::start_with(cli, fake).await.expect("bench starts");
    let config = AdapterConfig {
        cwd: bench.cwd().to_path_buf(),
        binary: Some(bin),
        env: bench.env(),
        approval,
        model: None,
        ..AdapterConfig::default()
    };
    Some(World {
        bench: Arc::new(bench),
        config,
    })
}

/// A started session.
pub async fn session(
    factory: Arc<dyn AdapterFactory>,
    config: AdapterConfig,
    policy: Policy,
) -> HostSession {
    let mut s = HostSession::new(factory, config, Arc::new(policy), SessionOptions::default());
    s.start().await.expect("session starts");
    s
}

/// Run one prompt (bounded: these CLIs start slowly) and collect its events.
pub async fn run(s: &mut HostSession, prompt: &str) -> (TurnOutcome, Vec<Event>) {
    run_within(s, prompt, Duration::from_secs(180)).await
}

/// Chunk indexes start at 0 and increase by 1; returns how many.
pub fn assert_consecutive_chunks(ev: &[Event]) -> usize {
    let idx = chunk_indexes(ev);
    assert_eq!(idx, (0..idx.len() as u64).collect::<Vec<_>>(), "{ev:#?}");
    idx.len()
}

/// Statuses of `tool_executed` events.
pub fn tool_statuses(ev: &[Event]) -> Vec<ToolStatus> {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolExecuted { status, .. } => Some(*status),
            _ => None,
        })
        .collect()
}

/// The reason of the `stream_end` event.
pub fn end_reason(ev: &[Event]) -> Option<EndReason> {
    ev.iter().rev().find_map(|e| match &e.body {
        EventBody::StreamEnd { reason, .. } => Some(*reason),
        _ => None,
    })
}

/// Send `prompt`, interrupt once the fake server has seen its model request
/// containing `marker` (and, when `wait_chunk`, after the first chunk), and
/// return the outcome, the events and the time from interrupt to stream end.
pub async fn interrupt_mid_turn(
    s: &mut HostSession,
    bench: &Arc<Bench>,
    prompt: &str,
    marker: &str,
) -> (TurnOutcome, Vec<Event>, Duration) {
    let control = s.control();
    let pressed: Arc<Mutex<Option<Instant>>> = Arc::default();
    let p2 = pressed.clone();
    let b2 = bench.clone();
    let marker = marker.to_string();
    let watcher = tokio::spawn(async move {
        let deadline = Instant::now() + Duration::from_secs(150);
        while Instant::now() < deadline {
            let seen = b2
                .fake()
                .requests()
                .iter()
                .any(|r| r.body.to_string().contains(&marker));
            if seen {
                // Let the agent start reading the (stalled) stream.
                tokio::time::sleep(Duration::from_millis(300)).await;
                *p2.lock().unwrap() = Some(Instant::now());
                control.interrupt();
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let events: Arc<Mutex<Vec<Event>>> = Arc::default();
    let sink_events = events.clone();
    let mut sink = move |e: Event| sink_events.lock().unwrap().push(e);
    let out = tokio::time::timeout(
        Duration::from_secs(180),
        s.prompt(PromptInput::text(prompt), &mut sink),
    )
    .await
    .expect("interrupted turn ended within 180 s");
    let ended_at = Instant::now();
    watcher.abort();
    let took = pressed
        .lock()
        .unwrap()
        .map(|p| ended_at.saturating_duration_since(p))
        .expect("the model request was seen and the interrupt sent");
    let ev = events.lock().unwrap().clone();
    (out, ev, took)
}

/// Terminate the session and check nothing of the bench outlived it.
pub async fn finish(mut s: HostSession, w: World) {
    s.terminate().await.expect("terminate");
    assert_no_leftovers(w.bench.marker()).await;
    w.bench.assert_only_loopback();
}

/// The body of the last model request, as text.
pub fn last_request_body(bench: &Bench) -> String {
    bench
        .model_requests()
        .last()
        .map(|r| r.body.to_string())
        .unwrap_or_default()
}
