//! `cohost chat --agent A --agent B` (or `/add` in a chat): a room of
//! agents on one screen. Plain text goes to the member last addressed,
//! `@NAME TEXT` to that member; `/compare` asks everyone, `/add` and
//! `/drop` change the room, `/keep` brings one member's changes into the
//! checkout and stops the others. Each member is an ordinary running
//! session, in a worktree of its own inside git (see
//! `cohost_host::session::prepare_room`).

use std::collections::HashMap;

use cohost_core::room::addressed;
use cohost_core::sanitize::inert_line;
use cohost_core::{CohostError, PromptInput};
use cohost_host::session::{remove_unchanged_worktree, ProviderChoice};
use cohost_session::{Member, RoomEvents, RunningSession};
use cohost_tui::app::{Effect, Incoming};
use tokio::sync::mpsc;

use super::chat_args::{Ctx, Target};
use super::screen::decide;
use super::turn_changes::ChangesCommand;
use cohost_sharing::bridged::{note_line, serve, Bridged};
use cohost_sharing::room_members::{self, find, HandoffLog, Refused, RoomPlace};

/// The room as the chat drives it.
pub(crate) struct RoomChat {
    /// Members in the order they joined.
    pub(crate) members: Vec<Member>,
    /// Where they run (their worktrees, the room's bridge).
    place: RoomPlace,
    /// Who plain text goes to.
    focus: String,
    shown: HashMap<String, tokio::task::JoinHandle<()>>,
    log: HandoffLog,
    to_app: mpsc::UnboundedSender<Incoming>,
    host_services: Option<cohost_discovery::Host>,
}

fn error(e: CohostError) -> Incoming {
    Incoming::Error {
        message: e.message,
        fix: e.suggested_fix,
    }
}

fn refused(r: Refused) -> Incoming {
    match r {
        Refused::Wait(note) => Incoming::Notice(note),
        Refused::Error(e) => error(e),
    }
}

/// Show `m`'s events (tagged with its name) until its session ends, and
/// keep them in `log`.
fn show(
    m: &Member,
    to_app: &mpsc::UnboundedSender<Incoming>,
    log: &HandoffLog,
) -> tokio::task::JoinHandle<()> {
    let mut events = RoomEvents::of_member(m);
    let to_app = to_app.clone();
    let log = log.clone();
    tokio::spawn(async move {
        while let Some(next) = events.recv().await {
            let msg = match next {
                Ok(e) => {
                    log.saw(&e);
                    Incoming::Event(e)
                }
                Err(lagged) => Incoming::Notice(format!("the screen: {lagged}")),
            };
            if to_app.send(msg).is_err() {
                return;
            }
        }
    })
}

impl RoomChat {
    /// A room of these running members, placed as `place` says.
    pub(crate) fn new(
        place: RoomPlace,
        members: Vec<Member>,
        to_app: mpsc::UnboundedSender<Incoming>,
    ) -> RoomChat {
        let focus = members.first().map(|m| m.name.clone()).unwrap_or_default();
        let log = HandoffLog::default();
        let shown = members
            .iter()
            .map(|m| (m.name.clone(), show(m, &to_app, &log)))
            .collect();
        let room = RoomChat {
            members,
            place,
            focus,
            shown,
            log,
            to_app,
            host_services: None,
        };
        room.announce();
        room
    }

    /// The room with its bridge: members added from now on get it too,
    /// and what they ask each other shows on the screen.
    pub(crate) fn with_bridge(mut self, bridged: Option<Bridged>) -> RoomChat {
        let Some(Bridged { sockets, mut notes }) = bridged else {
            return self;
        };
        let to_app = self.to_app.clone();
        tokio::spawn(async move {
            while let Some(n) = notes.recv().await {
                if to_app.send(Incoming::Notice(note_line(&n))).is_err() {
                    return;
                }
            }
        });
        self.place.sockets = Some(sockets);
        self.announce();
        self
    }

    fn say(&self, m: Incoming) {
        let _ = self.to_app.send(m);
    }

    /// Tell the screen (and the bridge) who is in the room now.
    fn announce(&self) {
        self.say(Incoming::Members(room_members::names(&self.members)));
        let room = cohost_session::Room::new(self.members.clone()).unwrap_or_default();
        serve(self.place.sockets.as_ref(), &room);
    }

    fn member(&self, name: &str) -> Result<&Member, CohostError> {
        find(&self.members, name)
    }

    fn focused(&self) -> Option<&RunningSession> {
        self.members
            .iter()
            .find(|m| m.name == self.focus)
            .map(|m| &m.session)
    }

    /// Drive the room with the screen's effects until the user quits.
    pub(crate) async fn drive(mut self, ctx: Ctx, mut effects: mpsc::UnboundedReceiver<Effect>) {
        while let Some(e) = effects.recv().await {
            match e {
                Effect::Prompt(text) => self.prompt(&text),
                Effect::Compare(text) => {
                    let names: Vec<String> = self.members.iter().map(|m| m.name.clone()).collect();
                    for name in names {
                        if let Err(e) = self.send(&name, &text) {
                            self.say(error(e));
                        }
                    }
                }
                Effect::Handoff { to, text } => self.handoff(&to, &text),
                Effect::Decide {
                    tool_id,
                    option,
                    agent,
                } => {
                    let name = agent.unwrap_or_else(|| self.focus.clone());
                    match self.member(&name) {
                        Ok(m) => decide(&m.session, &tool_id, option),
                        Err(e) => self.say(error(e)),
                    }
                }
                // Esc or Ctrl+C on a member's tab (or on the member last
                // addressed): that one; the others go on.
                Effect::InterruptMember(name) => match self.member(&name) {
                    Ok(m) => {
                        m.session.interrupt();
                    }
                    Err(e) => self.say(error(e)),
                },
                // A second Ctrl+C, or SIGINT: everyone.
                Effect::Interrupt => {
                    for m in &self.members {
                        m.session.interrupt();
                    }
                }
                Effect::Members => self.list(),
                Effect::AddMember(id) => self.add(&ctx, id).await,
                Effect::DropMember(name) => self.drop_member(&name).await,
                Effect::Keep { name, merge } => self.keep(&name, merge).await,
                Effect::Diff(turn) => self.changes(ChangesCommand::Diff(turn)).await,
                Effect::Undo(turn) => self.changes(ChangesCommand::Undo(turn)).await,
                Effect::Budget(arg) => self.say(ctx.budget_notice(&arg)),
                Effect::Spend => self.say(Incoming::Notice(cohost_sharing::spend_text::spend_command(
                    ctx.budget.as_ref(),
                ))),
                Effect::Quit => break,
                Effect::ListAgents
                | Effect::SwitchAgent(_)
                | Effect::SwitchModel(_)
                | Effect::Resume(_)
                | Effect::Share => self.say(Incoming::Notice(
                    "in a room of several agents, /add AGENT adds one and /drop NAME takes one out; \
                     /agent, /model, /resume and /share are for a chat with one agent"
                        .into(),
                )),
                other => self.say(Incoming::Notice(format!(
                    "{other:?} is for shared sessions"
                ))),
            }
        }
        self.end().await;
    }

    /// Plain text to the focused member, `@NAME TEXT` to NAME (who is the
    /// focus from then on).
    fn prompt(&mut self, text: &str) {
        let (name, rest) = match addressed(text) {
            Some((name, rest)) => (name.to_owned(), rest),
            None => (self.focus.clone(), text),
        };
        if rest.trim().is_empty() {
            self.focus = name.clone();
            return self.say(Incoming::Notice(format!(
                "plain text goes to {} now",
                inert_line(&name)
            )));
        }
        match self.send(&name, rest) {
            Ok(()) => self.focus = name,
            Err(e) => self.say(error(e)),
        }
    }

    /// Prompt member `name`, keeping the prompt in the log for a handoff.
    fn send(&self, name: &str, text: &str) -> Result<(), CohostError> {
        let m = self.member(name)?;
        let correlation = format!("c-{}", cohost_core::ids::random_tag());
        self.log.prompted(name, &correlation, text);
        let input = PromptInput {
            correlation_id: Some(correlation),
            ..PromptInput::text(text)
        };
        m.session.prompt(input)?;
        Ok(())
    }

    /// `/handoff TO [TEXT]`: TO gets an account of the conversation of the
    /// member that has the word, then TEXT; TO has the word from then on.
    fn handoff(&mut self, to: &str, text: &str) {
        let h = match room_members::handoff(&self.log, &self.members, &self.focus, to, text) {
            Ok(h) => h,
            Err(r) => return self.say(refused(r)),
        };
        match self.send(to, &h.account) {
            Ok(()) => {
                self.focus = to.to_owned();
                self.say(Incoming::Notice(h.said));
            }
            Err(e) => self.say(error(e)),
        }
    }

    fn list(&self) {
        self.say(Incoming::Notice(room_members::list(
            &self.members,
            &self.focus,
            Some(&self.place),
        )));
    }

    pub(crate) async fn add(&mut self, ctx: &Ctx, id: String) {
        let name = match RoomPlace::name_for(&self.members, &id) {
            Ok(name) => name,
            Err(e) => return self.say(error(e)),
        };
        let mut req = ctx.request(&Target {
            provider: ProviderChoice::Id(id),
            model: None,
            resume: None,
        });
        req.budget = ctx.seat(&name);
        match self.place.open(&name, req).await {
            Ok(m) => {
                self.shown
                    .insert(name.clone(), show(&m, &self.to_app, &self.log));
                self.members.push(m);
                self.announce();
                self.say(Incoming::Notice(RoomPlace::joined_text(&name)));
            }
            Err(e) => self.say(error(e)),
        }
    }

    async fn drop_member(&mut self, name: &str) {
        match self.place.drop_member(&mut self.members, name).await {
            Ok(text) => {
                if let Some(task) = self.shown.remove(name) {
                    task.abort();
                }
                if self.focus == name {
                    self.focus = self.members[0].name.clone();
                }
                self.announce();
                self.say(Incoming::Notice(text));
            }
            Err(r) => self.say(refused(r)),
        }
    }

    /// `/keep NAME`: NAME's changes come in, the others stop; NAME goes
    /// on, alone.
    async fn keep(&mut self, name: &str, merge: bool) {
        let before = self.members.len();
        let kept = self.place.keep(&mut self.members, name, merge).await;
        if self.members.len() != before {
            let gone: Vec<String> = self
                .shown
                .keys()
                .filter(|n| self.members.iter().all(|m| &m.name != *n))
                .cloned()
                .collect();
            for n in gone {
                if let Some(task) = self.shown.remove(&n) {
                    task.abort();
                }
            }
            self.focus = name.to_owned();
            self.announce();
        }
        match kept {
            Ok(text) => self.say(Incoming::Notice(text)),
            Err(r) => self.say(refused(r)),
        }
    }

    async fn changes(&mut self, cmd: ChangesCommand) {
        let Some(session) = self.focused().cloned() else {
            return;
        };
        let answer = cmd.run(&mut self.host_services, &session).await;
        self.say(answer);
    }

    /// Stop every member; remove the worktrees that hold nothing.
    async fn end(self) {
        for m in &self.members {
            if let Err(e) = m.session.terminate().await {
                tracing::warn!(member = %m.name, error = %e, "terminate failed");
            }
        }
        for task in self.shown.values() {
            task.abort();
        }
        for m in &self.members {
            if let Some(rec) = self.place.record(m) {
                remove_unchanged_worktree(&self.place.host, &rec).await;
            }
        }
    }
}
