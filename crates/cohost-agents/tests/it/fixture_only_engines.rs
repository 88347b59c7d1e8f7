//! The fixture-only drivers (every entry of the provider list whose facts
//! come from public docs) have real engines: with the binary missing they
//! fail with PROVIDER_NOT_FOUND and an install hint; for the one-shot ones,
//! with a stand-in binary that prints each of the driver's doc-written
//! fixtures, a turn runs through `cohost_core::HostSession` like any other
//! (numbered chunks, the text and end its own parser makes of the same
//! lines), with the prompt on the command line and no permission bypass. A
//! fixture-only CLI kept alive across turns (agy) has no one-shot parser and
//! its own engine test (`agy_engine`). Each driver's exact argv is its
//! golden in `catalog/driver_argv.rs`; no driver is named here, so a new
//! fixture-only CLI is covered by its entry and fixtures alone.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use cohost_agents::catalog::{self, CliEntry, Evidence};
use cohost_agents::parsers::oneshot::{ExitInfo, TurnNormalizer};
use cohost_core::{
    AdapterConfig, AdapterFactory, AgentEvent, ApprovalMode, EndReason, ErrorCode, Event,
    EventBody, HostSession, Policy, PromptInput, SessionOptions, SupportTier,
};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What a transcript says the CLI did: its stdout (the lines after the
/// header), and the stderr and exit code its header records.
struct Recorded {
    stdout: String,
    stderr: String,
    exit_code: i32,
}

fn recorded(path: &Path) -> Recorded {
    let text = std::fs::read_to_string(path).unwrap();
    let header: serde_json::Value =
        serde_json::from_str(text.lines().next().unwrap_or_default()).unwrap();
    let h = &header["cohost_fixture"];
    Recorded {
        stdout: text.lines().skip(1).map(|l| format!("{l}\n")).collect(),
        stderr: h["stderr"].as_str().unwrap_or_default().to_string(),
        exit_code: h["exit_code"].as_i64().unwrap_or(0) as i32,
    }
}

/// Every transcript of CLI `id`'s fixture folder (`tests/fixtures/ID/VERSION/*.jsonl`).
fn transcripts(id: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(id);
    let mut out = Vec::new();
    for version in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        for f in std::fs::read_dir(version.unwrap().path()).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "jsonl") {
                out.push(f);
            }
        }
    }
    out.sort();
    out
}

/// A stand-in executable named `name` in `dir` that records its arguments
/// and does what `r` recorded.
fn stand_in(dir: &Path, name: &str, r: &Recorded) -> PathBuf {
    let out = dir.join(format!("{name}.out"));
    let err = dir.join(format!("{name}.err"));
    std::fs::write(&out, &r.stdout).unwrap();
    std::fs::write(&err, &r.stderr).unwrap();
    let bin = dir.join(name);
    std::fs::write(
        &bin,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\ncat '{}'\ncat '{}' >&2\nexit {}\n",
            dir.join(format!("{name}.args")).display(),
            out.display(),
            err.display(),
            r.exit_code
        ),
    )
    .unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

async fn one_turn(
    factory: Arc<dyn AdapterFactory>,
    config: AdapterConfig,
) -> (EndReason, Vec<Event>) {
    let mut s = HostSession::new(
        factory,
        config,
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    s.start().await.expect("starts");
    let events: Arc<Mutex<Vec<Event>>> = Arc::default();
    let e2 = events.clone();
    let mut sink = move |e: Event| e2.lock().unwrap().push(e);
    let out = tokio::time::timeout(
        Duration::from_secs(30),
        s.prompt(PromptInput::text("hi"), &mut sink),
    )
    .await
    .expect("turn ends");
    s.terminate().await.unwrap();
    let ev = events.lock().unwrap().clone();
    (out.reason, ev)
}

fn text(ev: &[Event]) -> String {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

/// The fixture-only entries, each with its factory.
fn fixture_only() -> Vec<(&'static CliEntry, Arc<dyn AdapterFactory>)> {
    let out: Vec<_> = catalog::CLIS
        .iter()
        .filter(|e| e.evidence == Evidence::FixtureOnly)
        .map(|e| (e, (e.factory.expect("a fixture-only CLI has a driver").0)()))
        .collect();
    assert!(!out.is_empty(), "the provider list has no fixture-only CLI");
    out
}

/// What the driver's own parser makes of what `r` recorded: the text and
/// how the turn ends.
fn parsed(entry: &CliEntry, r: &Recorded) -> (String, EndReason) {
    let parser = entry.parser.expect("only one-shot CLIs get here");
    let mut n = (parser.0)(None);
    let mut events = Vec::new();
    for line in r.stdout.lines() {
        if n.ended() {
            break;
        }
        events.extend(n.on_line(line));
    }
    if !n.ended() {
        let exit = ExitInfo {
            code: Some(r.exit_code),
            signal: None,
        };
        events.extend(n.on_exit(Some(exit), &r.stderr, false).unwrap_or_default());
    }
    let text = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    let reason = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::Ended { reason, .. } => Some(*reason),
            _ => None,
        })
        .unwrap_or(EndReason::Error);
    (text, reason)
}

#[tokio::test]
async fn missing_binaries_are_provider_not_found_with_an_install_hint() {
    let empty = tempfile::tempdir().unwrap();
    for (e, f) in fixture_only() {
        let d = f.descriptor();
        assert_eq!(d.id, e.id);
        assert_eq!(d.capabilities.tier, SupportTier::FixtureOnly, "{}", d.id);
        let mut a = f.create();
        let mut cfg = AdapterConfig::default();
        cfg.env
            .insert("PATH".into(), empty.path().display().to_string());
        let err = a.initialize(&cfg).await.expect_err(e.id);
        assert_eq!(err.code, ErrorCode::ProviderNotFound, "{}: {err:?}", d.id);
        let hint = d.install_hint.clone().unwrap();
        assert!(
            err.suggested_fix
                .as_deref()
                .is_some_and(|f| f.contains(&hint[..10])),
            "{}: {err:?}",
            d.id
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stand_in_binaries_run_through_the_real_engines() {
    let dir = tempfile::tempdir().unwrap();
    let one_shot = fixture_only()
        .into_iter()
        .filter(|(e, _)| e.parser.is_some());
    for (entry, factory) in one_shot {
        let mut completed = 0;
        let cases = transcripts(entry.id);
        assert!(!cases.is_empty(), "{}: no fixtures", entry.id);
        for path in cases {
            let case = format!("{}: {}", entry.id, path.display());
            let r = recorded(&path);
            let bin = stand_in(dir.path(), entry.command(), &r);
            let cfg = AdapterConfig {
                cwd: dir.path().to_path_buf(),
                binary: Some(bin),
                approval: ApprovalMode::Ask,
                ..AdapterConfig::default()
            };
            let (reason, ev) = one_turn(factory.clone(), cfg).await;
            let (want_text, want_reason) = parsed(entry, &r);
            assert_eq!(reason, want_reason, "{case}: {ev:#?}");
            assert_eq!(text(&ev), want_text, "{case}");
            let idx: Vec<u64> = ev
                .iter()
                .filter_map(|e| match &e.body {
                    EventBody::StreamChunk { chunk_index, .. } => Some(*chunk_index),
                    _ => None,
                })
                .collect();
            assert_eq!(idx, (0..idx.len() as u64).collect::<Vec<_>>(), "{case}");
            if reason == EndReason::Completed {
                assert!(!idx.is_empty(), "{case}: a completed turn with no text");
                completed += 1;
            }
            let args =
                std::fs::read_to_string(dir.path().join(format!("{}.args", entry.command())))
                    .unwrap();
            let args: Vec<&str> = args.lines().collect();
            assert!(args.contains(&"hi"), "{case}: {args:?}");
            // No bypass flag without auto-approve.
            if let Some(bypass) = entry.flags.skip_permissions {
                assert!(
                    !args.windows(bypass.len()).any(|w| w == bypass),
                    "{case}: {args:?}"
                );
            }
        }
        assert!(
            completed > 0,
            "{}: no fixture ends in a completed turn",
            entry.id
        );
    }
}
