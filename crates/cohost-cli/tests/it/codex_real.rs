//! `cohost run --agent codex` with `--image` and `--fork` against the real
//! pinned Codex CLI (app-server) and cohost's fake model server, in a
//! scratch HOME and CODEX_HOME: the image reaches the model request as an
//! image input; a forked thread has its own id and starts from the
//! parent's history. Skips with a loud notice when codex is not installed,
//! unless `CI` is set.

use cohost_testbench::{require_cli, AgentCli, Bench};

/// The smallest valid PNG: 1x1, one grey pixel.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x7e, 0x9b,
    0x55, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x01, 0x48, 0xaf, 0xa4, 0x71, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

async fn codex_bench() -> Option<Bench> {
    require_cli(AgentCli::Codex)?;
    Some(Bench::start(AgentCli::Codex).await.unwrap())
}

/// `cohost ARGS` in the bench; its stdout, after asserting exit 0.
async fn cohost(b: &Bench, args: &[&str]) -> String {
    let cmd = b.command_for(env!("CARGO_BIN_EXE_cohost"), args).output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(120), cmd)
        .await
        .expect("cohost finished")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "cohost {args:?}\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The last model request whose body contains `needle`, as text.
fn request_with(b: &Bench, needle: &str) -> String {
    b.last_request_with(needle)
        .unwrap_or_else(|| panic!("no model request carried {needle:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_sends_an_image_to_the_model() {
    let Some(b) = codex_bench().await else { return };
    std::fs::write(b.cwd().join("pixel.png"), PNG).unwrap();
    let run = ["run", "--agent", "codex", "--approve", "none"];
    let out = cohost(
        &b,
        &[&run[..], &["--image", "pixel.png", "look-at-this"]].concat(),
    )
    .await;
    assert!(out.contains("Hello from fake-llm"), "{out}");
    let body: serde_json::Value = serde_json::from_str(&request_with(&b, "look-at-this")).unwrap();
    // The Responses API's user message: the text, then an `input_image`
    // whose data URL is a PNG (codex may re-encode it, so not byte-equal).
    let parts: Vec<serde_json::Value> = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .collect();
    let image = parts
        .iter()
        .find(|p| p["type"] == "input_image")
        .unwrap_or_else(|| panic!("no input_image in {body}"));
    let url = image["image_url"].as_str().unwrap();
    assert!(url.starts_with("data:image/png;base64,"), "{url}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_fork_is_a_new_thread_that_starts_from_the_parent() {
    let Some(b) = codex_bench().await else { return };
    let run = ["run", "--agent", "codex", "--approve", "none"];
    cohost(&b, &[&run[..], &["parent-turn-alpha"]].concat()).await;
    let sessions = || async {
        let out = cohost(&b, &["sessions", "--json"]).await;
        serde_json::from_str::<serde_json::Value>(&out)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    };
    let all = sessions().await;
    assert_eq!(all.len(), 1, "{all:?}");
    let parent_id = all[0]["id"].as_str().unwrap().to_string();
    let parent_thread = all[0]["native_session_id"].clone();
    assert!(parent_thread.is_string(), "{all:?}");

    cohost(
        &b,
        &[&run[..], &["--fork", &parent_id, "fork-turn-beta"]].concat(),
    )
    .await;
    let body = request_with(&b, "fork-turn-beta");
    assert!(
        body.contains("parent-turn-alpha"),
        "the fork's first request carries the parent's history: {body}"
    );
    let all = sessions().await;
    assert_eq!(all.len(), 2, "a fork is a new session: {all:?}");
    let child = all.iter().find(|s| s["id"] != parent_id.as_str()).unwrap();
    assert!(child["native_session_id"].is_string(), "{child}");
    assert_ne!(child["native_session_id"], parent_thread, "a new thread id");

    // The parent goes on without the fork's turn.
    cohost(
        &b,
        &[&run[..], &["--resume", &parent_id, "parent-turn-gamma"]].concat(),
    )
    .await;
    let body = request_with(&b, "parent-turn-gamma");
    assert!(body.contains("parent-turn-alpha"), "{body}");
    assert!(
        !body.contains("fork-turn-beta"),
        "the parent never saw the fork: {body}"
    );
}
