//! cohost's running session.
//!
//! A started session runs in a task of its own; front ends hold
//! [`RunningSession`] handles: commands in (`prompt`, `interrupt`, `decide`,
//! `set_model`, `terminate`), events out to any number of
//! [`Subscription`]s, with a bounded replay of the recent past for late
//! subscribers. `cohost run`, `chat`, `share`, `serve`, `mcp` and `acp`
//! drive their sessions only through it, so none writes a turn loop of its
//! own and several sessions run side by side in one process.

#![forbid(unsafe_code)]

mod approvals;
mod bridge;
mod budget;
mod checkpointed;
mod error;
mod log;
mod metered;
mod room;
mod running;

pub use approvals::PendingApprovals;
pub use bridge::{BridgeError, BridgeNote, RoomBridge};
pub use budget::{BudgetSeat, SharedBudget, HOST};
pub use checkpointed::Checkpointed;
pub use error::SessionError;
pub use log::{EventLog, Lagged, LogLimits, Subscription};
pub use room::{Member, MemberLagged, Room, RoomEvents};
pub use running::{RunningSession, SessionInfo, SteerOutcome, Turn, Turns};
