//! `cohost room-bridge` as an agent in a room starts it, driven by the
//! official MCP Python SDK: its tools forward over the member's private
//! socket to a room of mock agents in this process, `ask_member` returns
//! the other member's answer, and the room's rules refuse what they must.

use std::sync::Arc;

use cohost_agents::mock::{MockFactory, MockOptions};
use cohost_core::bridge::BridgeRules;
use cohost_core::{
    AdapterConfig, AdapterFactory, AgentAdapter, HostSession, Policy, ProviderDescriptor,
    SessionOptions,
};
use cohost_host::session::{BridgeSockets, OpenSession, BRIDGE_SOCKET_VAR};
use cohost_session::{BridgeNote, Member, Room, RoomBridge};
use serde_json::Value;

use crate::clients::{cohost, python_with, script};

/// The mock, as an agent that asks cohost before it runs an MCP tool (as
/// Claude Code does): its bridge calls come approved, so this test of the
/// MCP plumbing needs no turn to approve them in.
struct Asks(MockFactory);

impl AdapterFactory for Asks {
    fn descriptor(&self) -> ProviderDescriptor {
        let mut d = self.0.descriptor();
        d.capabilities.mcp_servers = true;
        d.capabilities.mcp_approvals = true;
        d
    }

    fn create(&self) -> Box<dyn AgentAdapter> {
        self.0.create()
    }
}

async fn mock(name: &str) -> Member {
    let factory = Arc::new(Asks(MockFactory::new(MockOptions::default())));
    let mut session = HostSession::new(
        factory,
        AdapterConfig::default(),
        Arc::new(Policy::AllowAll),
        SessionOptions::default(),
    );
    session.start().await.unwrap();
    Member {
        name: name.into(),
        session: OpenSession::from(session).into_running(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_mcp_client_asks_another_member_through_the_bridge() {
    let Some(py) = python_with("mcp") else {
        return;
    };
    let room = Room::new(vec![mock("alpha").await, mock("beta").await]).unwrap();
    let (tx, mut notes) = tokio::sync::mpsc::unbounded_channel();
    let bridge = RoomBridge::new(BridgeRules::default(), tx);
    let sockets = BridgeSockets::new(cohost(), bridge.clone()).unwrap();
    let spec = sockets.listen("alpha").unwrap();
    bridge.set_room(room.clone());
    assert_eq!(spec.command, cohost());
    let scratch = tempfile::tempdir().unwrap();
    let out = tokio::process::Command::new(py)
        .arg(script("bridge_client.py"))
        .args([
            cohost().to_str().unwrap(),
            "beta",
            "[mock:say] the sky is teal",
        ])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", scratch.path())
        .env(BRIDGE_SOCKET_VAR, &spec.env[BRIDGE_SOCKET_VAR])
        .current_dir(scratch.path())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(60), out)
        .await
        .expect("the client finished")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(
        v["tools"],
        serde_json::json!(["ask_member", "list_members", "post_to_room"])
    );
    let members = v["members"]["members"].as_array().unwrap();
    assert_eq!(members.len(), 2);
    assert_eq!(
        (members[0]["name"].as_str(), members[0]["you"].as_bool()),
        (Some("alpha"), Some(true))
    );
    assert_eq!(v["asked"]["is_error"], false, "{v}");
    assert_eq!(v["asked"]["result"]["member"], "beta");
    assert_eq!(v["asked"]["result"]["answer"], "the sky is teal");
    // Asking itself is refused with cohost's error and a fix.
    assert_eq!(v["itself"]["is_error"], true, "{v}");
    assert!(v["itself"]["result"]["message"]
        .as_str()
        .unwrap()
        .contains("cannot ask itself"));
    assert_eq!(v["bad"]["is_error"], true, "{v}");
    assert!(v["bad"]["result"]["message"]
        .as_str()
        .unwrap()
        .contains("bad arguments"));
    assert_eq!(v["posted"]["posted"], true);
    // The room heard every call.
    let mut seen = Vec::new();
    while let Ok(n) = notes.try_recv() {
        seen.push(n);
    }
    assert!(
        seen.iter().any(
            |n| matches!(n, BridgeNote::Asked { from, to, .. } if from == "alpha" && to == "beta")
        ),
        "{seen:?}"
    );
    assert!(seen.contains(&BridgeNote::Posted {
        from: "alpha".into(),
        text: "halfway there".into()
    }));
    room.terminate().await.unwrap();
}
