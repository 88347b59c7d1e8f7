//! Bridge calls through the room's approval policy. A member whose agent
//! asks cohost before it runs an MCP tool (its capabilities say
//! `mcp_approvals`: Claude Code, Qwen Code...) has had its call approved
//! by then; for the others (Codex, OpenCode, Kilo run MCP tools unasked)
//! the bridge raises the approval itself on the member's running session,
//! as a request of that member's turn, so it reaches every front end and
//! policy exactly like the agent's own requests. An "always" answer is
//! kept for that member and tool, as an agent keeps it for its own tools.

use std::collections::HashMap;
use std::sync::Mutex;

use cohost_core::bridge::{BridgeCall, BRIDGE_SERVER};
use cohost_core::sanitize::inert_line;
use cohost_core::sync::lock;
use cohost_core::{ApprovalOption, Decision, DecisionOrigin, ToolCallInfo, ToolKind};
use serde_json::{json, Value};

use super::error::BridgeError;
use crate::running::RunningSession;

/// The tool's name as an agent that asks names it (Claude Code's
/// `mcp__SERVER__TOOL`), so a person allowing it by name sees one name
/// whichever agent calls it.
pub(crate) fn tool_name(call: &BridgeCall) -> String {
    let tool = match call {
        BridgeCall::AskMember { .. } => "ask_member",
        BridgeCall::ListMembers => "list_members",
        BridgeCall::PostToRoom { .. } => "post_to_room",
    };
    format!("mcp__{BRIDGE_SERVER}__{tool}")
}

/// The call's arguments, as the agent passed them to the tool.
fn input(call: &BridgeCall) -> Value {
    match call {
        BridgeCall::AskMember { name, prompt } => json!({"name": name, "prompt": prompt}),
        BridgeCall::ListMembers => json!({}),
        BridgeCall::PostToRoom { text } => json!({"text": text}),
    }
}

/// Answers remembered per member and tool (`allow_always`,
/// `reject_always`).
#[derive(Default)]
pub(crate) struct Remembered(Mutex<HashMap<(String, String), bool>>);

impl Remembered {
    /// May `member`'s call of `call` run? Asks `session` (the member's own)
    /// when its agent did not ask already; a refusal says who refused.
    pub(crate) async fn approve(
        &self,
        member: &str,
        session: &RunningSession,
        call: &BridgeCall,
    ) -> Result<(), BridgeError> {
        if session.descriptor().capabilities.mcp_approvals {
            // Its agent asked cohost before it called the tool.
            return Ok(());
        }
        let name = tool_name(call);
        let key = (member.to_owned(), name.clone());
        if let Some(allowed) = lock(&self.0).get(&key).copied() {
            return match allowed {
                true => Ok(()),
                false => Err(refusal(member, &name, &remembered_no())),
            };
        }
        let request = ToolCallInfo {
            tool_id: format!("bridge-{}", cohost_core::ids::random_tag()),
            kind: ToolKind::from_tool_name(&name),
            name: name.clone(),
            input: input(call),
        };
        let d = session
            .raise_approval(request, ApprovalOption::ALL.to_vec())
            .await;
        match d.option {
            ApprovalOption::AllowAlways => {
                lock(&self.0).insert(key, true);
            }
            ApprovalOption::RejectAlways => {
                lock(&self.0).insert(key, false);
            }
            ApprovalOption::AllowOnce | ApprovalOption::RejectOnce => {}
        }
        if d.option.is_allow() {
            Ok(())
        } else {
            Err(refusal(member, &name, &d))
        }
    }
}

fn remembered_no() -> Decision {
    Decision::deny(DecisionOrigin::User, "refused for the rest of this room")
}

/// The error the calling agent's model reads: its call was not allowed,
/// by whom, and why.
pub(crate) fn refusal(member: &str, tool: &str, d: &Decision) -> BridgeError {
    let why = d
        .message
        .as_deref()
        .filter(|m| !m.is_empty())
        .map(inert_line);
    let named = (!d.deciders.is_empty()).then(|| {
        let names: Vec<String> = d.deciders.iter().map(|n| inert_line(n)).collect();
        format!("denied by {}", names.join(", "))
    });
    let by = match (d.origin, named, why) {
        (DecisionOrigin::Deadline, _, _) => "nobody decided before the deadline".to_owned(),
        (DecisionOrigin::Cancelled | DecisionOrigin::Crash, _, why) => format!(
            "no decision: {}",
            why.unwrap_or_else(|| "the turn ended first".into())
        ),
        (DecisionOrigin::Policy, _, _) => "denied by the room's approval policy".to_owned(),
        // A reason that says who already ("denied by the host") is enough.
        (_, None, Some(why)) if why.starts_with("denied") => why,
        (_, Some(named), Some(why)) if !why.starts_with("denied") => format!("{named} ({why})"),
        (_, Some(named), _) => named,
        (DecisionOrigin::Remote, None, why) => with_reason("denied by the host", why),
        (_, None, why) => with_reason("denied by the person deciding", why),
    };
    BridgeError::Refused {
        member: member.to_owned(),
        tool: tool.to_owned(),
        by,
    }
}

fn with_reason(by: &str, why: Option<String>) -> String {
    match why {
        Some(why) => format!("{by} ({why})"),
        None => by.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(d: Decision) -> String {
        refusal("codex", "mcp__cohost_room__ask_member", &d).to_string()
    }

    #[test]
    fn a_refusal_says_who_refused_once() {
        let pre = "the room did not allow codex's call of mcp__cohost_room__ask_member: ";
        let cases = [
            (
                Decision::deny(DecisionOrigin::User, "not now").by(vec!["ana".into()]),
                "denied by ana (not now)",
            ),
            (
                Decision::deny(DecisionOrigin::User, "denied by the host"),
                "denied by the host",
            ),
            (
                Decision::deny(DecisionOrigin::Remote, "").by(vec!["ana".into(), "bo".into()]),
                "denied by ana, bo",
            ),
            (
                Decision::deny(DecisionOrigin::Remote, "too risky"),
                "denied by the host (too risky)",
            ),
            (
                Decision::deny(DecisionOrigin::Policy, "denied by cohost policy"),
                "denied by the room's approval policy",
            ),
            (
                Decision::deny(DecisionOrigin::Deadline, "no decision before the deadline"),
                "nobody decided before the deadline",
            ),
            (
                Decision::deny(DecisionOrigin::Cancelled, "the turn was interrupted"),
                "no decision: the turn was interrupted",
            ),
        ];
        for (d, want) in cases {
            assert_eq!(said(d), format!("{pre}{want}"));
        }
        let e = cohost_core::CohostError::from(refusal(
            "codex\u{1b}[2J",
            "t",
            &Decision::deny(DecisionOrigin::User, "x\u{1b}]0;y").by(vec!["a\u{1b}[1m".into()]),
        ));
        assert!(!e.message.contains('\u{1b}'), "{e}");
        assert_eq!(e.code, cohost_core::ErrorCode::PermissionRequired);
        assert!(e.suggested_fix.is_some());
    }
}
