//! The drift check's comparison and report on recorded transcripts
//! (`tests/fixtures/drift/`: a pinned 1.0.0 and a "newer" 1.1.0 of a small
//! claude-style CLI), without a network or a real CLI. Also: every real
//! golden directory reads cleanly and agrees with itself.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cohost_testbench::drift::{
    assess, golden, load_goldens, render, table_needs, CliReport, DriftReport, Observed,
    ScenarioResult, Status,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/drift")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(name)).unwrap()
}

fn result(scenario: &str, status: Status, detail: &str) -> ScenarioResult {
    ScenarioResult {
        scenario: scenario.into(),
        status,
        detail: detail.into(),
        seconds: 1.0,
    }
}

/// What the democli flag table passes: `-p`, `--output-format`,
/// `--permission-prompt-tool`, `--resume`, `--model`.
fn needs() -> BTreeSet<String> {
    let t: [&[&str]; 4] = [
        &["-p"],
        &[
            "--output-format",
            "stream-json",
            "--permission-prompt-tool",
            "stdio",
        ],
        &["--resume", "{id}"],
        &["--model"],
    ];
    table_needs(t)
}

fn observed(dir: &str, help: &str) -> Observed {
    Observed {
        transcripts: ["text", "tool_deny"]
            .iter()
            .map(|s| (s.to_string(), read(&format!("{dir}/{s}.jsonl"))))
            .collect(),
        pinned_help: read("help-1.0.0.txt"),
        new_help: read(help),
        needs: needs(),
    }
}

fn report_for(dir: &str, help: &str, ran: &str, deny: Status) -> CliReport {
    let goldens = load_goldens(&fixtures().join("pinned")).unwrap();
    assert_eq!(goldens.len(), 2);
    let mut r = CliReport::new("democli", "democli", "1.0.0");
    r.newest = Some(ran.into());
    r.ran = Some(ran.into());
    r.scenarios = vec![
        result("text", Status::Pass, "3 chunks"),
        result(
            "tool_deny",
            deny,
            "the CLI ran without asking cohost for approval",
        ),
        result("resume", Status::NotApplicable, "no session ids"),
    ];
    assess(&mut r, &goldens, &observed(dir, help));
    r
}

#[test]
fn the_pinned_transcripts_against_their_own_goldens_are_all_green() {
    let r = report_for("pinned", "help-1.0.0.txt", "1.0.0", Status::Pass);
    assert!(r.transcript.is_empty(), "{:#?}", r.transcript);
    assert!(r.flags.added.is_empty() && r.flags.removed.is_empty());
    assert!(r.flags.table_missing.is_empty(), "{:?}", r.flags);
    let report = DriftReport {
        mode: "pinned".into(),
        clis: vec![r],
    };
    assert!(!report.breaks());
    let text = render(&report);
    assert!(text.ends_with("all green.\n"), "{text}");
    assert!(
        text.contains("| democli | 1.0.0  | 1.0.0  | pass | pass | -     | -    | n/a    | -     | 0 (0 lines)   | +0 -0     |"),
        "{text}"
    );
}

#[test]
fn a_newer_release_reports_new_kinds_gone_fields_flags_and_breaks() {
    let r = report_for("newer", "help-1.1.0.txt", "1.1.0", Status::Fail);
    let t = &r.transcript;
    // New kind: a banner no golden has.
    assert_eq!(t.unknown_kinds.get("system/banner"), Some(&1), "{t:#?}");
    assert_eq!(t.unknown_kinds.len(), 1, "{t:#?}");
    // The permission request kept its kind and changed its fields.
    assert_eq!(
        t.fields_gone["control_request"],
        [
            "request.input",
            "request.input.command",
            "request.tool_name",
        ]
    );
    assert_eq!(t.fields_new["control_request"], ["request.tool"]);
    assert_eq!(t.fields_new["result/success"], ["usage.cache_read"]);
    assert!(t.kinds_gone.is_empty(), "{t:#?}");
    assert_eq!(r.flags.added, ["--fast", "--permission-prompts"]);
    assert_eq!(r.flags.removed, ["--permission-prompt-tool"]);
    assert_eq!(r.flags.table_missing, ["--permission-prompt-tool"]);

    let report = DriftReport {
        mode: "newest".into(),
        clis: vec![r],
    };
    assert!(report.breaks());
    let text = render(&report);
    for want in [
        "| democli | 1.0.0  | 1.1.0  | pass | FAIL | -     | -    | n/a    | -     | 1 (1 lines)   | +2 -1 !1  |",
        "  FAIL tool_deny: the CLI ran without asking cohost for approval",
        "  ! flags the table uses, gone: --permission-prompt-tool",
        "  flags added: --fast, --permission-prompts",
        "  new event kinds: system/banner x1",
        "  fields gone on control_request: request.input, request.input.command, request.tool_name",
        "BROKEN",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    let cli = &json["clis"][0];
    assert_eq!(cli["scenarios"][1]["status"], "fail");
    assert_eq!(cli["scenarios"][2]["status"], "not_applicable");
    assert_eq!(cli["transcript"]["unknown_kinds"]["system/banner"], 1);
    assert_eq!(cli["flags"]["table_missing"][0], "--permission-prompt-tool");
}

#[test]
fn a_table_flag_gone_breaks_even_when_every_scenario_passes() {
    let r = report_for("pinned", "help-1.1.0.txt", "1.1.0", Status::Pass);
    assert!(r.scenarios.iter().all(|s| s.status != Status::Fail));
    assert!(r.breaks(), "{:?}", r.flags);
}

#[test]
fn a_kind_the_scenario_golden_has_and_the_run_lacks_is_named() {
    let goldens = load_goldens(&fixtures().join("pinned")).unwrap();
    let mut r = CliReport::new("democli", "democli", "1.0.0");
    let cut: String = read("pinned/text.jsonl")
        .lines()
        .filter(|l| !l.contains("\"result\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let o = Observed {
        transcripts: vec![("text".into(), cut)],
        ..Observed::default()
    };
    assess(&mut r, &goldens, &o);
    assert_eq!(r.transcript.kinds_gone, ["text: result/success"]);
}

/// Every pinned golden directory parses, and the drift scenarios find
/// their goldens in it under the names each capture harness used: `text`
/// and `provider_error` everywhere, the tool scenarios wherever the CLI has
/// tools cohost gates, so a renamed golden cannot silently turn the
/// "kinds gone" comparison off.
#[test]
fn the_drift_scenarios_find_the_real_goldens() {
    use cohost_testbench::drift::pick_golden;
    let root = golden::fixtures_root();
    // (agent, version, acp, has tool goldens)
    let dirs = [
        ("claude", "2.1.332", false, true),
        ("codex", "0.171.0", false, true),
        ("gemini", "0.61.0", false, true),
        ("qwen", "0.24.4", false, true),
        ("opencode", "1.18.33", false, true),
        ("copilot", "1.0.102", false, true),
        ("aider", "0.86.2", false, false),
        ("continue", "1.5.47", false, false),
        ("claude-code-acp", "0.16.2", true, true),
        ("codex-acp", "0.16.0", true, true),
    ];
    let mut checked = 0;
    for (agent, version, acp, tools) in dirs {
        let dir = golden::golden_dir(&root, agent, version, acp);
        if !dir.exists() {
            // A bumped pin moves on to new goldens; this list names today's.
            eprintln!("skipping {agent} {version}: {} is gone", dir.display());
            continue;
        }
        checked += 1;
        let goldens = load_goldens(&dir).unwrap();
        let mut scenarios = vec!["text", "provider_error"];
        if tools {
            scenarios.extend(["tool_deny", "tool_allow"]);
        }
        for scenario in scenarios {
            let g = pick_golden(scenario, &goldens);
            // cn prints a provider error on stderr only: an empty stdout golden.
            let may_be_empty = scenario == "provider_error" && agent == "continue";
            assert!(
                g.is_some_and(|g| may_be_empty || !g.is_empty()),
                "{agent} {version}: no golden for {scenario} in {}",
                dir.display()
            );
        }
    }
    assert!(
        checked > 0,
        "no golden directory found under {}",
        root.display()
    );
}

#[test]
fn a_baseline_hides_what_the_pinned_run_shows_too_and_survives_json() {
    let mut newer = DriftReport {
        mode: "newest".into(),
        clis: vec![report_for("newer", "help-1.1.0.txt", "1.1.0", Status::Pass)],
    };
    // The pinned run of the same harness already lacks the old tool fields
    // (a capture difference), but has no banner and no cache_read.
    let mut pinned = report_for("pinned", "help-1.0.0.txt", "1.0.0", Status::Pass);
    pinned.transcript.fields_gone.insert(
        "control_request".into(),
        vec![
            "request.input".into(),
            "request.input.command".into(),
            "request.tool_name".into(),
        ],
    );
    let base = DriftReport {
        mode: "pinned".into(),
        clis: vec![pinned],
    };
    let base: DriftReport = serde_json::from_str(&base.to_json()).unwrap();
    let before = newer.clis[0].transcript.len();
    newer.apply_baseline(&base);
    let t = &newer.clis[0].transcript;
    assert!(t.fields_gone.is_empty(), "{t:#?}");
    assert_eq!(t.unknown_kinds.get("system/banner"), Some(&1));
    assert_eq!(t.fields_new["result/success"], ["usage.cache_read"]);
    assert_eq!(before - t.len(), 3);
    assert!(
        newer.clis[0]
            .notes
            .iter()
            .any(|n| n.starts_with("3 transcript difference(s)")),
        "{:?}",
        newer.clis[0].notes
    );
}

#[test]
fn the_newest_column_says_what_ran_when_nothing_was_looked_up() {
    let mut at = report_for("pinned", "help-1.0.0.txt", "0.9.0", Status::Pass);
    at.newest = None;
    let mut pinned = report_for("pinned", "help-1.0.0.txt", "1.0.0", Status::Pass);
    pinned.newest = None;
    let text = render(&DriftReport {
        mode: "newest".into(),
        clis: vec![at, pinned],
    });
    assert!(
        text.contains("| democli | 1.0.0  | 0.9.0 (--at) |"),
        "{text}"
    );
    assert!(
        text.contains("| democli | 1.0.0  | -            |"),
        "{text}"
    );
}
