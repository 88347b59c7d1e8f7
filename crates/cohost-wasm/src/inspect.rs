//! [`inspect`]: what a component file is, without compiling it: its
//! sha256 (checked against a pin), the world version it exports, and
//! whether it imports anything. Cheap enough for every start of cohost and
//! for `cohost plugins`; compiling waits for the first turn.

use sha2::{Digest, Sha256};
use wasmtime::wasmparser::{Parser, Payload};

use crate::error::WasmError;
use crate::world::{TURN_INTERFACE, WORLD_PACKAGE, WORLD_VERSION};

/// Hex sha256 of `bytes` (what a manifest's `[wasm] sha256` pins).
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What [`inspect`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inspection {
    /// Hex sha256 of the file.
    pub sha256: String,
    /// The world it implements (`cohost:adapter@0.1.0`).
    pub world: String,
    /// Its size in bytes.
    pub size: usize,
}

/// Check a component's bytes against the pin and the world: the hash,
/// that it is a component, that it imports nothing, and that it exports
/// `cohost:adapter/turn` at [`WORLD_VERSION`].
pub fn inspect(plugin: &str, bytes: &[u8], pinned: Option<&str>) -> Result<Inspection, WasmError> {
    let sha256 = sha256_hex(bytes);
    if let Some(pin) = pinned {
        if !pin.trim().eq_ignore_ascii_case(&sha256) {
            return Err(WasmError::HashMismatch {
                plugin: plugin.to_string(),
                pinned: pin.trim().to_string(),
                actual: sha256,
            });
        }
    }
    let invalid = |reason: String| WasmError::Invalid {
        plugin: plugin.to_string(),
        reason,
    };
    if !Parser::is_component(bytes) {
        return Err(invalid(
            "not a component (a core module or another file)".into(),
        ));
    }
    let mut depth = 0usize;
    let mut version = None;
    for payload in Parser::new(0).parse_all(bytes) {
        let payload = payload.map_err(|e| invalid(e.to_string()))?;
        match payload {
            Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => depth += 1,
            Payload::End(_) => depth = depth.saturating_sub(1),
            Payload::ComponentImportSection(reader) if depth == 0 => {
                if let Some(import) = reader.into_iter().next() {
                    let import = import.map_err(|e| invalid(e.to_string()))?;
                    return Err(WasmError::ForbiddenImport {
                        plugin: plugin.to_string(),
                        import: import.name.name.to_string(),
                        world: format!("{WORLD_PACKAGE}@{WORLD_VERSION}"),
                    });
                }
            }
            Payload::ComponentExportSection(reader) if depth == 0 => {
                for export in reader {
                    let export = export.map_err(|e| invalid(e.to_string()))?;
                    if let Some(v) = export
                        .name
                        .name
                        .strip_prefix(TURN_INTERFACE)
                        .and_then(|r| r.strip_prefix('@'))
                    {
                        version = Some(v.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    let version = version.ok_or_else(|| WasmError::NotAnAdapter {
        plugin: plugin.to_string(),
        reason: format!("it exports no `{TURN_INTERFACE}@...` interface"),
    })?;
    if version != WORLD_VERSION {
        return Err(WasmError::WorldVersion {
            plugin: plugin.to_string(),
            found: version,
            expected: WORLD_VERSION.to_string(),
        });
    }
    Ok(Inspection {
        sha256,
        world: format!("{WORLD_PACKAGE}@{version}"),
        size: bytes.len(),
    })
}
