//! One soak cycle: start `cohost run`, end it one way, measure.

use std::io::{BufRead, BufReader};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cohost_agents::drivers::pty::{PtyChild, PtyOutput};
use cohost_agents::process::procfs::{live_with_env, ProcEntry};
use cohost_agents::process::EnvPolicy;

use crate::orphans_support::{exit_within, signal, wait_for};
use crate::rigs::{Agent, Rigs};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Normal,
    Int,
    IntTwice,
    Term,
    Hup,
    Kill,
    /// The agent's leader is SIGKILLed mid-stream (the mock: its `crash`).
    AgentKilled,
    /// The agent dies while cohost's terminal prompt waits for an answer.
    ApprovalCrash,
}

impl End {
    pub fn name(self) -> &'static str {
        match self {
            End::Normal => "normal",
            End::Int => "sigint",
            End::IntTwice => "sigint-twice",
            End::Term => "sigterm",
            End::Hup => "sighup",
            End::Kill => "sigkill-cohost",
            End::AgentKilled => "agent-killed",
            End::ApprovalCrash => "crash-in-approval",
        }
    }

    pub fn valid_for(agent: Agent) -> &'static [End] {
        const ALL: &[End] = &[
            End::Normal,
            End::Int,
            End::IntTwice,
            End::Term,
            End::Hup,
            End::Kill,
            End::AgentKilled,
            End::ApprovalCrash,
        ];
        // Only Claude asks through cohost's terminal prompt here.
        if agent == Agent::Claude {
            ALL
        } else {
            &ALL[..7]
        }
    }
}

pub struct Outcome {
    pub orphans: Vec<ProcEntry>,
    pub hung: bool,
    pub quiescence: Duration,
}

fn prompt(agent: Agent, end: End) -> &'static str {
    match (agent, end) {
        (Agent::Mock, End::Normal) => "hello",
        (Agent::Mock, End::AgentKilled) => "[mock:crash] go",
        (Agent::Mock, _) => "[mock:slow] go",
        (Agent::Tree, End::Normal) => "quick",
        (Agent::Tree, _) => "long",
        (_, End::Normal) => "say hi",
        (_, End::ApprovalCrash) => "run it [[scenario:tool]]",
        _ => "go slow [[scenario:slow]]",
    }
}

/// `(pid, ppid, cmdline)` of `pid`.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.get(stat.rfind(')')? + 1..)?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn is_supervisor(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|c| c.split(|b| *b == 0).any(|a| a == b"__supervise"))
}

/// The agent leaders: marked children of a supervisor.
fn leaders(var: &str, value: &str) -> Vec<u32> {
    live_with_env(var, value)
        .into_iter()
        .map(|p| p.pid)
        .filter(|p| parent_of(*p).is_some_and(is_supervisor))
        .collect()
}

/// After cohost ended at `t0`: wait up to 2 s for the marked processes to
/// go; what is left is an orphan (and is killed, so the next cycle starts
/// clean).
fn settle(var: &str, value: &str, t0: Instant, hung: bool) -> Outcome {
    let clean = wait_for(Duration::from_secs(2), || {
        live_with_env(var, value).is_empty()
    });
    let quiescence = t0.elapsed();
    let orphans = if clean {
        Vec::new()
    } else {
        live_with_env(var, value)
    };
    for p in &orphans {
        signal(p.pid, libc::SIGKILL);
    }
    Outcome {
        orphans,
        hung,
        quiescence,
    }
}

pub async fn run(rigs: &Rigs, agent: Agent, end: End) -> Outcome {
    let (var, value) = rigs.marker(agent);
    if end == End::ApprovalCrash {
        return approval_crash(rigs, agent, &var, &value).await;
    }
    let args = [
        "run",
        "--json",
        "--approve",
        "all",
        "--agent",
        agent.name(),
        prompt(agent, end),
    ];
    let mut child = match rigs.command(agent, &args).spawn() {
        Ok(c) => c,
        Err(e) => panic!("cannot start cohost: {e}"),
    };
    let streaming = Arc::new(AtomicBool::new(false));
    if let Some(out) = child.stdout.take() {
        let flag = streaming.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if std::env::var_os("SOAK_VERBOSE").is_some() {
                    println!("  | {line}");
                }
                if line.contains("stream_chunk") {
                    flag.store(true, Ordering::SeqCst);
                }
            }
        });
    }
    // The mock's `crash` dies by itself; a normal end is just awaited.
    let waits_for_stream = !matches!(
        (agent, end),
        (_, End::Normal) | (Agent::Mock, End::AgentKilled)
    );
    let mut early_exit = false;
    let began = wait_for(Duration::from_secs(60), || {
        if !waits_for_stream || streaming.load(Ordering::SeqCst) {
            return true;
        }
        early_exit = child.try_wait().ok().flatten().is_some();
        early_exit
    });
    if early_exit {
        // The agent failed before streaming: not a supervision problem,
        // but reported, since the cycle tested nothing.
        println!(
            "soak: {} ended before streaming ({})",
            agent.name(),
            end.name()
        );
    }
    if !began {
        let _ = child.kill();
        let _ = child.wait();
        return settle(&var, &value, Instant::now(), true);
    }
    let t0 = Instant::now();
    match end {
        End::Int => signal(child.id(), libc::SIGINT),
        End::IntTwice => {
            signal(child.id(), libc::SIGINT);
            std::thread::sleep(Duration::from_millis(100));
            if child.try_wait().ok().flatten().is_none() {
                signal(child.id(), libc::SIGINT);
            }
        }
        End::Term => signal(child.id(), libc::SIGTERM),
        End::Hup => signal(child.id(), libc::SIGHUP),
        End::Kill => signal(child.id(), libc::SIGKILL),
        End::AgentKilled => {
            for pid in leaders(&var, &value) {
                signal(pid, libc::SIGKILL);
            }
        }
        End::Normal | End::ApprovalCrash => {}
    }
    let limit = if end == End::Normal { 60 } else { 10 };
    let hung = exit_within(&mut child, Duration::from_secs(limit)).is_none();
    settle(&var, &value, t0, hung)
}

/// Claude asks to run a tool; cohost's prompt waits on a terminal; the
/// agent is killed; cohost must end the turn and exit without a key press.
async fn approval_crash(rigs: &Rigs, agent: Agent, var: &str, value: &str) -> Outcome {
    let Some(bench) = rigs.bench(agent) else {
        return settle(var, value, Instant::now(), false);
    };
    let mut env = EnvPolicy::default();
    for (k, v) in bench.env() {
        env.set(k, v);
    }
    let args: Vec<std::ffi::OsString> = ["run", "--agent", agent.name(), "--approve", "ask"]
        .iter()
        .map(Into::into)
        .chain([prompt(agent, End::ApprovalCrash).into()])
        .collect();
    let cwd = bench.cwd().to_path_buf();
    let program = std::path::PathBuf::from(env!("CARGO_BIN_EXE_cohost"));
    let Ok((mut child, mut rx)) = PtyChild::spawn("cohost", &program, &args, &env, Some(&cwd))
    else {
        return settle(var, value, Instant::now(), true);
    };
    let mut screen = Vec::new();
    let asked = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(PtyOutput::Bytes(b)) = rx.recv().await {
            screen.extend_from_slice(&b);
            if String::from_utf8_lossy(&screen).contains("[y] yes once") {
                return true;
            }
        }
        false
    })
    .await
    .unwrap_or(false);
    if !asked {
        child.kill().await;
        return settle(var, value, Instant::now(), true);
    }
    let t0 = Instant::now();
    for pid in leaders(var, value) {
        signal(pid, libc::SIGKILL);
    }
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(out) = rx.recv().await {
            if matches!(out, PtyOutput::Closed) {
                return;
            }
        }
    })
    .await
    .is_ok();
    let mut exited = false;
    for _ in 0..100 {
        if child.exit_status().is_some() {
            exited = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if !exited {
        child.kill().await;
    }
    settle(var, value, t0, !(closed && exited))
}
