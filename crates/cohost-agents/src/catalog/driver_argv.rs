//! Golden command lines of the CLI drivers, written from the drivers'
//! hard-coded flags before they read the flag table, so moving a spelling
//! into the table cannot change what a CLI receives; plus one check per
//! driver that the table's spellings are the ones on its command line.
//! A driver folder may keep its goldens itself, with [`oneshot_case`].

use std::collections::BTreeMap;

use cohost_core::port::{AdapterConfig, ApprovalMode};

use crate::process::oneshot::{strs, CliDriver, SessionArg};

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

/// The argv (after the binary) of one-shot `driver` for `case`, prompt
/// "-hi", for a driver folder's own golden test; `resumes_by_id`: the
/// driver takes the session of the `resume` case.
pub(crate) fn oneshot_case<D: CliDriver>(
    driver: D,
    case: &str,
    resumes_by_id: bool,
) -> Vec<String> {
    let s = session(case).filter(|_| resumes_by_id);
    oneshot(driver, "-hi", &config(case), s)
}

/// A one-shot driver's first-turn argv.
fn oneshot<D: CliDriver>(
    driver: D,
    prompt: &str,
    cfg: &AdapterConfig,
    session: Option<SessionArg>,
) -> Vec<String> {
    strs(driver.turn_args(prompt, cfg, session.as_ref(), false))
}

/// The argv (after the binary) of `driver` for `case`, prompt "-hi".
fn argv(driver: &str, case: &str) -> Vec<String> {
    let cfg = config(case);
    let s = session(case);
    let id = s.as_ref().map(|s| s.id.as_str());
    let prompt = "-hi";
    match driver {
        "claude" => crate::claude::CLAUDE.args(&cfg),
        "qwen" => crate::claude::QWEN.args(&cfg),
        "codex" => strs(crate::codex::exec::exec_args(prompt, &cfg, id)),
        "gemini" => {
            let flags = crate::gemini::engine::HelpFlags {
                resume: true,
                approval_mode: true,
            };
            strs(crate::gemini::engine::turn_args(prompt, &cfg, flags, id))
        }
        "opencode" => oneshot(crate::opencode::Driver, prompt, &cfg, s),
        "copilot" => oneshot(crate::copilot::Driver, prompt, &cfg, s),
        "aider" => oneshot(crate::aider::Driver, prompt, &cfg, None),
        "continue" => oneshot(crate::continue_cli::Driver, prompt, &cfg, None),
        "cursor" => oneshot(crate::cursor::Driver, prompt, &cfg, s),
        "goose" => oneshot(crate::goose::Driver, prompt, &cfg, s),
        "agy" => strs(crate::agy::engine::session_args(&cfg, id)),
        other => panic!("unknown driver {other}"),
    }
}

const DRIVERS: [&str; 11] = [
    "claude", "qwen", "codex", "gemini", "opencode", "copilot", "aider", "continue", "cursor",
    "goose", "agy",
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
    ("agy", "plain", &["--input-format", "stream-json", "--output-format", "stream-json", "--add-dir", "/nonexistent-cohost-argv"]),
    ("agy", "model", &["--input-format", "stream-json", "--output-format", "stream-json", "--add-dir", "/nonexistent-cohost-argv", "--model", "m1"]),
    ("agy", "resume", &["--input-format", "stream-json", "--output-format", "stream-json", "--add-dir", "/nonexistent-cohost-argv", "--conversation", "S1"]),
    ("agy", "auto", &["--input-format", "stream-json", "--output-format", "stream-json", "--add-dir", "/nonexistent-cohost-argv", "--dangerously-skip-permissions"]),
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

/// Which of the table's output spellings a driver runs with.
#[derive(Clone, Copy)]
enum Output {
    Json,
    Stream,
    Session,
}

/// Whether `seq` is in `argv`, its words in a row.
pub(crate) fn contains_seq(argv: &[String], seq: &[String]) -> bool {
    !seq.is_empty() && argv.windows(seq.len()).any(|w| w == seq)
}

/// The table entry `id`'s spellings are the ones on `driver`'s command line.
fn assert_uses_table(driver: &str, id: &str, output: Output) {
    let f = super::cli(id)
        .unwrap_or_else(|| panic!("{id} missing from the catalog"))
        .flags;
    let plain = argv(driver, "plain");
    let out = match output {
        Output::Json => f.json_args(),
        Output::Stream => f.stream_json_args(),
        Output::Session => f.stream_session_args(),
    };
    assert!(
        contains_seq(&plain, &out),
        "{driver}: output {out:?} not in {plain:?}"
    );
    let mode = f.non_interactive_args();
    assert!(
        mode.is_empty() || plain.starts_with(&mode),
        "{driver}: {mode:?}"
    );
    // A stream-json session takes its prompts on stdin.
    if !matches!(output, Output::Session) {
        let prompt = f.prompt_args("-hi");
        assert!(contains_seq(&plain, &prompt), "{driver}: {prompt:?}");
    }
    let model = argv(driver, "model");
    if f.model.is_some() {
        assert!(
            contains_seq(&model, &f.model_args("m1")),
            "{driver}: {model:?}"
        );
    } else {
        assert!(!model.iter().any(|a| a == "m1"), "{driver}: {model:?}");
    }
    let resume = argv(driver, "resume");
    let resumed = contains_seq(&resume, &f.resume_args("S1"))
        || (f.resume.is_none() && contains_seq(&resume, &f.continue_args()));
    assert!(resumed, "{driver}: {resume:?}");
    let bypass = f.bypass_args();
    let auto = argv(driver, "auto");
    if bypass.is_empty() {
        assert_eq!(auto, plain, "{driver}: auto-approve is not a flag here");
    } else {
        assert!(contains_seq(&auto, &bypass), "{driver}: {auto:?}");
        assert!(
            !contains_seq(&plain, &bypass),
            "{driver}: bypass without consent"
        );
    }
}

#[test]
fn claude_uses_its_table_entry() {
    assert_uses_table("claude", "claude", Output::Session);
}

#[test]
fn qwen_uses_its_table_entry() {
    assert_uses_table("qwen", "qwen", Output::Session);
}

#[test]
fn codex_exec_uses_its_table_entry() {
    // Auto-approve widens the sandbox instead (`-s workspace-write`).
    let f = super::flags("codex");
    let auto = argv("codex", "auto");
    assert!(!contains_seq(&auto, &f.bypass_args()), "{auto:?}");
    let plain = argv("codex", "plain");
    assert!(plain.starts_with(&f.non_interactive_args()));
    assert!(contains_seq(&plain, &f.json_args()));
    assert!(contains_seq(&argv("codex", "model"), &f.model_args("m1")));
    assert!(contains_seq(&argv("codex", "resume"), &f.resume_args("S1")));
}

#[test]
fn gemini_uses_its_table_entry() {
    assert_uses_table("gemini", "gemini", Output::Stream);
}

#[test]
fn opencode_uses_its_table_entry() {
    assert_uses_table("opencode", "opencode", Output::Json);
}

#[test]
fn copilot_uses_its_table_entry() {
    assert_uses_table("copilot", "copilot", Output::Json);
}

#[test]
fn aider_uses_its_table_entry() {
    // Aider prints plain text; it has no JSON output to check.
    let f = super::flags("aider");
    assert!(f.json_output.is_none() && f.stream_json.is_none());
    let auto = argv("aider", "auto");
    assert!(contains_seq(&auto, &f.bypass_args()));
    assert!(contains_seq(&auto, &f.prompt_args("-hi")));
    assert!(contains_seq(&argv("aider", "model"), &f.model_args("m1")));
    assert!(contains_seq(&argv("aider", "resume"), &f.continue_args()));
    assert!(!contains_seq(&argv("aider", "plain"), &f.bypass_args()));
}

#[test]
fn continue_uses_its_table_entry() {
    assert_uses_table("continue", "continue", Output::Json);
}

#[test]
fn cursor_uses_its_table_entry() {
    assert_uses_table("cursor", "cursor", Output::Stream);
}

#[test]
fn goose_uses_its_table_entry() {
    assert_uses_table("goose", "goose", Output::Stream);
}

#[test]
fn agy_uses_its_table_entry() {
    assert_uses_table("agy", "agy", Output::Session);
}
