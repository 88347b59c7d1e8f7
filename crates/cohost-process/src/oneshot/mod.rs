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
//! - [`factory`]: what `cohost_agents`' `oneshot_factory!` (the public
//!   factory of each driver) forwards to.

pub mod adapter;
pub mod argv;
pub mod factory;
pub mod line_map;
pub mod lines;
pub mod turn;

pub use adapter::exit_events;
pub use adapter::{error_end, generic_fix, random_uuid, CliDriver, SessionArg};
pub use factory::parser_of;
pub use line_map::{turn_marks, Closing, LineMap, TurnExit, TurnMarks};
pub use lines::{object_line, parse_line};
pub use turn::{interrupted_end, lock_state, OneShot, Parser, RunState, TurnNormalizer};
