//! process (being built).
