//! [`AdapterComponent`]: one component, read, hashed, checked against a
//! pinned hash, compiled (or taken from the cache), and checked against the
//! world: it imports nothing and exports `cohost:adapter/turn` at the
//! version this cohost speaks, with the right function types.

use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use wasmtime::component::types::ComponentItem;
use wasmtime::component::{Component, ComponentExportIndex, InstancePre, Linker};

use crate::convert::Classify;
use crate::error::WasmError;
use crate::limits::Limits;
use crate::runtime::Runtime;
use crate::world::{TURN_INTERFACE, WORLD_PACKAGE, WORLD_VERSION};

/// How to load a component.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// The plugin id, named in every error.
    pub plugin: String,
    /// The sha256 the manifest pins (hex), if any.
    pub sha256: Option<String>,
    /// The limits of its instances.
    pub limits: Limits,
    /// How an error event without a code is classified.
    pub classify: Classify,
}

/// Export indices of the world's functions, resolved once per component.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Exports {
    pub start: ComponentExportIndex,
    pub on_line: ComponentExportIndex,
    pub on_exit: ComponentExportIndex,
}

/// A loaded, checked adapter component, ready to instantiate per turn.
#[derive(Clone)]
pub struct AdapterComponent {
    pub(crate) options: Arc<LoadOptions>,
    pub(crate) pre: InstancePre<crate::limiter::State>,
    pub(crate) exports: Exports,
    /// The runtime's pool size (named when the pool is full).
    pub(crate) pool: Option<u32>,
    sha256: String,
    world: String,
    size: usize,
}

impl std::fmt::Debug for AdapterComponent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdapterComponent")
            .field("plugin", &self.options.plugin)
            .field("sha256", &self.sha256)
            .field("world", &self.world)
            .finish_non_exhaustive()
    }
}

impl AdapterComponent {
    /// Read and load the component at `path`.
    pub fn load_file(
        runtime: &Runtime,
        path: &Path,
        options: LoadOptions,
    ) -> Result<AdapterComponent, WasmError> {
        let bytes = std::fs::read(path).map_err(|e| WasmError::Read {
            plugin: options.plugin.clone(),
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::load(runtime, &bytes, options)
    }

    /// Load a component from its bytes.
    pub fn load(
        runtime: &Runtime,
        bytes: &[u8],
        options: LoadOptions,
    ) -> Result<AdapterComponent, WasmError> {
        let plugin = options.plugin.clone();
        let inspection = crate::inspect(&plugin, bytes, options.sha256.as_deref())?;
        let digest: [u8; 32] = Sha256::digest(bytes).into();
        let sha256 = inspection.sha256;
        let started = Instant::now();
        let (component, cached) =
            runtime
                .compile(digest, bytes)
                .map_err(|e| WasmError::Invalid {
                    plugin: plugin.clone(),
                    reason: format!("{e:#}"),
                })?;
        tracing::debug!(plugin, cached, elapsed = ?started.elapsed(), "wasm component compiled");
        let engine = runtime.engine();
        let ty = component.component_type();
        if let Some((name, _)) = ty.imports(engine).next() {
            return Err(WasmError::ForbiddenImport {
                plugin,
                import: name.to_string(),
                world: format!("{WORLD_PACKAGE}@{WORLD_VERSION}"),
            });
        }
        let (export, version) =
            find_turn_export(&component, engine).ok_or_else(|| WasmError::NotAnAdapter {
                plugin: plugin.clone(),
                reason: format!("it exports no `{TURN_INTERFACE}@...` interface"),
            })?;
        if version != WORLD_VERSION {
            return Err(WasmError::WorldVersion {
                plugin,
                found: version,
                expected: WORLD_VERSION.to_string(),
            });
        }
        let index = |name: &str| {
            component
                .get_export_index(Some(&export), name)
                .ok_or_else(|| WasmError::NotAnAdapter {
                    plugin: plugin.clone(),
                    reason: format!("`{TURN_INTERFACE}@{WORLD_VERSION}` has no `{name}` function"),
                })
        };
        let exports = Exports {
            start: index("start")?,
            on_line: index("on-line")?,
            on_exit: index("on-exit")?,
        };
        let linker: Linker<crate::limiter::State> = Linker::new(engine);
        let pre = linker
            .instantiate_pre(&component)
            .map_err(|e| WasmError::NotAnAdapter {
                plugin: plugin.clone(),
                reason: format!("{e:#}"),
            })?;
        let loaded = AdapterComponent {
            options: Arc::new(options),
            pre,
            exports,
            pool: runtime.pool(),
            sha256,
            world: format!("{WORLD_PACKAGE}@{version}"),
            size: bytes.len(),
        };
        // One throw-away instance checks the functions' types now, so a
        // mistyped component is refused at load, not mid-turn.
        loaded.instantiate()?.check_types()?;
        Ok(loaded)
    }

    /// The plugin id.
    pub fn plugin(&self) -> &str {
        &self.options.plugin
    }

    /// Hex sha256 of the component.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// The world it implements (`cohost:adapter@0.1.0`).
    pub fn world(&self) -> &str {
        &self.world
    }

    /// Its limits.
    pub fn limits(&self) -> Limits {
        self.options.limits
    }

    /// Its size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }
}

/// The exported `cohost:adapter/turn@V` instance and its version `V`.
fn find_turn_export(
    component: &Component,
    engine: &wasmtime::Engine,
) -> Option<(ComponentExportIndex, String)> {
    let ty = component.component_type();
    for (name, item) in ty.exports(engine) {
        let Some(version) = name
            .strip_prefix(TURN_INTERFACE)
            .and_then(|rest| rest.strip_prefix('@'))
        else {
            continue;
        };
        if !matches!(item.ty, ComponentItem::ComponentInstance(_)) {
            continue;
        }
        let index = component.get_export_index(None, name)?;
        return Some((index, version.to_string()));
    }
    None
}
