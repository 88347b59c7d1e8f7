//! `cohost run`: stream one turn from an agent.

use clap::{Args, ValueEnum};
use cohost_core::{
    AdapterConfig, ApprovalMode, CohostError, ErrorCode, Event, HostSession, Policy, PromptInput,
    SessionOptions,
};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

use cohost_host::{slots, Host, HostConfig, SessionRecord, SessionStore};

use crate::approve::TerminalPrompt;
use crate::exit;
use crate::providers;
use crate::render::Human;

/// Who decides on tool calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Approve {
    /// Allow every tool call (the agent runs in its auto-approve mode).
    All,
    /// Deny every tool call.
    None,
    /// Ask on the terminal; deny when there is no terminal.
    Ask,
}

/// Arguments of `cohost run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Provider id (see `cohost agents`). Default: the first installed agent, else the mock.
    #[arg(long, short = 'a')]
    agent: Option<String>,
    /// Model to ask for (provider-specific; for the mock, a scenario name).
    #[arg(long, short = 'm')]
    model: Option<String>,
    /// Working directory for the agent (default: the current directory).
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// Print the normalized events as NDJSON on stdout.
    #[arg(long)]
    json: bool,
    /// Tool-approval policy.
    #[arg(long, value_enum, default_value_t = Approve::Ask)]
    approve: Approve,
    /// Resume a stored cohost session (see `cohost sessions`), or an agent's native session id.
    #[arg(long)]
    resume: Option<String>,
    /// Use a capability slot's provider, mode and model (see `cohost config list`).
    #[arg(long, conflicts_with = "agent")]
    slot: Option<String>,
    /// Tools to offer an API provider's model (a JSON array; the model's
    /// calls come back as `tool_call` events, nothing runs). Agent CLIs use
    /// their own tools and refuse this.
    #[arg(long, value_name = "FILE")]
    tools: Option<PathBuf>,
    /// Seconds an approval request waits for an answer before it is denied.
    #[arg(long, default_value_t = 120)]
    approval_timeout: u64,
    /// The prompt (words are joined with spaces; `-` reads it from stdin).
    #[arg(required = true, num_args = 1.., value_name = "PROMPT")]
    prompt: Vec<String>,
}

fn read_prompt(words: &[String]) -> Result<String, CohostError> {
    let text = if words.len() == 1 && words[0] == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).map_err(|e| {
            CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("cannot read the prompt from stdin: {e}"),
            )
        })?;
        s
    } else {
        words.join(" ")
    };
    if text.trim().is_empty() {
        return Err(
            CohostError::new(ErrorCode::ConfigInvalid, "the prompt is empty").with_fix(
                "give the agent something to do, e.g. cohost run \"explain this repository\"",
            ),
        );
    }
    Ok(text)
}

/// What `--resume` and `--slot` decided before the session starts.
struct Plan {
    provider: Option<String>,
    cwd: Option<PathBuf>,
    config: AdapterConfig,
    record_id: Option<String>,
    watermark: u64,
}

fn plan_session(
    host: &Host,
    cfg: &HostConfig,
    store: &SessionStore,
    args: &RunArgs,
) -> Result<Plan, CohostError> {
    let mut plan = Plan {
        provider: args.agent.clone(),
        cwd: None,
        config: AdapterConfig::default(),
        record_id: None,
        watermark: 0,
    };
    if let Some(name) = &args.slot {
        let resolved = slots::resolve_slot(host, cfg, name)?;
        plan.provider = Some(resolved.provider_id);
        plan.config = resolved.config;
    }
    if let Some(id) = &args.resume {
        match store.get(id)? {
            Some(rec) => {
                if let Some(agent) = &plan.provider {
                    if *agent != rec.provider {
                        return Err(CohostError::new(
                            ErrorCode::ConfigInvalid,
                            format!("session {id} belongs to `{}`, not `{agent}`", rec.provider),
                        )
                        .with_fix(format!("drop --agent, or pass --agent {}", rec.provider)));
                    }
                }
                plan.provider = Some(rec.provider.clone());
                plan.cwd = Some(rec.cwd.clone());
                plan.config.model = plan.config.model.take().or(rec.model.clone());
                plan.config.resume = rec.native_session_id.clone();
                plan.record_id = Some(rec.id.clone());
                plan.watermark = rec.watermark;
            }
            // Not one of ours: hand it to the agent as its native id.
            None => plan.config.resume = Some(id.clone()),
        }
    }
    Ok(plan)
}

fn working_dir(cwd: Option<PathBuf>) -> Result<PathBuf, CohostError> {
    let dir = match cwd {
        Some(d) => d,
        None => std::env::current_dir().map_err(|e| {
            CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("cannot read the current directory: {e}"),
            )
        })?,
    };
    if !dir.is_dir() {
        return Err(CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("--cwd {} is not a directory", dir.display()),
        )
        .with_fix("pass an existing directory"));
    }
    Ok(dir)
}

/// Run the command; returns the exit code.
pub async fn run(args: RunArgs) -> u8 {
    if let Err(e) = crate::signals::listen() {
        tracing::warn!(error = %e, "cannot listen for signals");
    }
    let prompt = match read_prompt(&args.prompt) {
        Ok(p) => p,
        Err(e) => {
            exit::report(&e, args.json);
            return exit::USAGE;
        }
    };
    let (host, cfg) = match crate::hostctx::host_and_config() {
        Ok(x) => x,
        Err(e) => return exit::report(&e, args.json),
    };
    let store = SessionStore::open(&host.paths.state_dir);
    let mut plan = match plan_session(&host, &cfg, &store, &args) {
        Ok(p) => p,
        Err(e) => return exit::report(&e, args.json),
    };
    let (factory, fell_back) = match providers::choose(&host.registry, plan.provider.as_deref()) {
        Ok(f) => f,
        Err(e) => return exit::report(&e, args.json),
    };
    if fell_back {
        eprintln!(
            "cohost: no agent CLI found on PATH; using the built-in mock agent. \
             Install one (see `cohost agents`) or pass --agent."
        );
    }
    let cwd = match working_dir(args.cwd.clone().or(plan.cwd.take())) {
        Ok(d) => d,
        Err(e) => return exit::report(&e, args.json),
    };
    let (mode, decisions): (ApprovalMode, Arc<dyn cohost_core::DecisionSource>) = match args.approve
    {
        Approve::All => (ApprovalMode::AutoApprove, Arc::new(Policy::AllowAll)),
        Approve::None => (ApprovalMode::DenyAll, Arc::new(Policy::DenyAll)),
        Approve::Ask => (ApprovalMode::Ask, Arc::new(TerminalPrompt::default())),
    };
    let mut config = plan.config.clone();
    config.cwd = cwd.clone();
    config.approval = mode;
    if args.model.is_some() {
        config.model = args.model.clone();
    }
    if let Some(path) = &args.tools {
        let d = factory.descriptor();
        // Agent CLIs (and the mock) bring their own tools.
        if d.kind == cohost_core::ProviderKind::AgentCli {
            let e = CohostError::new(
                ErrorCode::ConfigInvalid,
                format!(
                    "`{}` runs its own tools; --tools is for API providers",
                    d.id
                ),
            )
            .with_fix("drop --tools, or pick an API provider (e.g. --agent anthropic)");
            exit::report(&e, args.json);
            return exit::USAGE;
        }
        match cohost_host::tools::load(path) {
            Ok(t) => config.tools = t,
            Err(e) => {
                exit::report(&e, args.json);
                return exit::USAGE;
            }
        }
    }
    let options = SessionOptions {
        approval_deadline: std::time::Duration::from_secs(args.approval_timeout),
        ..SessionOptions::default()
    };
    let provider_id = factory.descriptor().id;
    let model = config.model.clone();
    let mut session = HostSession::new(factory, config, decisions, options);
    if let Err(e) = session.start().await {
        return exit::report(&e, args.json);
    }
    let record_id = plan
        .record_id
        .clone()
        .unwrap_or_else(|| format!("s-{}", cohost_core::ids::random_tag()));
    let mut record = SessionRecord::new(record_id.clone(), provider_id, cwd);
    record.model = model;
    record.native_session_id = session.native_session_id().map(String::from);
    record.watermark = plan.watermark;
    if let Err(e) = store.upsert(record) {
        tracing::warn!(error = %e, "could not record the session");
    }

    let control = session.control();
    let json = args.json;
    crate::signals::set_hook(move |stop| {
        control.interrupt();
        match stop {
            crate::signals::Stop::Interrupt if !json => {
                eprintln!("\ncohost: interrupting… (Ctrl+C again to quit)");
            }
            crate::signals::Stop::Interrupt => {}
            // A second Ctrl+C: the user wants out now.
            crate::signals::Stop::Quit(sig) if sig == crate::signals::sigint() => {
                crate::signals::force_exit(exit::INTERRUPTED)
            }
            // SIGTERM/HUP/QUIT: the ladder ends the turn, then run returns.
            crate::signals::Stop::Quit(_) => {}
        }
    });

    let mut human = Human::new();
    let mut sink = |event: Event| {
        if json {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", event.to_json_line());
            let _ = out.flush();
        } else {
            human.show(&event);
        }
    };
    let outcome = session.prompt(PromptInput::text(prompt), &mut sink).await;
    let native = session.native_session_id().map(String::from);
    if let Err(e) = store.update(&record_id, |r| {
        r.native_session_id = native.clone().or(r.native_session_id.take());
        r.watermark += 1;
    }) {
        tracing::warn!(error = %e, "could not update the session record");
    }
    if !json {
        eprintln!(
            "cohost: session {record_id} (continue with: cohost run --resume {record_id} \"...\")"
        );
    }
    if let Err(e) = session.terminate().await {
        tracing::warn!(error = %e, "terminate failed");
    }
    exit::for_end(outcome.reason, outcome.error.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_prompts_are_refused() {
        for words in [vec!["".to_string()], vec!["  ".into(), "\t".into()]] {
            let e = read_prompt(&words).unwrap_err();
            assert_eq!(e.code, ErrorCode::ConfigInvalid);
            assert!(e.suggested_fix.is_some());
        }
        assert_eq!(read_prompt(&["a".into(), "b".into()]).unwrap(), "a b");
    }

    #[test]
    fn cwd_must_exist() {
        let e = working_dir(Some("/definitely/not/here".into())).unwrap_err();
        assert_eq!(e.code, ErrorCode::ConfigInvalid);
    }
}
