//! The store's resource limiter: the memory limit of one instance, and a
//! note of a refusal so the trap it causes is reported as that limit.

use wasmtime::ResourceLimiter;

/// Elements a table may grow to (function tables of large components).
pub(crate) const MAX_TABLE_ELEMENTS: usize = 100_000;

/// The store's data: the memory limiter, which remembers a refusal so the
/// trap it causes is reported as the memory limit.
pub(crate) struct State {
    memory_limit: usize,
    /// The size the instance asked for when it was refused.
    refused: Option<usize>,
}

impl ResourceLimiter for State {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_limit {
            self.refused = Some(desired);
            // An error, not `false`: the grow traps at once rather than
            // letting the component loop on failed allocations.
            wasmtime::bail!("memory limit");
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }

    fn instances(&self) -> usize {
        16
    }

    fn tables(&self) -> usize {
        16
    }

    fn memories(&self) -> usize {
        4
    }
}

impl State {
    /// A limiter allowing `memory_limit` bytes of linear memory.
    pub(crate) fn new(memory_limit: usize) -> State {
        State {
            memory_limit,
            refused: None,
        }
    }

    /// The size the instance asked for when it was refused, if it was.
    pub(crate) fn refused(&self) -> Option<usize> {
        self.refused
    }
}
