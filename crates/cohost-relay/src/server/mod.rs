//! The relay server: state, bind, handle.

mod admission;
mod coalesce;
mod conn;
mod outbox;
mod revoke;
mod tls;
pub(crate) use revoke::{kick_conn, Kicked};
mod room;
mod ws;

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use axum::routing::{get, post};
use axum::Router;
use cohost_protocol::{is_valid_id, ws_url, Frame, Invite, Role};
use tokio::sync::oneshot;

use crate::admin;
use crate::auth::{random_hex, TokenAuthority};
use crate::broker::{Broker, BrokerEvent, MemoryBroker};
use crate::config::RelayConfig;
use crate::metrics::Metrics;
use crate::RelayError;
use outbox::CloseReason;
pub(crate) use room::Room;

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
    pub(crate) tokens: revoke::Tokens,
    /// Set when shutdown starts: `/readyz` answers 503 so a load balancer
    /// stops sending new connections.
    pub(crate) draining: AtomicBool,
    /// Set once the broker subscription is active (frames from other nodes
    /// reach this one): `/readyz` answers 503 before.
    subscribed: AtomicBool,
    /// Woken when the subscription becomes active.
    subscribed_notify: tokio::sync::Notify,
}

impl RelayState {
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

    fn prune_idle_rooms(&self, now: Instant) {
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

    fn render_metrics(&self) -> String {
        let rooms = self.rooms.read().map_or(0, |m| m.len());
        if let Some(lag) = self.broker.lag() {
            self.metrics.set_broker_lag(lag);
        }
        self.metrics.render(rooms)
    }

    fn all_rooms(&self) -> Vec<Arc<Room>> {
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

    fn on_broker(&self, ev: BrokerEvent) {
        match ev {
            BrokerEvent::Frame {
                origin,
                room,
                frame,
            } => {
                if origin == self.node_id {
                    return;
                }
                let Ok(f) = Frame::decode(frame) else {
                    tracing::warn!(room, "broker delivered an undecodable frame; dropped");
                    return;
                };
                if f.room() != room {
                    return;
                }
                // A host's kick for a participant on this node (only nodes
                // publish to the broker, after checking the sender's role);
                // never fanned out to clients.
                if f.kind() == cohost_protocol::FrameType::RoomKick {
                    let here = self.rooms.read().ok().and_then(|m| m.get(&room).cloned());
                    if let (Some(r), Ok(k)) = (here, f.control::<cohost_protocol::Kick>()) {
                        revoke::kick(self, &r, k.conn_id);
                    }
                    return;
                }
                let r = self.room(&room);
                if let Err(e) = r.deliver(&f, None) {
                    tracing::debug!(room, error = %e, "broker frame not recorded");
                }
            }
            BrokerEvent::Resubscribed => {
                let shared = self.broker.has_history();
                for r in self.all_rooms() {
                    r.lost_frames(shared);
                    r.broker_gap();
                }
            }
            BrokerEvent::Subscribed => {
                self.subscribed.store(true, Ordering::SeqCst);
                self.subscribed_notify.notify_waiters();
            }
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

/// `GET /readyz`: 200 while accepting connections, 503 once draining.
async fn readyz(
    axum::extract::State(state): axum::extract::State<Arc<RelayState>>,
) -> (axum::http::StatusCode, &'static str) {
    if state.draining.load(Ordering::Relaxed) {
        (axum::http::StatusCode::SERVICE_UNAVAILABLE, "draining")
    } else if !state.subscribed.load(Ordering::SeqCst) {
        (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            "broker subscription not active yet",
        )
    } else {
        (axum::http::StatusCode::OK, "ready")
    }
}

/// `GET /metrics`: Prometheus text exposition.
async fn metrics(
    axum::extract::State(state): axum::extract::State<Arc<RelayState>>,
) -> impl axum::response::IntoResponse {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.render_metrics(),
    )
}

/// Longest [`Relay::bind`] waits for the broker subscription.
const SUBSCRIBE_WAIT: Duration = Duration::from_secs(5);

/// Longest a drain waits for closed connections to finish.
const DRAIN_WAIT: Duration = Duration::from_secs(5);

/// Entry point: `Relay::bind(config)`.
pub struct Relay;

/// A running relay. Dropping it does not stop the relay; call [`RelayHandle::shutdown`].
pub struct RelayHandle {
    addr: SocketAddr,
    state: Arc<RelayState>,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    /// Validates the settings ([`RelayConfig::validate`]), binds the listener
    /// and starts serving `/v1/rooms/{room}/ws`, `/admin/*`, `/healthz`,
    /// `/readyz` and `/metrics`.
    pub async fn bind(mut config: RelayConfig) -> Result<RelayHandle, RelayError> {
        config.validate()?;
        let tls = match &config.tls {
            Some((cert, key)) => {
                config.public_tls = true;
                Some(crate::tls::acceptor(cert, key).map_err(RelayError::Tls)?)
            }
            None => None,
        };
        let listener = tokio::net::TcpListener::bind(config.bind)
            .await
            .map_err(|e| RelayError::Bind(config.bind, e))?;
        let addr = listener
            .local_addr()
            .map_err(|e| RelayError::Bind(config.bind, e))?;
        let secret = config
            .jwt_secret
            .clone()
            .unwrap_or_else(|| random_hex(32).into_bytes());
        let admin_secret = config
            .admin_secret
            .clone()
            .unwrap_or_else(|| random_hex(24));
        let broker: Arc<dyn Broker> = config
            .broker
            .clone()
            .unwrap_or_else(|| Arc::new(MemoryBroker::default()));
        let mut node = [0u8; 2];
        let _ = getrandom::fill(&mut node); // zero node id is still unique enough for one node
        let state = Arc::new(RelayState {
            node_id: (u64::from(u16::from_be_bytes(node)) | 1) << 48,
            next_conn: AtomicU64::new(1),
            auth: TokenAuthority::with_max_lifetime(&secret, config.max_token_lifetime),
            admin_secret,
            authority: config
                .public_authority
                .clone()
                .unwrap_or_else(|| addr.to_string()),
            config,
            rooms: RwLock::new(HashMap::new()),
            known_rooms: RwLock::new(HashSet::new()),
            broker: broker.clone(),
            metrics: Arc::new(Metrics::default()),
            tokens: revoke::Tokens::default(),
            draining: AtomicBool::new(false),
            subscribed: AtomicBool::new(false),
            subscribed_notify: tokio::sync::Notify::new(),
        });
        {
            let weak = Arc::downgrade(&state);
            let subscribed = state.subscribed_notify.notified();
            tokio::pin!(subscribed);
            subscribed.as_mut().enable();
            broker.subscribe(Arc::new(move |ev| {
                if let Some(s) = weak.upgrade() {
                    s.on_broker(ev);
                }
            }));
            // Serve once frames from other nodes reach this one, so a
            // participant resuming here misses nothing published meanwhile
            // (bounded: Redis may be down; `/readyz` says 503 until it is up).
            if !state.subscribed.load(Ordering::SeqCst)
                && tokio::time::timeout(SUBSCRIBE_WAIT, subscribed)
                    .await
                    .is_err()
            {
                tracing::warn!(broker = broker.name(), "broker subscription not active yet; serving anyway (readyz stays 503 until it is)");
            }
        }
        let app = Router::new()
            .route("/v1/rooms/{room}/ws", get(ws::ws_handler))
            .route("/admin/rooms", post(admin::create_room))
            .route("/admin/rooms/{room}/invites", post(admin::create_invite))
            .route("/admin/rooms/{room}/kick", post(admin::kick))
            .route("/healthz", get(|| async { "ok" }))
            .route("/readyz", get(readyz))
            .route("/metrics", get(metrics))
            .merge(crate::web::routes())
            .with_state(state.clone());
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let admission = admission::Admission::new(
            state.config.limits.max_connections,
            state.config.limits.max_connections_per_ip,
            state.metrics.clone(),
        );
        let sweeper = Arc::downgrade(&admission);
        let deadline = state.config.limits.handshake_timeout;
        tokio::spawn(async move {
            let mut tick = tokio::time::interval((deadline / 4).max(Duration::from_millis(50)));
            loop {
                tick.tick().await;
                let Some(a) = sweeper.upgrade() else { break };
                a.sweep(Instant::now(), deadline);
            }
        });
        let janitor = Arc::downgrade(&state);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(30));
            loop {
                tick.tick().await;
                let Some(s) = janitor.upgrade() else { break };
                let now = Instant::now();
                s.prune_idle_rooms(now);
            }
        });
        tracing::info!(%addr, broker = broker.name(), "relay listening");
        let task = tokio::spawn(async move {
            let listener = admission::AdmissionListener {
                listener,
                admission,
            };
            let app = app.into_make_service_with_connect_info::<admission::Admitted>();
            let stop = async move {
                let _ = stop_rx.await;
            };
            let served = match tls {
                Some(acceptor) => {
                    let listener = tls::TlsListener::new(listener, acceptor, deadline);
                    axum::serve(listener, app)
                        .with_graceful_shutdown(stop)
                        .await
                }
                None => {
                    axum::serve(listener, app)
                        .with_graceful_shutdown(stop)
                        .await
                }
            };
            if let Err(e) = served {
                tracing::error!(error = %e, "relay server stopped with an error");
            }
        });
        Ok(RelayHandle {
            addr,
            state,
            stop: Some(stop_tx),
            task,
        })
    }
}

impl RelayHandle {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `host:port` used in invites.
    pub fn authority(&self) -> &str {
        &self.state.authority
    }

    /// The admin bearer secret (generated if not configured): print it for the operator.
    pub fn admin_secret(&self) -> &str {
        &self.state.admin_secret
    }

    /// This node's id (high 16 bits of every connection id it assigns).
    pub fn node_id(&self) -> u64 {
        self.state.node_id
    }

    /// The WebSocket URL of a room on this relay.
    pub fn ws_url(&self, room: &str) -> String {
        ws_url(&self.state.authority, self.state.config.public_tls, room)
    }

    /// Same as `POST /admin/rooms`: registers a room (random id if `None`) and returns its id.
    pub fn create_room(&self, room: Option<&str>) -> Result<String, RelayError> {
        self.state.create_room(room)
    }

    /// Same as `POST /admin/rooms/{room}/invites`: an invite for `role`, valid `ttl_secs`.
    pub fn mint_invite(
        &self,
        room: &str,
        role: Role,
        ttl_secs: u64,
        name: &str,
    ) -> Result<Invite, RelayError> {
        self.state
            .mint_invite(room, role, ttl_secs, name)
            .map(|(i, _, _)| i)
    }

    /// Number of local connections in a room.
    pub fn participants(&self, room: &str) -> usize {
        self.state
            .existing_room(room)
            .map_or(0, |r| r.member_count())
    }

    /// Prometheus text of this node's metrics (what `GET /metrics` serves).
    pub fn metrics_text(&self) -> String {
        self.state.render_metrics()
    }

    /// Drains the node: `/readyz` turns 503, new upgrades are refused, every
    /// connection is closed with 1001 (going away: clients reconnect at once,
    /// through the load balancer to another node, and resume), the frames
    /// already received are flushed to the broker, then the listener stops.
    pub async fn shutdown(mut self) {
        self.state.draining.store(true, Ordering::Relaxed);
        tracing::info!(addr = %self.addr, "draining: closing every connection with 1001");
        for r in self.state.all_rooms() {
            for c in r.members() {
                c.outbox.close(CloseReason::Shutdown);
            }
        }
        let end = Instant::now() + DRAIN_WAIT;
        while Instant::now() < end && self.state.all_rooms().iter().any(|r| r.member_count() > 0) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.state.broker.flush().await;
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        let _ = tokio::time::timeout(DRAIN_WAIT, &mut self.task).await;
    }
}
