//! One turn of a `wasm` plugin as a [`TurnNormalizer`]: stdout lines and
//! the exit go to the component's instance; its events come back checked.
//! A component that breaks a limit, traps or returns malformed events ends
//! the turn with its typed error, and [`TurnNormalizer::aborted`] tells the
//! runner to stop the agent's process.

use cohost_core::{AgentEvent, EndReason};
use cohost_wasm::{Exit, TurnInstance, WasmError};

use cohost_process::oneshot::{exit_events, generic_fix, TurnNormalizer};
use cohost_process::ExitInfo;

/// A turn driven by an adapter component.
#[derive(Debug)]
pub struct WasmTurn {
    id: String,
    /// Dropped when the turn ends, which gives its slot back to the
    /// runtime's instance pool at once (the runner keeps the turn until
    /// the next prompt).
    instance: Option<TurnInstance>,
    opened: bool,
    ended: bool,
    aborted: bool,
}

impl WasmTurn {
    /// The turn of plugin `id` on an instance whose `start` already ran.
    pub fn new(id: String, instance: TurnInstance) -> Self {
        WasmTurn {
            id,
            instance: Some(instance),
            opened: false,
            ended: false,
            aborted: false,
        }
    }

    /// Take the component's events, or end the turn on its error.
    fn take(&mut self, result: Result<Vec<AgentEvent>, WasmError>) -> Vec<AgentEvent> {
        let events = self.events(result);
        if self.ended {
            self.instance = None;
        }
        events
    }

    fn events(&mut self, result: Result<Vec<AgentEvent>, WasmError>) -> Vec<AgentEvent> {
        match result {
            Ok(events) => {
                self.opened |= !events.is_empty();
                if events.iter().any(|e| matches!(e, AgentEvent::Ended { .. })) {
                    self.ended = true;
                }
                events
            }
            Err(e) => {
                tracing::warn!(plugin = %self.id, "wasm adapter failed: {e}");
                self.ended = true;
                self.aborted = true;
                let mut out = Vec::new();
                if !self.opened {
                    self.opened = true;
                    out.push(AgentEvent::Started {
                        session_id: None,
                        model: None,
                    });
                }
                out.push(AgentEvent::Error(e.to_cohost()));
                out.push(AgentEvent::Ended {
                    reason: EndReason::Error,
                    usage: None,
                });
                out
            }
        }
    }
}

/// Run a component call, which may take up to its time limit, off the
/// async workers' backs when the runtime has threads to spare.
fn blocking<R>(f: impl FnOnce() -> R) -> R {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(h) if h.runtime_flavor() == RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

impl TurnNormalizer for WasmTurn {
    fn on_line(&mut self, line: &str) -> Vec<AgentEvent> {
        let Some(instance) = self.instance.as_mut().filter(|_| !self.ended) else {
            return Vec::new();
        };
        let result = blocking(|| instance.on_line(line));
        self.take(result)
    }

    fn ended(&self) -> bool {
        self.ended
    }

    fn aborted(&self) -> bool {
        self.aborted
    }

    fn on_exit(
        &mut self,
        exit: Option<ExitInfo>,
        stderr: &str,
        interrupted: bool,
    ) -> Option<Vec<AgentEvent>> {
        let Some(instance) = self.instance.as_mut().filter(|_| !self.ended) else {
            return Some(Vec::new());
        };
        let info = Exit {
            code: exit.and_then(|e| e.code),
            signal: exit.and_then(|e| e.signal),
            stderr: stderr.to_string(),
            interrupted,
        };
        let result = blocking(|| instance.on_exit(info));
        let mut out = self.take(result);
        if self.ended {
            return Some(out);
        }
        // The component left the ending to cohost: the usual exit mapping.
        self.ended = true;
        self.instance = None;
        let mut usual = exit_events(&self.id, None, exit, stderr, interrupted, generic_fix)?;
        if !self.opened {
            usual.insert(
                0,
                AgentEvent::Started {
                    session_id: None,
                    model: None,
                },
            );
        }
        out.append(&mut usual);
        Some(out)
    }
}
