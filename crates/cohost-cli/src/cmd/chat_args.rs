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
}

impl Ctx {
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
        Ok((s.launch().await?, fell_back))
    }
}
