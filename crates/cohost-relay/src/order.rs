//! Each stream's chunks, put in order for the application: the client's
//! bookkeeping of what it holds, what is missing and what it asked the relay
//! for, kept apart from the socket so it can be tested alone (the property
//! test in `tests/it/order_props.rs` drives it with any sequence of relay
//! actions).
//!
//! A chunk past a gap is not handed on: the relay is asked to replay the
//! stream from the last chunk held (`room.resume`), and the replay brings
//! the missing chunk and the ones after it, in order. A gap the relay does
//! not fill after [`GAP_ASKS`] asks, [`GAP_WAIT`] apart, is reported
//! ([`Step::Missing`]) and the stream goes on from the first chunk seen past
//! it. A chunk that arrives after it was reported missing is handed on as
//! late ([`Arrival::Late`]); any other chunk seen before is a duplicate,
//! counted ([`StreamOrder::duplicates`]). Nothing is dropped without a word.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use tokio::time::Instant;

/// How often a gap in one stream is asked for again before the stream goes
/// on without it.
pub const GAP_ASKS: u32 = 3;
/// How long a gap waits for the relay's replay before it is asked again
/// (or given up): a relay that never answers must not stall the stream.
pub const GAP_WAIT: Duration = Duration::from_secs(1);
/// Ranges reported missing that are remembered per stream, to place a late
/// chunk; older ones are forgotten (their chunks then count as duplicates).
const REMEMBERED_LOSSES: usize = 64;

/// What to do with a chunk that arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// The next chunk of its stream: hand it on.
    Deliver,
    /// A chunk reported missing earlier, arrived at last: hand it on as late.
    Late,
    /// Held already (or too old to place): refused and counted.
    Duplicate,
    /// Past a gap: not handed on; it comes again with the replay.
    Held {
        /// Whether the relay should be asked to replay now (`false`: asked
        /// already, the replay is on its way).
        ask: bool,
    },
}

/// What a timer tick asks of the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Ask the relay again for what is held ([`StreamOrder::held`]).
    Ask,
    /// Chunks `from..=to` of `stream` never came: say so; the stream goes
    /// on past them. The client asks the relay again after this too.
    Missing {
        /// The stream.
        stream: String,
        /// First missing chunk index.
        from: u64,
        /// Last missing chunk index.
        to: u64,
    },
}

/// A stream waiting for chunks that never came.
#[derive(Debug)]
struct Gap {
    /// How often the relay was asked for them.
    asks: u32,
    /// When it was last asked.
    since: Instant,
    /// The first chunk seen past the gap: the missing ones are before it.
    next_seen: u64,
}

/// The client's view of every stream of its room.
#[derive(Debug, Default)]
pub struct StreamOrder {
    /// The last chunk handed on, per stream (kept across reconnects: the
    /// resume names it).
    last: BTreeMap<String, u64>,
    /// Streams asked again from an earlier chunk, until that replay comes.
    resyncing: BTreeSet<String>,
    /// Streams with chunks missing, waiting for the relay's replay.
    gaps: BTreeMap<String, Gap>,
    /// Ranges reported missing, per stream, oldest first.
    lost: BTreeMap<String, Vec<(u64, u64)>>,
    /// Streams the relay could not replay whole (`room.resync`): taken up
    /// at whatever chunk comes next. Any other stream starts at chunk 0, so
    /// a first chunk past 0 is a gap like any other.
    anywhere: BTreeSet<String>,
    duplicates: u64,
}

impl StreamOrder {
    /// Nothing held yet.
    pub fn new() -> StreamOrder {
        StreamOrder::default()
    }

    /// The last chunk handed on per stream: what a `room.resume` names.
    pub fn held(&self) -> &BTreeMap<String, u64> {
        &self.last
    }

    /// Whether some stream waits for chunks (the client ticks meanwhile).
    pub fn waiting(&self) -> bool {
        !self.gaps.is_empty()
    }

    /// Chunks refused as duplicates so far.
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }

    /// A new connection: what was asked on the old one is asked again by
    /// the resume that opens it, so nothing is in flight.
    pub fn reconnected(&mut self) {
        self.resyncing.clear();
        self.gaps.clear();
    }

    /// Chunk `chunk` of `stream` arrived at `now`.
    pub fn arrive(&mut self, stream: &str, chunk: u64, now: Instant) -> Arrival {
        let expected = self.last.get(stream).map_or(0, |l| l.saturating_add(1));
        if chunk < expected {
            return if self.take_lost(stream, chunk) {
                Arrival::Late
            } else {
                self.duplicates += 1;
                Arrival::Duplicate
            };
        }
        if chunk > expected && !self.anywhere.contains(stream) {
            let waiting = self.resyncing.contains(stream);
            let g = self.gaps.entry(stream.to_string()).or_insert(Gap {
                asks: 0,
                since: now,
                next_seen: chunk,
            });
            g.next_seen = g.next_seen.min(chunk);
            if !waiting {
                g.asks += 1;
                g.since = now;
                self.resyncing.insert(stream.to_string());
            }
            return Arrival::Held { ask: !waiting };
        }
        self.anywhere.remove(stream);
        self.resyncing.remove(stream);
        self.gaps.remove(stream);
        self.last.insert(stream.to_string(), chunk);
        Arrival::Deliver
    }

    /// What is due at `now`: gaps asked again, or given up and reported.
    pub fn due(&mut self, now: Instant) -> Vec<Step> {
        let late: Vec<String> = self
            .gaps
            .iter()
            .filter(|(_, g)| now.duration_since(g.since) >= GAP_WAIT)
            .map(|(s, _)| s.clone())
            .collect();
        let mut steps = Vec::new();
        for s in late {
            let Some(g) = self.gaps.get_mut(&s) else {
                continue;
            };
            if g.asks < GAP_ASKS {
                g.asks += 1;
                g.since = now;
                steps.push(Step::Ask);
                continue;
            }
            // Asked enough: say what is missing and take the stream up at
            // the first chunk seen past it.
            let from = self.last.get(&s).map_or(0, |l| l + 1);
            let to = g.next_seen.saturating_sub(1);
            self.gaps.remove(&s);
            self.resyncing.remove(&s);
            if to >= from {
                let lost = self.lost.entry(s.clone()).or_default();
                lost.push((from, to));
                if lost.len() > REMEMBERED_LOSSES {
                    lost.remove(0);
                }
                self.last.insert(s.clone(), to);
                steps.push(Step::Missing {
                    stream: s,
                    from,
                    to,
                });
            } else {
                steps.push(Step::Ask);
            }
        }
        steps
    }

    /// The application could not use what came after `last_good` of
    /// `stream` (a chunk that did not open): forget it and return what to
    /// name in the resume, so that stream is replayed from there and every
    /// other stream from what is held.
    pub fn resume_from(&mut self, stream: &str, last_good: Option<u64>) -> BTreeMap<String, u64> {
        self.resyncing.insert(stream.to_string());
        match last_good {
            Some(i) => self.last.insert(stream.to_string(), i),
            None => self.last.remove(stream),
        };
        // What was said missing past that point is asked again: it comes
        // in order, not late.
        let from = last_good.map_or(0, |l| l + 1);
        if let Some(lost) = self.lost.get_mut(stream) {
            lost.retain(|&(_, to)| to < from);
        }
        // Streams not named are replayed from the start: `last` names every
        // other stream at what is already held.
        self.last.clone()
    }

    /// The relay no longer holds these streams: take each up again at
    /// whatever comes next.
    pub fn resynced<'a>(&mut self, streams: impl IntoIterator<Item = &'a String>) {
        for s in streams {
            self.last.remove(s);
            self.resyncing.remove(s);
            self.gaps.remove(s);
            self.anywhere.insert(s.clone());
        }
    }

    /// Whether `chunk` of `stream` was reported missing; it is then no
    /// longer (a second copy is a duplicate).
    fn take_lost(&mut self, stream: &str, chunk: u64) -> bool {
        let Some(ranges) = self.lost.get_mut(stream) else {
            return false;
        };
        let Some(i) = ranges.iter().position(|&(a, b)| a <= chunk && chunk <= b) else {
            return false;
        };
        let (a, b) = ranges.remove(i);
        if a < chunk {
            ranges.push((a, chunk - 1));
        }
        if chunk < b {
            ranges.push((chunk + 1, b));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gap_is_held_asked_and_then_reported_and_a_late_chunk_is_placed() {
        let t0 = Instant::now();
        let mut o = StreamOrder::new();
        assert_eq!(o.arrive("s", 0, t0), Arrival::Deliver);
        assert_eq!(o.arrive("s", 1, t0), Arrival::Deliver);
        assert_eq!(o.arrive("s", 3, t0), Arrival::Held { ask: true });
        assert_eq!(o.arrive("s", 4, t0), Arrival::Held { ask: false });
        assert!(o.waiting());
        assert!(o.due(t0).is_empty(), "not yet");
        let mut t = t0;
        for _ in 1..GAP_ASKS {
            t += GAP_WAIT;
            assert_eq!(o.due(t), vec![Step::Ask]);
        }
        t += GAP_WAIT;
        assert_eq!(
            o.due(t),
            vec![Step::Missing {
                stream: "s".into(),
                from: 2,
                to: 2
            }]
        );
        assert!(!o.waiting());
        assert_eq!(o.arrive("s", 3, t), Arrival::Deliver);
        assert_eq!(o.arrive("s", 2, t), Arrival::Late);
        assert_eq!(o.arrive("s", 2, t), Arrival::Duplicate, "late once");
        assert_eq!(o.arrive("s", 1, t), Arrival::Duplicate);
        assert_eq!(o.duplicates(), 2);
    }

    #[test]
    fn a_resume_from_an_earlier_chunk_takes_the_replay_as_new() {
        let t = Instant::now();
        let mut o = StreamOrder::new();
        for c in 0..5 {
            o.arrive("s", c, t);
        }
        o.arrive("other", 0, t);
        let named = o.resume_from("s", Some(2));
        assert_eq!(named.get("s"), Some(&2));
        assert_eq!(named.get("other"), Some(&0));
        assert_eq!(o.arrive("s", 3, t), Arrival::Deliver);
        o.resynced([&"s".to_string()]);
        assert_eq!(o.arrive("s", 9, t), Arrival::Deliver, "taken up again");
    }

    #[test]
    fn a_stream_starts_at_chunk_0_unless_the_relay_could_not_replay_it() {
        let t = Instant::now();
        let mut o = StreamOrder::new();
        assert_eq!(o.arrive("s", 2, t), Arrival::Held { ask: true });
        assert_eq!(o.arrive("s", 0, t), Arrival::Deliver);
        o.resynced([&"r".to_string()]);
        assert_eq!(o.arrive("r", 7, t), Arrival::Deliver, "taken up anywhere");
        assert_eq!(
            o.arrive("r", 9, t),
            Arrival::Held { ask: true },
            "then in order"
        );
    }

    #[test]
    fn a_split_lost_range_places_each_late_chunk_once() {
        let t0 = Instant::now();
        let mut o = StreamOrder::new();
        o.arrive("s", 0, t0);
        o.arrive("s", 5, t0);
        let t = t0 + GAP_WAIT * (GAP_ASKS + 1);
        let mut steps = Vec::new();
        for i in 1..=GAP_ASKS {
            steps.extend(o.due(t0 + GAP_WAIT * i));
        }
        assert!(steps.contains(&Step::Missing {
            stream: "s".into(),
            from: 1,
            to: 4
        }));
        for c in [3, 1, 4, 2] {
            assert_eq!(o.arrive("s", c, t), Arrival::Late, "chunk {c}");
        }
        assert_eq!(o.arrive("s", 3, t), Arrival::Duplicate);
    }
}
