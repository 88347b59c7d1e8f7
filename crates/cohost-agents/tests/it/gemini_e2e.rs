//! End to end: the real pinned gemini CLI driven through
//! `cohost_core::HostSession` against cohost-fakellm, in a scratch HOME.
//! Skips with a loud notice when gemini is not installed, unless `CI` is set
//! (then it fails).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use cohost_agents::drivers::gemini::GeminiFactory;
use cohost_core::{
    ApprovalMode, EndReason, Event, EventBody, HostSession, Policy, SessionOptions, TurnOutcome,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::support;

use support::events::{approvals, chunk_indexes, run_within, text};
use support::scratch::{finish, Env};
use support::steps;

fn gemini_bin() -> Option<PathBuf> {
    cohost_testbench::require_cli(cohost_testbench::AgentCli::Gemini)
}

async fn setup(bin: &Path, approval: ApprovalMode) -> Env {
    let mut env = Env::start("gemini", bin, approval).await;
    std::fs::create_dir_all(env.home.join(".gemini")).unwrap();
    // Telemetry and updates off; one attempt so 429/500 surface at once
    // instead of after gemini's minutes of backoff.
    std::fs::write(
        env.home.join(".gemini/settings.json"),
        r#"{"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},"general":{"disableAutoUpdate":true,"disableUpdateNag":true,"maxAttempts":1},"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
    )
    .unwrap();
    let base_url = env.server.base_url();
    env.set_env([
        ("GEMINI_API_KEY", "fake-gemini-key".into()),
        ("GOOGLE_GEMINI_BASE_URL", base_url),
        ("GEMINI_CLI_TRUST_WORKSPACE", "true".into()),
    ]);
    env
}

fn session(env: &Env, policy: Policy) -> HostSession {
    env.session(Arc::new(GeminiFactory), policy)
}

async fn run(s: &mut HostSession, prompt: &str) -> (TurnOutcome, Vec<Event>) {
    run_within(s, prompt, Duration::from_secs(60)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_turn_streams_numbered_chunks_with_usage() {
    let Some(bin) = gemini_bin() else { return };
    let env = setup(&bin, ApprovalMode::Ask).await;
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();
    let (out, ev) = run(&mut s, "say hello").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    let idx = chunk_indexes(&ev);
    assert!(idx.len() >= 2, "{idx:?}");
    assert_eq!(idx, (0..idx.len() as u64).collect::<Vec<_>>());
    assert_eq!(text(&ev), "Hello from fake-llm. You said: say hello");
    assert!(matches!(
        &ev[0].body,
        EventBody::StreamStart {
            session_id: Some(_),
            ..
        }
    ));
    assert!(
        matches!(&ev.last().unwrap().body, EventBody::StreamEnd { reason: EndReason::Completed, usage: Some(u) } if u.output_tokens > 0)
    );
    finish(s, env).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_run_only_under_auto_approve() {
    let Some(bin) = gemini_bin() else { return };
    for (mode, expect_file) in [
        (ApprovalMode::AutoApprove, true),
        (ApprovalMode::Ask, false),
    ] {
        let env = setup(&bin, mode).await;
        let mut s = session(&env, Policy::AllowAll);
        s.start().await.unwrap();
        let (out, ev) = run(&mut s, "run it [[scenario:tool]]").await;
        assert_eq!(out.reason, EndReason::Completed, "{mode:?}: {ev:#?}");
        let file = env.ws.join("cohost_tool_output.txt");
        assert_eq!(file.exists(), expect_file, "{mode:?}: {ev:#?}");
        // Advisory: gemini never waits for cohost.
        assert_eq!(approvals(&ev), 0);
        let shell = ev.iter().any(
            |e| matches!(&e.body, EventBody::ToolCall { name, .. } if name == "run_shell_command"),
        );
        assert_eq!(shell, expect_file, "{mode:?}");
        if expect_file {
            assert!(ev.iter().any(|e| matches!(
                e.body,
                EventBody::ToolExecuted {
                    status: cohost_core::ToolStatus::Ok,
                    ..
                }
            )));
        }
        finish(s, env).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_mid_stream_then_next_prompt() {
    let Some(bin) = gemini_bin() else { return };
    let env = setup(&bin, ApprovalMode::Ask).await;
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();
    steps::interrupt_then_next_prompt(&mut s, "gemini").await;
    finish(s, env).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_in_a_new_session_by_session_id() {
    let Some(bin) = gemini_bin() else { return };
    let env = setup(&bin, ApprovalMode::Ask).await;
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();
    let (out, _) = run(&mut s, "remember the word PAPAYA").await;
    assert_eq!(out.reason, EndReason::Completed);
    let id = s.native_session_id().expect("session id").to_string();
    s.terminate().await.unwrap();
    let mut cfg = env.config.clone();
    cfg.resume = Some(id.clone());
    let mut s2 = HostSession::new(
        Arc::new(GeminiFactory),
        cfg,
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    s2.start().await.unwrap();
    let (out, ev) = run(&mut s2, "which word?").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert!(matches!(&ev[0].body, EventBody::StreamStart { session_id: Some(s), .. } if *s == id));
    let last = env
        .server
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.path.contains(":streamGenerateContent"))
        .unwrap();
    let body = last.body.to_string();
    assert!(
        body.contains("PAPAYA") && body.contains("which word?"),
        "prior turn missing from the request"
    );
    finish(s2, env).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_errors_are_typed() {
    let Some(bin) = gemini_bin() else { return };
    let env = setup(&bin, ApprovalMode::Ask).await;
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();
    steps::provider_errors_are_typed(&mut s, Duration::from_secs(40)).await;
    finish(s, env).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_binary_is_provider_not_found() {
    steps::missing_binary(
        Arc::new(GeminiFactory),
        "no-such-gemini",
        "npm install -g @google/gemini-cli",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_group_is_a_crash_then_respawn_works() {
    let Some(bin) = gemini_bin() else { return };
    let env = setup(&bin, ApprovalMode::Ask).await;
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();
    // A completed turn first: gemini persists a session only after one, and
    // the respawned adapter resumes it.
    let (out, _) = run(&mut s, "remember the word KIWI").await;
    assert_eq!(out.reason, EndReason::Completed);
    steps::killed_group_is_a_crash(&mut s, &env.marker).await;
    let (out, ev) = run(&mut s, "are you back?").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    // Gemini keeps the killed turn's unanswered prompt in the session and
    // sends it with the new one, so the fake may replay `slow` here; what
    // matters is that the turn completes and carries the conversation.
    assert!(!text(&ev).is_empty(), "{ev:#?}");
    let last = env
        .server
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.path.contains(":streamGenerateContent"))
        .unwrap();
    assert!(
        last.body.to_string().contains("KIWI"),
        "respawn lost the conversation"
    );
    finish(s, env).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_outside_the_tested_range_is_refused() {
    steps::old_version_is_refused(Arc::new(GeminiFactory), "old-gemini", "0.40.0").await;
}

/// A temp dir none of whose ancestors is group- or world-writable (gemini
/// skips a system-defaults file below such a directory): under the target
/// dir when the checkout is not below `/tmp`, else under `/run` (CI runs as
/// root).
fn secure_tempdir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let secure = |dir: &std::path::Path| {
        dir.ancestors()
            .all(|a| std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o022 == 0))
    };
    [env!("CARGO_TARGET_TMPDIR"), "/run", "/var/lib"]
        .into_iter()
        .map(std::path::Path::new)
        .filter(|d| secure(d))
        .find_map(|d| tempfile::tempdir_in(d).ok())
        .expect(
            "no writable directory without a group- or world-writable ancestor \
             (gemini ignores a system-defaults file below one): run the tests \
             from a checkout outside /tmp",
        )
}

/// A user with a key and a base URL but no `~/.gemini/settings.json`:
/// gemini 0.61 alone guesses the `gateway` auth type and exits 41
/// ("Invalid auth method selected"); cohost picks `gemini-api-key` from the
/// key through gemini's system-defaults layer. The state dir holding that
/// file must have no world-writable ancestor (gemini skips it otherwise),
/// so it lives under the target dir rather than `/tmp`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_without_settings_picks_the_auth_type_from_the_environment() {
    let Some(bin) = gemini_bin() else { return };
    let mut env = setup(&bin, ApprovalMode::Ask).await;
    std::fs::remove_file(env.home.join(".gemini/settings.json")).unwrap();
    let state = secure_tempdir();
    env.set_env([("XDG_STATE_HOME", state.path().display().to_string())]);
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();
    let (out, ev) = run(&mut s, "say hello").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert_eq!(text(&ev), "Hello from fake-llm. You said: say hello");
    assert!(
        !env.home.join(".gemini/settings.json").exists(),
        "the user's settings are not written"
    );
    let defaults = state.path().join("cohost/gemini/gemini-api-key.json");
    assert!(defaults.is_file(), "{}", defaults.display());
    finish(s, env).await;
}

/// The same user where cohost cannot hand gemini a defaults file (any
/// non-root user; here a state dir below `/tmp`): gemini alone would start,
/// guess `gateway` and exit 41, so cohost refuses before spawning it, with
/// the settings line that fixes it; following the fix, the turn runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_and_base_url_without_usable_defaults_is_a_clear_error_whose_fix_works() {
    let Some(bin) = gemini_bin() else { return };
    let mut env = setup(&bin, ApprovalMode::Ask).await;
    let settings = env.home.join(".gemini/settings.json");
    std::fs::remove_file(&settings).unwrap();
    let open = tempfile::tempdir().unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(open.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    env.set_env([(
        "XDG_STATE_HOME",
        open.path().join("state").display().to_string(),
    )]);
    let mut s = session(&env, Policy::DenyAll);
    let err = s.start().await.unwrap_err();
    assert_eq!(err.code, cohost_core::ErrorCode::AuthRequired, "{err:?}");
    assert!(err.message.contains("gateway"), "{}", err.message);
    let fix = err.suggested_fix.clone().unwrap_or_default();
    let line = r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#;
    assert!(fix.contains(line) && fix.contains("settings.json"), "{fix}");
    assert!(!settings.exists(), "the user's settings are not written");
    assert!(
        !open.path().join("state/cohost").exists(),
        "no defaults file either"
    );
    drop(s);
    // What the fix says to do.
    std::fs::write(&settings, line).unwrap();
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();
    let (out, ev) = run(&mut s, "say hello").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert_eq!(text(&ev), "Hello from fake-llm. You said: say hello");
    finish(s, env).await;
}
