//! `cohost run --file PATH[:A-B]` and `--image PATH` (issue 18): the mock
//! (no attachments) gets a range's lines inline and refuses images with
//! UNSUPPORTED_MODE; the real Claude Code sends both to the model in its
//! native form (a text block with the file, a base64 `image` block).

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::cli_support;

use cli_support::{agents_bin, claude, cohost_in, failed, last_request_with, ok};

/// The smallest valid PNG: 1x1, one grey pixel.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x7e, 0x9b,
    0x55, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x01, 0x48, 0xaf, 0xa4, 0x71, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

fn workspace(home: &std::path::Path) {
    std::fs::write(
        home.join("notes.txt"),
        "line-one\nline-two\nline-three\nline-four\n",
    )
    .unwrap();
    std::fs::write(home.join("pixel.png"), PNG).unwrap();
}

#[test]
fn files_reach_the_mock_inline_and_images_are_refused() {
    let home = tempfile::tempdir().unwrap();
    workspace(home.path());
    let c = || cohost_in(home.path(), "/usr/bin:/bin");
    let out = ok(&c()
        .args([
            "run",
            "--agent",
            "mock",
            "--file",
            "notes.txt:2-3",
            "summarize",
        ])
        .output()
        .unwrap());
    assert!(out.contains("line-two\nline-three"), "{out}");
    assert!(
        !out.contains("line-one") && !out.contains("line-four"),
        "{out}"
    );
    assert!(out.contains("<file path=\"notes.txt\">"), "{out}");

    let img = c()
        .args([
            "run",
            "--agent",
            "mock",
            "--image",
            "pixel.png",
            "what is it",
        ])
        .output()
        .unwrap();
    let err = failed(&img, 4);
    assert!(err.contains("UNSUPPORTED_MODE"), "{err}");
    assert!(err.contains("does not take images"), "{err}");
    assert!(err.contains("driver.images"), "{err}");

    for (arg, what) in [
        ("notes.txt:3-2", "not a valid line range"),
        ("notes.txt:9-12", "has 4 lines"),
        ("nope.txt", "cannot attach"),
    ] {
        let out = c()
            .args(["run", "--agent", "mock", "--file", arg, "x"])
            .output()
            .unwrap();
        assert!(failed(&out, 3).contains(what), "{arg}");
    }
    let not_image = c()
        .args(["run", "--agent", "mock", "--image", "notes.txt", "x"])
        .output()
        .unwrap();
    assert!(failed(&not_image, 3).contains("not a PNG, JPEG, GIF or WebP"));

    let agents = ok(&c().args(["agents", "--json"]).output().unwrap());
    let agents: serde_json::Value = serde_json::from_str(&agents).unwrap();
    let caps = |id: &str| {
        agents
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["provider_id"] == id)
            .map(|a| a["driver"].clone())
            .unwrap_or_else(|| panic!("no {id} in {agents}"))
    };
    assert_eq!(caps("claude")["images"], true, "{}", caps("claude"));
    assert_eq!(caps("mock")["images"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_claude_gets_file_and_image_blocks() {
    let Some(bin) = agents_bin() else { return };
    let fake = cohost_fakellm::FakeLlm::start(Default::default())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    workspace(home.path());
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    let base = fake.base_url();
    tokio::task::block_in_place(|| {
        let out = claude(cohost_in(home.path(), &path), &base)
            .args(["run", "--agent", "claude", "--approve", "none"])
            .args([
                "--file",
                "notes.txt:1-2",
                "--image",
                "pixel.png",
                "describe-these",
            ])
            .output()
            .unwrap();
        ok(&out);
    });
    let body = last_request_with(&fake, "describe-these");
    let user = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap()
        .clone();
    let blocks = user["content"].as_array().unwrap();
    let text: String = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
    assert!(text.contains("line-one\nline-two"), "{user}");
    assert!(!text.contains("line-three"), "{user}");
    let image = blocks
        .iter()
        .find(|b| b["type"] == "image")
        .expect("an image block");
    assert_eq!(image["source"]["type"], "base64");
    assert_eq!(image["source"]["media_type"], "image/png");
    use base64::Engine as _;
    let data = base64::engine::general_purpose::STANDARD
        .decode(image["source"]["data"].as_str().unwrap())
        .unwrap();
    assert_eq!(data, PNG);
    fake.shutdown().await;
}

/// An HTTP API provider sends the image as its protocol's image part.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_api_gets_an_image_part() {
    let fake = cohost_fakellm::FakeLlm::start(Default::default())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    workspace(home.path());
    let base = format!("{}/v1", fake.base_url());
    tokio::task::block_in_place(|| {
        let out = cohost_in(home.path(), "/usr/bin:/bin")
            .env("OPENAI_BASE_URL", &base)
            .env("OPENAI_API_KEY", "sk-test-not-a-real-key-000000")
            .args(["run", "--agent", "openai", "--model", "fake-model"])
            .args(["--image", "pixel.png", "look-at-this"])
            .output()
            .unwrap();
        ok(&out);
    });
    let body = last_request_with(&fake, "look-at-this");
    let text = body.to_string();
    use base64::Engine as _;
    let url = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(PNG)
    );
    assert!(text.contains(&url), "{text}");
    fake.shutdown().await;
}
