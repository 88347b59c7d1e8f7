//! Pure mapping between cohost and ACP: engine events to `session/update`
//! payloads, approval options to permission options and back, prompt
//! content blocks to a cohost prompt, end reasons to stop reasons.

use std::path::PathBuf;

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, EmbeddedResourceResource, PermissionOption, PermissionOptionKind,
    SessionUpdate, StopReason, TextContent, ToolCall, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind as AcpKind,
};
use cohost_core::{
    ApprovalOption, ContextFile, EndReason, EventBody, PromptInput, ToolKind, ToolStatus,
};

/// cohost's tool kind as ACP's.
pub fn kind(k: ToolKind) -> AcpKind {
    match k {
        ToolKind::Read => AcpKind::Read,
        ToolKind::Edit => AcpKind::Edit,
        ToolKind::Delete => AcpKind::Delete,
        ToolKind::Move => AcpKind::Move,
        ToolKind::Search => AcpKind::Search,
        ToolKind::Execute => AcpKind::Execute,
        ToolKind::Fetch => AcpKind::Fetch,
        ToolKind::Think => AcpKind::Think,
        _ => AcpKind::Other,
    }
}

fn text(s: &str) -> ContentBlock {
    ContentBlock::Text(TextContent::new(s.to_string()))
}

/// The tool call announcement ACP clients show.
pub fn tool_call(
    tool_id: &str,
    name: &str,
    k: ToolKind,
    input: &serde_json::Value,
    status: ToolCallStatus,
) -> ToolCall {
    ToolCall::new(tool_id.to_string(), name.to_string())
        .name(name.to_string())
        .kind(kind(k))
        .status(status)
        .raw_input(input.clone())
}

/// The `session/update` for one engine event, when ACP has one. Tool calls
/// first seen in an approval request are announced by the caller (it knows
/// which calls it has announced).
pub fn update(body: &EventBody) -> Option<SessionUpdate> {
    match body {
        EventBody::StreamChunk { delta, .. } => Some(SessionUpdate::AgentMessageChunk(
            ContentChunk::new(text(delta)),
        )),
        EventBody::ReasoningChunk { delta, .. } => Some(SessionUpdate::AgentThoughtChunk(
            ContentChunk::new(text(delta)),
        )),
        EventBody::ToolCall {
            tool_id,
            name,
            kind,
            input,
        } => Some(SessionUpdate::ToolCall(tool_call(
            tool_id,
            name,
            *kind,
            input,
            ToolCallStatus::Pending,
        ))),
        EventBody::ToolApprovalDecided {
            tool_id, decision, ..
        } => {
            let status = if decision.is_allow() {
                ToolCallStatus::InProgress
            } else {
                ToolCallStatus::Failed
            };
            Some(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                tool_id.clone(),
                ToolCallUpdateFields::new().status(status),
            )))
        }
        EventBody::ToolExecuted {
            tool_id,
            status,
            output_preview,
        } => {
            let s = match status {
                ToolStatus::Ok => ToolCallStatus::Completed,
                _ => ToolCallStatus::Failed,
            };
            let mut fields = ToolCallUpdateFields::new().status(s);
            if !output_preview.is_empty() {
                fields = fields
                    .content(vec![text(output_preview).into()])
                    .raw_output(serde_json::Value::String(output_preview.clone()));
            }
            Some(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                tool_id.clone(),
                fields,
            )))
        }
        _ => None,
    }
}

/// The permission options for cohost's approval options; the option id is
/// cohost's option name, so the answer maps back without a table.
pub fn permission_options(options: &[ApprovalOption]) -> Vec<PermissionOption> {
    options
        .iter()
        .map(|o| {
            let (id, name, kind) = match o {
                ApprovalOption::AllowOnce => {
                    ("allow_once", "Allow", PermissionOptionKind::AllowOnce)
                }
                ApprovalOption::AllowAlways => (
                    "allow_always",
                    "Always allow",
                    PermissionOptionKind::AllowAlways,
                ),
                ApprovalOption::RejectOnce => {
                    ("reject_once", "Deny", PermissionOptionKind::RejectOnce)
                }
                ApprovalOption::RejectAlways => (
                    "reject_always",
                    "Always deny",
                    PermissionOptionKind::RejectAlways,
                ),
            };
            PermissionOption::new(id.to_string(), name.to_string(), kind)
        })
        .collect()
}

/// The approval option an ACP option id names (`None`: not one of ours).
pub fn option_from_id(id: &str) -> Option<ApprovalOption> {
    match id {
        "allow_once" => Some(ApprovalOption::AllowOnce),
        "allow_always" => Some(ApprovalOption::AllowAlways),
        "reject_once" => Some(ApprovalOption::RejectOnce),
        "reject_always" => Some(ApprovalOption::RejectAlways),
        _ => None,
    }
}

/// ACP's stop reason for a turn that did not fail.
pub fn stop_reason(r: EndReason) -> StopReason {
    match r {
        // The budget stopped the turn: for the client, a cancelled turn.
        EndReason::Interrupted | EndReason::Budget => StopReason::Cancelled,
        EndReason::MaxTurns => StopReason::MaxTurnRequests,
        _ => StopReason::EndTurn,
    }
}

fn file_path(uri: &str) -> PathBuf {
    PathBuf::from(uri.strip_prefix("file://").unwrap_or(uri))
}

/// A cohost prompt from ACP content: text joined, resource links and
/// embedded text resources as context files (images and audio are not
/// taken: the prompt capabilities say so).
pub fn prompt(blocks: Vec<ContentBlock>) -> PromptInput {
    let mut texts = Vec::new();
    let mut files = Vec::new();
    for b in blocks {
        match b {
            ContentBlock::Text(t) => texts.push(t.text),
            ContentBlock::ResourceLink(l) => files.push(ContextFile {
                path: file_path(&l.uri),
                content: None,
            }),
            ContentBlock::Resource(r) => {
                if let EmbeddedResourceResource::TextResourceContents(t) = r.resource {
                    files.push(ContextFile {
                        path: file_path(&t.uri),
                        content: Some(t.text),
                    });
                }
            }
            _ => {}
        }
    }
    let mut input = PromptInput::text(texts.join("\n"));
    input.context_files = files;
    input
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_ids_round_trip_and_strangers_are_refused() {
        let all = [
            ApprovalOption::AllowOnce,
            ApprovalOption::AllowAlways,
            ApprovalOption::RejectOnce,
            ApprovalOption::RejectAlways,
        ];
        for (o, p) in all.iter().zip(permission_options(&all)) {
            assert_eq!(option_from_id(&p.option_id.to_string()), Some(*o));
        }
        assert_eq!(option_from_id("proceed_always"), None);
    }

    #[test]
    fn chunks_and_tool_updates_map() {
        let chunk = EventBody::StreamChunk {
            stream_id: "s".into(),
            chunk_index: 0,
            delta: "hi".into(),
        };
        assert!(matches!(
            update(&chunk),
            Some(SessionUpdate::AgentMessageChunk(_))
        ));
        let done = EventBody::ToolExecuted {
            tool_id: "t".into(),
            status: ToolStatus::Denied,
            output_preview: String::new(),
        };
        let Some(SessionUpdate::ToolCallUpdate(u)) = update(&done) else {
            panic!("a tool update");
        };
        assert_eq!(u.fields.status, Some(ToolCallStatus::Failed));
        assert_eq!(stop_reason(EndReason::Interrupted), StopReason::Cancelled);
    }

    #[test]
    fn prompt_takes_text_and_resource_links() {
        let link = agent_client_protocol::v1::schema::ResourceLink::new("a.rs", "file:///w/a.rs");
        let p = prompt(vec![text("look"), ContentBlock::ResourceLink(link)]);
        assert_eq!(p.text, "look");
        assert_eq!(p.context_files[0].path, PathBuf::from("/w/a.rs"));
    }
}
