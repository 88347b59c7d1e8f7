//! Brokers carry stamped frames between relay nodes. Payload bytes pass through
//! opaque; a broker never decodes them.

mod deny;
mod memory;
mod redis;

use std::sync::Arc;

use bytes::Bytes;
use futures::future::BoxFuture;

pub use self::memory::MemoryBroker;
pub use self::redis::RedisBroker;

/// Something a broker delivers to a node.
#[derive(Debug, Clone)]
pub enum BrokerEvent {
    /// A stamped frame published by node `origin` (possibly this node: skip those).
    Frame {
        /// Publishing node id.
        origin: u64,
        /// Room id (the channel it came from).
        room: String,
        /// Encoded frame.
        frame: Bytes,
    },
    /// The subscription was lost and re-established: frames may have been missed.
    Resubscribed,
}

/// Callback a node registers to receive broker events.
pub type BrokerSink = Arc<dyn Fn(BrokerEvent) + Send + Sync>;

/// Why a broker could not start.
#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    /// Redis could not be reached or refused a command.
    #[error("redis broker at {url}: {message}; check that redis is running and the URL is right")]
    Redis {
        /// The Redis URL (without password).
        url: String,
        /// What failed.
        message: String,
    },
}

/// Fan-out transport between relay nodes.
pub trait Broker: Send + Sync + 'static {
    /// Publishes an encoded, stamped frame of `room` from node `origin`. Never blocks;
    /// a broker that cannot keep up drops and logs (header fields only).
    fn publish(&self, room: &str, origin: u64, frame: &Bytes);

    /// Starts delivering every published frame (from any node) to `sink`.
    /// Called once per node; the broker keeps the subscription alive (reconnecting if needed).
    fn subscribe(&self, sink: BrokerSink);

    /// Short name for logs (`memory`, `redis`).
    fn name(&self) -> &'static str;

    /// Puts a token id on the deny list every node checks, until `exp`
    /// (the token's own expiry, seconds since the Unix epoch). Never blocks.
    fn revoke(&self, jti: &str, exp: u64);

    /// Whether a token id is on the deny list.
    fn is_revoked<'a>(&'a self, jti: &'a str) -> BoxFuture<'a, bool>;
}
