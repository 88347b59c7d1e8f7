//! Gemini API (`POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`):
//! request rendering and the pure stream normalizer. Thought parts
//! (`thought: true`) are reasoning; function calls arrive whole.

use cohost_core::{AgentEvent, CohostError, Usage};
use serde_json::{json, Value};

use super::errors::{self, Ctx};
use super::normalize::{
    emit_call, max_tokens_note, model_ids, num, push_part, text, tools_json, Finish, Normalizer,
    RequestCtx,
};
use super::transcript::{Item, ToolUse, Transcript};

/// The request body for the conversation so far.
pub fn request_body(t: &Transcript, ctx: &RequestCtx<'_>) -> Value {
    let mut contents: Vec<Value> = Vec::new();
    for item in &t.items {
        match item {
            Item::User { text, images } => {
                push_part(&mut contents, "user", "parts", json!({"text": text}));
                for i in images {
                    push_part(
                        &mut contents,
                        "user",
                        "parts",
                        json!({"inline_data": {"mime_type": i.media_type, "data": i.data}}),
                    );
                }
            }
            Item::Assistant { text, tool_calls } => {
                if !text.is_empty() {
                    push_part(&mut contents, "model", "parts", json!({"text": text}));
                }
                for c in tool_calls {
                    push_part(
                        &mut contents,
                        "model",
                        "parts",
                        json!({"functionCall": {"name": c.name, "args": c.input}}),
                    );
                }
            }
            Item::ToolResult {
                name,
                output,
                is_error,
                ..
            } => {
                let key = if *is_error { "error" } else { "output" };
                push_part(
                    &mut contents,
                    "user",
                    "parts",
                    json!({"functionResponse": {"name": name, "response": {key: output}}}),
                );
            }
        }
    }
    let mut body = json!({"contents": contents});
    if let Some(s) = ctx.system {
        body["systemInstruction"] = json!({"parts": [{"text": s}]});
    }
    if let Some(decls) = tools_json(
        ctx,
        |t| json!({"name": t.name, "description": t.description, "parameters": t.parameters}),
    ) {
        body["tools"] = json!([{"functionDeclarations": decls}]);
    }
    if ctx.reasoning {
        body["generationConfig"] = json!({"thinkingConfig": {"includeThoughts": true}});
    }
    body
}

/// The stream normalizer.
#[derive(Debug)]
pub struct GeminiNormalizer {
    ctx: Ctx,
    text: String,
    calls: Vec<ToolUse>,
    usage: Option<Usage>,
    finish_reason: Option<String>,
    blocked: Option<String>,
}

impl GeminiNormalizer {
    /// A normalizer for one turn.
    pub fn new(ctx: Ctx) -> Self {
        GeminiNormalizer {
            ctx,
            text: String::new(),
            calls: Vec::new(),
            usage: None,
            finish_reason: None,
            blocked: None,
        }
    }
}

impl Normalizer for GeminiNormalizer {
    fn on_json(
        &mut self,
        _event: Option<&str>,
        v: &Value,
        out: &mut Vec<AgentEvent>,
    ) -> Result<(), CohostError> {
        errors::check_error_member(v, &self.ctx)?;
        if let Some(r) = text(v, "/promptFeedback/blockReason") {
            self.blocked = Some(r.into());
        }
        if let Some(cand) = v.pointer("/candidates/0") {
            let parts = cand
                .pointer("/content/parts")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            for p in parts {
                if let Some(call) = p.get("functionCall") {
                    let name = text(call, "/name").unwrap_or_default().to_string();
                    // The Gemini API has no call ids (newer versions may send one).
                    let id = text(call, "/id")
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("call_{}_{}", self.calls.len() + 1, name));
                    let input = call.get("args").cloned().unwrap_or_else(|| json!({}));
                    emit_call(ToolUse { id, name, input }, &mut self.calls, out);
                } else if let Some(t) = text(p, "/text").filter(|t| !t.is_empty()) {
                    if p.get("thought").and_then(Value::as_bool) == Some(true) {
                        out.push(AgentEvent::ReasoningDelta(t.into()));
                    } else {
                        self.text.push_str(t);
                        out.push(AgentEvent::TextDelta(t.into()));
                    }
                }
            }
            if let Some(r) = text(cand, "/finishReason") {
                self.finish_reason = Some(r.into());
            }
        }
        if let Some(u) = v.get("usageMetadata").filter(|u| u.is_object()) {
            let cached = num(u, "/cachedContentTokenCount");
            self.usage = Some(Usage {
                input_tokens: num(u, "/promptTokenCount").saturating_sub(cached),
                output_tokens: num(u, "/candidatesTokenCount"),
                reasoning_tokens: num(u, "/thoughtsTokenCount"),
                cache_read_tokens: cached,
                cache_write_tokens: 0,
            });
        }
        Ok(())
    }

    fn finish(&mut self) -> Option<Finish> {
        if let Some(b) = &self.blocked {
            let note = format!("`{}` blocked the prompt ({b})", self.ctx.provider);
            return Some(Finish::completed_with_note(self.usage, Some(note)));
        }
        let reason = self.finish_reason.as_deref()?;
        let note = match reason {
            "STOP" | "FINISH_REASON_UNSPECIFIED" => None,
            "MAX_TOKENS" => Some(max_tokens_note(&self.ctx.provider)),
            other => Some(format!(
                "`{}` ended the answer early ({other})",
                self.ctx.provider
            )),
        };
        Some(Finish::completed_with_note(self.usage, note))
    }

    fn assistant(&self) -> (String, Vec<ToolUse>) {
        (self.text.clone(), self.calls.clone())
    }
}

/// Model ids from `GET /v1beta/models` (`models/` prefix removed).
pub fn parse_model_list(v: &Value) -> Vec<String> {
    model_ids(v, "models", "name")
        .map(|n| n.strip_prefix("models/").unwrap_or(n).to_string())
        .collect()
}
