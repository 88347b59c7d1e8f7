//! `cohost run`: stream one turn from an agent.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command's own terminal output"
)]

use clap::{Args, ValueEnum};
use cohost_core::{ApprovalMode, CohostError, DecisionSource, ErrorCode, SessionOptions};
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

use cohost_host::session::{self, Approvals, ProviderChoice, Recording, SessionRequest, Tools};

use crate::approve::TerminalPrompt;
use crate::exit::{self, CmdResult, Failure};
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

/// Which agent runs a session, with which model, where (`run`, `share`, `chat`).
#[derive(Debug, Default, Args)]
pub struct AgentArgs {
    /// Provider id (see `cohost agents`). Default: the first installed
    /// agent, else the mock. `run` takes it several times: a room of
    /// agents, each given the prompt (compare).
    #[arg(long, short = 'a')]
    pub agent: Vec<String>,
    /// Model to ask for (provider-specific; for the mock, a scenario name).
    #[arg(long, short = 'm')]
    pub model: Option<String>,
    /// Working directory for the agent (default: the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Text appended to the agent's system prompt (claude, codex and the
    /// API providers; `cohost agents --json`: driver.system_prompt).
    #[arg(long, value_name = "TEXT")]
    pub system_prompt: Option<String>,
    /// Do not record the working tree around each turn (no `file_changes`
    /// events, nothing for `cohost diff` or `cohost undo`); the config key
    /// `checkpoints = false` does it for every session.
    #[arg(long)]
    pub no_checkpoints: bool,
    /// Run the session in a git worktree of its own (branch
    /// `cohost/<session>`, from HEAD plus your uncommitted changes): your
    /// checkout is untouched until `cohost worktree apply` (or `merge`).
    #[arg(long)]
    pub worktree: bool,
    /// Run the agent in an OS sandbox (Landlock): writes only to the
    /// working tree, its own state and a private temp dir; no reads of
    /// `~/.ssh`, `~/.aws`, `~/.gnupg`, other agents' credentials or
    /// cohost's keys; TCP connects only to the provider's ports. `on` (the
    /// bare flag) runs unconfined with a notice where the kernel cannot;
    /// `required` refuses to start there. Default: the config's `sandbox`
    /// (off; on for `share`).
    #[arg(
        long,
        value_name = "MODE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "on",
        value_parser = ["off", "on", "required"],
    )]
    pub sandbox: Option<String>,
    /// The budget and the notifications.
    #[command(flatten)]
    pub watch: crate::spend::WatchArgs,
}

impl AgentArgs {
    /// Put the model, working directory and system prompt into `req`.
    pub fn apply(&self, req: &mut SessionRequest) {
        req.model = self.model.clone();
        req.cwd = self.cwd.clone();
        req.system_prompt = self.system_prompt.clone();
        if self.no_checkpoints {
            req.checkpoints = Some(false);
        }
        if self.worktree {
            req.worktree = Some(true);
        }
        req.sandbox = self.sandbox_mode();
    }

    /// The `--sandbox` mode, when given (clap has checked the word).
    pub fn sandbox_mode(&self) -> Option<cohost_core::SandboxMode> {
        self.sandbox.as_deref().and_then(|m| m.parse().ok())
    }

    /// The provider named with `--agent`, else the default choice.
    pub fn provider(&self) -> ProviderChoice {
        match self.agent.first() {
            Some(id) => ProviderChoice::Id(id.clone()),
            None => ProviderChoice::Default,
        }
    }
}

/// Arguments of `cohost run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub(crate) target: AgentArgs,
    /// Print the normalized events as NDJSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Tool-approval policy.
    #[arg(long, value_enum, default_value_t = Approve::Ask)]
    pub(crate) approve: Approve,
    /// Resume a stored cohost session (see `cohost sessions`), or an agent's
    /// native session id (with --agent).
    #[arg(long, conflicts_with_all = ["continue_last", "fork"])]
    pub(crate) resume: Option<String>,
    /// Continue the most recent session run in this directory (of --agent, when given).
    #[arg(long = "continue", short = 'c', conflicts_with = "fork")]
    pub(crate) continue_last: bool,
    /// Fork a stored (or, with --agent, native) session: a new session that
    /// starts from its conversation; the original is left as it was.
    #[arg(long, value_name = "SESSION")]
    pub(crate) fork: Option<String>,
    /// Use a capability slot's provider, mode and model (see `cohost config list`).
    #[arg(long, conflicts_with = "agent")]
    pub(crate) slot: Option<String>,
    /// Tools to offer an API provider's model (a JSON array; the model's
    /// calls come back as `tool_call` events, nothing runs). Agent CLIs use
    /// their own tools and refuse this.
    #[arg(long, value_name = "FILE")]
    pub(crate) tools: Option<PathBuf>,
    /// Attach a file, or only lines A to B of it (repeatable; relative to --cwd).
    #[arg(long = "file", value_name = "PATH[:A-B]")]
    pub(crate) files: Vec<String>,
    /// Attach an image: PNG, JPEG, GIF or WebP (repeatable; providers whose
    /// capabilities say `images`).
    #[arg(long = "image", value_name = "PATH")]
    pub(crate) images: Vec<PathBuf>,
    /// Seconds an approval request waits for an answer before it is denied.
    #[arg(long, default_value_t = 120)]
    pub(crate) approval_timeout: u64,
    /// The prompt (words are joined with spaces; `-` reads it from stdin).
    #[arg(required = true, num_args = 1.., value_name = "PROMPT")]
    pub(crate) prompt: Vec<String>,
    /// Arguments for the agent CLI itself, after `--` (passed after the
    /// driver's own; a permission-bypass flag needs --approve all).
    #[arg(last = true, value_name = "AGENT_ARGS")]
    pub(crate) agent_args: Vec<String>,
}

pub(crate) fn read_prompt(words: &[String]) -> Result<String, CohostError> {
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

impl Approve {
    fn mode(self) -> ApprovalMode {
        match self {
            Approve::All => ApprovalMode::AutoApprove,
            Approve::None => ApprovalMode::DenyAll,
            Approve::Ask => ApprovalMode::Ask,
        }
    }

    /// The approval mode and who answers, with `ask` answering under `Ask`.
    pub fn approvals(self, ask: Arc<dyn DecisionSource>) -> Approvals {
        Approvals::policy(self.mode(), ask)
    }

    /// The approval mode, and under `Ask` the running session's handle
    /// answers (a screen or the host's `/allow`); `abandoned` is the reason
    /// given for a request the session ends on.
    pub fn through_handle(self, abandoned: &'static str) -> Approvals {
        Approvals::through_handle(self.mode(), abandoned)
    }
}

/// The session `cohost run` asks the setup service for.
pub(crate) fn request(args: &RunArgs) -> SessionRequest {
    let provider = match &args.slot {
        Some(slot) => ProviderChoice::Slot(slot.clone()),
        None => args.target.provider(),
    };
    let mut req = SessionRequest::new(
        provider,
        args.approve.approvals(Arc::new(TerminalPrompt::default())),
    );
    args.target.apply(&mut req);
    req.agent_args = args.agent_args.clone();
    req.resume = args.resume.clone().or(args.fork.clone());
    req.fork = args.fork.is_some();
    req.continue_last = args.continue_last;
    req.recording = Recording::New;
    // One prompt, sent at once: it need not wait for the agent's handshake.
    req.defer_handshake = true;
    if let Some(path) = &args.tools {
        req.tools = Tools::File(path.clone());
    }
    req.options = SessionOptions {
        approval_deadline: std::time::Duration::from_secs(args.approval_timeout),
        ..SessionOptions::default()
    };
    req
}

/// How long a one-shot command waits at its end for its last
/// notifications to be delivered.
pub(crate) const NOTIFY_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// Whether these arguments name several agents: a room (`compare`).
pub fn is_room(args: &RunArgs) -> bool {
    args.target.agent.len() > 1
}

/// Run the command: one turn; the exit code is the turn's end.
pub async fn run(args: RunArgs) -> CmdResult {
    if let Err(e) = crate::signals::listen() {
        tracing::warn!(error = %e, "cannot listen for signals");
    }
    let prompt = read_prompt(&args.prompt).map_err(Failure::usage)?;
    let (host, cfg) = crate::hostctx::host_and_config()?;
    let session = session::prepare(&host, &cfg, request(&args)).await?;
    let input = session.input(prompt, &args.files, &args.images)?;
    if let Some(note) = session.default_note() {
        eprintln!("cohost: {note}");
    }
    let budget = args.target.watch.budget(&cfg)?;
    let agent = session.descriptor().id.clone();
    let session = session.with_budget(budget.as_ref().map(|b| b.seat(agent.clone())));
    let notifier = args
        .target
        .watch
        .notifier(&cfg, false, |m| eprintln!("cohost: {m}"))?;
    let session = session.launch().await?;
    let record_id = session.record_id().unwrap_or_default().to_string();
    let mut events = session.subscribe_new();
    // No sink, no subscriber: a notifier that tells nobody reads nothing.
    let notifying = (!notifier.is_empty()).then(|| notifier.watch(session.subscribe_new(), agent));
    // The only prompt: the agent is stopped right after its turn, the
    // record's write overlapping its exit.
    let turn = session.prompt_last(input)?;

    let handle = session.clone();
    let json = args.json;
    crate::signals::set_hook(move |stop| {
        handle.interrupt();
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

    // On a terminal, a long silence from the agent gets a "still waiting"
    // line (see `quiet`).
    let heard = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = (!json && std::io::stderr().is_terminal()).then(|| {
        let agent = session.descriptor().id.clone();
        tokio::spawn(crate::quiet::notices(heard.clone(), agent, |line| {
            eprintln!("… {line}");
        }))
    });
    let mut human = Human::new();
    // Every event up to the session's end (the agent stops after the turn).
    loop {
        let event = match events.recv().await {
            Ok(Some(event)) => event,
            Ok(None) => break,
            Err(lagged) => {
                tracing::warn!(%lagged, "output fell behind the agent");
                break;
            }
        };
        if crate::quiet::is_output(&event) {
            heard.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        if json {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", event.to_json_line());
            let _ = out.flush();
        } else {
            human.show(&event);
        }
    }
    let outcome = turn.outcome().await?;
    if let Some(w) = watcher {
        w.abort();
    }
    // The turn's end notice may still be on its way to a phone: a bounded
    // wait, after the session (and the watch with it) has ended.
    if let Some(w) = notifying {
        let _ = tokio::time::timeout(NOTIFY_GRACE, w).await;
    }
    notifier.drain(NOTIFY_GRACE).await;
    if !json {
        eprintln!(
            "cohost: session {record_id} (continue with: cohost run --resume {record_id} \"...\")"
        );
    }
    worktree_note(&host, &record_id, json).await;
    // The turn's own error is already in the event stream: exit with its code.
    Ok(exit::for_end(outcome.reason, outcome.error.as_ref()))
}

/// After a run in a worktree: where its changes are and how to bring them
/// in; a worktree with no change at all is removed (nothing to keep).
async fn worktree_note(host: &cohost_discovery::Host, record_id: &str, json: bool) {
    use cohost_host::changes::{self, WorktreeOp};
    let Ok(Some(rec)) = cohost_host::SessionStore::of(host).get(record_id) else {
        return;
    };
    let Some(w) = &rec.worktree else { return };
    match changes::worktree(host, &rec, WorktreeOp::Status).await {
        Ok(st) if st.files.is_empty() => {
            if let Err(e) = changes::worktree(host, &rec, WorktreeOp::Discard { force: false }).await
            {
                tracing::warn!(error = %e, "removing the unchanged worktree failed");
            }
        }
        Ok(st) if !json => eprintln!(
            "cohost: {} file(s) changed in the worktree {} (branch {}): `cohost worktree apply {record_id}` \
             brings them into your checkout, `cohost worktree merge {record_id}` merges the branch, \
             `cohost worktree discard {record_id}` drops them",
            st.files.len(),
            cohost_core::sanitize::inert_line(&w.path.display().to_string()),
            w.branch
        ),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "reading the worktree failed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_prompts_are_refused() {
        for words in [vec![String::new()], vec!["  ".into(), "\t".into()]] {
            let e = read_prompt(&words).unwrap_err();
            assert_eq!(e.code, ErrorCode::ConfigInvalid);
            assert!(e.suggested_fix.is_some());
        }
        assert_eq!(read_prompt(&["a".into(), "b".into()]).unwrap(), "a b");
    }

    #[test]
    fn cwd_must_exist() {
        let e = session::working_dir(Some("/definitely/not/here".into())).unwrap_err();
        assert_eq!(
            cohost_core::CohostError::from(e).code,
            ErrorCode::ConfigInvalid
        );
    }
}
