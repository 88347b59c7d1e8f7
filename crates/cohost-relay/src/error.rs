//! The crate's errors: running a relay ([`RelayError`]) and being its
//! client ([`ClientError`]).

use std::net::SocketAddr;

use cohost_protocol::EnvelopeError;

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

/// Why the client could not connect or send.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The URL carries a query (tokens must never travel there) or is malformed.
    #[error("bad relay URL {0:?}: use ws(s)://host:port/v1/rooms/<room>/ws without a query")]
    Url(String),
    /// A relay address (`--relay`) that is none of the accepted forms.
    #[error("{given:?} is not a relay address ({why}): give host:port, or http(s)://, ws(s)://, cohost(s)://HOST[:PORT] with no path")]
    RelayAddress {
        /// What was given.
        given: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The relay refused the upgrade (bad token, origin, full room...).
    #[error("relay refused the connection ({status}): {body}")]
    Refused {
        /// HTTP status.
        status: u16,
        /// Relay's explanation.
        body: String,
    },
    /// Network or WebSocket failure.
    #[error("cannot reach the relay: {0}; check the address and that the relay is running")]
    Io(String),
    /// The client task has stopped.
    #[error("the relay connection is closed; reconnect with a fresh invite")]
    Closed,
    /// The relay's certificate was not trusted, for the reason given.
    #[error("the relay's TLS certificate was refused: {problem}; {}", problem.fix())]
    Certificate {
        /// Why it was refused.
        problem: crate::CertProblem,
    },
    /// The TLS setup failed (a CA file that does not read, no roots).
    #[error("cannot set up TLS: {0}")]
    Tls(String),
    /// A frame could not be built (an invalid room or stream id).
    #[error("cannot build the frame: {0}")]
    Envelope(#[from] EnvelopeError),
}
