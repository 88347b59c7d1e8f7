//! End to end: the PTY tier drives a real interactive program (a small
//! python REPL that paints a coloured banner, prompts with `toy> `, echoes in
//! colour, streams a slow count and catches Ctrl-C) through
//! `cohost_core::HostSession`, made in code ([`PtyFactory`]) or by a user's
//! plugin manifest with `protocol = "pty"`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use cohost_agents::drivers::plugin::{default_plugin_dirs, load_plugins};
use cohost_agents::drivers::pty::PtyFactory;
use cohost_agents::process::procfs;
use cohost_core::{
    AdapterConfig, EndReason, ErrorCode, Event, EventBody, HostSession, Policy, PromptInput,
    Registry, SessionOptions, SupportTier, TurnOutcome,
};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const REPL: &str = r#"
import sys, time
print("\x1b[1;35mtoy repl\x1b[0m v1 \x1b]0;toy\x07", flush=True)
while True:
    try:
        line = input("toy> ")
    except EOFError:
        break
    except KeyboardInterrupt:
        print("\n^C at the prompt", flush=True)
        continue
    if line == "slow":
        try:
            for i in range(200):
                print(f"tick {i}", flush=True)
                time.sleep(0.05)
        except KeyboardInterrupt:
            print("\x1b[31minterrupted\x1b[0m", flush=True)
        continue
    if line == "crash":
        print("bye", flush=True)
        sys.exit(3)
    if line == "argv":
        print(sys._xoptions.get("toy_model"), *sys.argv, flush=True)
        continue
    print(f"\x1b[32mecho:\x1b[0m {line}", flush=True)
"#;

static SEQ: AtomicU64 = AtomicU64::new(0);

struct Toy {
    _dir: tempfile::TempDir,
    marker: String,
    factory: Arc<PtyFactory>,
    config: AdapterConfig,
}

fn toy() -> Toy {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("toy.py");
    std::fs::write(&script, REPL).unwrap();
    let marker = format!(
        "pty-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::SeqCst)
    );
    let mut env = BTreeMap::new();
    env.insert("COHOST_TEST_MARKER".to_string(), marker.clone());
    env.insert("HOME".to_string(), dir.path().display().to_string());
    let factory = PtyFactory::new(
        "toy",
        "Toy REPL (pty)",
        "python3",
        vec![script.display().to_string()],
        env,
    )
    .with_prompt("toy> ");
    Toy {
        config: AdapterConfig {
            cwd: dir.path().to_path_buf(),
            ..AdapterConfig::default()
        },
        _dir: dir,
        marker,
        factory: Arc::new(factory),
    }
}

async fn session(t: &Toy) -> HostSession {
    let mut s = HostSession::new(
        t.factory.clone(),
        t.config.clone(),
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    s.start().await.expect("the repl shows its prompt");
    s
}

async fn run(s: &mut HostSession, prompt: &str) -> (TurnOutcome, Vec<Event>) {
    let events: Arc<Mutex<Vec<Event>>> = Arc::default();
    let e2 = events.clone();
    let mut sink = move |e: Event| e2.lock().unwrap().push(e);
    let out = tokio::time::timeout(
        Duration::from_secs(30),
        s.prompt(PromptInput::text(prompt), &mut sink),
    )
    .await
    .expect("turn ends within 30 s");
    let ev = events.lock().unwrap().clone();
    (out, ev)
}

fn text(ev: &[Event]) -> String {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

fn chunk_indexes(ev: &[Event]) -> Vec<u64> {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { chunk_index, .. } => Some(*chunk_index),
            _ => None,
        })
        .collect()
}

async fn assert_gone(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left = procfs::live_with_env("COHOST_TEST_MARKER", marker);
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "left behind: {left:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_prompts_come_back_as_clean_text() {
    let t = toy();
    let mut s = session(&t).await;
    assert_eq!(s.descriptor().capabilities.tier, SupportTier::Pty);
    let (out, ev) = run(&mut s, "hello world").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert_eq!(
        text(&ev),
        "echo: hello world\n",
        "no echo, no colour, no prompt"
    );
    let idx = chunk_indexes(&ev);
    assert_eq!(idx, (0..idx.len() as u64).collect::<Vec<_>>());
    let (out, ev) = run(&mut s, "second\nline").await;
    assert_eq!(out.reason, EndReason::Completed);
    assert_eq!(text(&ev), "echo: second line\n");
    s.terminate().await.unwrap();
    assert_gone(&t.marker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_interrupts_the_job_and_the_program_survives() {
    let t = toy();
    let mut s = session(&t).await;
    let control = s.control();
    let pressed: Arc<Mutex<Option<Instant>>> = Arc::default();
    let (p2, events) = (pressed.clone(), Arc::new(Mutex::new(Vec::new())));
    let e2 = events.clone();
    let mut sink = move |e: Event| {
        let mut p = p2.lock().unwrap();
        if matches!(&e.body, EventBody::StreamChunk { delta, .. } if delta.contains("tick 3"))
            && p.is_none()
        {
            *p = Some(Instant::now());
            control.interrupt();
        }
        e2.lock().unwrap().push(e);
    };
    let out = tokio::time::timeout(
        Duration::from_secs(30),
        s.prompt(PromptInput::text("slow"), &mut sink),
    )
    .await
    .expect("ends");
    let took = pressed.lock().unwrap().expect("ticks arrived").elapsed();
    eprintln!("pty: stream_end {took:?} after the interrupt (Ctrl-C byte)");
    assert_eq!(out.reason, EndReason::Interrupted);
    assert!(took < Duration::from_secs(2), "{took:?}");
    let ev = events.lock().unwrap().clone();
    let t_all = text(&ev);
    assert!(
        t_all.contains("tick 0\n") && t_all.contains("interrupted\n"),
        "{t_all:?}"
    );
    assert!(!t_all.contains("tick 199"));
    // The same process answers the next prompt: Ctrl-C did not kill it.
    let (out, ev) = run(&mut s, "still here?").await;
    assert_eq!(out.reason, EndReason::Completed);
    assert_eq!(text(&ev), "echo: still here?\n");
    s.terminate().await.unwrap();
    assert_gone(&t.marker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_turn_is_reported_and_the_session_respawns() {
    let t = toy();
    let mut s = session(&t).await;
    let (out, ev) = run(&mut s, "crash").await;
    assert_eq!(out.reason, EndReason::Error, "{ev:#?}");
    assert_eq!(
        out.error.as_ref().map(|e| e.code),
        Some(ErrorCode::ProcessCrashed),
        "{out:?}"
    );
    let (out, ev) = run(&mut s, "after respawn").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert_eq!(text(&ev), "echo: after respawn\n");
    s.terminate().await.unwrap();
    assert_gone(&t.marker).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_that_exits_before_its_prompt_fails_to_start_at_once() {
    // The terminal closes, so initialize fails now instead of waiting out
    // READY_TIMEOUT.
    let dir = tempfile::tempdir().unwrap();
    let f = PtyFactory::new("nope", "nope", "true", vec![], BTreeMap::new());
    let mut s = HostSession::new(
        Arc::new(f),
        AdapterConfig {
            cwd: dir.path().to_path_buf(),
            ..AdapterConfig::default()
        },
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    let t0 = Instant::now();
    let err = s.start().await.expect_err("no prompt, no session");
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert_eq!(err.code, ErrorCode::ProcessCrashed, "{err:?}");
    assert!(err.message.contains("before showing its prompt"), "{err:?}");
}

/// A user's manifest, found where cohost finds project plugins
/// (`.cohost/agents/` under the working directory).
const TOY_MANIFEST: &str = r#"
id = "toy-pty"
label = "Toy REPL (pty plugin)"
# The first name is not installed anywhere: the next one is used.
binary = ["cohost-no-such-toy-repl", "python3"]
version_args = ["--version"]
args = ["{cwd}/toy.py"]
# Python options go before the script: `-X toy_model=...` is one.
model_args = ["-X", "toy_model={model}"]
protocol = "pty"

[env]
COHOST_TEST_MARKER = "MARKER"
HOME = "CWD"

[pty]
prompt = "toy> "
"#;

/// A `protocol = "pty"` manifest becomes a registered provider like any
/// plugin; a prompt through it streams the program's answer, Ctrl-C stops
/// a running job and the same program answers the next prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pty_manifest_registers_a_provider_that_streams_and_interrupts() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("toy.py"), REPL).unwrap();
    let marker = format!(
        "pty-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::SeqCst)
    );
    let plugins = cwd.join(".cohost/agents");
    std::fs::create_dir_all(&plugins).unwrap();
    let manifest = TOY_MANIFEST
        .replace("MARKER", &marker)
        .replace("\"CWD\"", &format!("{:?}", cwd.display().to_string()));
    std::fs::write(plugins.join("toy.toml"), manifest).unwrap();

    // Loaded as `cohost` loads plugins (providers::registry), limited to
    // the project's directory so the machine's own plugins stay out.
    let dirs: Vec<_> = default_plugin_dirs(cwd)
        .into_iter()
        .filter(|d| d.starts_with(cwd))
        .collect();
    assert_eq!(dirs, [plugins]);
    let (factories, errors) = load_plugins(&dirs);
    assert!(errors.is_empty(), "{errors:?}");
    let mut registry = Registry::new();
    cohost_agents::builtin::register_all(&mut registry).unwrap();
    for f in factories {
        registry.register(f).unwrap();
    }
    let f = registry.get("toy-pty").unwrap();
    assert!(f.is_available());
    let d = f.descriptor();
    assert_eq!(d.label, "Toy REPL (pty plugin)");
    assert_eq!(d.capabilities.tier, SupportTier::Pty);

    let config = AdapterConfig {
        cwd: cwd.to_path_buf(),
        model: Some("toy-1".into()),
        ..AdapterConfig::default()
    };
    let mut s = HostSession::new(
        f,
        config,
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    s.start().await.expect("the repl shows its prompt");
    let health = s.health().await;
    assert!(
        health
            .binary
            .as_deref()
            .is_some_and(|b| b.ends_with("python3")),
        "{health:?}"
    );
    assert!(
        health
            .version
            .as_deref()
            .is_some_and(|v| v.starts_with("Python 3")),
        "{health:?}"
    );

    // The answer streams as clean text, numbered from 0.
    let (out, ev) = run(&mut s, "hello plugin").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert_eq!(text(&ev), "echo: hello plugin\n");
    let idx = chunk_indexes(&ev);
    assert_eq!(idx, (0..idx.len() as u64).collect::<Vec<_>>());
    // `{cwd}` and `{model}` were filled, the model arguments went first.
    let (_, ev) = run(&mut s, "argv").await;
    assert_eq!(text(&ev), format!("toy-1 {}/toy.py\n", cwd.display()));

    // Interrupted mid-stream: Ctrl-C reaches the job within 2 s.
    let control = s.control();
    let pressed: Arc<Mutex<Option<Instant>>> = Arc::default();
    let (p2, events) = (pressed.clone(), Arc::new(Mutex::new(Vec::new())));
    let e2 = events.clone();
    let mut sink = move |e: Event| {
        let mut p = p2.lock().unwrap();
        if matches!(&e.body, EventBody::StreamChunk { delta, .. } if delta.contains("tick 3"))
            && p.is_none()
        {
            *p = Some(Instant::now());
            control.interrupt();
        }
        e2.lock().unwrap().push(e);
    };
    let out = tokio::time::timeout(
        Duration::from_secs(30),
        s.prompt(PromptInput::text("slow"), &mut sink),
    )
    .await
    .expect("ends");
    let took = pressed.lock().unwrap().expect("ticks arrived").elapsed();
    assert_eq!(out.reason, EndReason::Interrupted);
    assert!(took < Duration::from_secs(2), "{took:?}");
    let t_all = text(&events.lock().unwrap());
    assert!(
        t_all.contains("interrupted\n") && !t_all.contains("tick 199"),
        "{t_all:?}"
    );

    // The same program answers again.
    let (out, ev) = run(&mut s, "still there?").await;
    assert_eq!(out.reason, EndReason::Completed);
    assert_eq!(text(&ev), "echo: still there?\n");
    s.terminate().await.unwrap();
    assert_gone(&marker).await;
}

/// A pty manifest whose required variable is unset fails to start, naming
/// the variable, before anything is spawned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pty_manifest_checks_required_env_before_spawning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("needs.toml"),
        "id = \"needs-key\"\nbinary = \"python3\"\nprotocol = \"pty\"\n\
         required_env = [\"COHOST_TEST_UNSET_TOY_KEY\"]\n[pty]\nprompt = \"> \"\n",
    )
    .unwrap();
    let (factories, errors) = load_plugins(&[dir.path().to_path_buf()]);
    assert!(errors.is_empty(), "{errors:?}");
    let mut s = HostSession::new(
        factories[0].clone(),
        AdapterConfig {
            cwd: dir.path().to_path_buf(),
            ..AdapterConfig::default()
        },
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    let err = s.start().await.expect_err("no key, no session");
    assert_eq!(err.code, ErrorCode::AuthRequired, "{err:?}");
    assert!(err.message.contains("COHOST_TEST_UNSET_TOY_KEY"), "{err:?}");
}

/// Aider's interactive mode (no `--message`) through the PTY tier: the
/// degraded path for a CLI without a structured mode. Skips loudly when
/// aider is not installed, unless `CI` is set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aider_interactive_through_the_pty() {
    use cohost_testbench::{assert_no_leftovers, require_cli, AgentCli, Bench};
    let Some(bin) = require_cli(AgentCli::Aider) else {
        return;
    };
    let bench = Arc::new(Bench::start(AgentCli::Aider).await.expect("bench"));
    let args = [
        "--model",
        "openai/fake-model",
        "--no-pretty",
        "--no-fancy-input",
        "--no-check-update",
        "--no-show-model-warnings",
        "--no-show-release-notes",
        "--analytics-disable",
        "--no-git",
        "--dry-run",
    ]
    .map(String::from)
    .to_vec();
    let factory =
        PtyFactory::new("aider-pty", "Aider (pty)", bin, args, bench.env()).with_prompt("> ");
    let mut s = HostSession::new(
        Arc::new(factory),
        AdapterConfig {
            cwd: bench.cwd().to_path_buf(),
            ..AdapterConfig::default()
        },
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    s.start().await.expect("aider shows its prompt");
    let (out, ev) = run(&mut s, "say hello").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    let t = text(&ev);
    assert!(
        t.contains("Hello from fake-llm. You said: say hello"),
        "{t:?}"
    );
    let idx = chunk_indexes(&ev);
    assert_eq!(idx, (0..idx.len() as u64).collect::<Vec<_>>());
    let (out, ev) = run(&mut s, "what did I say first?").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    let body = bench
        .model_requests()
        .last()
        .map(|r| r.body.to_string())
        .unwrap_or_default();
    assert!(body.contains("say hello"), "same process keeps the chat");

    // Ctrl-C while aider waits on a stalled model stream.
    let control = s.control();
    let b2 = bench.clone();
    let pressed: Arc<Mutex<Option<Instant>>> = Arc::default();
    let p2 = pressed.clone();
    let watcher = tokio::spawn(async move {
        for _ in 0..600 {
            if b2
                .fake()
                .requests()
                .iter()
                .any(|r| r.body.to_string().contains("scenario:stall"))
            {
                tokio::time::sleep(Duration::from_millis(300)).await;
                *p2.lock().unwrap() = Some(Instant::now());
                control.interrupt();
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let (out, ev) = run(&mut s, "wait [[scenario:stall]]").await;
    watcher.abort();
    let took = pressed.lock().unwrap().expect("interrupt sent").elapsed();
    eprintln!("aider (pty): stream_end {took:?} after the interrupt");
    assert_eq!(out.reason, EndReason::Interrupted, "{ev:#?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    s.terminate().await.unwrap();
    assert_no_leftovers(bench.marker()).await;
}
