//! A real gateway in the loop: the `litellm` provider through a LiteLLM
//! proxy (installed by tests/agents/install-litellm.sh) in front of the fake
//! model server. Fails when `CI` is set and LiteLLM is missing; skips loudly
//! otherwise.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use crate::http_support as support;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cohost_agents::http::{providers, HttpFactory};
use cohost_core::{AdapterConfig, EndReason, EventBody, HostSession, Policy};
use cohost_fakellm::{FakeLlm, FakeLlmConfig};
use std::os::unix::process::CommandExt;
use support::*;

/// The proxy's master key (LiteLLM wants the `sk-` prefix).
const MASTER_KEY: &str = "sk-cohost-litellm-test-0123456789";

/// Where install-litellm.sh puts the launcher.
fn litellm_bin() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("COHOST_LITELLM_BIN") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let dir = std::env::var("COHOST_AGENTS_DIR")
        .map(PathBuf::from)
        .ok()
        .or_else(|| {
            std::env::var("HOME")
                .ok()
                .map(|h| PathBuf::from(h).join(".cache/cohost-agents"))
        })?;
    let p = dir.join("bin/litellm");
    p.is_file().then_some(p)
}

/// Kills the proxy's whole process group when the test ends, pass or fail.
struct Proxy(Child);

impl Drop for Proxy {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        let pgid = self.0.id() as i32;
        // SAFETY: kill(2) with a negative pid signals the group we created.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
        let _reaped = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

async fn wait_ready(port: u16, proxy: &mut Proxy, log: &std::path::Path) {
    let client = cohost_agents::http::client_builder()
        .no_proxy()
        .build()
        .unwrap();
    let t0 = Instant::now();
    loop {
        if let Ok(Some(status)) = proxy.0.try_wait() {
            panic!(
                "litellm exited early ({status}):\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        let url = format!("http://127.0.0.1:{port}/health/liveliness");
        if let Ok(r) = client.get(&url).send().await {
            if r.status().is_success() {
                return;
            }
        }
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "litellm not ready after 120 s:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn litellm_gateway_text_and_tool() {
    let Some(bin) = cohost_testbench::skip::require(litellm_bin(), || {
        "LiteLLM is not installed: run tests/agents/install-litellm.sh".into()
    }) else {
        return;
    };
    let server = FakeLlm::start(FakeLlmConfig::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let port = free_port();
    let cfg = home.path().join("litellm.yaml");
    std::fs::write(
        &cfg,
        format!(
            "model_list:\n  - model_name: fake-model\n    litellm_params:\n      model: openai/fake-model\n      api_base: {}/v1\n      api_key: fake-upstream-key\nlitellm_settings:\n  telemetry: false\n  drop_params: true\n",
            server.base_url()
        ),
    )
    .unwrap();
    let log = home.path().join("litellm.log");
    let logf = std::fs::File::create(&log).unwrap();
    let mut cmd = Command::new(&bin);
    cmd.args(["--config"])
        .arg(&cfg)
        .args(["--port", &port.to_string(), "--host", "127.0.0.1"])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        // Offline: bundled model cost map, no telemetry, no schema/DB work.
        .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .env("LITELLM_TELEMETRY", "False")
        .env("DISABLE_SCHEMA_UPDATE", "true")
        .env("LITELLM_LOG", "ERROR")
        // Recent proxies refuse to start without a master key; it is the
        // key the `litellm` provider sends as LITELLM_API_KEY.
        .env("LITELLM_MASTER_KEY", MASTER_KEY)
        .env("NO_PROXY", "127.0.0.1,localhost")
        .stdin(Stdio::null())
        .stdout(Stdio::from(logf.try_clone().unwrap()))
        .stderr(Stdio::from(logf))
        .process_group(0);
    let mut proxy = Proxy(cmd.spawn().expect("litellm starts"));
    wait_ready(port, &mut proxy, &log).await;

    let factory =
        std::sync::Arc::new(HttpFactory::new(providers::litellm()).with_options(test_options()));
    let mut config = AdapterConfig {
        cwd: home.path().to_path_buf(),
        ..AdapterConfig::default()
    };
    config
        .env
        .insert("HOME".into(), home.path().display().to_string());
    config.env.insert(
        "XDG_STATE_HOME".into(),
        home.path().join("state").display().to_string(),
    );
    config.env.insert(
        "LITELLM_BASE_URL".into(),
        format!("http://127.0.0.1:{port}"),
    );
    config
        .env
        .insert("LITELLM_API_KEY".into(), MASTER_KEY.into());

    // No model configured: the provider takes the first one the gateway lists.
    let models = factory
        .list_models(&config)
        .await
        .expect("gateway lists models");
    assert_eq!(models, vec!["fake-model".to_string()]);
    let mut s = HostSession::new(
        factory,
        config,
        std::sync::Arc::new(Policy::DenyAll),
        Default::default(),
    );
    s.start().await.expect("litellm session starts");

    let (ev, out) = prompt(&mut s, "hello through the gateway").await;
    assert_eq!(out.reason, EndReason::Completed, "{:?}", errors(&ev));
    assert_eq!(
        texts(&ev).concat(),
        "Hello from fake-llm. You said: hello through the gateway"
    );
    assert!(texts(&ev).len() >= 2, "streamed through the proxy");

    let (ev, out) = prompt(&mut s, "[[tool]] list files").await;
    assert_eq!(out.reason, EndReason::Completed, "{:?}", errors(&ev));
    let call = ev.iter().find_map(|e| match &e.body {
        EventBody::ToolCall { name, input, .. } => Some((name.clone(), input.clone())),
        _ => None,
    });
    let (name, input) = call.expect("tool call through the gateway");
    assert_eq!(name, "run_shell_command");
    assert!(input["command"].is_string());

    // The fake server saw the proxied requests (LiteLLM's own client, not ours).
    let proxied: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.route == "openai.chat")
        .collect();
    assert!(proxied.len() >= 2, "{proxied:#?}");
    assert!(proxied[0]
        .body
        .to_string()
        .contains("hello through the gateway"));
    assert_eq!(
        proxied[0].headers.get("authorization").map(String::as_str),
        Some(cohost_fakellm::REDACTED)
    );
    drop(proxy);
    server.shutdown().await;
}
