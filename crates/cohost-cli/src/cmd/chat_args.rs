//! What `cohost chat` opens its sessions from: its arguments, the agent,
//! model and session a chat runs (the parts `/agent`, `/model` and
//! `/resume` change), and the request built from them (shared by the
//! one-agent chat and the room).

use std::time::Duration;

use clap::Args;
use cohost_core::{CohostError, SessionOptions};
use cohost_discovery::{Host, HostConfig};
use cohost_host::session::{self, ProviderChoice, Recording, SessionRequest};
use cohost_session::RunningSession;
use cohost_tui::app::Incoming;
use tokio::sync::mpsc::UnboundedSender;

use crate::cmd::run::{AgentArgs, Approve};

/// Arguments of `cohost chat`.
#[derive(Debug, Default, Args)]
pub struct ChatArgs {
    #[command(flatten)]
    pub(crate) target: AgentArgs,
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
    /// Arguments for the agent CLI named with --agent, after `--` (not for
    /// an agent switched to with /agent).
    #[arg(last = true, value_name = "AGENT_ARGS")]
    pub agent_args: Vec<String>,
}

/// Which session to open: the parts `/agent`, `/model` and `/resume` change.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub(crate) provider: ProviderChoice,
    pub(crate) model: Option<String>,
    pub(crate) resume: Option<String>,
}

/// What the driver needs to (re)open sessions.
pub(crate) struct Ctx {
    pub(crate) host: Host,
    pub(crate) cfg: HostConfig,
    pub(crate) args: ChatArgs,
    /// The chat's budget: every session it opens (an agent switched to, a
    /// room's members) spends from it.
    pub(crate) budget: Option<cohost_session::SharedBudget>,
    /// Where its notices go.
    pub(crate) notifier: cohost_notify::Notifier,
    /// The screen, once it runs: a notification sink that keeps failing
    /// is told there (once).
    pub(crate) screen: std::sync::Arc<std::sync::Mutex<Option<UnboundedSender<Incoming>>>>,
}

impl Ctx {
    /// The chat's context: its budget and notifier from the flags and the
    /// config (the terminal sink is the screen's).
    pub(crate) fn new(host: Host, cfg: HostConfig, args: ChatArgs) -> Result<Ctx, CohostError> {
        let budget = args.target.watch.budget(&cfg)?;
        let screen: std::sync::Arc<std::sync::Mutex<Option<UnboundedSender<Incoming>>>> =
            std::sync::Arc::default();
        let told = screen.clone();
        let notifier = args.target.watch.notifier(&cfg, true, move |m| {
            match cohost_core::sync::lock(&told).as_ref() {
                Some(to_app) => {
                    let _ = to_app.send(Incoming::Notice(m));
                }
                None => tracing::warn!("{m}"),
            }
        })?;
        Ok(Ctx {
            host,
            cfg,
            args,
            budget,
            notifier,
            screen,
        })
    }

    /// `/budget ARG`: what the budget is, or that it was raised.
    pub(crate) fn budget_notice(&self, arg: &str) -> Incoming {
        match cohost_sharing::spend_text::budget_command(self.budget.as_ref(), arg) {
            Ok(text) => Incoming::Notice(text),
            Err(e) => Incoming::Error {
                message: e.message,
                fix: e.suggested_fix,
            },
        }
    }

    /// The screen runs: reports go to `to_app` from now on.
    pub(crate) fn on_screen(&self, to_app: &UnboundedSender<Incoming>) {
        *cohost_core::sync::lock(&self.screen) = Some(to_app.clone());
    }

    /// A seat at the chat's budget for the session (member) `name`.
    pub(crate) fn seat(&self, name: &str) -> Option<cohost_session::BudgetSeat> {
        self.budget.as_ref().map(|b| b.seat(name))
    }

    pub(crate) fn request(&self, t: &Target) -> SessionRequest {
        let approve = self.args.approve.unwrap_or(Approve::Ask);
        let mut req =
            SessionRequest::new(t.provider.clone(), approve.through_handle("the chat ended"));
        self.args.target.apply(&mut req);
        req.model = t.model.clone();
        req.resume = t.resume.clone();
        if t.provider == self.args.target.provider() {
            req.agent_args = self.args.agent_args.clone();
        }
        req.recording = Recording::New;
        req.options = SessionOptions {
            approval_deadline: Duration::from_secs(self.args.approval_timeout.unwrap_or(120)),
            ..SessionOptions::default()
        };
        req
    }

    /// Open `t`; `fell_back` when no agent was named and the mock runs.
    pub(crate) async fn open(&self, t: &Target) -> Result<(RunningSession, bool), CohostError> {
        let s = session::prepare(&self.host, &self.cfg, self.request(t)).await?;
        let fell_back = s.fell_back();
        let name = s.descriptor().id.clone();
        let s = s.with_budget(self.seat(&name));
        let running = s.launch().await?;
        self.notifier.watch(running.subscribe_new(), name);
        Ok((running, fell_back))
    }
}
