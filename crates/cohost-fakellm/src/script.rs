//! The script: a default scenario and an ordered list of steps, read from JSON.
//!
//! Format:
//! ```json
//! {
//!   "default": "text",
//!   "steps": ["tool", {"scenario": "text", "match": "summarize", "text": "custom reply"}],
//!   "loop": false
//! }
//! ```
//! A bare JSON array of steps is accepted as well. Each request that is not a
//! structured-output request (Gemini's router) takes the next step; a step with
//! `match` is only taken by a request whose prompt contains that substring
//! (other requests get the default and leave the step in place), which keeps
//! parallel side requests (titles, summaries) from eating the script.

use std::path::Path;
use std::sync::Mutex;

use serde_json::{Map, Value};

use crate::scenario::{Scenario, UnknownScenario};
use crate::FakeLlmError;

/// One entry of a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptStep {
    /// What to do.
    pub scenario: Scenario,
    /// Only a request whose prompt contains this substring takes the step.
    pub match_prompt: Option<String>,
    /// Reply text to use instead of the generated one (text-like scenarios).
    pub text: Option<String>,
    /// `tool` scenario: call the offered tool whose name contains this
    /// (an MCP tool such as `mcp__cohost__ask_agent`); only a request that
    /// offers such a tool takes the step.
    pub tool: Option<String>,
    /// The arguments of that call (default: filled from its schema).
    pub args: Option<Value>,
}

impl ScriptStep {
    /// A step with no filter and generated text.
    pub fn new(scenario: Scenario) -> Self {
        ScriptStep {
            scenario,
            match_prompt: None,
            text: None,
            tool: None,
            args: None,
        }
    }
}

/// A parsed script: a default scenario and an ordered list of steps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Script {
    /// Used when no marker is present and no step applies.
    pub default: Option<ScriptStep>,
    /// Consumed one per (matching) request, in order.
    pub steps: Vec<ScriptStep>,
    /// Start again from the first step after the last one.
    pub repeat: bool,
}

fn invalid(path: &Path, message: String) -> FakeLlmError {
    FakeLlmError::ScriptInvalid {
        path: path.to_path_buf(),
        message,
    }
}

/// Rejects keys a reader would silently ignore: a typo must not pass for a script.
fn check_keys(
    obj: &Map<String, Value>,
    allowed: &[&str],
    path: &Path,
    at: &str,
) -> Result<(), FakeLlmError> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(invalid(
            path,
            format!("{at}: unknown key `{k}`; expected {}", allowed.join(", ")),
        )),
        None => Ok(()),
    }
}

fn opt_string(
    obj: &Map<String, Value>,
    key: &str,
    path: &Path,
    at: &str,
) -> Result<Option<String>, FakeLlmError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(invalid(
            path,
            format!("{at}.{key}: expected a string, found {other}"),
        )),
    }
}

fn parse_step(v: &Value, path: &Path, at: &str) -> Result<ScriptStep, FakeLlmError> {
    let mut tool = None;
    let mut args = None;
    let (name, match_prompt, text) = match v {
        Value::String(name) => (name.clone(), None, None),
        Value::Object(obj) => {
            check_keys(obj, &["scenario", "match", "text", "tool", "args"], path, at)?;
            let name = opt_string(obj, "scenario", path, at)?
                .ok_or_else(|| invalid(path, format!("{at}: missing `scenario`")))?;
            tool = opt_string(obj, "tool", path, at)?;
            args = match obj.get("args") {
                None | Some(Value::Null) => None,
                Some(a @ Value::Object(_)) => Some(a.clone()),
                Some(other) => {
                    return Err(invalid(
                        path,
                        format!("{at}.args: expected an object, found {other}"),
                    ))
                }
            };
            (name, opt_string(obj, "match", path, at)?, opt_string(obj, "text", path, at)?)
        }
        other => {
            return Err(invalid(
                path,
                format!("{at}: expected a scenario name or {{\"scenario\": NAME, \"match\": TEXT, \"text\": TEXT}}, found {other}"),
            ))
        }
    };
    let scenario = name
        .parse()
        .map_err(|e: UnknownScenario| invalid(path, format!("{at}: {e}")))?;
    Ok(ScriptStep {
        scenario,
        match_prompt,
        text,
        tool,
        args,
    })
}

/// Parses script text; `path` is only used in error messages.
pub fn parse_script(text: &str, path: &Path) -> Result<Script, FakeLlmError> {
    let value: Value = serde_json::from_str(text).map_err(|e| FakeLlmError::ScriptParse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let parse_steps = |v: &Value| -> Result<Vec<ScriptStep>, FakeLlmError> {
        let items = v
            .as_array()
            .ok_or_else(|| invalid(path, format!("steps: expected an array, found {v}")))?;
        items
            .iter()
            .enumerate()
            .map(|(i, s)| parse_step(s, path, &format!("steps[{i}]")))
            .collect()
    };
    match &value {
        Value::Array(_) => Ok(Script {
            default: None,
            steps: parse_steps(&value)?,
            repeat: false,
        }),
        Value::Object(obj) => {
            check_keys(
                obj,
                &["default", "steps", "scenarios", "loop", "repeat"],
                path,
                "script",
            )?;
            let default = obj
                .get("default")
                .map(|d| parse_step(d, path, "default"))
                .transpose()?;
            let steps = match obj.get("steps").or_else(|| obj.get("scenarios")) {
                Some(v) => parse_steps(v)?,
                None => Vec::new(),
            };
            let repeat = match obj.get("loop").or_else(|| obj.get("repeat")) {
                None => false,
                Some(Value::Bool(b)) => *b,
                Some(other) => {
                    return Err(invalid(
                        path,
                        format!("loop: expected true or false, found {other}"),
                    ))
                }
            };
            Ok(Script {
                default,
                steps,
                repeat,
            })
        }
        other => Err(invalid(
            path,
            format!("expected an object or an array of steps, found {other}"),
        )),
    }
}

/// Reads and parses a script file (JSON, see the module docs).
pub fn load_script(path: &Path) -> Result<Script, FakeLlmError> {
    let text = std::fs::read_to_string(path).map_err(|source| FakeLlmError::ScriptRead {
        path: path.to_path_buf(),
        source,
    })?;
    parse_script(&text, path)
}

/// The script's position, shared by all requests of one server.
#[derive(Debug, Default)]
pub(crate) struct ScriptCursor {
    script: Script,
    next: Mutex<usize>,
}

impl ScriptCursor {
    pub(crate) fn new(script: Script) -> Self {
        ScriptCursor {
            script,
            next: Mutex::new(0),
        }
    }

    /// The step for a request with this prompt, consuming it when it applies.
    /// The step for a request with `prompt`; `offers(name)` says whether the
    /// request offers a tool whose name contains `name`.
    pub(crate) fn take(&self, prompt: &str, offers: impl Fn(&str) -> bool) -> Option<ScriptStep> {
        let steps = &self.script.steps;
        if !steps.is_empty() {
            // A poisoned lock only means another request panicked mid-update;
            // the index itself is still a valid number.
            let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
            if *next >= steps.len() && self.script.repeat {
                *next = 0;
            }
            if let Some(step) = steps.get(*next) {
                let applies = step
                    .match_prompt
                    .as_deref()
                    .is_none_or(|m| prompt.contains(m))
                    && step.tool.as_deref().is_none_or(&offers);
                if applies {
                    *next += 1;
                    return Some(step.clone());
                }
            }
        }
        self.script.default.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_matches_and_repeats() {
        let p = Path::new("s.json");
        let script = parse_script(
            r#"{"default":"slow","steps":["tool",{"scenario":"text","match":"b"}],"loop":true}"#,
            p,
        )
        .unwrap();
        let c = ScriptCursor::new(script);
        let any = |_: &str| true;
        assert_eq!(c.take("a", any).unwrap().scenario, Scenario::Tool);
        assert_eq!(c.take("a", any).unwrap().scenario, Scenario::Slow);
        assert_eq!(c.take("b", any).unwrap().scenario, Scenario::Text);
        assert_eq!(c.take("a", any).unwrap().scenario, Scenario::Tool);
    }

    #[test]
    fn a_named_tool_step_waits_for_a_request_offering_the_tool() {
        let p = Path::new("s.json");
        let script = parse_script(
            r#"{"default":"text","steps":[{"scenario":"tool","tool":"ask_agent","args":{"prompt":"hi"}}]}"#,
            p,
        )
        .unwrap();
        assert_eq!(
            script.steps[0].args,
            Some(serde_json::json!({"prompt": "hi"}))
        );
        let c = ScriptCursor::new(script);
        let none = |_: &str| false;
        assert_eq!(c.take("title", none).unwrap().scenario, Scenario::Text);
        let offered = |t: &str| "mcp__cohost__ask_agent".contains(t);
        let step = c.take("go", offered).unwrap();
        assert_eq!(step.tool.as_deref(), Some("ask_agent"));
        assert!(parse_script(r#"[{"scenario":"tool","args":[1]}]"#, p).is_err());
    }
}
