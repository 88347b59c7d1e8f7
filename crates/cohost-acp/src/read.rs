//! Agents' messages read with the ACP SDK's own schema types, tolerantly:
//! the whole message when it matches the schema, else the parts cohost uses,
//! so one member an agent gets wrong (or a kind newer than the schema) costs
//! that member, not the message. The schema types already skip unknown
//! fields and default most optional members that fail to parse.

use agent_client_protocol_schema::v1 as schema;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Member `key` of a JSON object as `T`; `None` when absent or another shape.
fn member<T: DeserializeOwned>(v: &Value, key: &str) -> Option<T> {
    v.get(key)
        .and_then(|m| serde_json::from_value(m.clone()).ok())
}

/// What cohost keeps of an `initialize` answer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hello {
    /// `agentCapabilities` (defaults when absent).
    pub capabilities: schema::AgentCapabilities,
    /// `agentInfo`, when the agent names itself.
    pub agent: Option<schema::Implementation>,
}

/// The `initialize` result. An answer the schema rejects as a whole (no
/// `protocolVersion`, an `agentInfo` without `version`) still yields the
/// capabilities it states: losing `loadSession` would quietly turn a
/// `--resume` into a new session.
pub(crate) fn initialize(v: Value) -> Hello {
    match serde_json::from_value::<schema::InitializeResponse>(v.clone()) {
        Ok(r) => Hello {
            capabilities: r.agent_capabilities,
            agent: r.agent_info,
        },
        Err(e) => {
            tracing::debug!(error = %e, "initialize answer outside the ACP schema; reading its parts");
            Hello {
                capabilities: member(&v, "agentCapabilities").unwrap_or_default(),
                agent: member(&v, "agentInfo"),
            }
        }
    }
}

/// The session modes an answer to `session/new`, `session/load` or
/// `session/fork` advertises (`modes`); `None` when it has none or they do
/// not read.
pub(crate) fn modes(v: &Value) -> Option<schema::SessionModeState> {
    member(v, "modes")
}

/// The `session/prompt` result. A stop reason newer than the schema (or
/// none) ends the turn as `end_turn` would, keeping the usage and `_meta`.
pub(crate) fn prompt_response(v: Value) -> schema::PromptResponse {
    match serde_json::from_value::<schema::PromptResponse>(v.clone()) {
        Ok(r) => r,
        Err(e) => {
            tracing::debug!(error = %e, "session/prompt answer outside the ACP schema; reading its parts");
            schema::PromptResponse::new(schema::StopReason::EndTurn)
                .usage(member::<schema::Usage>(&v, "usage"))
                .meta(member::<schema::Meta>(&v, "_meta"))
        }
    }
}

/// `session/request_permission` params: the call in question and the options
/// offered. An option of a kind newer than the schema is left out rather
/// than failing the request (and with it the agent's tool call); the call
/// itself must be readable.
pub(crate) fn permission_request(
    params: Value,
) -> Result<(schema::ToolCallUpdate, Vec<schema::PermissionOption>), serde_json::Error> {
    match serde_json::from_value::<schema::RequestPermissionRequest>(params.clone()) {
        Ok(r) => Ok((r.tool_call, r.options)),
        Err(e) => {
            let Some(call) = member(&params, "toolCall") else {
                return Err(e);
            };
            let options = params
                .get("options")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|o| serde_json::from_value(o.clone()).ok())
                .collect();
            Ok((call, options))
        }
    }
}

/// Why a `session/update` was not read.
#[derive(Debug)]
pub(crate) enum Skipped {
    /// A kind the schema does not know (newer than it, or vendor-specific).
    UnknownKind,
    /// A known kind (or no kind) in a shape the schema rejects.
    Malformed(serde_json::Error),
}

/// `session/update` params. A kind unknown to the schema is told apart from a
/// malformed update by the schema's own verdict on the `sessionUpdate` tag.
pub(crate) fn session_update(params: Value) -> Result<schema::SessionUpdate, Skipped> {
    let kind = params
        .pointer("/update/sessionUpdate")
        .and_then(Value::as_str)
        .map(str::to_owned);
    match serde_json::from_value::<schema::SessionNotification>(params) {
        Ok(n) => Ok(n.update),
        Err(e) => match kind {
            // serde's wording for an internally tagged enum's unknown tag.
            Some(k) if e.to_string().starts_with(&format!("unknown variant `{k}`")) => {
                Err(Skipped::UnknownKind)
            }
            _ => Err(Skipped::Malformed(e)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_kinds_are_told_from_malformed_updates() {
        let read = |u: Value| session_update(json!({"sessionId": "s", "update": u}));
        assert!(matches!(
            read(json!({"sessionUpdate": "brand_new_kind", "x": 1})),
            Err(Skipped::UnknownKind)
        ));
        for bad in [
            json!({"sessionUpdate": "agent_message_chunk"}),
            json!({"sessionUpdate": "tool_call"}),
            json!({"sessionUpdate": 7}),
            json!({"content": {"type": "text", "text": "x"}}),
        ] {
            assert!(
                matches!(read(bad.clone()), Err(Skipped::Malformed(_))),
                "{bad}"
            );
        }
        // Extra fields are fine.
        assert!(read(
            json!({"sessionUpdate": "agent_message_chunk", "extra": true,
            "content": {"type": "text", "text": "x", "more": 1}})
        )
        .is_ok());
    }

    #[test]
    fn parts_survive_a_message_the_schema_rejects() {
        let h = initialize(json!({"agentCapabilities": {"loadSession": true},
            "agentInfo": {"name": "x"}}));
        assert!(h.capabilities.load_session);
        assert!(h.agent.is_none(), "agentInfo without a version");
        let r = prompt_response(json!({"stopReason": "brand_new", "usage":
            {"totalTokens": 3, "inputTokens": 2, "outputTokens": 1}}));
        assert_eq!(r.stop_reason, schema::StopReason::EndTurn);
        assert_eq!(r.usage.map(|u| u.input_tokens), Some(2));
        let (call, options) = permission_request(json!({"sessionId": "s",
            "toolCall": {"toolCallId": "c"},
            "options": [{"optionId": "n", "name": "New", "kind": "allow_for_a_while"},
                        {"optionId": "y", "name": "Yes", "kind": "allow_once"}]}))
        .unwrap();
        assert_eq!(&*call.tool_call_id.0, "c");
        assert_eq!(options.len(), 1);
        assert_eq!(&*options[0].option_id.0, "y");
        assert!(permission_request(json!({"options": []})).is_err());
    }
}
