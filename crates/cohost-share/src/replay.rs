//! The payloads a codec has opened, to refuse one sent again (a replay). A
//! payload is known by its epoch, nonce and AES-GCM tag: the tag
//! authenticates the frame's header and ciphertext, so two different
//! payloads never share all three (the test vectors reuse one nonce for
//! several frames).

use std::collections::{HashSet, VecDeque};

/// How many payloads are remembered. Frames outside streams (chat,
/// suggestions, decisions, approvals, keys) are few, a handful a turn: a
/// replay older than this many of them is the only one that goes unnoticed.
const CAPACITY: usize = 1 << 16;

/// What identifies a payload: epoch, nonce, tag.
type Id = (u32, [u8; 12], [u8; 16]);

/// The payloads seen, oldest forgotten first.
#[derive(Debug, Default)]
pub(super) struct Seen {
    set: HashSet<Id>,
    order: VecDeque<Id>,
}

impl Seen {
    /// Whether this payload is new (and remember it).
    pub(super) fn first_time(&mut self, epoch: u32, nonce: [u8; 12], tag: [u8; 16]) -> bool {
        let id = (epoch, nonce, tag);
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
    fn a_pair_is_new_once_and_the_oldest_are_forgotten_past_capacity() {
        let mut s = Seen::default();
        assert!(s.first_time(0, [1; 12], [2; 16]));
        assert!(!s.first_time(0, [1; 12], [2; 16]));
        assert!(
            s.first_time(1, [1; 12], [2; 16]),
            "another epoch is another payload"
        );
        assert!(
            s.first_time(0, [1; 12], [3; 16]),
            "another tag is another payload"
        );
        for i in 0..CAPACITY as u32 {
            let mut n = [0u8; 12];
            n[..4].copy_from_slice(&i.to_be_bytes());
            s.first_time(7, n, [0; 16]);
        }
        assert_eq!(s.set.len(), CAPACITY);
        assert!(
            s.first_time(0, [1; 12], [2; 16]),
            "forgotten after CAPACITY newer ones"
        );
    }
}
