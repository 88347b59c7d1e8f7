//! Golden command lines of every CLI driver, written from the drivers'
//! hard-coded flags before they read the flag table, so moving a spelling
//! into the table cannot change what a CLI receives; plus one check per
//! driver that the table's spellings are the ones on its command line.

use std::collections::BTreeMap;
use std::ffi::OsString;

use cohost_core::port::{AdapterConfig, ApprovalMode};

use crate::process::oneshot::SessionArg;

/// The four inputs every driver is checked with.
const CASES: [&str; 4] = ["plain", "model", "resume", "auto"];

fn config(case: &str) -> AdapterConfig {
    let mut cfg = AdapterConfig {
        // No `.git` here (aider) and no Continue config (continue).
        cwd: "/nonexistent-cohost-argv".into(),
        env: BTreeMap::from([
            (
                "CONTINUE_GLOBAL_DIR".into(),
                "/nonexistent-cohost-argv".into(),
            ),
            // Fixed so qwen's `--auth-type` does not depend on the test's env.
            ("OPENAI_API_KEY".into(), "k".into()),
        ]),
        ..Default::default()
    };
    match case {
        "model" => cfg.model = Some("m1".into()),
        "resume" => cfg.resume = Some("S1".into()),
        "auto" => cfg.approval = ApprovalMode::AutoApprove,
        _ => {}
    }
    cfg
}

fn session(case: &str) -> Option<SessionArg> {
    (case == "resume").then(|| SessionArg {
        id: "S1".into(),
        fresh: false,
    })
}

fn strs(args: Vec<OsString>) -> Vec<String> {
    args.into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// The argv (after the binary) of `driver` for `case`, prompt "-hi".
fn argv(driver: &str, case: &str) -> Vec<String> {
    let cfg = config(case);
    let s = session(case);
    let id = s.as_ref().map(|s| s.id.as_str());
    let prompt = "-hi";
    match driver {
        "claude" => crate::claude::dialect::CLAUDE.args(&cfg),
        "qwen" => crate::claude::dialect::QWEN.args(&cfg),
        "codex" => strs(crate::codex::exec::exec_args(prompt, &cfg, id)),
        "gemini" => {
            let flags = crate::gemini::engine::HelpFlags {
                resume: true,
                approval_mode: true,
            };
            strs(crate::gemini::engine::turn_args(prompt, &cfg, flags, id))
        }
        "opencode" => strs(crate::opencode::turn_args(prompt, &cfg, s.as_ref())),
        "copilot" => strs(crate::copilot::turn_args(prompt, &cfg, s.as_ref())),
        "aider" => strs(crate::aider::turn_args(prompt, &cfg, false)),
        "continue" => strs(crate::continue_cli::turn_args(prompt, &cfg, false)),
        "cursor" => strs(crate::cursor::turn_args(prompt, &cfg, id)),
        "goose" => strs(crate::goose::turn_args(prompt, &cfg, s.as_ref())),
        "kiro" => strs(crate::kiro::turn_args(prompt, &cfg, false)),
        "agy" => strs(crate::agy::turn_args(prompt, &cfg, id)),
        other => panic!("unknown driver {other}"),
    }
}

const DRIVERS: [&str; 12] = [
    "claude", "qwen", "codex", "gemini", "opencode", "copilot", "aider", "continue", "cursor",
    "goose", "kiro", "agy",
];

/// `(driver, case, argv)` as the drivers built them before reading the table.
#[rustfmt::skip]
const GOLDEN: &[(&str, &str, &[&str])] = &[
    ("claude", "plain", &["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--permission-prompt-tool", "stdio"]),
    ("claude", "model", &["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--permission-prompt-tool", "stdio", "--model", "m1"]),
    ("claude", "resume", &["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--permission-prompt-tool", "stdio", "--resume", "S1"]),
    ("claude", "auto", &["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--permission-prompt-tool", "stdio", "--dangerously-skip-permissions"]),
    ("qwen", "plain", &["-o", "stream-json", "--input-format", "stream-json", "--include-partial-messages", "--approval-mode", "default", "--auth-type", "openai"]),
    ("qwen", "model", &["-o", "stream-json", "--input-format", "stream-json", "--include-partial-messages", "--approval-mode", "default", "--auth-type", "openai", "-m", "m1"]),
    ("qwen", "resume", &["-o", "stream-json", "--input-format", "stream-json", "--include-partial-messages", "--approval-mode", "default", "--auth-type", "openai", "--resume", "S1"]),
    ("qwen", "auto", &["-o", "stream-json", "--input-format", "stream-json", "--include-partial-messages", "--approval-mode", "yolo", "--auth-type", "openai"]),
    ("codex", "plain", &["exec", "--json", "--skip-git-repo-check", "-s", "read-only", "--", "-hi"]),
    ("codex", "model", &["exec", "--json", "--skip-git-repo-check", "-s", "read-only", "-m", "m1", "--", "-hi"]),
    ("codex", "resume", &["exec", "--json", "--skip-git-repo-check", "-s", "read-only", "resume", "S1", "--", "-hi"]),
    ("codex", "auto", &["exec", "--json", "--skip-git-repo-check", "-s", "workspace-write", "--", "-hi"]),
    ("gemini", "plain", &["--prompt=-hi", "--output-format", "stream-json"]),
    ("gemini", "model", &["--prompt=-hi", "--output-format", "stream-json", "--model", "m1"]),
    ("gemini", "resume", &["--prompt=-hi", "--output-format", "stream-json", "--resume", "S1"]),
    ("gemini", "auto", &["--prompt=-hi", "--output-format", "stream-json", "--approval-mode", "yolo"]),
    ("opencode", "plain", &["run", "--format", "json", "--thinking", "--", "-hi"]),
    ("opencode", "model", &["run", "--format", "json", "--thinking", "-m", "m1", "--", "-hi"]),
    ("opencode", "resume", &["run", "--format", "json", "--thinking", "-s", "S1", "--", "-hi"]),
    ("opencode", "auto", &["run", "--format", "json", "--thinking", "--auto", "--", "-hi"]),
    ("copilot", "plain", &["--output-format", "json", "--prompt=-hi"]),
    ("copilot", "model", &["--output-format", "json", "--model", "m1", "--prompt=-hi"]),
    ("copilot", "resume", &["--output-format", "json", "--resume", "S1", "--prompt=-hi"]),
    ("copilot", "auto", &["--output-format", "json", "--allow-all-tools", "--prompt=-hi"]),
    ("aider", "plain", &["--no-pretty", "--stream", "--no-fancy-input", "--no-check-update", "--no-show-model-warnings", "--no-show-release-notes", "--analytics-disable", "--dry-run", "--no-auto-commits", "--no-git", "--message", "-hi"]),
    ("aider", "model", &["--no-pretty", "--stream", "--no-fancy-input", "--no-check-update", "--no-show-model-warnings", "--no-show-release-notes", "--analytics-disable", "--model", "m1", "--dry-run", "--no-auto-commits", "--no-git", "--message", "-hi"]),
    ("aider", "resume", &["--no-pretty", "--stream", "--no-fancy-input", "--no-check-update", "--no-show-model-warnings", "--no-show-release-notes", "--analytics-disable", "--restore-chat-history", "--dry-run", "--no-auto-commits", "--no-git", "--message", "-hi"]),
    ("aider", "auto", &["--no-pretty", "--stream", "--no-fancy-input", "--no-check-update", "--no-show-model-warnings", "--no-show-release-notes", "--analytics-disable", "--yes-always", "--message", "-hi"]),
    ("continue", "plain", &["-p", "--format", "json", "--exclude", "Bash", "--exclude", "Write", "--exclude", "Edit", "--exclude", "MultiEdit", "--", "-hi"]),
    ("continue", "model", &["-p", "--format", "json", "--exclude", "Bash", "--exclude", "Write", "--exclude", "Edit", "--exclude", "MultiEdit", "--", "-hi"]),
    ("continue", "resume", &["-p", "--format", "json", "--resume", "--exclude", "Bash", "--exclude", "Write", "--exclude", "Edit", "--exclude", "MultiEdit", "--", "-hi"]),
    ("continue", "auto", &["-p", "--format", "json", "--auto", "--", "-hi"]),
    ("cursor", "plain", &["-p", "--output-format", "stream-json", "--", "-hi"]),
    ("cursor", "model", &["-p", "--output-format", "stream-json", "--model", "m1", "--", "-hi"]),
    ("cursor", "resume", &["-p", "--output-format", "stream-json", "--resume", "S1", "--", "-hi"]),
    ("cursor", "auto", &["-p", "--output-format", "stream-json", "--force", "--", "-hi"]),
    ("goose", "plain", &["run", "--output-format", "stream-json", "--text", "-hi"]),
    ("goose", "model", &["run", "--output-format", "stream-json", "--model", "m1", "--text", "-hi"]),
    ("goose", "resume", &["run", "--output-format", "stream-json", "--name", "S1", "--resume", "--text", "-hi"]),
    ("goose", "auto", &["run", "--output-format", "stream-json", "--text", "-hi"]),
    ("kiro", "plain", &["chat", "--no-interactive", "--", "-hi"]),
    ("kiro", "model", &["chat", "--no-interactive", "--model", "m1", "--", "-hi"]),
    ("kiro", "resume", &["chat", "--no-interactive", "--resume", "--", "-hi"]),
    ("kiro", "auto", &["chat", "--no-interactive", "--trust-all-tools", "--", "-hi"]),
    ("agy", "plain", &["-p", "-hi", "--output-format", "stream-json"]),
    ("agy", "model", &["-p", "-hi", "--output-format", "stream-json", "--model", "m1"]),
    ("agy", "resume", &["-p", "-hi", "--output-format", "stream-json", "--conversation", "S1"]),
    ("agy", "auto", &["-p", "-hi", "--output-format", "stream-json"]),
];

#[test]
fn every_driver_argv_is_unchanged() {
    let mut seen = 0;
    for (driver, case, want) in GOLDEN {
        assert_eq!(argv(driver, case), *want, "{driver} / {case}");
        seen += 1;
    }
    assert_eq!(
        seen,
        DRIVERS.len() * CASES.len(),
        "a driver or case lacks its golden argv"
    );
}
