//! cohost-protocol (placeholder, being built).
