//! Server requests: approvals become events (or policy answers), anything
//! else gets a JSON-RPC error at once.

use cohost_core::{AgentEvent, ApprovalMode, ApprovalOption, ToolCallInfo, ToolKind};
use serde_json::{json, Value};

use super::super::items::{answer_body, Answer};
use super::super::wire;
use super::{Action, AppServerCore};

impl AppServerCore {
    pub(super) fn on_request(&mut self, id: Value, method: &str, params: Value) -> Vec<Action> {
        let answer = match method {
            "applyPatchApproval" | "execCommandApproval" => Answer::Review,
            "item/permissions/requestApproval" => {
                Answer::Permissions(params.get("permissions").cloned().unwrap_or(json!({})))
            }
            m if m.ends_with("requestApproval") => Answer::Decision,
            "mcpServer/elicitation/request" if self.own_tool_call(&params) => {
                // codex asks before a tool of an MCP server cohost gave it
                // (0.171.0: `_meta.codex_approval_kind` `mcp_tool_call`).
                // Such a server puts each call to the room's approval
                // policy itself (the room bridge asks for every call of an
                // agent whose capabilities lack `mcp_approvals`), so the
                // question is answered yes here rather than asked twice.
                return vec![Action::Write(wire::reply(
                    &id,
                    json!({"action": "accept", "content": {}}),
                ))];
            }
            _ => {
                self.unknown += 1;
                return vec![Action::Write(wire::reply_error(
                    &id,
                    -32601,
                    &format!("cohost does not support `{method}`"),
                ))];
            }
        };
        let call = self.approval_call(method, &id, &params);
        if let Some(turn) = self.turn.as_mut() {
            turn.announced.insert(call.tool_id.clone());
            turn.held.remove(&call.tool_id);
        }
        match self.cfg.approval {
            ApprovalMode::Ask => {
                self.approvals.insert(call.tool_id.clone(), (id, answer));
                vec![Action::Event(AgentEvent::ApprovalRequested {
                    call,
                    options: ApprovalOption::ALL.to_vec(),
                })]
            }
            // Policy decides at once; the call is still reported.
            ApprovalMode::AutoApprove | ApprovalMode::DenyAll => {
                let option = if self.cfg.approval == ApprovalMode::AutoApprove {
                    ApprovalOption::AllowOnce
                } else {
                    ApprovalOption::RejectOnce
                };
                vec![
                    Action::Event(AgentEvent::ToolCall(call)),
                    Action::Write(wire::reply(&id, answer_body(&answer, option))),
                ]
            }
        }
    }

    /// An elicitation that is codex's approval of a tool call of one of
    /// cohost's own MCP servers (any other, a user's server's or a form a
    /// server asks a person to fill, gets the error every unrouted request
    /// gets).
    fn own_tool_call(&self, p: &Value) -> bool {
        let kind = p
            .pointer("/_meta/codex_approval_kind")
            .and_then(Value::as_str);
        let server = p.get("serverName").and_then(Value::as_str);
        kind == Some("mcp_tool_call")
            && server.is_some_and(|s| self.cfg.own_mcp_servers.iter().any(|o| o == s))
    }

    fn approval_call(&self, method: &str, rpc_id: &Value, p: &Value) -> ToolCallInfo {
        let s = |k: &str| p.get(k).and_then(Value::as_str).map(String::from);
        let tool_id = s("itemId")
            .or_else(|| s("callId"))
            .unwrap_or_else(|| rpc_id.to_string());
        if let Some(held) = self.turn.as_ref().and_then(|t| t.held.get(&tool_id)) {
            return held.clone();
        }
        let (name, kind, input) = match method {
            "item/commandExecution/requestApproval" => (
                "shell",
                ToolKind::Execute,
                json!({"command": p.get("command"), "cwd": p.get("cwd"), "reason": p.get("reason")}),
            ),
            "execCommandApproval" => (
                "shell",
                ToolKind::Execute,
                json!({"command": p.get("command"), "cwd": p.get("cwd")}),
            ),
            "item/fileChange/requestApproval" => (
                "apply_patch",
                ToolKind::Edit,
                json!({"reason": p.get("reason"), "grantRoot": p.get("grantRoot")}),
            ),
            "applyPatchApproval" => (
                "apply_patch",
                ToolKind::Edit,
                json!({"files": p.get("fileChanges").and_then(Value::as_object).map(|m| m.keys().cloned().collect::<Vec<_>>())}),
            ),
            "item/permissions/requestApproval" => (
                "permissions",
                ToolKind::Other,
                json!({"permissions": p.get("permissions"), "reason": p.get("reason")}),
            ),
            other => (other, ToolKind::Other, p.clone()),
        };
        ToolCallInfo {
            tool_id,
            name: name.to_string(),
            kind,
            input,
        }
    }
}
