//! The vendor-neutral middle: a request normalized to a [`Turn`], and the
//! [`Plan`] of what to answer, which each vendor module renders in its own wire format.

use std::time::Duration;

use serde_json::Value;

use crate::scenario::{marker_in, Scenario};
use crate::script::ScriptCursor;
use crate::tools::{choose_tool, fill_schema, find_cwd, ChosenCall, ToolSpec};

/// A model request, reduced to what the fake model needs.
#[derive(Debug, Default)]
pub(crate) struct Turn {
    pub model: String,
    /// Text blocks of the last user message that has any text.
    pub prompt_blocks: Vec<String>,
    /// Output of the tool call the conversation ends with, if it does.
    pub tool_result: Option<String>,
    pub tools: Vec<ToolSpec>,
    /// Schema (or `{}`) when the client asks for a JSON answer.
    pub json_schema: Option<Value>,
    /// System prompt text, only searched for the working directory.
    pub system: String,
    /// The request body as JSON text: the basis of the token estimate, and
    /// searched for the working directory when the system prompt lacks it
    /// (Gemini CLI and Codex state it in a user message).
    pub raw: String,
}

impl Turn {
    /// A turn of request `body` (its `model` field and its raw text) with
    /// what the wire format's parser found in it.
    pub(crate) fn new(
        body: &Value,
        prompt_blocks: Vec<String>,
        tool_result: Option<String>,
        tools: Vec<ToolSpec>,
        json_schema: Option<Value>,
        system: String,
    ) -> Turn {
        Turn {
            model: body
                .get("model")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            prompt_blocks,
            tool_result,
            tools,
            json_schema,
            system,
            raw: body.to_string(),
        }
    }

    /// The user's words to quote: the last non-empty text block that is
    /// not context an agent added around them (a block wholly inside one
    /// tag, such as Kilo's `<environment_details>` after the prompt), else
    /// the last non-empty block.
    pub(crate) fn prompt(&self) -> &str {
        let mut blocks = self
            .prompt_blocks
            .iter()
            .rev()
            .map(|b| b.trim())
            .filter(|b| !b.is_empty());
        let last = blocks.clone().next().unwrap_or("");
        blocks.find(|b| !is_context_block(b)).unwrap_or(last)
    }
}

/// Whether `block` is one element, `<tag ...>...</tag>`: context an agent
/// wraps around the user's words, not the words.
fn is_context_block(block: &str) -> bool {
    let Some(rest) = block.strip_prefix('<') else {
        return false;
    };
    let tag: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    !tag.is_empty() && block.ends_with(&format!("</{tag}>"))
}

/// HTTP-level failures, rendered in each vendor's own shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ApiError {
    Unauthorized,
    Forbidden,
    RateLimited,
    ContextLength,
    Server,
    UnknownModel,
}

/// How the frames of a streaming answer are paced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pace {
    Normal,
    Slow(Duration),
    Stall,
    Malformed,
}

/// What to answer.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// Per-server counter value; every id in the answer derives from it.
    pub n: u64,
    pub model: String,
    pub reasoning: Vec<String>,
    pub text: Vec<String>,
    pub tool: Option<ChosenCall>,
    pub pace: Pace,
    pub input_tokens: u64,
}

impl Plan {
    pub(crate) fn reasoning_text(&self) -> String {
        self.reasoning.concat()
    }
    pub(crate) fn full_text(&self) -> String {
        self.text.concat()
    }
    pub(crate) fn reasoning_tokens(&self) -> u64 {
        tokens(self.reasoning_text().len())
    }
    pub(crate) fn output_tokens(&self) -> u64 {
        let args = self
            .tool
            .as_ref()
            .map(|t| t.args.to_string().len())
            .unwrap_or(0);
        tokens(self.full_text().len() + self.reasoning_text().len() + args)
    }
    /// Tool arguments as the JSON string most wires carry.
    pub(crate) fn tool_args_json(&self) -> String {
        self.tool
            .as_ref()
            .map(|t| t.args.to_string())
            .unwrap_or_default()
    }
}

/// The decision for one request.
// One short-lived value per request, never stored in bulk: its size does not
// matter (it grows past the lint's threshold when a build unifies serde_json's
// `preserve_order` feature, as the MCP SDK does).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub(crate) enum Outcome {
    Reply(Plan),
    Error(ApiError),
}

/// Knobs that shape generated replies.
#[derive(Debug, Clone)]
pub(crate) struct Knobs {
    pub text_deltas: usize,
    pub slow_deltas: usize,
    pub slow_delay: Duration,
    pub default: Scenario,
}

/// Rough, deterministic token estimate: four bytes a token.
pub(crate) fn tokens(chars: usize) -> u64 {
    (chars as u64 / 4).max(1)
}

/// Splits `text` into at most `n` pieces of near-equal length (never empty pieces).
pub(crate) fn split(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let n = n.clamp(1, chars.len().max(1));
    (0..n)
        .map(|i| {
            chars[i * chars.len() / n..(i + 1) * chars.len() / n]
                .iter()
                .collect()
        })
        .collect()
}

fn excerpt(s: &str, max: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut out: String = one_line.chars().take(max).collect();
    out.push_str("...");
    out
}

/// Chooses the scenario (marker, then script, then default) and builds the plan.
/// Returns the outcome and the scenario name for the log.
pub(crate) fn decide(
    turn: &Turn,
    n: u64,
    knobs: &Knobs,
    cursor: &ScriptCursor,
) -> (Outcome, String) {
    let mut plan = Plan {
        n,
        model: if turn.model.is_empty() {
            "fake-model".into()
        } else {
            turn.model.clone()
        },
        reasoning: Vec::new(),
        text: Vec::new(),
        tool: None,
        pace: Pace::Normal,
        input_tokens: tokens(turn.raw.len()),
    };
    // Structured output (Gemini CLI's router, next-speaker checks) always gets
    // valid JSON, and never consumes a script step.
    if let Some(schema) = &turn.json_schema {
        plan.text = split(&fill_schema(schema).to_string(), knobs.text_deltas);
        return (Outcome::Reply(plan), "json".into());
    }
    let prompt = turn.prompt();
    let offers = |name: &str| turn.tools.iter().any(|t| t.name.contains(name));
    let (scenario, custom, named) = match marker_in(&turn.prompt_blocks) {
        Some(s) => (s, None, None),
        None => match cursor.take(prompt, offers) {
            Some(step) => (step.scenario, step.text, step.tool.map(|t| (t, step.args))),
            None => (knobs.default, None, None),
        },
    };
    let reply = custom.unwrap_or_else(|| match &turn.tool_result {
        Some(result) => format!("Tool said: {}", excerpt(result, 400)),
        None if prompt.is_empty() => "Hello from fake-llm. You said nothing.".into(),
        None => format!("Hello from fake-llm. You said: {}", excerpt(prompt, 200)),
    });
    match scenario {
        Scenario::Text => plan.text = split(&reply, knobs.text_deltas),
        Scenario::Reasoning => {
            let thought = format!("Thinking about the request: {}", excerpt(prompt, 80));
            plan.reasoning = split(&thought, knobs.text_deltas);
            plan.text = split(&reply, knobs.text_deltas);
        }
        Scenario::Tool | Scenario::Write => {
            let cwd = find_cwd(&turn.system).or_else(|| find_cwd(&turn.raw));
            let call = turn
                .tool_result
                .is_none()
                .then(|| match named {
                    Some((name, args)) => crate::tools::named_call(&turn.tools, &name, args),
                    None => choose_tool(&turn.tools, scenario == Scenario::Write, cwd.as_deref()),
                })
                .flatten();
            match call {
                Some(call) => plan.tool = Some(call),
                None if turn.tool_result.is_none() => {
                    let msg = format!("fake-llm: no tools were offered, so no tool call. {reply}");
                    plan.text = split(&msg, knobs.text_deltas);
                }
                None => plan.text = split(&reply, knobs.text_deltas),
            }
        }
        Scenario::Slow => {
            plan.text = (0..knobs.slow_deltas.max(1))
                .map(|i| format!("tick {i} "))
                .collect();
            plan.pace = Pace::Slow(knobs.slow_delay);
        }
        Scenario::Stall => {
            plan.text = split(&reply, knobs.text_deltas);
            plan.pace = Pace::Stall;
        }
        Scenario::Malformed => {
            plan.text = split(&reply, knobs.text_deltas);
            plan.pace = Pace::Malformed;
        }
        Scenario::Unauthorized => {
            return (Outcome::Error(ApiError::Unauthorized), scenario.to_string())
        }
        Scenario::Forbidden => return (Outcome::Error(ApiError::Forbidden), scenario.to_string()),
        Scenario::RateLimited => {
            return (Outcome::Error(ApiError::RateLimited), scenario.to_string())
        }
        Scenario::ContextLength => {
            return (
                Outcome::Error(ApiError::ContextLength),
                scenario.to_string(),
            )
        }
        Scenario::ServerError => return (Outcome::Error(ApiError::Server), scenario.to_string()),
        Scenario::UnknownModel => {
            return (Outcome::Error(ApiError::UnknownModel), scenario.to_string())
        }
    }
    (Outcome::Reply(plan), scenario.to_string())
}

/// Text of a tool result that may be a string, an array of text blocks or any JSON.
pub(crate) fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(text_of).collect::<Vec<_>>().join(""),
        Value::Object(o) => {
            for key in ["text", "output", "content", "result"] {
                if let Some(inner) = o.get(key) {
                    return text_of(inner);
                }
            }
            v.to_string()
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_is_the_users_words_not_the_context_around_them() {
        let turn = |blocks: &[&str]| Turn {
            model: String::new(),
            prompt_blocks: blocks.iter().map(|s| s.to_string()).collect(),
            tool_result: None,
            tools: Vec::new(),
            json_schema: None,
            system: String::new(),
            raw: String::new(),
        };
        let t = turn(&[
            "say hello",
            "<environment_details>\ncwd: /w\n</environment_details>",
        ]);
        assert_eq!(t.prompt(), "say hello");
        let t = turn(&["<system-reminder>x</system-reminder>", "fix it", "  "]);
        assert_eq!(t.prompt(), "fix it");
        // A prompt that merely starts with a tag is the user's.
        let t = turn(&["<current_datetime>now</current_datetime> say hi"]);
        assert_eq!(
            t.prompt(),
            "<current_datetime>now</current_datetime> say hi"
        );
        // Nothing but context: the last block still.
        let t = turn(&["<a>1</a>", "<b>2</b>"]);
        assert_eq!(t.prompt(), "<b>2</b>");
        assert_eq!(turn(&[]).prompt(), "");
    }

    #[test]
    fn split_is_even_and_lossless() {
        let parts = split("Hello from fake-llm", 4);
        assert_eq!(parts.len(), 4);
        assert_eq!(parts.concat(), "Hello from fake-llm");
        assert_eq!(split("ab", 5), vec!["a", "b"]);
        assert_eq!(split("", 3), vec![""]);
        assert_eq!(split("héllo", 2).concat(), "héllo");
    }

    #[test]
    fn text_of_shapes() {
        assert_eq!(
            text_of(&serde_json::json!([{"type":"text","text":"a"},{"type":"text","text":"b"}])),
            "ab"
        );
        assert_eq!(text_of(&serde_json::json!({"output":"ok"})), "ok");
    }
}
