//! `protocol = "wasm"` plugins: a third-party adapter component
//! (`[wasm] component`, the `cohost:adapter` world of
//! `crates/cohost-wasm/wit/adapter.wit`) chooses the agent's command line
//! and maps its stdout; cohost does the rest as for any one-shot agent:
//! finds the manifest's binary, spawns it under the supervisor (and the
//! sandbox), numbers and sanitizes the events, interrupts, and stops the
//! process when the component fails.
//!
//! At load, the component is only inspected (hash against the pin, world
//! version, no imports): cheap enough for every start of cohost. It is
//! compiled at the first session's `initialize`, once per process. The
//! factory and adapter are in `wasm_adapter.rs`.
//!
//! A cohost built without the `wasm-plugins` feature (no wasmtime) parses
//! these manifests and refuses each with [`PluginError`] saying how to get
//! a build that runs them; `cohost agents` then lists none.

#[cfg(not(feature = "wasm-plugins"))]
use cohost_core::AdapterFactory;
#[cfg(feature = "wasm-plugins")]
use cohost_wasm::Inspection;
use cohost_wasm::Limits;
use std::path::{Path, PathBuf};
#[cfg(not(feature = "wasm-plugins"))]
use std::sync::Arc;
use std::time::Duration;

use super::error::PluginError;
use super::manifest::{Manifest, WasmSettings};

/// A wasm plugin as `cohost agents` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WasmPluginInfo {
    /// Plugin id.
    pub id: String,
    /// The manifest.
    pub manifest: PathBuf,
    /// The component file.
    pub component: PathBuf,
    /// Its sha256.
    pub sha256: String,
    /// Whether the manifest pins that hash.
    pub pinned: bool,
    /// The world it implements (`cohost:adapter@0.1.0`).
    pub world: String,
    /// Its size in bytes.
    pub size: usize,
    /// Its limits.
    pub limits: Limits,
}

/// The limits a manifest sets, over the defaults.
#[cfg_attr(
    not(feature = "wasm-plugins"),
    allow(dead_code, reason = "only the manifest tests use it then")
)]
pub(crate) fn limits_of(w: &WasmSettings) -> Limits {
    let d = Limits::default();
    let size = |v: Option<u64>, unit: usize, default: usize| {
        v.and_then(|v| usize::try_from(v).ok())
            .map_or(default, |v| v.saturating_mul(unit))
    };
    Limits {
        call_time: w.call_time_ms.map_or(d.call_time, Duration::from_millis),
        memory_bytes: size(w.memory_mib, 1 << 20, d.memory_bytes),
        events_per_call: size(w.events_per_call, 1, d.events_per_call),
        output_bytes_per_call: size(w.output_kib_per_call, 1 << 10, d.output_bytes_per_call),
    }
}

/// Read and inspect a manifest's component; problems as [`PluginError`]s.
#[cfg(feature = "wasm-plugins")]
pub(super) fn inspect(
    m: &Manifest,
    w: &WasmSettings,
    file: &Path,
) -> Result<Inspection, PluginError> {
    let err = |field: &str, reason: String| PluginError {
        file: file.to_path_buf(),
        field: Some(field.to_string()),
        line: None,
        column: None,
        reason,
    };
    let bytes = std::fs::read(&w.component).map_err(|e| {
        err(
            "wasm.component",
            format!("cannot read {}: {e}", w.component.display()),
        )
    })?;
    cohost_wasm::inspect(&m.id, &bytes, w.sha256.as_deref()).map_err(|e| {
        let field = match e {
            cohost_wasm::WasmError::HashMismatch { .. } => "wasm.sha256",
            _ => "wasm.component",
        };
        err(field, e.to_string())
    })
}

/// The wasm plugins of `dirs`, inspected (for `cohost agents`). Manifests
/// with problems are left out: [`super::load_plugins`] reports them (in a
/// build without `wasm-plugins`, all of them).
#[cfg(feature = "wasm-plugins")]
pub fn wasm_plugins(dirs: &[PathBuf]) -> Vec<WasmPluginInfo> {
    let mut out = Vec::new();
    for dir in dirs {
        for file in super::manifest::manifest_files(dir) {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let Ok(m) = super::manifest::parse(&file, &text) else {
                continue;
            };
            let Some(w) = m.wasm.as_ref() else { continue };
            let Ok(i) = inspect(&m, w, &file) else {
                continue;
            };
            out.push(WasmPluginInfo {
                id: m.id.clone(),
                manifest: file.clone(),
                component: w.component.clone(),
                sha256: i.sha256,
                pinned: w.sha256.is_some(),
                world: i.world,
                size: i.size,
                limits: limits_of(w),
            });
        }
    }
    out
}

/// The wasm plugins of `dirs`: none in a build without `wasm-plugins`.
#[cfg(not(feature = "wasm-plugins"))]
pub fn wasm_plugins(_dirs: &[PathBuf]) -> Vec<WasmPluginInfo> {
    Vec::new()
}

/// How to get WebAssembly plugins, for a build without them.
#[cfg(not(feature = "wasm-plugins"))]
const NOT_BUILT: &str = "this cohost was built without WebAssembly plugins (cargo feature `wasm-plugins`, on by default); rebuild it with them: `cargo build --release -p cohost-cli` (default features) or `--features wasm-plugins`";

/// A build without `wasm-plugins` refuses a `wasm` manifest, naming the
/// feature.
#[cfg(not(feature = "wasm-plugins"))]
pub(super) fn factory(
    _manifest: Manifest,
    file: &Path,
) -> Result<Arc<dyn AdapterFactory>, PluginError> {
    Err(PluginError {
        file: file.to_path_buf(),
        field: Some("protocol".into()),
        line: None,
        column: None,
        reason: format!("protocol = \"wasm\" is not available: {NOT_BUILT}"),
    })
}
