//! `cohost run`: stream one turn from an agent.

use clap::{Args, ValueEnum};
use cohost_core::{
    AdapterConfig, ApprovalMode, CohostError, ErrorCode, Event, HostSession, Policy, PromptInput,
    SessionOptions,
};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

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
    /// Resume the agent's native session id.
    #[arg(long)]
    resume: Option<String>,
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
    let prompt = match read_prompt(&args.prompt) {
        Ok(p) => p,
        Err(e) => {
            exit::report(&e, args.json);
            return exit::USAGE;
        }
    };
    let cwd = match working_dir(args.cwd.clone()) {
        Ok(d) => d,
        Err(e) => return exit::report(&e, args.json),
    };
    let registry = match providers::registry() {
        Ok(r) => r,
        Err(e) => return exit::report(&e, args.json),
    };
    let (factory, fell_back) = match providers::choose(&registry, args.agent.as_deref()) {
        Ok(f) => f,
        Err(e) => return exit::report(&e, args.json),
    };
    if fell_back {
        eprintln!(
            "cohost: no agent CLI found on PATH; using the built-in mock agent. \
             Install one (see `cohost agents`) or pass --agent."
        );
    }
    let (mode, decisions): (ApprovalMode, Arc<dyn cohost_core::DecisionSource>) = match args.approve
    {
        Approve::All => (ApprovalMode::AutoApprove, Arc::new(Policy::AllowAll)),
        Approve::None => (ApprovalMode::DenyAll, Arc::new(Policy::DenyAll)),
        Approve::Ask => (ApprovalMode::Ask, Arc::new(TerminalPrompt::default())),
    };
    let config = AdapterConfig {
        cwd,
        model: args.model.clone(),
        approval: mode,
        resume: args.resume.clone(),
        ..AdapterConfig::default()
    };
    let options = SessionOptions {
        approval_deadline: std::time::Duration::from_secs(args.approval_timeout),
        ..SessionOptions::default()
    };
    let mut session = HostSession::new(factory, config, decisions, options);
    if let Err(e) = session.start().await {
        return exit::report(&e, args.json);
    }

    let control = session.control();
    let json = args.json;
    let ctrl_c = tokio::spawn(async move {
        let mut presses = 0;
        while tokio::signal::ctrl_c().await.is_ok() {
            presses += 1;
            if presses == 1 {
                control.interrupt();
                if !json {
                    eprintln!("\ncohost: interrupting… (Ctrl+C again to quit)");
                }
            } else {
                cohost_agents::process::kill_all();
                std::process::exit(i32::from(exit::INTERRUPTED));
            }
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
    ctrl_c.abort();
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
