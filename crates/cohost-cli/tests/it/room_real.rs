//! A room of the real pinned Claude Code and Codex CLIs against one fake
//! model server (issue 33): `cohost run --agent claude --agent codex
//! --json` gets both answers with every event tagged by its member, each
//! agent's tool call writes only inside its own worktree, the user's
//! checkout, index and stash are untouched, and `cohost worktree keep`
//! brings one member's file into the checkout and drops the other's
//! worktree; `cohost share --agent claude --agent gemini` runs a
//! co-driver's `@gemini` suggestion on Gemini alone and asks the host
//! about Claude's tool call by name; members ask each other through the
//! room bridge only as the host allows (Claude asking itself, Codex asked
//! about by the bridge). Skips loudly when a CLI is missing, unless `CI`
//! is set.

use std::collections::BTreeMap;

use cohost_fakellm::FakeLlmConfig;
use cohost_testbench::{require_cli, AgentCli, Bench};

use crate::host_notices;

use crate::changes_real::{
    cohost, git, ok, stash_and_untracked, user_state, users_repo, without_session_branches,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_and_codex_compare_in_their_own_worktrees_and_one_is_kept() {
    if require_cli(AgentCli::Claude).is_none() || require_cli(AgentCli::Codex).is_none() {
        return;
    }
    let b = Bench::start_many(
        &[AgentCli::Claude, AgentCli::Codex],
        FakeLlmConfig::default(),
    )
    .await
    .unwrap();
    let (home, dir) = (b.home().to_path_buf(), b.cwd().to_path_buf());
    users_repo(&home, &dir);
    stash_and_untracked(&home, &dir);
    let before = user_state(&home, &dir);

    let run = [
        "run",
        "--agent",
        "claude",
        "--agent",
        "codex",
        "--approve",
        "all",
        "--json",
        "[[scenario:write]] create the file",
    ];
    let events = ok(&b, &run).await;
    let events: Vec<serde_json::Value> = events
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    // Every event names its member; each member's turn is whole.
    let mut by: BTreeMap<String, Vec<&serde_json::Value>> = BTreeMap::new();
    for e in &events {
        let agent = e["agent"]
            .as_str()
            .unwrap_or_else(|| panic!("no agent: {e}"));
        by.entry(agent.to_owned()).or_default().push(e);
    }
    assert_eq!(by.keys().collect::<Vec<_>>(), ["claude", "codex"]);
    for (name, evs) in &by {
        let types: Vec<&str> = evs.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(types.first(), Some(&"stream_start"), "{name}: {types:?}");
        assert_eq!(types.last(), Some(&"stream_end"), "{name}: {types:?}");
        assert_eq!(evs.last().unwrap()["reason"], "completed", "{name}");
        assert!(types.contains(&"tool_call"), "{name}: {types:?}");
        let changes: Vec<_> = evs.iter().filter(|e| e["type"] == "file_changes").collect();
        assert_eq!(changes.len(), 1, "{name}: {types:?}");
        assert_eq!(
            changes[0]["files"][0]["path"], "cohost_tool_output.txt",
            "{name}"
        );
        let provider = evs[0]["provider"].as_str().unwrap();
        assert_eq!(provider, name.as_str());
    }

    // Neither wrote into the user's checkout; each wrote in its own worktree.
    assert!(!dir.join("cohost_tool_output.txt").exists());
    let state = user_state(&home, &dir);
    assert_eq!(
        without_session_branches(&state),
        without_session_branches(&before),
        "the user's git state, besides one branch per member"
    );
    assert_eq!(state.matches("refs/heads/cohost/s-").count(), 2, "{state}");
    let sessions: Vec<serde_json::Value> =
        serde_json::from_str(&ok(&b, &["sessions", "--json"]).await).unwrap();
    let member = |name: &str| {
        sessions
            .iter()
            .find(|s| s["room"]["member"] == name)
            .unwrap_or_else(|| panic!("no record of {name}: {sessions:?}"))
            .clone()
    };
    let (claude, codex) = (member("claude"), member("codex"));
    assert_eq!(claude["room"]["id"], codex["room"]["id"], "one room");
    // Paths are read from git: the bench's temp dirs share a prefix with
    // its fake key, which cohost's output redacts.
    let worktree_of = |session: &str| -> Option<std::path::PathBuf> {
        let list = git(&home, &dir, &["worktree", "list", "--porcelain"]);
        let branch = format!("branch refs/heads/cohost/{session}");
        list.split("\n\n")
            .find(|block| block.lines().any(|l| l == branch))
            .and_then(|block| {
                block
                    .lines()
                    .next()?
                    .strip_prefix("worktree ")
                    .map(Into::into)
            })
    };
    for m in [&claude, &codex] {
        let wt = worktree_of(m["id"].as_str().unwrap()).unwrap_or_else(|| panic!("{m}"));
        assert_ne!(wt, dir);
        assert!(wt.join("cohost_tool_output.txt").is_file(), "{m}");
    }
    let codex_id = codex["id"].as_str().unwrap();
    let codex_wt = worktree_of(codex_id).unwrap();

    // Keep Claude's: its file arrives, Codex's worktree goes (its change
    // kept under refs/cohost/), the user's stash and branch stay.
    let claude_id = claude["id"].as_str().unwrap();
    let kept = ok(&b, &["worktree", "keep", claude_id]).await;
    assert!(kept.contains("applied 1 file(s)"), "{kept}");
    assert!(kept.contains("worktree removed"), "{kept}");
    assert!(dir.join("cohost_tool_output.txt").is_file());
    assert!(!codex_wt.exists(), "codex's worktree is gone");
    assert_eq!(worktree_of(codex_id), None);
    assert_eq!(git(&home, &dir, &["stash", "list"]).lines().count(), 1);
    let refs = git(
        &home,
        &dir,
        &["for-each-ref", "--format=%(refname)", "refs/cohost/"],
    );
    assert!(
        refs.contains(&format!("refs/cohost/sessions/{codex_id}/discarded")),
        "{refs}"
    );

    // A room member cannot be kept twice: its worktree was applied, and a
    // session that is not one is named.
    let (code, _, err) = cohost(&b, &["worktree", "keep", "s-nope"]).await;
    assert_ne!(code, 0);
    assert!(err.contains("s-nope"), "{err}");
}

/// A handoff between real agents: Claude writes a file in the chat room,
/// `/handoff codex` gives Codex the conversation, and Codex's first request
/// to the model holds Claude's prompt, its tool call and the diff.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_hands_off_to_codex_with_the_prompt_the_tool_call_and_the_diff() {
    use crate::tui_support::Tty;
    const WAIT: std::time::Duration = std::time::Duration::from_secs(60);
    if require_cli(AgentCli::Claude).is_none() || require_cli(AgentCli::Codex).is_none() {
        return;
    }
    let b = Bench::start_many(
        &[AgentCli::Claude, AgentCli::Codex],
        FakeLlmConfig::default(),
    )
    .await
    .unwrap();
    let (home, dir) = (b.home().to_path_buf(), b.cwd().to_path_buf());
    users_repo(&home, &dir);
    let args = [
        "chat",
        "--agent",
        "claude",
        "--agent",
        "codex",
        "--approve",
        "all",
    ];
    let mut t = Tty::spawn_env(tempfile::tempdir().unwrap(), &dir, b.env(), &args, 40, 120);
    t.wait_for("a room of claude, codex", WAIT);
    t.type_line("[[scenario:write]] create the file");
    t.wait_for("cohost_tool_output.txt", WAIT);
    t.wait_for("claude ready · codex ready", WAIT);
    t.type_line("/handoff codex check what claude wrote");
    t.wait_for("handed claude's conversation", WAIT);
    t.wait_for("── codex ──", WAIT);
    let start = std::time::Instant::now();
    let request = loop {
        if let Some(r) = b.last_request_with("You are taking over work from claude") {
            break r;
        }
        assert!(
            start.elapsed() < WAIT,
            "codex never asked the model:\n{}",
            t.screen()
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    // The request is JSON: its text is escaped once more.
    let text: String = serde_json::from_str::<serde_json::Value>(&request)
        .map(|v| v.to_string())
        .unwrap_or(request);
    assert!(
        text.contains("[[scenario:write]] create the file"),
        "{text}"
    );
    assert!(text.contains("Tool call: "), "{text}");
    assert!(text.contains("cohost_tool_output.txt"), "{text}");
    assert!(text.contains("+cohost-tool-ok"), "the diff: {text}");
    assert!(text.contains("check what claude wrote"), "{text}");
    t.wait_for("claude ready · codex ready", WAIT);
    t.type_line("/quit");
    assert_eq!(t.wait_exit(WAIT), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_room_runs_a_co_drivers_suggestion_for_gemini_on_gemini_only() {
    // Claude and Gemini shared; a co-driver's `@gemini` suggestion, accepted
    // by the host, runs on Gemini alone; the host's `@claude` prompt writes
    // a file after an approval that names Claude.
    use tokio::io::AsyncWriteExt;
    if require_cli(AgentCli::Claude).is_none() || require_cli(AgentCli::Gemini).is_none() {
        return;
    }
    let b = Bench::start_many(
        &[AgentCli::Claude, AgentCli::Gemini],
        FakeLlmConfig::default(),
    )
    .await
    .unwrap();
    let (home, dir) = (b.home().to_path_buf(), b.cwd().to_path_buf());
    users_repo(&home, &dir);
    let before = user_state(&home, &dir);
    let share = [
        "share",
        "--agent",
        "claude",
        "--agent",
        "gemini",
        "--approve",
        "ask",
        "--json",
    ];
    let (host, mut stdin, mut notices) = host_notices::share(&b, share);
    let co = notices
        .until("the invites", |n| {
            (n["notice"] == "invites").then(|| n["co_driver"].as_str().unwrap().to_string())
        })
        .await;

    // A co-driver's `@gemini TEXT`.
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
                "@gemini [[scenario:text]] room-marker-7 say hello",
            ],
        )
        .env("COHOST_INVITE", &co)
        .output();
    let join = tokio::spawn(join);
    let suggestion = notices
        .until("the suggestion", |n| {
            (n["notice"] == "suggested").then(|| n["suggestion"].clone())
        })
        .await;
    assert_eq!(suggestion["to"], "gemini", "{suggestion}");
    let id = suggestion["suggestion_id"].as_str().unwrap();
    stdin
        .write_all(format!("/accept {id}\n").as_bytes())
        .await
        .unwrap();
    let out = tokio::time::timeout(std::time::Duration::from_secs(120), join)
        .await
        .expect("the co-driver saw the turn end")
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let turn: Vec<serde_json::Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|f| {
            f["frame"]
                .as_str()
                .is_some_and(|k| k.starts_with("ai.execution") || k.starts_with("ai.stream"))
        })
        .collect();
    assert_eq!(turn[0]["frame"], "ai.execution.started", "{stdout}");
    assert_eq!(turn[0]["payload"]["agent"], "gemini");
    assert_eq!(turn[0]["payload"]["provider"], "gemini");
    for f in &turn[1..] {
        assert_eq!(f["payload"]["agent"], "gemini", "{f}");
    }
    let last = turn.last().unwrap();
    assert_eq!(last["payload"]["reason"], "completed", "{last}");

    // Only Gemini's model was asked; Claude never heard of it.
    let asked: Vec<String> = b
        .fake()
        .requests()
        .into_iter()
        .filter(|r| r.body.to_string().contains("room-marker-7"))
        .map(|r| r.path)
        .collect();
    // (Gemini CLI also asks its model outside the turn's stream, e.g. for
    // a topic, on the same API.)
    assert!(
        asked
            .iter()
            .any(|p| AgentCli::Gemini.model_api().matches_path(p)),
        "gemini asked its model: {asked:?}"
    );
    for path in &asked {
        assert!(
            path.starts_with("/v1beta/models/") && !AgentCli::Claude.model_api().matches_path(path),
            "a request for the suggestion went to {path}"
        );
    }

    // The host's `@claude TEXT`: Claude's tool call waits for the host, who
    // is told whose it is.
    stdin
        .write_all(b"@claude [[scenario:write]] create the file\n")
        .await
        .unwrap();
    let approval = notices
        .until("claude's approval", |n| {
            (n["notice"] == "approval_needed").then(|| n.clone())
        })
        .await;
    assert_eq!(approval["agent"], "claude", "{approval}");
    let tool = approval["tool_id"].as_str().unwrap();
    stdin
        .write_all(format!("/allow {tool}\n").as_bytes())
        .await
        .unwrap();
    let end = notices
        .until("claude's turn end", |n| {
            let e = &n["event"];
            (n["notice"] == "event" && e["type"] == "stream_end").then(|| e.clone())
        })
        .await;
    assert_eq!(
        (end["agent"].as_str(), end["reason"].as_str()),
        (Some("claude"), Some("completed")),
        "{end}"
    );

    host_notices::quit(host, stdin).await;
    // Claude wrote in its own worktree, which stays (it holds the change),
    // Gemini's went; the user's checkout, index and stash are as they were.
    assert!(!dir.join("cohost_tool_output.txt").exists());
    assert_eq!(
        without_session_branches(&user_state(&home, &dir)),
        without_session_branches(&before)
    );
    let list = git(&home, &dir, &["worktree", "list", "--porcelain"]);
    assert_eq!(
        list.matches("worktree ").count(),
        2,
        "claude's stays: {list}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_asks_codex_through_the_room_bridge_after_the_host_allows_it() {
    // The fake model makes Claude call `ask_member(codex, …)`; the host
    // allows that call (an approval naming Claude); Codex runs a turn the
    // room sees, and its answer comes back to Claude as the tool result.
    use tokio::io::AsyncWriteExt;
    if require_cli(AgentCli::Claude).is_none() || require_cli(AgentCli::Codex).is_none() {
        return;
    }
    let script = serde_json::json!({
        "default": "text",
        "steps": [
            {"scenario": "tool", "match": "bridge-marker-9", "tool": "ask_member",
             "args": {"name": "codex", "prompt": "codex-question-5: what colour is the sky?"}},
            {"scenario": "text", "match": "codex-question-5", "text": "the sky is teal, says codex"}
        ]
    });
    let config = scripted(&script);
    let b = Bench::start_many(&[AgentCli::Claude, AgentCli::Codex], config)
        .await
        .unwrap();
    let (home, dir) = (b.home().to_path_buf(), b.cwd().to_path_buf());
    users_repo(&home, &dir);
    // MCP tools inline in Claude's request (no deferred tool search), so
    // the fake model sees `ask_member` in the first one.
    let cfg_dir = b.layout().xdg_config.join("cohost");
    std::fs::create_dir_all(&cfg_dir).unwrap();
    let cfg_file = cfg_dir.join("config.toml");
    let mut cfg = std::fs::read_to_string(&cfg_file).unwrap_or_default();
    cfg.push_str("\n[providers.claude.env]\nENABLE_TOOL_SEARCH = \"false\"\n");
    std::fs::write(&cfg_file, cfg).unwrap();

    let (host, mut stdin, mut notices) = shared_room(&b, "claude", "codex").await;
    stdin
        .write_all(b"@claude bridge-marker-9 ask codex about the sky\n")
        .await
        .unwrap();
    let approval = notices
        .until("claude's bridge call", |n| {
            (n["notice"] == "approval_needed").then(|| n.clone())
        })
        .await;
    assert_eq!(approval["agent"], "claude", "{approval}");
    assert!(
        approval["name"]
            .as_str()
            .unwrap_or("")
            .contains("ask_member"),
        "{approval}"
    );
    let tool = approval["tool_id"].as_str().unwrap();
    stdin
        .write_all(format!("/allow {tool}\n").as_bytes())
        .await
        .unwrap();
    // The room sees who asked whom, and Codex's turn under its name.
    notices
        .until("the bridge's note", |n| {
            let m = n["message"].as_str().unwrap_or("");
            (n["notice"] == "room" && m.starts_with("claude asks codex")).then_some(())
        })
        .await;
    let codex_said = notices
        .until("codex's answer", |n| {
            let e = &n["event"];
            (e["agent"] == "codex" && e["type"] == "stream_chunk")
                .then(|| e["delta"].as_str().unwrap_or("").to_string())
        })
        .await;
    assert!(!codex_said.is_empty());
    let claude_end = notices
        .until("claude's turn end", |n| {
            let e = &n["event"];
            (e["agent"] == "claude" && e["type"] == "stream_end").then(|| e.clone())
        })
        .await;
    assert_eq!(claude_end["reason"], "completed", "{claude_end}");
    // Claude's model got Codex's answer as the tool's result.
    let fed_back = b
        .last_request_with("the sky is teal, says codex")
        .expect("codex's answer reached claude's model");
    assert!(
        fed_back.contains("bridge-marker-9"),
        "it is claude's conversation"
    );

    host_notices::quit(host, stdin).await;
}

/// The answers of the shared room's host console, as notices: the next
/// approval, its tool id after checking whose it is and what it asks.
async fn bridge_approval(notices: &mut host_notices::Notices, asked: &str) -> String {
    let approval = notices
        .until("codex's bridge call", |n| {
            (n["notice"] == "approval_needed").then(|| n.clone())
        })
        .await;
    // Codex runs MCP tools without asking cohost: this request is the
    // bridge's own, raised on codex's turn.
    assert_eq!(approval["agent"], "codex", "{approval}");
    assert_eq!(
        approval["name"], "mcp__cohost_room__ask_member",
        "{approval}"
    );
    assert_eq!(approval["input"]["name"], "codex#2", "{approval}");
    assert!(
        approval["input"]["prompt"]
            .as_str()
            .unwrap_or("")
            .contains(asked),
        "{approval}"
    );
    approval["tool_id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_asks_through_the_room_bridge_only_as_the_host_allows() {
    // Codex runs MCP tools without asking cohost, so the room bridge asks
    // the host itself: an allowed `ask_member` runs a turn on the other
    // member (a second Codex) and its answer comes back to Codex's model as
    // the tool's result; a denied one gives Codex's model an error naming
    // who refused, and the other member runs nothing.
    use tokio::io::AsyncWriteExt;
    if require_cli(AgentCli::Codex).is_none() {
        return;
    }
    let script = serde_json::json!({
        "default": "text",
        "steps": [
            {"scenario": "tool", "match": "bridge-allow-3", "tool": "ask_member",
             "args": {"name": "codex#2", "prompt": "codex-question-5: what colour is the sky?"}},
            {"scenario": "text", "match": "codex-question-5", "text": "the sky is teal, says codex#2"},
            {"scenario": "tool", "match": "bridge-deny-4", "tool": "ask_member",
             "args": {"name": "codex#2", "prompt": "codex-question-6: and the sea?"}}
        ]
    });
    let config = scripted(&script);
    let b = Bench::start_many(&[AgentCli::Codex], config).await.unwrap();
    let (home, dir) = (b.home().to_path_buf(), b.cwd().to_path_buf());
    users_repo(&home, &dir);
    let (host, mut stdin, mut notices) = shared_room(&b, "codex", "codex").await;

    // Allowed: the call waited for the host, then codex#2 answered.
    stdin
        .write_all(b"@codex bridge-allow-3 ask codex#2 about the sky\n")
        .await
        .unwrap();
    let tool = bridge_approval(&mut notices, "codex-question-5").await;
    assert!(
        b.last_request_with("codex-question-5").is_none(),
        "codex#2 was asked before the host allowed it"
    );
    stdin
        .write_all(format!("/allow {tool}\n").as_bytes())
        .await
        .unwrap();
    notices.room("codex asks codex#2").await;
    let end = notices
        .until("codex's turn end", |n| {
            let e = &n["event"];
            (e["agent"] == "codex" && e["type"] == "stream_end").then(|| e.clone())
        })
        .await;
    assert_eq!(end["reason"], "completed", "{end}");
    let fed_back = b
        .last_request_with("the sky is teal, says codex#2")
        .expect("codex#2's answer reached codex's model");
    assert!(fed_back.contains("bridge-allow-3"), "it is codex's turn");

    // Denied: codex's model reads who refused; codex#2 is never asked.
    stdin
        .write_all(b"@codex bridge-deny-4 ask codex#2 about the sea\n")
        .await
        .unwrap();
    let tool = bridge_approval(&mut notices, "codex-question-6").await;
    stdin
        .write_all(format!("/deny {tool}\n").as_bytes())
        .await
        .unwrap();
    let note = notices.room("codex's bridge call was refused").await;
    assert!(note.contains("denied by the host"), "{note}");
    let end = notices
        .until("codex's second turn end", |n| {
            let e = &n["event"];
            (e["agent"] == "codex" && e["type"] == "stream_end").then(|| e.clone())
        })
        .await;
    assert_eq!(end["reason"], "completed", "{end}");
    let refused = b
        .last_request_with("bridge-deny-4")
        .expect("codex's model was asked again after the call");
    assert!(
        refused.contains("the room did not allow codex's call of mcp__cohost_room__ask_member"),
        "{refused}"
    );
    assert!(refused.contains("denied by the host"), "{refused}");
    let asked_6 = b.fake().requests().into_iter().any(|r| {
        let body = r.body.to_string();
        body.contains("another agent in this cohost room, asks you")
            && body.contains("codex-question-6")
    });
    assert!(!asked_6, "codex#2 ran a turn for a denied call");

    host_notices::quit(host, stdin).await;
}

/// The fake model playing `script` (a step list in the fakellm script
/// format).
fn scripted(script: &serde_json::Value) -> FakeLlmConfig {
    FakeLlmConfig {
        script: Some(
            cohost_fakellm::parse_script(&script.to_string(), std::path::Path::new("inline.json"))
                .unwrap(),
        ),
        ..FakeLlmConfig::default()
    }
}

/// `cohost share --agent A --agent B --approve ask --json` on `b`, once
/// it has printed its invites: the host, its console and its notices.
async fn shared_room(
    b: &Bench,
    a: &str,
    other: &str,
) -> (
    tokio::process::Child,
    tokio::process::ChildStdin,
    host_notices::Notices,
) {
    let share = [
        "share",
        "--agent",
        a,
        "--agent",
        other,
        "--approve",
        "ask",
        "--json",
    ];
    let (host, stdin, mut notices) = host_notices::share(b, share);
    notices
        .until("the invites", |n| (n["notice"] == "invites").then_some(()))
        .await;
    (host, stdin, notices)
}
