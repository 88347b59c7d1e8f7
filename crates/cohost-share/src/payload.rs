//! The payload schema: what each application frame carries, as JSON.
//!
//! Tolerant readers: unknown fields are ignored and optional ones default,
//! so a newer host's payloads still decode here.

use cohost_core::ToolKind;
use serde::{Deserialize, Serialize};

/// `ai.request.suggest_prompt` / `ai.request.prompt_suggested`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    /// Chosen by the co-driver; the host echoes it in its decision.
    pub suggestion_id: String,
    /// The proposed prompt.
    pub text: String,
    /// Display name of the co-driver, when it gives one.
    #[serde(default)]
    pub from: Option<String>,
    /// The room member it is for (`@codex TEXT`), in a room of several
    /// agents; absent: the member the host's plain prompts go to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

/// `ai.request.suggestion_decided`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuggestionDecision {
    /// Which suggestion.
    pub suggestion_id: String,
    /// Run (true) or rejected (false).
    pub accepted: bool,
    /// The prompt id of the run, when accepted.
    #[serde(default)]
    pub prompt_id: Option<String>,
    /// The room member that runs it, in a room of several agents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// `ai.execution.started`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutionStarted {
    /// The turn's prompt id (also the relay stream id).
    pub prompt_id: String,
    /// The turn's correlation id (the suggestion id when it came from one).
    pub correlation_id: String,
    /// The prompt text.
    pub text: String,
    /// Provider id running it.
    pub provider: String,
    /// `host` or the suggestion id it came from.
    pub origin: String,
    /// The room member running it, in a room of several agents (every
    /// event of the turn names it too); absent with one agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// `chat.message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chat {
    /// Display name.
    #[serde(default)]
    pub from: Option<String>,
    /// Message.
    pub text: String,
    /// The room's members now, in a room of several agents: the host's
    /// chat when it adds, drops or keeps a member, and when someone joins.
    /// Receivers take it from the host only; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<String>>,
}

/// `key.announce` (participant to the host, sealed to it): the
/// participant's keys and its proof that it holds an invite
/// (`docs/sharing-e2e.md`, "Identities").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyAnnounce {
    /// base64url (no padding) of the 32-byte Ed25519 public key every frame
    /// of the participant is signed with.
    pub ed25519: String,
    /// base64url of the 32-byte X25519 public key room keys are wrapped to.
    pub x25519: String,
    /// Display name, when it gives one (a personal invite's name wins).
    #[serde(default)]
    pub name: Option<String>,
    /// base64url of the invite's 8-byte ticket id.
    pub ticket: String,
    /// base64url of the 32-byte HMAC proof over the keys and connection.
    pub proof: String,
}

/// `key.roster` (host to the room, signed): everyone the host bound, with
/// the key their frames are signed with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyRoster {
    /// The participants, by connection.
    #[serde(default)]
    pub members: Vec<RosterMember>,
}

/// One participant as the host bound it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RosterMember {
    /// Its connection id.
    pub conn_id: u64,
    /// Its name.
    pub name: String,
    /// The role of the invite its key is bound through.
    pub role: cohost_protocol::Role,
    /// base64url of its Ed25519 public key.
    pub ed25519: String,
    /// The room's members running on this participant's machine (absent:
    /// none): the only members whose turns its key may send.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
}

/// One room key wrapped for one participant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WrappedKey {
    /// The epoch of the wrapped key.
    pub epoch: u32,
    /// The recipient's connection id.
    pub to: u64,
    /// base64url of the host's ephemeral X25519 public key.
    pub eph: String,
    /// base64url of the 12-byte AES-GCM nonce.
    pub nonce: String,
    /// base64url of the wrapped key and its tag.
    pub ct: String,
}

/// `key.rotate` (host to participants): room keys of newer epochs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyRotate {
    /// Every wrap, for every recipient.
    pub keys: Vec<WrappedKey>,
}

/// `key.door` (host to the room, signed, under the invite's key of epoch
/// 0): the host's answer to someone at the door of a room with `--knock`,
/// addressed to one connection. Everyone holding an invite of the room can
/// open it (someone waiting holds nothing else); it names a connection and
/// an answer, nothing of the room (`docs/sharing-e2e.md`, "Knocking").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyDoor {
    /// The connection it answers (a receiver ignores one for another).
    pub to: u64,
    /// The answer.
    pub answer: DoorAnswer,
    /// While waiting: how many seconds the host gives itself to answer
    /// before the knock is refused (absent: no deadline said).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
}

/// What the host answered someone at the door.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DoorAnswer {
    /// Seen by the host, not answered yet.
    Waiting,
    /// Let in: the room's keys follow in a `key.rotate`.
    Admitted,
    /// Turned away (`/refuse`): the key never opens the room.
    Refused,
    /// Not answered before the host's deadline: refused as if by `/refuse`.
    TimedOut,
    /// An answer a newer host gives that this build does not know.
    #[serde(other)]
    Unknown,
}

impl DoorAnswer {
    /// Whether the knock is over and the participant stays out.
    pub fn turned_away(self) -> bool {
        matches!(self, DoorAnswer::Refused | DoorAnswer::TimedOut)
    }
}

/// `ai.request.interrupt` (co-driver to hosts): stop the running turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterruptRequest {
    /// Display name, when it gives one.
    #[serde(default)]
    pub from: Option<String>,
}

/// `ai.tool.approval_vote` (participant to hosts): allow or deny a pending
/// tool call. The host counts it only from a participant it granted
/// approval of the call's kind to ([`ApprovalGrants`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalVote {
    /// The call; absent: the only one pending.
    #[serde(default)]
    pub tool_id: Option<String>,
    /// Allow (true) or deny (false).
    pub allow: bool,
}

/// `ai.tool.approval_grants` (host to the room): who may approve what, and
/// how many approvals a kind of call needs. Sent whenever it changes and to
/// each participant that joins.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalGrants {
    /// The participants the host granted approval to.
    #[serde(default)]
    pub grants: Vec<ApprovalGrant>,
    /// Kinds that need more than one approval (the host counts as one).
    #[serde(default)]
    pub quorum: Vec<QuorumRule>,
}

/// One participant's right to approve.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalGrant {
    /// The participant's connection (the relay's id for it).
    pub conn_id: u64,
    /// Its name when granted, to show.
    pub name: String,
    /// The kinds of call it may decide; empty: every kind.
    #[serde(default)]
    pub kinds: Vec<ToolKind>,
}

impl ApprovalGrant {
    /// Whether this grant covers a call of `kind`.
    pub fn covers(&self, kind: ToolKind) -> bool {
        self.kinds.is_empty() || self.kinds.contains(&kind)
    }
}

/// How many distinct approvers a kind of call needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuorumRule {
    /// The kind.
    pub kind: ToolKind,
    /// Distinct approvals needed (at least 1).
    pub approvals: u32,
}

/// A co-driver offers an agent running on its own machine as a member of
/// the room (`ai.member.offer`; sealed to the host, `docs/sharing-e2e.md`,
/// "Members on other machines").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberOffer {
    /// The agent it runs (a provider id, e.g. `codex`): shown to the room
    /// and part of the member's name.
    pub agent: String,
}

/// The host tells the owner of a member on another machine what to do
/// (`ai.member.command`; host only, addressed inside the signed body).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberCommand {
    /// The owner's connection (every other receiver ignores it).
    pub to: u64,
    /// The member's name in the room (`codex@ana`).
    pub agent: String,
    /// What to do.
    pub op: MemberOp,
    /// `prompt`: the text to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// `prompt`: the host's id of the turn (its `ai.execution.started`
    /// echoes it as `correlation_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    /// `prompt`: whose words they are (the host, or the co-driver whose
    /// suggestion the host accepted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// `refused` and `dropped`: why, to show the owner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

impl MemberCommand {
    /// `op` for member `agent`, addressed to connection `to`, with no text,
    /// author or reason yet.
    pub fn new(to: u64, agent: impl Into<String>, op: MemberOp) -> MemberCommand {
        MemberCommand {
            to,
            agent: agent.into(),
            op,
            text: None,
            correlation_id: None,
            author: None,
            why: None,
        }
    }
}

/// What the host tells the owner of a member.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MemberOp {
    /// The offer was taken: the member is in the room under `agent`.
    Admitted,
    /// Run `text` as a turn.
    Prompt,
    /// Stop the running turn.
    Interrupt,
    /// The offer was refused (`why`).
    Refused,
    /// The member is out of the room (`/drop`, or the room ends).
    Dropped,
    /// An order a newer host gives that this build does not know.
    #[serde(other)]
    Unknown,
}
