//! The provider registry this binary ships, and the default-agent choice.

use cohost_core::{AdapterFactory, CohostError, Registry};
use std::sync::Arc;

/// Real agents tried, in order, when `--agent` is not given.
pub const DEFAULT_PREFERENCE: &[&str] =
    &["claude", "codex", "gemini", "qwen", "opencode", "copilot"];

/// Every built-in provider.
pub fn registry() -> Result<Registry, CohostError> {
    let mut r = Registry::new();
    cohost_agents::builtin::register_all(&mut r)?;
    Ok(r)
}

/// Which factory to use: the requested id, else the first installed real
/// agent, else the mock (`true` in the second field means "fell back").
pub fn choose(
    registry: &Registry,
    requested: Option<&str>,
) -> Result<(Arc<dyn AdapterFactory>, bool), CohostError> {
    if let Some(id) = requested {
        return Ok((registry.get(id)?, false));
    }
    match registry.first_available(DEFAULT_PREFERENCE) {
        Some(f) => Ok((f, false)),
        None => Ok((registry.get("mock")?, true)),
    }
}
