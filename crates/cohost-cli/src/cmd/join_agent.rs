//! `cohost join --agent AGENT`: the participant brings an agent of its own
//! machine into the room (`cohost_sharing::guest_agent`). This is the join
//! loop's part of it: starting the agent, offering it once the room knows
//! this participant's key, acting on the host's commands, turning the
//! agent's events into the room's frames, and saying what it asks to run.

use cohost_core::sanitize::inert_line;
use cohost_core::{ApprovalContext, Event};
use cohost_host::session::{self, ProviderChoice, Recording, SessionRequest};
use cohost_protocol::Frame;
use cohost_session::Subscription;
use cohost_share::{DoorAnswer, Message, ShareError, Signer};
use tokio::sync::mpsc;

use crate::cmd::run::Approve;
use crate::exit::Failure;
use cohost_sharing::guest_agent::{GuestAgent, Order};
use cohost_sharing::session::{ParticipantEvent, ParticipantSession};

/// Why a call of the agent is answered with a denial when its owner left.
const OWNER_GONE: &str = "its owner left the room";

/// Start `agent` here, in this directory, as `cohost run` would: this
/// machine's credentials and configuration, recorded like any session,
/// confined by the sandbox unless the configuration says otherwise (others
/// in the room prompt it).
pub(super) async fn start(agent: &str, approve: Approve) -> Result<GuestAgent, Failure> {
    let (host, cfg) = crate::hostctx::host_and_config()?;
    let mut req = SessionRequest::new(
        ProviderChoice::Id(agent.to_owned()),
        approve.through_handle(OWNER_GONE),
    );
    if cfg.sandbox()?.is_none() {
        req.sandbox = Some(cohost_core::SandboxMode::On);
    }
    req.recording = Recording::New;
    let open = session::prepare(&host, &cfg, req).await?;
    Ok(GuestAgent::new(open.launch().await?))
}

/// The agent's events, and the calls it asks its owner about.
pub(super) fn watch(
    guest: Option<&GuestAgent>,
) -> (
    Option<Subscription>,
    mpsc::UnboundedReceiver<ApprovalContext>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let Some(g) = guest else {
        return (None, rx);
    };
    if let Some(a) = g.session().approvals() {
        a.on_request(move |request| {
            let _ = tx.send(request);
        });
    }
    (Some(g.session().subscribe_new()), rx)
}

/// The agent's next event; never, without an agent or once it ended.
pub(super) async fn next(events: &mut Option<Subscription>) -> Option<Event> {
    let Some(sub) = events.as_mut() else {
        return std::future::pending().await;
    };
    match sub.recv().await {
        Ok(Some(e)) => Some(e),
        Ok(None) => {
            *events = None;
            None
        }
        Err(lagged) => {
            tracing::warn!(%lagged, "the room fell behind your agent");
            None
        }
    }
}

/// The room's frames of one event of the agent.
pub(super) fn frames(
    g: &mut GuestAgent,
    me: &ParticipantSession,
    event: Event,
) -> Vec<Result<Frame, String>> {
    match g.frames(me.codec(), me.me().conn_id, event) {
        Ok(frames) => frames
            .into_iter()
            .map(|f| f.map_err(|e: ShareError| e.to_string()))
            .collect(),
        Err(why) => vec![Err(why)],
    }
}

/// What the owner is told of a call its agent asks to run.
pub(super) fn ask_line(g: Option<&GuestAgent>, ask: &ApprovalContext) -> String {
    let id = inert_line(&ask.tool_id);
    format!(
        "your {} asks to run {} ({}): /allow {id} or /deny {id}",
        g.and_then(GuestAgent::name)
            .map_or_else(|| "agent".into(), inert_line),
        inert_line(&ask.name),
        ask.kind.name()
    )
}

/// What a room event means for the agent.
pub(super) enum Heard {
    /// Nothing to say.
    Nothing,
    /// A line for the owner.
    Say(String),
    /// The host refused the agent or took it out of the room: it stops.
    Refused(String),
}

/// Offer the agent when the room knows this participant's key (welcomed,
/// or let in at the door), and act on the host's commands to it.
pub(super) async fn heard(
    g: &mut GuestAgent,
    me: &ParticipantSession,
    ev: &ParticipantEvent,
) -> Heard {
    let offer = match ev {
        ParticipantEvent::Welcome(_) => true,
        ParticipantEvent::Frame {
            message: Some(m), ..
        } => {
            matches!(&**m, Message::KeyDoor(d) if d.to == me.me().conn_id && d.answer == DoorAnswer::Admitted)
        }
        _ => false,
    };
    if offer {
        return match me.offer_member(g.agent()).await {
            Ok(()) => Heard::Say(format!(
                "offered your {} to the room; waiting for the host",
                inert_line(g.agent())
            )),
            Err(e) => Heard::Say(format!("cohost: your agent was not offered: {e}")),
        };
    }
    let ParticipantEvent::Frame {
        message: Some(m),
        from: Some(Signer::Host),
        ..
    } = ev
    else {
        return Heard::Nothing;
    };
    let Message::MemberCommand(c) = &**m else {
        return Heard::Nothing;
    };
    match g.command(me.me().conn_id, c) {
        Order::Nothing => Heard::Nothing,
        Order::Admitted(name) => Heard::Say(format!(
            "the host took your {} into the room as {}: @{} addresses it",
            inert_line(g.agent()),
            inert_line(&name),
            inert_line(&name)
        )),
        Order::Prompted { text, author } => Heard::Say(format!(
            "your agent runs a prompt of {}: {}",
            inert_line(&author),
            inert_line(&text)
        )),
        Order::NotRun(why) => Heard::Say(format!("cohost: your agent did not run a prompt: {why}")),
        Order::Interrupted => Heard::Say("the host interrupted your agent".into()),
        Order::Out(why) => Heard::Refused(why),
    }
}

/// End the agent (the room closed, the owner left, or it was refused).
pub(super) async fn stop(guest: Option<&GuestAgent>) {
    if let Some(g) = guest {
        if let Err(e) = g.session().terminate().await {
            tracing::debug!(error = %e, "your agent did not end cleanly");
        }
    }
}
