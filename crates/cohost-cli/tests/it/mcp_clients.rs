//! `cohost mcp` driven by a client nobody here wrote: the official MCP
//! Python SDK (PyPI `mcp`, pinned in scripts/test.sh) over stdio, against
//! the mock and real Claude Code on the fake model server.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use crate::clients;

use clients::{
    assert_no_agent_left, bench, cohost, python_with, run_client, run_client_with, script,
    stored_sessions,
};
use cohost_testbench::{AgentCli, Bench};
use serde_json::{json, Value};

async fn mcp(bench: &Bench, scenario: &str, args: Value) -> Option<Value> {
    let py = python_with("mcp")?;
    let cohost = cohost();
    let args = args.to_string();
    Some(
        run_client(
            bench,
            &py,
            &script("mcp_client.py"),
            &[cohost.to_str().unwrap(), scenario, &args],
        )
        .await,
    )
}

/// A scratch user for the mock (no real CLI needed).
async fn mock_bench() -> Bench {
    Bench::start(AgentCli::Claude).await.expect("bench")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_the_twelve_tools_and_the_agents() {
    let b = mock_bench().await;
    let Some(out) = mcp(&b, "tools", json!({})).await else {
        return;
    };
    let names: Vec<&str> = out["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "ask_agent",
            "ask_room",
            "continue_session",
            "interrupt",
            "list_agents",
            "list_approvals",
            "resolve_approval",
            "session_changes",
            "session_status",
            "steer",
            "undo_turn",
            "wait"
        ]
    );
    assert_eq!(out["ask_agent_schema"]["required"], json!(["prompt"]));
    assert!(out["agents"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "mock"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_room_asks_two_agents_at_once_each_a_session_of_its_own() {
    let b = mock_bench().await;
    let args = json!({"agents": ["mock", "mock"], "prompt": "[mock:say] both of you"});
    let Some(out) = mcp(&b, "room", args).await else {
        return;
    };
    assert_eq!(out["is_error"], false, "{out}");
    let r = &out["result"];
    assert!(r["room"].as_str().unwrap().starts_with("r-"), "{r}");
    let members = r["members"].as_array().unwrap();
    let names: Vec<&str> = members
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mock", "mock#2"]);
    for m in members {
        assert_eq!(m["answer"], "both of you", "{m}");
        assert_eq!(m["end_reason"], "completed", "{m}");
    }
    assert_ne!(members[0]["session_id"], members[1]["session_id"]);
    // Each is a recorded member of the room.
    let stored = stored_sessions(&b);
    for m in members {
        assert!(stored.contains(&m["session_id"].as_str().unwrap().to_string()));
    }
    // One agent is not a room.
    let Some(one) = mcp(&b, "room", json!({"agents": ["mock"], "prompt": "hi"})).await else {
        return;
    };
    assert_eq!(one["is_error"], true, "{one}");
    assert!(one["result"]["message"]
        .as_str()
        .unwrap()
        .contains("at least two"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_agent_on_the_mock_streams_progress_and_records_the_session() {
    let b = mock_bench().await;
    let args = json!({"provider": "mock", "prompt": "hello there", "follow_up": "and again"});
    let Some(out) = mcp(&b, "ask", args).await else {
        return;
    };
    assert_eq!(out["is_error"], false, "{out}");
    let r = &out["result"];
    let answer = r["answer"].as_str().unwrap();
    assert!(answer.contains("You said: \"hello there\""), "{answer}");
    let streamed: String = out["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(
        streamed, answer,
        "progress notifications carry the whole answer, in order"
    );
    assert!(
        out["progress"].as_array().unwrap().len() > 3,
        "streamed in pieces"
    );
    assert_eq!(r["end_reason"], "completed");
    assert!(r["usage"]["output_tokens"].as_u64().unwrap() > 0);
    let id = r["session_id"].as_str().unwrap();
    assert_eq!(out["follow_up"]["session_id"], id);
    assert_eq!(out["follow_up"]["turn"], 2);
    assert!(out["follow_up"]["answer"]
        .as_str()
        .unwrap()
        .contains("and again"));
    assert!(
        stored_sessions(&b).contains(&id.to_string()),
        "recorded in the session store like any run"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_request_interrupts_the_slow_turn() {
    let b = mock_bench().await;
    let args = json!({"provider": "mock", "prompt": "[mock:slow] count"});
    let Some(out) = mcp(&b, "cancel", args).await else {
        return;
    };
    let st = &out["status"];
    assert_eq!(st["end_reason"], "interrupted", "{out}");
    let ticks = st["answer"].as_str().unwrap().matches("tick").count();
    assert!(ticks < 50, "the turn stopped early ({ticks} of 50 deltas)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_turn_is_followed_with_wait_and_stopped_with_interrupt() {
    let b = mock_bench().await;
    let args = json!({"provider": "mock", "prompt": "[mock:slow] count"});
    let Some(out) = mcp(&b, "background", args).await else {
        return;
    };
    assert_eq!(out["started"]["running"], true, "{out}");
    assert_eq!(
        out["early"]["done"], false,
        "a 1 s wait returns before 5 s of ticks"
    );
    assert_eq!(out["busy_is_error"], true, "one turn at a time: {out}");
    assert!(out["busy"]["suggested_fix"]
        .as_str()
        .unwrap()
        .contains("wait"));
    assert_eq!(out["steer"]["outcome"], "steered", "{out}");
    assert_eq!(out["interrupt"]["interrupt_sent"], true, "{out}");
    assert_eq!(out["final"]["done"], true, "{out}");
    let answer = out["final"]["answer"].as_str().unwrap_or_default();
    assert!(answer.contains("[steered: also-this]"), "{out}");
    assert_eq!(out["final"]["end_reason"], "interrupted");
    assert_eq!(out["status"]["running"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approvals_go_through_the_tools_or_elicitation() {
    let b = mock_bench().await;
    let ask = |decision: &str, via: &str| json!({"provider": "mock", "prompt": "[mock:tool] write it", "decision": decision, "via": via});
    let Some(denied) = mcp(&b, "approve", ask("deny", "tools")).await else {
        return;
    };
    assert_eq!(denied["approval"]["name"], "write_file", "{denied}");
    assert!(denied["approval"]["expires_in_ms"].as_u64().unwrap() > 0);
    let call = &denied["result"]["tool_calls"][0];
    assert_eq!(
        (&call["decision"], &call["status"]),
        (&json!("reject_once"), &json!("denied"))
    );

    let allowed = mcp(&b, "approve", ask("allow", "elicit")).await.unwrap();
    assert_eq!(
        allowed["elicited"].as_array().unwrap().len(),
        1,
        "{allowed}"
    );
    let call = &allowed["result"]["tool_calls"][0];
    assert_eq!(
        (&call["decision"], &call["status"]),
        (&json!("allow_once"), &json!("ok"))
    );

    let refused = mcp(&b, "approve", ask("deny", "elicit")).await.unwrap();
    assert_eq!(refused["result"]["tool_calls"][0]["status"], "denied");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_are_tool_errors_and_an_unanswered_approval_is_denied_at_its_deadline() {
    let b = mock_bench().await;
    let Some(out) = mcp(&b, "ask", json!({"provider": "nope", "prompt": "hi"})).await else {
        return;
    };
    assert_eq!(out["is_error"], true, "{out}");
    assert_eq!(out["result"]["code"], "PROVIDER_NOT_FOUND", "{out}");
    assert!(out["result"]["suggested_fix"].is_string(), "{out}");

    // Nobody answers (no elicitation, no resolve_approval): the deadline denies.
    let py = python_with("mcp").unwrap();
    let cohost = cohost();
    let args = json!({"provider": "mock", "prompt": "[mock:tool] write it"}).to_string();
    let out = run_client_with(
        &b,
        &py,
        &script("mcp_client.py"),
        &[cohost.to_str().unwrap(), "ask", &args],
        &[("COHOST_MCP_ARGS", "--approval-timeout 1")],
    )
    .await;
    let call = &out["result"]["tool_calls"][0];
    assert_eq!(
        (&call["decision"], &call["decided_by"], &call["status"]),
        (&json!("reject_once"), &json!("deadline"), &json!("denied")),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_limit_ends_the_idle_session_which_resumes_from_the_store() {
    let b = mock_bench().await;
    let Some(py) = python_with("mcp") else { return };
    let cohost = cohost();
    let args = json!({"provider": "mock", "prompt": "one"}).to_string();
    let out = run_client_with(
        &b,
        &py,
        &script("mcp_client.py"),
        &[cohost.to_str().unwrap(), "evict", &args],
        &[("COHOST_MCP_ARGS", "--max-sessions 1")],
    )
    .await;
    assert_eq!(out["open_after_two"], json!([out["second"]]), "{out}");
    let c = &out["continued"];
    assert_eq!(
        c["session_id"], out["first"],
        "reopened under its id: {out}"
    );
    assert!(
        c["answer"].as_str().unwrap().contains("back again"),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_claude_code_answers_and_its_approval_decides_the_file() {
    let Some(b) = bench(AgentCli::Claude).await else {
        return;
    };
    let cwd = b.cwd().display().to_string();
    let Some(out) = mcp(
        &b,
        "ask",
        json!({"provider": "claude", "prompt": "say hello [[scenario:text]]", "cwd": cwd}),
    )
    .await
    else {
        return;
    };
    assert_eq!(out["is_error"], false, "{out}");
    assert_eq!(out["result"]["provider"], "claude");
    assert!(
        !out["result"]["answer"].as_str().unwrap().is_empty(),
        "{out}"
    );
    assert!(!out["progress"].as_array().unwrap().is_empty(), "streamed");
    assert!(out["result"]["native_session_id"].is_string());

    let file = b.cwd().join(cohost_fakellm::tools::TOOL_FILE);
    let tool = |decision: &str| {
        json!({"provider": "claude", "prompt": "run it [[scenario:tool]]", "cwd": cwd,
               "decision": decision, "via": "tools"})
    };
    let denied = mcp(&b, "approve", tool("deny")).await.unwrap();
    assert_eq!(denied["resolved"]["decision"], "reject_once", "{denied}");
    assert!(!file.exists(), "a denied tool call writes nothing");
    let allowed = mcp(&b, "approve", tool("allow")).await.unwrap();
    assert_eq!(allowed["result"]["end_reason"], "completed", "{allowed}");
    assert!(file.exists(), "the allowed tool call wrote the file");
    assert_no_agent_left(&b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_serves_the_same_tools() {
    use tokio::io::AsyncBufReadExt;
    let b = mock_bench().await;
    let Some(py) = python_with("mcp") else { return };
    let mut server = b
        .command_for(cohost(), ["mcp", "--http", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("cohost mcp --http starts");
    let mut lines = tokio::io::BufReader::new(server.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
        .await
        .expect("it says where it listens")
        .unwrap()
        .unwrap();
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no URL in {first:?}"))
        .trim_end_matches(';')
        .to_string();
    // The second line names the token file (never the token); the bench
    // user has no XDG_RUNTIME_DIR, so it is under the state dir.
    let second = lines.next_line().await.unwrap().unwrap();
    assert!(second.contains("api-token"), "{second}");
    let file = b.layout().xdg_state.join("cohost/run/api-token");
    let token = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .trim()
        .to_string();
    assert!(
        !second.contains(&token),
        "the token itself is never printed"
    );
    let cohost = cohost();
    let run = |scenario: &'static str, args: Value| {
        let (py, url, cohost, b, token) = (&py, &url, &cohost, &b, &token);
        async move {
            let args = args.to_string();
            run_client_with(
                b,
                py,
                &script("mcp_client.py"),
                &[cohost.to_str().unwrap(), scenario, &args],
                &[("COHOST_MCP_URL", url), ("COHOST_MCP_TOKEN", token)],
            )
            .await
        }
    };
    let out = run("ask", json!({"provider": "mock", "prompt": "over http"})).await;
    assert_eq!(out["is_error"], false, "{out}");
    assert!(out["result"]["answer"]
        .as_str()
        .unwrap()
        .contains("over http"));
    let out = run(
        "approve",
        json!({"provider": "mock", "prompt": "[mock:tool] x", "decision": "deny", "via": "tools"}),
    )
    .await;
    assert_eq!(out["result"]["tool_calls"][0]["status"], "denied", "{out}");
    // A foreign Host header (DNS rebinding) is refused before any tool runs.
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp");
    let refused = std::process::Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST"])
        .args([
            "-H",
            "Host: evil.example",
            &format!("http://127.0.0.1:{port}/mcp"),
        ])
        .output();
    if let Ok(o) = refused {
        assert_eq!(String::from_utf8_lossy(&o.stdout), "403");
    }
    // Without the token: 401 with cohost's error, before any tool runs.
    let anonymous = std::process::Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST"])
        .arg(&url)
        .output();
    if let Ok(o) = anonymous {
        assert_eq!(String::from_utf8_lossy(&o.stdout), "401");
    }
    // A 50 MiB request (issue 36): refused with HTTP 413 and a JSON-RPC
    // error, whether it declares its length or streams it, without the
    // server holding it; the server goes on serving.
    let big = b.cwd().join("big-request.json");
    let pad = "a".repeat(50 * 1024 * 1024);
    std::fs::write(
        &big,
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{pad}"}}}}"#),
    )
    .unwrap();
    drop(pad);
    for chunked in [false, true] {
        let mut curl = std::process::Command::new("curl");
        curl.args(["-s", "-w", "\n%{http_code}", "-X", "POST"])
            .args(["-H", &format!("Authorization: Bearer {token}")])
            .args(["-H", "Content-Type: application/json"])
            .args(["-H", "Accept: application/json, text/event-stream"]);
        if chunked {
            curl.args(["-H", "Transfer-Encoding: chunked"]);
        }
        let out = curl
            .arg("--data-binary")
            .arg(format!("@{}", big.display()))
            .arg(&url)
            .output()
            .expect("curl runs");
        let text = String::from_utf8_lossy(&out.stdout);
        let (body, code) = text.rsplit_once('\n').unwrap_or_default();
        assert_eq!(code, "413", "chunked={chunked}: {text:.300}");
        let reply: Value =
            serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:.300}"));
        assert_eq!(reply["error"]["code"], -32600, "{reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("at most 32 MiB"),
            "{reply}"
        );
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.id().unwrap())).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status");
    assert!(
        peak_kib < 128 * 1024,
        "the server's peak memory was {peak_kib} KiB: it held the oversized request"
    );
    let out = run(
        "ask",
        json!({"provider": "mock", "prompt": "after the big one"}),
    )
    .await;
    assert_eq!(out["is_error"], false, "{out}");
    server.kill().await.unwrap();
}

/// Issue 32 through MCP: real Claude Code writes a file, `session_changes`
/// shows it with its diff, `undo_turn` takes it back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_changes_and_undo_turn_on_real_claude() {
    let Some(b) = bench(AgentCli::Claude).await else {
        return;
    };
    let args = json!({
        "provider": "claude",
        "prompt": "[[scenario:write]] create the file",
        "approval": "auto",
        "cwd": b.cwd(),
    });
    let Some(out) = mcp(&b, "changes", args).await else {
        return;
    };
    let file = &out["changes"]["turns"][0]["files"][0];
    assert_eq!(file["path"], "cohost_tool_output.txt", "{out}");
    assert_eq!(file["status"], "added", "{out}");
    assert!(
        file["diff"].as_str().unwrap().contains("+cohost-tool-ok"),
        "{out}"
    );
    assert_eq!(
        out["undone"]["removed"],
        json!(["cohost_tool_output.txt"]),
        "{out}"
    );
    assert!(!b.cwd().join("cohost_tool_output.txt").exists());
    assert_eq!(out["again_is_error"], true, "{out}");
    assert!(
        out["again"]["message"]
            .as_str()
            .unwrap()
            .contains("no recorded turns"),
        "{out}"
    );
}
