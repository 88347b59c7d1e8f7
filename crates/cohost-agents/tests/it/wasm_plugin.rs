//! `protocol = "wasm"` plugins end to end, through manifests in a temp dir
//! and a stand-in `goose` binary that replays each golden transcript:
//!
//! - the Goose adapter component (`examples/wasm-adapter-goose/goose`,
//!   built for wasm32-wasip2 by the test) drives the stand-in with the same
//!   command line and environment as the built-in Goose driver and yields
//!   the same events;
//! - each misbehaviour of the hostile component ends the turn within 2 s
//!   with a typed error naming the plugin and the limit, and the agent's
//!   process is stopped;
//! - a component that imports WASI, does not match its pinned hash, or was
//!   built for another world version is refused at load, naming the field.

use cohost_agents::catalog;
use cohost_agents::drivers::plugin::{load_plugins, wasm_plugins};
use cohost_core::{
    AdapterConfig, AdapterFactory, AgentEvent, ApprovalMode, EndReason, ErrorCode, PromptRequest,
};
use cohost_testbench::wasm_examples::wasm_examples;
use futures::StreamExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A stand-in executable that records its arguments and `GOOSE_MODE`,
/// prints `stdout`, then runs `then` (shell).
fn stand_in(dir: &Path, stdout: &str, stderr: &str, then: &str) -> PathBuf {
    let out = dir.join("stdout.txt");
    let err = dir.join("stderr.txt");
    std::fs::write(&out, stdout).unwrap();
    std::fs::write(&err, stderr).unwrap();
    let bin = dir.join("goose");
    std::fs::write(
        &bin,
        format!(
            "#!/bin/sh\necho $$ > '{d}/pid'\nprintf '%s\\n' \"$@\" > '{d}/args'\nprintf '%s' \"$GOOSE_MODE\" > '{d}/mode'\ncat '{o}'\ncat '{e}' >&2\n{then}\n",
            d = dir.display(),
            o = out.display(),
            e = err.display(),
        ),
    )
    .unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn manifest(dir: &Path, id: &str, binary: &Path, component: &Path, extra: &str) {
    std::fs::write(
        dir.join(format!("{id}.toml")),
        format!(
            "id = \"{id}\"\nbinary = [\"{}\"]\nprotocol = \"wasm\"\nenv_prefixes = [\"GOOSE_\"]\n[wasm]\ncomponent = \"{}\"\nname_sessions = true\n{extra}\n",
            binary.display(),
            component.display()
        ),
    )
    .unwrap();
}

/// One turn through an adapter of `f`: its events, within `limit`, and
/// how long the turn took (from the prompt, after `initialize` compiled
/// the component).
async fn timed_turn(
    f: &Arc<dyn AdapterFactory>,
    config: &AdapterConfig,
    limit: Duration,
) -> (Vec<AgentEvent>, Duration) {
    let mut a = f.create();
    a.initialize(config).await.expect("initializes");
    let began = Instant::now();
    let stream = a
        .send_prompt(PromptRequest {
            prompt_id: "p1".into(),
            text: "list the files".into(),
            context_files: Vec::new(),
            images: Vec::new(),
        })
        .await
        .expect("starts");
    let events = tokio::time::timeout(limit, stream.collect::<Vec<_>>())
        .await
        .expect("the turn ends in time");
    let took = began.elapsed();
    a.terminate().await.unwrap();
    (events, took)
}

/// [`timed_turn`]'s events.
async fn turn(
    f: &Arc<dyn AdapterFactory>,
    config: &AdapterConfig,
    limit: Duration,
) -> Vec<AgentEvent> {
    timed_turn(f, config, limit).await.0
}

/// cohost names each new goose session `cohost-<uuid>`: the same name in
/// both runs once the uuid is blanked.
fn blank_session(mut ev: Vec<AgentEvent>) -> Vec<AgentEvent> {
    for e in &mut ev {
        if let AgentEvent::Started {
            session_id: Some(s),
            ..
        } = e
        {
            if s.starts_with("cohost-") {
                *s = "cohost-UUID".into();
            }
        }
    }
    ev
}

fn blank_args(dir: &Path) -> String {
    let args = std::fs::read_to_string(dir.join("args")).unwrap();
    args.lines()
        .map(|l| {
            if l.starts_with("cohost-") {
                "cohost-UUID"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn transcripts() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/goose/docs");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_goose_component_drives_goose_like_the_built_in_driver() {
    let Some(ex) = wasm_examples() else { return };
    let builtin: Arc<dyn AdapterFactory> = (catalog::CLIS
        .iter()
        .find(|e| e.id == "goose")
        .and_then(|e| e.factory)
        .unwrap()
        .0)();
    assert!(transcripts().len() >= 2);
    for t in transcripts() {
        let text = std::fs::read_to_string(&t).unwrap();
        let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        let h = &header["cohost_fixture"];
        let stdout: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
        let exit = format!("exit {}", h["exit_code"].as_i64().unwrap_or(0));
        let stderr = h["stderr"].as_str().unwrap_or_default();

        let native_dir = tempfile::tempdir().unwrap();
        let bin = stand_in(native_dir.path(), &stdout, stderr, &exit);
        let config = AdapterConfig {
            binary: Some(bin),
            approval: ApprovalMode::AutoApprove,
            ..AdapterConfig::default()
        };
        let expected = blank_session(turn(&builtin, &config, Duration::from_secs(30)).await);

        let wasm_dir = tempfile::tempdir().unwrap();
        let bin = stand_in(wasm_dir.path(), &stdout, stderr, &exit);
        let plugins = tempfile::tempdir().unwrap();
        manifest(plugins.path(), "goose-wasm", &bin, &ex.goose, "");
        let (factories, errors) = load_plugins(&[plugins.path().to_path_buf()]);
        assert!(errors.is_empty(), "{errors:?}");
        let config = AdapterConfig {
            approval: ApprovalMode::AutoApprove,
            ..AdapterConfig::default()
        };
        let got = blank_session(turn(&factories[0], &config, Duration::from_secs(30)).await);

        assert!(
            expected
                .iter()
                .any(|e| matches!(e, AgentEvent::Ended { .. })),
            "{}: {expected:?}",
            t.display()
        );
        assert_eq!(got, expected, "{}", t.display());
        assert_eq!(
            blank_args(wasm_dir.path()),
            blank_args(native_dir.path()),
            "{}",
            t.display()
        );
        assert_eq!(
            std::fs::read_to_string(wasm_dir.path().join("mode")).unwrap(),
            "auto"
        );
    }
}

fn alive(pid: &str) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid.trim()));
    // Gone, or a zombie nobody has reaped yet: not running either way.
    status.is_ok_and(|s| {
        !s.lines()
            .any(|l| l.starts_with("State:") && l.contains('Z'))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_component_ends_the_turn_within_2s_and_stops_the_agent() {
    let Some(ex) = wasm_examples() else { return };
    for (line, what) in [
        ("loop", "time per call"),
        ("alloc", "memory"),
        ("trap", "trapped"),
        ("flood 10000000", "memory"),
        ("flood 20000", "output per call"),
        ("bad-json", "malformed"),
        ("after-end", "malformed"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        // The agent prints the line, then would run for a minute.
        let bin = stand_in(dir.path(), &format!("{line}\n"), "", "sleep 60");
        let plugins = tempfile::tempdir().unwrap();
        manifest(plugins.path(), "hostile", &bin, &ex.hostile, "");
        let (factories, errors) = load_plugins(&[plugins.path().to_path_buf()]);
        assert!(errors.is_empty(), "{errors:?}");
        let (events, took) = timed_turn(
            &factories[0],
            &AdapterConfig::default(),
            Duration::from_secs(10),
        )
        .await;
        assert!(
            took < Duration::from_secs(2),
            "{line}: the turn took {took:?}"
        );
        let err = events
            .iter()
            .find_map(|e| match e {
                AgentEvent::Error(e) => Some(e),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{line}: no error in {events:?}"));
        assert_eq!(err.code, ErrorCode::InvalidOutput, "{line}: {err:?}");
        assert!(
            err.message.contains("wasm plugin `hostile`") && err.message.contains(what),
            "{line}: {}",
            err.message
        );
        assert!(
            matches!(
                events.last(),
                Some(AgentEvent::Ended {
                    reason: EndReason::Error,
                    ..
                })
            ),
            "{line}: {events:?}"
        );
        let pid = std::fs::read_to_string(dir.path().join("pid")).unwrap();
        let deadline = Instant::now() + Duration::from_secs(3);
        while alive(&pid) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            !alive(&pid),
            "{line}: the agent ({}) still runs",
            pid.trim()
        );
    }
}

#[tokio::test]
async fn bad_components_are_refused_at_load_naming_the_field() {
    let Some(ex) = wasm_examples() else { return };
    let dir = tempfile::tempdir().unwrap();
    let bin = stand_in(dir.path(), "", "", "exit 0");
    let bytes = std::fs::read(&ex.goose).unwrap();
    let sha = cohost_wasm::sha256_hex(&bytes);
    // The same component, its export renamed as a build for 0.2.0 names it.
    let mut next = bytes;
    let (from, to) = (b"cohost:adapter/turn@0.1.0", b"cohost:adapter/turn@0.2.0");
    while let Some(at) = next.windows(from.len()).position(|w| w == from) {
        next[at..at + from.len()].copy_from_slice(to);
    }
    let next_path = dir.path().join("next.wasm");
    std::fs::write(&next_path, &next).unwrap();

    let plugins = tempfile::tempdir().unwrap();
    let p = plugins.path();
    manifest(
        p,
        "a-good",
        &bin,
        &ex.goose,
        &format!("sha256 = \"{sha}\"\ncall_time_ms = 250"),
    );
    manifest(
        p,
        "b-pinned",
        &bin,
        &ex.goose,
        &format!("sha256 = \"{}\"", "0".repeat(64)),
    );
    manifest(p, "c-snoop", &bin, &ex.imports_fs, "");
    manifest(p, "d-next", &bin, &next_path, "");
    let (factories, errors) = load_plugins(&[p.to_path_buf()]);
    assert_eq!(factories.len(), 1, "{errors:?}");
    assert_eq!(factories[0].descriptor().id, "a-good");
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 3, "{text:?}");
    assert!(
        text[0].contains("b-pinned.toml")
            && text[0].contains("`wasm.sha256`")
            && text[0].contains(&sha),
        "{}",
        text[0]
    );
    assert!(
        text[1].contains("`wasm.component`") && text[1].contains("imports `wasi:"),
        "{}",
        text[1]
    );
    assert!(
        text[2].contains("built for cohost:adapter@0.2.0")
            && text[2].contains("speaks cohost:adapter@0.1.0"),
        "{}",
        text[2]
    );

    let info = wasm_plugins(&[p.to_path_buf()]);
    assert_eq!(info.len(), 1);
    assert_eq!(info[0].sha256, sha);
    assert!(info[0].pinned);
    assert_eq!(info[0].world, "cohost:adapter@0.1.0");
    assert_eq!(info[0].limits.call_time, Duration::from_millis(250));
}

/// The agent asks before running a tool: cohost:adapter@0.1.0 cannot carry
/// a decision back, so the turn shows the call and a notice instead of an
/// approval nobody could answer, and goes on to the agent's exit; a
/// decision sent anyway is refused with the way out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_request_is_a_call_and_a_notice_not_a_question() {
    let Some(ex) = wasm_examples() else { return };
    let dir = tempfile::tempdir().unwrap();
    let bin = stand_in(dir.path(), "ask\nafter\n", "", "exit 0");
    let plugins = tempfile::tempdir().unwrap();
    manifest(plugins.path(), "asker", &bin, &ex.hostile, "");
    let (factories, errors) = load_plugins(&[plugins.path().to_path_buf()]);
    assert!(errors.is_empty(), "{errors:?}");
    let events = turn(
        &factories[0],
        &AdapterConfig::default(),
        Duration::from_secs(10),
    )
    .await;
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::ApprovalRequested { .. })),
        "{events:?}"
    );
    let call = events
        .iter()
        .position(|e| matches!(e, AgentEvent::ToolCall(c) if c.tool_id == "t1"))
        .unwrap_or_else(|| panic!("no tool call in {events:?}"));
    assert!(
        matches!(&events[call + 1], AgentEvent::Status { message, .. } if message.contains("no approval channel")),
        "{events:?}"
    );
    // The turn went on past the request, to the agent's exit (this
    // component leaves the ending to cohost's exit mapping).
    assert_eq!(
        events.last(),
        Some(&AgentEvent::TextDelta("after".into())),
        "{events:?}"
    );
    let mut a = factories[0].create();
    assert_eq!(
        a.descriptor().capabilities.approvals,
        cohost_core::ApprovalSupport::None
    );
    let err = a
        .approve_tool(cohost_core::ToolDecision {
            tool_id: "t1".into(),
            option: cohost_core::ApprovalOption::AllowOnce,
            message: None,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::UnsupportedMode);
    assert!(err.message.contains("no approval channel"), "{err:?}");
}
