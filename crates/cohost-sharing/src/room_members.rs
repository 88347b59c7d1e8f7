//! What `/add`, `/drop`, `/keep` and `/handoff` do to a room of several
//! agents, for both front ends that drive one: the chat (`cohost-cli`'s
//! `cmd/chat_room.rs`) and a shared room's host (`host_members.rs`). Each
//! operation does the work and says what happened as text; each front end
//! shows it its own way (a notice on its screen; a shared room also tells
//! its participants).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cohost_core::handoff::{handoff_account, HandoffTurn};
use cohost_core::room::DEFAULT_MAX_MEMBERS;
use cohost_core::sanitize::inert_line;
use cohost_core::{CohostError, ErrorCode, Event, EventBody};
use cohost_discovery::{Host, HostConfig};
use cohost_host::session::{
    prepare_member, remove_unchanged_worktree, BridgeSockets, SessionRequest,
};
use cohost_host::{SessionRecord, SessionStore};
use cohost_session::Member;

/// How many turns of each member the log keeps (the account is bounded
/// again when it is built).
const LOG_TURNS: usize = 200;

/// How large a handoff account may be.
const HANDOFF_BYTES: usize = 48 * 1024;

/// Why a room command did nothing.
#[derive(Debug)]
pub enum Refused {
    /// Not now, or nothing to do: a note saying why.
    Wait(String),
    /// Bad input (no such member, no worktree, the room is full) or a
    /// failure, with its fix.
    Error(CohostError),
}

impl From<CohostError> for Refused {
    fn from(e: CohostError) -> Self {
        Refused::Error(e)
    }
}

impl From<cohost_host::changes::ChangesError> for Refused {
    fn from(e: cohost_host::changes::ChangesError) -> Self {
        Refused::Error(e.into())
    }
}

impl Refused {
    /// One line: the note, or the error and its fix.
    pub fn text(&self) -> String {
        match self {
            Refused::Wait(note) => note.clone(),
            Refused::Error(e) => match &e.suggested_fix {
                Some(fix) => format!("{}; {fix}", e.message),
                None => e.message.clone(),
            },
        }
    }
}

/// Each member's turns as the front end saw them (the prompt, then the
/// events by correlation id): what `/handoff` gives another member.
#[derive(Clone, Default)]
pub struct HandoffLog(Arc<Mutex<HashMap<String, Turns>>>);

/// One member's turns: each correlation id and its turn.
type Turns = Vec<(String, HandoffTurn)>;

impl HandoffLog {
    /// A prompt `member` was given, under `correlation`.
    pub fn prompted(&self, member: &str, correlation: &str, text: &str) {
        let Ok(mut log) = self.0.lock() else { return };
        let turns = log.entry(member.to_owned()).or_default();
        turns.push((
            correlation.to_owned(),
            HandoffTurn {
                prompt: text.to_owned(),
                events: Vec::new(),
            },
        ));
        if turns.len() > LOG_TURNS {
            turns.remove(0);
        }
    }

    /// One event of a member (events naming no member are not a room's).
    pub fn saw(&self, e: &Event) {
        let Some(member) = &e.agent else { return };
        let Ok(mut log) = self.0.lock() else { return };
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

    fn turns(&self, member: &str) -> Vec<HandoffTurn> {
        self.0
            .lock()
            .map(|log| {
                log.get(member)
                    .map(|t| t.iter().map(|(_, turn)| turn.clone()).collect())
                    .unwrap_or_default()
            })
            .unwrap_or_default()
    }
}

/// A handoff ready to send: the account goes to `to` as a prompt.
pub struct Handoff {
    /// The prompt for the member taking over.
    pub account: String,
    /// What to tell the room once it is sent.
    pub said: String,
}

/// `/handoff TO [TEXT]`: an account of the conversation of `from` (the
/// member that has the word), then TEXT, for TO.
pub fn handoff(
    log: &HandoffLog,
    members: &[Member],
    from: &str,
    to: &str,
    text: &str,
) -> Result<Handoff, Refused> {
    find(members, to)?;
    if to == from {
        return Err(Refused::Wait(format!(
            "{} has the word already; @NAME TEXT gives it to another member first",
            inert_line(to)
        )));
    }
    if find(members, from).is_ok_and(|m| m.session.busy()) {
        return Err(Refused::Wait(format!(
            "{} is still answering; /handoff when its turn ends (or Esc)",
            inert_line(from)
        )));
    }
    let turns = log.turns(from);
    if turns.is_empty() {
        return Err(Refused::Wait(format!(
            "{} has no turn to hand off yet",
            inert_line(from)
        )));
    }
    let account = handoff_account(from, &turns, text, HANDOFF_BYTES);
    let said = format!(
        "handed {}'s conversation ({} turn(s), {} bytes) to {}, who has the word now",
        inert_line(from),
        turns.len(),
        account.len(),
        inert_line(to)
    );
    Ok(Handoff { account, said })
}

/// The member named `name`, or an error listing the members.
pub fn find<'a>(members: &'a [Member], name: &str) -> Result<&'a Member, CohostError> {
    members.iter().find(|m| m.name == name).ok_or_else(|| {
        let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
        CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("no member of this room is named {}", inert_line(name)),
        )
        .with_fix(format!("the members are: {}", names.join(", ")))
    })
}

/// `/members`: each member, its agent, whether it is busy, its session and
/// where it works (`place`: where to read the records; without it, no
/// more than the member's state).
pub fn list(members: &[Member], focus: &str, place: Option<&RoomPlace>) -> String {
    let mut text = String::from("members (plain text goes to the one marked *):");
    for m in members {
        let mark = if m.name == focus { "*" } else { " " };
        let state = if m.session.busy() { "busy" } else { "idle" };
        text.push_str(&format!(
            "\n{mark} {} ({}) {state}",
            inert_line(&m.name),
            m.session.descriptor().id,
        ));
        if let Some(place) = place {
            let at = place
                .record(m)
                .and_then(|r| r.worktree)
                .map(|w| format!("worktree {}", w.branch))
                .unwrap_or_else(|| "your checkout".into());
            text.push_str(&format!(
                " · {} · {at}",
                m.session.record_id().unwrap_or("-")
            ));
        }
    }
    text
}

/// The members' names, in the order they joined.
pub fn names(members: &[Member]) -> Vec<String> {
    members.iter().map(|m| m.name.clone()).collect()
}

/// Where a room's members run: what `/add` opens a member in, and what
/// `/drop` and `/keep` tidy (each member's worktree).
#[derive(Clone)]
pub struct RoomPlace {
    /// The host's services.
    pub host: Host,
    /// Its configuration.
    pub cfg: HostConfig,
    /// The room's id (in each member's record).
    pub id: String,
    /// Whether members get a worktree of their own (a git repository).
    pub worktrees: bool,
    /// The room's bridge (members asking each other), when it has one.
    pub sockets: Option<Arc<BridgeSockets>>,
    /// Who hears of the members' turns (desktop, webhooks), when someone
    /// does.
    pub notifier: Option<cohost_notify::Notifier>,
}

impl RoomPlace {
    /// `member`'s session record.
    pub fn record(&self, m: &Member) -> Option<SessionRecord> {
        let id = m.session.record_id()?;
        SessionStore::of(&self.host).get(id).ok().flatten()
    }

    /// `/add AGENT`: the name the new member gets, as `member_names` names
    /// a room's agents (`codex`, `codex#2`): the first no member has (one
    /// may have left). Refused when the room is full.
    pub fn name_for(members: &[Member], agent: &str) -> Result<String, CohostError> {
        if members.len() >= DEFAULT_MAX_MEMBERS {
            return Err(CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("a room holds at most {DEFAULT_MAX_MEMBERS} agents"),
            )
            .with_fix("/drop one first"));
        }
        Ok((1..=DEFAULT_MAX_MEMBERS + 1)
            .map(|n| {
                if n == 1 {
                    agent.to_owned()
                } else {
                    format!("{agent}#{n}")
                }
            })
            .find(|n| members.iter().all(|m| &m.name != n))
            .unwrap_or_default())
    }

    /// Start member `name` from `req` (in a worktree of its own when the
    /// room has them, offered the room's bridge).
    pub async fn open(&self, name: &str, mut req: SessionRequest) -> Result<Member, CohostError> {
        crate::bridged::offer(self.sockets.as_ref(), name, &mut req);
        let open = prepare_member(&self.host, &self.cfg, &self.id, name, self.worktrees, req)
            .await
            .map_err(CohostError::from)?;
        let session = open.launch().await?;
        if let Some(n) = &self.notifier {
            n.watch(session.subscribe_new(), name.to_owned());
        }
        Ok(Member {
            name: name.to_owned(),
            session,
        })
    }

    /// What is said when member `name` joined a room now of `members`.
    pub fn joined_text(name: &str) -> String {
        format!("{name} joined the room; @{name} TEXT asks it, /compare TEXT asks everyone")
    }

    /// `/drop NAME`: take it out of `members`, stop it, remove its
    /// worktree unless it holds changes; says what happened.
    pub async fn drop_member(
        &self,
        members: &mut Vec<Member>,
        name: &str,
    ) -> Result<String, Refused> {
        find(members, name)?;
        if members.len() == 1 {
            return Err(Refused::Wait(
                "the last member stays (/quit ends the session)".into(),
            ));
        }
        let Some(at) = members.iter().position(|m| m.name == name) else {
            return Err(Refused::Wait(format!("{} left already", inert_line(name))));
        };
        let m = members.remove(at);
        if let Some(s) = &self.sockets {
            s.forget(&m.name);
        }
        if let Err(e) = m.session.terminate().await {
            tracing::warn!(member = %m.name, error = %e, "terminate failed");
        }
        let mut text = format!("{} left the room", inert_line(name));
        if let Some(rec) = self.record(&m).filter(|r| r.worktree.is_some()) {
            remove_unchanged_worktree(&self.host, &rec).await;
            if self
                .record(&m)
                .and_then(|r| r.worktree)
                .is_some_and(|w| w.path.exists())
            {
                text.push_str(&format!(
                    "; its changes stay in its worktree (`cohost worktree keep {}` or `discard {}`)",
                    rec.id, rec.id
                ));
            }
        }
        Ok(text)
    }

    /// `/keep NAME`: the others stop first (no agent writes in a worktree
    /// being removed), then NAME's changes come in and the others'
    /// worktrees go; NAME goes on, alone in `members`. The others have
    /// stopped even when this fails (nothing was brought in then: their
    /// worktrees are where they were, their records resume there).
    pub async fn keep(
        &self,
        members: &mut Vec<Member>,
        name: &str,
        merge: bool,
    ) -> Result<String, Refused> {
        let rec = self.record(find(members, name)?);
        let Some(rec) = rec.filter(|r| r.worktree.is_some()) else {
            return Err(Refused::Error(CohostError::new(
                ErrorCode::ConfigInvalid,
                format!(
                    "{} has no worktree: its changes are in your checkout already",
                    inert_line(name)
                ),
            )));
        };
        if members.iter().any(|m| m.session.busy()) {
            return Err(Refused::Wait(
                "a member is busy; /keep waits for every turn to end (or Esc)".into(),
            ));
        }
        for m in members.iter().filter(|m| m.name != name) {
            if let Some(s) = &self.sockets {
                s.forget(&m.name);
            }
            if let Err(e) = m.session.terminate().await {
                tracing::warn!(member = %m.name, error = %e, "terminate failed");
            }
        }
        members.retain(|m| m.name == name);
        let kept = cohost_host::changes::keep(&self.host, &rec, merge).await?;
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
        Ok(text)
    }
}

/// What a shared room opens members with (`/add`) and tidies their
/// worktrees with (`/drop`, `/keep`).
pub struct MemberSetup {
    /// Where members run.
    pub place: RoomPlace,
    /// A member's session request from its name and agent id (its budget
    /// seat and sandbox as the room's others have).
    pub request: MemberRequest,
}

/// A member's session request from its name and agent id.
pub type MemberRequest = Arc<dyn Fn(&str, &str) -> SessionRequest + Send + Sync>;
