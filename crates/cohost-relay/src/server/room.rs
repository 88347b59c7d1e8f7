//! Room state on one node: local connections, presence, replay ring, fan-out.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Instant;

use cohost_protocol::{
    ErrorCode, ErrorPayload, Frame, FrameType, Participant, Resume, Resync, Role, Welcome,
};

use super::outbox::{CloseReason, Outbox};
use crate::broker::{Broker, History};
use crate::config::Limits;
use crate::metrics::add;
use crate::ring::{Cursor, OutOfOrder, Ring};

/// One local connection.
pub(crate) struct Conn {
    pub(crate) id: u64,
    pub(crate) role: Role,
    pub(crate) name: String,
    pub(crate) outbox: Outbox,
    /// A replay in progress, streamed from the ring as the socket drains.
    pub(crate) replay: Mutex<Option<Cursor>>,
}

impl Conn {
    pub(crate) fn participant(&self) -> Participant {
        Participant {
            conn_id: self.id,
            role: self.role,
            name: self.name.clone(),
        }
    }

    /// Queues a `room.error` for this connection.
    pub(crate) fn error(
        &self,
        room: &str,
        code: ErrorCode,
        message: String,
        ty: Option<FrameType>,
    ) {
        let p = ErrorPayload {
            code,
            message,
            frame_type: ty.map(|t| t.name().to_string()),
        };
        if let Ok(f) = Frame::control_frame(FrameType::RoomError, room, None, &p) {
            self.outbox.push(f.bytes().clone());
        }
    }
}

/// A room on this node.
pub(crate) struct Room {
    pub(crate) id: String,
    members: RwLock<Vec<Arc<Conn>>>,
    presence: Mutex<BTreeMap<u64, Participant>>,
    ring: Mutex<Ring>,
    closed: std::sync::atomic::AtomicBool,
    /// Connections between handshake and join: the room is not idle while any
    /// is on its way in (else the janitor could drop it and the late joiner
    /// would be alone in a room nobody else can reach).
    arriving: std::sync::atomic::AtomicUsize,
    /// Whether the ring was filled from the shared history since this node
    /// last lost frames (always false without one).
    hydrated: std::sync::atomic::AtomicBool,
    /// Serializes fills from the shared history; holds the epoch of the
    /// history last filled from.
    hydrating: tokio::sync::Mutex<Option<String>>,
}

/// A connection on its way into a room; keeps the room from being pruned
/// until the join is done or abandoned.
pub(crate) struct Arriving {
    room: Arc<Room>,
}

impl Arriving {
    /// Counts a connection as arriving. Call under the rooms map lock, so a
    /// concurrent prune either sees it or has already removed the room.
    pub(crate) fn new(room: Arc<Room>) -> Arriving {
        room.arriving
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Arriving { room }
    }
}

impl std::ops::Deref for Arriving {
    type Target = Arc<Room>;
    fn deref(&self) -> &Arc<Room> {
        &self.room
    }
}

impl Drop for Arriving {
    fn drop(&mut self) {
        self.room
            .arriving
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Room {
    pub(crate) fn new(id: &str, limits: &Limits) -> Room {
        Room {
            id: id.to_string(),
            members: RwLock::new(Vec::new()),
            presence: Mutex::new(BTreeMap::new()),
            ring: Mutex::new(Ring::new(
                limits.ring_max_bytes,
                limits.ring_max_frames,
                limits.ring_max_age,
            )),
            closed: std::sync::atomic::AtomicBool::new(false),
            arriving: std::sync::atomic::AtomicUsize::new(0),
            hydrated: std::sync::atomic::AtomicBool::new(false),
            hydrating: tokio::sync::Mutex::new(None),
        }
    }

    /// Whether the host closed the room (new joins are refused).
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(crate) fn member_count(&self) -> usize {
        self.members.read().map_or(0, |m| m.len())
    }

    /// Whether the room has no local members and nothing replayable left.
    pub(crate) fn is_idle(&self, now: Instant) -> bool {
        let mut ring = lock(&self.ring);
        ring.evict(now);
        self.member_count() == 0
            && ring.is_empty()
            && self.arriving.load(std::sync::atomic::Ordering::SeqCst) == 0
    }

    pub(crate) fn members(&self) -> Vec<Arc<Conn>> {
        self.members.read().map(|m| m.clone()).unwrap_or_default()
    }

    /// Adds a connection if the room has space; sends it `room.welcome` and
    /// returns the `presence.join` frame to publish.
    pub(crate) fn join(&self, conn: &Arc<Conn>, max: usize) -> Option<Frame> {
        {
            let Ok(mut m) = self.members.write() else {
                return None;
            };
            if m.len() >= max {
                return None;
            }
            m.push(conn.clone());
        }
        let participants = {
            let mut p = lock(&self.presence);
            p.insert(conn.id, conn.participant());
            p.values().cloned().collect()
        };
        let welcome = Welcome {
            room: self.id.clone(),
            you: conn.participant(),
            participants,
        };
        if let Ok(f) = Frame::control_frame(FrameType::RoomWelcome, &self.id, None, &welcome) {
            conn.outbox.push(f.bytes().clone());
        }
        Frame::control_frame(FrameType::PresenceJoin, &self.id, None, &conn.participant()).ok()
    }

    /// Removes a connection; returns the `presence.leave` frame to publish.
    pub(crate) fn leave(&self, conn: &Conn) -> Option<Frame> {
        if let Ok(mut m) = self.members.write() {
            m.retain(|c| c.id != conn.id);
        }
        lock(&self.presence).remove(&conn.id);
        Frame::control_frame(
            FrameType::PresenceLeave,
            &self.id,
            None,
            &conn.participant(),
        )
        .ok()
    }

    /// Records a replayable frame (if it is one) and fans it out to local members
    /// other than `except`. Ring push and fan-out happen under the ring lock so a
    /// concurrent resume sees a consistent order. Returns the stream's
    /// previous chunk index, for the shared history.
    pub(crate) fn deliver(
        &self,
        frame: &Frame,
        except: Option<u64>,
    ) -> Result<Option<u64>, OutOfOrder> {
        let mut prev = None;
        if frame.kind().is_replayable() {
            let mut ring = lock(&self.ring);
            prev = ring.push(frame.clone(), Instant::now())?;
            self.fanout(frame, except);
            drop(ring);
        } else {
            self.observe_presence(frame);
            self.fanout(frame, except);
        }
        if frame.kind() == FrameType::RoomClose {
            self.closed
                .store(true, std::sync::atomic::Ordering::Relaxed);
            for c in self.members() {
                c.outbox.close(CloseReason::RoomClosed);
            }
        }
        Ok(prev)
    }

    /// Fills the ring from the shared history once (again after a
    /// [`Room::lost_frames`]), so a participant resuming on a node that did
    /// not see the whole stream still gets every chunk the history holds.
    /// Concurrent callers wait for the first. A failed read is logged and
    /// retried at the next resume; the local ring serves meanwhile.
    pub(crate) async fn hydrate(&self, broker: &dyn Broker, limits: &Limits) -> usize {
        use std::sync::atomic::Ordering::SeqCst;
        if !broker.has_history() || self.hydrated.load(SeqCst) {
            return 0;
        }
        let mut epoch = self.hydrating.lock().await;
        if self.hydrated.load(SeqCst) {
            return 0;
        }
        let (frames, bytes) = (limits.ring_max_frames, limits.ring_max_bytes);
        match broker.history(&self.id, frames, bytes).await {
            Ok(h) => {
                let n = self.backfill(h, &mut epoch);
                self.hydrated.store(true, SeqCst);
                n
            }
            Err(e) => {
                tracing::warn!(room = %self.id, error = %e, "shared history unavailable; replaying from this node's ring");
                0
            }
        }
    }

    fn backfill(&self, h: History, last_epoch: &mut Option<String>) -> usize {
        let mut ring = lock(&self.ring);
        if last_epoch.is_some() && *last_epoch != h.epoch {
            // A new incarnation of the history: what this node holds from
            // the old one is stale.
            ring.clear();
        }
        last_epoch.clone_from(&h.epoch);
        let frames = h
            .entries
            .into_iter()
            .filter_map(|e| {
                let f = Frame::decode(e.frame).ok()?;
                (f.room() == self.id && f.kind().is_replayable()).then_some((f, e.prev))
            })
            .collect();
        let n = ring.backfill(frames, Instant::now());
        tracing::debug!(room = %self.id, added = n, held = ring.len(), "ring filled from the shared history");
        n
    }

    /// This node missed frames (its broker subscription dropped): with a
    /// shared history the ring is emptied and filled again from it at the
    /// next resume, so no later replay has a silent hole.
    pub(crate) fn lost_frames(&self, has_history: bool) {
        if has_history {
            lock(&self.ring).clear();
            self.hydrated
                .store(false, std::sync::atomic::Ordering::SeqCst);
        }
    }

    fn fanout(&self, frame: &Frame, except: Option<u64>) {
        let Ok(members) = self.members.read() else {
            return;
        };
        // What a participant sends the hosts (suggestions, key
        // announcements, interrupt requests, approval votes) reaches no one else.
        let hosts_only = cohost_protocol::to_hosts_only(frame.kind());
        let replayable = frame.kind().is_replayable();
        for c in members.iter() {
            if Some(c.id) == except || (hosts_only && c.role != Role::Host) {
                continue;
            }
            if replayable {
                c.outbox.push_replayable(frame);
            } else {
                c.outbox.push(frame.bytes().clone());
            }
        }
    }

    /// Keeps the presence map current with joins/leaves seen from other nodes.
    fn observe_presence(&self, frame: &Frame) {
        match frame.kind() {
            FrameType::PresenceJoin => {
                if let Ok(p) = frame.control::<Participant>() {
                    lock(&self.presence).insert(p.conn_id, p);
                }
            }
            FrameType::PresenceLeave => {
                if let Ok(p) = frame.control::<Participant>() {
                    lock(&self.presence).remove(&p.conn_id);
                }
            }
            _ => {}
        }
    }

    /// Answers `room.resume`: sends `room.resync` for what the ring no longer
    /// holds and starts a paced replay of the rest ([`Room::pump_replay`]
    /// streams it as the socket drains; live stream frames flow once it has
    /// caught up). A host gets no replay: it is the source.
    pub(crate) fn resume(&self, conn: &Conn, resume: &Resume) {
        let mut ring = lock(&self.ring);
        if conn.role == Role::Host {
            conn.outbox.set_resumed();
            return;
        }
        let (cursor, resync) = ring.start(resume, Instant::now());
        tracing::debug!(conn = conn.id, room = %self.id, held = ring.len(), resync = resync.len(), "resume");
        self.send_resync(conn, resync);
        conn.outbox.set_replaying();
        *lock(&conn.replay) = Some(cursor);
        drop(ring);
        conn.outbox.notify.notify_one();
    }

    fn send_resync(&self, conn: &Conn, streams: Vec<String>) {
        if streams.is_empty() {
            return;
        }
        add(&conn.outbox.metrics.replay_misses, streams.len());
        let r = Resync {
            streams,
            reason: "the relay no longer holds the chunks you missed; ask the host for a snapshot"
                .into(),
        };
        if let Ok(f) = Frame::control_frame(FrameType::RoomResync, &self.id, None, &r) {
            conn.outbox.push(f.bytes().clone());
        }
    }

    /// Queues the next ~`budget` bytes of `conn`'s replay, if one is running.
    /// When the replay reaches the ring's head the client is marked resumed
    /// under the ring lock, so no live frame is lost or sent twice.
    pub(crate) fn pump_replay(&self, conn: &Conn, budget: usize) {
        let mut ring = lock(&self.ring);
        let mut slot = lock(&conn.replay);
        let Some(cursor) = slot.as_mut() else {
            return;
        };
        let pulled = ring.pull(cursor, budget, Instant::now());
        self.send_resync(conn, pulled.resync);
        add(&conn.outbox.metrics.replay_hits, pulled.frames.len());
        for f in pulled.frames {
            conn.outbox.push(f.bytes().clone());
        }
        if pulled.done {
            *slot = None;
            conn.outbox.set_resumed();
        }
        drop(slot);
        drop(ring);
        conn.outbox.notify.notify_one();
    }

    /// Whether `conn` has a replay in progress.
    pub(crate) fn replaying(conn: &Conn) -> bool {
        lock(&conn.replay).is_some()
    }

    /// Tells every local member that frames from other nodes may have been lost.
    pub(crate) fn broker_gap(&self) {
        let streams: Vec<String> = Vec::new();
        let r = Resync {
            streams,
            reason: "the relay lost its broker connection; frames from other relay nodes may be missing, resume or resync".into(),
        };
        if let Ok(f) = Frame::control_frame(FrameType::RoomResync, &self.id, None, &r) {
            self.fanout(&f, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The janitor once pruned a room between a host's handshake and its join;
    /// the host then streamed into a room no later participant could reach.
    #[test]
    fn a_room_with_an_arriving_connection_is_not_idle() {
        let room = Arc::new(Room::new("r", &Limits::default()));
        let now = Instant::now();
        assert!(room.is_idle(now));
        let arriving = Arriving::new(room.clone());
        assert!(!room.is_idle(now), "a connection is on its way in");
        let second = Arriving::new(room.clone());
        drop(arriving);
        assert!(!room.is_idle(now));
        drop(second);
        assert!(room.is_idle(now));
    }
}
