//! Id generation: short, unique per process, ordered within a session.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

static SESSION_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Generates prompt and correlation ids for one session:
/// `p-<tag>-<n>` and `c-<tag>-<n>`, where `tag` differs per session and process.
#[derive(Debug)]
pub struct IdGen {
    tag: String,
    next_prompt: u64,
    next_correlation: u64,
}

impl Default for IdGen {
    fn default() -> Self {
        Self::new()
    }
}

impl IdGen {
    /// A generator with a fresh random tag.
    pub fn new() -> Self {
        IdGen {
            tag: random_tag(),
            next_prompt: 1,
            next_correlation: 1,
        }
    }

    /// The next prompt id.
    pub fn prompt_id(&mut self) -> String {
        let id = format!("p-{}-{}", self.tag, self.next_prompt);
        self.next_prompt += 1;
        id
    }

    /// The next correlation id.
    pub fn correlation_id(&mut self) -> String {
        let id = format!("c-{}-{}", self.tag, self.next_correlation);
        self.next_correlation += 1;
        id
    }
}

/// Eight hex digits from the std hasher's per-process random keys, the clock
/// and a counter: unique enough for ids, no extra dependency.
pub fn random_tag() -> String {
    let mut h = RandomState::new().build_hasher();
    h.write_u64(SESSION_COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.write_u32(std::process::id());
    format!("{:08x}", h.finish() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_ordered() {
        let mut a = IdGen::new();
        let mut b = IdGen::new();
        let (a1, a2) = (a.prompt_id(), a.prompt_id());
        assert_ne!(a1, a2);
        assert!(a1.ends_with("-1") && a2.ends_with("-2"));
        assert_ne!(a1, b.prompt_id(), "two sessions must not share ids");
        assert!(a.correlation_id().starts_with("c-"));
    }
}
