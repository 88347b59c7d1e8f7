//! The agy engine end to end on a stand-in `agy` (agy itself is in no
//! registry): a small sh script, written to a temp dir, that speaks the
//! documented session format (one `{"event":"user",…}` line per turn on
//! stdin; `init` once per process with the conversation it serves, which
//! is the `--conversation` it was given or a new one; `step_update`s with
//! usage; `result`) and logs every spawn and every stdin line.
//!
//! Shown: one process serves two turns; the conversation `init` bound is
//! what a restarted process is given; usage arrives while the turn runs; an
//! interrupt ends the turn `interrupted`, stops the process (nothing of it
//! is left) and the next turn resumes the conversation in a new one; a
//! process that dies is replaced the same way; nothing outlives the session.

use cohost_agents::drivers::AgyFactory;
use cohost_agents::process::procfs;
use cohost_core::{
    AdapterConfig, AdapterFactory, AgentAdapter, AgentEvent, AgentEventStream, ApprovalMode,
    EndReason, HostSession, InterruptStage, Policy, PromptRequest, SessionOptions,
};
use futures::StreamExt;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::support::scratch::{assert_no_agent_left, MARKER};
use crate::support::steps::interrupt_then_next_prompt;

const LIMIT: Duration = Duration::from_secs(20);

/// The stand-in. Prompts starting with `hang` (or holding `slow`) stream
/// text every 50 ms and never finish; `wait` reports usage and waits for the
/// file `go`; `die` exits mid-turn; anything else is echoed back.
fn fake_agy(dir: &Path) -> PathBuf {
    let script = r#"#!/bin/sh
log='DIR/agy.log'
echo "spawn $$ $*" >> "$log"
conv="conv-$$"
prev=""
for a in "$@"; do
  [ "$prev" = "--conversation" ] && conv="$a"
  prev="$a"
done
first=1
step=0
step_update() {
  step=$((step + 1))
  printf '{"event":"step_update","step_update":{"conversation_id":"%s","step_index":%d,%s}}\n' "$conv" "$step" "$1"
}
while IFS= read -r line; do
  echo "stdin $$ $line" >> "$log"
  prompt=$(printf '%s' "$line" | sed -n 's/.*"content":"\([^"]*\)".*/\1/p')
  if [ "$first" = 1 ]; then
    printf '{"event":"init","init":{"conversation_id":"%s","model":"fake-model"}}\n' "$conv"
    first=0
  fi
  step_update "\"state\":\"DONE\",\"step_type\":\"user_input\",\"text_delta\":\"$prompt\""
  case "$prompt" in
    hang*|*slow*)
      step_update '"state":"ACTIVE","step_type":"agent_response","text_delta":"working"'
      while :; do
        sleep 0.05
        step_update '"state":"ACTIVE","step_type":"agent_response","text_delta":" and working"'
      done ;;
    wait*)
      step_update '"state":"ACTIVE","step_type":"agent_response","text_delta":"half","usage":{"input_tokens":7,"output_tokens":1}'
      while [ ! -e 'DIR/go' ]; do sleep 0.02; done ;;
    die*)
      exit 3 ;;
  esac
  step_update "\"state\":\"ACTIVE\",\"step_type\":\"agent_response\",\"text_delta\":\"echo: $prompt\",\"usage\":{\"input_tokens\":10,\"output_tokens\":2}"
  printf '{"event":"result","result":{"conversation_id":"%s","status":"SUCCESS","usage":{"input_tokens":10,"output_tokens":3}}}\n' "$conv"
done
"#
    .replace("DIR", &dir.display().to_string());
    let bin = dir.join("agy");
    std::fs::write(&bin, script).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// One test's scratch world: the stand-in, a workspace, a HOME, a marker.
struct World {
    dir: tempfile::TempDir,
    marker: String,
    config: AdapterConfig,
}

impl World {
    fn new() -> World {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let dir = tempfile::tempdir().unwrap();
        let (home, ws) = (dir.path().join("home"), dir.path().join("ws"));
        for d in [&home, &ws] {
            std::fs::create_dir_all(d).unwrap();
        }
        let marker = format!(
            "agy-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::SeqCst)
        );
        let mut config = AdapterConfig {
            cwd: ws,
            binary: Some(fake_agy(dir.path())),
            approval: ApprovalMode::Ask,
            ..AdapterConfig::default()
        };
        config.env.insert("HOME".into(), home.display().to_string());
        config.env.insert(MARKER.into(), marker.clone());
        World {
            dir,
            marker,
            config,
        }
    }

    fn log(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("agy.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Every spawn: its pid and arguments.
    fn spawns(&self) -> Vec<(u32, Vec<String>)> {
        self.log()
            .iter()
            .filter_map(|l| l.strip_prefix("spawn "))
            .map(|l| {
                let mut words = l.split(' ');
                let pid = words.next().unwrap().parse().unwrap();
                (pid, words.map(str::to_string).collect())
            })
            .collect()
    }

    /// Every stdin line: the pid that read it and the line.
    fn stdin(&self) -> Vec<(u32, Value)> {
        self.log()
            .iter()
            .filter_map(|l| l.strip_prefix("stdin "))
            .map(|l| {
                let (pid, line) = l.split_once(' ').unwrap();
                (pid.parse().unwrap(), serde_json::from_str(line).unwrap())
            })
            .collect()
    }

    async fn adapter(&self) -> Box<dyn AgentAdapter> {
        let mut a = AgyFactory.create();
        a.initialize(&self.config).await.unwrap();
        a
    }
}

fn prompt(text: &str) -> PromptRequest {
    PromptRequest {
        prompt_id: format!("p-{text}"),
        text: text.into(),
        context_files: Vec::new(),
        images: Vec::new(),
    }
}

async fn next(stream: &mut AgentEventStream) -> Option<AgentEvent> {
    tokio::time::timeout(LIMIT, stream.next())
        .await
        .expect("an event or the end within the limit")
}

async fn rest(mut stream: AgentEventStream) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    while let Some(e) = next(&mut stream).await {
        out.push(e);
    }
    out
}

async fn turn(a: &mut Box<dyn AgentAdapter>, text: &str) -> Vec<AgentEvent> {
    rest(a.send_prompt(prompt(text)).await.unwrap()).await
}

fn session_of(ev: &[AgentEvent]) -> Option<String> {
    ev.iter().find_map(|e| match e {
        AgentEvent::Started { session_id, .. } => session_id.clone(),
        _ => None,
    })
}

fn end_of(ev: &[AgentEvent]) -> Option<EndReason> {
    match ev.last() {
        Some(AgentEvent::Ended { reason, .. }) => Some(*reason),
        _ => None,
    }
}

fn answer(ev: &[AgentEvent]) -> String {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// Whether process `pid` still runs (a zombie runs nothing).
fn running(pid: u32) -> bool {
    procfs::processes()
        .iter()
        .any(|p| p.pid == pid && !p.is_zombie())
}

fn has_pair(args: &[String], flag: &str, value: &str) -> bool {
    args.windows(2).any(|w| w[0] == flag && w[1] == value)
}

#[tokio::test]
async fn one_process_serves_two_turns_under_the_conversation_init_bound() {
    let w = World::new();
    let mut a = w.adapter().await;
    let first = turn(&mut a, "first").await;
    let second = turn(&mut a, "second").await;
    assert_eq!(end_of(&first), Some(EndReason::Completed), "{first:#?}");
    assert_eq!(end_of(&second), Some(EndReason::Completed), "{second:#?}");
    assert_eq!(answer(&first), "echo: first");
    assert_eq!(answer(&second), "echo: second");

    let spawns = w.spawns();
    assert_eq!(spawns.len(), 1, "one process for both turns: {spawns:?}");
    let (pid, args) = &spawns[0];
    let conv = format!("conv-{pid}");
    assert_eq!(session_of(&first), Some(conv.clone()));
    assert_eq!(session_of(&second), Some(conv));
    assert!(has_pair(args, "--input-format", "stream-json"), "{args:?}");
    assert!(has_pair(args, "--output-format", "stream-json"), "{args:?}");
    let ws = w.config.cwd.display().to_string();
    assert!(has_pair(args, "--add-dir", &ws), "{args:?}");
    assert!(!args.iter().any(|a| a == "--conversation" || a == "-p"));
    assert!(!args.iter().any(|a| a.contains("dangerously")), "Ask mode");

    // Each turn is exactly one documented input line, read by that process.
    let stdin = w.stdin();
    assert_eq!(
        stdin,
        vec![
            (
                *pid,
                json!({"event":"user","message":{"role":"user","content":"first"}})
            ),
            (
                *pid,
                json!({"event":"user","message":{"role":"user","content":"second"}})
            ),
        ]
    );
    assert!(a.health().await.alive);
    a.terminate().await.unwrap();
    assert_no_agent_left(&w.marker).await;
    assert!(!running(*pid));
}

#[tokio::test]
async fn usage_arrives_while_the_turn_is_still_running() {
    let w = World::new();
    let mut a = w.adapter().await;
    let mut stream = a.send_prompt(prompt("wait for it")).await.unwrap();
    let mut before = Vec::new();
    let usage = loop {
        match next(&mut stream).await {
            Some(AgentEvent::Usage(u)) => break u,
            Some(e) => before.push(e),
            None => panic!("the turn ended before any usage: {before:#?}"),
        }
    };
    assert_eq!((usage.input_tokens, usage.output_tokens), (7, 1));
    assert!(!before.iter().any(|e| matches!(e, AgentEvent::Ended { .. })));
    // agy is still working on the turn: only now may it finish.
    std::fs::write(w.dir.path().join("go"), "").unwrap();
    let after = rest(stream).await;
    assert!(matches!(after.last(),
        Some(AgentEvent::Ended { reason: EndReason::Completed, usage: Some(u) }) if u.output_tokens == 3));
    a.terminate().await.unwrap();
    assert_no_agent_left(&w.marker).await;
}

#[tokio::test]
async fn an_interrupt_stops_the_turn_and_the_process_and_the_next_turn_resumes() {
    let w = World::new();
    let mut a = w.adapter().await;
    let first = turn(&mut a, "first").await;
    let conv = session_of(&first).unwrap();

    let mut stream = a.send_prompt(prompt("hang on")).await.unwrap();
    loop {
        match next(&mut stream).await {
            Some(AgentEvent::TextDelta(t)) if t == "working" => break,
            Some(_) => {}
            None => panic!("the turn ended before it streamed"),
        }
    }
    let old_pid = w.spawns()[0].0;
    assert!(running(old_pid));
    a.interrupt(InterruptStage::Cancel).await.unwrap();
    let ended = rest(stream).await;
    assert!(
        matches!(
            ended.last(),
            Some(AgentEvent::Ended {
                reason: EndReason::Interrupted,
                ..
            })
        ),
        "{ended:#?}"
    );
    // The turn's process is gone, helpers (its `sleep`) included, and no
    // new one was started yet.
    assert!(!running(old_pid));
    assert_no_agent_left(&w.marker).await;
    assert!(a.health().await.alive, "ready for the next prompt");
    // The ladder's later stages find nothing left to signal.
    a.interrupt(InterruptStage::Kill).await.unwrap();

    let third = turn(&mut a, "third").await;
    assert_eq!(end_of(&third), Some(EndReason::Completed), "{third:#?}");
    assert_eq!(session_of(&third), Some(conv.clone()));
    let spawns = w.spawns();
    assert_eq!(spawns.len(), 2, "{spawns:?}");
    assert!(
        has_pair(&spawns[1].1, "--conversation", &conv),
        "{spawns:?}"
    );
    a.terminate().await.unwrap();
    assert_no_agent_left(&w.marker).await;
}

#[tokio::test]
async fn a_process_that_died_is_replaced_by_one_resuming_the_conversation() {
    let w = World::new();
    let mut a = w.adapter().await;
    let first = turn(&mut a, "first").await;
    let conv = session_of(&first).unwrap();
    let died = turn(&mut a, "die now").await;
    assert_eq!(end_of(&died), None, "a crash ends the stream without Ended");
    assert!(!a.health().await.alive);
    let after = turn(&mut a, "after").await;
    assert_eq!(end_of(&after), Some(EndReason::Completed), "{after:#?}");
    assert_eq!(session_of(&after), Some(conv.clone()));
    let spawns = w.spawns();
    assert_eq!(spawns.len(), 2, "{spawns:?}");
    assert!(has_pair(&spawns[1].1, "--conversation", &conv));
    a.terminate().await.unwrap();
    assert_no_agent_left(&w.marker).await;
}

#[tokio::test]
async fn a_resumed_session_starts_its_process_on_that_conversation() {
    let mut w = World::new();
    w.config.resume = Some("conv-earlier".into());
    w.config.approval = ApprovalMode::AutoApprove;
    let mut a = w.adapter().await;
    let ev = turn(&mut a, "hello").await;
    assert_eq!(session_of(&ev).as_deref(), Some("conv-earlier"));
    let args = &w.spawns()[0].1;
    assert!(has_pair(args, "--conversation", "conv-earlier"), "{args:?}");
    assert!(args.iter().any(|a| a == "--dangerously-skip-permissions"));
    a.terminate().await.unwrap();
    assert_no_agent_left(&w.marker).await;
}

#[tokio::test]
async fn dropping_the_adapter_mid_turn_leaves_no_process() {
    let w = World::new();
    let mut a = w.adapter().await;
    let mut stream = a.send_prompt(prompt("hang around")).await.unwrap();
    while let Some(e) = next(&mut stream).await {
        if matches!(e, AgentEvent::TextDelta(_)) {
            break;
        }
    }
    drop(a);
    assert_no_agent_left(&w.marker).await;
}

#[tokio::test]
async fn through_the_host_session_an_interrupt_then_the_next_prompt() {
    let w = World::new();
    let factory: Arc<dyn AdapterFactory> = Arc::new(AgyFactory);
    let mut s = HostSession::new(
        factory,
        w.config.clone(),
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    s.start().await.unwrap();
    interrupt_then_next_prompt(&mut s, "agy").await;
    s.terminate().await.unwrap();
    assert_no_agent_left(&w.marker).await;
    assert_eq!(
        w.spawns().len(),
        2,
        "the interrupted process and its successor"
    );
}
