//! What flows between the app and its shell: [`Incoming`] messages in,
//! [`Effect`]s out, and the plain data they carry.

use cohost_core::{ApprovalOption, Event};

use crate::room::{Invites, Participant, Suggestion};

/// An agent as the picker shows it (from discovery).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentInfo {
    /// Provider id.
    pub id: String,
    /// Status word (`ready`, `not_installed`…).
    pub status: String,
    /// Version, when found.
    pub version: Option<String>,
    /// What to do when it is not ready.
    pub fix: Option<String>,
}

/// What the status line shows about the session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionInfo {
    /// Provider id.
    pub agent: String,
    /// Model, when known.
    pub model: Option<String>,
    /// cohost's session id (or the agent's), when known.
    pub session_id: Option<String>,
}

/// What the shell tells the app.
#[derive(Debug, Clone)]
pub enum Incoming {
    /// An engine event of the running turn (local, or the host's stream).
    Event(Event),
    /// A turn started on someone's prompt (participants learn it here).
    Prompted {
        /// Who asked.
        who: String,
        /// The prompt.
        text: String,
    },
    /// A turn started on someone's prompt to one member of a room (its
    /// block goes to that member's tab).
    PromptedMember {
        /// Who asked (`host → codex`).
        who: String,
        /// The member asked, as its events name it.
        member: String,
        /// The prompt.
        text: String,
    },
    /// The session (re)opened.
    Session(SessionInfo),
    /// Something to tell the user.
    Notice(String),
    /// Something failed, and the fix.
    Error {
        /// What happened.
        message: String,
        /// What to do.
        fix: Option<String>,
    },
    /// Discovery's answer for the agent picker.
    Agents(Vec<AgentInfo>),
    /// Someone joined the room.
    Joined(Participant),
    /// Someone left (connection id).
    Left(u64),
    /// A co-driver suggested a prompt.
    Suggested(Suggestion),
    /// A suggestion was decided.
    SuggestionDecided {
        /// Which.
        id: String,
        /// Run or not.
        accepted: bool,
    },
    /// Room chat.
    Chat {
        /// Who.
        from: String,
        /// What.
        text: String,
    },
    /// The room's invites (host).
    Invites(Invites),
    /// This chat is shared now, in a room with these invites: the screen
    /// becomes the host console, the conversation goes on.
    Shared(Invites),
    /// The room or session is gone: show why and exit.
    Closed(String),
    /// The agents of this chat (a room when there are several), in order;
    /// the first is the one plain text goes to until another is addressed.
    Members(Vec<String>),
    /// What the host lets this participant approve (`None`: nothing, or
    /// no longer); it arms the approval card's allow and deny keys.
    Grant(Option<crate::approval::Grant>),
}

/// What the app asks the shell to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Run a prompt.
    Prompt(String),
    /// Interrupt the running turn (in a room: every member's).
    Interrupt,
    /// Interrupt one member of a room, the others go on (Esc or Ctrl+C
    /// on its tab, or on the member last addressed).
    InterruptMember(String),
    /// A participant's vote on a tool call the host granted it to decide
    /// (the host counts it toward the call's quorum, or refuses it).
    Vote {
        /// The call, as the host's event named it.
        tool_id: String,
        /// Allow (true) or deny.
        allow: bool,
    },
    /// Answer a tool approval.
    Decide {
        /// The call.
        tool_id: String,
        /// The answer.
        option: ApprovalOption,
        /// The room member asking (`None` outside a room).
        agent: Option<String>,
    },
    /// `--knock`: let someone at the door in (a name, `#ID` or ID).
    Admit(String),
    /// `--knock`: turn someone at the door away.
    Refuse(String),
    /// Add an agent (a provider id) to the room.
    AddMember(String),
    /// Stop a member and take it out of the room.
    DropMember(String),
    /// List the room's members.
    Members,
    /// The same prompt to every member.
    Compare(String),
    /// Give another member the conversation of the one that has the word.
    Handoff {
        /// The receiving member.
        to: String,
        /// What it should do (empty: go on).
        text: String,
    },
    /// Bring one member's changes into the checkout; the others stop.
    Keep {
        /// The member.
        name: String,
        /// Merge its branch instead of applying its changes.
        merge: bool,
    },
    /// Switch to another agent.
    SwitchAgent(String),
    /// List the agents for the picker.
    ListAgents,
    /// Restart with another model.
    SwitchModel(String),
    /// Resume a stored session.
    Resume(String),
    /// Share this session.
    Share,
    /// Show what the session's turns changed (one turn, or all).
    Diff(Option<u64>),
    /// Undo the last turn (or this turn and every later one).
    Undo(Option<u64>),
    /// Show or raise the budget (`/budget [USD | tokens N | off]`; the
    /// shell parses the words).
    Budget(String),
    /// Show what was spent, per person and per agent.
    Spend,
    /// Text typed while a turn runs: steer that turn where the agent takes
    /// input mid-turn, else queue it (the session's events say which).
    Steer(String),
    /// Show, reorder or cancel the session's queue.
    Queue(crate::queue::QueueCommand),
    /// Run a suggestion.
    Accept(String),
    /// Reject a suggestion.
    Reject(String),
    /// Say something in the room.
    Chat(String),
    /// Suggest a prompt to the host.
    Suggest(String),
    /// Remove a participant.
    Kick(String),
    /// Who is in the room, and who waits at the door (`/who`); the host
    /// answers with a notice.
    Who,
    /// Make a personal invite while the room runs (`/invite NAME ROLE`:
    /// the words after the command, parsed by the host).
    Invite(String),
    /// End everything.
    Quit,
}
