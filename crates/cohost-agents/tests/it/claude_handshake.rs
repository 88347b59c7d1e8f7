//! The deferred start-up handshake (`AdapterConfig::defer_handshake`, what
//! `cohost run` asks for): the first prompt goes out before Claude has
//! answered `initialize`, so Claude's boot overlaps cohost's own start-up.
//!
//! A scripted CLI proves the order: it answers `initialize` only after it
//! has read the user message (a driver that waited for the answer first
//! would never get one), then replays the stdout of the real Claude 2.1.332
//! golden transcript `text.jsonl` (which was itself captured with both
//! lines written up front).

use cohost_agents::drivers::claude::StreamJsonFactory;
use cohost_core::approval::Policy;
use cohost_core::{
    AdapterConfig, ApprovalMode, EndReason, ErrorCode, HostSession, PromptInput, SessionOptions,
};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/claude/2.1.332/text.jsonl"
);

/// A `claude` that reads two lines, then runs `then` (sh); `--version` and
/// `--help` answer like the real one's, with the flags the driver checks.
fn scripted_claude(dir: &Path, then: &str) -> PathBuf {
    let help = cohost_agents::drivers::claude::CLAUDE
        .required_help
        .join("\n");
    let script = format!(
        "#!/bin/sh\n\
         case \"$1\" in\n\
           --version) echo '2.1.332 (Claude Code)'; exit 0 ;;\n\
           --help) printf '%s\\n' '{help}'; exit 0 ;;\n\
         esac\n\
         read -r init\n\
         read -r user\n\
         printf '%s\\n' \"$init\" \"$user\" > '{dir}/stdin.log'\n\
         id=$(printf '%s' \"$init\" | sed 's/.*\"request_id\":\"\\([^\"]*\\)\".*/\\1/')\n\
         {then}\n",
        dir = dir.display()
    );
    let path = dir.join("claude");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn config(dir: &Path, binary: PathBuf) -> AdapterConfig {
    AdapterConfig {
        cwd: dir.to_path_buf(),
        binary: Some(binary),
        approval: ApprovalMode::Ask,
        defer_handshake: true,
        ..Default::default()
    }
}

fn session(config: AdapterConfig) -> HostSession {
    HostSession::new(
        Arc::new(StreamJsonFactory::claude()),
        config,
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_prompt_goes_out_before_the_handshake_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    // The golden transcript's stdout (its `>>` lines are what the host
    // wrote), with the request id the driver used; then stay up until stdin
    // closes, like the real CLI.
    let out = dir.path().join("stdout.jsonl");
    let transcript = std::fs::read_to_string(FIXTURE).unwrap();
    let lines: Vec<&str> = transcript
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with(">>"))
        .collect();
    std::fs::write(&out, lines.join("\n") + "\n").unwrap();
    let binary = scripted_claude(
        dir.path(),
        &format!(
            "sed \"s/\\\"req_1\\\"/\\\"$id\\\"/\" '{}'\ncat > /dev/null",
            out.display()
        ),
    );
    let mut s = session(config(dir.path(), binary));
    let turn = async {
        s.start()
            .await
            .expect("starts without waiting for the handshake");
        let mut events = Vec::new();
        let outcome = s
            .prompt(PromptInput::text("hello there"), &mut |e| events.push(e))
            .await;
        (events, outcome)
    };
    let (events, outcome) = tokio::time::timeout(Duration::from_secs(20), turn)
        .await
        .expect("a driver that waits for the handshake before prompting hangs here");
    assert_eq!(outcome.reason, EndReason::Completed, "{:?}", outcome.error);
    let text: String = events
        .iter()
        .filter_map(|e| match &e.body {
            cohost_core::EventBody::StreamChunk { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "Hello from fake-llm. You said: hello there");
    let stdin = std::fs::read_to_string(dir.path().join("stdin.log")).unwrap();
    let order: Vec<&str> = stdin.lines().collect();
    assert!(order[0].contains("\"initialize\""), "{stdin}");
    assert!(order[1].contains("\"type\":\"user\""), "{stdin}");
    s.terminate().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cli_that_dies_before_answering_fails_the_first_prompt_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let binary = scripted_claude(dir.path(), "echo 'boot failed: no config' >&2\nexit 3");
    let mut s = session(config(dir.path(), binary));
    s.start()
        .await
        .expect("the handshake is not awaited at start");
    let outcome = tokio::time::timeout(
        Duration::from_secs(20),
        s.prompt(PromptInput::text("hello"), &mut |_| {}),
    )
    .await
    .expect("the failed handshake ends the prompt");
    assert_eq!(outcome.reason, EndReason::Error);
    let err = outcome.error.expect("an error");
    assert_eq!(err.code, ErrorCode::SpawnFailed, "{err:?}");
    assert!(
        err.message.contains("before answering `initialize`")
            && err.message.contains("boot failed: no config"),
        "{err:?}"
    );
    assert!(err.suggested_fix.is_some(), "{err:?}");
    s.terminate().await.unwrap();
}
