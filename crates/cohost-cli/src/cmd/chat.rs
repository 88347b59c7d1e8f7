//! `cohost chat` (and `cohost` alone on a terminal): an interactive session
//! that stays alive across turns, in the terminal UI (`cohost-tui`).
//!
//! The session is opened by the one setup service (`session::prepare`, as
//! `cohost run` does); approvals are answered on screen through
//! [`PendingApprovals`]. This module is the thin shell between the app's
//! effects and the session: [`drive`] owns the session and runs its turns.

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use cohost_core::{
    ApprovalOption, CohostError, Decision, DecisionOrigin, ErrorCode, Event, PromptInput,
    SessionOptions,
};
use cohost_host::session::{self, ProviderChoice, Recording, SessionRequest};
use cohost_host::{Host, HostConfig, OpenSession, PendingApprovals};
use cohost_tui::app::{AgentInfo, App, Effect, Incoming, SessionInfo};
use cohost_tui::commands::Mode;
use cohost_tui::theme::Theme;
use tokio::sync::mpsc;

use crate::cmd::run::{AgentArgs, Approve};
use crate::exit::{CmdResult, Failure};

/// Arguments of `cohost chat`.
#[derive(Debug, Default, Args)]
pub struct ChatArgs {
    #[command(flatten)]
    target: AgentArgs,
    /// Resume a stored cohost session (see `cohost sessions`), or an agent's native session id.
    #[arg(long)]
    pub resume: Option<String>,
    /// Tool-approval policy (default: ask, on screen).
    #[arg(long, value_enum)]
    pub approve: Option<Approve>,
    /// Seconds an approval waits for an answer before it is denied [default: 120].
    #[arg(long)]
    pub approval_timeout: Option<u64>,
    /// Where `/share` opens its room.
    #[command(flatten, next_help_heading = "Sharing (/share)")]
    pub room: crate::cmd::hosting::RoomArgs,
}

/// Whether cohost talks to a person at a terminal (stdin and stdout).
pub fn on_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// Which session to open: the parts `/agent`, `/model` and `/resume` change.
#[derive(Debug, Clone)]
struct Target {
    provider: ProviderChoice,
    model: Option<String>,
    resume: Option<String>,
}

/// What the driver needs to (re)open sessions.
struct Ctx {
    host: Host,
    cfg: HostConfig,
    args: ChatArgs,
    approvals: PendingApprovals,
}

impl Ctx {
    fn request(&self, t: &Target) -> SessionRequest {
        let approve = self.args.approve.unwrap_or(Approve::Ask);
        let mut req = SessionRequest::new(
            t.provider.clone(),
            approve.approvals(Arc::new(self.approvals.clone())),
        );
        req.model = t.model.clone();
        req.cwd = self.args.target.cwd.clone();
        req.resume = t.resume.clone();
        req.recording = Recording::New;
        req.options = SessionOptions {
            approval_deadline: Duration::from_secs(self.args.approval_timeout.unwrap_or(120)),
            ..SessionOptions::default()
        };
        req
    }

    async fn open(&self, t: &Target) -> Result<OpenSession, CohostError> {
        let mut s = session::prepare(&self.host, &self.cfg, self.request(t))?;
        s.start().await?;
        Ok(s)
    }
}

fn info(s: &OpenSession, model: Option<String>) -> SessionInfo {
    SessionInfo {
        agent: s.descriptor().id.clone(),
        model,
        session_id: s.record_id().map(String::from),
    }
}

/// Run the command: the chat screen until the user quits.
pub async fn run(args: ChatArgs) -> CmdResult {
    if !on_terminal() {
        return Err(Failure::usage(
            CohostError::new(ErrorCode::ConfigInvalid, "cohost chat needs a terminal")
                .with_fix("run one turn with `cohost run \"PROMPT\"`, or use `--json` there"),
        ));
    }
    if let Err(e) = crate::signals::listen() {
        tracing::warn!(error = %e, "cannot listen for signals");
    }
    let (host, cfg) = crate::hostctx::host_and_config()?;
    let target = Target {
        provider: args.target.provider(),
        model: args.target.model.clone(),
        resume: args.resume.clone(),
    };
    let ctx = Ctx {
        host,
        cfg,
        args,
        approvals: PendingApprovals::new("the chat ended"),
    };
    // Opened before the screen switches, so a setup error prints plainly.
    let session = ctx.open(&target).await?;
    let (to_app, mut inbox) = mpsc::unbounded_channel();
    let (effects, from_app) = mpsc::unbounded_channel();
    let _ = to_app.send(Incoming::Session(info(&session, target.model.clone())));
    if session.fell_back() {
        let _ = to_app.send(Incoming::Notice(
            "no agent CLI found on PATH; this is the built-in mock agent. Install one (see `cohost agents`) or /agent ID.".into(),
        ));
    }
    let _ = to_app.send(Incoming::Notice(
        "type a prompt; /help for commands and keys".into(),
    ));
    watch_signals(effects.clone(), to_app.clone());
    let driver = tokio::spawn(drive(session, ctx, target, from_app, to_app));
    let mut app = App::new(Mode::Chat, Theme::from_env());
    let shown = cohost_tui::term::run(&mut app, &mut inbox, &effects).await;
    drop(inbox);
    let _ = driver.await;
    shown.map_err(|e| crate::exit::internal(format!("the terminal failed: {e}")))?;
    Ok(0)
}

/// SIGTERM, SIGHUP, SIGQUIT: give the terminal back first (the quit budget
/// may end the process before the loop does), then end the session.
/// SIGINT only arrives from `kill` (raw mode turns Ctrl+C into a key).
pub(crate) fn watch_signals(
    effects: mpsc::UnboundedSender<Effect>,
    to_app: mpsc::UnboundedSender<Incoming>,
) {
    crate::signals::set_hook(move |stop| match stop {
        crate::signals::Stop::Interrupt => {
            let _ = effects.send(Effect::Interrupt);
        }
        crate::signals::Stop::Quit(_) => {
            cohost_tui::term::restore();
            let _ = effects.send(Effect::Quit);
            let _ = to_app.send(Incoming::Closed("ending on a signal".into()));
        }
    });
}

/// Answer an approval; the engine shows the request a moment before it
/// parks it, so a very quick answer is retried briefly.
pub(crate) fn decide(approvals: &PendingApprovals, tool_id: String, option: ApprovalOption) {
    let approvals = approvals.clone();
    tokio::spawn(async move {
        let decision = Decision {
            option,
            message: (!option.is_allow()).then(|| "denied by the user".to_string()),
            origin: DecisionOrigin::User,
        };
        for _ in 0..40 {
            if approvals.answer(Some(&tool_id), decision.clone()) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    });
}

/// Own the session: run turns, switch agents or models, answer approvals.
async fn drive(
    mut session: OpenSession,
    ctx: Ctx,
    mut target: Target,
    mut effects: mpsc::UnboundedReceiver<Effect>,
    to_app: mpsc::UnboundedSender<Incoming>,
) {
    let say = |m: Incoming| {
        let _ = to_app.send(m);
    };
    while let Some(e) = effects.recv().await {
        match e {
            Effect::Prompt(text) => {
                if turn(&mut session, &ctx, text, &mut effects, &to_app).await {
                    break;
                }
            }
            Effect::Decide { tool_id, option } => decide(&ctx.approvals, tool_id, option),
            Effect::Interrupt => {
                session.control().interrupt();
            }
            Effect::ListAgents => {
                let agents = cohost_host::all_statuses(&ctx.host, &ctx.cfg)
                    .await
                    .into_iter()
                    .map(|s| AgentInfo {
                        id: s.provider_id.clone(),
                        status: crate::cmd::agents::enum_name(&s.status),
                        version: s.discovery.as_ref().and_then(|d| d.version_display.clone()),
                        fix: s.suggested_fix.clone(),
                    })
                    .collect();
                say(Incoming::Agents(agents));
            }
            Effect::SwitchAgent(id) => {
                let next = Target {
                    provider: ProviderChoice::Id(id),
                    model: None,
                    resume: None,
                };
                switch(&mut session, &ctx, &mut target, next, &to_app).await;
            }
            Effect::SwitchModel(model) => {
                // Same agent, same conversation (the record resumes it).
                let next = Target {
                    provider: ProviderChoice::Id(session.descriptor().id.clone()),
                    model: Some(model),
                    resume: session.record_id().map(String::from),
                };
                switch(&mut session, &ctx, &mut target, next, &to_app).await;
            }
            Effect::Resume(id) => {
                let next = Target {
                    provider: ProviderChoice::Default,
                    model: None,
                    resume: Some(id),
                };
                switch(&mut session, &ctx, &mut target, next, &to_app).await;
            }
            Effect::Share => match crate::cmd::hosting::open_room(&ctx.args.room).await {
                // The same session goes on, shared, until the host quits.
                Ok(room) => {
                    let approvals = ctx.approvals.clone();
                    return crate::cmd::room_tui::share_in_place(
                        session, approvals, room, effects, to_app,
                    )
                    .await;
                }
                Err(e) => say(Incoming::Error {
                    message: format!("cannot share: {}", e.message),
                    fix: e.suggested_fix,
                }),
            },
            Effect::Quit => break,
            other => say(Incoming::Notice(format!(
                "{other:?} is for shared sessions"
            ))),
        }
    }
    ctx.approvals.abandon_all();
    if let Err(e) = session.terminate().await {
        tracing::warn!(error = %e, "terminate failed");
    }
}

/// Open `next` in place of the session; on failure the old one is opened
/// again (its agent was stopped to free the terminal and the record).
async fn switch(
    session: &mut OpenSession,
    ctx: &Ctx,
    target: &mut Target,
    next: Target,
    to_app: &mpsc::UnboundedSender<Incoming>,
) {
    let _ = session.terminate().await;
    match ctx.open(&next).await {
        Ok(s) => {
            *session = s;
            *target = next;
        }
        Err(e) => {
            let _ = to_app.send(Incoming::Error {
                message: e.message.clone(),
                fix: e.suggested_fix.clone(),
            });
            match ctx.open(target).await {
                Ok(s) => *session = s,
                Err(e) => {
                    let _ = to_app.send(Incoming::Error {
                        message: e.message,
                        fix: e.suggested_fix,
                    });
                }
            }
        }
    }
    let _ = to_app.send(Incoming::Session(info(session, target.model.clone())));
}

/// One turn; the app's effects meanwhile: interrupts and approvals act at
/// once, a quit interrupts and ends. True when the user quit.
async fn turn(
    session: &mut OpenSession,
    ctx: &Ctx,
    text: String,
    effects: &mut mpsc::UnboundedReceiver<Effect>,
    to_app: &mpsc::UnboundedSender<Incoming>,
) -> bool {
    let control = session.control();
    let events = to_app.clone();
    let mut sink = move |e: Event| {
        let _ = events.send(Incoming::Event(e));
    };
    let mut quit = false;
    let turn = session.prompt(PromptInput::text(text), &mut sink);
    tokio::pin!(turn);
    loop {
        tokio::select! {
            _ = &mut turn => break,
            e = effects.recv() => match e {
                Some(Effect::Interrupt) => {
                    control.interrupt();
                }
                Some(Effect::Decide { tool_id, option }) => decide(&ctx.approvals, tool_id, option),
                Some(Effect::Quit) | None => {
                    quit = true;
                    control.interrupt();
                    ctx.approvals.abandon_all();
                }
                Some(other) => {
                    let _ = to_app.send(Incoming::Notice(format!("the agent is busy; {other:?} was not done")));
                }
            },
        }
    }
    quit
}
