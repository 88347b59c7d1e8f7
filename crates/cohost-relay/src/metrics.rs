//! Relay counters and gauges, exposed as Prometheus text on `GET /metrics`.
//!
//! Hand-rolled (a dozen atomics and one `format!`) rather than a metrics
//! crate: the relay needs no labels beyond the role and no histograms yet.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use cohost_protocol::Role;

/// Every number the relay exports. Cheap to bump from any task.
#[derive(Debug, Default)]
pub struct Metrics {
    conns_host: AtomicI64,
    conns_co_driver: AtomicI64,
    conns_viewer: AtomicI64,
    /// Upgraded sockets that have not presented a valid token yet.
    pub(crate) conns_unauthenticated: AtomicI64,
    /// Frames written to participants' sockets.
    pub(crate) deliveries: AtomicU64,
    /// Live chunks dropped for a slow consumer (replaced by a `room.gap`).
    pub(crate) drops: AtomicU64,
    /// Frames sent from the replay ring.
    pub(crate) replay_hits: AtomicU64,
    /// Streams a resume could not be served completely (`room.resync`).
    pub(crate) replay_misses: AtomicU64,
    /// Connections closed with 4408 (slow consumer or stalled writes).
    pub(crate) slow_consumer_disconnects: AtomicU64,
    /// Frames refused (forbidden, malformed, too large, rate limited...).
    pub(crate) refused_frames: AtomicU64,
    /// Connections closed with 4429 for repeated refused frames.
    pub(crate) abuse_disconnects: AtomicU64,
    /// Connections refused before the upgrade because a cap was reached.
    pub(crate) capped_connections: AtomicU64,
    /// Failed `accept` calls (out of file descriptors, mostly).
    pub(crate) accept_errors: AtomicU64,
    /// Unauthenticated connections closed to make room or at their deadline.
    pub(crate) evictions: AtomicU64,
    /// Frames filled into rings from the shared history (Redis Streams).
    pub(crate) history_frames: AtomicU64,
    /// Connections closed with 1001 by a drain.
    pub(crate) drained: AtomicU64,
    /// Last broker publish round trip, microseconds (queue wait included).
    broker_lag_micros: AtomicU64,
}

impl Metrics {
    fn role_gauge(&self, role: Role) -> &AtomicI64 {
        match role {
            Role::Host => &self.conns_host,
            Role::CoDriver => &self.conns_co_driver,
            Role::Viewer => &self.conns_viewer,
        }
    }

    /// Counts an authenticated connection until the guard is dropped.
    pub(crate) fn connected(self: &std::sync::Arc<Self>, role: Role) -> RoleGuard {
        self.role_gauge(role).fetch_add(1, Ordering::Relaxed);
        RoleGuard {
            metrics: self.clone(),
            role,
        }
    }

    /// Records the broker's latest publish lag.
    pub(crate) fn set_broker_lag(&self, lag: std::time::Duration) {
        let us = u64::try_from(lag.as_micros()).unwrap_or(u64::MAX);
        self.broker_lag_micros.store(us, Ordering::Relaxed);
    }

    /// Prometheus text exposition (format 0.0.4); `rooms` is sampled by the caller.
    pub fn render(&self, rooms: usize) -> String {
        let g = |a: &AtomicI64| a.load(Ordering::Relaxed);
        let c = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let mut out = String::new();
        let mut metric = |name: &str, kind: &str, help: &str, rows: &[(&str, i128)]| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
            for (labels, v) in rows {
                let _ = writeln!(out, "{name}{labels} {v}");
            }
        };
        metric(
            "cohost_relay_connections",
            "gauge",
            "Open WebSocket connections by role (unauthenticated: no valid token yet).",
            &[
                ("{role=\"host\"}", g(&self.conns_host).into()),
                ("{role=\"co_driver\"}", g(&self.conns_co_driver).into()),
                ("{role=\"viewer\"}", g(&self.conns_viewer).into()),
                (
                    "{role=\"unauthenticated\"}",
                    g(&self.conns_unauthenticated).into(),
                ),
            ],
        );
        let counters: [(&str, &str, &AtomicU64); 12] = [
            (
                "cohost_relay_history_frames_total",
                "Frames filled into replay rings from the shared history (Redis Streams).",
                &self.history_frames,
            ),
            (
                "cohost_relay_drained_connections_total",
                "Connections closed with 1001 while the node drained (SIGTERM).",
                &self.drained,
            ),
            (
                "cohost_relay_deliveries_total",
                "Frames written to participants' sockets.",
                &self.deliveries,
            ),
            (
                "cohost_relay_drops_total",
                "Live chunks dropped for a slow consumer (a room.gap was sent).",
                &self.drops,
            ),
            (
                "cohost_relay_replay_hits_total",
                "Frames replayed from the ring.",
                &self.replay_hits,
            ),
            (
                "cohost_relay_replay_misses_total",
                "Streams a resume could not replay completely (room.resync sent).",
                &self.replay_misses,
            ),
            (
                "cohost_relay_slow_consumer_disconnects_total",
                "Connections closed with 4408: over the outbox limit or a stalled write.",
                &self.slow_consumer_disconnects,
            ),
            (
                "cohost_relay_refused_frames_total",
                "Frames refused (forbidden, malformed, too large, rate limited).",
                &self.refused_frames,
            ),
            (
                "cohost_relay_abuse_disconnects_total",
                "Connections closed with 4429 after repeated refused frames.",
                &self.abuse_disconnects,
            ),
            (
                "cohost_relay_capped_connections_total",
                "Connections refused because a per-IP or total cap was reached.",
                &self.capped_connections,
            ),
            (
                "cohost_relay_accept_errors_total",
                "Failed accept calls (out of file descriptors, mostly); the relay backs off.",
                &self.accept_errors,
            ),
            (
                "cohost_relay_evictions_total",
                "Unauthenticated connections closed to make room or at the handshake deadline.",
                &self.evictions,
            ),
        ];
        for (name, help, v) in counters {
            metric(name, "counter", help, &[("", c(v).into())]);
        }
        metric(
            "cohost_relay_rooms",
            "gauge",
            "Rooms held on this node.",
            &[("", i128::try_from(rooms).unwrap_or(i128::MAX))],
        );
        let lag = c(&self.broker_lag_micros);
        let _ = writeln!(
            out,
            "# HELP cohost_relay_broker_lag_seconds Time the last batch of frames took from queueing to the broker's (Redis) answer.\n\
             # TYPE cohost_relay_broker_lag_seconds gauge\ncohost_relay_broker_lag_seconds {}.{:06}",
            lag / 1_000_000,
            lag % 1_000_000
        );
        out
    }
}

/// Keeps one connection counted under its role.
pub(crate) struct RoleGuard {
    metrics: std::sync::Arc<Metrics>,
    role: Role,
}

impl Drop for RoleGuard {
    fn drop(&mut self) {
        self.metrics
            .role_gauge(self.role)
            .fetch_sub(1, Ordering::Relaxed);
    }
}

/// Bumps a counter by `n`.
pub(crate) fn add(counter: &AtomicU64, n: usize) {
    counter.fetch_add(u64::try_from(n).unwrap_or(u64::MAX), Ordering::Relaxed);
}
