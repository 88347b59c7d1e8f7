//! What every vendor normalizer shares: the trait, the end-of-turn summary,
//! tool-call accumulation, and the frame loop that turns a JSON parse
//! failure into a non-fatal `INVALID_OUTPUT` instead of a panic.

use cohost_core::{AgentEvent, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolKind, Usage};
use serde_json::Value;

use super::decode::Frame;
use super::transcript::ToolUse;

/// How a turn ended, as the vendor said it.
#[derive(Debug, Clone, PartialEq)]
pub struct Finish {
    /// End reason for cohost.
    pub reason: EndReason,
    /// Final usage, when reported.
    pub usage: Option<Usage>,
    /// A note worth a `status` event (max tokens, content filter...).
    pub note: Option<String>,
}

impl Finish {
    /// A plain completion.
    pub fn completed(usage: Option<Usage>) -> Self {
        Finish {
            reason: EndReason::Completed,
            usage,
            note: None,
        }
    }

    /// A completion with a note (max tokens, content filter...) or none.
    pub fn completed_with_note(usage: Option<Usage>, note: Option<String>) -> Self {
        Finish {
            note,
            ..Finish::completed(usage)
        }
    }
}

/// A pure state machine from one vendor's stream frames to cohost events.
pub trait Normalizer: Send {
    /// One parsed frame in, events out. `Err` is fatal (an error event in the
    /// stream, e.g. Anthropic's mid-stream `overloaded_error`).
    fn on_json(
        &mut self,
        event: Option<&str>,
        data: &Value,
        out: &mut Vec<AgentEvent>,
    ) -> Result<(), CohostError>;

    /// A frame whose data is not JSON. Default: OpenAI's `[DONE]` sentinel
    /// is handled by the chat normalizer; everything else is a protocol slip.
    fn on_text(&mut self, _data: &str) -> bool {
        false
    }

    /// The vendor's terminal event, once seen (or once the stream may end).
    fn finish(&mut self) -> Option<Finish>;

    /// The assistant's text and tool calls of this turn, for the transcript.
    fn assistant(&self) -> (String, Vec<ToolUse>);
}

/// Feeds one decoded frame to a normalizer: JSON it when possible; a frame
/// that is neither JSON nor a sentinel becomes a non-fatal `INVALID_OUTPUT`.
pub fn feed(
    n: &mut dyn Normalizer,
    provider: &str,
    frame: &Frame,
    out: &mut Vec<AgentEvent>,
) -> Result<(), CohostError> {
    let data = frame.data.trim();
    if data.is_empty() {
        return Ok(());
    }
    match serde_json::from_str::<Value>(data) {
        Ok(v) => n.on_json(frame.event.as_deref(), &v, out),
        Err(e) => {
            if !n.on_text(data) {
                out.push(AgentEvent::Error(
                    CohostError::new(
                        ErrorCode::InvalidOutput,
                        format!(
                            "`{provider}` sent a stream event that is not valid JSON ({e}); it was skipped"
                        ),
                    )
                    .with_fix("usually a proxy cutting the stream; if it repeats, report it with the provider's version")
                    .retryable(false),
                ));
            }
            Ok(())
        }
    }
}

/// A tool call whose arguments arrive in pieces.
#[derive(Debug, Clone, Default)]
pub struct PendingCall {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments JSON text so far.
    pub args: String,
}

impl PendingCall {
    /// Complete the call: parse the arguments (an empty string is `{}`),
    /// emit the `ToolCall`, remember it for the transcript. Unparseable
    /// arguments are kept as a string and reported, not dropped.
    pub fn complete(self, provider: &str, calls: &mut Vec<ToolUse>, out: &mut Vec<AgentEvent>) {
        let input = if self.args.trim().is_empty() {
            Value::Object(Default::default())
        } else {
            match serde_json::from_str(&self.args) {
                Ok(v) => v,
                Err(e) => {
                    out.push(AgentEvent::Error(
                        CohostError::new(
                            ErrorCode::InvalidOutput,
                            format!("`{provider}` sent arguments for tool `{}` that are not valid JSON: {e}", self.name),
                        )
                        .retryable(false),
                    ));
                    Value::String(self.args.clone())
                }
            }
        };
        emit_call(
            ToolUse {
                id: self.id,
                name: self.name,
                input,
            },
            calls,
            out,
        );
    }
}

/// Emit a complete tool call and remember it.
pub fn emit_call(call: ToolUse, calls: &mut Vec<ToolUse>, out: &mut Vec<AgentEvent>) {
    out.push(AgentEvent::ToolCall(ToolCallInfo {
        tool_id: call.id.clone(),
        name: call.name.clone(),
        kind: ToolKind::from_tool_name(&call.name),
        input: call.input.clone(),
    }));
    calls.push(call);
}

/// A `u64` at a JSON pointer, 0 when absent.
pub fn num(v: &Value, pointer: &str) -> u64 {
    v.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

/// A string at a JSON pointer.
pub fn text<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// The start of a chat-style `messages` array: the system prompt as its
/// first message, when there is one (OpenAI Chat, Ollama).
pub fn system_messages(ctx: &RequestCtx<'_>) -> Vec<Value> {
    ctx.system
        .map(|s| serde_json::json!({"role": "system", "content": s}))
        .into_iter()
        .collect()
}

/// The offered tools rendered one by one, `None` when there are none (the
/// request then leaves the field out).
pub fn tools_json(ctx: &RequestCtx<'_>, render: impl Fn(&ToolDef) -> Value) -> Option<Value> {
    (!ctx.tools.is_empty()).then(|| ctx.tools.iter().map(render).collect())
}

/// The string field `field` of each object in the array `list` of a model
/// listing (`GET /v1/models` and the like).
pub fn model_ids<'a>(v: &'a Value, list: &str, field: &'a str) -> impl Iterator<Item = &'a str> {
    v.get(list)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(move |m| m.get(field).and_then(Value::as_str))
}

/// The note for a completion cut short by the output limit.
pub fn max_tokens_note(provider: &str) -> String {
    format!("`{provider}` stopped at its output token limit; the answer may be cut off")
}

/// A tool the model may call (API providers only surface the calls).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ToolDef {
    /// Name the model uses.
    pub name: String,
    /// What it does, for the model.
    #[serde(default)]
    pub description: String,
    /// JSON schema of the arguments (an object schema).
    pub parameters: Value,
}

/// What a request body is built from, besides the conversation.
#[derive(Debug, Clone, Copy)]
pub struct RequestCtx<'a> {
    /// Model id.
    pub model: &'a str,
    /// System prompt.
    pub system: Option<&'a str>,
    /// Tools offered.
    pub tools: &'a [ToolDef],
    /// Output token limit (Anthropic requires one).
    pub max_tokens: u32,
    /// Ask for reasoning where the API needs asking.
    pub reasoning: bool,
}

/// Append `part` to the last message when it has the same role, else start
/// a new `{role, <field>: [part]}` message. Vendors that require alternating
/// roles (Anthropic, Gemini) get merged turns this way.
pub fn push_part(messages: &mut Vec<Value>, role: &str, field: &str, part: Value) {
    if let Some(last) = messages.last_mut() {
        if last.get("role").and_then(Value::as_str) == Some(role) {
            if let Some(arr) = last.get_mut(field).and_then(Value::as_array_mut) {
                arr.push(part);
                return;
            }
        }
    }
    messages.push(serde_json::json!({"role": role, field: [part]}));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{anthropic, errors::Ctx, gemini, ollama, openai_chat, openai_responses};

    fn all() -> Vec<Box<dyn Normalizer>> {
        let c = || Ctx {
            provider: "t".into(),
            ..Ctx::default()
        };
        vec![
            Box::new(anthropic::AnthropicNormalizer::new(c())),
            Box::new(openai_chat::ChatNormalizer::new(c())),
            Box::new(openai_responses::ResponsesNormalizer::new(c())),
            Box::new(gemini::GeminiNormalizer::new(c())),
            Box::new(ollama::OllamaNormalizer::new(c())),
        ]
    }

    /// Wrong types in every field the normalizers read: never a panic.
    #[test]
    fn hostile_frames_never_panic() {
        let frames = [
            "null",
            "[]",
            "5",
            "\"x\"",
            "{}",
            r#"{"type":"content_block_delta","index":"x","delta":5}"#,
            r#"{"type":"content_block_start","index":-1,"content_block":{"type":"tool_use","id":3}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"message_delta","usage":{"output_tokens":"many"}}"#,
            r#"{"choices":"x","usage":[]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":"a","function":7}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":"x"}}]}"#,
            r#"{"type":"response.output_item.done","item":{"type":"function_call","arguments":"{oops"}}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":"x"},{"text":5}]}}]}"#,
            r#"{"message":{"tool_calls":[{"function":{"arguments":"{bad"}}]},"done":"yes"}"#,
            "[DONE]",
            "not json at all",
        ];
        for mut n in all() {
            let mut out = Vec::new();
            for f in frames {
                let frame = crate::decode::Frame {
                    event: Some("content_block_delta".into()),
                    data: f.into(),
                };
                let _ = feed(n.as_mut(), "t", &frame, &mut out);
            }
            let _ = n.assistant();
            let _ = n.finish();
        }
    }

    #[test]
    fn bad_tool_arguments_are_reported_not_dropped() {
        let mut calls = Vec::new();
        let mut out = Vec::new();
        PendingCall {
            id: "c".into(),
            name: "run".into(),
            args: "{not json".into(),
        }
        .complete("t", &mut calls, &mut out);
        assert!(matches!(&out[0], AgentEvent::Error(e) if e.code == ErrorCode::InvalidOutput));
        assert!(
            matches!(&out[1], AgentEvent::ToolCall(c) if c.input == Value::String("{not json".into()))
        );
        assert_eq!(calls.len(), 1);
    }
}
