//! Antigravity's (`agy`) stream-json wire format, as the public sources that
//! drive it name things (seed 003; EstebanForge/pi-antigravity-bridge
//! `src/stream-events.ts` and `src/driver.ts`).
//!
//! Out (stdout), one JSON object per line, tagged by `event`:
//! - `init`: the conversation binding, `{"event":"init","init":{"conversation_id":…}}`;
//!   some builds put `conversation_id` at the root instead;
//! - `step_update`: `{"event":"step_update","step_update":{step_index, state
//!   (ACTIVE / DONE / ERROR), step_type (user_input / checkpoint /
//!   agent_response / tool / …), text_delta, response_text, tool_name,
//!   tool_info{name, parameters, output}, error_message, usage}}`;
//! - `result`: terminal, `{"event":"result","result":{status, response,
//!   error, usage, conversation_id}}`; `status` is `SUCCESS` (older builds
//!   `OK`) or `ERROR` / `FAILURE` / `CANCELLED` / `TIMEOUT`.
//!
//! In (stdin), one line per turn: `{"event":"user","message":{"role":"user","content":TEXT}}`.
//!
//! Readers are tolerant: an unknown `event` is [`AgyEvent::Unknown`],
//! unknown fields are ignored, and the root shorthand the sources accept
//! (a step or result object without its envelope) parses too. What cannot
//! be an agy event at all is a typed [`WireError`], never a panic.

use serde::Deserialize;
use serde_json::{Map, Value};

/// Why a stdout line is not an agy event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// The line is not JSON at all (a banner, a torn write).
    #[error("not JSON ({0})")]
    NotJson(String),
    /// The line is JSON but not an object.
    #[error("a JSON {0}, not an object")]
    NotAnObject(&'static str),
    /// A known event whose payload has the wrong shape.
    #[error("`{event}` event of an unexpected shape: {reason}")]
    BadShape {
        /// The event kind (`init`, `step_update`, `result`).
        event: &'static str,
        /// What serde found wrong.
        reason: String,
    },
}

/// One stdout line, parsed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AgyEvent {
    /// `init`: the conversation the process serves.
    Init(Init),
    /// `step_update`: one step of the running turn changed.
    Step(Step),
    /// `result`: the turn is over.
    Result(TurnResult),
    /// An event kind (or an untagged object) this version does not know.
    Unknown,
}

/// The payload of `init`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Init {
    /// The conversation id later runs resume with `--conversation`.
    pub conversation_id: Option<String>,
    /// The model, when the build reports it.
    pub model: Option<String>,
    /// Token usage, when the build reports it this early.
    pub usage: Option<WireUsage>,
}

/// The payload of `step_update`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Step {
    /// The step's index in the conversation; later updates of the same
    /// step repeat it (a `DONE` update may carry only this and `state`).
    pub step_index: Option<u64>,
    /// `ACTIVE`, `DONE` or `ERROR`.
    pub state: Option<String>,
    /// `user_input`, `checkpoint`, `agent_response`, `tool`, `system_message`…
    pub step_type: Option<String>,
    /// The conversation, on builds that repeat it per step.
    pub conversation_id: Option<String>,
    /// A tool step's tool.
    pub tool_name: Option<String>,
    /// A tool step's details: `name`, `parameters`, sometimes `output`.
    pub tool_info: Option<Value>,
    /// Answer text (a delta; see the normalizer for builds that resend).
    pub text_delta: Option<String>,
    /// Answer text on builds without `text_delta`; a tool's output.
    pub response_text: Option<String>,
    /// Reasoning text, where the build streams it.
    pub thought_text: Option<String>,
    /// Why a step failed (`state: ERROR`).
    pub error_message: Option<String>,
    /// Token usage of the turn so far.
    pub usage: Option<WireUsage>,
}

/// The payload of `result`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct TurnResult {
    /// `SUCCESS` / `OK`, or `ERROR`, `FAILURE`, `CANCELLED`, `TIMEOUT`.
    pub status: Option<String>,
    /// The whole answer (empty on turns that ended in a tool step).
    pub response: Option<String>,
    /// Why the turn failed.
    pub error: Option<String>,
    /// The turn's final usage.
    pub usage: Option<WireUsage>,
    /// The conversation.
    pub conversation_id: Option<String>,
}

/// agy's token counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct WireUsage {
    /// Prompt tokens.
    pub input_tokens: Option<u64>,
    /// Answer tokens.
    pub output_tokens: Option<u64>,
    /// Reasoning tokens.
    pub thinking_tokens: Option<u64>,
    /// Prompt tokens served from agy's cache.
    pub cache_read_tokens: Option<u64>,
    /// Everything (not kept: cohost derives it).
    pub total_tokens: Option<u64>,
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn shaped<T: for<'de> Deserialize<'de>>(event: &'static str, v: Value) -> Result<T, WireError> {
    serde_json::from_value(v).map_err(|e| WireError::BadShape {
        event,
        reason: e.to_string(),
    })
}

/// The envelope's payload under `key`, or the root object itself when the
/// build used the shorthand without one.
fn payload(
    event: &'static str,
    key: &str,
    mut root: Map<String, Value>,
) -> Result<Value, WireError> {
    match root.remove(key) {
        Some(v @ Value::Object(_)) => Ok(v),
        Some(other) => Err(WireError::BadShape {
            event,
            reason: format!("`{key}` is a {}, not an object", kind_of(&other)),
        }),
        None => Ok(Value::Object(root)),
    }
}

/// Parse one stdout line (without its newline).
pub fn parse_line(line: &str) -> Result<AgyEvent, WireError> {
    let value: Value =
        serde_json::from_str(line.trim()).map_err(|e| WireError::NotJson(e.to_string()))?;
    let Value::Object(mut root) = value else {
        return Err(WireError::NotAnObject(kind_of(&value)));
    };
    let event = match root.remove("event") {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    match event.as_deref() {
        Some("init") => {
            // Both spellings are live: the id at the root beside an `init`
            // object, or inside it.
            let root_id = root.get("conversation_id").cloned();
            let root_model = root.get("model").cloned();
            let mut init: Init = shaped("init", payload("init", "init", root)?)?;
            if init.conversation_id.is_none() {
                init.conversation_id = root_id.and_then(|v| v.as_str().map(str::to_string));
            }
            if init.model.is_none() {
                init.model = root_model.and_then(|v| v.as_str().map(str::to_string));
            }
            Ok(AgyEvent::Init(init))
        }
        Some("step_update") => Ok(AgyEvent::Step(shaped(
            "step_update",
            payload("step_update", "step_update", root)?,
        )?)),
        Some("result") => Ok(AgyEvent::Result(shaped(
            "result",
            payload("result", "result", root)?,
        )?)),
        Some(_) => Ok(AgyEvent::Unknown),
        // The untagged shorthand the sources also accept.
        None if root.get("step_type").is_some_and(Value::is_string) => {
            Ok(AgyEvent::Step(shaped("step_update", Value::Object(root))?))
        }
        None if root.get("status").is_some_and(Value::is_string) => {
            Ok(AgyEvent::Result(shaped("result", Value::Object(root))?))
        }
        None => Ok(AgyEvent::Unknown),
    }
}

/// The stdin line of one turn.
pub fn user_line(content: &str) -> String {
    serde_json::json!({
        "event": "user",
        "message": {"role": "user", "content": content},
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_init_spellings_bind() {
        let nested = parse_line(r#"{"event":"init","init":{"conversation_id":"abc"}}"#);
        let root = parse_line(r#"{"event":"init","conversation_id":"x","init":{"cwd":"/t"}}"#);
        let id = |e: Result<AgyEvent, WireError>| match e {
            Ok(AgyEvent::Init(i)) => i.conversation_id,
            other => panic!("{other:?}"),
        };
        assert_eq!(id(nested).as_deref(), Some("abc"));
        assert_eq!(id(root).as_deref(), Some("x"));
    }

    #[test]
    fn shorthand_and_unknown_kinds() {
        assert!(matches!(
            parse_line(r#"{"step_type":"checkpoint","state":"DONE"}"#),
            Ok(AgyEvent::Step(_))
        ));
        assert!(matches!(
            parse_line(r#"{"status":"OK"}"#),
            Ok(AgyEvent::Result(_))
        ));
        assert_eq!(
            parse_line(r#"{"event":"warp","x":1}"#),
            Ok(AgyEvent::Unknown)
        );
        assert_eq!(parse_line(r#"{"hello":1}"#), Ok(AgyEvent::Unknown));
    }

    #[test]
    fn malformed_lines_are_typed_errors() {
        assert!(matches!(parse_line("agy v1.2"), Err(WireError::NotJson(_))));
        assert!(matches!(parse_line(""), Err(WireError::NotJson(_))));
        assert_eq!(parse_line("[1,2]"), Err(WireError::NotAnObject("array")));
        assert_eq!(parse_line("7"), Err(WireError::NotAnObject("number")));
        assert!(matches!(
            parse_line(r#"{"event":"step_update","step_update":5}"#),
            Err(WireError::BadShape {
                event: "step_update",
                ..
            })
        ));
        assert!(matches!(
            parse_line(r#"{"event":"step_update","step_update":{"text_delta":[1]}}"#),
            Err(WireError::BadShape { .. })
        ));
        assert!(matches!(
            parse_line(r#"{"event":"result","result":{"usage":{"input_tokens":-1}}}"#),
            Err(WireError::BadShape {
                event: "result",
                ..
            })
        ));
    }

    #[test]
    fn the_input_line_is_the_documented_shape() {
        let v: Value = serde_json::from_str(&user_line("hi \"there\"\n")).unwrap_or_default();
        assert_eq!(
            v,
            serde_json::json!({"event":"user","message":{"role":"user","content":"hi \"there\"\n"}})
        );
        assert!(!user_line("a\nb").contains('\n'), "one line per turn");
    }
}
