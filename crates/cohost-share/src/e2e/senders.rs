//! Whose keys may send what: the participants the host bound, as the host
//! keeps them and as its `key.roster` tells the room, and the keys it
//! removed (`docs/sharing-e2e.md`, "Who may send what", "Kick means gone").

use std::collections::{HashMap, HashSet};

pub use crate::codec::Bound;

/// The keys a side knows.
#[derive(Debug, Default)]
pub(super) struct Senders {
    bound: HashMap<[u8; 32], Bound>,
    removed: HashSet<[u8; 32]>,
}

impl Senders {
    pub(super) fn bind(&mut self, key: [u8; 32], who: Bound) {
        if !self.removed.contains(&key) {
            self.bound.insert(key, who);
        }
    }

    pub(super) fn unbind(&mut self, key: &[u8; 32]) -> Option<Bound> {
        self.bound.remove(key)
    }

    /// Never again, under any epoch or connection.
    pub(super) fn remove(&mut self, key: [u8; 32]) -> Option<Bound> {
        self.removed.insert(key);
        self.bound.remove(&key)
    }

    pub(super) fn admit_member(&mut self, key: &[u8; 32], agent: &str) -> bool {
        match self.bound.get_mut(key) {
            Some(b) => {
                if !b.agents.iter().any(|a| a == agent) {
                    b.agents.push(agent.to_owned());
                }
                true
            }
            None => false,
        }
    }

    pub(super) fn drop_member(&mut self, agent: &str) {
        for b in self.bound.values_mut() {
            b.agents.retain(|a| a != agent);
        }
    }

    pub(super) fn is_removed(&self, key: &[u8; 32]) -> bool {
        self.removed.contains(key)
    }

    pub(super) fn get(&self, key: &[u8; 32]) -> Option<&Bound> {
        self.bound.get(key)
    }

    /// Everyone bound now (a participant: the host's latest roster).
    pub(super) fn all(&self) -> impl Iterator<Item = (&[u8; 32], &Bound)> {
        self.bound.iter()
    }

    /// The host's roster replaces what a participant knew.
    pub(super) fn replace(&mut self, all: HashMap<[u8; 32], Bound>) {
        self.bound = all;
    }
}
