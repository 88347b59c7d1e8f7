//! Steering with the real pinned CLIs against the fake model server, through
//! a `cohost share --json` host whose console gets a second line while the
//! first turn streams (issue 34):
//! - Codex (app-server, `turn/steer`): the line reaches the running turn: a
//!   `steered` event in it, the model's next request carries the text, and
//!   no second turn runs;
//! - Claude Code (`--input-format stream-json`, a user message with a
//!   `uuid` tracked by its `command_lifecycle`): sent while a Bash call
//!   runs, the line joins the tool result of the same turn; sent while an
//!   answer streams with no tool call left, the CLI runs it as a turn of
//!   its own after the first, and cohost folds both into the one turn;
//!   interrupted after a steer, the turn ends with the steered text dropped;
//! - Gemini CLI (`gemini -p` per turn, no input mid-turn): the line waits in
//!   the queue (a `queue` event says so, and why), the first turn ends as it
//!   would have, then the queued line runs as the next turn.
//!
//! Skips loudly when a CLI is missing, unless `CI` is set.

use std::time::Instant;

use cohost_fakellm::{FakeLlmConfig, Scenario, Script, ScriptStep};
use cohost_testbench::{require_cli, AgentCli, Bench};
use tokio::io::AsyncWriteExt;

use crate::host_notices::{quit, share, Notices};

/// A shared session on `agent` with its console on stdin, and its notices.
fn host(b: &Bench, agent: &str) -> (tokio::process::Child, tokio::process::ChildStdin, Notices) {
    share(
        b,
        ["share", "--agent", agent, "--approve", "none", "--json"],
    )
}

/// Events from now until the turn's first text, the turn streaming.
async fn until_streaming(n: &mut Notices) -> Vec<serde_json::Value> {
    let mut events = Vec::new();
    n.until("the first turn's text", |v| {
        if v["notice"] != "event" {
            return None;
        }
        events.push(v["event"].clone());
        (v["event"]["type"] == "stream_chunk").then_some(())
    })
    .await;
    events
}

fn of_type<'a>(events: &'a [serde_json::Value], t: &str) -> Vec<&'a serde_json::Value> {
    events.iter().filter(|e| e["type"] == t).collect()
}

fn text(events: &[serde_json::Value]) -> String {
    of_type(events, "stream_chunk")
        .iter()
        .filter_map(|e| e["delta"].as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_takes_text_sent_mid_turn_into_the_running_turn() {
    if require_cli(AgentCli::Codex).is_none() {
        return;
    }
    let b = Bench::start(AgentCli::Codex).await.unwrap();
    let (child, mut stdin, mut notices) = host(&b, "codex");
    notices
        .until("the invites", |n| (n["notice"] == "invites").then_some(()))
        .await;
    let started = Instant::now();
    // `slow`: 40 deltas 50 ms apart, time to steer.
    stdin
        .write_all(b"[[scenario:slow]] first-turn\n")
        .await
        .unwrap();
    let mut turn = until_streaming(&mut notices).await;
    stdin
        .write_all(b"steer-marker-4417 [[scenario:text]]\n")
        .await
        .unwrap();
    turn.extend(notices.turn_end("the turn's end").await);

    let steered = of_type(&turn, "steered");
    assert_eq!(steered.len(), 1, "{turn:#?}");
    assert!(
        steered[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("steer-marker-4417"),
        "{turn:#?}"
    );
    assert_eq!(
        steered[0]["prompt_id"], turn[0]["prompt_id"],
        "in the running turn"
    );
    // One turn: no second stream, nothing queued; it completed.
    assert_eq!(of_type(&turn, "stream_start").len(), 1, "{turn:#?}");
    assert!(of_type(&turn, "queue").is_empty(), "{turn:#?}");
    assert_eq!(turn.last().unwrap()["reason"], "completed", "{turn:#?}");
    // Codex sent the steered text to the model within the same turn, and
    // the answer to it is this turn's.
    let request = b
        .last_request_with("steer-marker-4417")
        .expect("a model request carried the steered text");
    assert!(
        request.contains("first-turn"),
        "the same conversation: {request}"
    );
    assert!(
        text(&turn).contains("You said: steer-marker-4417"),
        "{}",
        text(&turn)
    );
    eprintln!("codex steer: {:?} from the first prompt", started.elapsed());
    quit(child, stdin).await;
}

/// The checks every steered turn passes: one `steered` event with the
/// text, in the running turn, one turn that completed, nothing queued.
fn assert_steered_into_one_turn(turn: &[serde_json::Value], marker: &str) {
    let steered = of_type(turn, "steered");
    assert_eq!(steered.len(), 1, "{turn:#?}");
    assert!(
        steered[0]["text"].as_str().unwrap().starts_with(marker),
        "{turn:#?}"
    );
    assert_eq!(
        steered[0]["prompt_id"], turn[0]["prompt_id"],
        "in the running turn"
    );
    assert_eq!(of_type(turn, "stream_start").len(), 1, "{turn:#?}");
    assert_eq!(of_type(turn, "stream_end").len(), 1, "{turn:#?}");
    assert!(of_type(turn, "queue").is_empty(), "{turn:#?}");
    assert_eq!(turn.last().unwrap()["reason"], "completed", "{turn:#?}");
}

/// A Claude Code host on a bench whose model answers the first prompt
/// (it says `first-turn`) with `first`.
async fn claude_host(
    first: ScriptStep,
) -> (
    Bench,
    tokio::process::Child,
    tokio::process::ChildStdin,
    Notices,
) {
    let config = FakeLlmConfig {
        script: Some(Script {
            default: None,
            steps: vec![first],
            repeat: false,
        }),
        ..FakeLlmConfig::default()
    };
    let b = Bench::start_with(AgentCli::Claude, config).await.unwrap();
    // `--approve all`: the Bash call runs at once (its 3 s are the window).
    let (child, stdin, mut notices) = share(
        &b,
        ["share", "--agent", "claude", "--approve", "all", "--json"],
    );
    notices
        .until("the invites", |n| (n["notice"] == "invites").then_some(()))
        .await;
    (b, child, stdin, notices)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_takes_text_sent_mid_turn_into_the_running_turn() {
    if require_cli(AgentCli::Claude).is_none() {
        return;
    }
    // The first model answer calls Bash with a command that takes 3 s.
    let mut slow_tool = ScriptStep::new(Scenario::Tool);
    slow_tool.match_prompt = Some("first-turn".into());
    slow_tool.tool = Some("Bash".into());
    slow_tool.args = Some(serde_json::json!({
        "command": "sleep 3; echo slept-ok",
        "description": "wait three seconds"
    }));
    let (b, child, mut stdin, mut notices) = claude_host(slow_tool).await;
    let started = Instant::now();
    stdin
        .write_all(b"first-turn: run the slow command\n")
        .await
        .unwrap();
    let mut turn = Vec::new();
    notices
        .until("the Bash call", |v| {
            if v["notice"] != "event" {
                return None;
            }
            turn.push(v["event"].clone());
            (v["event"]["type"] == "tool_call").then_some(())
        })
        .await;
    stdin
        .write_all(b"steer-marker-4417 [[scenario:text]]\n")
        .await
        .unwrap();
    turn.extend(notices.turn_end("the turn's end").await);

    assert_steered_into_one_turn(&turn, "steer-marker-4417");
    // The steer came in while the tool ran, before its result.
    let at = |t: &str| turn.iter().position(|e| e["type"] == t).unwrap();
    assert!(at("tool_call") < at("steered") && at("steered") < at("tool_executed"));
    // Claude Code sent it to the model with the tool's result, in the same
    // conversation, and answered that request within this turn.
    let request = b
        .last_request_with("steer-marker-4417")
        .expect("a model request carried the steered text");
    assert!(
        request.contains("slept-ok"),
        "with the tool result: {request}"
    );
    assert!(
        request.contains("The user sent a new message while you were working"),
        "{request}"
    );
    assert!(
        text(&turn).contains("Tool said: slept-ok"),
        "{}",
        text(&turn)
    );
    eprintln!(
        "claude steer (tool): {:?} from the first prompt",
        started.elapsed()
    );
    quit(child, stdin).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_runs_text_sent_after_its_last_model_request_in_the_same_turn() {
    if require_cli(AgentCli::Claude).is_none() {
        return;
    }
    // A slow answer (40 deltas 50 ms apart) and no tool call: Claude Code
    // ends its turn, then runs the steered text as a turn of its own.
    let mut slow = ScriptStep::new(Scenario::Slow);
    slow.match_prompt = Some("first-turn".into());
    let (b, child, mut stdin, mut notices) = claude_host(slow).await;
    stdin.write_all(b"first-turn\n").await.unwrap();
    let mut turn = until_streaming(&mut notices).await;
    stdin
        .write_all(b"steer-marker-5531 [[scenario:text]]\n")
        .await
        .unwrap();
    turn.extend(notices.turn_end("the turn's end").await);

    assert_steered_into_one_turn(&turn, "steer-marker-5531");
    // Both answers are this turn's: the slow one, then the steered one's.
    let answer = text(&turn);
    let (first, second) = (
        answer.find("tick 39").unwrap_or_else(|| panic!("{answer}")),
        answer
            .find("You said: steer-marker-5531")
            .unwrap_or_else(|| panic!("{answer}")),
    );
    assert!(first < second, "{answer}");
    assert!(b.last_request_with("steer-marker-5531").is_some());
    // Its usage is both model calls'.
    let end = turn.last().unwrap();
    let input = end["usage"]["input_tokens"].as_u64().unwrap();
    let requests = b.model_requests().len() as u64;
    assert!(requests >= 2 && input > 0, "{end}");
    // Nothing more comes: no second turn of the CLI's leaks out as one.
    stdin.write_all(b"after [[scenario:text]]\n").await.unwrap();
    let next = notices.turn_end("the next turn's end").await;
    assert!(text(&next).contains("You said: after"), "{next:#?}");
    assert!(of_type(&next, "steered").is_empty());
    quit(child, stdin).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_interrupted_after_a_steer_drops_it_with_the_turn() {
    if require_cli(AgentCli::Claude).is_none() {
        return;
    }
    let mut slow = ScriptStep::new(Scenario::Slow);
    slow.match_prompt = Some("first-turn".into());
    let (b, child, mut stdin, mut notices) = claude_host(slow).await;
    stdin.write_all(b"first-turn\n").await.unwrap();
    let mut turn = until_streaming(&mut notices).await;
    stdin
        .write_all(b"steer-marker-6642 [[scenario:text]]\n")
        .await
        .unwrap();
    notices
        .until("the steered event", |v| {
            if v["notice"] != "event" {
                return None;
            }
            turn.push(v["event"].clone());
            (v["event"]["type"] == "steered").then_some(())
        })
        .await;
    stdin.write_all(b"/interrupt\n").await.unwrap();
    turn.extend(notices.turn_end("the interrupted turn's end").await);
    assert_eq!(of_type(&turn, "stream_end").len(), 1, "{turn:#?}");
    assert_eq!(turn.last().unwrap()["reason"], "interrupted", "{turn:#?}");
    // The interrupt dropped the steered text (`cancel_queued`): it never
    // reached the model, and nothing of it runs later.
    stdin.write_all(b"after [[scenario:text]]\n").await.unwrap();
    let next = notices.turn_end("the next turn's end").await;
    assert_eq!(next.last().unwrap()["reason"], "completed", "{next:#?}");
    assert!(text(&next).contains("You said: after"), "{next:#?}");
    assert!(!text(&next).contains("steer-marker-6642"), "{next:#?}");
    assert!(b.last_request_with("steer-marker-6642").is_none());
    quit(child, stdin).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cannot_take_text_mid_turn_so_it_is_queued_and_runs_next() {
    if require_cli(AgentCli::Gemini).is_none() {
        return;
    }
    let b = Bench::start(AgentCli::Gemini).await.unwrap();
    let (child, mut stdin, mut notices) = host(&b, "gemini");
    notices
        .until("the invites", |n| (n["notice"] == "invites").then_some(()))
        .await;
    let started = Instant::now();
    stdin
        .write_all(b"[[scenario:slow]] first-turn\n")
        .await
        .unwrap();
    let mut first = until_streaming(&mut notices).await;
    stdin
        .write_all(b"queued-marker-5521 [[scenario:text]]\n")
        .await
        .unwrap();
    first.extend(notices.turn_end("the first turn's end").await);

    // Told at once that it waits, and why; the running turn goes on alone.
    let added = of_type(&first, "queue");
    assert_eq!(added.len(), 1, "{first:#?}");
    assert_eq!(added[0]["change"], "added");
    assert!(
        added[0]["note"]
            .as_str()
            .unwrap()
            .contains("takes no input while a turn runs"),
        "{first:#?}"
    );
    let item = added[0]["item"].clone();
    assert!(item["text"]
        .as_str()
        .unwrap()
        .starts_with("queued-marker-5521"));
    assert!(of_type(&first, "steered").is_empty());
    assert_eq!(first.last().unwrap()["reason"], "completed", "{first:#?}");
    assert!(!text(&first).contains("queued-marker-5521"));

    // Then the queued text is the next turn, under the item's correlation id.
    let second = notices.turn_end("the queued turn's end").await;
    let start = second
        .iter()
        .position(|e| e["type"] == "queue" && e["change"] == "started")
        .unwrap_or_else(|| panic!("{second:#?}"));
    assert_eq!(second[start]["item"]["id"], item["id"]);
    assert_eq!(second[start]["items"], serde_json::json!([]));
    let turn = &second[start + 1..];
    assert_eq!(turn[0]["type"], "stream_start", "{second:#?}");
    assert!(turn
        .iter()
        .all(|e| e["correlation_id"] == item["correlation_id"]));
    assert_eq!(turn.last().unwrap()["reason"], "completed", "{second:#?}");
    assert!(text(turn).contains("queued-marker-5521"), "{}", text(turn));
    eprintln!(
        "gemini queue: {:?} from the first prompt",
        started.elapsed()
    );
    quit(child, stdin).await;
}
