//! The sharing front end: the host bridge (`cohost share`'s side of a room:
//! its members, approvals, invites, the door and the record) and the
//! participant session (`cohost join`'s side), on top of the relay's client
//! library. What they say to each other (the payload schema, its routing
//! and codec) is the `cohost-share` crate, shared by both sides. Beside
//! them, what a room of several agents needs whichever front end drives it:
//! its members and their worktrees (`room_members`), its bridge
//! (`bridged`), the relay's admin API for personal invites
//! (`invite_mint`) and the budget commands' text (`spend_text`).
//! Argument parsing and the terminal are the binary's (`cohost-cli`).

pub mod bridged;
pub mod guest_agent;
pub mod host;
pub mod host_approvals;
mod host_guest_list;
mod host_guests;
pub mod host_invite;
mod host_io;
mod host_members;
mod host_record;
mod host_turn;
pub mod identity;
pub mod invite_mint;
pub mod keys;
pub mod knock;
pub mod participant;
pub mod room_members;
pub mod session;
pub mod spend_text;
