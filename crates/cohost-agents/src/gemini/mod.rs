//! gemini (being built).
