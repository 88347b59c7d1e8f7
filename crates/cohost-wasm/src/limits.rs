//! [`Limits`]: what one adapter instance may use.

use std::fmt;
use std::time::Duration;

/// What one adapter component may use. The defaults suit a line-mapping
/// adapter by a wide margin (the example uses under 2 MiB and a few
/// microseconds per line); a manifest may lower or raise them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall time of one call (`start`, one `on-line`, `on-exit`), enforced
    /// by epoch interruption (granularity `Runtime::TICK`, 10 ms).
    pub call_time: Duration,
    /// Linear memory of one instance, in bytes.
    pub memory_bytes: usize,
    /// Events one call may return.
    pub events_per_call: usize,
    /// Bytes of text (all strings together) one call may return.
    pub output_bytes_per_call: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            call_time: Duration::from_millis(500),
            memory_bytes: 64 << 20,
            events_per_call: 10_000,
            output_bytes_per_call: 4 << 20,
        }
    }
}

impl fmt::Display for Limits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ms/call, {} MiB memory, {} events/call, {} KiB output/call",
            self.call_time.as_millis(),
            self.memory_bytes >> 20,
            self.events_per_call,
            self.output_bytes_per_call >> 10
        )
    }
}
