//! Kiro's plain-text output → [`AgentEvent`]s: each stdout line, cleaned of
//! escape sequences by the PTY tier's VT parser, is one chunk; the leading
//! `> ` Kiro prints before an answer is dropped. Exit 0 completes the turn;
//! a non-zero exit is an error turn when stderr names a known cause, else a
//! crash.

use crate::catalog::CliEntry;
use cohost_core::{AgentEvent, CohostError, EndReason, ErrorCode};

#[cfg(test)]
use crate::process::oneshot::TurnNormalizer;
use crate::process::oneshot::{
    error_end, generic_fix, turn_marks, Closing, LineMap, TurnExit, TurnMarks,
};
use crate::pty::TextCleaner;

/// Normalizes one `kiro-cli chat --no-interactive` turn.
#[derive(Default)]
pub(crate) struct KiroNormalizer {
    cleaner: TextCleaner,
    turn: TurnMarks,
    first_text: bool,
}

impl std::fmt::Debug for KiroNormalizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KiroNormalizer")
            .field("ended", &self.turn.ended)
            .finish()
    }
}

impl KiroNormalizer {
    /// A normalizer for a new turn.
    pub(crate) fn new() -> Self {
        Self::default()
    }
}

fn fix_for(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::AuthRequired => "run `kiro-cli login`",
        _ => generic_fix(code),
    }
}

impl LineMap for KiroNormalizer {
    const NAME: &'static str = "kiro-cli";
    // `NAME` is no provider id of the list: no login fix of its own.
    const SPEC: Option<&'static CliEntry> = None;
    turn_marks!(turn);
    fn map_line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        self.open(out);
        let mut text = self.cleaner.push(line.as_bytes());
        if !self.first_text {
            if text.trim().is_empty() {
                return; // Leading blank lines.
            }
            self.first_text = true;
            if let Some(rest) = text.strip_prefix("> ") {
                text = rest.to_string();
            }
        }
        text.push('\n');
        out.push(AgentEvent::TextDelta(text));
    }
    const FIX: fn(ErrorCode) -> &'static str = fix_for;
    fn close(&mut self, how: TurnExit<'_>, out: &mut Vec<AgentEvent>) -> Closing {
        let (exit, stderr, interrupted) = (how.info, how.stderr, how.interrupted);
        if !interrupted && exit.and_then(|e| e.code) == Some(0) {
            out.push(AgentEvent::Ended {
                reason: EndReason::Completed,
                usage: None,
            });
            return Closing::Closed;
        }
        let lower = stderr.to_ascii_lowercase();
        if !interrupted && (lower.contains("not logged in") || lower.contains("kiro-cli login")) {
            out.extend(error_end(
                CohostError::new(ErrorCode::AuthRequired, "kiro-cli: not logged in")
                    .with_fix(fix_for(ErrorCode::AuthRequired)),
            ));
            return Closing::Closed;
        }
        Closing::Usual { interrupted }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::oneshot::replay_fixture;
    use crate::process::ExitInfo;

    fn text(ev: &[AgentEvent]) -> String {
        ev.iter()
            .filter_map(|e| match e {
                AgentEvent::TextDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn lines_are_cleaned_chunks_and_exit_zero_completes() {
        let ev = replay_fixture("kiro", "docs", "text", KiroNormalizer::new());
        assert_eq!(
            text(&ev),
            "Hello! I can help with that.\nThe file has 3 lines.\n"
        );
        assert!(matches!(
            ev.last(),
            Some(AgentEvent::Ended {
                reason: EndReason::Completed,
                ..
            })
        ));
    }

    #[test]
    fn not_logged_in_is_auth_required() {
        let ev = replay_fixture("kiro", "docs", "not_logged_in", KiroNormalizer::new());
        assert!(ev
            .iter()
            .any(|e| matches!(e, AgentEvent::Error(err) if err.code == ErrorCode::AuthRequired)));
    }

    #[test]
    fn binary_garbage_does_not_panic_and_crash_is_a_crash() {
        let mut n = KiroNormalizer::new();
        let ev = n.on_line("\u{1b}[99999999999999999999m\u{1b}]8;;\u{7}x");
        assert_eq!(text(&ev), "x\n");
        let crash = Some(ExitInfo {
            code: None,
            signal: Some(6),
        });
        assert!(n.on_exit(crash, "thread 'main' panicked", false).is_none());
    }
}
