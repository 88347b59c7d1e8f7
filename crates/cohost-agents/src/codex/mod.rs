//! codex (being built).
