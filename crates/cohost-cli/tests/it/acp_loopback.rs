//! Loopback: cohost's own ACP client driver (`cohost_agents::acp`) drives
//! `cohost acp --agent mock` through `HostSession`, as it drives Gemini or
//! Qwen in ACP mode: streaming, an approval allowed and one denied, an
//! interrupt, and resume through `session/load`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use cohost_agents::drivers::acp::{AcpFactory, AcpSpec};
use cohost_core::{
    AdapterConfig, ApprovalMode, DecisionSource, EndReason, Event, EventBody, HostSession, Policy,
    PromptInput, ResumeSupport, SessionOptions, SupportTier, ToolStatus,
};
use cohost_testbench::events::answer_text;

fn spec() -> AcpSpec {
    AcpSpec {
        id: "cohost-acp".into(),
        label: "cohost acp (loopback)".into(),
        binaries: vec!["cohost".into()],
        args: vec!["acp".into(), "--agent".into(), "mock".into()],
        model_args: Vec::new(),
        model_env: None,
        env_prefixes: vec!["COHOST_".into()],
        env: Vec::new(),
        root_env: Vec::new(),
        ask_env: Vec::new(),
        approval_modes: None,
        restart_after_cancel: false,
        required_env: Vec::new(),
        resume: ResumeSupport::NativeId,
        reasoning: true,
        usage: false,
        tier: SupportTier::Structured,
        install_hint: "cargo build -p cohost-cli".into(),
        text_errors: Default::default(),
    }
}

struct Loop {
    dir: tempfile::TempDir,
}

impl Loop {
    fn config(&self, resume: Option<String>) -> AdapterConfig {
        let home = self.dir.path();
        let env = [
            ("HOME", home.to_path_buf()),
            ("XDG_STATE_HOME", home.join("state")),
            ("XDG_CONFIG_HOME", home.join("config")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.display().to_string()))
        .collect();
        AdapterConfig {
            cwd: home.to_path_buf(),
            binary: Some(env!("CARGO_BIN_EXE_cohost").into()),
            env,
            approval: ApprovalMode::Ask,
            resume,
            ..AdapterConfig::default()
        }
    }

    fn session(&self, resume: Option<String>, decide: Arc<dyn DecisionSource>) -> HostSession {
        HostSession::new(
            Arc::new(AcpFactory::new(spec(), cohost_agents::catalog::catalog())),
            self.config(resume),
            decide,
            SessionOptions::default(),
        )
    }
}

async fn turn(s: &mut HostSession, prompt: &str) -> (EndReason, Vec<Event>) {
    let events: Arc<Mutex<Vec<Event>>> = Arc::default();
    let sink_events = events.clone();
    let mut sink = move |e: Event| sink_events.lock().unwrap().push(e);
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        s.prompt(PromptInput::text(prompt), &mut sink),
    )
    .await
    .expect("the turn ended within 60 s");
    let ev = events.lock().unwrap().clone();
    (out.reason, ev)
}

fn tool_status(ev: &[Event]) -> Option<ToolStatus> {
    ev.iter().find_map(|e| match &e.body {
        EventBody::ToolExecuted { status, .. } => Some(*status),
        _ => None,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cohosts_acp_driver_drives_cohost_acp() {
    let l = Loop {
        dir: tempfile::tempdir().unwrap(),
    };
    let mut s = l.session(None, Arc::new(Policy::AllowAll));
    s.start().await.expect("cohost acp starts and initializes");

    let (end, ev) = turn(&mut s, "hello loop").await;
    assert_eq!(end, EndReason::Completed, "{ev:#?}");
    assert!(
        answer_text(&ev).contains("You said: \"hello loop\""),
        "{ev:#?}"
    );
    assert!(ev
        .iter()
        .any(|e| matches!(e.body, EventBody::ReasoningChunk { .. })));
    let native = s.native_session_id().expect("session id").to_string();
    assert!(native.starts_with("s-"), "the cohost session id: {native}");

    let (end, ev) = turn(&mut s, "[mock:tool] write it").await;
    assert_eq!(end, EndReason::Completed);
    assert!(ev
        .iter()
        .any(|e| matches!(e.body, EventBody::ToolApprovalRequested { .. })));
    assert_eq!(tool_status(&ev), Some(ToolStatus::Ok), "allowed: {ev:#?}");

    let control = s.control();
    let stopper = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(600)).await;
        control.interrupt();
    });
    let (end, ev) = turn(&mut s, "[mock:slow] count").await;
    stopper.await.unwrap();
    assert_eq!(end, EndReason::Interrupted, "{ev:#?}");
    assert!(answer_text(&ev).matches("tick").count() < 50);
    s.terminate().await.unwrap();

    // A fresh driver resumes the same cohost session through session/load.
    let mut again = l.session(Some(native.clone()), Arc::new(Policy::DenyAll));
    again.start().await.expect("resumes");
    let (end, ev) = turn(&mut again, "[mock:tool] write it again").await;
    assert_eq!(end, EndReason::Completed, "{ev:#?}");
    assert_eq!(
        tool_status(&ev),
        Some(ToolStatus::Denied),
        "denied: {ev:#?}"
    );
    assert_eq!(again.native_session_id(), Some(native.as_str()));
    again.terminate().await.unwrap();
}
