//! `cohost acp` driven by a client nobody here wrote: the official ACP
//! Python SDK (PyPI `agent-client-protocol`, pinned in scripts/test.sh)
//! running the ACP registry's checks (initialize, session/new, a streamed
//! prompt, a permission round trip denied then allowed, cancel, list, load)
//! against the mock and two real agents (Claude Code, Codex) on the fake
//! model server.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use crate::clients;

use clients::{assert_no_agent_left, bench, cohost, python_with, run_client, script};
use cohost_fakellm::tools::TOOL_FILE;
use cohost_testbench::{AgentCli, Bench};
use serde_json::{json, Value};

async fn registry_checks(b: &Bench, cfg: Value) -> Option<Value> {
    let py = python_with("acp")?;
    let cohost = cohost();
    let cfg = cfg.to_string();
    Some(
        run_client(
            b,
            &py,
            &script("acp_client.py"),
            &[cohost.to_str().unwrap(), &cfg],
        )
        .await,
    )
}

/// What every provider must pass.
fn assert_common(out: &Value) {
    assert_eq!(out["initialize"]["protocol_version"], 1, "{out}");
    assert_eq!(out["initialize"]["agent_info"], "cohost");
    let sid = out["new_session"]["session_id"].as_str().unwrap();
    assert!(sid.starts_with("s-"), "a cohost session id: {sid}");
    assert_eq!(out["new_session"]["modes"], json!(["ask", "auto", "deny"]));
    let p = &out["prompt"];
    assert_eq!(p["stop_reason"], "end_turn", "{out}");
    assert!(!p["text"].as_str().unwrap().is_empty(), "{out}");
    assert!(p["chunks"].as_u64().unwrap() >= 1);
    assert_eq!(p["all_for_session"], true);
    assert!(
        out["list"].as_array().unwrap().iter().any(|s| s == sid),
        "session/list shows it: {out}"
    );
    assert_eq!(out["load"]["stop_reason"], "end_turn", "{out}");
    assert!(!out["load"]["text"].as_str().unwrap().is_empty());
}

/// The permission round trip: cohost's option ids, deny then allow.
fn assert_permissions(out: &Value, file_checked: bool) {
    for (kind, allowed) in [("reject_once", false), ("allow_once", true)] {
        let r = &out[kind];
        assert_eq!(r["stop_reason"], "end_turn", "{kind}: {out}");
        let perms = r["permissions"].as_array().unwrap();
        assert_eq!(perms.len(), 1, "one permission request ({kind}): {out}");
        let ids: Vec<&str> = perms[0]["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap())
            .collect();
        assert!(
            ids.contains(&"allow_once") && ids.contains(&"reject_once"),
            "{ids:?}"
        );
        let last = r["tool_statuses"].as_array().unwrap().last().cloned();
        let want = if allowed { "completed" } else { "failed" };
        assert_eq!(last, Some(json!(want)), "{kind}: {out}");
        if file_checked {
            assert_eq!(
                r["file_exists"], allowed,
                "{kind}: the file exists only when allowed"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_is_one_acp_session_whose_agent_option_picks_the_member() {
    let b = Bench::start(AgentCli::Claude).await.expect("bench");
    let Some(py) = python_with("acp") else {
        return;
    };
    let cohost = cohost();
    let cwd = b.cwd().to_string_lossy().into_owned();
    let out = run_client(
        &b,
        &py,
        &script("acp_room_client.py"),
        &[cohost.to_str().unwrap(), &cwd, "mock", "mock"],
    )
    .await;
    assert_eq!(
        out["options"],
        json!([{"id": "agent", "current": "mock", "values": ["mock", "mock#2"]}]),
        "{out}"
    );
    assert_eq!(out["first"]["text"], "first", "{out}");
    assert_eq!(out["after_switch"], json!(["mock#2"]));
    assert_eq!(out["second"]["text"], "second", "{out}");
    assert!(
        out["unknown"].as_str().unwrap().contains("no member"),
        "{out}"
    );
    // Each member answered one prompt: the switch reached the second.
    let stored =
        std::fs::read_to_string(b.layout().xdg_state.join("cohost/sessions.json")).unwrap();
    let v: Value = serde_json::from_str(&stored).unwrap();
    let list = v.get("sessions").cloned().unwrap_or(v);
    let members: Vec<(String, u64)> = list
        .as_array()
        .cloned()
        .unwrap_or_else(|| list.as_object().unwrap().values().cloned().collect())
        .iter()
        .filter_map(|r| {
            Some((
                r["room"]["member"].as_str()?.to_string(),
                r["watermark"].as_u64().unwrap_or(0),
            ))
        })
        .collect();
    let mut members = members;
    members.sort();
    assert_eq!(
        members,
        [("mock".to_string(), 1), ("mock#2".to_string(), 1)],
        "{stored}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mock_passes_the_registry_checks() {
    let b = Bench::start(AgentCli::Claude).await.expect("bench");
    // The mock's models are its scenarios: `echo` reasons, `text` does not.
    let dir = b.layout().xdg_config.join("cohost");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "[providers.mock]\nmodels = [\"echo\", \"text\"]\n",
    )
    .unwrap();
    let cfg = json!({"agent": "mock", "cwd": b.cwd(), "text": "hello", "model": "text",
                     "error": "[mock:error:AUTH_REQUIRED] fail",
                     "tool": "[mock:tool] write it", "slow": "[mock:slow] count"});
    let Some(out) = registry_checks(&b, cfg).await else {
        return;
    };
    eprintln!("seconds per step: {}", out["seconds"]);
    assert_common(&out);
    assert_eq!(out["initialize"]["load_session"], true, "the mock resumes");
    assert!(out["prompt"]["kinds"]
        .as_array()
        .unwrap()
        .contains(&json!("agent_thought_chunk")));
    assert_permissions(&out, false);
    assert_eq!(out["cancel"]["stop_reason"], "cancelled", "{out}");
    assert!(
        out["cancel"]["chunks"].as_u64().unwrap() < 50,
        "stopped early"
    );
}

async fn real_agent(cli: AgentCli, agent: &str) {
    let Some(b) = bench(cli).await else { return };
    if let Some(key) = b.env().get("FAKE_API_KEY") {
        // Codex reads its key from the variable its config names; cohost
        // hands a child only its vendor's variables plus the provider's
        // `env` from cohost's config, which is where a user puts this.
        let dir = b.layout().xdg_config.join("cohost");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("config.toml"),
            format!("[providers.{agent}.env]\nFAKE_API_KEY = \"{key}\"\n"),
        )
        .unwrap();
    }
    let cfg = json!({"agent": agent, "cwd": b.cwd(), "text": "say hello [[scenario:text]]",
                     "tool": "run it [[scenario:tool]]", "file": TOOL_FILE,
                     "slow": "count slowly [[scenario:slow]]", "again": "and again [[scenario:text]]"});
    let Some(out) = registry_checks(&b, cfg).await else {
        return;
    };
    eprintln!("seconds per step: {}", out["seconds"]);
    assert_common(&out);
    assert_eq!(
        out["initialize"]["load_session"], true,
        "{agent} resumes natively"
    );
    assert_permissions(&out, true);
    assert_eq!(out["cancel"]["stop_reason"], "cancelled", "{out}");
    assert_no_agent_left(&b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_passes_the_registry_checks() {
    real_agent(AgentCli::Claude, "claude").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_passes_the_registry_checks() {
    real_agent(AgentCli::Codex, "codex").await;
}
