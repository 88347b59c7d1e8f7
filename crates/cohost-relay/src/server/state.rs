//! [`RelayState`], the shared state of one relay node: its rooms, tokens,
//! broker and settings. The server's entry, its connections, the kick and
//! the admin API all work on it, so it is a module of its own that reaches
//! none of them.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Instant;

use cohost_protocol::{is_valid_id, Frame, Invite, Role};

use super::room::{self, Room};
use super::tokens::Tokens;
use crate::auth::{random_hex, TokenAuthority};
use crate::broker::Broker;
use crate::config::RelayConfig;
use crate::metrics::Metrics;
use crate::RelayError;

/// Shared state of one relay node.
pub(crate) struct RelayState {
    pub(crate) node_id: u64,
    next_conn: AtomicU64,
    pub(crate) auth: TokenAuthority,
    pub(crate) admin_secret: String,
    pub(crate) config: RelayConfig,
    pub(crate) authority: String,
    rooms: RwLock<HashMap<String, Arc<Room>>>,
    pub(crate) known_rooms: RwLock<HashSet<String>>,
    pub(crate) broker: Arc<dyn Broker>,
    pub(crate) metrics: Arc<Metrics>,
    /// The token each live connection joined with (for kicks).
    pub(crate) tokens: Tokens,
    /// Set when shutdown starts: `/readyz` answers 503 so a load balancer
    /// stops sending new connections.
    pub(crate) draining: AtomicBool,
    /// Set once the broker subscription is active (frames from other nodes
    /// reach this one): `/readyz` answers 503 before.
    pub(super) subscribed: AtomicBool,
    /// Woken when the subscription becomes active.
    pub(super) subscribed_notify: tokio::sync::Notify,
}

impl RelayState {
    /// A node's state before it serves: no rooms, not subscribed to the
    /// broker yet, not draining.
    pub(super) fn new(
        node_id: u64,
        auth: TokenAuthority,
        admin_secret: String,
        authority: String,
        config: RelayConfig,
        broker: Arc<dyn Broker>,
    ) -> RelayState {
        RelayState {
            node_id,
            next_conn: AtomicU64::new(1),
            auth,
            admin_secret,
            config,
            authority,
            rooms: RwLock::new(HashMap::new()),
            known_rooms: RwLock::new(HashSet::new()),
            broker,
            metrics: Arc::new(Metrics::default()),
            tokens: Tokens::default(),
            draining: AtomicBool::new(false),
            subscribed: AtomicBool::new(false),
            subscribed_notify: tokio::sync::Notify::new(),
        }
    }

    pub(crate) fn next_conn_id(&self) -> u64 {
        self.node_id | (self.next_conn.fetch_add(1, Ordering::Relaxed) & 0xffff_ffff_ffff)
    }

    /// The room, created on first use.
    pub(crate) fn room(&self, id: &str) -> Arc<Room> {
        if let Some(r) = self.rooms.read().ok().and_then(|m| m.get(id).cloned()) {
            return r;
        }
        let Ok(mut m) = self.rooms.write() else {
            return Arc::new(Room::new(id, &self.config.limits));
        };
        m.entry(id.to_string())
            .or_insert_with(|| {
                tracing::debug!(room = %id, "room created");
                Arc::new(Room::new(id, &self.config.limits))
            })
            .clone()
    }

    /// The room a new connection is joining, created if needed and held
    /// against pruning until the returned guard is dropped (after the join).
    pub(crate) fn arriving(&self, id: &str) -> room::Arriving {
        if let Ok(m) = self.rooms.read() {
            if let Some(r) = m.get(id) {
                return room::Arriving::new(r.clone());
            }
        }
        let Ok(mut m) = self.rooms.write() else {
            return room::Arriving::new(Arc::new(Room::new(id, &self.config.limits)));
        };
        let r = m
            .entry(id.to_string())
            .or_insert_with(|| {
                tracing::debug!(room = %id, "room created");
                Arc::new(Room::new(id, &self.config.limits))
            })
            .clone();
        room::Arriving::new(r)
    }

    pub(crate) fn existing_room(&self, id: &str) -> Option<Arc<Room>> {
        self.rooms.read().ok().and_then(|m| m.get(id).cloned())
    }

    pub(super) fn prune_idle_rooms(&self, now: Instant) {
        if let Ok(mut rooms) = self.rooms.write() {
            rooms.retain(|id, r| {
                let idle = r.is_idle(now);
                if idle {
                    tracing::debug!(room = %id, "idle room pruned");
                }
                !idle
            });
        }
    }

    pub(super) fn render_metrics(&self) -> String {
        let rooms = self.rooms.read().map_or(0, |m| m.len());
        if let Some(lag) = self.broker.lag() {
            self.metrics.set_broker_lag(lag);
        }
        self.metrics.render(rooms)
    }

    pub(super) fn all_rooms(&self) -> Vec<Arc<Room>> {
        self.rooms
            .read()
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Publishes a frame to other nodes; a replayable one is recorded in
    /// the shared history too (`prev`: its stream's previous chunk index).
    pub(crate) fn publish(&self, room: &str, frame: &Frame, prev: Option<u64>) {
        if frame.kind().is_replayable() {
            self.broker.record(room, self.node_id, frame.bytes(), prev);
        } else {
            self.broker.publish(room, self.node_id, frame.bytes());
        }
        if frame.kind() == cohost_protocol::FrameType::RoomClose {
            self.broker.forget(room);
        }
    }

    /// Creates (registers) a room; a random id when `room` is `None`.
    pub(crate) fn create_room(&self, room: Option<&str>) -> Result<String, RelayError> {
        let id = match room {
            Some(r) if is_valid_id(r) => r.to_string(),
            Some(r) => return Err(RelayError::InvalidRoom(r.to_string())),
            None => random_hex(10),
        };
        if let Ok(mut k) = self.known_rooms.write() {
            k.insert(id.clone());
        }
        Ok(id)
    }

    /// [`RelayState::create_room`], registered for every node sharing the
    /// broker (for as long as a token for the room may live).
    pub(crate) async fn create_shared_room(
        &self,
        room: Option<&str>,
    ) -> Result<String, RelayError> {
        let id = self.create_room(room)?;
        self.broker
            .register_room(&id, self.config.max_token_lifetime)
            .await?;
        Ok(id)
    }

    /// [`RelayState::mint_invite`] for a room created through any node: one
    /// this node does not know is looked up in the broker first.
    pub(crate) async fn mint_shared_invite(
        &self,
        room: &str,
        role: Role,
        ttl_secs: u64,
        name: &str,
    ) -> Result<(Invite, u64, String), RelayError> {
        if !self.knows_room(room) && is_valid_id(room) && self.broker.room_registered(room).await? {
            if let Ok(mut k) = self.known_rooms.write() {
                k.insert(room.to_string());
            }
        }
        self.mint_invite(room, role, ttl_secs, name)
    }

    fn knows_room(&self, room: &str) -> bool {
        self.known_rooms.read().is_ok_and(|k| k.contains(room))
    }

    /// Mints an invite for a room created on this node.
    pub(crate) fn mint_invite(
        &self,
        room: &str,
        role: Role,
        ttl_secs: u64,
        name: &str,
    ) -> Result<(Invite, u64, String), RelayError> {
        if !self.knows_room(room) {
            return Err(RelayError::UnknownRoom(room.to_string()));
        }
        let (token, claims) = self.auth.mint(room, role, ttl_secs, name)?;
        Ok((
            Invite {
                authority: self.authority.clone(),
                secure: self.config.public_tls,
                room: room.to_string(),
                token,
                // The host adds the end-to-end keys locally.
                keys: None,
            },
            claims.exp,
            claims.jti,
        ))
    }
}
