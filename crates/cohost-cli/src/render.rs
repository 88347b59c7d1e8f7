//! Human rendering of the event stream: answer text on stdout as it
//! arrives; reasoning (dimmed), tool activity and errors on stderr, so
//! `cohost run ... > answer.txt` captures only the answer. What an agent or
//! provider sent is inert on screen: terminal control sequences are removed
//! before anything is written (only cohost's own styling is added).

use cohost_core::sanitize::{inert_line, strip_controls};
use cohost_core::{Event, EventBody, Sanitizer, ToolStatus};
use std::io::{IsTerminal, Write};
use std::sync::Arc;

/// Renders events for a person.
pub struct Human {
    /// What an error event passes before it is shown (the binary's).
    sanitizer: Arc<Sanitizer>,
    color: bool,
    in_reasoning: bool,
    text_open: bool,
}

impl Default for Human {
    fn default() -> Self {
        Self::new()
    }
}

impl Human {
    /// A renderer; colour only on a terminal and when NO_COLOR is unset.
    pub fn new() -> Self {
        Self::with_sanitizer(crate::secrets::sanitizer())
    }

    /// A renderer showing errors through `sanitizer`.
    pub fn with_sanitizer(sanitizer: Arc<Sanitizer>) -> Self {
        let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        Human {
            sanitizer,
            color,
            in_reasoning: false,
            text_open: false,
        }
    }

    /// Whether it writes colour.
    pub fn colored(&self) -> bool {
        self.color
    }

    fn style(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    fn end_reasoning(&mut self, err: &mut impl Write) {
        if self.in_reasoning {
            let _ = writeln!(err);
            self.in_reasoning = false;
        }
    }

    fn end_text(&mut self, out: &mut impl Write) {
        if self.text_open {
            let _ = writeln!(out);
            let _ = out.flush();
            self.text_open = false;
        }
    }

    /// Show one event on stdout and stderr.
    pub fn show(&mut self, event: &Event) {
        let mut out = std::io::stdout().lock();
        let mut err = std::io::stderr().lock();
        self.show_to(event, &mut out, &mut err);
    }

    /// Show one event: the answer to `out`, the rest to `err` (a room holds
    /// a member's output this way until its turn is shown).
    pub fn show_to(&mut self, event: &Event, mut out: &mut dyn Write, mut err: &mut dyn Write) {
        match &event.body {
            EventBody::StreamStart { .. } | EventBody::Usage(_) | EventBody::Unknown => {}
            EventBody::ReasoningChunk { delta, .. } => {
                if !self.in_reasoning {
                    let _ = write!(err, "{}", self.style("2", "thinking: "));
                    self.in_reasoning = true;
                }
                let _ = write!(err, "{}", self.style("2", &strip_controls(delta)));
                let _ = err.flush();
            }
            EventBody::StreamChunk { delta, .. } => {
                self.end_reasoning(&mut err);
                let _ = write!(out, "{}", strip_controls(delta));
                let _ = out.flush();
                self.text_open = !delta.ends_with('\n');
            }
            EventBody::ToolCall { name, input, .. } => {
                self.end_reasoning(&mut err);
                self.end_text(&mut out);
                let (name, input) = (
                    inert_line(name),
                    strip_controls(&input.to_string()).into_owned(),
                );
                let _ = writeln!(err, "{} {name} {input}", self.style("36", "▶ tool"));
            }
            EventBody::ToolApprovalRequested { name, input, .. } => {
                self.end_reasoning(&mut err);
                self.end_text(&mut out);
                let (name, input) = (
                    inert_line(name),
                    strip_controls(&input.to_string()).into_owned(),
                );
                let _ = writeln!(
                    err,
                    "{} {name} {input}",
                    self.style("33;1", "? approval requested:")
                );
            }
            EventBody::ToolApprovalDecided {
                decision, origin, ..
            } => {
                let what = if decision.is_allow() {
                    "allowed"
                } else {
                    "denied"
                };
                let _ = writeln!(
                    err,
                    "{}",
                    self.style("33", &format!("  {what} ({origin:?})"))
                );
            }
            EventBody::ToolExecuted {
                status,
                output_preview,
                ..
            } => {
                let (mark, code) = match status {
                    ToolStatus::Ok => ("✔ tool ok", "32"),
                    ToolStatus::Error => ("✖ tool failed", "31"),
                    ToolStatus::Denied => ("✖ tool denied", "33"),
                };
                let first = output_preview.lines().next().unwrap_or("");
                let _ = writeln!(err, "{} {}", self.style(code, mark), inert_line(first));
            }
            EventBody::Status { message, .. } => {
                let message = strip_controls(message);
                let _ = writeln!(err, "{}", self.style("2", &format!("… {message}")));
            }
            EventBody::Error(e) => {
                // Sanitized by the engine's emitter; an error event the CLI
                // built itself passes here too.
                let e = &e.clone().sanitized(&self.sanitizer);
                self.end_reasoning(&mut err);
                self.end_text(&mut out);
                let _ = writeln!(
                    err,
                    "{} {}: {}",
                    self.style("31;1", "error"),
                    e.code,
                    strip_controls(&e.message)
                );
                if let Some(fix) = &e.suggested_fix {
                    let _ = writeln!(err, "  fix: {}", strip_controls(fix));
                }
            }
            EventBody::FileChanges(changes) => {
                self.end_reasoning(&mut err);
                self.end_text(&mut out);
                let head = changes.headline();
                let _ = writeln!(err, "{}", self.style("35", &format!("± {head}")));
                for f in &changes.files {
                    let _ = writeln!(err, "  {}", f.summary());
                }
            }
            EventBody::Budget(n) => {
                self.end_reasoning(&mut err);
                self.end_text(&mut out);
                let line = strip_controls(&n.describe()).into_owned();
                let _ = writeln!(err, "{}", self.style("33", &line));
            }
            EventBody::Steered(n) => {
                self.end_reasoning(&mut err);
                self.end_text(&mut out);
                let line = strip_controls(&n.describe()).into_owned();
                let _ = writeln!(err, "{}", self.style("36", &format!("↪ {line}")));
            }
            EventBody::Queue(n) => {
                self.end_reasoning(&mut err);
                self.end_text(&mut out);
                let line = strip_controls(&n.describe()).into_owned();
                let _ = writeln!(err, "{}", self.style("36", &line));
            }
            EventBody::StreamEnd { reason, .. } => {
                self.end_reasoning(&mut err);
                self.end_text(&mut out);
                if *reason == cohost_core::EndReason::Interrupted {
                    let _ = writeln!(err, "{}", self.style("33", "(interrupted)"));
                }
                if *reason == cohost_core::EndReason::Budget {
                    let _ = writeln!(
                        err,
                        "{}",
                        self.style("33", "(stopped: the budget is spent)")
                    );
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_core::{CohostError, ErrorCode};

    /// An error event the CLI shows passes the renderer's sanitizer: a value
    /// only it knows (no shape, no secret name) is redacted.
    #[test]
    fn an_error_event_passes_the_sanitizer_given() {
        const PLANTED: &str = "planted-q7Xw2Lm9Rk4Zt8Vn";
        assert_eq!(cohost_core::sanitize::global().sanitize(PLANTED), PLANTED);
        let given = Sanitizer::shapes_only().with_known_values([PLANTED]);
        let mut human = Human::with_sanitizer(Arc::new(given));
        let event = Event {
            id: "p.1".into(),
            prompt_id: "p".into(),
            correlation_id: "c".into(),
            ts: 0,
            agent: None,
            body: EventBody::Error(
                CohostError::new(ErrorCode::NetworkError, format!("refused {PLANTED}"))
                    .with_fix(format!("unset {PLANTED}")),
            ),
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        human.show_to(&event, &mut out, &mut err);
        let err = String::from_utf8(err).unwrap();
        assert!(!err.contains(PLANTED), "{err}");
        assert_eq!(err.matches("[REDACTED]").count(), 2, "{err}");
    }
}
