//! http (being built).
