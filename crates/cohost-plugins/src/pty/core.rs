//! The sans-IO core of the PTY tier: terminal bytes in, [`AgentEvent`]s
//! out, bytes to type back. No file descriptors, no clock.
//!
//! An interactive program is "ready" when its cleaned output ends with the
//! prompt marker (e.g. `> `). A turn types the prompt plus Enter, drops the
//! terminal's echo of it, streams what follows as text deltas, and ends
//! when the marker shows up again. Text that could be the start of the
//! marker is held back until it is clearly not, so the marker itself never
//! reaches the user.

use cohost_core::{AgentEvent, EndReason};

use super::clean::TextCleaner;

/// The Ctrl-C byte: the terminal turns it into SIGINT for the foreground job.
pub(crate) const CTRL_C: &[u8] = b"\x03";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the first prompt (banner output).
    Starting,
    /// At the prompt, no turn.
    Idle,
    /// A turn runs.
    Turn,
}

/// The PTY protocol state machine.
pub(crate) struct PtyCore {
    cleaner: TextCleaner,
    marker: String,
    phase: Phase,
    /// Cleaned text not yet emitted (may hold a marker prefix).
    held: String,
    /// The echo of the typed prompt still expected.
    echo: String,
    interrupted: bool,
    /// Banner text seen before the first prompt (for error messages).
    banner: String,
}

impl PtyCore {
    /// A core that treats `marker` as the program's input prompt.
    pub(crate) fn new(marker: impl Into<String>) -> Self {
        PtyCore {
            cleaner: TextCleaner::new(),
            marker: marker.into(),
            phase: Phase::Starting,
            held: String::new(),
            echo: String::new(),
            interrupted: false,
            banner: String::new(),
        }
    }

    /// Whether the program showed its prompt and no turn runs.
    pub(crate) fn is_ready(&self) -> bool {
        self.phase == Phase::Idle
    }

    /// The last lines printed before the first prompt.
    pub(crate) fn banner_tail(&self) -> String {
        let lines: Vec<&str> = self.banner.lines().collect();
        lines[lines.len().saturating_sub(5)..].join(" | ")
    }

    /// Start a turn: the bytes to type. Newlines inside the prompt would
    /// submit early, so they become spaces.
    pub(crate) fn begin_turn(&mut self, prompt: &str) -> Vec<u8> {
        let line: String = prompt
            .chars()
            .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
            .filter(|c| !c.is_control())
            .collect();
        self.phase = Phase::Turn;
        self.held.clear();
        self.interrupted = false;
        self.echo = format!("{line}\n");
        let mut bytes = line.into_bytes();
        bytes.push(b'\r');
        bytes
    }

    /// The first interrupt step: the bytes to type (Ctrl-C).
    pub(crate) fn interrupt(&mut self) -> &'static [u8] {
        if self.phase == Phase::Turn {
            self.interrupted = true;
        }
        CTRL_C
    }

    /// Feed terminal output.
    pub(crate) fn on_output(&mut self, bytes: &[u8]) -> Vec<AgentEvent> {
        let text = self.cleaner.push(bytes);
        let mut out = Vec::new();
        if text.is_empty() {
            return out;
        }
        match self.phase {
            Phase::Starting | Phase::Idle => {
                self.banner.push_str(&text);
                if self.banner.len() > 8192 {
                    let cut = self.banner.len() - 4096;
                    let cut = (cut..self.banner.len())
                        .find(|i| self.banner.is_char_boundary(*i))
                        .unwrap_or(0);
                    self.banner.drain(..cut);
                }
                if self.banner.ends_with(&self.marker) {
                    self.phase = Phase::Idle;
                }
            }
            Phase::Turn => {
                let text = self.strip_echo(&text);
                self.held.push_str(&text);
                self.flush(&mut out);
            }
        }
        out
    }

    /// The program exited. Returns the closing events, or `None` when a
    /// turn ran and was not interrupted (a crash: the stream must close
    /// without `Ended`).
    pub(crate) fn on_exit(&mut self) -> Option<Vec<AgentEvent>> {
        let was = self.phase;
        self.phase = Phase::Starting;
        if was != Phase::Turn {
            return Some(Vec::new());
        }
        let mut out = Vec::new();
        if !self.held.is_empty() {
            out.push(AgentEvent::TextDelta(std::mem::take(&mut self.held)));
        }
        if self.interrupted {
            out.push(AgentEvent::Ended {
                reason: EndReason::Interrupted,
                usage: None,
            });
            return Some(out);
        }
        None
    }

    fn strip_echo(&mut self, text: &str) -> String {
        if self.echo.is_empty() {
            return text.to_string();
        }
        let mut rest = text;
        while let (Some(want), Some(got)) = (self.echo.chars().next(), rest.chars().next()) {
            if want != got {
                // Not an echo (echo off, or the program rewrote the line).
                self.echo.clear();
                break;
            }
            self.echo.drain(..want.len_utf8());
            rest = &rest[got.len_utf8()..];
        }
        rest.to_string()
    }

    fn flush(&mut self, out: &mut Vec<AgentEvent>) {
        if let Some(body) = self.held.strip_suffix(self.marker.as_str()) {
            let body = body.to_string();
            self.held.clear();
            if !body.is_empty() {
                out.push(AgentEvent::TextDelta(body));
            }
            self.phase = Phase::Idle;
            out.push(AgentEvent::Ended {
                reason: if self.interrupted {
                    EndReason::Interrupted
                } else {
                    EndReason::Completed
                },
                usage: None,
            });
            return;
        }
        // Keep the longest suffix that is a prefix of the marker.
        let keep = (1..self.marker.len().min(self.held.len() + 1))
            .rev()
            .find(|n| {
                self.held.is_char_boundary(self.held.len() - n)
                    && self.marker.is_char_boundary(*n)
                    && self.held.ends_with(&self.marker[..*n])
            })
            .unwrap_or(0);
        let emit_len = self.held.len() - keep;
        if emit_len > 0 {
            let rest = self.held.split_off(emit_len);
            out.push(AgentEvent::TextDelta(std::mem::replace(
                &mut self.held,
                rest,
            )));
        }
    }
}

#[cfg(test)]
mod tests;
