//! Appending to a record: the writer's side of the chain (next `seq`, the
//! last hash, the host key). Pure: the caller writes each returned line.

use ed25519_dalek::SigningKey;

use crate::entry::{unhex32, Draft, Entry};
use crate::error::RecordError;
use crate::verify::{verify, Options};

/// Where the next entry goes and who signs it.
pub struct Chain {
    key: SigningKey,
    next: u64,
    prev: [u8; 32],
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain")
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

/// What an existing record file holds, for appending to it.
#[derive(Debug)]
pub struct Resumed {
    /// The chain to go on with.
    pub chain: Chain,
    /// Bytes of whole entries: a torn last line starts here (truncate the
    /// file to this length before appending).
    pub keep: usize,
    /// Whether a torn last line was found (and must be dropped).
    pub torn: bool,
}

impl Chain {
    /// A new record signed with the Ed25519 `seed`.
    pub fn new(seed: [u8; 32]) -> Chain {
        Chain {
            key: SigningKey::from_bytes(&seed),
            next: 1,
            prev: [0; 32],
        }
    }

    /// Go on with the record in `bytes` (a whole file), signed with `seed`.
    /// It must verify up to a possibly torn last line, and be signed by
    /// this key: a record that does not verify is never appended to.
    pub fn resume(seed: [u8; 32], bytes: &[u8]) -> Result<Resumed, RecordError> {
        let key = SigningKey::from_bytes(&seed);
        let opts = Options {
            expect_key: Some(key.verifying_key().to_bytes()),
            partial: true,
        };
        let v = verify(bytes, &opts)?;
        let keep = match v.torn {
            Some(_) => bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1),
            None => bytes.len(),
        };
        let last = v.entries.last();
        Ok(Resumed {
            chain: Chain {
                key,
                next: last.map_or(1, |e| e.seq + 1),
                prev: last.and_then(|e| unhex32(&e.hash)).unwrap_or([0; 32]),
            },
            keep,
            torn: v.torn.is_some(),
        })
    }

    /// The host's public key.
    pub fn public_key(&self) -> [u8; 32] {
        self.key.verifying_key().to_bytes()
    }

    /// The `seq` the next entry gets.
    pub fn next_seq(&self) -> u64 {
        self.next
    }

    /// Seal `d` at time `ts` as the next entry; returns its line with the
    /// newline. The chain moves on only when the caller says the line was
    /// written ([`Chain::advance`]), so a failed write is not a gap.
    pub fn seal(&self, ts: u64, d: Draft) -> Entry {
        Entry::seal(&self.key, self.next, ts, &self.prev, d)
    }

    /// `e` (from [`Chain::seal`]) is written: the next entry follows it.
    pub fn advance(&mut self, e: &Entry) {
        if let Some(h) = unhex32(&e.hash) {
            self.prev = h;
            self.next = e.seq + 1;
        }
    }
}
