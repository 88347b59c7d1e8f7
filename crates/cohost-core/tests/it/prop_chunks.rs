//! Property test of chunk numbering: whatever a (scripted) adapter emits,
//! the engine's events number each stream's chunks 0, 1, 2... without gaps,
//! start with `stream_start`, end with exactly one `stream_end`, and carry
//! dense event ids.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use async_trait::async_trait;
use cohost_core::approval::NeverAnswers;
use cohost_core::port::{
    AdapterConfig, AdapterFactory, AgentAdapter, AgentEvent, AgentEventStream, ApprovalMode,
    Health, InitInfo, InterruptStage, PromptRequest, ToolCallInfo, ToolDecision,
};
use cohost_core::provider::{Capabilities, ProviderDescriptor, ProviderKind};
use cohost_core::{
    ApprovalOption, CohostError, EndReason, ErrorCode, Event, EventBody, HostSession, PromptInput,
    SessionOptions, ToolKind, ToolStatus, Usage,
};
use futures::StreamExt;
use proptest::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

type Scripts = Arc<Mutex<VecDeque<Vec<AgentEvent>>>>;

/// An adapter that plays one script per turn.
struct Scripted {
    descriptor: ProviderDescriptor,
    scripts: Scripts,
}

#[async_trait]
impl AgentAdapter for Scripted {
    fn descriptor(&self) -> &ProviderDescriptor {
        &self.descriptor
    }
    async fn initialize(&mut self, _: &AdapterConfig) -> Result<InitInfo, CohostError> {
        Ok(InitInfo::default())
    }
    async fn send_prompt(&mut self, _: PromptRequest) -> Result<AgentEventStream, CohostError> {
        let script = self.scripts.lock().unwrap().pop_front().unwrap_or_default();
        Ok(futures::stream::iter(script).boxed())
    }
    async fn interrupt(&mut self, _: InterruptStage) -> Result<(), CohostError> {
        Ok(())
    }
    async fn approve_tool(&mut self, _: ToolDecision) -> Result<(), CohostError> {
        Ok(())
    }
    async fn health(&mut self) -> Health {
        Health {
            alive: true,
            ..Health::default()
        }
    }
    async fn terminate(&mut self) -> Result<(), CohostError> {
        Ok(())
    }
}

struct Factory(Scripts);

impl AdapterFactory for Factory {
    fn descriptor(&self) -> ProviderDescriptor {
        ProviderDescriptor {
            id: "scripted".into(),
            label: "Scripted adapter (property test)".into(),
            kind: ProviderKind::AgentCli,
            capabilities: Capabilities::CONTROL_PROTOCOL,
            install_hint: None,
        }
    }
    fn create(&self) -> Box<dyn AgentAdapter> {
        Box::new(Scripted {
            descriptor: self.descriptor(),
            scripts: self.0.clone(),
        })
    }
}

/// Deltas that make the stream sanitizer hold text back and release it in
/// other pieces: words, spaces, secret-looking prefixes, empty strings.
fn delta() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just(""),
            Just(" "),
            Just("\n"),
            Just("hello"),
            Just("sk-ant-api03-"),
            Just("AbCdEfGhIjKlMnOpQrStUvWx"),
            Just("Bearer "),
            Just("API_KEY="),
            Just("\"password\": \""),
            Just("-----BEGIN PRIVATE KEY-----"),
            Just("é"),
        ],
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

fn call(id: u8) -> ToolCallInfo {
    ToolCallInfo {
        tool_id: format!("t{id}"),
        name: "run".into(),
        kind: ToolKind::Execute,
        input: serde_json::json!({"command": "ls"}),
    }
}

fn agent_event() -> impl Strategy<Value = AgentEvent> {
    prop_oneof![
        4 => delta().prop_map(AgentEvent::TextDelta),
        3 => delta().prop_map(AgentEvent::ReasoningDelta),
        1 => Just(AgentEvent::Started { session_id: Some("native-1".into()), model: None }),
        1 => (0u8..4).prop_map(|i| AgentEvent::ToolCall(call(i))),
        1 => (0u8..4).prop_map(|i| AgentEvent::ApprovalRequested {
            call: call(i),
            options: vec![ApprovalOption::AllowOnce, ApprovalOption::RejectOnce],
        }),
        1 => (0u8..4).prop_map(|i| AgentEvent::ToolExecuted {
            tool_id: format!("t{i}"),
            status: ToolStatus::Ok,
            output: "done".into(),
        }),
        1 => Just(AgentEvent::Usage(Usage::default())),
        1 => Just(AgentEvent::Status { message: "waiting".into(), retry_after_ms: Some(5) }),
        1 => Just(AgentEvent::Error(CohostError::new(ErrorCode::RateLimited, "slow down"))),
        1 => prop_oneof![
            Just(EndReason::Completed),
            Just(EndReason::Error),
            Just(EndReason::Interrupted)
        ]
        .prop_map(|reason| AgentEvent::Ended { reason, usage: None }),
    ]
}

/// A turn's script: random events, usually (not always) closed by `Ended`.
fn script() -> impl Strategy<Value = Vec<AgentEvent>> {
    (prop::collection::vec(agent_event(), 0..40), any::<bool>()).prop_map(|(mut evs, end)| {
        if end {
            evs.push(AgentEvent::Ended {
                reason: EndReason::Completed,
                usage: None,
            });
        }
        evs
    })
}

fn chunk(e: &Event) -> Option<(&str, u64)> {
    match &e.body {
        EventBody::StreamChunk {
            stream_id,
            chunk_index,
            ..
        }
        | EventBody::ReasoningChunk {
            stream_id,
            chunk_index,
            ..
        } => Some((stream_id.as_str(), *chunk_index)),
        _ => None,
    }
}

fn check_turn(events: &[Event]) -> Result<(), TestCaseError> {
    let first_is_start = matches!(
        events.first().map(|e| &e.body),
        Some(EventBody::StreamStart { .. })
    );
    prop_assert!(
        first_is_start,
        "first event is not stream_start: {:?}",
        events.first()
    );
    let ends = events
        .iter()
        .filter(|e| matches!(e.body, EventBody::StreamEnd { .. }))
        .count();
    prop_assert_eq!(ends, 1);
    let last_is_end = matches!(
        events.last().map(|e| &e.body),
        Some(EventBody::StreamEnd { .. })
    );
    prop_assert!(last_is_end, "last event is not stream_end");
    let prompt_id = events[0].prompt_id.clone();
    let mut next: HashMap<&str, u64> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        prop_assert_eq!(&e.prompt_id, &prompt_id);
        prop_assert_eq!(&e.id, &format!("{prompt_id}.{i}"));
        if let Some((stream, index)) = chunk(e) {
            prop_assert!(
                stream.starts_with(prompt_id.as_str()),
                "{} is not this turn's",
                stream
            );
            let expected = next.entry(stream).or_insert(0);
            prop_assert_eq!(
                index,
                *expected,
                "stream {} skipped or repeated an index",
                stream
            );
            *expected += 1;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn chunk_indexes_start_at_zero_and_rise_by_one(
        turns in prop::collection::vec(script(), 1..4),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let scripts: Scripts = Arc::new(Mutex::new(turns.clone().into()));
            let config = AdapterConfig {
                approval: ApprovalMode::AutoApprove,
                ..AdapterConfig::default()
            };
            let mut s = HostSession::new(
                Arc::new(Factory(scripts)),
                config,
                Arc::new(NeverAnswers),
                SessionOptions::default(),
            );
            s.start().await.unwrap();
            let mut prompt_ids = Vec::new();
            for _ in &turns {
                let mut events = Vec::new();
                let _ = s.prompt(PromptInput::text("go"), &mut |e: Event| events.push(e)).await;
                check_turn(&events)?;
                prompt_ids.push(events[0].prompt_id.clone());
            }
            prompt_ids.dedup();
            prop_assert_eq!(prompt_ids.len(), turns.len(), "each turn has its own prompt id");
            Ok(())
        })?;
    }
}
