//! The pure state machine from `cn -p --format json` output to
//! [`AgentEvent`]s.
//!
//! Continue's headless JSON mode prints one object when the run is over:
//! `{"response": TEXT, "status": "success"}` (plus a `note` when the answer
//! was not JSON itself) or `{"status": "error", "message": TEXT}`. So a turn
//! is one chunk: no deltas, no tool events, no usage. Other stdout lines are
//! skipped (and counted).

use crate::catalog::CliEntry;
use cohost_core::{AgentEvent, CohostError, EndReason, ErrorCode};
use serde::Deserialize;

use crate::process::classify_stderr;
#[cfg(test)]
use crate::process::oneshot::TurnNormalizer;
use crate::process::oneshot::{
    error_end, generic_fix, parse_line, turn_marks, Closing, LineMap, TurnExit, TurnMarks,
};

/// The one object `cn --format json` prints.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RunOutput {
    /// `success` or `error`.
    pub status: String,
    /// The answer (success).
    #[serde(default)]
    pub response: Option<serde_json::Value>,
    /// The failure (error).
    #[serde(default)]
    pub message: Option<String>,
}

/// Normalizes one `cn -p` turn.
#[derive(Debug, Default)]
pub(crate) struct ContinueNormalizer {
    turn: TurnMarks,
    /// Lines that were not the result object.
    pub skipped_lines: usize,
}

impl ContinueNormalizer {
    /// A normalizer for a new turn.
    pub(crate) fn new() -> Self {
        Self::default()
    }
}

fn fix_for(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::AuthRequired => {
            "check the model's apiKey in the Continue config.yaml, or run `cn login`"
        }
        _ => generic_fix(code),
    }
}

impl LineMap for ContinueNormalizer {
    const NAME: &'static str = "continue";
    const SPEC: Option<&'static CliEntry> = Some(&crate::continue_cli::SPEC);
    turn_marks!(turn);
    fn map_line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        if let Some(r) = parse_line::<RunOutput>(line, false, &mut self.skipped_lines) {
            self.on_result(r, out);
        }
    }
    const FIX: fn(ErrorCode) -> &'static str = fix_for;
    fn close(&mut self, how: TurnExit<'_>, out: &mut Vec<AgentEvent>) -> Closing {
        let (stderr, interrupted) = (how.stderr, how.interrupted);
        // Failures print their JSON object on stderr, not stdout.
        let failure = stderr
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str::<RunOutput>(l.trim()).ok());
        if let (false, Some(r)) = (interrupted, failure) {
            self.turn.ended = false;
            self.on_result(r, out);
            self.turn.ended = true;
            return Closing::Closed;
        }
        Closing::Usual { interrupted }
    }
}

impl ContinueNormalizer {
    fn on_result(&mut self, r: RunOutput, out: &mut Vec<AgentEvent>) {
        self.open(out);
        self.turn.ended = true;
        if r.status == "success" {
            let text = match r.response {
                Some(serde_json::Value::String(s)) => s,
                // `response` is the parsed answer when the model replied in JSON.
                Some(serde_json::Value::Null) | None => String::new(),
                Some(v) => v.to_string(),
            };
            if !text.is_empty() {
                out.push(AgentEvent::TextDelta(text));
            }
            out.push(AgentEvent::Ended {
                reason: EndReason::Completed,
                usage: None,
            });
        } else {
            let msg = r.message.unwrap_or_else(|| format!("status {}", r.status));
            let code = classify_stderr(&msg).unwrap_or(ErrorCode::ProcessCrashed);
            out.extend(error_end(
                CohostError::new(code, format!("continue: {msg}")).with_fix(fix_for(code)),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::oneshot::replay_fixture;
    use crate::process::ExitInfo;

    #[test]
    fn success_object_is_one_chunk() {
        let ev = replay_fixture("continue", "1.5.47", "text", ContinueNormalizer::new());
        assert_eq!(
            ev[1],
            AgentEvent::TextDelta("Hello from fake-llm. You said: say hello".into())
        );
        assert!(matches!(
            ev.last(),
            Some(AgentEvent::Ended {
                reason: EndReason::Completed,
                usage: None
            })
        ));
        assert_eq!(ev.len(), 3);
    }

    #[test]
    fn tool_turns_show_only_the_final_answer() {
        // cn's JSON mode reports no tool events: the shell ran, only the
        // answer after it is visible.
        let ev = replay_fixture(
            "continue",
            "1.5.47",
            "tool_headless_default",
            ContinueNormalizer::new(),
        );
        assert_eq!(ev[1], AgentEvent::TextDelta("Tool said:".into()));
        assert_eq!(ev.len(), 3);
    }

    #[test]
    fn resumed_turn_answers() {
        let ev = replay_fixture("continue", "1.5.47", "resume", ContinueNormalizer::new());
        assert_eq!(
            ev[1],
            AgentEvent::TextDelta("Hello from fake-llm. You said: second turn".into())
        );
    }

    #[test]
    fn error_object_is_classified() {
        let ev = replay_fixture("continue", "1.5.47", "error_401", ContinueNormalizer::new());
        assert!(ev.iter().any(|e| matches!(e, AgentEvent::Error(err)
            if err.code == ErrorCode::AuthRequired && err.message.contains("401"))));
        assert!(matches!(
            ev.last(),
            Some(AgentEvent::Ended {
                reason: EndReason::Error,
                ..
            })
        ));
    }

    #[test]
    fn junk_is_skipped_and_json_answers_are_kept() {
        let mut n = ContinueNormalizer::new();
        assert!(n.on_line("warming up…").is_empty());
        assert!(n.on_line("{\"no_status\":1}").is_empty());
        let ev = n.on_line("{\"status\":\"success\",\"response\":{\"a\":1}}");
        assert_eq!(ev[1], AgentEvent::TextDelta("{\"a\":1}".into()));
        assert!(n.ended());
        assert_eq!(n.skipped_lines, 2);
        // Exit without the object and without a known cause: a crash.
        let mut n = ContinueNormalizer::new();
        let exit = Some(ExitInfo {
            code: Some(1),
            signal: None,
        });
        assert!(n
            .on_exit(exit, "TypeError: x is undefined", false)
            .is_none());
    }
}
