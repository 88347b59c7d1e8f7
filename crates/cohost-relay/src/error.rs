//! Relay errors.

use std::net::SocketAddr;

/// What went wrong running or driving a relay.
#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    /// The listen address could not be bound.
    #[error("cannot listen on {0}: {1}; pick a free address or port")]
    Bind(SocketAddr, std::io::Error),
    /// The TLS certificate or key could not be used.
    #[error("cannot serve TLS: {0}; pass a PEM certificate chain and its private key")]
    Tls(String),
    /// A configuration value is invalid.
    #[error("invalid relay configuration: {0}")]
    Config(String),
    /// A room id is invalid.
    #[error("invalid room id {0:?}: use 1..=64 characters of [A-Za-z0-9_-]")]
    InvalidRoom(String),
    /// The room was not created on this relay.
    #[error("room {0:?} was not created on this relay; create it first")]
    UnknownRoom(String),
    /// Token minting failed.
    #[error(transparent)]
    Auth(#[from] crate::auth::AuthError),
    /// Broker failure.
    #[error(transparent)]
    Broker(#[from] crate::broker::BrokerError),
}
