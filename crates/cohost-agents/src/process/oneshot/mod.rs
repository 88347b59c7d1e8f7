//! The shared runner for CLIs that run one process per turn (`gemini -p`,
//! `codex exec --json`, `opencode run`, `copilot -p`, `cn -p`, `aider
//! --message`, and the fixture-only drivers).
//!
//! - [`turn`]: the IO shell of one turn ([`OneShot`]): spawn on the
//!   supervisor, feed stdout lines to a pure [`TurnNormalizer`], decide what
//!   an exit without a closing event means, and keep the [`RunState`] that
//!   outlives a turn.
//! - [`adapter`]: the whole port over a small [`CliDriver`]
//!   ([`OneShotAdapter`]), plus the exit-to-events helpers the normalizers
//!   share.
//! - [`argv`]: the per-driver hook over the flag table that builds a turn's
//!   command line.
//! - [`line_map`]: what a driver's normalizer supplies ([`LineMap`]: a line
//!   to events, its own closing events) while the runner side owns the
//!   start/end bookkeeping and the exit mapping.
//! - [`lines`]: the line gate of the JSON-lines normalizers.
//! - [`factory`]: `oneshot_factory!`, the public factory of each driver.

pub(crate) mod adapter;
pub(crate) mod argv;
pub(crate) mod factory;
pub(crate) mod line_map;
pub(crate) mod lines;
pub(crate) mod turn;

#[cfg(feature = "wasm-plugins")]
pub(crate) use adapter::exit_events;
#[cfg(test)]
pub(crate) use adapter::replay_fixture;
pub(crate) use adapter::{error_end, generic_fix, random_uuid, CliDriver, SessionArg};
#[cfg(test)]
pub(crate) use argv::{resuming, strs};
pub(crate) use factory::{oneshot_factory, parser_of};
pub(crate) use line_map::{turn_marks, Closing, LineMap, TurnExit, TurnMarks};
pub(crate) use lines::{object_line, parse_line};
#[cfg(test)]
pub(crate) use turn::check_snapshot;
pub(crate) use turn::{interrupted_end, lock_state, OneShot, Parser, RunState, TurnNormalizer};
