//! Hook install/uninstall on scratch settings files: idempotent, the user's
//! bytes preserved, malformed files reported and left alone; hook-event
//! forwarding never blocks.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use cohost_core::{CohostError, ErrorCode};
use cohost_discovery::hooks::{self, HookAgent, HookEventOutcome};
use common::Scratch;
use std::time::{Duration, Instant};

const BIN: &str = "/opt/cohost/bin/cohost";

const CLAUDE_SETTINGS: &str = r#"{
    "model":   "opus",
    "permissions": { "allow": ["Bash(ls:*)"] },
    "hooks": {
        "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "my-guard" } ] } ]
    },
    "zeta": 1
}
"#;

const GEMINI_SETTINGS: &str = "// my gemini settings\n{\n  \"theme\": \"GitHub\", // dark is too dark\n  \"general\": {\"vimMode\": true}\n}\n";

const CODEX_CONFIG: &str =
    "# codex config\nmodel = \"o3\"   # fast\n\n[projects.\"/repo\"]\ntrust_level = \"trusted\"\n";

fn agent(id: &str) -> HookAgent {
    HookAgent::parse(id).unwrap()
}

fn roundtrip(agent: HookAgent, original: &str) {
    let s = Scratch::new();
    let host = s.host();
    let path = agent.settings_path(&host);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, original).unwrap();

    let st = hooks::install(&host, agent, BIN).unwrap();
    assert!(st.installed && st.has_backup, "{st:?}");
    let after = std::fs::read_to_string(&path).unwrap();
    assert_ne!(after, original);
    assert!(after.contains("hook-event"), "{after}");
    // Idempotent: a second install changes nothing.
    let st = hooks::install(&host, agent, BIN).unwrap();
    assert_eq!(st.action, "already installed");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), after);
    assert!(hooks::status(&host, agent, BIN).unwrap().installed);

    let st = hooks::uninstall(&host, agent, BIN).unwrap();
    assert!(!st.installed && !st.has_backup, "{st:?}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        original,
        "byte-identical after uninstall"
    );
}

#[test]
fn claude_install_uninstall_is_byte_identical() {
    roundtrip(agent("claude"), CLAUDE_SETTINGS);
}

#[test]
fn gemini_install_uninstall_keeps_comments() {
    roundtrip(agent("gemini"), GEMINI_SETTINGS);
}

#[test]
fn codex_install_uninstall_keeps_toml_formatting() {
    roundtrip(agent("codex"), CODEX_CONFIG);
}

#[test]
fn installed_entries_have_the_agents_shape() {
    let s = Scratch::new();
    let host = s.host();
    let path = agent("claude").settings_path(&host);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, CLAUDE_SETTINGS).unwrap();
    hooks::install(&host, agent("claude"), BIN).unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["model"], "opus");
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "my-guard"
    );
    for ev in ["PostToolUse", "Stop"] {
        assert_eq!(v["hooks"][ev][0]["matcher"], "*");
        assert_eq!(v["hooks"][ev][0]["hooks"][0]["type"], "command");
        assert_eq!(
            v["hooks"][ev][0]["hooks"][0]["command"],
            format!("{BIN} hook-event claude")
        );
    }
    // Codex: a top-level notify, before any table.
    let cpath = agent("codex").settings_path(&host);
    std::fs::create_dir_all(cpath.parent().unwrap()).unwrap();
    std::fs::write(&cpath, CODEX_CONFIG).unwrap();
    hooks::install(&host, agent("codex"), BIN).unwrap();
    let text = std::fs::read_to_string(&cpath).unwrap();
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    let argv: Vec<&str> = doc["notify"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(argv, [BIN, "hook-event", "codex"]);
    assert!(
        text.find("notify").unwrap() < text.find("[projects").unwrap(),
        "{text}"
    );
}

#[test]
fn user_edits_after_install_survive_uninstall() {
    let s = Scratch::new();
    let host = s.host();
    let path = agent("claude").settings_path(&host);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, CLAUDE_SETTINGS).unwrap();
    hooks::install(&host, agent("claude"), BIN).unwrap();
    // The user changes the file while the hook is installed.
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"opus\"", "\"sonnet\"");
    std::fs::write(&path, &edited).unwrap();
    let st = hooks::uninstall(&host, agent("claude"), BIN).unwrap();
    assert_eq!(st.action, "removed cohost's entries");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("hook-event"), "{text}");
    assert_eq!(
        text,
        CLAUDE_SETTINGS.replace("\"opus\"", "\"sonnet\""),
        "only cohost's entries removed"
    );
}

#[test]
fn missing_settings_file_is_created_then_removed() {
    let s = Scratch::new();
    let host = s.host();
    let path = agent("gemini").settings_path(&host);
    assert!(!path.exists());
    hooks::install(&host, agent("gemini"), BIN).unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        v["hooks"]["AfterTool"][0]["hooks"][0]["command"],
        format!("{BIN} hook-event gemini")
    );
    hooks::uninstall(&host, agent("gemini"), BIN).unwrap();
    assert!(!path.exists());
}

#[test]
fn malformed_settings_are_reported_not_overwritten() {
    let s = Scratch::new();
    let host = s.host();
    let path = agent("claude").settings_path(&host);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    for bad in ["{ \"model\": ", "[1, 2]", "{\"hooks\": 3}"] {
        std::fs::write(&path, bad).unwrap();
        let e = CohostError::from(hooks::install(&host, agent("claude"), BIN).unwrap_err());
        assert_eq!(e.code, ErrorCode::ConfigInvalid);
        assert!(e.message.contains("settings.json"), "{}", e.message);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            bad,
            "left unchanged"
        );
        // Status reports unparseable files too; odd shapes are "not installed".
        let st = hooks::status(&host, agent("claude"), BIN);
        assert!(if bad.starts_with("{ \"model") {
            st.is_err()
        } else {
            !st.unwrap().installed
        });
    }
    let cpath = agent("codex").settings_path(&host);
    std::fs::create_dir_all(cpath.parent().unwrap()).unwrap();
    std::fs::write(&cpath, "model = \n").unwrap();
    let e = CohostError::from(hooks::install(&host, agent("codex"), BIN).unwrap_err());
    assert!(
        e.message.contains("config.toml") && e.message.contains("TOML"),
        "{}",
        e.message
    );
    // Someone else's notifier is not replaced.
    let theirs = "notify = [\"notify-send\", \"codex\"]\n";
    std::fs::write(&cpath, theirs).unwrap();
    let e = CohostError::from(hooks::install(&host, agent("codex"), BIN).unwrap_err());
    assert!(e.message.contains("notify-send"), "{}", e.message);
    assert_eq!(std::fs::read_to_string(&cpath).unwrap(), theirs);
}

#[tokio::test]
async fn hook_event_forwards_or_exits_fast() {
    let s = Scratch::new();
    let host = s.host();
    let socket = host.paths.hook_socket();

    // Nobody listening: immediate, no stdin read.
    let t0 = Instant::now();
    let out = hooks::hook_event(&socket, "claude", None, tokio::io::empty()).await;
    assert_eq!(out, HookEventOutcome::NoListener);
    assert!(t0.elapsed() < Duration::from_millis(200));

    let (mut rx, _) = hooks::listen_hook_events(&socket).unwrap();
    let payload = br#"{"session_id":"abc","hook_event_name":"PostToolUse","tool_name":"Bash"}"#;
    let out = hooks::hook_event(&socket, "claude", None, &payload[..]).await;
    assert_eq!(out, HookEventOutcome::Forwarded);
    let ev = tokio::time::timeout(Duration::from_secs(2), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ev.agent, "claude");
    assert_eq!(ev.payload["session_id"], "abc");

    // Codex passes its JSON as an argument.
    let out = hooks::hook_event(
        &socket,
        "codex",
        Some(r#"{"type":"agent-turn-complete"}"#),
        tokio::io::empty(),
    )
    .await;
    assert_eq!(out, HookEventOutcome::Forwarded);
    assert_eq!(
        rx.recv().await.unwrap().payload["type"],
        "agent-turn-complete"
    );

    // A stdin that never ends cannot hold the agent past the hard timeout.
    let (_keep_open, never) = tokio::io::duplex(64);
    let t0 = Instant::now();
    let out = hooks::hook_event(&socket, "gemini", None, never).await;
    assert!(matches!(out, HookEventOutcome::Dropped(_)), "{out:?}");
    assert!(
        t0.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t0.elapsed()
    );
}
