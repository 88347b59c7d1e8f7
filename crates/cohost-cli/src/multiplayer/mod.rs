//! Multiplayer: the host bridge and the participant client, on top of the
//! relay's client library. The payload shapes are in [`payload`].

pub mod host;
pub mod participant;
pub mod payload;
