//! Redis broker: pub/sub for live fan-out, Streams for shared replay history,
//! plain keys for the room registry.
//!
//! Keyspace (`<p>` is the prefix, `cohost` for `cohost relay`):
//! - `<p>:room:<room>`: pub/sub channel; body = 8-byte big-endian origin node
//!   id followed by the encoded frame. Each node PSUBSCRIBEs `<p>:room:*`.
//! - `<p>:history:<room>`: stream of the room's replayable frames (field `f`:
//!   the frame, `p`: the stream's previous chunk index), trimmed by length
//!   (`MAXLEN ~`) and age (`MINID ~`), expiring with the room's last frame.
//! - `<p>:epoch:<room>`: the history's incarnation, created with its first
//!   entry and dropped with it.
//! - `<p>:registered:<room>`: a room created through any node, for as long
//!   as a token for it may live.
//! - `<p>:revoked:<room>`: reserved for the deny-list of revoked token ids (a
//!   set), so a revocation made through one node holds on every node.
//!
//! Publishing goes through one task that pipelines commands in order over an
//! auto-reconnecting connection manager: a frame's `XADD` precedes its
//! `PUBLISH`, so a node that sees it live finds it in the history too.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::StreamExt;
use redis::aio::ConnectionManager;
use tokio::sync::{mpsc, oneshot};

use super::{Broker, BrokerError, BrokerEvent, BrokerSink, History, HistoryEntry};

const PUBLISH_QUEUE: usize = 65_536;
const PIPELINE_MAX: usize = 512;
/// History bounds below this many frames are trimmed exactly.
const EXACT_TRIM_BELOW: usize = 1000;
/// Most entries read from a history per round trip.
const HISTORY_PAGE: usize = 1000;
/// Entries in the first page of a history read (their size is unknown yet).
const FIRST_PAGE: usize = 64;

/// Bytes of the fields of some raw history entries.
fn entries_len(entries: &[RawEntry]) -> usize {
    entries
        .iter()
        .map(|(_, f)| f.iter().map(Vec::len).sum::<usize>())
        .sum()
}

/// How long and how far back the shared history reaches.
#[derive(Debug, Clone, Copy)]
pub struct HistoryBounds {
    /// Most entries kept per room (approximately: trimmed with `MAXLEN ~`).
    pub max_frames: usize,
    /// Entries older than this are trimmed (`MINID ~`), and a room's history
    /// expires this long after its last frame.
    pub max_age: Duration,
}

impl Default for HistoryBounds {
    fn default() -> Self {
        let l = crate::config::Limits::default();
        HistoryBounds {
            max_frames: l.ring_max_frames,
            max_age: l.ring_max_age,
        }
    }
}

/// What the publisher task is asked to do.
enum Out {
    Publish {
        room: String,
        body: Bytes,
    },
    Record {
        room: String,
        body: Bytes,
        frame: Bytes,
        prev: Option<u64>,
    },
    Forget {
        room: String,
    },
    Flush(oneshot::Sender<()>),
}

/// Key names under one prefix.
#[derive(Clone)]
struct Keys {
    prefix: String,
}

impl Keys {
    fn channel(&self, room: &str) -> String {
        format!("{}:room:{room}", self.prefix)
    }
    fn history(&self, room: &str) -> String {
        format!("{}:history:{room}", self.prefix)
    }
    fn epoch(&self, room: &str) -> String {
        format!("{}:epoch:{room}", self.prefix)
    }
    fn registered(&self, room: &str) -> String {
        format!("{}:registered:{room}", self.prefix)
    }
}

/// Redis broker.
pub struct RedisBroker {
    client: redis::Client,
    conn: ConnectionManager,
    url: String,
    keys: Keys,
    tx: mpsc::Sender<(Instant, Out)>,
    lag_micros: Arc<AtomicU64>,
    /// This node's own revocations, known before Redis answers.
    denied: super::deny::DenyList,
}

fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}***{}", &url[..s + 3], &url[at..]),
        _ => url.to_string(),
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

/// Adds one batch of queued work to `pipe`; returns the flush waiters.
fn build_batch(
    keys: &Keys,
    bounds: HistoryBounds,
    batch: Vec<(Instant, Out)>,
    pipe: &mut redis::Pipeline,
) -> Vec<oneshot::Sender<()>> {
    let age_ms = millis(bounds.max_age);
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let mut recorded: Vec<String> = Vec::new();
    let mut flushes = Vec::new();
    for (_, out) in batch {
        match out {
            Out::Publish { room, body } => {
                pipe.cmd("PUBLISH")
                    .arg(keys.channel(&room))
                    .arg(&body[..])
                    .ignore();
            }
            Out::Record {
                room,
                body,
                frame,
                prev,
            } => {
                if !recorded.contains(&room) {
                    // The first entry of a new history starts a new epoch.
                    pipe.cmd("SET")
                        .arg(keys.epoch(&room))
                        .arg(crate::auth::random_hex(8))
                        .arg("NX")
                        .arg("PX")
                        .arg(age_ms)
                        .ignore();
                    recorded.push(room.clone());
                }
                let mut xadd = redis::cmd("XADD");
                // Approximate trimming is cheaper but works per 100-entry
                // node: small bounds are kept exactly.
                let how = if bounds.max_frames < EXACT_TRIM_BELOW {
                    "="
                } else {
                    "~"
                };
                xadd.arg(keys.history(&room))
                    .arg("MAXLEN")
                    .arg(how)
                    .arg(bounds.max_frames.max(1))
                    .arg("*")
                    .arg("f")
                    .arg(&frame[..]);
                if let Some(p) = prev {
                    xadd.arg("p").arg(p);
                }
                pipe.add_command(xadd).ignore();
                pipe.cmd("PUBLISH")
                    .arg(keys.channel(&room))
                    .arg(&body[..])
                    .ignore();
            }
            Out::Forget { room } => {
                pipe.cmd("DEL")
                    .arg(keys.history(&room))
                    .arg(keys.epoch(&room))
                    .ignore();
            }
            Out::Flush(tx) => flushes.push(tx),
        }
    }
    for room in recorded {
        let min_id = format!("{}-0", now_ms.saturating_sub(age_ms));
        pipe.cmd("XTRIM")
            .arg(keys.history(&room))
            .arg("MINID")
            .arg("~")
            .arg(min_id)
            .ignore();
        pipe.cmd("PEXPIRE")
            .arg(keys.history(&room))
            .arg(age_ms)
            .ignore();
        pipe.cmd("PEXPIRE")
            .arg(keys.epoch(&room))
            .arg(age_ms)
            .ignore();
    }
    flushes
}

/// One history entry as Redis returns it: id and flat field/value list.
type RawEntry = (String, Vec<Vec<u8>>);

fn parse_entry((offset, fields): RawEntry) -> Option<HistoryEntry> {
    let mut frame = None;
    let mut prev = None;
    for kv in fields.chunks(2) {
        match (kv.first().map(Vec::as_slice), kv.get(1)) {
            (Some(b"f"), Some(v)) => frame = Some(Bytes::copy_from_slice(v)),
            (Some(b"p"), Some(v)) => {
                prev = std::str::from_utf8(v).ok().and_then(|s| s.parse().ok());
            }
            _ => {}
        }
    }
    Some(HistoryEntry {
        offset,
        frame: frame?,
        prev,
    })
}

impl RedisBroker {
    /// Connects to `url` (e.g. `redis://127.0.0.1:6379/`) with the default
    /// history bounds and starts the publisher. `prefix` namespaces every key
    /// and channel so several relay clusters can share one Redis.
    pub async fn connect(url: &str, prefix: &str) -> Result<RedisBroker, BrokerError> {
        RedisBroker::connect_with(url, prefix, HistoryBounds::default()).await
    }

    /// [`RedisBroker::connect`] with the history bounded by `bounds`.
    pub async fn connect_with(
        url: &str,
        prefix: &str,
        bounds: HistoryBounds,
    ) -> Result<RedisBroker, BrokerError> {
        let err = |e: redis::RedisError| BrokerError::Redis {
            url: redact(url),
            message: e.to_string(),
        };
        let client = redis::Client::open(url).map_err(err)?;
        let conn = client.get_connection_manager().await.map_err(err)?;
        let keys = Keys {
            prefix: prefix.to_string(),
        };
        let lag_micros = Arc::new(AtomicU64::new(0));
        let (tx, mut rx) = mpsc::channel::<(Instant, Out)>(PUBLISH_QUEUE);
        let (mut pub_conn, pub_keys, lag) = (conn.clone(), keys.clone(), lag_micros.clone());
        tokio::spawn(async move {
            let mut batch = Vec::with_capacity(PIPELINE_MAX);
            while rx.recv_many(&mut batch, PIPELINE_MAX).await > 0 {
                let oldest = batch.first().map_or_else(Instant::now, |(t, _)| *t);
                let mut pipe = redis::pipe();
                let flushes = build_batch(&pub_keys, bounds, std::mem::take(&mut batch), &mut pipe);
                if let Err(e) = pipe.query_async::<()>(&mut pub_conn).await {
                    tracing::warn!(error = %e, "redis publish failed; frames for other nodes and the shared history were lost");
                }
                let waited = u64::try_from(oldest.elapsed().as_micros()).unwrap_or(u64::MAX);
                lag.store(waited, Ordering::Relaxed);
                for f in flushes {
                    let _woken = f.send(());
                }
            }
        });
        Ok(RedisBroker {
            client,
            conn,
            url: redact(url),
            keys,
            tx,
            lag_micros,
            denied: super::deny::DenyList::default(),
        })
    }

    fn queue(&self, out: Out, room: &str, len: usize) {
        if self.tx.try_send((Instant::now(), out)).is_err() {
            tracing::warn!(
                room,
                len,
                "redis publish queue full; frame not sent to other nodes"
            );
        }
    }

    fn body(origin: u64, frame: &Bytes) -> Bytes {
        let mut body = Vec::with_capacity(8 + frame.len());
        body.extend_from_slice(&origin.to_be_bytes());
        body.extend_from_slice(frame);
        Bytes::from(body)
    }

    async fn listen(
        client: &redis::Client,
        pattern: &str,
        prefix_len: usize,
        sink: &BrokerSink,
        resubscribed: bool,
    ) -> Result<(), redis::RedisError> {
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.psubscribe(pattern).await?;
        if resubscribed {
            sink(BrokerEvent::Resubscribed);
        }
        sink(BrokerEvent::Subscribed);
        let mut stream = pubsub.on_message();
        while let Some(msg) = stream.next().await {
            let body = msg.get_payload_bytes();
            if body.len() < 8 {
                continue;
            }
            let mut o = [0u8; 8];
            o.copy_from_slice(&body[..8]);
            let room = msg
                .get_channel_name()
                .get(prefix_len..)
                .unwrap_or("")
                .to_string();
            sink(BrokerEvent::Frame {
                origin: u64::from_be_bytes(o),
                room,
                frame: Bytes::copy_from_slice(&body[8..]),
            });
        }
        Ok(())
    }

    /// Reads the newest entries of a room's history, newest page first, up
    /// to `max` entries or about `max_bytes` (whichever comes first). Pages
    /// start small and grow with the entries' average size, so a history of
    /// large frames is never pulled in one huge reply.
    async fn read_history(
        &self,
        room: &str,
        max: usize,
        max_bytes: usize,
    ) -> Result<History, redis::RedisError> {
        let mut conn = self.conn.clone();
        let key = self.keys.history(room);
        let mut asked = FIRST_PAGE.min(max.max(1));
        let (epoch, first): (Option<String>, Vec<RawEntry>) = redis::pipe()
            .atomic()
            .cmd("GET")
            .arg(self.keys.epoch(room))
            .cmd("XREVRANGE")
            .arg(&key)
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(asked)
            .query_async(&mut conn)
            .await?;
        let mut bytes = entries_len(&first);
        let mut got = first.len();
        let mut newest_first = first;
        while got == asked && newest_first.len() < max && bytes < max_bytes {
            let Some((oldest, _)) = newest_first.last() else {
                break;
            };
            let avg = (bytes / newest_first.len()).max(1);
            asked = ((max_bytes - bytes) / avg)
                .clamp(1, HISTORY_PAGE)
                .min(max - newest_first.len());
            let more: Vec<RawEntry> = redis::cmd("XREVRANGE")
                .arg(&key)
                .arg(format!("({oldest}"))
                .arg("-")
                .arg("COUNT")
                .arg(asked)
                .query_async(&mut conn)
                .await?;
            bytes += entries_len(&more);
            got = more.len();
            newest_first.extend(more);
        }
        let entries = newest_first
            .into_iter()
            .rev()
            .filter_map(parse_entry)
            .collect();
        Ok(History { epoch, entries })
    }

    fn redis_err(&self, e: &redis::RedisError) -> BrokerError {
        BrokerError::Redis {
            url: self.url.clone(),
            message: e.to_string(),
        }
    }
}

impl Broker for RedisBroker {
    fn publish(&self, room: &str, origin: u64, frame: &Bytes) {
        let out = Out::Publish {
            room: room.to_string(),
            body: RedisBroker::body(origin, frame),
        };
        self.queue(out, room, frame.len());
    }

    fn record(&self, room: &str, origin: u64, frame: &Bytes, prev: Option<u64>) {
        let out = Out::Record {
            room: room.to_string(),
            body: RedisBroker::body(origin, frame),
            frame: frame.clone(),
            prev,
        };
        self.queue(out, room, frame.len());
    }

    fn has_history(&self) -> bool {
        true
    }

    fn history(
        &self,
        room: &str,
        max: usize,
        max_bytes: usize,
    ) -> BoxFuture<'_, Result<History, BrokerError>> {
        let room = room.to_string();
        Box::pin(async move {
            self.read_history(&room, max, max_bytes)
                .await
                .map_err(|e| self.redis_err(&e))
        })
    }

    fn forget(&self, room: &str) {
        let out = Out::Forget {
            room: room.to_string(),
        };
        self.queue(out, room, 0);
    }

    fn register_room(&self, room: &str, ttl: Duration) -> BoxFuture<'_, Result<(), BrokerError>> {
        let key = self.keys.registered(room);
        Box::pin(async move {
            let mut conn = self.conn.clone();
            redis::cmd("SET")
                .arg(key)
                .arg(1)
                .arg("EX")
                .arg(ttl.as_secs().max(1))
                .query_async::<()>(&mut conn)
                .await
                .map_err(|e| self.redis_err(&e))
        })
    }

    fn room_registered(&self, room: &str) -> BoxFuture<'_, Result<bool, BrokerError>> {
        let key = self.keys.registered(room);
        Box::pin(async move {
            let mut conn = self.conn.clone();
            redis::cmd("EXISTS")
                .arg(key)
                .query_async::<bool>(&mut conn)
                .await
                .map_err(|e| self.redis_err(&e))
        })
    }

    fn flush(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let (tx, rx) = oneshot::channel();
            if self.tx.send((Instant::now(), Out::Flush(tx))).await.is_ok() {
                let _flushed = rx.await;
            }
        })
    }

    fn lag(&self) -> Option<Duration> {
        Some(Duration::from_micros(
            self.lag_micros.load(Ordering::Relaxed),
        ))
    }

    fn subscribe(&self, sink: BrokerSink) {
        let client = self.client.clone();
        let url = self.url.clone();
        let pattern = format!("{}:room:*", self.keys.prefix);
        let prefix_len = pattern.len() - 1;
        tokio::spawn(async move {
            let mut backoff = Duration::from_millis(50);
            let mut first = true;
            loop {
                let started = std::time::Instant::now();
                match RedisBroker::listen(&client, &pattern, prefix_len, &sink, !first).await {
                    Ok(()) => tracing::warn!(url = %url, "redis subscription ended; resubscribing"),
                    Err(e) => {
                        tracing::warn!(url = %url, error = %e, "redis subscription failed; retrying");
                    }
                }
                first = false;
                if started.elapsed() > Duration::from_secs(5) {
                    backoff = Duration::from_millis(50);
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(2));
            }
        });
    }

    fn name(&self) -> &'static str {
        "redis"
    }

    fn revoke(&self, jti: &str, exp: u64) {
        super::deny::redis_revoke(&self.client, &self.keys.prefix, &self.denied, jti, exp);
    }

    fn is_revoked<'a>(&'a self, jti: &'a str) -> futures::future::BoxFuture<'a, bool> {
        Box::pin(super::deny::redis_is_revoked(
            &self.client,
            &self.keys.prefix,
            &self.denied,
            jti,
        ))
    }
}
