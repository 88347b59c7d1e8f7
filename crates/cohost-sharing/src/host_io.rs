//! What the host bridge and its helpers share: the host's commands, the
//! bridge's notices, the room's policies, and sending a frame.

use cohost_core::{ApprovalContext, EndReason, Event};
use cohost_protocol::Frame;
use cohost_relay::RelayClient;
use cohost_share::{Chat, Presence, ShareError, Suggestion, SuggestionDecision};
use tokio::sync::mpsc;

/// What the host (a person or a test) tells the bridge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostInput {
    /// Run this prompt (`@NAME TEXT` in a room of several agents: on NAME,
    /// who takes the host's plain prompts from then on).
    Prompt(String),
    /// The same prompt to every member of the room.
    Compare(String),
    /// List the room's members.
    Members,
    /// Add a member running this agent (`/add AGENT`).
    AddMember(String),
    /// Take member NAME out of the room (`/drop NAME`).
    DropMember(String),
    /// Bring member NAME's changes into the checkout and stop the others
    /// (`/keep NAME [--merge]`).
    Keep {
        /// The member.
        name: String,
        /// Merge its branch (else apply its changes).
        merge: bool,
    },
    /// Give member TO the conversation so far of the member that has the
    /// word, then TEXT (`/handoff TO [TEXT]`).
    Handoff {
        /// The member taking over.
        to: String,
        /// What to ask it, after the account.
        text: String,
    },
    /// Run a pending suggestion.
    Accept(String),
    /// Reject a pending suggestion.
    Reject(String),
    /// Decide a pending tool approval (`None`: the only pending one).
    Approve {
        /// Which call.
        tool_id: Option<String>,
        /// Allow or deny.
        allow: bool,
    },
    /// Let a participant (name, `#id` or id) decide tool approvals of some
    /// kinds (empty: every kind): `/grant NAME approve [KINDS]`.
    Grant {
        /// Who.
        who: String,
        /// Which kinds.
        kinds: Vec<cohost_core::ToolKind>,
    },
    /// Take a participant's grant away: `/revoke NAME`.
    Revoke(String),
    /// List who may approve what: `/grants`.
    Grants,
    /// Interrupt the running turn.
    Interrupt,
    /// Interrupt member NAME's turn only (a member on another machine
    /// too).
    InterruptMember(String),
    /// Interrupt every member's turn.
    InterruptAll,
    /// Say something in the room chat.
    Chat(String),
    /// Remove a participant (by name, `#id` or id): its token is revoked at
    /// the relay and the room key rotates.
    Kick(String),
    /// `--knock`: let someone at the door in (by name, `#id` or id).
    Admit(String),
    /// Make a personal invite for `name` while the room runs.
    Invite {
        /// Who it is for (the name the host binds their key to).
        name: String,
        /// Co-driver or viewer.
        role: cohost_protocol::Role,
    },
    /// `--knock`: turn someone at the door away.
    Refuse(String),
    /// List who is in the room.
    Who,
    /// Show the room's budget, or raise it (`/budget [USD | tokens N | off]`).
    Budget(String),
    /// Show what was spent, per person and per agent.
    Spend,
    /// Close the room and stop.
    Quit,
}

/// What the bridge tells the host.
#[derive(Debug, Clone)]
pub enum HostNotice {
    /// A co-driver suggested a prompt (waiting for Accept/Reject under `Ask`).
    Suggested(Suggestion),
    /// A suggestion was decided (by the policy or the host).
    SuggestionDecided(SuggestionDecision),
    /// A local event of the running turn (for rendering).
    Event(Event),
    /// An agent asks to run a tool; answer with `HostInput::Approve`.
    ApprovalNeeded {
        /// The call.
        request: ApprovalContext,
        /// Whose: the member's name in a room of several agents.
        agent: Option<String>,
    },
    /// Chat from the room.
    Chat(Chat),
    /// Who is in the room changed (the host's own connection included, once
    /// welcomed).
    Presence(Presence),
    /// Something about the room or its connection, to show as it is.
    Room(String),
    /// A personal invite made while the room runs (`/invite NAME ROLE`),
    /// keys included: for the host's eyes only.
    Invited(crate::invite_mint::PersonalInvite),
    /// The room's members now (one was added, dropped or kept).
    Members(Vec<String>),
    /// A turn finished.
    TurnDone(EndReason),
    /// A co-driver asks to stop the running turn (under the `Ask` policy:
    /// answer with `HostInput::Interrupt`).
    InterruptRequested {
        /// Who asked.
        from: String,
    },
}

/// What to do with co-driver suggestions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuggestionPolicy {
    /// Queue them for the host to accept or reject.
    Ask,
    /// Run them in order (trusted rooms, tests).
    Accept,
    /// Reject them all.
    Reject,
}

/// Send a built frame; a frame that could not be built or sent is told to
/// the host (never dropped silently).
pub(super) async fn deliver(
    client: &RelayClient,
    notices: &mpsc::UnboundedSender<HostNotice>,
    frame: Result<Frame, ShareError>,
) {
    let sent = match frame {
        Ok(f) => client.send(&f).await.map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    if let Err(e) = sent {
        let _ = notices.send(HostNotice::Room(format!("a frame was not sent: {e}")));
    }
}
