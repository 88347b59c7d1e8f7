//! Brokers carry stamped frames between relay nodes. Payload bytes pass through
//! opaque; a broker never decodes them.

mod deny;
mod memory;
mod redis;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;

pub use self::memory::MemoryBroker;
pub use self::redis::{HistoryBounds, RedisBroker};

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
    /// The subscription is active (sent once it first is, and after every
    /// resubscription): frames published from now on reach this node.
    Subscribed,
}

/// One replayable frame as kept in the shared history (Redis Streams).
#[derive(Debug, Clone)]
pub struct HistoryEntry {
    /// The history's own position of the entry (a Redis stream id), in order.
    pub offset: String,
    /// Encoded, stamped frame.
    pub frame: Bytes,
    /// The chunk index of the stream's previous chunk when this one was
    /// recorded (`None`: the first chunk the recording node saw). A reader
    /// that does not hold that chunk knows the history lost something.
    pub prev: Option<u64>,
}

/// What the shared history holds for a room.
#[derive(Debug, Clone, Default)]
pub struct History {
    /// The incarnation of the room's history: a new epoch means the history
    /// was lost (expired, deleted with the room, or Redis restarted) and
    /// anything derived from the old one is stale.
    pub epoch: Option<String>,
    /// Entries, oldest first.
    pub entries: Vec<HistoryEntry>,
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

    /// Publishes a replayable frame and records it in the shared history,
    /// in one ordered step (so a node that sees the frame live finds it in
    /// the history too). `prev` is the stream's previous chunk index. The
    /// default (no shared history) only publishes.
    fn record(&self, room: &str, origin: u64, frame: &Bytes, prev: Option<u64>) {
        let _ = prev;
        self.publish(room, origin, frame);
    }

    /// Whether [`Broker::history`] can return anything (Redis Streams).
    fn has_history(&self) -> bool {
        false
    }

    /// The room's shared history, oldest first: the newest entries, at most
    /// `max` of them and about `max_bytes`. Empty without shared history.
    fn history(
        &self,
        room: &str,
        max: usize,
        max_bytes: usize,
    ) -> BoxFuture<'_, Result<History, BrokerError>> {
        let _ = (room, max, max_bytes);
        Box::pin(async { Ok(History::default()) })
    }

    /// Drops the room's shared history (the host closed the room).
    fn forget(&self, room: &str) {
        let _ = room;
    }

    /// Registers a room for every node for `ttl` (in Redis when scaled out).
    /// The default keeps nothing: rooms are known only where created.
    fn register_room(&self, room: &str, ttl: Duration) -> BoxFuture<'_, Result<(), BrokerError>> {
        let _ = (room, ttl);
        Box::pin(async { Ok(()) })
    }

    /// Whether any node registered `room` (and it has not expired).
    fn room_registered(&self, room: &str) -> BoxFuture<'_, Result<bool, BrokerError>> {
        let _ = room;
        Box::pin(async { Ok(false) })
    }

    /// Waits until everything published so far has reached the broker (or
    /// failed); a draining node calls it before exiting.
    fn flush(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    /// How long the last batch of publishes took from queueing to the
    /// broker's answer (`None`: no remote broker).
    fn lag(&self) -> Option<Duration> {
        None
    }
}
