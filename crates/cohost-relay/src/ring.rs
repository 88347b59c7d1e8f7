//! Bounded per-room replay ring (by bytes, frame count and age). Pure: time is a parameter.
//!
//! The ring stores stamped replayable frames (opaque payload bytes included, so
//! they can be re-sent verbatim) and never looks inside a payload.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use cohost_protocol::{Frame, Resume};

/// Most stream metadata entries kept (oldest-touched dropped first).
const MAX_STREAM_META: usize = 4096;

struct StreamMeta {
    max_seen: u64,
    /// Highest index evicted from the ring, if any.
    evicted_upto: Option<u64>,
    touched: Instant,
}

/// The result of a resume request.
#[derive(Debug, Default)]
pub struct Replay {
    /// Frames to re-send, in original arrival order.
    pub frames: Vec<Frame>,
    /// Streams the ring can no longer replay completely (send `room.resync`).
    pub resync: Vec<String>,
}

/// A chunk index was not strictly greater than the last one for its stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("chunk index {got} for stream {stream:?} is not greater than the last index {last}; chunk indexes must increase per stream")]
pub struct OutOfOrder {
    /// Stream id.
    pub stream: String,
    /// Last index seen.
    pub last: u64,
    /// Index received.
    pub got: u64,
}

/// The replay ring of one room on one node.
pub struct Ring {
    entries: VecDeque<(Instant, Frame)>,
    bytes: usize,
    streams: HashMap<String, StreamMeta>,
    max_bytes: usize,
    max_frames: usize,
    max_age: Duration,
}

impl Ring {
    /// An empty ring with the given bounds.
    pub fn new(max_bytes: usize, max_frames: usize, max_age: Duration) -> Ring {
        Ring {
            entries: VecDeque::new(),
            bytes: 0,
            streams: HashMap::new(),
            max_bytes,
            max_frames: max_frames.max(1),
            max_age,
        }
    }

    /// Number of frames held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the ring holds no frames.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Records a replayable frame. Refuses a non-increasing chunk index.
    pub fn push(&mut self, frame: Frame, now: Instant) -> Result<(), OutOfOrder> {
        let Some(stream) = frame.stream() else {
            return Ok(());
        };
        let idx = frame.chunk();
        match self.streams.get_mut(stream) {
            Some(m) if idx <= m.max_seen => {
                return Err(OutOfOrder {
                    stream: stream.to_string(),
                    last: m.max_seen,
                    got: idx,
                })
            }
            Some(m) => {
                m.max_seen = idx;
                m.touched = now;
            }
            None => {
                if self.streams.len() >= MAX_STREAM_META {
                    self.prune_meta();
                }
                self.streams.insert(
                    stream.to_string(),
                    StreamMeta {
                        max_seen: idx,
                        evicted_upto: None,
                        touched: now,
                    },
                );
            }
        }
        self.bytes += frame.len();
        self.entries.push_back((now, frame));
        self.evict(now);
        Ok(())
    }

    /// Drops frames over the byte, count or age bounds.
    pub fn evict(&mut self, now: Instant) {
        while let Some((at, f)) = self.entries.front() {
            let old = now.saturating_duration_since(*at) > self.max_age;
            if !(old || self.bytes > self.max_bytes || self.entries.len() > self.max_frames) {
                break;
            }
            let (idx, len) = (f.chunk(), f.len());
            if let Some(m) = f.stream().and_then(|s| self.streams.get_mut(s)) {
                m.evicted_upto = Some(m.evicted_upto.map_or(idx, |e| e.max(idx)));
            }
            self.bytes -= len;
            self.entries.pop_front();
        }
    }

    /// What a client that holds `resume` must be sent: every held frame after its
    /// last index per stream (all held frames of streams it does not list), and the
    /// streams whose missing part was already evicted.
    pub fn replay(&mut self, resume: &Resume, now: Instant) -> Replay {
        self.evict(now);
        let mut out = Replay::default();
        for (stream, last) in &resume.streams {
            match self.streams.get(stream) {
                None => out.resync.push(stream.clone()),
                Some(m) if *last < m.max_seen && m.evicted_upto.is_some_and(|e| e > *last) => {
                    out.resync.push(stream.clone())
                }
                Some(_) => {}
            }
        }
        for (name, m) in &self.streams {
            if !resume.streams.contains_key(name) && m.evicted_upto.is_some() {
                out.resync.push(name.clone());
            }
        }
        for (_, f) in &self.entries {
            let Some(s) = f.stream() else { continue };
            match resume.streams.get(s) {
                Some(last) if f.chunk() <= *last => {}
                _ => out.frames.push(f.clone()),
            }
        }
        out.resync.sort();
        out.resync.dedup();
        out
    }

    fn prune_meta(&mut self) {
        let held: std::collections::HashSet<&str> = self
            .entries
            .iter()
            .filter_map(|(_, f)| f.stream())
            .collect();
        let victim = self
            .streams
            .iter()
            .filter(|(k, _)| !held.contains(k.as_str()))
            .min_by_key(|(_, m)| m.touched)
            .map(|(k, _)| k.clone());
        if let Some(v) = victim {
            self.streams.remove(&v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_protocol::FrameType;

    fn chunk(s: &str, i: u64) -> Frame {
        Frame::build(FrameType::StreamChunk, "r", Some(s), i, b"p").unwrap()
    }

    #[test]
    fn replays_after_last_index_and_resyncs_when_evicted() {
        let t = Instant::now();
        let mut r = Ring::new(1 << 20, 5, Duration::from_secs(60));
        for i in 0..10 {
            r.push(chunk("a", i), t).unwrap();
        }
        assert_eq!(r.len(), 5);
        let mut res = Resume::default();
        res.streams.insert("a".into(), 6);
        let rep = r.replay(&res, t);
        assert_eq!(
            rep.frames.iter().map(|f| f.chunk()).collect::<Vec<_>>(),
            vec![7, 8, 9]
        );
        assert!(rep.resync.is_empty());
        res.streams.insert("a".into(), 2);
        let rep = r.replay(&res, t);
        assert_eq!(rep.resync, vec!["a".to_string()]);
        res.streams.insert("a".into(), 9);
        assert!(r.replay(&res, t).frames.is_empty());
        assert!(r.push(chunk("a", 9), t).is_err());
    }

    #[test]
    fn evicts_by_age_and_bytes() {
        let t = Instant::now();
        let mut r = Ring::new(1 << 20, 100, Duration::from_secs(1));
        r.push(chunk("a", 0), t).unwrap();
        r.evict(t + Duration::from_secs(2));
        assert!(r.is_empty());
        let mut r = Ring::new(100, 100, Duration::from_secs(60));
        for i in 0..10 {
            r.push(chunk("a", i), t).unwrap();
        }
        assert!(r.bytes() <= 100);
    }
}
