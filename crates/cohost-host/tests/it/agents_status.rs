//! `cohost agents` facts against stub binaries on a scratch PATH and HOME:
//! ACP variants found through their base CLI, one auth verdict per
//! credential source, clean version strings, and the default agent being
//! the first ready one (else the mock) with a note saying why.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use cohost_core::Registry;
use cohost_discovery::{provider_status, CommandSource, StatusValue};
use cohost_host::session::{prepare, Approvals, ProviderChoice, SessionRequest};
use common::{claude_script, Scratch};

fn registry() -> Registry {
    let mut reg = Registry::new();
    cohost_agents::builtin::register_all(&mut reg).unwrap();
    reg
}

async fn status(host: &cohost_discovery::Host, id: &str) -> cohost_discovery::ProviderStatus {
    provider_status(host, &host.config().unwrap(), id)
        .await
        .unwrap()
}

#[tokio::test]
async fn acp_variants_are_found_through_their_base_cli() {
    let s = Scratch::new();
    let host = s.host_with(registry(), |_| {});
    for id in ["gemini-acp", "qwen-acp", "opencode-acp", "copilot-acp"] {
        assert_eq!(status(&host, id).await.status, StatusValue::Missing, "{id}");
    }
    let gemini = s.stub_on_path("gemini", "echo 0.61.0");
    let st = status(&host, "gemini-acp").await;
    let d = st.discovery.as_ref().unwrap();
    assert_eq!(d.command_source, CommandSource::Path);
    assert_eq!(d.command.as_deref(), Some(gemini.as_path()));
    assert_eq!(d.version.map(|v| v.to_string()).as_deref(), Some("0.61.0"));
    // The same verdict as the base CLI, with its login fix.
    let base = status(&host, "gemini").await;
    assert_eq!(st.status, base.status, "{st:?}");
    assert_eq!(st.status, StatusValue::NeedsAuth, "{st:?}");
    assert!(st.label.contains("ACP"), "{}", st.label);
    let keyed = s.host_with(registry(), |e| {
        e.vars.insert("GEMINI_API_KEY".into(), "x".into());
    });
    assert_eq!(
        status(&keyed, "gemini-acp").await.status,
        StatusValue::Ready
    );
}

#[tokio::test]
async fn claude_acp_and_claude_share_one_auth_verdict() {
    let s = Scratch::new();
    let host = s.host_with(registry(), |_| {});
    s.stub_on_path("claude", &claude_script("2.1.332", 1));
    // The ACP bridge answers anything with exit 0: it is not a login check.
    s.stub_on_path("claude-code-acp", "exit 0");
    let claude = status(&host, "claude").await;
    let acp = status(&host, "claude-acp").await;
    assert_eq!(claude.status, StatusValue::NeedsAuth, "{claude:?}");
    assert_eq!(acp.status, StatusValue::NeedsAuth, "{acp:?}");
    assert!(
        claude
            .suggested_fix
            .as_deref()
            .unwrap()
            .contains("cohost login claude"),
        "{claude:?}"
    );
    // Signed in through claude: both are ready.
    s.stub_on_path("claude", &claude_script("2.1.332", 0));
    assert_eq!(status(&host, "claude").await.status, StatusValue::Ready);
    assert_eq!(status(&host, "claude-acp").await.status, StatusValue::Ready);
}

#[tokio::test]
async fn version_strings_are_clean() {
    let s = Scratch::new();
    let host = s.host_with(registry(), |_| {});
    s.stub_on_path(
        "copilot",
        "echo 'GitHub Copilot CLI 1.0.102.'; echo \"Run 'copilot update' to check for updates.\"",
    );
    s.stub_on_path(
        "codex",
        "echo 'WARNING: proceeding, even though we could not create PATH aliases' >&2; echo codex-cli 0.171.0",
    );
    let st = status(&host, "copilot").await;
    let d = st.discovery.unwrap();
    assert_eq!(
        d.version_display.as_deref(),
        Some("GitHub Copilot CLI 1.0.102")
    );
    assert_eq!(d.version.map(|v| v.to_string()).as_deref(), Some("1.0.102"));
    let st = status(&host, "codex").await;
    assert_eq!(
        st.discovery.unwrap().version_display.as_deref(),
        Some("codex-cli 0.171.0")
    );
}

fn default_request(s: &Scratch) -> SessionRequest {
    let mut req = SessionRequest::new(ProviderChoice::Default, Approvals::deny_all());
    req.cwd = Some(s.home.clone());
    req
}

#[tokio::test]
async fn the_default_agent_is_the_first_ready_one_else_the_mock() {
    let s = Scratch::new();
    // Installed but not signed in: skipped, and the note says how to fix it.
    s.stub_on_path("claude", &claude_script("2.1.332", 1));
    let host = s.host_with(registry(), |_| {});
    let cfg = host.config().unwrap();
    let p = prepare(&host, &cfg, default_request(&s)).await.unwrap();
    assert_eq!(p.descriptor().id, "mock");
    assert!(p.fell_back());
    let note = p.default_note().unwrap();
    assert!(
        note.contains("claude: not signed in (`cohost login claude`)"),
        "{note}"
    );
    assert!(note.contains("built-in mock agent"), "{note}");

    // codex with a key is ready: it runs, and the note says claude was skipped.
    s.stub_on_path("codex", "echo codex-cli 0.171.0");
    let host = s.host_with(registry(), |e| {
        e.vars.insert("OPENAI_API_KEY".into(), "x".into());
    });
    let p = prepare(&host, &cfg, default_request(&s)).await.unwrap();
    assert_eq!(p.descriptor().id, "codex");
    assert!(!p.fell_back());
    let note = p.default_note().unwrap();
    assert!(
        note.starts_with("using `codex`, the first ready agent"),
        "{note}"
    );
    assert!(note.contains("claude: not signed in"), "{note}");

    // A named agent gets no note.
    let req = SessionRequest::new(ProviderChoice::Id("mock".into()), Approvals::deny_all());
    let p = prepare(&host, &cfg, req).await.unwrap();
    assert_eq!(p.default_note(), None);
}

/// A sign-in check that hangs: choosing the default agent waits for it up
/// to the auth timeout (then claude is "not signed in") without blocking
/// the runtime: on this one-thread runtime another task keeps ticking.
#[tokio::test]
async fn a_hanging_sign_in_check_does_not_block_the_runtime() {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    let s = Scratch::new();
    s.stub_on_path(
        "claude",
        r#"case "$1" in
  --version) echo "2.1.332 (Claude Code)";;
  auth) exec /bin/sleep 30;;
esac"#,
    );
    let mut host = s.host_with(registry(), |_| {});
    host.timeouts.auth = Duration::from_millis(600);
    let cfg = host.config().unwrap();
    let ticks = Arc::new(AtomicU32::new(0));
    let ticker = tokio::spawn({
        let ticks = ticks.clone();
        async move {
            loop {
                tokio::time::sleep(Duration::from_millis(20)).await;
                ticks.fetch_add(1, Ordering::Relaxed);
            }
        }
    });
    let started = Instant::now();
    let p = prepare(&host, &cfg, default_request(&s)).await.unwrap();
    let took = started.elapsed();
    ticker.abort();
    assert_eq!(p.descriptor().id, "mock");
    let note = p.default_note().unwrap();
    assert!(note.contains("claude: not signed in"), "{note}");
    assert!(
        took >= Duration::from_millis(600) && took < Duration::from_secs(10),
        "{took:?}"
    );
    let ticked = ticks.load(Ordering::Relaxed);
    assert!(
        ticked >= 5,
        "the runtime was blocked: {ticked} ticks in {took:?}"
    );
}

/// gemini with a key and a base URL but no settings selecting an auth type,
/// where cohost cannot hand it a defaults file (a state dir below `/tmp`,
/// as for any non-root user): not `ready`, since gemini would refuse to
/// start; the fix names the settings line. With the line, ready.
#[tokio::test]
async fn gemini_that_would_guess_the_gateway_auth_type_is_not_ready() {
    let s = Scratch::new();
    s.stub_on_path("gemini", "echo 0.61.0");
    let vars = |e: &mut cohost_discovery::DiscoveryEnv| {
        e.vars.insert("GEMINI_API_KEY".into(), "k".into());
        e.vars
            .insert("GOOGLE_GEMINI_BASE_URL".into(), "http://127.0.0.1:9".into());
    };
    let host = s.host_with(registry(), vars);
    let st = status(&host, "gemini").await;
    assert_eq!(st.status, StatusValue::NeedsAuth, "{st:?}");
    assert!(st.message.contains("gateway"), "{st:?}");
    let fix = st.suggested_fix.clone().unwrap_or_default();
    assert!(fix.contains(r#""selectedType":"gemini-api-key""#), "{fix}");
    let home = host.env.home.clone().unwrap();
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::write(
        home.join(".gemini/settings.json"),
        r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
    )
    .unwrap();
    assert_eq!(status(&host, "gemini").await.status, StatusValue::Ready);
}
