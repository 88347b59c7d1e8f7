//! Ollama `POST /api/chat` (NDJSON stream): request rendering and the pure
//! normalizer. `message.thinking` is reasoning; tool calls come whole and
//! without ids, so ids are generated.

use cohost_core::{AgentEvent, CohostError, Usage};
use serde_json::{json, Value};

use super::errors::{self, Ctx};
use super::normalize::{
    emit_call, max_tokens_note, model_ids, num, system_messages, text, tools_json, Finish,
    Normalizer, RequestCtx,
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
            // Ollama takes bare base64 images beside the text.
            Item::User { text, images } => json!({"role": "user", "content": text,
                "images": images.iter().map(|i| i.data.clone()).collect::<Vec<_>>()}),
            Item::Assistant { text, tool_calls } => {
                let mut m = json!({"role": "assistant", "content": text});
                if !tool_calls.is_empty() {
                    m["tool_calls"] = tool_calls
                        .iter()
                        .map(|c| json!({"function": {"name": c.name, "arguments": c.input}}))
                        .collect();
                }
                m
            }
            Item::ToolResult { name, output, .. } => {
                json!({"role": "tool", "content": output, "tool_name": name})
            }
        });
    }
    let mut body = json!({"model": ctx.model, "stream": true, "messages": messages});
    if let Some(tools) = tools_json(
        ctx,
        |t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}),
    ) {
        body["tools"] = tools;
    }
    if ctx.reasoning {
        body["think"] = json!(true);
    }
    body
}

/// The stream normalizer.
#[derive(Debug)]
pub struct OllamaNormalizer {
    ctx: Ctx,
    text: String,
    calls: Vec<ToolUse>,
    finish: Option<Finish>,
}

impl OllamaNormalizer {
    /// A normalizer for one turn.
    pub fn new(ctx: Ctx) -> Self {
        OllamaNormalizer {
            ctx,
            text: String::new(),
            calls: Vec::new(),
            finish: None,
        }
    }
}

impl Normalizer for OllamaNormalizer {
    fn on_json(
        &mut self,
        _event: Option<&str>,
        v: &Value,
        out: &mut Vec<AgentEvent>,
    ) -> Result<(), CohostError> {
        errors::check_error_member(v, &self.ctx)?;
        let m = &v["message"];
        if let Some(t) = text(m, "/thinking").filter(|t| !t.is_empty()) {
            out.push(AgentEvent::ReasoningDelta(t.into()));
        }
        if let Some(t) = text(m, "/content").filter(|t| !t.is_empty()) {
            self.text.push_str(t);
            out.push(AgentEvent::TextDelta(t.into()));
        }
        for c in m
            .get("tool_calls")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let name = text(c, "/function/name").unwrap_or_default().to_string();
            let id = text(c, "/id")
                .map(str::to_string)
                .unwrap_or_else(|| format!("call_{}_{}", self.calls.len() + 1, name));
            let input = match c.pointer("/function/arguments") {
                // Some servers send the arguments as a JSON string.
                Some(Value::String(s)) => {
                    serde_json::from_str(s).unwrap_or(Value::String(s.clone()))
                }
                Some(a) => a.clone(),
                None => json!({}),
            };
            emit_call(ToolUse { id, name, input }, &mut self.calls, out);
        }
        if v.get("done").and_then(Value::as_bool) == Some(true) {
            let usage = Usage {
                input_tokens: num(v, "/prompt_eval_count"),
                output_tokens: num(v, "/eval_count"),
                ..Usage::default()
            };
            let note = match text(v, "/done_reason") {
                Some("length") => Some(max_tokens_note(&self.ctx.provider)),
                _ => None,
            };
            self.finish = Some(Finish::completed_with_note(Some(usage), note));
        }
        Ok(())
    }

    fn finish(&mut self) -> Option<Finish> {
        self.finish.clone()
    }

    fn assistant(&self) -> (String, Vec<ToolUse>) {
        (self.text.clone(), self.calls.clone())
    }
}

/// Model names from `GET /api/tags`.
pub fn parse_model_list(v: &Value) -> Vec<String> {
    model_ids(v, "models", "name").map(str::to_string).collect()
}
