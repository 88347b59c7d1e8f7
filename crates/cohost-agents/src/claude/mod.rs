//! claude (being built).
