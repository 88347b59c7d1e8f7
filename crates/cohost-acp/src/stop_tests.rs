//! Stopping an agent whose leader dies at once on SIGTERM while a child
//! still saves the session (claude-code-acp's shape): the save must land.

use super::*;

/// A stand-in ACP agent: answers `initialize` and `session/new`, ignores
/// stdin EOF, dies at once on SIGTERM; its child needs 300 ms after SIGTERM
/// to write `$COHOST_STOP_OUT` (the session file).
const AGENT: &str = r#"
( trap 'sleep 0.3; echo saved > "$COHOST_STOP_OUT"; exit 0' TERM
  while :; do sleep 0.05; done ) &
read -r _
echo '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}'
read -r _
echo '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}'
while read -r _; do :; done
while :; do sleep 0.05; done
"#;

#[tokio::test]
async fn stop_lets_a_child_finish_saving_after_the_leader_died() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("agent.sh");
    std::fs::write(&script, AGENT).unwrap();
    let out = dir.path().join("session.saved");
    let spec = AcpSpec {
        id: "stop-test".into(),
        label: "stop test".into(),
        binaries: vec!["sh".into()],
        args: vec![script.display().to_string()],
        model_args: Vec::new(),
        model_env: None,
        env_prefixes: Vec::new(),
        env: Vec::new(),
        root_env: Vec::new(),
        ask_env: Vec::new(),
        approval_modes: None,
        restart_after_cancel: false,
        required_env: Vec::new(),
        resume: cohost_core::ResumeSupport::NativeId,
        reasoning: false,
        usage: false,
        tier: cohost_core::SupportTier::Structured,
        install_hint: "none".into(),
        text_errors: cohost_process::provider::acp::TextErrors::None,
    };
    let mut config = AdapterConfig {
        cwd: dir.path().to_path_buf(),
        ..AdapterConfig::default()
    };
    config
        .env
        .insert("COHOST_STOP_OUT".into(), out.display().to_string());
    let mut adapter = AcpAdapter::new(spec, cohost_process::provider::Catalog::EMPTY);
    let info = adapter.initialize(&config).await.unwrap();
    assert_eq!(info.session_id.as_deref(), Some("s1"));
    // Let the child install its trap.
    tokio::time::sleep(Duration::from_millis(200)).await;
    adapter.terminate().await.unwrap();
    assert_eq!(
        std::fs::read_to_string(&out).unwrap_or_default(),
        "saved\n",
        "the child was killed before it saved"
    );
}
