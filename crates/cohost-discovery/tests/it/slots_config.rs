//! Capability slots and config.toml editing.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use cohost_core::{CohostError, ErrorCode, Registry};
use cohost_discovery::slots::{self, SlotMode, SlotSpec};
use cohost_discovery::HostConfig;
use common::Scratch;

fn spec(provider: &str, mode: SlotMode, model: Option<&str>) -> SlotSpec {
    SlotSpec {
        provider: provider.into(),
        mode,
        model: model.map(String::from),
    }
}

const USER_CONFIG: &str = r#"# my cohost settings
active_provider = "claude"   # keep this comment

[providers.my-proxy]
kind = "api"
base_url = "http://127.0.0.1:4000/v1"
key_env = "MY_PROXY_KEY"
models = ["small", "large"]
"#;

#[test]
fn set_get_list_unset_preserve_user_formatting() {
    let s = Scratch::new();
    let host = s.host();
    let path = s.write_config(USER_CONFIG);
    let mut cfg = host.config().unwrap();

    // Defaults when unset: claude + cli (seed 001).
    let v = slots::get_slot(&host, &cfg, "summary").unwrap();
    assert!(!v.configured);
    assert_eq!(v.spec, spec("claude", SlotMode::Cli, None));

    slots::set_slot(
        &host,
        &mut cfg,
        "summary",
        &spec("claude", SlotMode::Api, Some("haiku")),
    )
    .unwrap();
    slots::set_slot(
        &host,
        &mut cfg,
        "my-notes",
        &spec("my-proxy", SlotMode::Api, Some("small")),
    )
    .unwrap();
    cfg.set("providers.claude.binary", "/opt/claude/bin/claude")
        .unwrap();
    cfg.set("providers.claude.enabled", "false").unwrap();
    cfg.save().unwrap();

    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with(USER_CONFIG),
        "user text and comments kept:\n{text}"
    );
    let cfg = HostConfig::load(&path).unwrap();
    assert_eq!(
        cfg.get("providers.claude.enabled").as_deref(),
        Some("false")
    );
    assert!(!cfg.provider("claude").enabled);
    assert_eq!(cfg.get("slots.summary.model").as_deref(), Some("haiku"));
    let names: Vec<String> = slots::list_slots(&host, &cfg)
        .unwrap()
        .into_iter()
        .map(|v| v.name)
        .collect();
    assert_eq!(
        names,
        ["terminal", "summary", "analysis", "assistant", "my-notes"]
    );
    let keys: Vec<String> = cfg.list().into_iter().map(|(k, _)| k).collect();
    assert!(
        keys.contains(&"providers.my-proxy.models".to_string()),
        "{keys:?}"
    );
    assert!(
        keys.contains(&"slots.my-notes.provider".to_string()),
        "{keys:?}"
    );

    // Resolution: api mode maps claude to its HTTP provider.
    let r = slots::resolve_slot(&host, &cfg, "summary").unwrap();
    assert_eq!(
        (r.provider_id.as_str(), r.mode),
        ("anthropic", SlotMode::Api)
    );
    assert_eq!(r.config.model.as_deref(), Some("haiku"));
    assert_eq!(r.config.binary, None, "api mode runs no binary");
    // A user-defined provider speaks the OpenAI protocol at its base URL.
    let r = slots::resolve_slot(&host, &cfg, "my-notes").unwrap();
    assert_eq!(r.provider_id, "openai");
    assert_eq!(
        r.config.env.get("OPENAI_BASE_URL").map(String::as_str),
        Some("http://127.0.0.1:4000/v1")
    );
    // cli mode carries the explicit binary.
    let mut cfg2 = cfg.clone();
    slots::set_slot(
        &host,
        &mut cfg2,
        "terminal",
        &spec("claude", SlotMode::Cli, None),
    )
    .unwrap();
    let r = slots::resolve_slot(&host, &cfg2, "terminal").unwrap();
    assert_eq!(
        r.config.binary.as_deref(),
        Some(std::path::Path::new("/opt/claude/bin/claude"))
    );

    // Unset restores the user's file exactly.
    let mut cfg = cfg;
    assert!(slots::unset_slot(&mut cfg, "summary"));
    assert!(slots::unset_slot(&mut cfg, "my-notes"));
    assert!(cfg.unset("providers.claude.binary"));
    assert!(cfg.unset("providers.claude.enabled"));
    assert!(cfg.unset("providers.claude"));
    assert!(cfg.unset("slots"));
    assert!(!cfg.unset("slots"));
    assert_eq!(cfg.to_text(), USER_CONFIG);
}

#[test]
fn seed_001_validation() {
    let s = Scratch::new();
    let mut reg = Registry::new();
    reg.register(std::sync::Arc::new(
        cohost_agents::mock::MockFactory::default(),
    ))
    .unwrap();
    let host = s.host_with(reg, |_| {});
    s.write_config(USER_CONFIG);
    let mut cfg = host.config().unwrap();
    let err = |name: &str, sp: SlotSpec, cfg: &mut HostConfig| {
        CohostError::from(slots::set_slot(&host, cfg, name, &sp).unwrap_err())
    };

    assert_eq!(
        err("terminal", spec("claude", SlotMode::Api, None), &mut cfg).code,
        ErrorCode::UnsupportedMode
    );
    assert_eq!(
        err("summary", spec("aider", SlotMode::Api, None), &mut cfg).code,
        ErrorCode::UnsupportedMode
    );
    assert_eq!(
        err("summary", spec("ollama", SlotMode::Cli, None), &mut cfg).code,
        ErrorCode::UnsupportedMode
    );
    let e = err(
        "summary",
        spec("my-proxy", SlotMode::Api, Some("huge")),
        &mut cfg,
    );
    assert_eq!(e.code, ErrorCode::ModelNotAvailable);
    assert!(e.suggested_fix.unwrap().contains("small, large"));
    assert_eq!(
        err("summary", spec("nope", SlotMode::Cli, None), &mut cfg).code,
        ErrorCode::ProviderNotFound
    );
    // assistant needs token streaming: codex exec has none, claude has.
    assert_eq!(
        err("assistant", spec("codex", SlotMode::Cli, None), &mut cfg).code,
        ErrorCode::UnsupportedMode
    );
    slots::set_slot(
        &host,
        &mut cfg,
        "assistant",
        &spec("claude", SlotMode::Cli, None),
    )
    .unwrap();
    slots::set_slot(
        &host,
        &mut cfg,
        "assistant",
        &spec("mock", SlotMode::Cli, None),
    )
    .unwrap();
    assert_eq!(
        err("Bad Name", spec("claude", SlotMode::Cli, None), &mut cfg).code,
        ErrorCode::ConfigInvalid
    );
}

#[test]
fn bad_config_names_file_line_and_fix() {
    let s = Scratch::new();
    let host = s.host();
    let path = s.write_config("a = 1\n\n[slots.summary]\nprovider = \"nope\"\nmode = \"cli\"\n");
    let cfg = host.config().unwrap();
    let e = CohostError::from(slots::validate_config(&host, &cfg).unwrap_err());
    assert_eq!(e.code, ErrorCode::ConfigInvalid);
    assert!(
        e.message.contains(&format!("{}:4", path.display())) || e.message.contains("config.toml:4"),
        "{}",
        e.message
    );
    assert!(e.message.contains("nope"));
    assert!(
        e.suggested_fix.unwrap().contains("claude"),
        "fix lists known providers"
    );

    s.write_config("[slots.summary]\nprovider = \"claude\"\nmode = \"telepathy\"\n");
    let e = CohostError::from(slots::validate_config(&host, &host.config().unwrap()).unwrap_err());
    assert!(e.message.contains("config.toml:3"), "{}", e.message);

    s.write_config("ok = 1\n[slots\nprovider = \n");
    let e = CohostError::from(host.config().unwrap_err());
    assert_eq!(e.code, ErrorCode::ConfigInvalid);
    assert!(e.message.contains("config.toml:2"), "{}", e.message);
    assert!(e.suggested_fix.unwrap().contains("config.toml"));
}
