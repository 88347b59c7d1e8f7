//! Codex thread items and approval answers, as cohost sees them: which
//! items are tool calls, their outcome, and the reply shape each approval
//! request expects. Pure helpers of [`super::normalize`].

use cohost_core::{ApprovalOption, ToolCallInfo, ToolKind, ToolStatus};
use serde_json::{json, Value};

use super::wire::ThreadItem;

/// How an approval must be answered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    /// v2: `{"decision":"accept"|"acceptForSession"|"decline"}`.
    Decision,
    /// Legacy: `{"decision":"approved"|"approved_for_session"|"denied"}`.
    Review,
    /// `item/permissions/requestApproval`: grant the requested profile or nothing.
    Permissions(Value),
}

pub(crate) fn answer_body(answer: &Answer, option: ApprovalOption) -> Value {
    match answer {
        Answer::Decision => json!({"decision": match option {
            ApprovalOption::AllowOnce => "accept",
            ApprovalOption::AllowAlways => "acceptForSession",
            ApprovalOption::RejectOnce | ApprovalOption::RejectAlways => "decline",
        }}),
        Answer::Review => json!({"decision": match option {
            ApprovalOption::AllowOnce => "approved",
            ApprovalOption::AllowAlways => "approved_for_session",
            ApprovalOption::RejectOnce | ApprovalOption::RejectAlways => "denied",
        }}),
        Answer::Permissions(requested) => {
            let scope = if option == ApprovalOption::AllowAlways {
                "session"
            } else {
                "turn"
            };
            let granted = if option.is_allow() {
                requested.clone()
            } else {
                json!({})
            };
            json!({"permissions": granted, "scope": scope})
        }
    }
}

pub(crate) type ToolResult = Option<(ToolStatus, String)>;

/// A tool item as a call, plus its outcome when it is finished.
pub(crate) fn tool_call(item: ThreadItem) -> Option<(ToolCallInfo, ToolResult)> {
    let status_of = |s: &str| match s {
        "completed" => Some(ToolStatus::Ok),
        "failed" => Some(ToolStatus::Error),
        "declined" => Some(ToolStatus::Denied),
        _ => None,
    };
    Some(match item {
        ThreadItem::CommandExecution {
            id,
            command,
            cwd,
            status,
            aggregated_output,
            exit_code,
        } => {
            let status = match (status_of(&status), exit_code) {
                (Some(ToolStatus::Ok), Some(c)) if c != 0 => Some(ToolStatus::Error),
                (s, _) => s,
            };
            (
                ToolCallInfo {
                    tool_id: id,
                    name: "shell".into(),
                    kind: ToolKind::Execute,
                    input: json!({"command": command, "cwd": cwd}),
                },
                status.map(|s| (s, aggregated_output.unwrap_or_default())),
            )
        }
        ThreadItem::FileChange {
            id,
            changes,
            status,
        } => {
            let kinds: Vec<&str> = changes
                .iter()
                .map(|c| {
                    c.kind
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("update")
                })
                .collect();
            let kind = if !kinds.is_empty() && kinds.iter().all(|k| *k == "delete") {
                ToolKind::Delete
            } else {
                ToolKind::Edit
            };
            let files: Vec<Value> = changes
                .iter()
                .zip(&kinds)
                .map(|(c, k)| json!({"path": c.path, "kind": k}))
                .collect();
            let summary = files
                .iter()
                .filter_map(|f| f["path"].as_str())
                .collect::<Vec<_>>()
                .join(", ");
            (
                ToolCallInfo {
                    tool_id: id,
                    name: "apply_patch".into(),
                    kind,
                    input: json!({"changes": files}),
                },
                status_of(&status).map(|s| (s, summary)),
            )
        }
        ThreadItem::McpToolCall {
            id,
            server,
            tool,
            arguments,
            status,
            result,
            error,
        } => {
            let output = if error.is_null() { result } else { error };
            (
                ToolCallInfo {
                    tool_id: id,
                    kind: ToolKind::from_tool_name(&tool),
                    name: format!("{server}/{tool}"),
                    input: arguments,
                },
                status_of(&status).map(|s| (s, compact(&output))),
            )
        }
        ThreadItem::WebSearch { id, query } => (
            ToolCallInfo {
                tool_id: id,
                name: "web_search".into(),
                kind: ToolKind::Fetch,
                input: json!({"query": query}),
            },
            Some((ToolStatus::Ok, String::new())),
        ),
        _ => return None,
    })
}

fn compact(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
