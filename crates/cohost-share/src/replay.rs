//! The frames a receiver has taken from each sender, to refuse one sent
//! again (a replay).
//!
//! Every sender numbers its frames inside what it signs (format v2,
//! `docs/sharing-e2e.md`, "Sequence numbers, no replay"): a receiver keeps,
//! per sender key, the highest number it took and which of the
//! [`WINDOW`] below it, and refuses a number taken or older than that. Stream
//! frames are not checked: the relay resends them on `room.resume`, and
//! their chunk index places them. The receiver asks only after the frame
//! opened, so a damaged copy sent first cannot shut out the real one; the
//! codec itself stays idempotent (front ends open a frame again to show it).

use std::collections::{BTreeSet, HashMap};

use cohost_protocol::Frame;

use crate::codec::Sender;

/// How far below a sender's highest number a late frame is still placed.
pub(crate) const WINDOW: u64 = 4096;

/// One sender's numbers taken.
#[derive(Debug, Default)]
struct Taken {
    highest: u64,
    /// Numbers taken within the window below `highest`.
    below: BTreeSet<u64>,
}

impl Taken {
    fn take(&mut self, seq: u64) -> bool {
        if self.highest == 0 && self.below.is_empty() {
            self.highest = seq;
            return true;
        }
        if seq > self.highest {
            self.below.insert(self.highest);
            self.highest = seq;
            let floor = seq.saturating_sub(WINDOW);
            self.below = self.below.split_off(&floor);
            return true;
        }
        if seq == self.highest || seq < self.highest.saturating_sub(WINDOW) {
            return false;
        }
        self.below.insert(seq)
    }
}

/// The numbers taken, per sender key.
#[derive(Debug, Default)]
pub struct Replays {
    senders: HashMap<[u8; 32], Taken>,
}

impl Replays {
    /// Whether `frame` (which opened, signed by `sender`) is taken for the
    /// first time; remembers it. Stream frames, and frames of a codec that
    /// signs nothing (a room without end-to-end keys), are always new.
    pub fn first_time(&mut self, frame: &Frame, sender: Option<&Sender>) -> bool {
        match sender {
            Some(s) if !frame.kind().is_replayable() => {
                self.senders.entry(s.key).or_default().take(s.seq)
            }
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_is_new_once_in_any_order_within_the_window() {
        let mut t = Taken::default();
        assert!(t.take(100));
        assert!(!t.take(100), "the same number twice");
        assert!(t.take(102));
        assert!(t.take(101), "late but within the window");
        assert!(!t.take(101));
        assert!(!t.take(102));
        assert!(t.take(100 + WINDOW + 50));
        assert!(!t.take(49), "older than the window");
        assert!(
            !t.take(102),
            "fell out of the window: refused, not forgotten"
        );
        assert!(t.take(100 + WINDOW + 49));
    }

    #[test]
    fn senders_are_counted_apart() {
        let mut r = Replays::default();
        let mut t = Taken::default();
        assert!(t.take(5));
        r.senders.insert([1; 32], t);
        assert!(r.senders.entry([2; 32]).or_default().take(5));
        assert!(!r.senders.entry([1; 32]).or_default().take(5));
    }
}
