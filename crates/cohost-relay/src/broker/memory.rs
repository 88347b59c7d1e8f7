//! In-process broker: a tokio broadcast channel. The default for an embedded relay;
//! share one `MemoryBroker` between several relays in one process to test multi-node.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use tokio::sync::broadcast;

use super::deny::DenyList;

use super::{Broker, BrokerError, BrokerEvent, BrokerSink};

#[derive(Clone, Debug)]
struct Msg {
    origin: u64,
    room: String,
    frame: Bytes,
}

/// In-memory broker.
pub struct MemoryBroker {
    tx: broadcast::Sender<Msg>,
    /// Shared by every relay sharing this broker, like the frames.
    denied: Arc<DenyList>,
    /// Rooms registered through any relay sharing this broker.
    rooms: Mutex<HashSet<String>>,
}

impl MemoryBroker {
    /// A broker buffering at most `capacity` frames per slow subscriber.
    pub fn new(capacity: usize) -> MemoryBroker {
        let (tx, _) = broadcast::channel(capacity.max(16));
        MemoryBroker {
            tx,
            denied: Arc::default(),
            rooms: Mutex::new(HashSet::new()),
        }
    }
}

impl Default for MemoryBroker {
    fn default() -> Self {
        MemoryBroker::new(65_536)
    }
}

impl Broker for MemoryBroker {
    fn publish(&self, room: &str, origin: u64, frame: &Bytes) {
        // A lone subscriber is the publishing node itself: nobody else to tell.
        if self.tx.receiver_count() <= 1 {
            return;
        }
        let _sent = self.tx.send(Msg {
            origin,
            room: room.to_string(),
            frame: frame.clone(),
        });
    }

    fn subscribe(&self, sink: BrokerSink) {
        let mut rx = self.tx.subscribe();
        sink(BrokerEvent::Subscribed);
        tokio::spawn(async move {
            loop {
                match rx.recv().await {
                    Ok(m) => sink(BrokerEvent::Frame {
                        origin: m.origin,
                        room: m.room,
                        frame: m.frame,
                    }),
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::warn!(missed = n, "memory broker subscriber lagged; frames lost");
                        sink(BrokerEvent::Resubscribed);
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
        });
    }

    fn name(&self) -> &'static str {
        "memory"
    }

    fn revoke(&self, jti: &str, exp: u64) {
        self.denied.insert(jti, exp);
    }

    fn is_revoked<'a>(&'a self, jti: &'a str) -> BoxFuture<'a, bool> {
        Box::pin(std::future::ready(self.denied.contains(jti)))
    }

    fn register_room(&self, room: &str, _ttl: Duration) -> BoxFuture<'_, Result<(), BrokerError>> {
        if let Ok(mut r) = self.rooms.lock() {
            r.insert(room.to_string());
        }
        Box::pin(async { Ok(()) })
    }

    fn room_registered(&self, room: &str) -> BoxFuture<'_, Result<bool, BrokerError>> {
        let known = self.rooms.lock().is_ok_and(|r| r.contains(room));
        Box::pin(async move { Ok(known) })
    }
}
