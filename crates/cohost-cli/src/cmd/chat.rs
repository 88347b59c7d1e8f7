//! `cohost chat` (and `cohost` alone on a terminal): an interactive session
//! that stays alive across turns, in the terminal UI (`cohost-tui`).
//!
//! The session is opened by the one setup service (`session::prepare`, as
//! `cohost run` does) and runs as a [`RunningSession`]; this module turns
//! the screen's effects into the session's commands and its events into the
//! screen's news. Approvals are answered on screen through the handle.

use cohost_core::{CohostError, ErrorCode, PromptInput};
use cohost_host::session::{self, ProviderChoice};
use cohost_session::RunningSession;
use cohost_tui::app::{AgentInfo, App, Effect, Incoming, SessionInfo};
use cohost_tui::commands::Mode;
use cohost_tui::theme::Theme;
use tokio::sync::mpsc;

pub use super::chat_args::ChatArgs;
use super::chat_args::{Ctx, Target};
use crate::cmd::screen::{decide, on_terminal, watch_signals};
use crate::cmd::turn_changes;
use crate::exit::{CmdResult, Failure};
use cohost_sharing::room_members::RoomPlace;

fn info(s: &RunningSession) -> SessionInfo {
    SessionInfo {
        agent: s.descriptor().id.clone(),
        model: s.model(),
        session_id: s.record_id().map(String::from),
    }
}

/// The session's events on the screen, until it ends.
fn show(
    s: &RunningSession,
    to_app: &mpsc::UnboundedSender<Incoming>,
) -> tokio::task::JoinHandle<()> {
    let mut events = s.subscribe_new();
    let to_app = to_app.clone();
    tokio::spawn(async move {
        loop {
            match events.recv().await {
                Ok(Some(e)) => {
                    if to_app.send(Incoming::Event(e)).is_err() {
                        return;
                    }
                }
                Ok(None) => return,
                Err(lagged) => {
                    let _ = to_app.send(Incoming::Notice(format!("the screen {lagged}")));
                    return;
                }
            }
        }
    })
}

/// Run the command: the chat screen until the user quits.
pub async fn run(args: ChatArgs) -> CmdResult {
    if args.target.agent.len() > 1 && args.resume.is_some() {
        return Err(Failure::usage(
            CohostError::new(
                ErrorCode::ConfigInvalid,
                "--resume takes one agent; several --agent were given",
            )
            .with_fix("resume one session, then /add the other agents"),
        ));
    }
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
    let ctx = Ctx::new(host, cfg, args)?;
    if ctx.args.target.agent.len() > 1 {
        return run_room(ctx).await;
    }
    // Opened before the screen switches, so a setup error prints plainly.
    let (session, fell_back) = ctx.open(&target).await?;
    let (to_app, inbox) = mpsc::unbounded_channel();
    let (effects, from_app) = mpsc::unbounded_channel();
    ctx.on_screen(&to_app);
    let _ = to_app.send(Incoming::Session(info(&session)));
    if fell_back {
        let _ = to_app.send(Incoming::Notice(
            "no agent CLI found on PATH; this is the built-in mock agent. Install one (see `cohost agents`) or /agent ID.".into(),
        ));
    }
    let _ = to_app.send(Incoming::Notice(
        "type a prompt; /help for commands and keys".into(),
    ));
    watch_signals(effects.clone(), to_app.clone());
    let driver = tokio::spawn(drive(session, ctx, target, from_app, to_app));
    screen(inbox, effects, driver).await
}

/// The chat screen until the user quits, then the driver's end.
async fn screen(
    mut inbox: mpsc::UnboundedReceiver<Incoming>,
    effects: mpsc::UnboundedSender<Effect>,
    driver: tokio::task::JoinHandle<()>,
) -> CmdResult {
    let mut app = App::new(Mode::Chat, Theme::from_env());
    app.set_review_format(cohost_share::review::review_prompt);
    let shown = cohost_tui::term::run(&mut app, &mut inbox, &effects).await;
    drop(inbox);
    let _ = driver.await;
    shown.map_err(|e| crate::exit::internal(format!("the terminal failed: {e}")))?;
    Ok(0)
}

/// `cohost chat --agent A --agent B`: the room is set up (worktrees
/// made, every member started) before the screen switches, so an error
/// prints plainly.
async fn run_room(ctx: Ctx) -> CmdResult {
    let agents = ctx.args.target.agent.clone();
    // Members may ask each other (`ask_member`), each call approved like
    // any tool call of theirs.
    let bridged = cohost_sharing::bridged::bridge();
    let sockets = bridged.as_ref().map(|b| b.sockets.clone());
    let prepared = session::prepare_room(&ctx.host, &ctx.cfg, &agents, |name, id| {
        let mut req = ctx.request(&Target {
            provider: ProviderChoice::Id(id.to_owned()),
            model: ctx.args.target.model.clone(),
            resume: None,
        });
        cohost_sharing::bridged::offer(sockets.as_ref(), name, &mut req);
        req.budget = ctx.seat(name);
        req
    })
    .await
    .map_err(CohostError::from)?;
    let note = prepared.note.clone();
    let (id, worktrees) = (prepared.id.clone(), prepared.note.is_none());
    let room = prepared.launch(&ctx.host).await?;
    for m in room.members() {
        ctx.notifier
            .watch(m.session.subscribe_new(), m.name.clone());
    }
    let (to_app, inbox) = mpsc::unbounded_channel();
    let (effects, from_app) = mpsc::unbounded_channel();
    ctx.on_screen(&to_app);
    let names: Vec<String> = room.members().iter().map(|m| m.name.clone()).collect();
    if let Some(note) = note {
        let _ = to_app.send(Incoming::Notice(note));
    }
    let _ = to_app.send(Incoming::Notice(format!(
        "a room of {}: plain text goes to {}, @NAME TEXT to another, /compare TEXT to everyone; /help for more",
        names.join(", "),
        names[0]
    )));
    watch_signals(effects.clone(), to_app.clone());
    let place = RoomPlace {
        host: ctx.host.clone(),
        cfg: ctx.cfg.clone(),
        id,
        worktrees,
        sockets: None,
        notifier: Some(ctx.notifier.clone()),
    };
    let chat = crate::cmd::chat_room::RoomChat::new(place, room.members().to_vec(), to_app)
        .with_bridge(bridged);
    drop((room, sockets));
    let driver = tokio::spawn(chat.drive(ctx, from_app));
    screen(inbox, effects, driver).await
}

/// Turn the screen's effects into the session's commands until the user
/// quits: text typed during a turn steers it or queues (the session's
/// events say which), interrupts and approvals act at once, switching agent, model or
/// session waits for the turn to end.
async fn drive(
    mut session: RunningSession,
    ctx: Ctx,
    mut target: Target,
    mut effects: mpsc::UnboundedReceiver<Effect>,
    to_app: mpsc::UnboundedSender<Incoming>,
) {
    let say = |m: Incoming| {
        let _ = to_app.send(m);
    };
    let mut shown = show(&session, &to_app);
    while let Some(e) = effects.recv().await {
        match e {
            // Behind a running turn it waits in the session's queue, and
            // the `queue` event says so.
            Effect::Prompt(text) => {
                if let Err(e) = session.prompt(PromptInput::text(text)) {
                    say(error_line(e));
                }
            }
            Effect::Steer(text) => steer(&session, text, None, &to_app),
            Effect::Queue(command) => {
                if let Some(m) = crate::cmd::queue::queue_command(&session, command) {
                    say(m);
                }
            }
            Effect::Decide {
                tool_id, option, ..
            } => decide(&session, &tool_id, option),
            Effect::Interrupt => {
                session.interrupt();
            }
            Effect::ListAgents => {
                let agents = cohost_discovery::all_statuses(&ctx.host, &ctx.cfg)
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
            e @ (Effect::SwitchAgent(_)
            | Effect::SwitchModel(_)
            | Effect::Resume(_)
            | Effect::Share)
                if session.busy() =>
            {
                say(Incoming::Notice(format!(
                    "the agent is busy; {e:?} was not done (wait for the turn to end, or Esc)"
                )));
            }
            Effect::SwitchAgent(id) => {
                let next = Target {
                    provider: ProviderChoice::Id(id),
                    model: None,
                    resume: None,
                };
                switch(&mut session, &ctx, &mut target, next, &to_app).await;
                shown.abort();
                shown = show(&session, &to_app);
            }
            Effect::SwitchModel(model) => {
                // Same agent, same conversation: the agent restarts with the model.
                match session.set_model(Some(model.clone())).await {
                    Ok(()) => target.model = Some(model),
                    Err(e) => say(error_line(e)),
                }
                say(Incoming::Session(info(&session)));
            }
            Effect::Resume(id) => {
                let next = Target {
                    provider: ProviderChoice::Default,
                    model: None,
                    resume: Some(id),
                };
                switch(&mut session, &ctx, &mut target, next, &to_app).await;
                shown.abort();
                shown = show(&session, &to_app);
            }
            Effect::Share => match crate::cmd::hosting::open_room(&ctx.args.room).await {
                // The same session goes on, shared, until the host quits:
                // the host console shows its events from now on.
                Ok(room) => {
                    shown.abort();
                    return crate::cmd::room_tui::share_in_place(session, room, effects, to_app)
                        .await;
                }
                Err(e) => say(Incoming::Error {
                    message: format!("cannot share: {}", e.message),
                    fix: e.suggested_fix,
                }),
            },
            Effect::Budget(arg) => say(ctx.budget_notice(&arg)),
            Effect::Spend => say(Incoming::Notice(cohost_sharing::spend_text::spend_command(
                ctx.budget.as_ref(),
            ))),
            Effect::Diff(turn) => say(turn_changes::diff_notice(&ctx.host, &session, turn).await),
            Effect::Undo(_) if session.busy() => say(Incoming::Notice(
                "the agent is busy; undo waits for the turn to end (or Esc)".into(),
            )),
            Effect::Undo(turn) => say(turn_changes::undo_notice(&ctx.host, &session, turn).await),
            Effect::AddMember(agent) => {
                // The chat becomes a room: this agent is its first member
                // (in your checkout); the ones added get worktrees.
                shown.abort();
                let worktrees = session::worktrees_possible(session.cwd()).await;
                let first = cohost_session::Member {
                    name: session.descriptor().id.clone(),
                    session,
                };
                let room_id = format!("r-{}", cohost_core::ids::random_tag());
                // Agents added from here may ask the others; this one
                // started without the bridge.
                let place = RoomPlace {
                    host: ctx.host.clone(),
                    cfg: ctx.cfg.clone(),
                    id: room_id,
                    worktrees,
                    sockets: None,
                    notifier: Some(ctx.notifier.clone()),
                };
                let mut room = crate::cmd::chat_room::RoomChat::new(place, vec![first], to_app)
                    .with_bridge(cohost_sharing::bridged::bridge());
                room.add(&ctx, agent).await;
                return room.drive(ctx, effects).await;
            }
            Effect::Quit => break,
            other => say(Incoming::Notice(format!(
                "{other:?} is for shared sessions"
            ))),
        }
    }
    // Interrupts the turn, denies what waits, stops the agent.
    if let Err(e) = session.terminate().await {
        tracing::warn!(error = %e, "terminate failed");
    }
    shown.abort();
}

/// Open `next` in place of the session; on failure the old one is opened
/// again (its agent was stopped to free the terminal and the record).
async fn switch(
    session: &mut RunningSession,
    ctx: &Ctx,
    target: &mut Target,
    next: Target,
    to_app: &mpsc::UnboundedSender<Incoming>,
) {
    let _ = session.terminate().await;
    let error = |e: CohostError| {
        let _ = to_app.send(error_line(e));
    };
    match ctx.open(&next).await {
        Ok((s, _)) => {
            *session = s;
            *target = next;
        }
        Err(e) => {
            error(e);
            match ctx.open(target).await {
                Ok((s, _)) => *session = s,
                Err(e) => error(e),
            }
        }
    }
    let _ = to_app.send(Incoming::Session(info(session)));
}

/// An error for the screen: its message and fix as users see them.
fn error_line(e: impl Into<CohostError>) -> Incoming {
    let e = e.into();
    Incoming::Error {
        message: e.message,
        fix: e.suggested_fix,
    }
}

/// Text typed while a turn runs: the session steers the turn or queues it
/// (its `steered` / `queue` events tell the screen which); only a refusal
/// is said here. Runs apart, so Esc and approvals never wait for the
/// agent's answer.
pub(crate) fn steer(
    session: &RunningSession,
    text: String,
    person: Option<String>,
    to_app: &mpsc::UnboundedSender<Incoming>,
) {
    let session = session.clone();
    let to_app = to_app.clone();
    tokio::spawn(async move {
        if let Err(e) = session
            .steer(PromptInput::text(text), person.as_deref())
            .await
        {
            let _ = to_app.send(error_line(e));
        }
    });
}
