//! Test steps the codex and gemini end-to-end suites share: the same
//! assertions against either CLI, so a fix to one step fixes both.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cohost_agents::process::{procfs, signal_group, GroupSignal};
use cohost_core::{
    AdapterConfig, AdapterFactory, EndReason, ErrorCode, Event, EventBody, HostSession, Policy,
    PromptInput, SessionOptions,
};

use super::events::{run_within, text};
use super::scratch::MARKER;

const TURN_LIMIT: Duration = Duration::from_secs(60);

/// Interrupt at the first chunk of a slow answer: the turn ends
/// `interrupted` within 2 s, and the session completes the next prompt.
pub async fn interrupt_then_next_prompt(s: &mut HostSession, agent: &str) {
    let control = s.control();
    let pressed: Arc<Mutex<Option<Instant>>> = Arc::default();
    let p2 = pressed.clone();
    let mut sink = move |e: Event| {
        let mut p = p2.lock().unwrap();
        if matches!(e.body, EventBody::StreamChunk { .. }) && p.is_none() {
            *p = Some(Instant::now());
            control.interrupt();
        }
    };
    let out = s
        .prompt(PromptInput::text("count [[scenario:slow]]"), &mut sink)
        .await;
    let took = pressed.lock().unwrap().expect("a chunk arrived").elapsed();
    eprintln!("{agent} interrupt: stream_end {took:?} after the interrupt");
    assert_eq!(out.reason, EndReason::Interrupted);
    assert!(took < Duration::from_secs(2), "{took:?}");
    let (out, ev) = run_within(s, "say hello again", TURN_LIMIT).await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert!(text(&ev).contains("say hello again"));
}

/// 401, 429 and context-length each end the turn with their code and a fix,
/// within `limit`; the session then still completes a prompt.
pub async fn provider_errors_are_typed(s: &mut HostSession, limit: Duration) {
    for (marker, code) in [
        ("401", ErrorCode::AuthRequired),
        ("429", ErrorCode::RateLimited),
        ("context", ErrorCode::ContextWindowExceeded),
    ] {
        let t0 = Instant::now();
        let (out, ev) = run_within(s, &format!("x [[scenario:{marker}]]"), TURN_LIMIT).await;
        assert_eq!(out.reason, EndReason::Error, "{marker}: {ev:#?}");
        let e = out.error.expect("error");
        assert_eq!(e.code, code, "{marker}: {e:?}");
        assert!(e.suggested_fix.is_some());
        assert!(t0.elapsed() < limit, "{marker} took {:?}", t0.elapsed());
    }
    // The session survives provider errors.
    let (out, _) = run_within(s, "still there?", TURN_LIMIT).await;
    assert_eq!(out.reason, EndReason::Completed);
}

/// Kill the agent's whole process group at the first chunk: the turn ends
/// PROCESS_CRASHED. (The caller checks what the respawned session does.)
pub async fn killed_group_is_a_crash(s: &mut HostSession, marker: &str) {
    let marker = marker.to_string();
    let killed = Arc::new(Mutex::new(false));
    let k2 = killed.clone();
    let mut sink = move |e: Event| {
        let mut k = k2.lock().unwrap();
        if matches!(e.body, EventBody::StreamChunk { .. }) && !*k {
            *k = true;
            for p in procfs::live_with_env(MARKER, &marker) {
                let _ = signal_group(p.pgid, GroupSignal::Kill);
            }
        }
    };
    let out = s
        .prompt(PromptInput::text("count [[scenario:slow]]"), &mut sink)
        .await;
    assert!(*killed.lock().unwrap());
    assert_eq!(out.reason, EndReason::Error);
    assert_eq!(out.error.map(|e| e.code), Some(ErrorCode::ProcessCrashed));
}

/// A session whose adapter uses `binary` in a scratch dir.
fn with_binary(
    factory: Arc<dyn AdapterFactory>,
    dir: &std::path::Path,
    binary: std::path::PathBuf,
) -> HostSession {
    let config = AdapterConfig {
        cwd: dir.to_path_buf(),
        binary: Some(binary),
        ..AdapterConfig::default()
    };
    HostSession::new(
        factory,
        config,
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    )
}

/// A missing binary is PROVIDER_NOT_FOUND with the install command as fix.
pub async fn missing_binary(factory: Arc<dyn AdapterFactory>, name: &str, install: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut s = with_binary(factory, dir.path(), dir.path().join(name));
    let e = s.start().await.unwrap_err();
    assert_eq!(e.code, ErrorCode::ProviderNotFound);
    assert!(e.suggested_fix.unwrap_or_default().contains(install));
}

/// A binary whose `--version` prints `version_line`, outside the tested
/// range, is refused with VERSION_UNSUPPORTED naming the range.
pub async fn old_version_is_refused(
    factory: Arc<dyn AdapterFactory>,
    name: &str,
    version_line: &str,
) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join(name);
    std::fs::write(&fake, format!("#!/bin/sh\necho '{version_line}'\n")).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut s = with_binary(factory, dir.path(), fake);
    let e = s.start().await.unwrap_err();
    assert_eq!(e.code, ErrorCode::VersionUnsupported, "{e:?}");
    assert!(
        e.message.contains(">="),
        "names the tested range: {}",
        e.message
    );
}
