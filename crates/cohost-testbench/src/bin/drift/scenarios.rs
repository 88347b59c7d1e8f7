//! The standard scenarios, each through cohost's own driver for the CLI
//! (`cohost_agents` registry → `HostSession`), against a fresh bench: fake
//! model server, scratch user, marker. The same checks the E2E tests make,
//! returning what failed instead of panicking.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cohost_core::{
    AdapterConfig, ApprovalMode, EndReason, ErrorCode, Event, EventBody, HostSession, Policy,
    PromptInput, Registry, SessionOptions, TurnOutcome,
};
use cohost_testbench::drift::{ScenarioResult, Status};
use cohost_testbench::events::{answer_text as text, approvals_asked as approvals, chunk_count};
use cohost_testbench::{leftover_processes, Bench, FakeLlmConfig};

use crate::profile::{Interrupt, Profile, Resume, Tools};
use crate::wrapper::TRANSCRIPT_VAR;

/// One prompt's bound (these CLIs start slowly on a shared machine).
const TURN_LIMIT: Duration = Duration::from_secs(150);
/// Starting a session (version probe, `initialize`).
const START_LIMIT: Duration = Duration::from_secs(120);
/// The file the fake model's tool call creates in the workspace.
const TOOL_FILE: &str = "cohost_tool_output.txt";

/// What the scenarios run: the wrapper around the CLI under test.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The launcher cohost is given (see `wrapper.rs`).
    pub wrapper: PathBuf,
    /// Put first on the agent's `PATH` (a scratch install's `bin/`).
    pub path_prefix: Option<PathBuf>,
}

/// Everything a scenario needs.
pub(crate) struct Ctx<'a> {
    /// How the CLI is driven.
    pub profile: Profile,
    /// The binary under test.
    pub target: &'a Target,
    /// Every built-in driver.
    pub registry: &'a Registry,
}

type Check = Result<String, String>;

struct World {
    bench: Arc<Bench>,
    config: AdapterConfig,
}

fn str_err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

async fn world(ctx: &Ctx<'_>, approval: ApprovalMode, transcript: &Path) -> Result<World, String> {
    let fake = FakeLlmConfig {
        slow_delay: Duration::from_millis(150),
        ..FakeLlmConfig::default()
    };
    let bench = Bench::start_with(ctx.profile.cli, fake)
        .await
        .map_err(str_err)?;
    let mut env = bench.env();
    env.insert(TRANSCRIPT_VAR.into(), transcript.display().to_string());
    if let Some(prefix) = &ctx.target.path_prefix {
        let path = env.get("PATH").cloned().unwrap_or_default();
        env.insert("PATH".into(), format!("{}:{path}", prefix.display()));
    }
    let config = AdapterConfig {
        cwd: bench.cwd().to_path_buf(),
        binary: Some(ctx.target.wrapper.clone()),
        env,
        approval,
        model: ctx.profile.model.map(String::from),
        ..AdapterConfig::default()
    };
    Ok(World {
        bench: Arc::new(bench),
        config,
    })
}

async fn session(
    ctx: &Ctx<'_>,
    config: AdapterConfig,
    policy: Policy,
) -> Result<HostSession, String> {
    let factory = ctx.registry.get(ctx.profile.provider).map_err(str_err)?;
    let mut s = HostSession::new(factory, config, Arc::new(policy), SessionOptions::default());
    match tokio::time::timeout(START_LIMIT, s.start()).await {
        Err(_) => Err(format!(
            "session did not start within {} s",
            START_LIMIT.as_secs()
        )),
        Ok(Err(e)) => Err(format!("session start: {e}")),
        Ok(Ok(())) => Ok(s),
    }
}

async fn turn(s: &mut HostSession, prompt: &str) -> Result<(TurnOutcome, Vec<Event>), String> {
    let events: Arc<Mutex<Vec<Event>>> = Arc::default();
    let sink_events = events.clone();
    let mut sink = move |e: Event| {
        if let Ok(mut v) = sink_events.lock() {
            v.push(e);
        }
    };
    let out = tokio::time::timeout(TURN_LIMIT, s.prompt(PromptInput::text(prompt), &mut sink))
        .await
        .map_err(|_| format!("`{prompt}` did not end within {} s", TURN_LIMIT.as_secs()))?;
    let ev = events.lock().map(|v| v.clone()).unwrap_or_default();
    Ok((out, ev))
}

fn completed(what: &str, out: &TurnOutcome) -> Result<(), String> {
    if out.reason == EndReason::Completed {
        return Ok(());
    }
    let why = out
        .error
        .as_ref()
        .map(|e| format!(": {} {}", e.code, e.message))
        .unwrap_or_default();
    Err(format!("{what} ended {:?}{why}", out.reason))
}

/// Terminates and checks that nothing of the bench outlived the session.
async fn finish(mut s: HostSession, bench: &Bench) -> Result<(), String> {
    s.terminate().await.map_err(|e| format!("terminate: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left = leftover_processes(bench.marker());
        if left.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("processes outlived the session: {left:?}"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn text_turn(ctx: &Ctx<'_>, t: &Path) -> Check {
    let w = world(ctx, ApprovalMode::Ask, t).await?;
    let mut s = session(ctx, w.config.clone(), Policy::DenyAll).await?;
    let (out, ev) = turn(&mut s, "say hello").await?;
    completed("the text turn", &out)?;
    let answer = text(&ev);
    if !answer.contains("You said: ") || !answer.contains("say hello") {
        return Err(format!("unexpected answer {answer:?}"));
    }
    finish(s, &w.bench).await?;
    Ok(format!("{} chunks", chunk_count(&ev)))
}

fn tool_prompt(ctx: &Ctx<'_>, cwd: &Path) -> String {
    if ctx.profile.acp {
        format!("[[tool]] run the tool in {}", cwd.display())
    } else {
        "run it [[scenario:tool]]".to_string()
    }
}

async fn tool(ctx: &Ctx<'_>, t: &Path, allow: bool) -> Check {
    let blocking = ctx.profile.tools == Tools::Blocking;
    let (mode, policy) = match (blocking, allow) {
        (true, true) => (ApprovalMode::Ask, Policy::AllowAll),
        (true, false) => (ApprovalMode::Ask, Policy::DenyAll),
        // Advisory: the policy would allow; the launch mode alone decides.
        (false, true) => (ApprovalMode::AutoApprove, Policy::AllowAll),
        (false, false) => (ApprovalMode::Ask, Policy::AllowAll),
    };
    let w = world(ctx, mode, t).await?;
    let mut s = session(ctx, w.config.clone(), policy).await?;
    let (out, ev) = turn(&mut s, &tool_prompt(ctx, w.bench.cwd())).await?;
    completed("the tool turn", &out)?;
    let ran = w.bench.cwd().join(TOOL_FILE).exists();
    let asked = approvals(&ev);
    if ran != allow {
        return Err(format!(
            "tool ran: {ran}, expected {allow} ({asked} approvals asked)"
        ));
    }
    if blocking && asked == 0 {
        return Err("the CLI ran without asking cohost for approval".into());
    }
    finish(s, &w.bench).await?;
    Ok(format!("{asked} approval(s) asked"))
}

async fn interrupt(ctx: &Ctx<'_>, t: &Path) -> Check {
    let w = world(ctx, ApprovalMode::Ask, t).await?;
    let mut s = session(ctx, w.config.clone(), Policy::DenyAll).await?;
    let control = s.control();
    let pressed: Arc<Mutex<Option<Instant>>> = Arc::default();
    let (prompt, watcher) = match ctx.profile.interrupt {
        Interrupt::Chunk => ("count [[scenario:slow]]".to_string(), None),
        Interrupt::AfterRequest(scenario) => {
            let marker = format!("scenario:{scenario}");
            let (bench, p, control) = (w.bench.clone(), pressed.clone(), control.clone());
            let wanted = marker.clone();
            let watcher = tokio::spawn(async move {
                loop {
                    let seen = bench
                        .fake()
                        .requests()
                        .iter()
                        .any(|r| r.body.to_string().contains(&wanted));
                    if seen {
                        // Let the agent start reading the (stalled) stream.
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        if let Ok(mut at) = p.lock() {
                            *at = Some(Instant::now());
                        }
                        control.interrupt();
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            });
            (format!("wait [[{marker}]]"), Some(watcher))
        }
    };
    let chunk_press = matches!(ctx.profile.interrupt, Interrupt::Chunk);
    let p = pressed.clone();
    let mut sink = move |e: Event| {
        if chunk_press
            && matches!(e.body, EventBody::StreamChunk { chunk_index, .. } if chunk_index >= 1)
        {
            if let Ok(mut at) = p.lock() {
                if at.is_none() {
                    *at = Some(Instant::now());
                    control.interrupt();
                }
            }
        }
    };
    let out =
        tokio::time::timeout(TURN_LIMIT, s.prompt(PromptInput::text(&prompt), &mut sink)).await;
    let ended = Instant::now();
    if let Some(w) = watcher {
        w.abort();
    }
    let out = out.map_err(|_| {
        format!(
            "the interrupted turn did not end within {} s",
            TURN_LIMIT.as_secs()
        )
    })?;
    let at = pressed
        .lock()
        .ok()
        .and_then(|p| *p)
        .ok_or("the interrupt was never pressed (no chunk / no request)")?;
    let took = ended.saturating_duration_since(at);
    if out.reason != EndReason::Interrupted {
        return Err(format!(
            "ended {:?}, not interrupted ({took:?} after the press)",
            out.reason
        ));
    }
    let (next, ev) = turn(&mut s, "say hello again").await?;
    completed("the prompt after the interrupt", &next)?;
    if !text(&ev).contains("say hello again") {
        return Err(format!(
            "after the interrupt: unexpected answer {:?}",
            text(&ev)
        ));
    }
    finish(s, &w.bench).await?;
    Ok(format!(
        "stream_end {} ms after the interrupt",
        took.as_millis()
    ))
}

async fn resume(ctx: &Ctx<'_>, t: &Path) -> Check {
    let w = world(ctx, ApprovalMode::Ask, t).await?;
    let mut s = session(ctx, w.config.clone(), Policy::DenyAll).await?;
    let (out, _) = turn(&mut s, "remember the word PAPAYA").await?;
    completed("the first turn", &out)?;
    let how = match ctx.profile.resume {
        Resume::FollowUp => "follow-up in the same session",
        Resume::NewSession => {
            let id = s
                .native_session_id()
                .map(str::to_string)
                .ok_or("no native session id to resume")?;
            finish(s, &w.bench).await?;
            let mut cfg = w.config.clone();
            cfg.resume = Some(id);
            s = session(ctx, cfg, Policy::DenyAll).await?;
            "new session by native id"
        }
    };
    let (out, _) = turn(&mut s, "which word?").await?;
    completed("the resumed turn", &out)?;
    let kept = w.bench.model_requests().iter().any(|r| {
        let body = r.body.to_string();
        body.contains("PAPAYA") && body.contains("which word?")
    });
    if !kept {
        return Err(format!("{how}: the model request lacks the earlier turn"));
    }
    finish(s, &w.bench).await?;
    Ok(how.to_string())
}

async fn provider_error(ctx: &Ctx<'_>, t: &Path) -> Check {
    let w = world(ctx, ApprovalMode::Ask, t).await?;
    let mut s = session(ctx, w.config.clone(), Policy::DenyAll).await?;
    let (out, _) = turn(&mut s, "x [[scenario:401]]").await?;
    let code = out.error.as_ref().map(|e| e.code);
    if out.reason != EndReason::Error || code != Some(ErrorCode::AuthRequired) {
        return Err(format!(
            "a 401 ended {:?} with {code:?}, expected AUTH_REQUIRED",
            out.reason
        ));
    }
    finish(s, &w.bench).await?;
    Ok("401 -> AUTH_REQUIRED".into())
}

/// Why `scenario` does not apply to this CLI, if it does not.
pub(crate) fn not_applicable(p: &Profile, scenario: &str) -> Option<&'static str> {
    match scenario {
        "tool_deny" | "tool_allow" if p.tools == Tools::None => Some(
            "no tool approvals (README matrix: aider edits are not tool calls cohost can gate)",
        ),
        _ => None,
    }
}

/// Runs one scenario; its transcript is appended to `transcript`.
pub(crate) async fn run(ctx: &Ctx<'_>, scenario: &str, transcript: &Path) -> ScenarioResult {
    let started = Instant::now();
    let result = |status, detail: String| ScenarioResult {
        scenario: scenario.to_string(),
        status,
        detail,
        seconds: started.elapsed().as_secs_f64(),
    };
    if let Some(why) = not_applicable(&ctx.profile, scenario) {
        return result(Status::NotApplicable, why.to_string());
    }
    let check = match scenario {
        "text" => text_turn(ctx, transcript).await,
        "tool_deny" => tool(ctx, transcript, false).await,
        "tool_allow" => tool(ctx, transcript, true).await,
        "interrupt" => interrupt(ctx, transcript).await,
        "resume" => resume(ctx, transcript).await,
        "provider_error" => provider_error(ctx, transcript).await,
        other => Err(format!("unknown scenario {other}")),
    };
    match check {
        Ok(detail) => result(Status::Pass, detail),
        Err(detail) => result(Status::Fail, detail),
    }
}
