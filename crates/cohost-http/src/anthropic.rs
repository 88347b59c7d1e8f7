//! Anthropic Messages API (`POST /v1/messages`, SSE): request rendering and
//! the pure stream normalizer.

use cohost_core::{AgentEvent, CohostError, EndReason, Usage};
use serde_json::{json, Value};

use super::errors::{self, Ctx};
use super::normalize::{
    max_tokens_note, model_ids, num, push_part, text, tools_json, Finish, Normalizer, PendingCall,
    RequestCtx,
};
use super::transcript::{Item, ToolUse, Transcript};

/// The API version header value this module speaks.
pub const API_VERSION: &str = "2023-06-01";

/// The request body for the conversation so far.
pub fn request_body(t: &Transcript, ctx: &RequestCtx<'_>) -> Value {
    let mut messages: Vec<Value> = Vec::new();
    for item in &t.items {
        match item {
            Item::User { text, images } => {
                push_part(
                    &mut messages,
                    "user",
                    "content",
                    json!({"type": "text", "text": text}),
                );
                for i in images {
                    push_part(
                        &mut messages,
                        "user",
                        "content",
                        json!({"type": "image", "source": {"type": "base64",
                            "media_type": i.media_type, "data": i.data}}),
                    );
                }
            }
            Item::Assistant { text, tool_calls } => {
                if !text.is_empty() {
                    push_part(
                        &mut messages,
                        "assistant",
                        "content",
                        json!({"type": "text", "text": text}),
                    );
                }
                for c in tool_calls {
                    push_part(
                        &mut messages,
                        "assistant",
                        "content",
                        json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.input}),
                    );
                }
            }
            Item::ToolResult {
                call_id,
                output,
                is_error,
                ..
            } => push_part(
                &mut messages,
                "user",
                "content",
                json!({"type": "tool_result", "tool_use_id": call_id, "content": output, "is_error": is_error}),
            ),
        }
    }
    let mut body = json!({
        "model": ctx.model,
        "max_tokens": ctx.max_tokens,
        "stream": true,
        "messages": messages,
    });
    if let Some(s) = ctx.system {
        body["system"] = json!(s);
    }
    if let Some(tools) = tools_json(
        ctx,
        |t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}),
    ) {
        body["tools"] = tools;
    }
    if ctx.reasoning {
        // Thinking needs a budget below max_tokens; a quarter leaves room for the answer.
        let budget = (ctx.max_tokens / 4).max(1024);
        if budget < ctx.max_tokens {
            body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
        }
    }
    body
}

/// The stream normalizer.
#[derive(Debug)]
pub struct AnthropicNormalizer {
    ctx: Ctx,
    text: String,
    calls: Vec<ToolUse>,
    /// Tool-use blocks by content index.
    open: Vec<(u64, PendingCall)>,
    usage: Usage,
    stop_reason: Option<String>,
    stopped: bool,
}

impl AnthropicNormalizer {
    /// A normalizer for one turn.
    pub fn new(ctx: Ctx) -> Self {
        AnthropicNormalizer {
            ctx,
            text: String::new(),
            calls: Vec::new(),
            open: Vec::new(),
            usage: Usage::default(),
            stop_reason: None,
            stopped: false,
        }
    }
}

impl Normalizer for AnthropicNormalizer {
    fn on_json(
        &mut self,
        event: Option<&str>,
        v: &Value,
        out: &mut Vec<AgentEvent>,
    ) -> Result<(), CohostError> {
        let kind = text(v, "/type").or(event).unwrap_or("");
        match kind {
            "message_start" => {
                let u = &v["message"]["usage"];
                self.usage.input_tokens = num(u, "/input_tokens");
                self.usage.cache_read_tokens = num(u, "/cache_read_input_tokens");
                self.usage.cache_write_tokens = num(u, "/cache_creation_input_tokens");
                self.usage.output_tokens = num(u, "/output_tokens");
            }
            "content_block_start" => {
                let index = num(v, "/index");
                let block = &v["content_block"];
                match text(block, "/type") {
                    Some("tool_use") => self.open.push((
                        index,
                        PendingCall {
                            id: text(block, "/id").unwrap_or_default().to_string(),
                            name: text(block, "/name").unwrap_or_default().to_string(),
                            args: String::new(),
                        },
                    )),
                    Some("text") => {
                        if let Some(t) = text(block, "/text").filter(|t| !t.is_empty()) {
                            self.text.push_str(t);
                            out.push(AgentEvent::TextDelta(t.into()));
                        }
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let d = &v["delta"];
                match text(d, "/type") {
                    Some("text_delta") => {
                        let t = text(d, "/text").unwrap_or_default();
                        self.text.push_str(t);
                        out.push(AgentEvent::TextDelta(t.into()));
                    }
                    Some("thinking_delta") => {
                        out.push(AgentEvent::ReasoningDelta(
                            text(d, "/thinking").unwrap_or_default().into(),
                        ));
                    }
                    Some("input_json_delta") => {
                        let index = num(v, "/index");
                        if let Some((_, c)) = self.open.iter_mut().find(|(i, _)| *i == index) {
                            c.args
                                .push_str(text(d, "/partial_json").unwrap_or_default());
                        }
                    }
                    // signature_delta, citations_delta...: nothing to show.
                    _ => {}
                }
            }
            "content_block_stop" => {
                let index = num(v, "/index");
                if let Some(pos) = self.open.iter().position(|(i, _)| *i == index) {
                    let (_, call) = self.open.remove(pos);
                    call.complete(&self.ctx.provider, &mut self.calls, out);
                }
            }
            "message_delta" => {
                if let Some(r) = text(v, "/delta/stop_reason") {
                    self.stop_reason = Some(r.into());
                }
                if let Some(o) = v.pointer("/usage/output_tokens").and_then(Value::as_u64) {
                    self.usage.output_tokens = o;
                }
            }
            "message_stop" => self.stopped = true,
            "error" => return Err(errors::from_stream_error(&v.to_string(), &self.ctx)),
            // ping and event kinds newer than this module.
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self) -> Option<Finish> {
        if !self.stopped {
            return None;
        }
        let usage = Some(self.usage);
        Some(match self.stop_reason.as_deref() {
            Some("max_tokens") => Finish {
                reason: EndReason::Completed,
                usage,
                note: Some(max_tokens_note(&self.ctx.provider)),
            },
            Some("refusal") => Finish {
                reason: EndReason::Completed,
                usage,
                note: Some(format!(
                    "`{}` declined to answer (refusal)",
                    self.ctx.provider
                )),
            },
            _ => Finish::completed(usage),
        })
    }

    fn assistant(&self) -> (String, Vec<ToolUse>) {
        (self.text.clone(), self.calls.clone())
    }
}

/// Model ids from `GET /v1/models` (Anthropic and OpenAI share the shape).
pub fn parse_model_list(v: &Value) -> Vec<String> {
    model_ids(v, "data", "id").map(str::to_string).collect()
}
