//! The room bridge's domain: what an agent in a room may ask of the room
//! (another member's answer, the member list, a note everyone sees), the
//! messages that carry it between the agent's MCP server and cohost, and the
//! rules that keep agents asking each other bounded: a call chain never
//! revisits a member, and it is only so deep.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{CohostError, ErrorCode};

/// The MCP server's name as agents see it (`mcp__cohost_room__ask_member`).
pub const BRIDGE_SERVER: &str = "cohost_room";

/// How many members may be waiting on each other at once by default
/// (claude asks codex, who asks gemini: 2).
pub const DEFAULT_MAX_DEPTH: usize = 2;

/// How long an `ask_member` waits for the answer by default.
pub const DEFAULT_ANSWER_TIME: Duration = Duration::from_secs(300);

/// The most answer text an `ask_member` returns (the rest is cut, and the
/// result says so): a tool result the caller's model reads whole.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// One call of a bridge tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "tool", rename_all = "snake_case")]
pub enum BridgeCall {
    /// Run a turn on member `name` with `prompt` and return its answer.
    AskMember {
        /// The member asked.
        name: String,
        /// What it is asked.
        prompt: String,
    },
    /// The room's members.
    ListMembers,
    /// A note the room's people see.
    PostToRoom {
        /// The note.
        text: String,
    },
}

/// A bridge call on the wire (one JSON line from the agent's MCP server to
/// cohost); `id` pairs it with its reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeRequest {
    /// Chosen by the caller, echoed in the reply.
    pub id: u64,
    /// The call.
    pub call: BridgeCall,
}

/// The reply to a [`BridgeRequest`] (one JSON line back).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BridgeReply {
    /// The request's id.
    pub id: u64,
    /// The tool's result, or why it was refused.
    pub outcome: Result<serde_json::Value, CohostError>,
}

/// Limits on agents asking each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BridgeRules {
    /// How many members may wait on each other at once.
    pub max_depth: usize,
    /// How long an `ask_member` waits for the answer.
    pub answer_time: Duration,
}

impl Default for BridgeRules {
    fn default() -> Self {
        BridgeRules {
            max_depth: DEFAULT_MAX_DEPTH,
            answer_time: DEFAULT_ANSWER_TIME,
        }
    }
}

/// Why one member may not ask another ([`BridgeRules::may_ask`]). Names
/// are shown inert: they come from an agent's tool call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChainRefused {
    /// No member has the name asked for.
    #[error("no member of this room is named {}", crate::sanitize::inert_line(.name))]
    NoSuchMember {
        /// The name asked for.
        name: String,
        /// The room's members.
        members: Vec<String>,
    },
    /// A member asked itself.
    #[error("{} cannot ask itself", crate::sanitize::inert_line(.0))]
    Itself(String),
    /// The member asked is waiting in the chain already.
    #[error(
        "{} is waiting for this answer already ({}): asking it would never end",
        crate::sanitize::inert_line(.name),
        .chain.join(" → ")
    )]
    Loop {
        /// The member asked.
        name: String,
        /// Who asked whom so far.
        chain: Vec<String>,
    },
    /// One step past the depth.
    #[error(
        "too deep: {} members are waiting on each other already ({})",
        .chain.len(),
        .chain.join(" → ")
    )]
    TooDeep {
        /// Who asked whom so far.
        chain: Vec<String>,
        /// The rules' depth.
        max_depth: usize,
    },
}

impl From<ChainRefused> for CohostError {
    fn from(e: ChainRefused) -> CohostError {
        let fix = match &e {
            ChainRefused::NoSuchMember { members, .. } => {
                format!("the members are: {}", members.join(", "))
            }
            ChainRefused::Itself(_) => "ask another member (list_members names them)".into(),
            ChainRefused::Loop { .. } => {
                "answer with what you have, or ask a member not in that chain".into()
            }
            ChainRefused::TooDeep { max_depth, .. } => format!(
                "answer with what you have; members may ask each other at most {max_depth} deep"
            ),
        };
        CohostError::new(ErrorCode::ConfigInvalid, e.to_string()).with_fix(fix)
    }
}

impl BridgeRules {
    /// May the last member of `chain` (who asked whom so far, the caller
    /// last) ask `to`, one of `members`? The chain the asked turn runs
    /// under, or why not: a member that is not in the room, the caller
    /// itself, one already waiting in the chain (a loop), or one step past
    /// the depth.
    pub fn may_ask(
        &self,
        chain: &[String],
        to: &str,
        members: &[&str],
    ) -> Result<Vec<String>, ChainRefused> {
        if !members.contains(&to) {
            return Err(ChainRefused::NoSuchMember {
                name: to.to_owned(),
                members: members.iter().map(|m| (*m).to_owned()).collect(),
            });
        }
        if chain.last().map(String::as_str) == Some(to) {
            return Err(ChainRefused::Itself(to.to_owned()));
        }
        if chain.iter().any(|m| m == to) {
            return Err(ChainRefused::Loop {
                name: to.to_owned(),
                chain: chain.to_vec(),
            });
        }
        if chain.len() > self.max_depth {
            return Err(ChainRefused::TooDeep {
                chain: chain.to_vec(),
                max_depth: self.max_depth,
            });
        }
        let mut next = chain.to_vec();
        next.push(to.to_owned());
        Ok(next)
    }
}

/// The prompt an asked member gets: who asks, so its answer is for an
/// agent, then the question as asked.
pub fn asked_prompt(from: &str, prompt: &str) -> String {
    format!(
        "{from}, another agent in this cohost room, asks you (answer it; your answer goes back to {from}):\n\n{prompt}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    const ROOM: &[&str] = &["claude", "codex", "gemini", "qwen"];

    #[test]
    fn a_chain_grows_one_member_at_a_time_up_to_the_depth() {
        let rules = BridgeRules::default();
        let next = rules.may_ask(&chain(&["claude"]), "codex", ROOM).unwrap();
        assert_eq!(next, chain(&["claude", "codex"]));
        let next = rules.may_ask(&next, "gemini", ROOM).unwrap();
        assert_eq!(next, chain(&["claude", "codex", "gemini"]));
        let e = CohostError::from(rules.may_ask(&next, "qwen", ROOM).unwrap_err());
        assert!(e.message.contains("too deep"), "{e}");
        assert!(e.suggested_fix.unwrap().contains("at most 2 deep"));
    }

    #[test]
    fn loops_self_asks_and_strangers_are_refused_with_a_fix() {
        let rules = BridgeRules::default();
        let e = rules
            .may_ask(&chain(&["claude", "codex"]), "claude", ROOM)
            .unwrap_err();
        assert!(matches!(e, ChainRefused::Loop { .. }), "{e:?}");
        assert!(e.to_string().contains("claude → codex"), "{e}");
        let e = rules
            .may_ask(&chain(&["codex"]), "codex", ROOM)
            .unwrap_err();
        assert_eq!(e, ChainRefused::Itself("codex".into()));
        assert!(e.to_string().contains("cannot ask itself"), "{e}");
        let e = CohostError::from(
            rules
                .may_ask(&chain(&["codex"]), "aider\u{1b}[2J", ROOM)
                .unwrap_err(),
        );
        assert!(!e.message.contains('\u{1b}'), "{e}");
        assert!(e
            .suggested_fix
            .unwrap()
            .contains("claude, codex, gemini, qwen"));
    }

    #[test]
    fn a_depth_of_zero_lets_nobody_ask() {
        let rules = BridgeRules {
            max_depth: 0,
            ..BridgeRules::default()
        };
        assert!(rules.may_ask(&chain(&["claude"]), "codex", ROOM).is_err());
    }

    #[test]
    fn calls_and_replies_read_back_as_written() {
        let req = BridgeRequest {
            id: 7,
            call: BridgeCall::AskMember {
                name: "codex".into(),
                prompt: "review it".into(),
            },
        };
        let line = serde_json::to_string(&req).unwrap();
        assert_eq!(
            line,
            r#"{"id":7,"call":{"tool":"ask_member","name":"codex","prompt":"review it"}}"#
        );
        assert_eq!(serde_json::from_str::<BridgeRequest>(&line).unwrap(), req);
        let reply = BridgeReply {
            id: 7,
            outcome: Err(ChainRefused::Itself("codex".into()).into()),
        };
        let back: BridgeReply =
            serde_json::from_str(&serde_json::to_string(&reply).unwrap()).unwrap();
        assert_eq!(back, reply);
        assert!(serde_json::from_str::<BridgeRequest>(r#"{"id":1,"call":{"tool":"rm"}}"#).is_err());
    }
}
