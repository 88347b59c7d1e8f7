//! The fixture-only drivers (Cursor, Goose, agy, Kiro) have real engines:
//! with the binary missing they fail with PROVIDER_NOT_FOUND and an install
//! hint; with a stand-in binary that prints a doc-written fixture, a turn
//! runs through `cohost_core::HostSession` like any other (numbered chunks,
//! tools, end), and the arguments cohost passes are the documented ones.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use cohost_agents::drivers::{AgyFactory, CursorFactory, GooseFactory, KiroFactory};
use cohost_core::{
    AdapterConfig, AdapterFactory, ApprovalMode, EndReason, ErrorCode, Event, EventBody,
    HostSession, Policy, PromptInput, SessionOptions, SupportTier,
};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn fixture_body(agent: &str, version: &str, scenario: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(agent)
        .join(version)
        .join(format!("{scenario}.jsonl"));
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().skip(1).map(|l| format!("{l}\n")).collect()
}

/// A stand-in executable named `name` in `dir` that records its arguments
/// and prints `body`.
fn stand_in(dir: &Path, name: &str, body: &str) -> PathBuf {
    let out = dir.join(format!("{name}.out"));
    std::fs::write(&out, body).unwrap();
    let bin = dir.join(name);
    std::fs::write(
        &bin,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\ncat '{}'\n",
            dir.join(format!("{name}.args")).display(),
            out.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

async fn one_turn(factory: Arc<dyn AdapterFactory>, config: AdapterConfig) -> Vec<Event> {
    let mut s = HostSession::new(
        factory,
        config,
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    s.start().await.expect("starts");
    let events: Arc<Mutex<Vec<Event>>> = Arc::default();
    let e2 = events.clone();
    let mut sink = move |e: Event| e2.lock().unwrap().push(e);
    let out = tokio::time::timeout(
        Duration::from_secs(30),
        s.prompt(PromptInput::text("hi"), &mut sink),
    )
    .await
    .expect("turn ends");
    assert_eq!(out.reason, EndReason::Completed, "{out:?}");
    s.terminate().await.unwrap();
    let ev = events.lock().unwrap().clone();
    ev
}

fn text(ev: &[Event]) -> String {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

fn factories() -> Vec<(Arc<dyn AdapterFactory>, &'static str)> {
    vec![
        (Arc::new(CursorFactory), "cursor-agent"),
        (Arc::new(GooseFactory), "goose"),
        (Arc::new(AgyFactory), "agy"),
        (Arc::new(KiroFactory), "kiro-cli"),
    ]
}

#[tokio::test]
async fn missing_binaries_are_provider_not_found_with_an_install_hint() {
    let empty = tempfile::tempdir().unwrap();
    for (f, command) in factories() {
        let d = f.descriptor();
        assert_eq!(d.capabilities.tier, SupportTier::FixtureOnly, "{}", d.id);
        let mut a = f.create();
        let mut cfg = AdapterConfig::default();
        cfg.env
            .insert("PATH".into(), empty.path().display().to_string());
        let err = a.initialize(&cfg).await.expect_err(command);
        assert_eq!(err.code, ErrorCode::ProviderNotFound, "{}: {err:?}", d.id);
        let hint = d.install_hint.clone().unwrap();
        assert!(
            err.suggested_fix
                .as_deref()
                .is_some_and(|f| f.contains(&hint[..10])),
            "{}: {err:?}",
            d.id
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stand_in_binaries_run_through_the_real_engines() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("cursor", "docs", "tools", "cursor-agent"),
        ("goose", "docs", "tool_turn", "goose"),
        ("agy", "seed003", "turn", "agy"),
        ("kiro", "docs", "text", "kiro-cli"),
    ];
    for ((factory, command), (agent, version, scenario, bin_name)) in
        factories().into_iter().zip(cases)
    {
        assert_eq!(command, bin_name);
        let bin = stand_in(
            dir.path(),
            bin_name,
            &fixture_body(agent, version, scenario),
        );
        let cfg = AdapterConfig {
            cwd: dir.path().to_path_buf(),
            binary: Some(bin),
            approval: ApprovalMode::Ask,
            ..AdapterConfig::default()
        };
        let ev = one_turn(factory, cfg).await;
        let idx: Vec<u64> = ev
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::StreamChunk { chunk_index, .. } => Some(*chunk_index),
                _ => None,
            })
            .collect();
        assert!(!idx.is_empty(), "{agent}: {ev:#?}");
        assert_eq!(idx, (0..idx.len() as u64).collect::<Vec<_>>(), "{agent}");
        let args = std::fs::read_to_string(dir.path().join(format!("{bin_name}.args"))).unwrap();
        let args: Vec<&str> = args.lines().collect();
        assert!(args.contains(&"hi"), "{agent}: {args:?}");
        // No bypass flag without auto-approve.
        for bypass in ["--force", "--trust-all-tools", "--yolo"] {
            assert!(!args.contains(&bypass), "{agent}: {args:?}");
        }
        match agent {
            "cursor" => {
                assert_eq!(&args[..3], ["-p", "--output-format", "stream-json"]);
                assert!(text(&ev).contains("Wrote summary.txt."));
                assert!(ev
                    .iter()
                    .any(|e| matches!(e.body, EventBody::ToolExecuted { .. })));
            }
            "goose" => {
                assert_eq!(&args[..3], ["run", "--output-format", "stream-json"]);
                assert!(args.contains(&"--name"));
                assert_eq!(text(&ev), "Let me list the files.There are two entries.");
            }
            "agy" => {
                assert_eq!(&args[..2], ["-p", "hi"]);
                assert_eq!(text(&ev), "The README has one heading.");
            }
            _ => {
                assert_eq!(&args[..2], ["chat", "--no-interactive"]);
                assert_eq!(
                    text(&ev),
                    "Hello! I can help with that.\nThe file has 3 lines.\n"
                );
            }
        }
    }
}
