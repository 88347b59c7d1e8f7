//! cohost-agents (placeholder, being built).
