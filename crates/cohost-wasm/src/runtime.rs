//! [`Runtime`]: one wasmtime engine for the process, its epoch ticker, and
//! the cache of compiled components.
//!
//! The cache is in process, keyed by the component's sha256 (compiled code
//! depends only on the bytes, this engine's settings and the wasmtime
//! version, all fixed for the process): a component is compiled once per
//! cohost process and each turn instantiates it from the cached
//! `InstancePre`. There is no disk cache on purpose: loading compiled code
//! from a user-writable directory would run whatever native code was put
//! there, outside the sandbox.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use wasmtime::component::Component;
use wasmtime::{Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

/// The engine and the compiled components.
#[derive(Clone)]
pub struct Runtime {
    engine: Engine,
    /// Slots of the instance pool; `None`: instances allocated on demand.
    pool: Option<u32>,
    compiled: Arc<Mutex<HashMap<[u8; 32], Component>>>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").finish_non_exhaustive()
    }
}

impl Runtime {
    /// How often the epoch advances: the granularity of the time limit.
    pub const TICK: Duration = Duration::from_millis(10);

    /// The process's runtime (one engine, one ticker thread). Building the
    /// engine cannot fail with the settings used here except on a host
    /// wasmtime does not support, reported as the error string.
    pub fn shared() -> Result<Runtime, String> {
        static SHARED: OnceLock<Result<Runtime, String>> = OnceLock::new();
        SHARED.get_or_init(Runtime::new).clone()
    }

    /// Instances alive at once with the pooling allocator: one per running
    /// turn of a wasm plugin (a turn drops its instance when it ends).
    pub const POOL_INSTANCES: u32 = 64;

    /// Linear memory kept resident (and reset in place) when a pooled
    /// instance is dropped, so the next turn's instance does not take a
    /// page fault for every page it touches again. The example uses a
    /// little over 1 MiB; RSS stays bounded by this times the slots used.
    pub const KEEP_RESIDENT: usize = 2 << 20;

    fn config(pool_instances: Option<u32>) -> Config {
        let mut config = Config::new();
        // The time limit: a ticker bumps the epoch, each call gets a deadline.
        config.epoch_interruption(true);
        // Components only; no proposals an adapter does not need.
        config.wasm_component_model(true);
        // A deep recursion traps instead of using the host's stack.
        config.max_wasm_stack(512 << 10);
        if let Some(n) = pool_instances {
            // A turn's instance comes from a pool of reserved slots, reset
            // in place when dropped: no mmap/munmap per turn and no page
            // faults for the pages the component touches every turn (the
            // most of its per-line cost when each turn had fresh memory).
            let mut pool = PoolingAllocationConfig::new();
            pool.total_component_instances(n)
                .total_core_instances(n.saturating_mul(4))
                .total_memories(n)
                .total_tables(n.saturating_mul(4))
                .max_memories_per_module(1)
                // As many table elements as the limiter allows.
                .table_elements(crate::limiter::MAX_TABLE_ELEMENTS)
                .linear_memory_keep_resident(Self::KEEP_RESIDENT)
                .table_keep_resident(64 << 10)
                // Reset only the pages that were touched, where the kernel
                // can say which (Linux 6.7+).
                .pagemap_scan(Enabled::Auto);
            config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        }
        config
    }

    /// A runtime of its own that allocates every instance on demand (no
    /// pool): the bench compares the two. cohost itself uses [`shared`].
    ///
    /// [`shared`]: Runtime::shared
    #[doc(hidden)]
    pub fn unpooled() -> Result<Runtime, String> {
        Self::with_engine(
            Engine::new(&Self::config(None)).map_err(|e| e.to_string())?,
            None,
        )
    }

    /// A runtime of its own with a pool of `instances` slots (tests of a
    /// full pool).
    #[doc(hidden)]
    pub fn with_pool(instances: u32) -> Result<Runtime, String> {
        let engine = Engine::new(&Self::config(Some(instances))).map_err(|e| e.to_string())?;
        Self::with_engine(engine, Some(instances))
    }

    fn new() -> Result<Runtime, String> {
        // The pool reserves address space up front (some 4 GiB per slot);
        // where that is refused (a `ulimit -v`, a 32-bit host), instances
        // are allocated on demand instead: slower turns, same limits.
        let pool = Self::POOL_INSTANCES;
        let (engine, pool) = match Engine::new(&Self::config(Some(pool))) {
            Ok(e) => (e, Some(pool)),
            Err(pooled) => {
                tracing::debug!(
                    "wasm instance pool unavailable ({pooled:#}); allocating on demand"
                );
                let engine = Engine::new(&Self::config(None)).map_err(|e| e.to_string())?;
                (engine, None)
            }
        };
        Self::with_engine(engine, pool)
    }

    fn with_engine(engine: Engine, pool: Option<u32>) -> Result<Runtime, String> {
        let ticker = engine.weak();
        #[allow(
            clippy::disallowed_methods,
            reason = "the ticker's own thread, never on the async runtime"
        )]
        std::thread::Builder::new()
            .name("cohost-wasm-epoch".into())
            .spawn(move || {
                while let Some(engine) = ticker.upgrade() {
                    engine.increment_epoch();
                    drop(engine);
                    std::thread::sleep(Runtime::TICK);
                }
            })
            .map_err(|e| format!("cannot start the epoch thread: {e}"))?;
        Ok(Runtime {
            engine,
            pool,
            compiled: Arc::default(),
        })
    }

    /// Slots of the instance pool (turns that can run at once), or `None`
    /// when instances are allocated on demand.
    pub fn pool(&self) -> Option<u32> {
        self.pool
    }

    /// The engine.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The compiled component for `bytes` (hash `sha`), compiling it on
    /// first use. `Ok(.., true)` when it came from the cache.
    pub(crate) fn compile(
        &self,
        sha: [u8; 32],
        bytes: &[u8],
    ) -> Result<(Component, bool), wasmtime::Error> {
        if let Some(c) = crate::lock(&self.compiled).get(&sha) {
            return Ok((c.clone(), true));
        }
        let c = Component::new(&self.engine, bytes)?;
        crate::lock(&self.compiled).insert(sha, c.clone());
        Ok((c, false))
    }

    /// Forget the compiled components (the bench's cold start).
    pub fn clear_cache(&self) {
        crate::lock(&self.compiled).clear();
    }
}
