//! The mock's knobs, and the "process" state an adapter shares with the
//! script of its running turn.

use std::time::Duration;

use super::scenario::Scenario;

/// Knobs for tests and demos.
#[derive(Debug, Clone)]
pub struct MockOptions {
    /// Delay between text deltas (human feel in demos; zero in tests).
    pub chunk_delay: Duration,
    /// Delay between deltas of the `slow` scenario.
    pub slow_delay: Duration,
    /// Make `initialize` fail as if the process died at start.
    pub fail_init: bool,
    /// Force a scenario regardless of prompt and model.
    pub force: Option<Scenario>,
    /// Report the session id only in the turn's `Started`, not at
    /// `initialize` (like agents that create their session lazily).
    pub late_session_id: bool,
    /// Take text mid-turn (`steer`), as Codex's app-server does; off, the
    /// mock is like an agent without mid-turn input and steers queue.
    pub steer: bool,
}

impl Default for MockOptions {
    fn default() -> Self {
        MockOptions {
            chunk_delay: Duration::from_millis(15),
            slow_delay: Duration::from_millis(100),
            fail_init: false,
            force: None,
            late_session_id: false,
            steer: true,
        }
    }
}

/// What the adapter and its turn's script both see: whether the "process"
/// is gone, and why.
#[derive(Debug, Default)]
pub(super) struct Shared {
    pub(super) dead: bool,
    pub(super) last_error: Option<String>,
}
