//! cohost-core (placeholder, being built).
