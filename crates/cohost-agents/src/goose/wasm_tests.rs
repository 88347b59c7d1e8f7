//! The Goose adapter component (`examples/wasm-adapter-goose/goose`, built
//! for wasm32-wasip2 by the test) against the built-in Goose driver: the
//! same events on every golden transcript, each checked against the
//! transcript's own `.events` snapshot, and on noise and interrupted exits.

use cohost_core::AgentEvent;
use cohost_testbench::wasm_examples::wasm_examples;
use cohost_wasm::{AdapterComponent, Limits, LoadOptions, Runtime, StartOptions};

use crate::goose::GooseNormalizer;
use crate::process::oneshot::{replay_fixture, TurnNormalizer};
use crate::process::ExitInfo;
use cohost_plugins::{WasmTurn, CLASSIFY};

/// A wasm Goose turn in session `session`, or `None` after a loud skip.
fn wasm_goose(session: Option<&str>) -> Option<WasmTurn> {
    let ex = wasm_examples()?;
    let c = AdapterComponent::load_file(
        &Runtime::shared().unwrap(),
        &ex.goose,
        LoadOptions {
            plugin: "goose".into(),
            sha256: None,
            limits: Limits::default(),
            classify: CLASSIFY,
        },
    )
    .unwrap();
    let mut instance = c.instantiate().unwrap();
    instance
        .start(StartOptions {
            session_id: session.map(str::to_string),
            ..StartOptions::default()
        })
        .unwrap();
    Some(WasmTurn::new("goose".into(), instance))
}

/// The session each transcript's snapshot was taken in.
const SCENARIOS: [(&str, Option<&str>); 2] = [("tool_turn", Some("cohost-x")), ("error", None)];

#[test]
fn the_component_matches_the_built_in_driver_on_every_golden_transcript() {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/goose/docs");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".jsonl").map(str::to_string)
        })
        .collect();
    on_disk.sort();
    let mut covered: Vec<String> = SCENARIOS.iter().map(|(s, _)| s.to_string()).collect();
    covered.sort();
    assert_eq!(
        on_disk, covered,
        "a new goose transcript needs a line in SCENARIOS"
    );
    for (scenario, session) in SCENARIOS {
        let Some(wasm) = wasm_goose(session) else {
            return;
        };
        let builtin = GooseNormalizer::new(session.map(str::to_string));
        // Each replay checks the transcript's .events snapshot as well.
        let expected = replay_fixture("goose", "docs", scenario, builtin);
        let got = replay_fixture("goose", "docs", scenario, wasm);
        assert_eq!(got, expected, "{scenario}");
    }
}

/// Feed both the same lines and exit; their events.
fn both(
    lines: &[&str],
    exit: Option<ExitInfo>,
    stderr: &str,
    interrupted: bool,
) -> Option<(Vec<AgentEvent>, Vec<AgentEvent>)> {
    let mut wasm = wasm_goose(None)?;
    let mut builtin = GooseNormalizer::new(None);
    let mut a = Vec::new();
    let mut b = Vec::new();
    for l in lines {
        a.extend(builtin.on_line(l));
        b.extend(wasm.on_line(l));
    }
    if !builtin.ended() {
        a.extend(
            builtin
                .on_exit(exit, stderr, interrupted)
                .unwrap_or_default(),
        );
    }
    if !wasm.ended() {
        b.extend(wasm.on_exit(exit, stderr, interrupted).unwrap_or_default());
    }
    Some((a, b))
}

#[test]
fn noise_interrupts_and_crashes_end_the_same_way() {
    let noise = [
        "",
        "nope",
        "[]",
        "{\"type\":\"unknown_kind\"}",
        "{\"type\":\"message\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":7},{\"type\":\"text\",\"text\":\"ok\"},{\"type\":\"toolResponse\",\"id\":\"t\",\"toolResult\":{\"status\":\"error\",\"value\":\"User declined\"}}]}}",
        "{\"type\":\"message\",\"message\":{\"content\":[{\"type\":\"toolRequest\",\"id\":\"x\",\"toolCall\":{\"value\":{\"name\":\"developer__text_editor\"}}}]}}",
    ];
    let exits = [
        (
            Some(ExitInfo {
                code: Some(0),
                signal: None,
            }),
            "",
            false,
        ),
        (
            Some(ExitInfo {
                code: None,
                signal: Some(2),
            }),
            "",
            true,
        ),
        (
            Some(ExitInfo {
                code: Some(1),
                signal: None,
            }),
            "Error: 429 Too Many Requests",
            false,
        ),
        (
            Some(ExitInfo {
                code: Some(3),
                signal: None,
            }),
            "segfault",
            false,
        ),
    ];
    for (exit, stderr, interrupted) in exits {
        let Some((builtin, wasm)) = both(&noise, exit, stderr, interrupted) else {
            return;
        };
        assert!(builtin.contains(&AgentEvent::TextDelta("ok".into())));
        assert_eq!(wasm, builtin, "{exit:?} {stderr}");
    }
}
