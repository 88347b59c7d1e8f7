//! The MCP server's tool errors pass its host's sanitizer, not the
//! process's.

use super::*;
use crate::hub::{planted_host, Hub, HubLimits};

#[tokio::test]
async fn tool_errors_pass_the_hosts_sanitizer() {
    let home = tempfile::tempdir().unwrap();
    let (host, planted) = planted_host(home.path());
    let st = McpState::new(Hub::new(host, HubLimits::default(), None));
    let args = serde_json::from_value(serde_json::json!({"session_id": planted})).unwrap();
    let out = changes::session_changes(&st, args).await;
    let shown = tool_result(&st.hub().host().sanitizer, out);
    let all = serde_json::to_string(&shown).unwrap();
    assert!(all.contains("[REDACTED]"), "{all}");
    assert!(!all.contains(planted), "{all}");
}
