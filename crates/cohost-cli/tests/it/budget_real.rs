//! Budgets and notifications with the real pinned Claude Code against the
//! fake model server (issue 34):
//! - `cohost run --notify URL`: a webhook receiver on 127.0.0.1 gets the
//!   approval-needed and turn-end POSTs, short and sanitized (never the
//!   prompt);
//! - `cohost share --budget-tokens N`: the turn that spends the budget
//!   ends with reason `budget` after a `budget` event, the next prompt is
//!   refused with `BUDGET_EXCEEDED`, `/budget` raises it and a co-driver's
//!   accepted suggestion runs, and `/spend` attributes the spend to the
//!   host and to the co-driver, per agent; the webhook hears of the spent
//!   budget.
//!
//! Skips loudly when Claude Code is missing, unless `CI` is set.

use std::time::Duration;

use cohost_testbench::{require_cli, AgentCli, Bench};
use tokio::io::AsyncWriteExt;

use crate::host_notices;
use crate::webhook_support::Receiver;

/// Words of the prompts that must never reach the webhook.
const PROMPT_MARKER: &str = "budget-marker-5531";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_run_tells_the_webhook_of_the_approval_and_the_turn_end() {
    if require_cli(AgentCli::Claude).is_none() {
        return;
    }
    let b = Bench::start(AgentCli::Claude).await.unwrap();
    let hook = Receiver::start("cohost-topic").await;
    // Asked on no terminal: the approval is denied, and the turn ends.
    let prompt = format!("[[scenario:write]] {PROMPT_MARKER} create the file");
    let out = b
        .command_for(
            env!("CARGO_BIN_EXE_cohost"),
            [
                "run",
                "--agent",
                "claude",
                "--approve",
                "ask",
                "--json",
                "--notify",
                hook.url.as_str(),
                prompt.as_str(),
            ],
        )
        .output();
    let out = tokio::time::timeout(Duration::from_secs(120), out)
        .await
        .expect("cohost run ends")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("\"type\":\"tool_approval_requested\""),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `run` waits (bounded) for its last notices before it exits.
    let posts = hook.posts();
    let tags: Vec<&str> = posts.iter().map(|p| p.header("tags")).collect();
    assert!(tags.contains(&"approval_needed"), "{posts:#?}");
    assert!(
        tags.contains(&"turn_ended") || tags.contains(&"turn_failed"),
        "{posts:#?}"
    );
    let approval = posts
        .iter()
        .find(|p| p.header("tags") == "approval_needed")
        .unwrap();
    assert_eq!(approval.path, "/cohost-topic");
    assert_eq!(approval.header("title"), "cohost: claude needs approval");
    assert_eq!(approval.header("priority"), "high");
    assert!(
        approval.body.starts_with("claude wants to run the tool "),
        "{approval:?}"
    );
    for p in &posts {
        let all = format!("{p:?}");
        assert!(!all.contains(PROMPT_MARKER), "the prompt went out: {all}");
        assert!(
            !all.contains("cohost-tool-ok"),
            "the tool input went out: {all}"
        );
        assert!(p.body.len() < 200, "{all}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_claude_session_stops_at_its_budget_refuses_until_raised_and_attributes_spend() {
    if require_cli(AgentCli::Claude).is_none() {
        return;
    }
    let b = Bench::start(AgentCli::Claude).await.unwrap();
    let hook = Receiver::start("budget-topic").await;
    let share = [
        "share",
        "--agent",
        "claude",
        "--approve",
        "none",
        "--suggestions",
        "accept",
        "--json",
        // Claude Code's first request alone is thousands of tokens.
        "--budget-tokens",
        "100",
        "--notify",
        hook.url.as_str(),
    ];
    let (host, mut stdin, mut notices) = host_notices::share(&b, share);
    let co = notices
        .until("the invites", |n| {
            (n["notice"] == "invites").then(|| n["co_driver"].as_str().unwrap().to_string())
        })
        .await;

    // The host's turn spends the budget: a `budget` event, then the end
    // with reason `budget`.
    let first = format!("[[scenario:text]] {PROMPT_MARKER} say hello\n");
    stdin.write_all(first.as_bytes()).await.unwrap();
    let turn = notices.turn_end("the first turn's end").await;
    let budget = turn
        .iter()
        .find(|e| e["type"] == "budget")
        .unwrap_or_else(|| panic!("a budget event: {turn:#?}"));
    assert_eq!(budget["level"], "exceeded", "{budget}");
    assert_eq!(budget["tokens"], 100);
    assert!(budget["spent_tokens"].as_u64().unwrap() >= 100, "{budget}");
    let end = turn.last().unwrap();
    assert_eq!(end["reason"], "budget", "{end}");

    // The next prompt is refused, typed, with the fix.
    stdin.write_all(b"[[scenario:text]] again\n").await.unwrap();
    let refused = notices.room("BUDGET_EXCEEDED").await;
    assert!(refused.contains("the prompt did not run"), "{refused}");

    // Raised: a co-driver's suggestion, accepted by the room's policy, runs.
    stdin
        .write_all(b"/budget tokens 100000000\n")
        .await
        .unwrap();
    let raised = notices.room("prompts run again").await;
    assert!(raised.contains("100000000 tokens"), "{raised}");
    let join = b
        .command_for(
            env!("CARGO_BIN_EXE_cohost"),
            [
                "join",
                "--json",
                "--until-end",
                "--name",
                "ana",
                "--suggest",
                "[[scenario:text]] from ana",
            ],
        )
        .env("COHOST_INVITE", &co)
        .output();
    let join = tokio::spawn(join);
    let turn = notices.turn_end("ana's turn's end").await;
    assert_eq!(turn.last().unwrap()["reason"], "completed", "{turn:#?}");
    let out = tokio::time::timeout(Duration::from_secs(120), join)
        .await
        .expect("the co-driver saw the turn end")
        .unwrap()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));

    // Who spent what: the host's turn and ana's, both on claude.
    stdin.write_all(b"/spend\n").await.unwrap();
    let spend = notices.room("spent ").await;
    assert!(spend.contains("\n  host: $"), "{spend}");
    assert!(spend.contains("\n  ana (co-driver #"), "{spend}");
    assert!(spend.contains("\n  agent claude: $"), "{spend}");
    assert!(spend.contains("of 100000000 tokens"), "{spend}");

    // The phone heard of the spent budget, and of the turns' ends; never
    // of a prompt.
    let posts = hook
        .until_tag("budget_exceeded", Duration::from_secs(10))
        .await;
    let spent = posts
        .iter()
        .find(|p| p.header("tags") == "budget_exceeded")
        .unwrap_or_else(|| panic!("{posts:#?}"));
    assert_eq!(spent.header("title"), "cohost: the budget is spent");
    assert!(spent.body.contains("of 100 tokens spent"), "{spent:?}");
    assert!(posts.iter().any(|p| p.header("tags") == "turn_ended"));
    for p in &posts {
        let all = format!("{p:?}");
        assert!(!all.contains(PROMPT_MARKER), "the prompt went out: {all}");
        assert!(!all.contains("from ana"), "a suggestion went out: {all}");
    }

    host_notices::quit(host, stdin).await;
}
