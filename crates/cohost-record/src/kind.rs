//! The kinds of entry and what their bodies hold. A reader shows a kind it
//! does not know as raw JSON; verification treats every kind alike except
//! [`SESSION`] (the first entry, naming the host key) and [`END`].

/// The first entry of a record, and of each resumption: `{"session": ID,
/// "host_public_key": B64URL, "provider": ID, "model"?: M, "cwd"?: PATH,
/// "resumed": BOOL}`.
pub const SESSION: &str = "session";
/// A prompt the session ran: `{"correlation_id": C, "text": T, "files":
/// [PATH..], "images": [{"media_type": M, "sha256": HEX, "bytes": N,
/// "data"?: BASE64}]}`; `author` says whose.
pub const PROMPT: &str = "prompt";
/// The answer text of one stream, its chunks joined: `{"prompt_id": P,
/// "stream_id": S, "text": T, "agent"?: NAME}`.
pub const TEXT: &str = "text";
/// The reasoning text of one stream, as [`TEXT`].
pub const REASONING: &str = "reasoning";
/// Any other session event, as cohost's event JSON (tool calls, approvals
/// asked and decided, tools run, file changes with diffs, usage, status,
/// errors, turn start and end, and event types added later such as budgets).
pub const EVENT: &str = "event";
/// A participant's suggested prompt: `{"suggestion_id": ID, "text": T,
/// "to"?: MEMBER}`, as the participant signed it; `author` is the
/// participant, whose signed frame the entry carries (format v2 rooms).
pub const SUGGESTION: &str = "suggestion";
/// The decision on a suggestion: `{"suggestion_id": ID, "accepted": BOOL}`;
/// `author` is who decided (`host`, or `policy`).
pub const SUGGESTION_DECIDED: &str = "suggestion_decided";
/// A tool approval answered by someone of the room: `{"tool_id"?: ID,
/// "allow": BOOL}`; `author` is who decided.
pub const APPROVAL_DECIDED: &str = "approval_decided";
/// A participant's vote on a tool approval, counted by the host (one of a
/// quorum, or the one that decided): `{"tool_id": ID, "allow": BOOL}`;
/// `author` is the participant, whose signed frame the entry carries.
pub const APPROVAL_VOTE: &str = "approval_vote";
/// Someone joined or left the shared room: `{"change": "joined"|"left",
/// "name": N, "role": R, "conn_id": C}`.
pub const PRESENCE: &str = "presence";
/// Something the recorder itself notes: `{"text": T}` (e.g. a torn last
/// entry dropped after a crash).
pub const NOTE: &str = "note";
/// The session ended: `{"reason": R}`. A complete record's last entry.
pub const END: &str = "end";
