//! cohost-relay (placeholder, being built).
