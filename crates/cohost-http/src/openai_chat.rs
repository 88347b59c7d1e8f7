//! OpenAI Chat Completions (`POST {base}/chat/completions`, SSE), also
//! spoken by LM Studio, LiteLLM, OpenRouter, vLLM and most gateways.

use cohost_core::{AgentEvent, CohostError, Usage};
use serde_json::{json, Value};

use super::errors::{self, Ctx};
use super::normalize::{
    max_tokens_note, num, system_messages, text, tools_json, Finish, Normalizer, PendingCall,
    RequestCtx,
};
use super::transcript::{Item, ToolUse, Transcript};

/// The request body for the conversation so far.
pub fn request_body(t: &Transcript, ctx: &RequestCtx<'_>) -> Value {
    let mut messages = system_messages(ctx);
    for item in &t.items {
        messages.push(match item {
            Item::User { text, images } if images.is_empty() => {
                json!({"role": "user", "content": text})
            }
            Item::User { text, images } => {
                let mut parts = vec![json!({"type": "text", "text": text})];
                parts.extend(images.iter().map(
                    |i| json!({"type": "image_url", "image_url": {"url": super::data_url(i)}}),
                ));
                json!({"role": "user", "content": parts})
            }
            Item::Assistant { text, tool_calls } => {
                let mut m = json!({"role": "assistant", "content": text});
                if !tool_calls.is_empty() {
                    m["tool_calls"] = tool_calls
                        .iter()
                        .map(|c| {
                            json!({"id": c.id, "type": "function",
                            "function": {"name": c.name, "arguments": c.input.to_string()}})
                        })
                        .collect();
                }
                m
            }
            Item::ToolResult {
                call_id, output, ..
            } => json!({"role": "tool", "tool_call_id": call_id, "content": output}),
        });
    }
    let mut body = json!({
        "model": ctx.model,
        "stream": true,
        "stream_options": {"include_usage": true},
        "messages": messages,
    });
    if let Some(tools) = tools_json(
        ctx,
        |t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}),
    ) {
        body["tools"] = tools;
    }
    body
}

/// The stream normalizer.
#[derive(Debug)]
pub struct ChatNormalizer {
    ctx: Ctx,
    text: String,
    calls: Vec<ToolUse>,
    /// Calls by their `index` in the delta, in arrival order.
    open: Vec<(u64, PendingCall)>,
    usage: Option<Usage>,
    finish_reason: Option<String>,
    done: bool,
}

impl ChatNormalizer {
    /// A normalizer for one turn.
    pub fn new(ctx: Ctx) -> Self {
        ChatNormalizer {
            ctx,
            text: String::new(),
            calls: Vec::new(),
            open: Vec::new(),
            usage: None,
            finish_reason: None,
            done: false,
        }
    }

    fn flush_calls(&mut self, out: &mut Vec<AgentEvent>) {
        for (_, call) in std::mem::take(&mut self.open) {
            call.complete(&self.ctx.provider, &mut self.calls, out);
        }
    }
}

impl Normalizer for ChatNormalizer {
    fn on_json(
        &mut self,
        _event: Option<&str>,
        v: &Value,
        out: &mut Vec<AgentEvent>,
    ) -> Result<(), CohostError> {
        errors::check_error_member(v, &self.ctx)?;
        if let Some(choice) = v.pointer("/choices/0") {
            let d = &choice["delta"];
            // `reasoning_content` (DeepSeek, Qwen, vLLM) or `reasoning` (OpenRouter, Ollama's /v1).
            for key in ["/reasoning_content", "/reasoning"] {
                if let Some(r) = text(d, key).filter(|r| !r.is_empty()) {
                    out.push(AgentEvent::ReasoningDelta(r.into()));
                }
            }
            if let Some(t) = text(d, "/content").filter(|t| !t.is_empty()) {
                self.text.push_str(t);
                out.push(AgentEvent::TextDelta(t.into()));
            }
            if let Some(calls) = d.get("tool_calls").and_then(Value::as_array) {
                for c in calls {
                    let index = c.get("index").and_then(Value::as_u64).unwrap_or(0);
                    let pos = match self.open.iter().position(|(i, _)| *i == index) {
                        Some(p) => p,
                        None => {
                            self.open.push((index, PendingCall::default()));
                            self.open.len() - 1
                        }
                    };
                    let call = &mut self.open[pos].1;
                    if let Some(id) = text(c, "/id").filter(|s| !s.is_empty()) {
                        call.id = id.into();
                    }
                    if let Some(n) = text(c, "/function/name").filter(|s| !s.is_empty()) {
                        call.name.push_str(n);
                    }
                    call.args
                        .push_str(text(c, "/function/arguments").unwrap_or_default());
                }
            }
            if let Some(r) = text(choice, "/finish_reason") {
                self.finish_reason = Some(r.into());
                self.flush_calls(out);
            }
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            let cached = num(u, "/prompt_tokens_details/cached_tokens");
            self.usage = Some(Usage {
                input_tokens: num(u, "/prompt_tokens").saturating_sub(cached),
                output_tokens: num(u, "/completion_tokens"),
                reasoning_tokens: num(u, "/completion_tokens_details/reasoning_tokens"),
                cache_read_tokens: cached,
                cache_write_tokens: 0,
            });
        }
        Ok(())
    }

    fn on_text(&mut self, data: &str) -> bool {
        if data == "[DONE]" {
            self.done = true;
            return true;
        }
        false
    }

    fn finish(&mut self) -> Option<Finish> {
        // Some compatible servers end without `[DONE]`; a finish_reason is
        // as good an end.
        if !self.done && self.finish_reason.is_none() {
            return None;
        }
        let mut sink = Vec::new();
        self.flush_calls(&mut sink);
        let note = match self.finish_reason.as_deref() {
            Some("length") => Some(max_tokens_note(&self.ctx.provider)),
            Some("content_filter") => Some(format!(
                "`{}` filtered part of the answer (content_filter)",
                self.ctx.provider
            )),
            _ => None,
        };
        Some(Finish::completed_with_note(self.usage, note))
    }

    fn assistant(&self) -> (String, Vec<ToolUse>) {
        (self.text.clone(), self.calls.clone())
    }
}
