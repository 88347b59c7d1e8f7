//! The payload schema: what each application frame carries, as JSON.
//!
//! Tolerant readers: unknown fields are ignored and optional ones default,
//! so a newer host's payloads still decode here.

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
}

/// `key.announce` (participant to hosts): the participant's X25519 public
/// key, which the host wraps room keys to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyAnnounce {
    /// base64url (no padding) of the 32-byte X25519 public key.
    pub x25519: String,
    /// Display name, when it gives one.
    #[serde(default)]
    pub name: Option<String>,
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

/// `ai.request.interrupt` (co-driver to hosts): stop the running turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterruptRequest {
    /// Display name, when it gives one.
    #[serde(default)]
    pub from: Option<String>,
}
