//! The relay server: state, bind, handle.

mod admission;
mod broker_events;
mod coalesce;
mod conn;
mod outbox;
pub(crate) mod revoke;
mod room;
mod socket;
pub(crate) mod state;
mod tls;
mod tokens;
mod ws;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::routing::{get, post};
use axum::Router;
use cohost_protocol::{ws_url, Invite, Role};
use tokio::sync::oneshot;

use crate::admin;
use crate::auth::{random_hex, TokenAuthority};
use crate::broker::{Broker, MemoryBroker};
use crate::config::RelayConfig;
use crate::RelayError;
use outbox::CloseReason;
use state::RelayState;

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
        let auth = TokenAuthority::with_max_lifetime(&secret, config.max_token_lifetime);
        let authority = config
            .public_authority
            .clone()
            .unwrap_or_else(|| addr.to_string());
        let state = Arc::new(RelayState::new(
            (u64::from(u16::from_be_bytes(node)) | 1) << 48,
            auth,
            admin_secret,
            authority,
            config,
            broker.clone(),
        ));
        {
            let weak = Arc::downgrade(&state);
            let subscribed = state.subscribed_notify.notified();
            tokio::pin!(subscribed);
            subscribed.as_mut().enable();
            broker.subscribe(Arc::new(move |ev| {
                if let Some(s) = weak.upgrade() {
                    broker_events::on_broker(&s, ev);
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
