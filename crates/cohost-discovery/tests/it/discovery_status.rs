//! Discovery and status against stub binaries on a scratch PATH and HOME:
//! every command source and every status value.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use cohost_agents::catalog;
use cohost_agents::mock::MockFactory;
use cohost_core::{AdapterFactory, AgentAdapter, ProviderDescriptor, Registry, SupportTier};
use cohost_discovery::discovery::{discover_cli, discover_server};
use cohost_discovery::{provider_status, CommandSource, StatusValue};
use common::{claude_script, Scratch};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test]
async fn command_sources_explicit_known_path_path_and_missing() {
    let s = Scratch::new();
    let host = s.host();
    let claude = catalog::cli("claude").unwrap();
    let script = claude_script("2.1.332", 1);

    let d = discover_cli(claude, None, &host.env, &host.timeouts, &host.sanitizer).await;
    assert_eq!(d.command_source, CommandSource::Missing);
    assert!(!d.installed);

    let on_path = s.stub_on_path("claude", &script);
    let d = discover_cli(claude, None, &host.env, &host.timeouts, &host.sanitizer).await;
    assert_eq!(d.command_source, CommandSource::Path);
    assert_eq!(d.command.as_deref(), Some(on_path.as_path()));
    assert_eq!(d.version_display.as_deref(), Some("2.1.332 (Claude Code)"));
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);

    // ~/.local/bin beats PATH, and two installs are a warning.
    let known = s.stub(&s.home.join(".local/bin"), "claude", &script);
    let d = discover_cli(claude, None, &host.env, &host.timeouts, &host.sanitizer).await;
    assert_eq!(d.command_source, CommandSource::KnownPath);
    assert_eq!(d.command.as_deref(), Some(known.as_path()));
    assert!(
        d.warnings.iter().any(|w| w.contains("2 installs found")),
        "{:?}",
        d.warnings
    );

    // The vendor dir ~/.claude/local is a known path too.
    let vendor = s.stub(&s.home.join(".claude/local"), "claude", &script);
    let d = discover_cli(claude, None, &host.env, &host.timeouts, &host.sanitizer).await;
    assert_eq!(d.command.as_deref(), Some(vendor.as_path()));

    // An explicit path wins over everything.
    let explicit = s.stub(&s.dir.path().join("opt"), "my-claude", &script);
    let d = discover_cli(
        claude,
        Some(&explicit),
        &host.env,
        &host.timeouts,
        &host.sanitizer,
    )
    .await;
    assert_eq!(d.command_source, CommandSource::Explicit);
    assert_eq!(d.command.as_deref(), Some(explicit.as_path()));

    // A broken explicit path is reported, and discovery goes on.
    let d = discover_cli(
        claude,
        Some(&s.dir.path().join("nope")),
        &host.env,
        &host.timeouts,
        &host.sanitizer,
    )
    .await;
    assert_eq!(d.command_source, CommandSource::KnownPath);
    assert!(
        d.warnings.iter().any(|w| w.contains("not an executable")),
        "{:?}",
        d.warnings
    );
}

#[tokio::test]
async fn npm_prefix_and_pipx_dirs_are_known_paths() {
    let s = Scratch::new();
    let prefix = s.dir.path().join("npm-global");
    let host = s.host_with(Registry::new(), |e| {
        e.vars
            .insert("NPM_CONFIG_PREFIX".into(), prefix.display().to_string());
    });
    let codex = s.stub(&prefix.join("bin"), "codex", "echo codex-cli 0.171.0");
    let d = discover_cli(
        catalog::cli("codex").unwrap(),
        None,
        &host.env,
        &host.timeouts,
        &host.sanitizer,
    )
    .await;
    assert_eq!(
        (d.command_source, d.command.as_deref()),
        (CommandSource::KnownPath, Some(codex.as_path()))
    );

    let aider = s.stub(
        &s.home.join(".local/pipx/venvs/aider-chat/bin"),
        "aider",
        "echo aider 0.86.2",
    );
    let d = discover_cli(
        catalog::cli("aider").unwrap(),
        None,
        &host.env,
        &host.timeouts,
        &host.sanitizer,
    )
    .await;
    assert_eq!(
        (d.command_source, d.command.as_deref()),
        (CommandSource::KnownPath, Some(aider.as_path()))
    );
}

#[tokio::test]
async fn version_outside_tested_range_warns_and_hung_probe_times_out() {
    let s = Scratch::new();
    let mut host = s.host();
    s.stub_on_path("claude", &claude_script("9.0.0", 1));
    let d = discover_cli(
        catalog::cli("claude").unwrap(),
        None,
        &host.env,
        &host.timeouts,
        &host.sanitizer,
    )
    .await;
    assert!(d.version_error.is_none());
    assert_warns_untested(&d);

    s.stub_on_path("gemini", "exec /bin/sleep 30");
    host.timeouts.version = std::time::Duration::from_millis(300);
    let t0 = std::time::Instant::now();
    let d = discover_cli(
        catalog::cli("gemini").unwrap(),
        None,
        &host.env,
        &host.timeouts,
        &host.sanitizer,
    )
    .await;
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(5),
        "probe was not bounded"
    );
    assert_eq!(
        d.version_error.map(|e| e.code),
        Some(cohost_core::ErrorCode::Timeout)
    );
}

/// A one-shot HTTP server answering `/api/tags` like Ollama.
async fn fake_ollama() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let mut buf = [0u8; 1024];
            let n = sock.read(&mut buf).await.unwrap_or(0);
            let req = String::from_utf8_lossy(&buf[..n]).to_string();
            let body = r#"{"models":[{"name":"llama3:8b"},{"name":"qwen2:7b"}]}"#;
            let resp = if req.starts_with("GET /api/tags ") {
                format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len())
            } else {
                "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_string()
            };
            let _ = sock.write_all(resp.as_bytes()).await;
        }
    });
    port
}

#[tokio::test]
async fn model_server_source_and_status() {
    let s = Scratch::new();
    let port = fake_ollama().await;
    let host = s.host_with(Registry::new(), |e| {
        e.vars
            .insert("OLLAMA_HOST".into(), format!("0.0.0.0:{port}"));
    });
    let d = discover_server(
        catalog::server("ollama").unwrap(),
        None,
        &host.env,
        &host.timeouts,
        &host.sanitizer,
    )
    .await;
    assert_eq!(d.command_source, CommandSource::Server);
    assert_eq!(d.models, ["llama3:8b", "qwen2:7b"]);
    let cfg = host.config().unwrap();
    let st = provider_status(&host, &cfg, "ollama").await.unwrap();
    assert_eq!(st.status, StatusValue::Ready, "{st:?}");

    // Nothing listens on a fresh port (bind then drop it).
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let host = s.host_with(Registry::new(), |e| {
        e.vars
            .insert("OLLAMA_HOST".into(), format!("127.0.0.1:{closed}"));
    });
    let st = provider_status(&host, &host.config().unwrap(), "ollama")
        .await
        .unwrap();
    assert_eq!(st.status, StatusValue::Missing);
    assert!(st.suggested_fix.unwrap().contains("ollama"));
}

/// A "plugin" driver cohost has no catalog data for.
struct PluginFactory(MockFactory);

impl AdapterFactory for PluginFactory {
    fn descriptor(&self) -> ProviderDescriptor {
        let mut d = self.0.descriptor();
        d.id = "plugin-x".into();
        d.capabilities.tier = SupportTier::Structured;
        d
    }
    fn create(&self) -> Box<dyn AgentAdapter> {
        self.0.create()
    }
}

#[tokio::test]
async fn every_status_value() {
    let s = Scratch::new();
    let mut reg = Registry::new();
    reg.register(Arc::new(MockFactory::default())).unwrap();
    reg.register(Arc::new(PluginFactory(MockFactory::default())))
        .unwrap();
    let host = s.host_with(reg.clone(), |_| {});
    let status = |host: cohost_discovery::Host, id: &'static str| async move {
        let cfg = host.config().unwrap();
        provider_status(&host, &cfg, id).await.unwrap()
    };

    let st = status(host.clone(), "claude").await;
    assert_eq!(st.status, StatusValue::Missing);
    assert_eq!(
        st.suggested_fix.as_deref(),
        Some("npm install -g @anthropic-ai/claude-code")
    );

    s.stub_on_path("claude", &claude_script("2.1.332", 1));
    let st = status(host.clone(), "claude").await;
    assert_eq!(st.status, StatusValue::NeedsAuth, "{st:?}");
    assert!(st
        .suggested_fix
        .as_deref()
        .unwrap()
        .contains("cohost login claude"));

    // An ACP variant is signed in through its base CLI; its fix is the one
    // its runs end with (`cohost login qwen-acp`, which runs qwen's login).
    s.stub_on_path("qwen", "echo 0.9.0");
    let st = status(host.clone(), "qwen-acp").await;
    assert_eq!(st.status, StatusValue::NeedsAuth, "{st:?}");
    assert_eq!(st.suggested_fix, catalog::login_fix("qwen-acp"));

    // A credentials file is enough, and never read.
    std::fs::create_dir_all(s.home.join(".claude")).unwrap();
    std::fs::write(s.home.join(".claude/.credentials.json"), "{}").unwrap();
    let st = status(host.clone(), "claude").await;
    assert_eq!(st.status, StatusValue::Ready, "{st:?}");
    assert!(st.capabilities.contains(&"streaming"));

    // So is an API key in the environment; its value never shows.
    let keyed = s.host_with(reg.clone(), |e| {
        e.vars.insert(
            "ANTHROPIC_API_KEY".into(),
            "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123".into(),
        );
    });
    let st = status(keyed, "codex").await;
    assert_eq!(st.status, StatusValue::Missing);

    // `auth status` exiting 0 counts as signed in (codex: `login status`).
    s.stub_on_path(
        "codex",
        r#"case "$1" in --version) echo codex-cli 0.171.0;; login) echo Logged in; exit 0;; esac"#,
    );
    assert_eq!(
        status(host.clone(), "codex").await.status,
        StatusValue::Ready
    );

    // A policy refusal from the status command is `blocked`.
    s.stub_on_path("cursor-agent", r#"case "$1" in --version) echo 2025.11.25;; status) echo "Login blocked by your organization policy"; exit 1;; esac"#);
    let st = status(host.clone(), "cursor").await;
    assert_eq!(st.status, StatusValue::Blocked, "{st:?}");

    // Disabled in config is `blocked` too.
    s.write_config("[providers.claude]\nenabled = false\n");
    let st = status(host.clone(), "claude").await;
    assert_eq!(st.status, StatusValue::Blocked);
    assert!(st
        .suggested_fix
        .unwrap()
        .contains("providers.claude.enabled true"));
    s.write_config("");

    // A tool that cannot report whether it is signed in is `installed`.
    s.stub_on_path("agy", "echo agy 1.2.3");
    let st = status(host.clone(), "agy").await;
    assert_eq!(st.status, StatusValue::Installed, "{st:?}");

    // A broken version probe is `failed`.
    s.stub_on_path("gemini", "echo 'Segmentation fault' >&2; exit 139");
    let st = status(host.clone(), "gemini").await;
    assert_eq!(st.status, StatusValue::Failed, "{st:?}");

    // A driver cohost has no data for is `unknown`; the built-in mock is ready.
    assert_eq!(
        status(host.clone(), "plugin-x").await.status,
        StatusValue::Unknown
    );
    assert_eq!(
        status(host.clone(), "mock").await.status,
        StatusValue::Ready
    );

    // HTTP providers: key or no key.
    assert_eq!(
        status(host.clone(), "openai").await.status,
        StatusValue::NeedsAuth
    );
    let keyed = s.host_with(reg, |e| {
        e.vars.insert("OPENAI_API_KEY".into(), "x".into());
    });
    assert_eq!(status(keyed, "openai").await.status, StatusValue::Ready);

    // Unknown ids are PROVIDER_NOT_FOUND, listing the known ones.
    let cfg = host.config().unwrap();
    let e = cohost_core::CohostError::from(provider_status(&host, &cfg, "nope").await.unwrap_err());
    assert_eq!(e.code, cohost_core::ErrorCode::ProviderNotFound);
    assert!(e.suggested_fix.unwrap().contains("claude"));
}

#[tokio::test]
async fn statuses_never_leak_secrets_or_home() {
    let s = Scratch::new();
    let secret = "sk-ant-api03-SECRETSECRETSECRETSECRET0123456789";
    s.stub_on_path("claude", &claude_script("2.1.332", 1));
    // Keep model-server probes off the machine's real default ports.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    s.write_config(&format!(
        "[providers.ollama]\nendpoint = \"127.0.0.1:{closed}\"\n[providers.lmstudio]\nendpoint = \"http://127.0.0.1:{closed}\"\n"
    ));
    let host = s.host_with(Registry::new(), |e| {
        e.vars.insert("ANTHROPIC_API_KEY".into(), secret.into());
    });
    let all = cohost_discovery::all_statuses(&host, &host.config().unwrap()).await;
    assert!(
        all.len() >= 16,
        "catalog CLIs and servers are listed: {}",
        all.len()
    );
    let json = serde_json::to_string(&all).unwrap();
    assert!(!json.contains("SECRETSECRET"));
    let claude = all.iter().find(|s| s.provider_id == "claude").unwrap();
    assert_eq!(claude.status, StatusValue::Ready);
    assert!(claude.message.contains("$ANTHROPIC_API_KEY"));
}

/// A slow `--version` (node CLIs take seconds) runs once per binary: the
/// answer is remembered until the file changes.
#[tokio::test]
async fn version_answers_are_remembered_until_the_binary_changes() {
    let s = Scratch::new();
    let host = s.host();
    let claude = catalog::cli("claude").unwrap();
    let count = s.dir.path().join("probes");
    let script = |v: &str| {
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo x >> '{}'; echo '{v} (Claude Code)'; exit 0; fi\nexit 1\n",
            count.display()
        )
    };
    let probes = || {
        std::fs::read_to_string(&count)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let bin = s.stub_on_path("claude", &script("2.1.332"));
    for _ in 0..3 {
        let d = discover_cli(claude, None, &host.env, &host.timeouts, &host.sanitizer).await;
        assert_eq!(d.version.map(|v| v.to_string()).as_deref(), Some("2.1.332"));
    }
    assert_eq!(probes(), 1, "probed once, then remembered");
    // An upgrade (new file) is probed again.
    std::fs::write(&bin, script("2.1.400")).unwrap();
    let d = discover_cli(claude, None, &host.env, &host.timeouts, &host.sanitizer).await;
    assert_eq!(d.version.map(|v| v.to_string()).as_deref(), Some("2.1.400"));
    assert_eq!(probes(), 2);
    // A failing probe is never remembered.
    std::fs::write(&bin, "#!/bin/sh\necho broken >> /dev/null\nexit 3\n").unwrap();
    for _ in 0..2 {
        let d = discover_cli(claude, None, &host.env, &host.timeouts, &host.sanitizer).await;
        assert!(d.version.is_none());
        assert!(d.version_error.is_some());
    }
}

fn assert_warns_untested(d: &cohost_discovery::discovery::Discovery) {
    assert!(
        d.warnings
            .iter()
            .any(|w| w.contains("outside the tested range")),
        "{:?}",
        d.warnings
    );
}

/// Writes an npm-style install of `version` under `root` (a scoped package
/// whose `.bin` link points into it) and returns the link.
fn npm_install(root: &std::path::Path, version: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let pkg = root.join("node_modules/@zed-industries/claude-code-acp");
    std::fs::create_dir_all(pkg.join("dist")).unwrap();
    std::fs::write(
        pkg.join("package.json"),
        format!(r#"{{"name": "@zed-industries/claude-code-acp", "version": "{version}"}}"#),
    )
    .unwrap();
    let script = pkg.join("dist/index.js");
    std::fs::write(&script, "#!/usr/bin/env node\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = root.join("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("claude-code-acp");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink("../@zed-industries/claude-code-acp/dist/index.js", &link).unwrap();
    link
}

/// An ACP wrapper has no `--version` (it would start serving): its npm
/// package says which version it is, checked against the tested range.
#[tokio::test]
async fn a_wrapper_without_a_version_flag_is_versioned_by_its_package() {
    let s = Scratch::new();
    let host = s.host();
    let acp = catalog::cli("claude-acp").unwrap();
    let pinned = acp.tested_range().unwrap().min.to_string();
    let link = npm_install(s.dir.path(), &pinned);
    let d = discover_cli(acp, Some(&link), &host.env, &host.timeouts, &host.sanitizer).await;
    assert_eq!(d.command_source, CommandSource::Explicit);
    assert_eq!(d.version.map(|v| v.to_string()), Some(pinned.clone()));
    assert_eq!(d.version_display, Some(format!("{pinned} (package.json)")));
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);

    let link = npm_install(s.dir.path(), "99.0.0");
    let d = discover_cli(acp, Some(&link), &host.env, &host.timeouts, &host.sanitizer).await;
    assert_warns_untested(&d);

    // Not from npm: a project's own package.json above it says nothing.
    let plain = s.stub(&s.dir.path().join("proj/bin"), "claude-code-acp", "exit 0");
    std::fs::write(
        s.dir.path().join("proj/package.json"),
        r#"{"version": "1.2.3"}"#,
    )
    .unwrap();
    let d = discover_cli(
        acp,
        Some(&plain),
        &host.env,
        &host.timeouts,
        &host.sanitizer,
    )
    .await;
    assert!(d.installed);
    assert_eq!(d.version, None);
    assert_eq!(d.version_display, None);
}

/// What discovery and status show passes the host's sanitizer: a value only
/// it knows (no shape, no secret name; the process-wide sanitizer lets it
/// through) is redacted in a CLI's version line, in the status that carries
/// it, and in a status message.
#[tokio::test]
async fn discovery_and_status_texts_pass_the_hosts_sanitizer() {
    const PLANTED: &str = "planted-q7Xw2Lm9Rk4Zt8Vn";
    // Part of the config file's path, which a disabled provider's message names.
    const IN_PATH: &str = "cohost/config.toml";
    for v in [PLANTED, IN_PATH] {
        assert_eq!(cohost_core::sanitize::global().sanitize(v), v);
    }
    let s = Scratch::new();
    let none: [(&str, &str); 0] = [];
    let given = cohost_core::Sanitizer::new(none, None).with_known_values([PLANTED, IN_PATH]);
    let host = s.host().with_sanitizer(Arc::new(given));
    let claude = catalog::cli("claude").unwrap();
    s.stub_on_path("claude", &claude_script(&format!("2.1.332 {PLANTED}"), 1));

    let d = discover_cli(claude, None, &host.env, &host.timeouts, &host.sanitizer).await;
    assert_eq!(
        d.version_display.as_deref(),
        Some("2.1.332 [REDACTED] (Claude Code)")
    );
    let st = provider_status(&host, &host.config().unwrap(), "claude")
        .await
        .unwrap();
    let shown = serde_json::to_string(&st).unwrap();
    assert!(shown.contains("[REDACTED]"), "{shown}");
    assert!(!shown.contains(PLANTED), "{shown}");

    s.write_config("[providers.claude]\nenabled = false\n");
    let st = provider_status(&host, &host.config().unwrap(), "claude")
        .await
        .unwrap();
    assert_eq!(st.status, StatusValue::Blocked);
    assert!(st.message.contains("[REDACTED]"), "{}", st.message);
    assert!(!st.message.contains(IN_PATH), "{}", st.message);
}
