//! The web page's browser notifications (issue 34): each test runs one
//! scenario of `crates/cohost-relay/web/test/notify.mjs` (Debian chromium,
//! headless, through `playwright-core`, against a real `cohost share` host
//! over the mock agent), as `web_page` does for the page's other scenarios.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs one scenario of notify.mjs; its output is the test's output.
fn scenario(name: &str, browser: bool) {
    let chromium =
        PathBuf::from(std::env::var("COHOST_CHROMIUM").unwrap_or("/usr/bin/chromium".into()));
    let playwright = std::env::var("COHOST_PLAYWRIGHT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default())
                .join(".cache/cohost-web-test/node_modules/playwright-core")
        });
    let why = if Command::new("node").arg("--version").output().is_err() {
        Some("node is not on PATH".to_owned())
    } else if browser && !chromium.exists() {
        Some(format!(
            "{} is missing: apt-get install -y chromium",
            chromium.display()
        ))
    } else if browser && !playwright.join("package.json").exists() {
        Some(format!(
            "playwright-core is not installed in {}: run scripts/test.sh",
            playwright.display()
        ))
    } else {
        None
    };
    if let Some(why) = why {
        cohost_testbench::skip_or_fail(&format!("web page test {name}: {why}"));
        return;
    }
    let out = Command::new("node")
        .arg(repo().join("crates/cohost-relay/web/test/notify.mjs"))
        .arg(name)
        .env("COHOST_BIN", env!("CARGO_BIN_EXE_cohost"))
        .env("COHOST_CHROMIUM", chromium)
        .env("COHOST_PLAYWRIGHT_DIR", playwright)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "scenario {name} failed:\n{stdout}");
    assert!(
        stdout.contains(&format!("ok {name} ")),
        "scenario {name} did not run:\n{stdout}"
    );
}

#[test]
fn web_notice_texts_are_short_and_never_the_prompt() {
    scenario("web_notice_texts", false);
}

#[test]
fn web_page_asks_after_a_click_and_notifies_only_when_unfocused() {
    scenario("web_notifications_after_a_click", true);
}
