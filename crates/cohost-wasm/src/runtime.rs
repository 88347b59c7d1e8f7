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
use wasmtime::{Config, Engine};

/// The engine and the compiled components.
#[derive(Clone)]
pub struct Runtime {
    engine: Engine,
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

    fn new() -> Result<Runtime, String> {
        let mut config = Config::new();
        // The time limit: a ticker bumps the epoch, each call gets a deadline.
        config.epoch_interruption(true);
        // Components only; no proposals an adapter does not need.
        config.wasm_component_model(true);
        // A deep recursion traps instead of using the host's stack.
        config.max_wasm_stack(512 << 10);
        let engine = Engine::new(&config).map_err(|e| e.to_string())?;
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
            compiled: Arc::default(),
        })
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
