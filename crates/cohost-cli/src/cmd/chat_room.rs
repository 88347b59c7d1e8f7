//! `cohost chat --agent A --agent B` (or `/add` in a chat): a room of
//! agents on one screen. Plain text goes to the member last addressed,
//! `@NAME TEXT` to that member; `/compare` asks everyone, `/add` and
//! `/drop` change the room, `/keep` brings one member's changes into the
//! checkout and stops the others. Each member is an ordinary running
//! session, in a worktree of its own inside git (see
//! `cohost_host::session::prepare_room`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cohost_core::handoff::{handoff_account, HandoffTurn};
use cohost_core::{Event, EventBody};

use cohost_core::room::{addressed, DEFAULT_MAX_MEMBERS};
use cohost_core::sanitize::inert_line;
use cohost_core::{CohostError, ErrorCode, PromptInput};
use cohost_host::session::{
    prepare_member, remove_unchanged_worktree, BridgeSockets, ProviderChoice,
};
use cohost_host::{SessionRecord, SessionStore};
use cohost_session::{Member, RoomEvents, RunningSession};
use cohost_tui::app::{Effect, Incoming};
use tokio::sync::mpsc;

use super::bridged::{note_line, offer, serve, Bridged};
use super::chat_args::{Ctx, Target};
use super::screen::decide;
use super::turn_changes::ChangesCommand;

/// Each member's turns as this screen saw them (prompt, then events by
/// correlation id): what `/handoff` gives another member.
type Log = Arc<Mutex<HashMap<String, Vec<(String, HandoffTurn)>>>>;

/// How many turns of each member the log keeps (the account is bounded
/// again when it is built).
const LOG_TURNS: usize = 200;

/// How large a handoff account may be.
const HANDOFF_BYTES: usize = 48 * 1024;

fn record_event(log: &Log, e: &Event) {
    let Some(member) = &e.agent else { return };
    let Ok(mut log) = log.lock() else { return };
    let turns = log.entry(member.clone()).or_default();
    let at = match turns.iter().rposition(|(c, _)| *c == e.correlation_id) {
        Some(at) => at,
        None => {
            turns.push((
                e.correlation_id.clone(),
                HandoffTurn {
                    prompt: "(a prompt from before this screen kept a record)".into(),
                    events: Vec::new(),
                },
            ));
            turns.len() - 1
        }
    };
    let events = &mut turns[at].1.events;
    // Answer text arrives in many small deltas: one event holds it all.
    if let (
        EventBody::StreamChunk { delta, .. },
        Some(Event {
            body: EventBody::StreamChunk { delta: held, .. },
            ..
        }),
    ) = (&e.body, events.last_mut())
    {
        held.push_str(delta);
        return;
    }
    events.push(e.clone());
}

/// The room as the chat drives it.
pub(crate) struct RoomChat {
    /// The room's id (in each member's record).
    pub(crate) id: String,
    /// Members in the order they joined.
    pub(crate) members: Vec<Member>,
    /// Whether members get a worktree of their own (a git repository).
    pub(crate) worktrees: bool,
    /// Who plain text goes to.
    focus: String,
    shown: HashMap<String, tokio::task::JoinHandle<()>>,
    log: Log,
    to_app: mpsc::UnboundedSender<Incoming>,
    host_services: Option<cohost_discovery::Host>,
    /// The room's bridge (members asking each other), when it has one.
    sockets: Option<Arc<BridgeSockets>>,
}

fn error(e: CohostError) -> Incoming {
    Incoming::Error {
        message: e.message,
        fix: e.suggested_fix,
    }
}

/// Show `m`'s events (tagged with its name) until its session ends, and
/// keep them in `log`.
fn show(
    m: &Member,
    to_app: &mpsc::UnboundedSender<Incoming>,
    log: &Log,
) -> tokio::task::JoinHandle<()> {
    let mut events = RoomEvents::of_member(m);
    let to_app = to_app.clone();
    let log = log.clone();
    tokio::spawn(async move {
        while let Some(next) = events.recv().await {
            let msg = match next {
                Ok(e) => {
                    record_event(&log, &e);
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
    /// A room of these running members.
    pub(crate) fn new(
        id: String,
        members: Vec<Member>,
        worktrees: bool,
        to_app: mpsc::UnboundedSender<Incoming>,
    ) -> RoomChat {
        let focus = members.first().map(|m| m.name.clone()).unwrap_or_default();
        let log = Log::default();
        let shown = members
            .iter()
            .map(|m| (m.name.clone(), show(m, &to_app, &log)))
            .collect();
        let room = RoomChat {
            id,
            members,
            worktrees,
            focus,
            shown,
            log,
            to_app,
            host_services: None,
            sockets: None,
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
        self.sockets = Some(sockets);
        self.announce();
        self
    }

    fn say(&self, m: Incoming) {
        let _ = self.to_app.send(m);
    }

    /// Tell the screen (and the bridge) who is in the room now.
    fn announce(&self) {
        self.say(Incoming::Members(
            self.members.iter().map(|m| m.name.clone()).collect(),
        ));
        let room = cohost_session::Room::new(self.members.clone()).unwrap_or_default();
        serve(self.sockets.as_ref(), &room);
    }

    fn member(&self, name: &str) -> Result<&Member, CohostError> {
        self.members.iter().find(|m| m.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.members.iter().map(|m| m.name.as_str()).collect();
            CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("no member of this room is named {}", inert_line(name)),
            )
            .with_fix(format!("the members are: {}", names.join(", ")))
        })
    }

    fn focused(&self) -> Option<&RunningSession> {
        self.members
            .iter()
            .find(|m| m.name == self.focus)
            .map(|m| &m.session)
    }

    fn record(&self, m: &Member, ctx: &Ctx) -> Option<SessionRecord> {
        let id = m.session.record_id()?;
        SessionStore::open(&ctx.host.paths.state_dir)
            .get(id)
            .ok()
            .flatten()
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
                Effect::Interrupt => {
                    // The focused member; when it is idle, everyone.
                    let stopped = self.focused().is_some_and(RunningSession::interrupt);
                    if !stopped {
                        for m in &self.members {
                            m.session.interrupt();
                        }
                    }
                }
                Effect::Members => self.list(&ctx),
                Effect::AddMember(id) => self.add(&ctx, id).await,
                Effect::DropMember(name) => self.drop_member(&ctx, &name).await,
                Effect::Keep { name, merge } => self.keep(&ctx, &name, merge).await,
                Effect::Diff(turn) => self.changes(ChangesCommand::Diff(turn)).await,
                Effect::Undo(turn) => self.changes(ChangesCommand::Undo(turn)).await,
                Effect::Budget(arg) => self.say(ctx.budget_notice(&arg)),
                Effect::Spend => self.say(Incoming::Notice(crate::spend::spend_command(
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
        self.end(&ctx).await;
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
        if let Ok(mut log) = self.log.lock() {
            let turns = log.entry(name.to_owned()).or_default();
            turns.push((
                correlation.clone(),
                HandoffTurn {
                    prompt: text.to_owned(),
                    events: Vec::new(),
                },
            ));
            if turns.len() > LOG_TURNS {
                turns.remove(0);
            }
        }
        let input = PromptInput {
            correlation_id: Some(correlation),
            ..PromptInput::text(text)
        };
        m.session.prompt(input).map(|_| ())
    }

    /// `/handoff TO [TEXT]`: TO gets an account of the conversation of the
    /// member that has the word, then TEXT; TO has the word from then on.
    fn handoff(&mut self, to: &str, text: &str) {
        let from = self.focus.clone();
        if let Err(e) = self.member(to) {
            return self.say(error(e));
        }
        if to == from {
            return self.say(Incoming::Notice(format!(
                "{} has the word already; @NAME TEXT gives it to another member first",
                inert_line(to)
            )));
        }
        if self.focused().is_some_and(RunningSession::busy) {
            return self.say(Incoming::Notice(format!(
                "{} is still answering; /handoff when its turn ends (or Esc)",
                inert_line(&from)
            )));
        }
        let turns: Vec<HandoffTurn> = self
            .log
            .lock()
            .map(|log| {
                log.get(&from)
                    .map(|t| t.iter().map(|(_, turn)| turn.clone()).collect())
                    .unwrap_or_default()
            })
            .unwrap_or_default();
        if turns.is_empty() {
            return self.say(Incoming::Notice(format!(
                "{} has no turn to hand off yet",
                inert_line(&from)
            )));
        }
        let account = handoff_account(&from, &turns, text, HANDOFF_BYTES);
        match self.send(to, &account) {
            Ok(()) => {
                self.focus = to.to_owned();
                self.say(Incoming::Notice(format!(
                    "handed {}'s conversation ({} turn(s), {} bytes) to {}, who has the word now",
                    inert_line(&from),
                    turns.len(),
                    account.len(),
                    inert_line(to)
                )));
            }
            Err(e) => self.say(error(e)),
        }
    }

    fn list(&self, ctx: &Ctx) {
        let mut text = String::from("members (plain text goes to the one marked *):");
        for m in &self.members {
            let mark = if m.name == self.focus { "*" } else { " " };
            let state = if m.session.busy() { "busy" } else { "idle" };
            let place = self
                .record(m, ctx)
                .and_then(|r| r.worktree)
                .map(|w| format!("worktree {}", w.branch))
                .unwrap_or_else(|| "your checkout".into());
            text.push_str(&format!(
                "\n{mark} {} ({}) {state} · {} · {place}",
                inert_line(&m.name),
                m.session.descriptor().id,
                m.session.record_id().unwrap_or("-"),
            ));
        }
        self.say(Incoming::Notice(text));
    }

    pub(crate) async fn add(&mut self, ctx: &Ctx, id: String) {
        if self.members.len() >= DEFAULT_MAX_MEMBERS {
            return self.say(error(
                CohostError::new(
                    ErrorCode::ConfigInvalid,
                    format!("a room holds at most {DEFAULT_MAX_MEMBERS} agents"),
                )
                .with_fix("/drop one first"),
            ));
        }
        // Named as `member_names` names a room's agents (`codex`,
        // `codex#2`), the first name no member has (one may have left).
        let name = (1..=DEFAULT_MAX_MEMBERS + 1)
            .map(|n| {
                if n == 1 {
                    id.clone()
                } else {
                    format!("{id}#{n}")
                }
            })
            .find(|n| self.members.iter().all(|m| &m.name != n))
            .unwrap_or_default();
        let mut req = ctx.request(&Target {
            provider: ProviderChoice::Id(id),
            model: None,
            resume: None,
        });
        offer(self.sockets.as_ref(), &name, &mut req);
        req.budget = ctx.seat(&name);
        let open = prepare_member(&ctx.host, &ctx.cfg, &self.id, &name, self.worktrees, req).await;
        let session = match open {
            Ok(open) => open.launch().await,
            Err(e) => Err(CohostError::from(e)),
        };
        match session {
            Ok(session) => {
                ctx.notifier.watch(session.subscribe_new(), name.clone());
                let m = Member {
                    name: name.clone(),
                    session,
                };
                self.shown
                    .insert(name.clone(), show(&m, &self.to_app, &self.log));
                self.members.push(m);
                self.announce();
                self.say(Incoming::Notice(format!(
                    "{name} joined the room; @{name} TEXT asks it, /compare TEXT asks everyone"
                )));
            }
            Err(e) => self.say(error(e)),
        }
    }

    async fn drop_member(&mut self, ctx: &Ctx, name: &str) {
        if let Err(e) = self.member(name) {
            return self.say(error(e));
        }
        if self.members.len() == 1 {
            return self.say(Incoming::Notice(
                "the last member stays (/quit ends the chat)".into(),
            ));
        }
        let Some(at) = self.members.iter().position(|m| m.name == name) else {
            return;
        };
        let m = self.members.remove(at);
        if let Some(s) = &self.sockets {
            s.forget(&m.name);
        }
        let _ = m.session.terminate().await;
        if let Some(task) = self.shown.remove(name) {
            task.abort();
        }
        let mut text = format!("{} left the room", inert_line(name));
        if let Some(rec) = self.record(&m, ctx) {
            if rec.worktree.is_some() {
                remove_unchanged_worktree(&ctx.host, &rec).await;
                if self
                    .record(&m, ctx)
                    .and_then(|r| r.worktree)
                    .is_some_and(|w| w.path.exists())
                {
                    text.push_str(&format!(
                        "; its changes stay in its worktree (`cohost worktree keep {}` or `discard {}`)",
                        rec.id, rec.id
                    ));
                }
            }
        }
        if self.focus == name {
            self.focus = self.members[0].name.clone();
        }
        self.announce();
        self.say(Incoming::Notice(text));
    }

    /// `/keep NAME`: the others stop first (no agent writes in a worktree
    /// being removed), then NAME's changes come in and the others'
    /// worktrees go; NAME goes on, alone.
    async fn keep(&mut self, ctx: &Ctx, name: &str, merge: bool) {
        let rec = match self.member(name) {
            Ok(m) => self.record(m, ctx),
            Err(e) => return self.say(error(e)),
        };
        let Some(rec) = rec.filter(|r| r.worktree.is_some()) else {
            return self.say(error(CohostError::new(
                ErrorCode::ConfigInvalid,
                format!(
                    "{} has no worktree: its changes are in your checkout already",
                    inert_line(name)
                ),
            )));
        };
        if self.members.iter().any(|m| m.session.busy()) {
            return self.say(Incoming::Notice(
                "a member is busy; /keep waits for every turn to end (or Esc)".into(),
            ));
        }
        for m in self.members.iter().filter(|m| m.name != name) {
            let _ = m.session.terminate().await;
            if let Some(task) = self.shown.remove(&m.name) {
                task.abort();
            }
        }
        match cohost_host::changes::keep(&ctx.host, &rec, merge).await {
            Ok(kept) => {
                self.members.retain(|m| m.name == name);
                self.focus = name.to_owned();
                self.announce();
                let how = if merge { "merged" } else { "applied" };
                let mut text = format!(
                    "kept {}: {how} {} file(s) into your checkout",
                    inert_line(name),
                    kept.kept.files.len()
                );
                for f in &kept.kept.files {
                    text.push_str(&format!("\n  {}", inert_line(f)));
                }
                for d in &kept.dropped {
                    text.push_str(&format!(
                        "\n{} stopped; its worktree is gone ({} changed file(s) kept under refs/cohost/sessions/{}/discarded)",
                        d.session,
                        d.files.len(),
                        d.session
                    ));
                }
                self.say(Incoming::Notice(text));
            }
            Err(e) => {
                // Nothing was brought in: the others' worktrees are where
                // they were; their sessions are stopped, their records
                // resume there.
                self.members.retain(|m| m.name == name);
                self.announce();
                self.say(error(e));
            }
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
    async fn end(self, ctx: &Ctx) {
        for m in &self.members {
            if let Err(e) = m.session.terminate().await {
                tracing::warn!(member = %m.name, error = %e, "terminate failed");
            }
        }
        for task in self.shown.values() {
            task.abort();
        }
        for m in &self.members {
            if let Some(rec) = self.record(m, ctx) {
                remove_unchanged_worktree(&ctx.host, &rec).await;
            }
        }
    }
}
