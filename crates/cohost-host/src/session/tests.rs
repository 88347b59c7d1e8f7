use super::*;
use cohost_agents::mock::{MockFactory, MockOptions};
use cohost_core::{ErrorCode, Event, PromptInput, Registry};
use std::time::Duration;

use cohost_discovery::env::DiscoveryEnv;

fn host(home: &std::path::Path) -> Host {
    let mut reg = Registry::new();
    reg.register(Arc::new(MockFactory::new(MockOptions {
        chunk_delay: Duration::ZERO,
        ..MockOptions::default()
    })))
    .unwrap();
    Host::new(
        reg,
        DiscoveryEnv {
            home: Some(home.to_path_buf()),
            ..DiscoveryEnv::default()
        },
    )
}

fn request(home: &std::path::Path) -> SessionRequest {
    let mut req = SessionRequest::new(ProviderChoice::Default, Approvals::deny_all());
    req.cwd = Some(home.to_path_buf());
    req
}

/// A host, its config and store, and a request for a recorded session.
fn recorded(home: &std::path::Path) -> (Host, HostConfig, SessionStore, SessionRequest) {
    let h = host(home);
    let cfg = h.config().unwrap();
    let store = SessionStore::of(&h);
    let mut req = request(home);
    req.recording = Recording::New;
    (h, cfg, store, req)
}

async fn one_turn(s: &mut OpenSession) -> Vec<Event> {
    let mut events = Vec::new();
    let mut sink = |e: Event| events.push(e);
    s.prompt(PromptInput::text("hi [mock:text]"), &mut sink)
        .await;
    events
}

#[tokio::test]
async fn nothing_installed_falls_back_to_the_mock() {
    let home = tempfile::tempdir().unwrap();
    let h = host(home.path());
    let cfg = h.config().unwrap();
    let mut s = open(&h, &cfg, request(home.path())).await.unwrap();
    assert!(s.fell_back());
    assert_eq!(s.descriptor().id, "mock");
    assert_eq!(s.record_id(), None, "recording is off by default");
    s.terminate().await.unwrap();
}

#[tokio::test]
async fn recorded_sessions_track_turns_and_resume_under_their_id() {
    let home = tempfile::tempdir().unwrap();
    let (h, cfg, store, req) = recorded(home.path());
    let mut s = open(&h, &cfg, req).await.unwrap();
    let id = s.record_id().unwrap().to_string();
    assert!(id.starts_with("s-"), "{id}");
    let events = one_turn(&mut s).await;
    assert!(matches!(
        events.last().unwrap().body,
        cohost_core::EventBody::StreamEnd { .. }
    ));
    s.terminate().await.unwrap();
    let rec = store.get(&id).unwrap().unwrap();
    assert_eq!(rec.watermark, 1);
    assert_eq!(rec.provider, "mock");
    assert!(rec.native_session_id.is_some());

    // Resuming by the cohost id continues the same record and native session.
    let mut req = SessionRequest::new(ProviderChoice::Default, Approvals::deny_all());
    req.resume = Some(id.clone());
    req.recording = Recording::New;
    let mut s = open(&h, &cfg, req).await.unwrap();
    assert_eq!(s.record_id(), Some(id.as_str()));
    assert!(!s.fell_back(), "the record names the provider");
    assert_eq!(s.native_session_id(), rec.native_session_id.as_deref());
    one_turn(&mut s).await;
    s.terminate().await.unwrap();
    assert_eq!(store.get(&id).unwrap().unwrap().watermark, 2);

    // A record belongs to its provider.
    let mut req = request(home.path());
    req.provider = ProviderChoice::Id("other".into());
    req.resume = Some(id.clone());
    let e = CohostError::from(prepare(&h, &cfg, req).await.err().unwrap());
    assert_eq!(e.code, ErrorCode::ConfigInvalid);
    assert!(e.message.contains("belongs to `mock`"), "{}", e.message);
}

#[tokio::test]
async fn a_last_prompt_ends_the_session_and_still_records_the_turn() {
    let home = tempfile::tempdir().unwrap();
    let (h, cfg, store, mut req) = recorded(home.path());
    req.defer_handshake = true;
    let mut s = open(&h, &cfg, req).await.unwrap();
    let id = s.record_id().unwrap().to_string();
    let mut events = Vec::new();
    let (outcome, stopped) = s
        .prompt_then_terminate(PromptInput::text("hi [mock:text]"), &mut |e: Event| {
            events.push(e);
        })
        .await;
    assert_eq!(outcome.reason, cohost_core::EndReason::Completed);
    stopped.unwrap();
    assert_eq!(s.state(), cohost_core::State::Terminated);
    let rec = store.get(&id).unwrap().unwrap();
    assert_eq!(rec.watermark, 1);
    assert!(rec.native_session_id.is_some());
    // Stopping again is a no-op, as after `terminate`.
    s.terminate().await.unwrap();
}

#[tokio::test]
async fn agent_clis_refuse_offered_tools_as_a_tools_error() {
    let home = tempfile::tempdir().unwrap();
    let h = host(home.path());
    let cfg = h.config().unwrap();
    let mut req = request(home.path());
    req.tools = Tools::Json {
        origin: "test".into(),
        value: serde_json::json!([{"name": "run_shell"}]),
    };
    match prepare(&h, &cfg, req).await.err().unwrap() {
        e @ SetupError::ToolsForAgentCli(_) => {
            assert!(e.is_usage());
            let wire = cohost_core::CohostError::from(e);
            assert!(wire.message.contains("runs its own tools"), "{wire}");
            assert!(wire
                .suggested_fix
                .is_some_and(|f| f.contains("API provider")));
        }
        other => panic!("expected a tools error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_missing_cwd_and_an_unknown_provider_are_refused() {
    let home = tempfile::tempdir().unwrap();
    let h = host(home.path());
    let cfg = h.config().unwrap();
    let mut req = request(home.path());
    req.cwd = Some(home.path().join("nope"));
    let e = CohostError::from(prepare(&h, &cfg, req).await.err().unwrap());
    assert_eq!(e.code, ErrorCode::ConfigInvalid);
    let mut req = request(home.path());
    req.provider = ProviderChoice::Id("nosuch".into());
    let e = CohostError::from(prepare(&h, &cfg, req).await.err().unwrap());
    assert_eq!(e.code, ErrorCode::ProviderNotFound);
}

#[tokio::test]
async fn provider_settings_give_the_default_model_and_an_explicit_one_wins() {
    let home = tempfile::tempdir().unwrap();
    let h = host(home.path());
    std::fs::create_dir_all(h.paths.config_file.parent().unwrap()).unwrap();
    std::fs::write(&h.paths.config_file, "[providers.mock]\nmodel = \"text\"\n").unwrap();
    let cfg = h.config().unwrap();
    let mut req = request(home.path());
    req.provider = ProviderChoice::Id("mock".into());
    req.provider_settings = true;
    req.recording = Recording::WithId("s-fixed".into());
    let mut s = open(&h, &cfg, req.clone()).await.unwrap();
    assert_eq!(s.record_id(), Some("s-fixed"));
    s.terminate().await.unwrap();
    let store = SessionStore::of(&h);
    assert_eq!(
        store.get("s-fixed").unwrap().unwrap().model.as_deref(),
        Some("text")
    );
    req.model = Some("echo".into());
    req.recording = Recording::WithId("s-other".into());
    let mut s = open(&h, &cfg, req).await.unwrap();
    s.terminate().await.unwrap();
    assert_eq!(
        store.get("s-other").unwrap().unwrap().model.as_deref(),
        Some("echo")
    );
}

#[tokio::test]
async fn context_files_reach_a_provider_without_attachments_as_mentions() {
    let home = tempfile::tempdir().unwrap();
    let h = host(home.path());
    let cfg = h.config().unwrap();
    let mut s = open(&h, &cfg, request(home.path())).await.unwrap();
    assert!(!s.descriptor().capabilities.context_files);
    let mut input = PromptInput::text("read [mock:text]");
    input.context_files.push(cohost_core::ContextFile {
        path: "src/lib.rs".into(),
        content: None,
    });
    let mut text = String::new();
    let mut sink = |e: Event| {
        if let cohost_core::EventBody::StreamChunk { delta, .. } = e.body {
            text.push_str(&delta);
        }
    };
    s.prompt(input, &mut sink).await;
    assert!(text.contains("read [mock:text]\n@src/lib.rs"), "{text}");
    s.terminate().await.unwrap();
}

/// `git` in `dir` with a scratch identity and no system config.
fn git(dir: &std::path::Path, home: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=u", "-c", "user.email=u@example.invalid"])
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn a_worktree_session_runs_there_and_resumes_there() {
    let home = tempfile::tempdir().unwrap();
    let repo = home.path().join("project");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(repo.join("src/lib.rs"), "one\n").unwrap();
    git(&repo, home.path(), &["init", "-q", "-b", "main"]);
    git(&repo, home.path(), &["add", "-A"]);
    git(&repo, home.path(), &["commit", "-qm", "start"]);
    let (h, cfg, store, mut req) = recorded(home.path());
    // From a subdirectory: the session runs in the same place of its tree.
    req.cwd = Some(repo.join("src"));
    req.worktree = Some(true);
    let mut s = open(&h, &cfg, req).await.unwrap();
    let id = s.record_id().unwrap().to_owned();
    let rec = store.get(&id).unwrap().unwrap();
    let wt = rec.worktree.clone().expect("the record keeps its worktree");
    assert_eq!(wt.branch, format!("cohost/{id}"));
    assert_eq!(s.cwd(), wt.path.join("src"));
    assert!(
        wt.path.starts_with(&h.paths.state_dir),
        "{}",
        wt.path.display()
    );
    assert!(
        s.cwd().join("lib.rs").is_file(),
        "the worktree has the tree"
    );
    one_turn(&mut s).await;
    s.terminate().await.unwrap();

    let (_, _, _, mut again) = recorded(home.path());
    again.resume = Some(id.clone());
    again.cwd = None;
    let s = open(&h, &cfg, again).await.unwrap();
    assert_eq!(s.cwd(), wt.path.join("src"), "resumed in its worktree");
    let rec = store.get(&id).unwrap().unwrap();
    assert_eq!(rec.worktree, Some(wt), "the worktree is still the record's");
}

#[tokio::test]
async fn a_worktree_outside_git_is_refused_with_a_fix() {
    let home = tempfile::tempdir().unwrap();
    let (h, cfg, _, mut req) = recorded(home.path());
    req.worktree = Some(true);
    let Err(e) = prepare(&h, &cfg, req).await else {
        panic!("a worktree outside git");
    };
    let e = CohostError::from(e);
    assert_eq!(e.code, ErrorCode::ConfigInvalid);
    assert!(
        e.message.contains("not in a git repository"),
        "{}",
        e.message
    );
    assert!(e.suggested_fix.unwrap().contains("without --worktree"));
}

/// Every session the setup service opens sanitizes its events with its
/// host's sanitizer, whatever the request's options held: a value only
/// that one knows (no shape, no secret name; neither the options' default
/// nor the process-wide sanitizer knows it) comes back redacted.
#[tokio::test]
async fn sessions_sanitize_with_their_hosts_sanitizer() {
    const PLANTED: &str = "planted-q7Xw2Lm9Rk4Zt8Vn";
    assert_eq!(cohost_core::sanitize::global().sanitize(PLANTED), PLANTED);
    let home = tempfile::tempdir().unwrap();
    let none: [(&str, &str); 0] = [];
    let given = cohost_core::Sanitizer::new(none, None).with_known_values([PLANTED]);
    let h = host(home.path()).with_sanitizer(Arc::new(given));
    let cfg = h.config().unwrap();
    let mut s = open(&h, &cfg, request(home.path())).await.unwrap();
    let mut events = Vec::new();
    let mut sink = |e: Event| events.push(e);
    s.prompt(
        PromptInput::text(format!("[mock:say] {PLANTED}")),
        &mut sink,
    )
    .await;
    let shown = serde_json::to_string(&events).unwrap();
    assert!(shown.contains("[REDACTED]"), "{shown}");
    assert!(!shown.contains(PLANTED), "{shown}");
    s.terminate().await.unwrap();
}
