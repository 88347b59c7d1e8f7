//! Room keys and their epochs.

use std::collections::BTreeMap;

use aes_gcm::{Aes256Gcm, KeyInit};

use crate::codec::CodecError;

/// `N` random bytes from the operating system.
pub fn random_bytes<const N: usize>() -> Result<[u8; N], CodecError> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|e| CodecError::Random(e.to_string()))?;
    Ok(b)
}

/// A 32-byte AES-256 room key. `Debug` never prints it.
#[derive(Clone, PartialEq, Eq)]
pub struct RoomKey([u8; 32]);

impl std::fmt::Debug for RoomKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RoomKey(<redacted>)")
    }
}

impl RoomKey {
    /// A fresh random key.
    pub fn generate() -> Result<RoomKey, CodecError> {
        Ok(RoomKey(random_bytes()?))
    }

    /// The key with these bytes.
    pub fn from_bytes(b: [u8; 32]) -> RoomKey {
        RoomKey(b)
    }

    /// The key's bytes (for an invite or a wrap; never for a log).
    pub fn to_bytes(&self) -> [u8; 32] {
        self.0
    }

    fn cipher(&self) -> Aes256Gcm {
        Aes256Gcm::new(&self.0.into())
    }
}

/// The keys of every epoch a side holds, with their expanded ciphers.
pub(super) struct KeyRing {
    epochs: BTreeMap<u32, (RoomKey, Aes256Gcm)>,
    current: u32,
}

impl KeyRing {
    /// Epoch 0 only.
    pub(super) fn new(key: RoomKey) -> KeyRing {
        let mut ring = KeyRing {
            epochs: BTreeMap::new(),
            current: 0,
        };
        ring.insert(0, key);
        ring
    }

    pub(super) fn current(&self) -> u32 {
        self.current
    }

    pub(super) fn key(&self, epoch: u32) -> Option<&RoomKey> {
        self.epochs.get(&epoch).map(|(k, _)| k)
    }

    pub(super) fn cipher(&self, epoch: u32) -> Option<Aes256Gcm> {
        self.epochs.get(&epoch).map(|(_, c)| c.clone())
    }

    /// A new newest epoch; returns its number.
    pub(super) fn push(&mut self, key: RoomKey) -> u32 {
        let epoch = self.current.saturating_add(1);
        self.insert(epoch, key);
        epoch
    }

    /// Holds `key` for `epoch`; the newest held epoch is the current one.
    pub(super) fn insert(&mut self, epoch: u32, key: RoomKey) {
        let cipher = key.cipher();
        self.epochs.insert(epoch, (key, cipher));
        self.current = self.current.max(epoch);
    }

    pub(super) fn later(&self) -> Vec<(u32, RoomKey)> {
        self.epochs
            .range(1..)
            .map(|(e, (k, _))| (*e, k.clone()))
            .collect()
    }
}
