//! Multiplayer: the host bridge and the participant client, on top of the
//! relay's client library. What they say to each other (the payload schema,
//! its routing and codec) is the `cohost-share` crate, shared by both sides.

pub mod guest_agent;
pub mod host;
pub mod host_approvals;
mod host_guests;
pub(crate) mod host_invite;
mod host_io;
mod host_members;
mod host_record;
mod host_turn;
pub mod identity;
pub mod keys;
pub mod knock;
pub mod participant;
pub mod session;
