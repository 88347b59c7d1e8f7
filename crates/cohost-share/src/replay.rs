//! The payloads a receiver has taken, to refuse one sent again (a replay).
//!
//! A sealed payload (format v1, `docs/sharing-e2e.md`) is known by its
//! epoch, nonce and AES-GCM tag: the tag authenticates the frame's header
//! and ciphertext, so two different payloads never share all three (the
//! test vectors reuse one nonce for several frames). Stream frames are not
//! remembered: the relay resends them on `room.resume`, and their chunk
//! index places them. The receiver asks only after the frame opened, so a
//! damaged copy sent first cannot shut out the real one; the codec itself
//! stays idempotent (front ends open a frame again to show it).

use std::collections::{HashSet, VecDeque};

use cohost_protocol::Frame;

/// How many payloads are remembered. Frames outside streams (chat,
/// suggestions, decisions, approvals, keys) are few, a handful a turn: a
/// replay older than this many of them is the only one that goes unnoticed.
const CAPACITY: usize = 1 << 16;

/// What identifies a payload: epoch, nonce, tag.
type Id = ([u8; 4], [u8; 12], [u8; 16]);

/// The payloads taken, oldest forgotten first.
#[derive(Debug, Default)]
pub struct Replays {
    set: HashSet<Id>,
    order: VecDeque<Id>,
}

impl Replays {
    /// Whether `frame` (which opened) is taken for the first time; remembers
    /// it. Stream frames and payloads that are not sealed (a room without
    /// end-to-end keys) are always new.
    pub fn first_time(&mut self, frame: &Frame) -> bool {
        if frame.kind().is_replayable() {
            return true;
        }
        let p = frame.payload();
        // version (1) | epoch (4) | nonce (12) | ciphertext | tag (16)
        if p.len() < 1 + 4 + 12 + 16 || p[0] != crate::e2e::PAYLOAD_VERSION {
            return true;
        }
        let mut id: Id = ([0; 4], [0; 12], [0; 16]);
        id.0.copy_from_slice(&p[1..5]);
        id.1.copy_from_slice(&p[5..17]);
        id.2.copy_from_slice(&p[p.len() - 16..]);
        self.remember(id)
    }

    fn remember(&mut self, id: Id) -> bool {
        if !self.set.insert(id) {
            return false;
        }
        self.order.push_back(id);
        if self.order.len() > CAPACITY {
            if let Some(old) = self.order.pop_front() {
                self.set.remove(&old);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_new_once_and_the_oldest_are_forgotten_past_capacity() {
        let mut s = Replays::default();
        assert!(s.remember(([0; 4], [1; 12], [2; 16])));
        assert!(!s.remember(([0; 4], [1; 12], [2; 16])));
        assert!(
            s.remember(([0, 0, 0, 1], [1; 12], [2; 16])),
            "another epoch is another payload"
        );
        assert!(
            s.remember(([0; 4], [1; 12], [3; 16])),
            "another tag is another payload"
        );
        for i in 0..CAPACITY as u32 {
            let mut n = [0u8; 12];
            n[..4].copy_from_slice(&i.to_be_bytes());
            s.remember(([7; 4], n, [0; 16]));
        }
        assert_eq!(s.set.len(), CAPACITY);
        assert!(
            s.remember(([0; 4], [1; 12], [2; 16])),
            "forgotten after CAPACITY newer ones"
        );
    }
}
