//! Delegated and quorum approvals through the relay (issue 34), with the
//! real pinned Claude Code against the fake model server: `cohost share
//! --quorum execute=2` grants a co-driver approval (`/grant ana approve`);
//! a viewer without a grant votes anyway and is refused at the host, not
//! only in its UI; the co-driver's `/allow` in `cohost join` is one
//! approval of two and runs nothing; the host's is the second and Claude's
//! Bash call runs, the decision naming both. Skips loudly when Claude Code
//! is missing, unless `CI` is set.

use std::time::Duration;

use cohost_share::Message;
use cohost_sharing::session::{JoinOptions, ParticipantEvent, ParticipantSession};
use cohost_testbench::{require_cli, AgentCli, Bench};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

use crate::host_notices;

/// A `cohost join` in line mode: its notices (stderr), read as they come.
struct Joined {
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStderr>>,
    seen: Vec<String>,
}

impl Joined {
    async fn line(&mut self, text: &str) -> String {
        let (lines, seen) = (&mut self.lines, &mut self.seen);
        let wait = async {
            while let Some(line) = lines.next_line().await.unwrap() {
                seen.push(line.clone());
                if line.contains(text) {
                    return Some(line);
                }
            }
            None
        };
        match tokio::time::timeout(Duration::from_secs(60), wait).await {
            Ok(Some(l)) => l,
            Ok(None) => panic!("cohost join ended before {text:?}: {:#?}", self.seen),
            Err(_) => panic!("no {text:?} from cohost join in 60 s: {:#?}", self.seen),
        }
    }
}

/// Waits until `p` has heard the room's grants.
async fn grants_heard(p: &mut ParticipantSession) {
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            if let ParticipantEvent::Frame { message, .. } = p.next().await.expect("in the room") {
                if matches!(message.as_deref(), Some(Message::ApprovalGrants(_))) {
                    return;
                }
            }
        }
    })
    .await
    .expect("the viewer hears the grants");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_granted_co_driver_and_the_host_make_a_quorum_and_a_viewer_is_refused() {
    if require_cli(AgentCli::Claude).is_none() {
        return;
    }
    let b = Bench::start(AgentCli::Claude).await.unwrap();
    let share = [
        "share",
        "--agent",
        "claude",
        "--approve",
        "ask",
        "--quorum",
        "execute=2",
        "--json",
    ];
    let (host, mut stdin, mut notices) = host_notices::share(&b, share);
    let (co, viewer) = notices
        .until("the invites", |n| {
            (n["notice"] == "invites").then(|| {
                (
                    n["co_driver"].as_str().unwrap().to_string(),
                    n["viewer"].as_str().unwrap().to_string(),
                )
            })
        })
        .await;

    // ana, a co-driver in `cohost join`; bo, a viewer (the library, so
    // that it can send a vote its UI would never offer).
    let mut ana_proc = b
        .command_for(
            env!("CARGO_BIN_EXE_cohost"),
            ["join", "--plain", "--name", "ana"],
        )
        .env("COHOST_INVITE", &co)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut ana_in = ana_proc.stdin.take().unwrap();
    let mut ana = Joined {
        lines: tokio::io::BufReader::new(ana_proc.stderr.take().unwrap()).lines(),
        seen: Vec::new(),
    };
    ana.line("joined room").await;
    let opts = JoinOptions {
        name: Some("bo".into()),
        ..crate::room_support::join_options()
    };
    let mut bo = ParticipantSession::join(&viewer, opts).await.unwrap();
    // The host knows ana by the name she announced.
    notices
        .until("ana's name", |n| {
            (n["notice"] == "presence" && n.to_string().contains("ana")).then_some(())
        })
        .await;

    // Before any grant, ana's `/allow` never leaves her terminal.
    ana_in.write_all(b"/allow\n").await.unwrap();
    ana.line("only the host decides tool calls here").await;

    stdin.write_all(b"/grant ana approve\n").await.unwrap();
    let granted = notices.room("may now approve tool calls").await;
    assert!(granted.contains("ana (co-driver"), "{granted}");
    ana.line("the host lets you approve tool calls (every kind)")
        .await;
    grants_heard(&mut bo).await;
    assert!(bo.grant().is_none(), "{:?}", bo.grants());

    stdin
        .write_all(b"[[scenario:tool]] run the command\n")
        .await
        .unwrap();
    let approval = notices
        .until("the approval request", |n| {
            (n["notice"] == "approval_needed").then(|| n.clone())
        })
        .await;
    let tool = approval["tool_id"].as_str().unwrap().to_string();
    // ana is shown the call she may decide, and that it needs two.
    let card = ana.line("2 approvals needed").await;
    assert!(card.contains(&format!("/allow {tool}")), "{card}");
    assert!(card.contains("(execute)"), "{card}");

    // The viewer's vote reaches the host, which refuses it.
    bo.vote(Some(&tool), true).await.unwrap();
    let refused = notices.room("may not approve").await;
    assert!(
        refused.contains("bo (viewer") && refused.contains("has not granted"),
        "{refused}"
    );

    // ana's approval is one of two: nothing runs yet.
    ana_in
        .write_all(format!("/allow {tool}\n").as_bytes())
        .await
        .unwrap();
    let counted = notices.room("1 of 2 approvals").await;
    assert!(counted.contains("ana (co-driver"), "{counted}");

    // The host's is the second: the call runs, the decision names both.
    stdin
        .write_all(format!("/allow {tool}\n").as_bytes())
        .await
        .unwrap();
    let turn = notices.turn_end("the turn's end").await;
    let decided: Vec<&serde_json::Value> = turn
        .iter()
        .filter(|e| e["type"] == "tool_approval_decided")
        .collect();
    assert_eq!(decided.len(), 1, "{turn:#?}");
    let d = decided[0];
    assert_eq!(d["tool_id"], tool.as_str(), "{d}");
    assert!(d["decision"].as_str().unwrap().starts_with("allow"), "{d}");
    let deciders: Vec<&str> = d["deciders"]
        .as_array()
        .unwrap_or_else(|| panic!("deciders: {d}"))
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(deciders.len(), 2, "{d}");
    assert!(deciders[0].starts_with("ana (co-driver #"), "{d}");
    assert_eq!(deciders[1], "host", "{d}");
    // Only after the quorum did the tool run.
    let ran = turn
        .iter()
        .position(|e| e["type"] == "tool_executed")
        .unwrap_or_else(|| panic!("the Bash call ran: {turn:#?}"));
    let allowed = turn
        .iter()
        .position(|e| e["type"] == "tool_approval_decided")
        .unwrap();
    assert!(allowed < ran, "{turn:#?}");
    assert_eq!(turn[ran]["status"], "ok", "{turn:#?}");
    assert_eq!(turn.last().unwrap()["reason"], "completed", "{turn:#?}");
    // ana saw who decided.
    let said = ana.line(&format!("{tool} allowed by")).await;
    assert!(
        said.contains("ana (co-driver") && said.contains("host"),
        "{said}"
    );

    ana_in.write_all(b"/quit\n").await.unwrap();
    bo.close().await;
    host_notices::quit(host, stdin).await;
    let _ = tokio::time::timeout(Duration::from_secs(5), ana_proc.wait()).await;
}
