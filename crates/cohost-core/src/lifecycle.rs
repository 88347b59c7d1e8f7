//! The adapter lifecycle state machine (seed 000 section 6, design.md).
//!
//! `EXECUTING` is represented by its two sub-states, [`State::Streaming`] and
//! [`State::WaitingForApproval`]; [`State::is_executing`] groups them.

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::error::{CohostError, ErrorCode};

/// Lifecycle states of one adapter as seen by the host session engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum State {
    /// Created, not started.
    Uninitialized,
    /// Spawning, handshaking, checking health.
    Initializing,
    /// Idle, ready for a prompt.
    Ready,
    /// EXECUTING: the agent is producing output.
    Streaming,
    /// EXECUTING: the agent waits for a tool-approval decision.
    WaitingForApproval,
    /// The interrupt ladder is running.
    Interrupting,
    /// The agent crashed or failed to start.
    Failed,
    /// Shutting down.
    Terminating,
    /// Gone; resources released.
    Terminated,
}

impl State {
    /// Every state, for exhaustive tests and documentation.
    pub const ALL: [State; 9] = [
        State::Uninitialized,
        State::Initializing,
        State::Ready,
        State::Streaming,
        State::WaitingForApproval,
        State::Interrupting,
        State::Failed,
        State::Terminating,
        State::Terminated,
    ];

    /// Whether the state is one of EXECUTING's sub-states.
    pub fn is_executing(self) -> bool {
        matches!(self, State::Streaming | State::WaitingForApproval)
    }

    /// Whether the transition `self -> to` is allowed.
    ///
    /// Deviations from the seed's diagram, on purpose: `FAILED`, `INTERRUPTING`
    /// and `UNINITIALIZED` may also go to `TERMINATING` (a user must always be
    /// able to quit), and a crash may hit while idle or interrupting, not only
    /// while executing.
    pub fn can_transition_to(self, to: State) -> bool {
        use State::*;
        matches!(
            (self, to),
            (Uninitialized, Initializing)
                | (Initializing, Ready | Failed)
                | (Ready, Streaming)
                | (Streaming, WaitingForApproval)
                | (WaitingForApproval, Streaming)
                | (Streaming | WaitingForApproval, Ready)
                | (Streaming | WaitingForApproval, Interrupting)
                | (Interrupting, Ready)
                | (
                    Ready | Streaming | WaitingForApproval | Interrupting,
                    Failed
                )
                | (Failed, Ready)
                | (
                    Uninitialized | Ready | Streaming | WaitingForApproval | Interrupting | Failed,
                    Terminating
                )
                | (Terminating, Terminated)
        )
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = serde_json::to_string(self).unwrap_or_default();
        f.write_str(s.trim_matches('"'))
    }
}

/// A forbidden transition: always a bug in an adapter or the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("illegal lifecycle transition {from} -> {to}")]
pub struct IllegalTransition {
    /// The state we were in.
    pub from: State,
    /// The state someone tried to enter.
    pub to: State,
}

impl From<IllegalTransition> for CohostError {
    fn from(e: IllegalTransition) -> Self {
        CohostError::new(ErrorCode::IllegalTransition, e.to_string())
            .with_fix("this is a bug in cohost; please report it with the command you ran")
    }
}

/// A state holder that only moves along legal transitions.
#[derive(Debug, Clone)]
pub struct Lifecycle {
    state: State,
    /// Test-only fault injection: transitions into these states are refused
    /// as illegal, so the engine's handling of a refused transition is tested.
    #[cfg(test)]
    refused: Vec<State>,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Lifecycle {
            state: State::Uninitialized,
            #[cfg(test)]
            refused: Vec::new(),
        }
    }
}

impl Lifecycle {
    /// Current state.
    pub fn state(&self) -> State {
        self.state
    }

    /// Refuse every later transition into `to` (tests of the engine's
    /// error handling).
    #[cfg(test)]
    pub(crate) fn refuse(&mut self, to: State) {
        self.refused.push(to);
    }

    /// Accept transitions into `to` again.
    #[cfg(test)]
    pub(crate) fn allow(&mut self, to: State) {
        self.refused.retain(|s| *s != to);
    }

    /// Move to `to`, or report the illegal transition and stay.
    pub fn transition(&mut self, to: State) -> Result<State, IllegalTransition> {
        #[cfg(test)]
        if self.refused.contains(&to) {
            return Err(IllegalTransition {
                from: self.state,
                to,
            });
        }
        if self.state.can_transition_to(to) {
            let from = self.state;
            self.state = to;
            tracing::trace!(%from, %to, "lifecycle");
            Ok(from)
        } else {
            Err(IllegalTransition {
                from: self.state,
                to,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use State::*;

    /// The legal edges, written out independently of `can_transition_to`.
    const LEGAL: &[(State, State)] = &[
        (Uninitialized, Initializing),
        (Uninitialized, Terminating),
        (Initializing, Ready),
        (Initializing, Failed),
        (Ready, Streaming),
        (Ready, Failed),
        (Ready, Terminating),
        (Streaming, WaitingForApproval),
        (Streaming, Ready),
        (Streaming, Interrupting),
        (Streaming, Failed),
        (Streaming, Terminating),
        (WaitingForApproval, Streaming),
        (WaitingForApproval, Ready),
        (WaitingForApproval, Interrupting),
        (WaitingForApproval, Failed),
        (WaitingForApproval, Terminating),
        (Interrupting, Ready),
        (Interrupting, Failed),
        (Interrupting, Terminating),
        (Failed, Ready),
        (Failed, Terminating),
        (Terminating, Terminated),
    ];

    #[test]
    fn every_pair_is_checked() {
        let mut legal_seen = 0;
        for from in State::ALL {
            for to in State::ALL {
                let expected = LEGAL.contains(&(from, to));
                let mut lc = Lifecycle {
                    state: from,
                    ..Lifecycle::default()
                };
                let result = lc.transition(to);
                if expected {
                    legal_seen += 1;
                    assert_eq!(result, Ok(from), "{from} -> {to} should be legal");
                    assert_eq!(lc.state(), to);
                } else {
                    assert_eq!(
                        result,
                        Err(IllegalTransition { from, to }),
                        "{from} -> {to} should be illegal"
                    );
                    assert_eq!(lc.state(), from, "an illegal transition must not move");
                }
            }
        }
        assert_eq!(legal_seen, LEGAL.len());
        assert_eq!(State::ALL.len() * State::ALL.len(), 81);
    }

    #[test]
    fn terminated_is_final() {
        for to in State::ALL {
            assert!(!Terminated.can_transition_to(to));
        }
    }

    #[test]
    fn illegal_transition_is_a_typed_error() {
        let err: CohostError = IllegalTransition {
            from: Ready,
            to: Terminated,
        }
        .into();
        assert_eq!(err.code, ErrorCode::IllegalTransition);
        assert!(
            err.message.contains("READY -> TERMINATED"),
            "{}",
            err.message
        );
    }

    #[test]
    fn happy_path() {
        let mut lc = Lifecycle::default();
        for to in [
            Initializing,
            Ready,
            Streaming,
            WaitingForApproval,
            Streaming,
            Ready,
            Streaming,
            Interrupting,
            Ready,
            Failed,
            Ready,
            Terminating,
            Terminated,
        ] {
            lc.transition(to).unwrap();
        }
    }
}
