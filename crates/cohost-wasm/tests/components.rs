//! The host against real components built from `examples/wasm-adapter-goose/`
//! for wasm32-wasip2: the Goose adapter loads and maps a turn; the hostile
//! component's every misbehaviour ends in a typed error naming the plugin
//! and the limit, within 2 s, with the process's memory back where it was;
//! a component importing WASI, pinned to another hash, built for another
//! world version, or not a component at all is refused at load.

// A test crate: a failed unwrap is a failed test with its line.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Components need the runtime (the default feature).
#![cfg(feature = "runtime")]

use cohost_core::{AgentEvent, EndReason, ErrorCode, ToolKind};
use cohost_testbench::wasm_examples::{wasm_examples, WasmExamples};
use cohost_wasm::{
    sha256_hex, AdapterComponent, Classify, Exit, Limit, Limits, LoadOptions, Runtime,
    StartOptions, WasmError,
};
use std::time::{Duration, Instant};

fn classify() -> Classify {
    Classify {
        class_of: |m| m.contains("401").then_some(ErrorCode::AuthRequired),
        fix_for: |_| "see the agent's docs",
    }
}

fn options(plugin: &str) -> LoadOptions {
    LoadOptions {
        plugin: plugin.into(),
        sha256: None,
        limits: Limits::default(),
        classify: classify(),
    }
}

fn load(path: &std::path::Path, plugin: &str) -> Result<AdapterComponent, WasmError> {
    AdapterComponent::load_file(&Runtime::shared().unwrap(), path, options(plugin))
}

fn examples() -> Option<WasmExamples> {
    wasm_examples()
}

#[test]
fn goose_component_starts_a_turn_and_maps_its_lines() {
    let Some(ex) = examples() else { return };
    let c = load(&ex.goose, "goose-wasm").unwrap();
    assert_eq!(c.world(), "cohost:adapter@0.1.0");
    assert_eq!(c.sha256(), sha256_hex(&std::fs::read(&ex.goose).unwrap()));
    let mut t = c.instantiate().unwrap();
    let cmd = t
        .start(StartOptions {
            prompt: "list files".into(),
            session_id: Some("cohost-1".into()),
            fresh_session: false,
            approval: cohost_core::ApprovalMode::AutoApprove,
            ..StartOptions::default()
        })
        .unwrap();
    assert_eq!(
        cmd.args,
        [
            "run",
            "--output-format",
            "stream-json",
            "--name",
            "cohost-1",
            "--resume",
            "--text",
            "list files"
        ]
    );
    assert_eq!(cmd.env, [("GOOSE_MODE".to_string(), "auto".to_string())]);
    let ev = t
        .on_line(r#"{"type":"message","message":{"content":[{"type":"toolRequest","id":"t1","toolCall":{"value":{"name":"developer__shell","arguments":{"command":"ls"}}}}]}}"#)
        .unwrap();
    assert!(matches!(&ev[0], AgentEvent::Started { session_id: Some(s), .. } if s == "cohost-1"));
    assert!(
        matches!(&ev[1], AgentEvent::ToolCall(c) if c.kind == ToolKind::Execute && c.input["command"] == "ls")
    );
    assert!(t.on_line("not json").unwrap().is_empty());
    let end = t
        .on_line(r#"{"type":"complete","total_tokens":7}"#)
        .unwrap();
    assert!(matches!(
        end.as_slice(),
        [AgentEvent::Ended { reason: EndReason::Completed, usage: Some(u) }] if u.output_tokens == 7
    ));
    assert!(t.ended());
}

#[test]
fn an_error_event_without_a_code_is_classified_by_cohost() {
    let Some(ex) = examples() else { return };
    let mut t = load(&ex.goose, "goose-wasm")
        .unwrap()
        .instantiate()
        .unwrap();
    t.start(StartOptions::default()).unwrap();
    let ev = t
        .on_line(r#"{"type":"error","error":"Status: 401 Unauthorized"}"#)
        .unwrap();
    assert!(
        matches!(&ev[1], AgentEvent::Error(e) if e.code == ErrorCode::AuthRequired && e.suggested_fix.as_deref() == Some("see the agent's docs"))
    );
    let close = t
        .on_exit(Exit {
            code: Some(1),
            ..Exit::default()
        })
        .unwrap();
    assert_eq!(
        close,
        [AgentEvent::Ended {
            reason: EndReason::Error,
            usage: None
        }]
    );
}

/// Run `line` through a fresh hostile instance; the error, and how long
/// it took.
fn hostile_line(ex: &WasmExamples, limits: Limits, line: &str) -> (WasmError, Duration) {
    let mut o = options("hostile");
    o.limits = limits;
    let c = AdapterComponent::load_file(&Runtime::shared().unwrap(), &ex.hostile, o).unwrap();
    let mut t = c.instantiate().unwrap();
    t.start(StartOptions::default()).unwrap();
    let began = Instant::now();
    let err = t.on_line(line).expect_err(line);
    let took = began.elapsed();
    // The instance is spent: the turn is over.
    assert!(matches!(
        t.on_line("hello"),
        Err(WasmError::Poisoned { .. })
    ));
    (err, took)
}

fn assert_limit(err: &WasmError, limit: Limit) {
    assert_eq!(err.limit(), Some(limit), "{err}");
    assert_eq!(err.plugin(), "hostile");
    let text = err.to_string();
    assert!(
        text.contains("hostile") && text.contains(&limit.to_string()),
        "{text}"
    );
    assert_eq!(err.to_cohost().code, ErrorCode::InvalidOutput);
}

#[test]
fn an_infinite_loop_ends_at_the_time_limit() {
    let Some(ex) = examples() else { return };
    let (err, took) = hostile_line(&ex, Limits::default(), "loop");
    assert_limit(&err, Limit::CallTime);
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert!(took >= Limits::default().call_time, "{took:?}");
}

#[test]
fn a_four_gib_allocation_ends_at_the_memory_limit() {
    let Some(ex) = examples() else { return };
    let (err, took) = hostile_line(&ex, Limits::default(), "alloc");
    assert_limit(&err, Limit::Memory);
    assert!(err.to_string().contains("limit 64 MiB"), "{err}");
    assert!(took < Duration::from_secs(2), "{took:?}");
}

#[test]
fn a_trap_is_reported_as_a_trap() {
    let Some(ex) = examples() else { return };
    let (err, took) = hostile_line(&ex, Limits::default(), "trap");
    assert!(
        matches!(&err, WasmError::Trap { plugin, call: "on-line", .. } if plugin == "hostile"),
        "{err}"
    );
    assert!(took < Duration::from_secs(2));
}

#[test]
fn ten_million_events_never_reach_cohost() {
    let Some(ex) = examples() else { return };
    // Ten million events do not fit the memory limit...
    let (err, took) = hostile_line(&ex, Limits::default(), "flood 10000000");
    assert_limit(&err, Limit::Memory);
    assert!(took < Duration::from_secs(2), "{took:?}");
    // ...and with room enough for a million, the host refuses to copy
    // them out (the bound is checked before the host allocates).
    let roomy = Limits {
        memory_bytes: 256 << 20,
        ..Limits::default()
    };
    let (err, took) = hostile_line(&ex, roomy, "flood 1000000");
    assert_limit(&err, Limit::OutputPerCall);
    assert!(err.to_string().contains("copy out"), "{err}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    // Under the copy bound but over the count: refused by count.
    let (err, _) = hostile_line(&ex, Limits::default(), "flood 20000");
    assert_limit(&err, Limit::OutputPerCall);
    assert!(
        err.to_string().contains("20000 events, limit 10000"),
        "{err}"
    );
}

#[test]
fn too_much_text_in_one_call_is_refused() {
    let Some(ex) = examples() else { return };
    let (err, _) = hostile_line(&ex, Limits::default(), "big");
    assert_limit(&err, Limit::OutputPerCall);
}

#[test]
fn malformed_records_are_refused() {
    let Some(ex) = examples() else { return };
    for (line, why) in [
        ("bad-json", "not JSON"),
        ("after-end", "after `ended`"),
        ("twice", "`started` twice"),
    ] {
        let (err, _) = hostile_line(&ex, Limits::default(), line);
        assert!(
            matches!(&err, WasmError::Malformed { reason, .. } if reason.contains(why)),
            "{line}: {err}"
        );
        assert_eq!(err.to_cohost().code, ErrorCode::InvalidOutput);
    }
}

#[test]
fn a_loop_in_start_ends_before_anything_is_spawned() {
    let Some(ex) = examples() else { return };
    let c = load(&ex.hostile, "hostile").unwrap();
    let mut t = c.instantiate().unwrap();
    let began = Instant::now();
    let err = t
        .start(StartOptions {
            prompt: "loop".into(),
            ..StartOptions::default()
        })
        .unwrap_err();
    assert_limit(&err, Limit::CallTime);
    assert!(began.elapsed() < Duration::from_secs(2));
}

#[test]
fn a_component_importing_wasi_is_refused_at_load() {
    let Some(ex) = examples() else { return };
    let err = load(&ex.imports_fs, "snoop").unwrap_err();
    assert!(
        matches!(&err, WasmError::ForbiddenImport { plugin, import, .. } if plugin == "snoop" && import.starts_with("wasi:")),
        "{err}"
    );
    assert_eq!(err.to_cohost().code, ErrorCode::ConfigInvalid);
}

#[test]
fn a_pinned_hash_must_match() {
    let Some(ex) = examples() else { return };
    let bytes = std::fs::read(&ex.goose).unwrap();
    let rt = Runtime::shared().unwrap();
    let mut o = options("goose-wasm");
    o.sha256 = Some(sha256_hex(&bytes).to_uppercase());
    AdapterComponent::load(&rt, &bytes, o.clone()).unwrap();
    o.sha256 = Some("0".repeat(64));
    let err = AdapterComponent::load(&rt, &bytes, o).unwrap_err();
    assert!(matches!(err, WasmError::HashMismatch { .. }), "{err}");
    assert!(err.to_string().contains(&sha256_hex(&bytes)));
}

#[test]
fn a_component_for_another_world_version_is_refused() {
    let Some(ex) = examples() else { return };
    let bytes = std::fs::read(&ex.goose).unwrap();
    // The same component, its export renamed as a build against 0.2.0
    // would name it (same length, so the binary stays valid).
    let from = b"cohost:adapter/turn@0.1.0";
    let to = b"cohost:adapter/turn@0.2.0";
    let mut patched = bytes;
    let mut n = 0;
    let mut i = 0;
    while i + from.len() <= patched.len() {
        if &patched[i..i + from.len()] == from {
            patched[i..i + from.len()].copy_from_slice(to);
            n += 1;
        }
        i += 1;
    }
    assert!(n > 0, "the export name is in the binary");
    let rt = Runtime::shared().unwrap();
    let err = AdapterComponent::load(&rt, &patched, options("goose-next")).unwrap_err();
    assert!(
        matches!(&err, WasmError::WorldVersion { found, expected, .. } if found == "0.2.0" && expected == "0.1.0"),
        "{err}"
    );
    assert_eq!(err.to_cohost().code, ErrorCode::VersionUnsupported);
}

#[test]
fn garbage_and_core_modules_are_not_components() {
    let rt = Runtime::shared().unwrap();
    // A core module (magic + version 1), and junk.
    for bytes in [&b"\0asm\x01\0\0\0"[..], b"hello", b""] {
        let err = AdapterComponent::load(&rt, bytes, options("junk")).unwrap_err();
        assert!(matches!(err, WasmError::Invalid { .. }), "{err}");
    }
}

/// Resident memory of this process, from /proc.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn memory_returns_to_its_baseline_after_hostile_turns() {
    let Some(ex) = examples() else { return };
    // Warm up: the engine, the compiled component, one bad turn.
    let _ = hostile_line(&ex, Limits::default(), "alloc");
    let baseline = rss_kib();
    for _ in 0..5 {
        for line in ["alloc", "flood 10000000", "big", "trap", "bad-json"] {
            let _ = hostile_line(&ex, Limits::default(), line);
        }
    }
    let after = rss_kib();
    // Each bad turn touches up to 64 MiB; 25 of them leaking would show.
    assert!(
        after < baseline + 32 * 1024,
        "RSS grew from {baseline} KiB to {after} KiB"
    );
}

#[test]
fn a_full_instance_pool_is_a_typed_error_and_frees_with_the_turns() {
    let Some(ex) = examples() else { return };
    let rt = Runtime::with_pool(3).unwrap();
    assert_eq!(rt.pool(), Some(3));
    let bytes = std::fs::read(&ex.goose).unwrap();
    // Loading takes a slot for its type check and gives it back.
    let c = AdapterComponent::load(&rt, &bytes, options("goose-wasm")).unwrap();
    let turns: Vec<_> = (0..3).map(|_| c.instantiate().unwrap()).collect();
    let err = c.instantiate().unwrap_err();
    assert_eq!(
        err,
        WasmError::Busy {
            plugin: "goose-wasm".into(),
            max: 3
        }
    );
    assert_eq!(err.to_cohost().code, ErrorCode::SpawnFailed);
    drop(turns);
    // A slot given back is clean: the next turn starts from scratch.
    let mut t = c.instantiate().unwrap();
    t.start(StartOptions::default()).unwrap();
    let events = t
        .on_line(r#"{"type":"complete","total_tokens":3}"#)
        .unwrap();
    assert!(matches!(events.first(), Some(AgentEvent::Started { .. })));
}

#[test]
fn an_approval_request_is_shown_as_a_call_and_never_asked() {
    let Some(ex) = examples() else { return };
    let c = load(&ex.hostile, "asker").unwrap();
    let mut t = c.instantiate().unwrap();
    t.start(StartOptions::default()).unwrap();
    let events = t.on_line("ask").unwrap();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::ApprovalRequested { .. })),
        "{events:?}"
    );
    assert!(
        matches!(events[0], AgentEvent::Started { .. }),
        "{events:?}"
    );
    match &events[1] {
        AgentEvent::ToolCall(call) => {
            assert_eq!(call.tool_id, "t1");
            assert_eq!(call.kind, ToolKind::Execute);
            assert_eq!(call.input, serde_json::json!({"command": "ls"}));
        }
        other => panic!("{other:?}"),
    }
    match &events[2] {
        AgentEvent::Status { message, .. } => assert!(
            message.contains("`developer__shell`")
                && message.contains("wasm plugin `asker` has no approval channel")
                && message.contains("policy set at launch"),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }
    // The turn goes on.
    assert_eq!(
        t.on_line("done").unwrap(),
        vec![AgentEvent::TextDelta("done".into())]
    );
}
