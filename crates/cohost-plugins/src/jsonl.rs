//! The declarative JSONL normalizer: a manifest's field paths applied to
//! each stdout line. Pure; the one-shot shell feeds it lines and the exit.

use cohost_core::{
    AgentEvent, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolKind, ToolStatus, Usage,
};
use serde_json::Value;

use super::manifest::JsonlMapping;

/// Look up a dotted (`a.b.0`) or JSON-pointer (`/a/b/0`) path.
pub(crate) fn lookup<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    if path.starts_with('/') {
        return v.pointer(path);
    }
    path.split('.')
        .filter(|s| !s.is_empty())
        .try_fold(v, |cur, seg| match cur {
            Value::Object(m) => m.get(seg),
            Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        })
}

fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Lines in, events out, for one turn.
#[derive(Debug)]
pub struct JsonlNormalizer {
    provider_id: String,
    map: JsonlMapping,
    session_id: Option<String>,
    model: Option<String>,
    started: bool,
    ended: bool,
    usage: Option<Usage>,
    /// Lines that were not JSON or matched no rule.
    pub skipped: u64,
}

impl JsonlNormalizer {
    /// A normalizer for one turn; `session_id` is the id being resumed.
    pub fn new(
        provider_id: &str,
        map: JsonlMapping,
        session_id: Option<String>,
        model: Option<String>,
    ) -> Self {
        JsonlNormalizer {
            provider_id: provider_id.to_string(),
            map,
            session_id,
            model,
            started: false,
            ended: false,
            usage: None,
            skipped: 0,
        }
    }

    /// The session id seen so far.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// Whether the end rule matched.
    pub fn ended(&self) -> bool {
        self.ended
    }

    fn start(&mut self, out: &mut Vec<AgentEvent>) {
        if !self.started {
            self.started = true;
            out.push(AgentEvent::Started {
                session_id: self.session_id.clone(),
                model: self.model.clone(),
            });
        }
    }

    /// Feed one line.
    pub fn on_line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        if self.ended || line.trim().is_empty() {
            return;
        }
        let Ok(v) = serde_json::from_str::<Value>(line.trim()) else {
            self.skipped += 1;
            return;
        };
        let Some(kind) = lookup(&v, &self.map.type_path).map(as_text) else {
            self.skipped += 1;
            return;
        };
        let m = self.map.clone();
        let is = |when: &str| kind == when;
        let mut matched = false;
        if let Some(r) = m.session_id.as_ref().filter(|r| is(&r.when)) {
            if let Some(id) = lookup(&v, &r.path).map(as_text).filter(|s| !s.is_empty()) {
                self.session_id = Some(id);
            }
            matched = true;
        }
        if let Some(r) = m.text.as_ref().filter(|r| is(&r.when)) {
            let t = lookup(&v, &r.path).map(as_text).unwrap_or_default();
            self.start(out);
            if !t.is_empty() {
                out.push(AgentEvent::TextDelta(t));
            }
            matched = true;
        }
        if let Some(r) = m.reasoning.as_ref().filter(|r| is(&r.when)) {
            let t = lookup(&v, &r.path).map(as_text).unwrap_or_default();
            self.start(out);
            if !t.is_empty() {
                out.push(AgentEvent::ReasoningDelta(t));
            }
            matched = true;
        }
        if let Some(r) = m.tool_call.as_ref().filter(|r| is(&r.when)) {
            let name = lookup(&v, &r.name)
                .map(as_text)
                .unwrap_or_else(|| "tool".into());
            self.start(out);
            out.push(AgentEvent::ToolCall(ToolCallInfo {
                tool_id: lookup(&v, &r.id).map(as_text).unwrap_or_default(),
                kind: ToolKind::from_tool_name(&name),
                name,
                input: r
                    .input
                    .as_ref()
                    .and_then(|p| lookup(&v, p).cloned())
                    .unwrap_or(Value::Null),
            }));
            matched = true;
        }
        if let Some(r) = m.tool_result.as_ref().filter(|r| is(&r.when)) {
            let failed = r
                .error
                .as_ref()
                .and_then(|p| lookup(&v, p))
                .is_some_and(|e| e.as_bool().unwrap_or(!e.is_null()));
            self.start(out);
            out.push(AgentEvent::ToolExecuted {
                tool_id: lookup(&v, &r.id).map(as_text).unwrap_or_default(),
                status: if failed {
                    ToolStatus::Error
                } else {
                    ToolStatus::Ok
                },
                output: r
                    .output
                    .as_ref()
                    .and_then(|p| lookup(&v, p))
                    .map(as_text)
                    .unwrap_or_default(),
            });
            matched = true;
        }
        if let Some(r) = m.error.as_ref().filter(|r| is(&r.when)) {
            let msg = lookup(&v, &r.path)
                .map(as_text)
                .unwrap_or_else(|| "unknown error".into());
            let code =
                cohost_process::classify_stderr(&msg).unwrap_or(ErrorCode::ToolExecutionFailed);
            self.start(out);
            out.push(AgentEvent::Error(
                CohostError::new(code, format!("agent `{}`: {msg}", self.provider_id))
                    .with_fix("see the agent's own documentation for this error"),
            ));
            matched = true;
        }
        if let Some(r) = m.end.as_ref().filter(|r| is(&r.when)) {
            let n = |p: &Option<String>| {
                p.as_ref()
                    .and_then(|p| lookup(&v, p))
                    .and_then(Value::as_u64)
                    .unwrap_or(0)
            };
            let u = Usage {
                input_tokens: n(&r.input_tokens),
                output_tokens: n(&r.output_tokens),
                ..Usage::default()
            };
            if !u.is_empty() {
                self.usage = Some(u);
            }
            matched = true;
            self.ended = true;
        }
        if !matched {
            self.skipped += 1;
        }
    }

    /// The process exited; finish the turn. `interrupted` when cohost
    /// signalled it, `failure` with the exit report when it failed.
    pub fn finish(
        &mut self,
        interrupted: bool,
        failure: Option<CohostError>,
        out: &mut Vec<AgentEvent>,
    ) {
        self.start(out);
        let reason = if interrupted {
            EndReason::Interrupted
        } else if let Some(e) = failure.filter(|_| !self.ended) {
            out.push(AgentEvent::Error(e));
            EndReason::Error
        } else {
            EndReason::Completed
        };
        if let Some(u) = self.usage {
            out.push(AgentEvent::Usage(u));
        }
        out.push(AgentEvent::Ended {
            reason,
            usage: self.usage,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{EndRule, ToolCallRule, ToolResultRule, ValueRule};
    use serde_json::json;

    fn rule(when: &str, path: &str) -> Option<ValueRule> {
        Some(ValueRule {
            when: when.into(),
            path: path.into(),
        })
    }

    fn mapping() -> JsonlMapping {
        JsonlMapping {
            type_path: "ev.kind".into(),
            text: rule("delta", "/ev/text"),
            reasoning: rule("think", "ev.text"),
            tool_call: Some(ToolCallRule {
                when: "tool".into(),
                id: "ev.id".into(),
                name: "ev.name".into(),
                input: Some("ev.args".into()),
            }),
            tool_result: Some(ToolResultRule {
                when: "tool_done".into(),
                id: "ev.id".into(),
                output: Some("ev.out".into()),
                error: Some("ev.failed".into()),
            }),
            end: Some(EndRule {
                when: "done".into(),
                input_tokens: Some("ev.usage.0".into()),
                output_tokens: Some("ev.usage.1".into()),
            }),
            session_id: rule("init", "ev.session"),
            error: rule("error", "ev.message"),
        }
    }

    #[test]
    fn paths_dotted_and_pointer() {
        let v = json!({"a": {"b": [10, {"c": "x"}]}});
        assert_eq!(lookup(&v, "a.b.1.c"), Some(&json!("x")));
        assert_eq!(lookup(&v, "/a/b/0"), Some(&json!(10)));
        assert_eq!(lookup(&v, "a.zz"), None);
        assert_eq!(lookup(&v, "a.b.9"), None);
    }

    #[test]
    fn a_turn_maps_every_rule_and_skips_garbage() {
        let mut n = JsonlNormalizer::new("p", mapping(), None, None);
        let mut out = Vec::new();
        for line in [
            r#"{"ev":{"kind":"init","session":"s-9"}}"#,
            "not json",
            r#"{"ev":{"kind":"think","text":"hmm"}}"#,
            r#"{"ev":{"kind":"delta","text":"Hel"}}"#,
            r#"{"ev":{"kind":"delta","text":"lo"}}"#,
            r#"{"ev":{"kind":"tool","id":"t1","name":"run_shell","args":{"cmd":"ls"}}}"#,
            r#"{"ev":{"kind":"tool_done","id":"t1","out":"a.txt","failed":false}}"#,
            r#"{"ev":{"kind":"mystery"}}"#,
            r#"{"other":1}"#,
            r#"{"ev":{"kind":"done","usage":[3,4]}}"#,
            r#"{"ev":{"kind":"delta","text":"after end"}}"#,
        ] {
            n.on_line(line, &mut out);
        }
        n.finish(false, None, &mut out);
        assert_eq!(n.skipped, 3);
        assert_eq!(
            out[0],
            AgentEvent::Started {
                session_id: Some("s-9".into()),
                model: None
            }
        );
        assert_eq!(out[1], AgentEvent::ReasoningDelta("hmm".into()));
        assert_eq!(out[2], AgentEvent::TextDelta("Hel".into()));
        assert!(
            matches!(&out[4], AgentEvent::ToolCall(c) if c.kind == ToolKind::Execute && c.input["cmd"] == "ls")
        );
        assert!(
            matches!(&out[5], AgentEvent::ToolExecuted { status: ToolStatus::Ok, output, .. } if output == "a.txt")
        );
        let u = Usage {
            input_tokens: 3,
            output_tokens: 4,
            ..Usage::default()
        };
        assert_eq!(
            out.last(),
            Some(&AgentEvent::Ended {
                reason: EndReason::Completed,
                usage: Some(u)
            })
        );
        assert!(!out
            .iter()
            .any(|e| *e == AgentEvent::TextDelta("after end".into())));
    }

    #[test]
    fn failure_without_end_is_an_error_and_interrupt_wins() {
        let mut n = JsonlNormalizer::new("p", mapping(), None, None);
        let mut out = Vec::new();
        let e = CohostError::new(ErrorCode::ProcessCrashed, "exit 3");
        n.finish(false, Some(e), &mut out);
        assert!(matches!(&out[1], AgentEvent::Error(e) if e.code == ErrorCode::ProcessCrashed));
        assert!(matches!(
            out.last(),
            Some(AgentEvent::Ended {
                reason: EndReason::Error,
                ..
            })
        ));
        let mut n = JsonlNormalizer::new("p", mapping(), None, None);
        let mut out = Vec::new();
        n.finish(
            true,
            Some(CohostError::new(ErrorCode::ProcessCrashed, "sigint")),
            &mut out,
        );
        assert!(matches!(
            out.last(),
            Some(AgentEvent::Ended {
                reason: EndReason::Interrupted,
                ..
            })
        ));
    }
}
