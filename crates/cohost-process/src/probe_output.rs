//! [`ProbeOutput`], what a `--version` or `--help` probe printed: what
//! probing (`locate.rs`) returns and the probe cache (`probe_cache.rs`)
//! keeps.

/// Output of a bounded probe such as `--version` or `--help`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeOutput {
    /// Stdout and stderr, lossily decoded (some tools print help on stderr).
    pub text: String,
    /// Whether the command exited 0.
    pub success: bool,
}
