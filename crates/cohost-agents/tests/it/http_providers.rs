//! End-to-end: every HTTP wire through `HostSession` against the fake model
//! server. Each check runs for each provider (see the `cases!` table).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use crate::http_support as support;

use std::time::{Duration, Instant};

use cohost_agents::http::{transcript::NOT_EXECUTED, HttpOptions};
use cohost_core::{EndReason, ErrorCode, EventBody, ToolKind};
use cohost_fakellm::{FakeLlmConfig, Scenario, Script, ScriptStep};
use support::*;

async fn check_text(case: Case) {
    let w = World::new(case).await;
    let mut s = w.session(w.config()).await;
    let (ev, out) = prompt(&mut s, "say hello").await;
    assert_eq!(out.reason, EndReason::Completed, "{:?}", errors(&ev));
    let chunks = texts(&ev);
    assert!(chunks.len() >= 2, "text arrives in deltas: {chunks:?}");
    assert_eq!(chunks.concat(), "Hello from fake-llm. You said: say hello");
    // Chunk indexes 0, 1, 2... exactly.
    let idx: Vec<u64> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { chunk_index, .. } => Some(*chunk_index),
            _ => None,
        })
        .collect();
    assert_eq!(idx, (0..chunks.len() as u64).collect::<Vec<_>>());
    let usage = out.usage.expect("usage reported");
    assert!(
        usage.output_tokens > 0 && usage.input_tokens > 0,
        "{usage:?}"
    );
    assert!(ev.iter().any(|e| matches!(e.body, EventBody::Usage(_))));
    assert!(errors(&ev).is_empty(), "{:?}", errors(&ev));
    let sid = session_id(&ev).expect("stream_start carries the native id");
    assert_eq!(s.native_session_id(), Some(sid.as_str()));
    // The key reached the server only as a (redacted-in-log) header.
    let req = &w.model_requests()[0];
    assert!(!req.body.to_string().contains(KEY));
}

async fn check_reasoning(case: Case) {
    let w = World::new(case).await;
    let mut s = w.session(w.config()).await;
    let (ev, out) = prompt(&mut s, "[[reasoning]] why is the sky blue").await;
    assert_eq!(out.reason, EndReason::Completed, "{:?}", errors(&ev));
    let r = reasoning(&ev).concat();
    assert!(
        r.starts_with("Thinking about the request"),
        "reasoning: {r:?}"
    );
    assert!(texts(&ev).concat().starts_with("Hello from fake-llm"));
}

async fn check_tool(case: Case) {
    let w = World::new(case).await;
    let mut s = w.session(w.config()).await;
    let (ev, out) = prompt(&mut s, "[[tool]] list the files").await;
    assert_eq!(out.reason, EndReason::Completed, "{:?}", errors(&ev));
    let calls: Vec<_> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolCall {
                tool_id,
                name,
                kind,
                input,
            } => Some((tool_id.clone(), name.clone(), *kind, input.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 1, "{ev:#?}");
    let (id, name, kind, input) = &calls[0];
    assert!(!id.is_empty());
    assert_eq!(name, "run_shell_command");
    assert_eq!(*kind, ToolKind::Execute);
    assert!(input["command"].is_string(), "{input}");
    // Never executed: no approval, no tool_executed.
    assert!(!ev.iter().any(|e| matches!(
        e.body,
        EventBody::ToolExecuted { .. } | EventBody::ToolApprovalRequested { .. }
    )));
    // The next prompt answers the open call with "not executed", as every vendor requires.
    let (ev2, out2) = prompt(&mut s, "go on").await;
    assert_eq!(out2.reason, EndReason::Completed, "{:?}", errors(&ev2));
    let reqs = w.model_requests();
    let body = reqs.last().expect("second request").body.to_string();
    assert!(body.contains(NOT_EXECUTED), "{body}");
    assert!(body.contains("run_shell_command"), "{body}");
}

async fn check_http_errors(case: Case) {
    let w = World::new(case).await;
    let cases = [
        ("[[401]]", ErrorCode::AuthRequired),
        ("[[403]]", ErrorCode::AuthRequired),
        ("[[context]]", ErrorCode::ContextWindowExceeded),
        ("[[unknown_model]]", ErrorCode::ModelNotAvailable),
        ("[[500]]", ErrorCode::NetworkError),
    ];
    let mut s = w.session(w.config()).await;
    for (marker, code) in cases {
        let (ev, out) = prompt(&mut s, &format!("{marker} hi")).await;
        assert_eq!(out.reason, EndReason::Error, "{marker}");
        let e = out.error.expect("error");
        assert_eq!(e.code, code, "{marker}: {e:?}");
        assert!(e.suggested_fix.is_some(), "{marker} has a fix");
        assert_eq!(errors(&ev).len(), 1, "{marker}: one error event");
    }
    // A failed turn leaves nothing in the conversation: the next request
    // carries only the new prompt.
    let (_, out) = prompt(&mut s, "fine now").await;
    assert_eq!(out.reason, EndReason::Completed);
    let body = w.model_requests().last().unwrap().body.to_string();
    assert!(!body.contains("[[401]]"), "{body}");
    if case == Case::Anthropic || case == Case::OpenAiChat {
        // Auth errors name the key variable.
        let mut s = w.session(w.config()).await;
        let (_, out) = prompt(&mut s, "[[401]]").await;
        let fix = out.error.unwrap().suggested_fix.unwrap();
        assert!(fix.contains("_API_KEY"), "{fix}");
    }
}

async fn check_rate_limit_retry(case: Case) {
    let script = Script {
        default: None,
        steps: vec![
            ScriptStep::new(Scenario::RateLimited),
            ScriptStep::new(Scenario::Text),
        ],
        repeat: false,
    };
    let w = World::with(
        case,
        FakeLlmConfig {
            script: Some(script),
            ..Default::default()
        },
        test_options(),
    )
    .await;
    let mut s = w.session(w.config()).await;
    let t0 = Instant::now();
    let (ev, out) = prompt(&mut s, "hello after a wait").await;
    assert_eq!(out.reason, EndReason::Completed, "{:?}", errors(&ev));
    let waits: Vec<Option<u64>> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Status { retry_after_ms, .. } => Some(*retry_after_ms),
            _ => None,
        })
        .collect();
    // The fake sends Retry-After: 1 (second); it was honoured.
    assert_eq!(waits, vec![Some(1000)]);
    assert!(
        t0.elapsed() >= Duration::from_millis(950),
        "waited {:?}",
        t0.elapsed()
    );
    assert_eq!(w.model_requests().len(), 2, "one retry");
    assert!(texts(&ev).concat().starts_with("Hello from fake-llm"));
}

async fn check_rate_limit_gives_up(case: Case) {
    let opts = HttpOptions {
        max_retries: 2,
        // Caps the server's 1 s Retry-After.
        max_retry_wait: Duration::from_millis(100),
        ..test_options()
    };
    let w = World::with(case, FakeLlmConfig::default(), opts).await;
    let mut s = w.session(w.config()).await;
    let (ev, out) = prompt(&mut s, "[[429]] again and again").await;
    assert_eq!(out.reason, EndReason::Error);
    assert_eq!(out.error.unwrap().code, ErrorCode::RateLimited);
    let waits: Vec<Option<u64>> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Status { retry_after_ms, .. } => Some(*retry_after_ms),
            _ => None,
        })
        .collect();
    assert_eq!(waits, vec![Some(100), Some(100)], "capped waits");
    assert_eq!(w.model_requests().len(), 3, "first try + 2 retries");
}

async fn check_stall_times_out(case: Case) {
    let opts = HttpOptions {
        idle_timeout: Duration::from_millis(300),
        ..test_options()
    };
    let w = World::with(case, FakeLlmConfig::default(), opts).await;
    let mut s = w.session(w.config()).await;
    let t0 = Instant::now();
    let (_, out) = prompt(&mut s, "[[stall]]").await;
    assert_eq!(out.reason, EndReason::Error);
    assert_eq!(out.error.unwrap().code, ErrorCode::Timeout);
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
}

async fn check_malformed(case: Case) {
    let w = World::new(case).await;
    let mut s = w.session(w.config()).await;
    let (ev, out) = prompt(&mut s, "[[malformed]]").await;
    assert_eq!(out.reason, EndReason::Error);
    assert_eq!(out.error.unwrap().code, ErrorCode::InvalidOutput);
    assert!(
        errors(&ev)
            .iter()
            .all(|e| e.code == ErrorCode::InvalidOutput),
        "{:?}",
        errors(&ev)
    );
    // The session stays usable.
    let (_, out) = prompt(&mut s, "hello").await;
    assert_eq!(out.reason, EndReason::Completed);
}

async fn check_interrupt(case: Case) {
    let w = World::new(case).await; // slow: 40 deltas, 50 ms apart
    let mut s = w.session(w.config()).await;
    let control = s.control();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(None::<Instant>));
    let ended = std::sync::Arc::new(std::sync::Mutex::new(None::<Instant>));
    let (a, e) = (asked.clone(), ended.clone());
    let mut chunks = 0;
    let mut sink = move |ev: cohost_core::Event| match ev.body {
        EventBody::StreamChunk { .. } => {
            chunks += 1;
            if chunks == 2 {
                *a.lock().unwrap() = Some(Instant::now());
                control.interrupt();
            }
        }
        EventBody::StreamEnd { .. } => *e.lock().unwrap() = Some(Instant::now()),
        _ => {}
    };
    let out = s
        .prompt(cohost_core::PromptInput::text("[[slow]]"), &mut sink)
        .await;
    assert_eq!(out.reason, EndReason::Interrupted);
    let took = ended.lock().unwrap().unwrap() - asked.lock().unwrap().unwrap();
    assert!(took < Duration::from_millis(300), "interrupt took {took:?}");
    // The session goes on, and the partial answer is part of the conversation.
    let (ev, out) = prompt(&mut s, "after the interrupt").await;
    assert_eq!(out.reason, EndReason::Completed, "{:?}", errors(&ev));
    let body = w.model_requests().last().unwrap().body.to_string();
    assert!(body.contains("tick 0"), "partial answer kept: {body}");
}

async fn check_resume(case: Case) {
    let w = World::new(case).await;
    let mut s = w.session(w.config()).await;
    let (ev, out) = prompt(&mut s, "remember PINEAPPLE-42").await;
    assert_eq!(out.reason, EndReason::Completed);
    let id = session_id(&ev).unwrap();
    s.terminate().await.unwrap();
    drop(s);
    let file = w
        .home
        .path()
        .join("state/cohost/transcripts")
        .join(format!("{id}.json"));
    assert!(file.is_file(), "transcript saved at {}", file.display());
    // A fresh adapter (as in a new process) continues the conversation.
    let mut config = w.config();
    config.resume = Some(id.clone());
    let mut s2 = w.session(config).await;
    let (ev2, out2) = prompt(&mut s2, "what did I ask you to remember?").await;
    assert_eq!(out2.reason, EndReason::Completed);
    assert_eq!(session_id(&ev2).as_deref(), Some(id.as_str()));
    let reqs = w.model_requests();
    let body = reqs.last().unwrap().body.to_string();
    assert!(
        body.contains("remember PINEAPPLE-42"),
        "prior user turn replayed: {body}"
    );
    assert!(
        body.contains("You said: remember PINEAPPLE-42"),
        "prior answer replayed: {body}"
    );
    assert!(body.contains("what did I ask you to remember?"));
}

async fn check_models(case: Case) {
    let w = World::new(case).await;
    let models = w
        .factory()
        .list_models(&w.config())
        .await
        .expect("models listed");
    assert!(
        models.iter().any(|m| m.starts_with("fake-model")),
        "{models:?}"
    );
}

async fn check_connection_refused(case: Case) {
    // A port that was free a moment ago and has no listener now.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let w = World::new(case).await;
    let mut config = w.config();
    for (k, v) in case.env(&format!("http://127.0.0.1:{port}")) {
        config.env.insert(k.into(), v);
    }
    if case == Case::Custom {
        // The custom provider's URL is fixed at construction; covered by the others.
        return;
    }
    // Local servers with no default model list models in initialize: the
    // failure shows there.
    let mut s = cohost_core::HostSession::new(
        w.factory(),
        config.clone(),
        std::sync::Arc::new(cohost_core::Policy::DenyAll),
        Default::default(),
    );
    let err = match s.start().await {
        Err(e) => e,
        Ok(()) => prompt(&mut s, "hi").await.1.error.expect("turn fails"),
    };
    assert_eq!(err.code, ErrorCode::NetworkError, "{err:?}");
    assert!(err.message.contains("refused"), "{}", err.message);
}

macro_rules! cases {
    ($($case:ident),* $(,)?) => {$(
        #[allow(non_snake_case)]
        mod $case {
            use super::*;
            #[tokio::test] async fn text() { check_text(Case::$case).await }
            #[tokio::test] async fn reasoning() { check_reasoning(Case::$case).await }
            #[tokio::test] async fn tool_call_surfaced_not_run() { check_tool(Case::$case).await }
            #[tokio::test] async fn http_errors() { check_http_errors(Case::$case).await }
            #[tokio::test] async fn rate_limit_retry() { check_rate_limit_retry(Case::$case).await }
            #[tokio::test] async fn rate_limit_gives_up() { check_rate_limit_gives_up(Case::$case).await }
            #[tokio::test] async fn stall_times_out() { check_stall_times_out(Case::$case).await }
            #[tokio::test] async fn malformed_stream() { check_malformed(Case::$case).await }
            #[tokio::test] async fn interrupt_during_slow() { check_interrupt(Case::$case).await }
            #[tokio::test] async fn resume_in_fresh_adapter() { check_resume(Case::$case).await }
            #[tokio::test] async fn list_models() { check_models(Case::$case).await }
            #[tokio::test] async fn connection_refused() { check_connection_refused(Case::$case).await }
        }
    )*};
}

cases!(
    Anthropic,
    OpenAiChat,
    OpenAiResponses,
    Gemini,
    Ollama,
    LmStudio,
    OpenRouter,
    Custom
);
