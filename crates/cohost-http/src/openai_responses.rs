//! OpenAI Responses API (`POST {base}/responses`, SSE), stateless
//! (`store: false`): the whole conversation goes as `input` items.

use cohost_core::{AgentEvent, CohostError, EndReason, Usage};
use serde_json::{json, Value};

use super::errors::{self, Ctx};
use super::normalize::{
    max_tokens_note, num, text, tools_json, Finish, Normalizer, PendingCall, RequestCtx,
};
use super::transcript::{Item, ToolUse, Transcript};

/// The request body for the conversation so far.
pub fn request_body(t: &Transcript, ctx: &RequestCtx<'_>) -> Value {
    let mut input: Vec<Value> = Vec::new();
    for item in &t.items {
        match item {
            Item::User { text, images } => {
                let mut parts = vec![json!({"type": "input_text", "text": text})];
                parts.extend(
                    images
                        .iter()
                        .map(|i| json!({"type": "input_image", "image_url": super::data_url(i)})),
                );
                input.push(json!({"type": "message", "role": "user", "content": parts}));
            }
            Item::Assistant { text, tool_calls } => {
                if !text.is_empty() {
                    input.push(json!({"type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": text}]}));
                }
                for c in tool_calls {
                    input.push(json!({"type": "function_call", "call_id": c.id,
                        "name": c.name, "arguments": c.input.to_string()}));
                }
            }
            Item::ToolResult {
                call_id, output, ..
            } => input.push(
                json!({"type": "function_call_output", "call_id": call_id, "output": output}),
            ),
        }
    }
    let mut body = json!({
        "model": ctx.model,
        "stream": true,
        "store": false,
        "input": input,
    });
    if let Some(s) = ctx.system {
        body["instructions"] = json!(s);
    }
    if let Some(tools) = tools_json(
        ctx,
        |t| json!({"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters}),
    ) {
        body["tools"] = tools;
    }
    if ctx.reasoning {
        body["reasoning"] = json!({"summary": "auto"});
    }
    body
}

/// The stream normalizer.
#[derive(Debug)]
pub struct ResponsesNormalizer {
    ctx: Ctx,
    text: String,
    calls: Vec<ToolUse>,
    /// Function calls by item id.
    open: Vec<(String, PendingCall)>,
    finish: Option<Finish>,
}

impl ResponsesNormalizer {
    /// A normalizer for one turn.
    pub fn new(ctx: Ctx) -> Self {
        ResponsesNormalizer {
            ctx,
            text: String::new(),
            calls: Vec::new(),
            open: Vec::new(),
            finish: None,
        }
    }

    fn usage(resp: &Value) -> Option<Usage> {
        let u = resp.get("usage").filter(|u| u.is_object())?;
        let cached = num(u, "/input_tokens_details/cached_tokens");
        Some(Usage {
            input_tokens: num(u, "/input_tokens").saturating_sub(cached),
            output_tokens: num(u, "/output_tokens"),
            reasoning_tokens: num(u, "/output_tokens_details/reasoning_tokens"),
            cache_read_tokens: cached,
            cache_write_tokens: 0,
        })
    }
}

impl Normalizer for ResponsesNormalizer {
    fn on_json(
        &mut self,
        event: Option<&str>,
        v: &Value,
        out: &mut Vec<AgentEvent>,
    ) -> Result<(), CohostError> {
        let kind = text(v, "/type").or(event).unwrap_or("");
        match kind {
            "response.output_text.delta" => {
                let t = text(v, "/delta").unwrap_or_default();
                self.text.push_str(t);
                out.push(AgentEvent::TextDelta(t.into()));
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                out.push(AgentEvent::ReasoningDelta(
                    text(v, "/delta").unwrap_or_default().into(),
                ));
            }
            "response.output_item.added" => {
                let item = &v["item"];
                if text(item, "/type") == Some("function_call") {
                    self.open.push((
                        text(item, "/id").unwrap_or_default().into(),
                        PendingCall {
                            id: text(item, "/call_id").unwrap_or_default().into(),
                            name: text(item, "/name").unwrap_or_default().into(),
                            args: String::new(),
                        },
                    ));
                }
            }
            "response.function_call_arguments.delta" => {
                let id = text(v, "/item_id").unwrap_or_default();
                if let Some((_, c)) = self.open.iter_mut().find(|(i, _)| i == id) {
                    c.args.push_str(text(v, "/delta").unwrap_or_default());
                }
            }
            "response.output_item.done" => {
                let item = &v["item"];
                if text(item, "/type") == Some("function_call") {
                    let id = text(item, "/id").unwrap_or_default();
                    let mut call = match self.open.iter().position(|(i, _)| i == id) {
                        Some(p) => self.open.remove(p).1,
                        None => PendingCall::default(),
                    };
                    // The done item carries the whole call: trust it over the deltas.
                    if let Some(c) = text(item, "/call_id") {
                        call.id = c.into();
                    }
                    if let Some(n) = text(item, "/name") {
                        call.name = n.into();
                    }
                    if let Some(a) = text(item, "/arguments") {
                        call.args = a.into();
                    }
                    call.complete(&self.ctx.provider, &mut self.calls, out);
                }
            }
            "response.completed" => {
                self.finish = Some(Finish::completed(Self::usage(&v["response"])));
            }
            "response.incomplete" => {
                let why = text(v, "/response/incomplete_details/reason").unwrap_or("unknown");
                self.finish = Some(Finish {
                    reason: EndReason::Completed,
                    usage: Self::usage(&v["response"]),
                    note: Some(if why == "max_output_tokens" {
                        max_tokens_note(&self.ctx.provider)
                    } else {
                        format!("`{}` ended the answer early ({why})", self.ctx.provider)
                    }),
                });
            }
            "response.failed" => {
                let err = v.pointer("/response/error").cloned().unwrap_or(Value::Null);
                return Err(errors::from_stream_error(
                    &json!({"error": err}).to_string(),
                    &self.ctx,
                ));
            }
            "error" => return Err(errors::from_stream_error(&v.to_string(), &self.ctx)),
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self) -> Option<Finish> {
        if self.finish.is_some() {
            let mut sink = Vec::new();
            for (_, call) in std::mem::take(&mut self.open) {
                call.complete(&self.ctx.provider, &mut self.calls, &mut sink);
            }
        }
        self.finish.clone()
    }

    fn assistant(&self) -> (String, Vec<ToolUse>) {
        (self.text.clone(), self.calls.clone())
    }
}
