//! The app's state and what changes it: engine events and room news
//! ([`Incoming`]) from the shell, key presses from the user; what the shell
//! must do comes back as [`Effect`]s. No IO here.

use std::time::{Duration, Instant};

use cohost_core::{EndReason, Event, EventBody, ToolKind, ToolStatus};

pub use crate::approval::{ApprovalCard, Grant};
use crate::changes::ChangesCard;
use crate::commands::{self, Mode};
use crate::diffview::DiffView;
use crate::input::InputBox;
pub use crate::msg::{AgentInfo, Effect, Incoming, SessionInfo};
use crate::room::Room;
use crate::stream::MdStream;
use crate::theme::Theme;
use crate::transcript::{
    origin_words, summarize_input, BlockKind, ToolCard, ToolState, Transcript,
};

/// The agent picker.
#[derive(Debug, Clone, Default)]
pub struct Picker {
    /// The agents (empty while discovery runs).
    pub agents: Vec<AgentInfo>,
    /// The highlighted one.
    pub selected: usize,
}

/// Builds the text of a review comment on a line of a diff: `(path,
/// line, old_side, hunk, comment)`, as `cohost_share::review::review_prompt`
/// does (the shell installs it: the terminal UI knows no sharing crate).
pub type ReviewFormat = fn(&str, u64, bool, &str, &str) -> String;

/// The file picked in a changes block (the user is choosing one to review).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Focus {
    /// The changes block (a transcript index).
    pub block: usize,
    /// The file in it.
    pub file: usize,
}

/// The whole screen's state.
pub struct App {
    /// Which screen.
    pub mode: Mode,
    /// Colours or not.
    pub theme: Theme,
    /// The conversation.
    pub transcript: Transcript,
    /// What is being typed.
    pub input: InputBox,
    /// About the session.
    pub session: SessionInfo,
    /// The lifecycle word on the status line.
    pub state: &'static str,
    /// Tokens in and out (cumulative over turns).
    pub tokens: (u64, u64),
    /// The pending approval, if any.
    pub approval: Option<ApprovalCard>,
    /// What the host lets this participant approve, if anything.
    pub grant: Option<Grant>,
    /// The agent picker, when open.
    pub picker: Option<Picker>,
    /// The room (host and participants).
    pub room: Room,
    /// Rows scrolled up from the bottom (0: follow the stream).
    pub scroll: usize,
    /// A one-line hint above the input (e.g. "Ctrl+C again to quit").
    pub hint: Option<String>,
    /// Selected completion.
    pub completion: usize,
    /// Height of the transcript at the last draw (for paging).
    pub page: usize,
    /// The file picked in a changes block, while picking.
    pub focus: Option<Focus>,
    /// The diff being read, when open.
    pub diff: Option<DiffView>,
    /// Scroll the focused file into view at the next draw.
    pub(crate) reveal: bool,
    pub(crate) review: Option<ReviewFormat>,
    pub(crate) busy: bool,
    /// When the running turn was first drawn (see [`App::working_for`]).
    busy_since: Option<Instant>,
    /// Prompts typed while a turn ran: sent, in order, as turns end.
    /// The session's queue as its last `queue` event had it, next first.
    pub queue: Vec<cohost_core::QueueItem>,
    pub(crate) answer: Option<usize>,
    pub(crate) reasoning: Option<usize>,
    /// The room's members and what each is doing (see `members`).
    pub(crate) members: crate::member_state::Members,
    prompt_tokens: (u64, u64),
    quit_armed: bool,
    quit: bool,
    effects: Vec<Effect>,
    dirty: bool,
}

impl App {
    /// A fresh screen of `mode`.
    pub fn new(mode: Mode, theme: Theme) -> App {
        App {
            mode,
            theme,
            transcript: Transcript::default(),
            input: InputBox::default(),
            session: SessionInfo::default(),
            state: "starting",
            tokens: (0, 0),
            approval: None,
            grant: None,
            picker: None,
            room: Room::default(),
            scroll: 0,
            hint: None,
            completion: 0,
            page: 10,
            focus: None,
            diff: None,
            reveal: false,
            review: None,
            busy: false,
            busy_since: None,
            queue: Vec::new(),
            answer: None,
            reasoning: None,
            members: Default::default(),
            prompt_tokens: (0, 0),
            quit_armed: false,
            quit: false,
            effects: Vec::new(),
            dirty: true,
        }
    }

    /// Let review comments be sent, their text built by `format`.
    pub fn set_review_format(&mut self, format: ReviewFormat) {
        self.review = Some(format);
    }

    /// Whether a turn is running.
    pub fn busy(&self) -> bool {
        self.busy
    }

    /// How long the running turn has run at `now`, `None` when idle. The
    /// turn's first drawn frame counts as its start: every place that sets
    /// `busy` is followed by a frame within one frame interval, and not all
    /// of them know the time.
    pub(crate) fn working_for(&mut self, now: Instant) -> Option<Duration> {
        if !self.busy {
            self.busy_since = None;
            return None;
        }
        let since = *self.busy_since.get_or_insert(now);
        Some(now.saturating_duration_since(since))
    }

    /// Whether the app is done (the shell restores the terminal and ends).
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Whether something changed since the last [`App::take_dirty`].
    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }

    /// Mark the screen for redrawing (resize, a countdown tick).
    pub fn touch(&mut self) {
        self.dirty = true;
    }

    /// The effects queued since the last call.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    pub(crate) fn effect(&mut self, e: Effect) {
        if e == Effect::Quit {
            self.quit = true;
        }
        self.effects.push(e);
    }

    /// Who "User" decisions name on this screen.
    fn local_decider(&self) -> &'static str {
        match self.mode {
            Mode::Chat | Mode::Host => "you",
            Mode::Participant { .. } => "the host",
        }
    }

    /// Say something in the transcript.
    pub fn notice(&mut self, text: impl Into<String>) {
        self.end_stream_blocks();
        self.transcript.push(BlockKind::Notice(text.into()));
        self.dirty = true;
    }

    /// A prompt block (and the next text starts a new answer).
    pub fn prompted(&mut self, who: &str, text: &str) {
        self.end_stream_blocks();
        self.transcript.push(BlockKind::Prompt {
            who: who.to_string(),
            text: text.to_string(),
        });
        self.scroll = 0;
        self.dirty = true;
    }

    pub(crate) fn end_stream_blocks(&mut self) {
        self.answer = None;
        self.reasoning = None;
    }

    /// Handle a message from the shell; `now` times approval deadlines.
    pub fn on_incoming(&mut self, msg: Incoming, now: Instant) {
        self.dirty = true;
        match msg {
            Incoming::Event(e) => self.on_event(e, now),
            Incoming::Prompted { who, text } => self.prompted(&who, &text),
            Incoming::PromptedMember { who, member, text } => {
                self.prompted_to(&who, &text, Some(&member));
            }
            Incoming::Session(info) => {
                self.session = info;
                self.state = "ready";
            }
            Incoming::Notice(text) => self.notice(text),
            Incoming::Error { message, fix } => {
                self.end_stream_blocks();
                self.transcript.push(BlockKind::Error { message, fix });
            }
            Incoming::Agents(agents) => {
                if agents.is_empty() {
                    self.picker = None;
                    self.notice("no agent is registered");
                } else {
                    self.picker = Some(Picker {
                        agents,
                        selected: 0,
                    });
                }
            }
            Incoming::Joined(p) => {
                let known = self
                    .room
                    .participants
                    .iter()
                    .any(|q| q.id == p.id && q.present);
                let line = format!("{} joined as {}", p.name, p.role);
                // On the host's screen the host is this user.
                let me = self.mode == Mode::Host && p.role == "host";
                self.room.joined(p);
                if !known && !me {
                    self.notice(line);
                }
            }
            Incoming::Left(id) => {
                if let Some(name) = self.room.left(id) {
                    self.notice(format!("{name} left"));
                }
            }
            Incoming::Suggested(s) => {
                let line = format!(
                    "{} suggests: {} (Ctrl+A accept · Ctrl+R reject)",
                    s.from, s.text
                );
                if self.mode == Mode::Host {
                    self.room.suggestions.push(s);
                }
                self.notice(line);
            }
            Incoming::SuggestionDecided { id, accepted } => {
                self.room.suggestions.retain(|s| s.id != id);
                let word = if accepted { "accepted" } else { "rejected" };
                self.notice(format!("suggestion {id} {word}"));
            }
            Incoming::Chat { from, text } => {
                self.end_stream_blocks();
                self.transcript.push(BlockKind::Chat { from, text });
            }
            Incoming::Shared(i) => {
                self.mode = Mode::Host;
                self.state = "ready";
                self.notice("this session is shared now: guests see what runs from here on");
                self.on_incoming(Incoming::Invites(i), now);
            }
            Incoming::Invites(i) => {
                self.room.invites = Some(i);
                if let Some(text) = self.room.invite_text() {
                    self.notice(text);
                }
            }
            Incoming::Closed(why) => {
                self.notice(why);
                self.quit = true;
            }
            Incoming::Members(names) => self.set_members(names),
            Incoming::Grant(g) => self.granted(g),
        }
    }

    fn on_event(&mut self, e: Event, now: Instant) {
        if let Some(agent) = e.agent.clone() {
            return self.on_member_event(agent, e, now);
        }
        self.on_own_event(e, now);
    }

    pub(crate) fn on_own_event(&mut self, e: Event, now: Instant) {
        match e.body {
            EventBody::StreamStart {
                provider,
                session_id,
                model,
            } => {
                self.busy = true;
                self.state = "streaming";
                self.prompt_tokens = (0, 0);
                self.session.agent = provider;
                if model.is_some() {
                    self.session.model = model;
                }
                if self.session.session_id.is_none() {
                    self.session.session_id = session_id;
                }
                self.end_stream_blocks();
            }
            EventBody::StreamChunk { delta, .. } => {
                self.reasoning = None;
                let theme = self.theme;
                let i = match self.answer {
                    Some(i) => i,
                    None => {
                        let i = self.transcript.push(BlockKind::Answer(MdStream::default()));
                        self.answer = Some(i);
                        i
                    }
                };
                if let Some(BlockKind::Answer(md)) = self.transcript.edit(i) {
                    md.push(&delta, theme);
                }
            }
            EventBody::ReasoningChunk { delta, .. } => {
                let i = match self.reasoning {
                    Some(i) => i,
                    None => {
                        self.answer = None;
                        let i = self.transcript.push(BlockKind::Reasoning(String::new()));
                        self.reasoning = Some(i);
                        i
                    }
                };
                if let Some(BlockKind::Reasoning(text)) = self.transcript.edit(i) {
                    text.push_str(&delta);
                }
            }
            EventBody::ToolCall {
                tool_id,
                name,
                kind,
                input,
            } => {
                self.end_stream_blocks();
                self.tool_card(tool_id, name, kind, &input, ToolState::Running);
            }
            EventBody::ToolApprovalRequested {
                tool_id,
                name,
                kind,
                input,
                deadline_ms,
                ..
            } => {
                self.end_stream_blocks();
                self.state = "waiting for approval";
                let summary = summarize_input(&input);
                self.tool_card(
                    tool_id.clone(),
                    name.clone(),
                    kind,
                    &input,
                    ToolState::Awaiting,
                );
                self.approval = Some(ApprovalCard {
                    tool_id,
                    name,
                    kind,
                    summary,
                    deadline: now + Duration::from_millis(deadline_ms),
                    agent: None,
                    voted: None,
                });
            }
            EventBody::ToolApprovalDecided {
                tool_id,
                decision,
                origin,
                deciders,
            } => {
                if self.approval.as_ref().is_some_and(|a| a.tool_id == tool_id) {
                    self.approval = None;
                }
                if self.busy {
                    self.state = "streaming";
                }
                // People who shared the decision (a granted participant,
                // a quorum's approvers) by name; otherwise its origin.
                let who = if deciders.is_empty() {
                    origin_words(origin, self.local_decider())
                } else {
                    deciders.join(", ")
                };
                if let Some(i) = self.transcript.tool(&tool_id) {
                    if let Some(BlockKind::Tool(c)) = self.transcript.edit(i) {
                        c.decided = Some((decision, who));
                        c.state = if decision.is_allow() {
                            ToolState::Running
                        } else {
                            ToolState::Done(ToolStatus::Denied)
                        };
                    }
                }
            }
            EventBody::ToolExecuted {
                tool_id,
                status,
                output_preview,
            } => {
                if let Some(i) = self.transcript.tool(&tool_id) {
                    if let Some(BlockKind::Tool(c)) = self.transcript.edit(i) {
                        c.state = ToolState::Done(status);
                        c.output = output_preview;
                    }
                }
            }
            EventBody::Usage(u) => self.usage(u.input_tokens, u.output_tokens),
            EventBody::Status { message, .. } => self.notice(message),
            EventBody::Budget(n) => self.notice(n.describe()),
            EventBody::Steered(n) => {
                let who = n.by.as_deref().unwrap_or("you");
                self.prompted(&format!("{who} → this turn"), &n.text);
            }
            EventBody::Queue(n) => {
                self.queue = n.items.clone();
                match n.change {
                    cohost_core::QueueChange::Started => {
                        let who = n.item.by.as_deref().unwrap_or("you");
                        self.prompted(&format!("{who} (queued #{})", n.item.id), &n.item.text);
                    }
                    _ => self.notice(n.describe()),
                }
            }
            EventBody::FileChanges(changes) if !changes.is_empty() => {
                self.end_stream_blocks();
                self.transcript
                    .push(BlockKind::Changes(ChangesCard::new(changes)));
            }
            EventBody::StreamEnd { reason, usage } => {
                if let Some(u) = usage {
                    self.usage(u.input_tokens, u.output_tokens);
                }
                self.tokens.0 += self.prompt_tokens.0;
                self.tokens.1 += self.prompt_tokens.1;
                self.prompt_tokens = (0, 0);
                self.busy = false;
                self.approval = None;
                self.state = "ready";
                match reason {
                    EndReason::Completed | EndReason::Error => self.end_stream_blocks(),
                    EndReason::Interrupted => self.notice("interrupted"),
                    EndReason::MaxTurns => self.notice("the agent reached its turn limit"),
                    EndReason::Budget => {
                        self.notice("stopped: the budget is spent (/budget raises it)");
                    }
                }
            }
            EventBody::Error(err) => {
                self.end_stream_blocks();
                self.transcript.push(BlockKind::Error {
                    message: format!("{}: {}", err.code, err.message),
                    fix: err.suggested_fix,
                });
            }
            _ => {}
        }
    }

    /// Usage is cumulative within a turn: keep the turn's latest.
    fn usage(&mut self, input: u64, output: u64) {
        self.prompt_tokens = (
            input.max(self.prompt_tokens.0),
            output.max(self.prompt_tokens.1),
        );
    }

    /// The tokens to show: past turns plus the running one.
    pub fn shown_tokens(&self) -> (u64, u64) {
        (
            self.tokens.0 + self.prompt_tokens.0,
            self.tokens.1 + self.prompt_tokens.1,
        )
    }

    fn tool_card(
        &mut self,
        tool_id: String,
        name: String,
        kind: ToolKind,
        input: &serde_json::Value,
        state: ToolState,
    ) {
        let summary = summarize_input(input);
        // One card per call: an approval request updates the call's card.
        if let Some(i) = self.transcript.tool(&tool_id) {
            if let Some(BlockKind::Tool(c)) = self.transcript.edit(i) {
                c.state = state;
                if !summary.is_empty() {
                    c.summary = summary;
                }
                return;
            }
        }
        self.transcript.push(BlockKind::Tool(ToolCard {
            tool_id,
            name,
            kind,
            summary,
            state,
            decided: None,
            output: String::new(),
        }));
    }

    /// Whether this screen answers approvals with the host's options
    /// (once, always, no, never); participants vote (see [`App::votes`]).
    pub fn decides_approvals(&self) -> bool {
        matches!(self.mode, Mode::Chat | Mode::Host)
    }

    /// Whether this participant may vote on the approval card now: the
    /// host's grant covers the call's kind and it has not voted on it yet.
    pub fn votes(&self) -> bool {
        let (Some(card), Some(g)) = (&self.approval, &self.grant) else {
            return false;
        };
        matches!(self.mode, Mode::Participant { .. }) && g.covers(card.kind) && card.voted.is_none()
    }

    /// How many people must allow the card's call, where the host asks
    /// for more than one (a quorum this participant was told of).
    pub fn approvals_needed(&self) -> Option<u32> {
        let (card, g) = (self.approval.as_ref()?, self.grant.as_ref()?);
        Some(g.needs(card.kind)).filter(|n| *n > 1)
    }

    /// The host granted (or took back) approval of tool calls.
    fn granted(&mut self, g: Option<Grant>) {
        if !matches!(self.mode, Mode::Participant { .. }) || self.grant == g {
            return;
        }
        let line = match &g {
            Some(g) if g.kinds.is_empty() => {
                "the host lets you approve tool calls (every kind): y allows, n denies".to_owned()
            }
            Some(g) => {
                let kinds: Vec<&str> = g.kinds.iter().map(|k| k.name()).collect();
                format!(
                    "the host lets you approve tool calls ({}): y allows, n denies",
                    kinds.join(", ")
                )
            }
            None => "only the host approves tool calls".to_owned(),
        };
        self.grant = g;
        self.notice(line);
    }

    /// Seconds left on the approval card at `now`.
    pub fn approval_seconds(&self, now: Instant) -> Option<u64> {
        let a = self.approval.as_ref()?;
        Some(a.deadline.saturating_duration_since(now).as_secs())
    }

    /// The commands completing what is typed.
    pub fn completions(&self) -> Vec<commands::Command> {
        commands::completions(self.mode, self.input.text())
    }

    /// A prompt was sent: the turn counts as running until it ends.
    pub(crate) fn mark_busy(&mut self) {
        if self.mode == Mode::Chat {
            self.busy = true;
            self.state = "sending";
        }
    }

    pub(crate) fn set_busy_hint(&mut self) {
        self.hint = Some("the agent is busy: wait for the answer, or Esc to interrupt".into());
    }

    pub(crate) fn arm_quit(&mut self) -> bool {
        let was = self.quit_armed;
        self.quit_armed = true;
        was
    }

    pub(crate) fn disarm_quit(&mut self) {
        self.quit_armed = false;
    }
}
