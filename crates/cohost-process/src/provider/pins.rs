//! The pinned versions of `tests/agents/versions.env`, compiled in so the
//! tested ranges have one source of truth.

use crate::Version;

/// The contents of `tests/agents/versions.env` at build time.
pub const PINS_FILE: &str = include_str!("../../../../tests/agents/versions.env");

/// The version pinned under `key` (e.g. `CLAUDE_CODE_VERSION`).
pub fn pinned_version(key: &str) -> Option<Version> {
    PINS_FILE
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == key)
        .and_then(|(_, v)| Version::find_in(v.trim()))
}
