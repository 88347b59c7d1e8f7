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

/// Where a paced replay stands: the next ring position to look at and, per
/// stream, the last chunk index the client holds (or was sent).
#[derive(Debug, Clone, Default)]
pub struct Cursor {
    /// Ring position (sequence number) of the next entry to consider.
    seq: u64,
    /// Last chunk index the client has, per stream.
    progress: std::collections::BTreeMap<String, u64>,
    /// Streams already reported for resync (each is reported once).
    resynced: std::collections::BTreeSet<String>,
}

/// One step of a paced replay.
#[derive(Debug, Default)]
pub struct Pulled {
    /// Frames to send now, in arrival order.
    pub frames: Vec<Frame>,
    /// Streams evicted before the cursor reached them (send `room.resync`).
    pub resync: Vec<String>,
    /// Whether the cursor reached the ring's head (live frames may flow).
    pub done: bool,
}

/// The replay ring of one room on one node.
pub struct Ring {
    /// Held frames with their arrival time and ring position.
    entries: VecDeque<(Instant, u64, Frame)>,
    /// Position the next pushed frame gets.
    next_seq: u64,
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
            // Room below for frames added in front by `backfill`.
            next_seq: 1 << 62,
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
    /// Returns the stream's previous chunk index (`None` for its first).
    pub fn push(&mut self, frame: Frame, now: Instant) -> Result<Option<u64>, OutOfOrder> {
        let Some(stream) = frame.stream() else {
            return Ok(None);
        };
        let idx = frame.chunk();
        let mut prev = None;
        match self.streams.get_mut(stream) {
            Some(m) if idx <= m.max_seen => {
                return Err(OutOfOrder {
                    stream: stream.to_string(),
                    last: m.max_seen,
                    got: idx,
                })
            }
            Some(m) => {
                prev = Some(m.max_seen);
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
        self.entries.push_back((now, self.next_seq, frame));
        self.next_seq += 1;
        self.evict(now);
        Ok(prev)
    }

    /// Adds frames this node never saw (from the shared history, oldest
    /// first) in front of what it holds: per stream, only chunks older than
    /// the oldest one held and newer than any evicted here. `prev` is the
    /// chunk each one followed when recorded; when the oldest added chunk of
    /// a stream followed one that is not held, the stream counts as evicted
    /// up to it (a client missing it gets a resync, not a silent hole).
    /// Returns how many frames were added.
    pub fn backfill(&mut self, history: Vec<(Frame, Option<u64>)>, now: Instant) -> usize {
        let mut oldest_held: HashMap<&str, u64> = HashMap::new();
        for (_, _, f) in &self.entries {
            if let Some(s) = f.stream() {
                oldest_held.entry(s).or_insert(f.chunk());
            }
        }
        let oldest_held: HashMap<String, u64> = oldest_held
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let mut added: Vec<Frame> = Vec::new();
        let mut last_added: HashMap<String, u64> = HashMap::new();
        let mut first_prev: HashMap<String, Option<u64>> = HashMap::new();
        // The chunk the oldest held one followed, when the history knows it
        // (a node that started mid-stream holds only the later chunks).
        let mut held_prev: HashMap<String, u64> = HashMap::new();
        for (f, prev) in history {
            let Some(s) = f.stream() else { continue };
            let idx = f.chunk();
            if let (Some(p), Some(o)) = (prev, oldest_held.get(s)) {
                if idx == *o {
                    held_prev.insert(s.to_string(), p);
                }
            }
            let meta = self.streams.get(s);
            let below_held = oldest_held.get(s).is_none_or(|o| idx < *o);
            let above_seen = match (oldest_held.get(s), meta) {
                // Nothing held here: anything newer than what was evicted.
                (None, Some(m)) => m.evicted_upto.is_none_or(|e| idx > e) && idx > m.max_seen,
                _ => meta.and_then(|m| m.evicted_upto).is_none_or(|e| idx > e),
            };
            let in_order = last_added.get(s).is_none_or(|l| idx > *l);
            if below_held && above_seen && in_order {
                first_prev.entry(s.to_string()).or_insert(prev);
                last_added.insert(s.to_string(), idx);
                added.push(f);
            }
        }
        for (s, p) in held_prev {
            if !last_added.contains_key(&s) {
                if let Some(m) = self.streams.get_mut(&s) {
                    m.evicted_upto = Some(m.evicted_upto.map_or(p, |e| e.max(p)));
                }
            }
        }
        if added.is_empty() {
            return 0;
        }
        let at = self.entries.front().map_or(now, |(t, _, _)| *t);
        let n = added.len();
        let mut seq = self.front_seq();
        for f in added.into_iter().rev() {
            seq = seq.saturating_sub(1);
            self.bytes += f.len();
            self.entries.push_front((at, seq, f));
        }
        for (s, last) in last_added {
            let lost = first_prev.get(&s).copied().flatten();
            match self.streams.get_mut(&s) {
                Some(m) => {
                    m.max_seen = m.max_seen.max(last);
                    if let Some(p) = lost {
                        m.evicted_upto = Some(m.evicted_upto.map_or(p, |e| e.max(p)));
                    }
                }
                None => {
                    self.streams.insert(
                        s,
                        StreamMeta {
                            max_seen: last,
                            evicted_upto: lost,
                            touched: now,
                        },
                    );
                }
            }
        }
        self.evict(now);
        n
    }

    /// Forgets everything held (the node lost frames and will fill itself
    /// again from the shared history).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.bytes = 0;
        self.streams.clear();
    }

    /// Drops frames over the byte, count or age bounds.
    pub fn evict(&mut self, now: Instant) {
        while let Some((at, _, f)) = self.entries.front() {
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
    /// streams whose missing part was already evicted. All at once: the relay
    /// itself paces replays with [`Ring::start`] and [`Ring::pull`].
    pub fn replay(&mut self, resume: &Resume, now: Instant) -> Replay {
        let (mut cursor, resync) = self.start(resume, now);
        let pulled = self.pull(&mut cursor, usize::MAX, now);
        Replay {
            frames: pulled.frames,
            resync,
        }
    }

    /// Starts a paced replay for a client that holds `resume`: a cursor at the
    /// oldest held frame, and the streams it can no longer get completely.
    pub fn start(&mut self, resume: &Resume, now: Instant) -> (Cursor, Vec<String>) {
        self.evict(now);
        let mut resync = Vec::new();
        for (stream, last) in &resume.streams {
            match self.streams.get(stream) {
                None => resync.push(stream.clone()),
                Some(m) if *last < m.max_seen && m.evicted_upto.is_some_and(|e| e > *last) => {
                    resync.push(stream.clone());
                }
                Some(_) => {}
            }
        }
        for (name, m) in &self.streams {
            if !resume.streams.contains_key(name) && m.evicted_upto.is_some() {
                resync.push(name.clone());
            }
        }
        resync.sort();
        resync.dedup();
        let cursor = Cursor {
            seq: self.front_seq(),
            progress: resume.streams.clone(),
            resynced: resync.iter().cloned().collect(),
        };
        (cursor, resync)
    }

    /// Ring position of the oldest held frame (the next one when empty).
    fn front_seq(&self) -> u64 {
        self.entries.front().map_or(self.next_seq, |(_, s, _)| *s)
    }

    /// The next frames of a paced replay, about `budget` bytes (at least one
    /// frame when any is due), advancing `cursor`.
    pub fn pull(&mut self, cursor: &mut Cursor, budget: usize, now: Instant) -> Pulled {
        self.evict(now);
        let mut out = Pulled::default();
        let front = self.front_seq();
        if cursor.seq < front {
            // Frames the cursor had not reached were evicted under it.
            for (name, m) in &self.streams {
                let missed = m
                    .evicted_upto
                    .is_some_and(|e| cursor.progress.get(name).is_none_or(|last| e > *last));
                if missed && cursor.resynced.insert(name.clone()) {
                    out.resync.push(name.clone());
                }
            }
            out.resync.sort();
            cursor.seq = front;
        }
        let skip = usize::try_from(cursor.seq - front).unwrap_or(usize::MAX);
        let mut bytes = 0usize;
        for (_, seq, f) in self.entries.iter().skip(skip) {
            if bytes >= budget {
                break;
            }
            cursor.seq = seq + 1;
            let Some(s) = f.stream() else { continue };
            match cursor.progress.get_mut(s) {
                Some(last) if f.chunk() <= *last => continue,
                Some(last) => *last = f.chunk(),
                None => {
                    cursor.progress.insert(s.to_string(), f.chunk());
                }
            }
            bytes += f.len();
            out.frames.push(f.clone());
        }
        out.done = cursor.seq >= self.next_seq;
        out
    }

    fn prune_meta(&mut self) {
        let held: std::collections::HashSet<&str> = self
            .entries
            .iter()
            .filter_map(|(_, _, f)| f.stream())
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

    #[test]
    fn a_paced_replay_resumes_where_it_stopped_and_resyncs_what_was_evicted_under_it() {
        let t = Instant::now();
        let mut r = Ring::new(1 << 20, 8, Duration::from_secs(60));
        for i in 0..6 {
            r.push(chunk("a", i), t).unwrap();
        }
        let (mut c, resync) = r.start(&Resume::default(), t);
        assert!(resync.is_empty());
        let one = chunk("a", 0).len();
        let p = r.pull(&mut c, 2 * one, t);
        assert_eq!(
            p.frames.iter().map(Frame::chunk).collect::<Vec<_>>(),
            [0, 1]
        );
        assert!(!p.done && p.resync.is_empty());
        // Live frames arrive meanwhile; the cursor reaches them too.
        for i in 6..8 {
            r.push(chunk("a", i), t).unwrap();
        }
        let p = r.pull(&mut c, 3 * one, t);
        assert_eq!(
            p.frames.iter().map(Frame::chunk).collect::<Vec<_>>(),
            [2, 3, 4]
        );
        // Evict past the cursor (capacity 8): chunks 5..=6 go unsent.
        for i in 8..15 {
            r.push(chunk("a", i), t).unwrap();
        }
        let p = r.pull(&mut c, usize::MAX, t);
        assert_eq!(p.resync, vec!["a".to_string()]);
        assert_eq!(p.frames.first().map(Frame::chunk), Some(7));
        assert!(p.done);
        let p = r.pull(&mut c, usize::MAX, t);
        assert!(p.frames.is_empty() && p.resync.is_empty() && p.done);
    }

    #[test]
    fn backfill_adds_only_what_the_node_never_saw_and_marks_what_the_history_lost() {
        let t = Instant::now();
        let mut r = Ring::new(1 << 20, 100, Duration::from_secs(60));
        // This node started mid-stream: it saw chunks 8 and 9 live.
        for i in 8..10 {
            r.push(chunk("a", i), t).unwrap();
        }
        // The shared history lost chunks 0..=4 (its first held chunk followed 4).
        let history: Vec<(Frame, Option<u64>)> =
            (5..10).map(|i| (chunk("a", i), Some(i - 1))).collect();
        assert_eq!(r.backfill(history.clone(), t), 3, "chunks 5..=7 only");
        let mut res = Resume::default();
        res.streams.insert("a".into(), 4);
        let rep = r.replay(&res, t);
        assert_eq!(
            rep.frames.iter().map(Frame::chunk).collect::<Vec<_>>(),
            [5, 6, 7, 8, 9]
        );
        assert!(rep.resync.is_empty(), "a client holding 4 misses nothing");
        res.streams.insert("a".into(), 1);
        assert_eq!(r.replay(&res, t).resync, ["a".to_string()]);
        assert_eq!(r.backfill(history, t), 0, "a second fill adds nothing");
        // Live chunks keep flowing after the fill.
        assert_eq!(r.push(chunk("a", 10), t).unwrap(), Some(9));
    }
}
