//! The provider registry this binary ships, and the default-agent choice.

use cohost_core::{AdapterFactory, CohostError, Registry};
use std::sync::Arc;

/// Real agents tried, in order, when `--agent` is not given.
pub const DEFAULT_PREFERENCE: &[&str] =
    &["claude", "codex", "gemini", "qwen", "opencode", "copilot"];

/// Every built-in provider, plus the plugins declared in the user's and the
/// project's manifest directories. A bad manifest is reported on stderr
/// (file, field, reason) and skipped; it never stops cohost.
pub fn registry() -> Result<Registry, CohostError> {
    let mut r = Registry::new();
    cohost_agents::builtin::register_all(&mut r)?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let (plugins, problems) =
        cohost_agents::plugin::load_plugins(&cohost_agents::plugin::default_plugin_dirs(&cwd));
    for p in problems {
        crate::say_err!("cohost: warning: {p}");
    }
    for f in plugins {
        if let Err(e) = r.register(f) {
            crate::say_err!("cohost: warning: plugin skipped: {}", e.message);
        }
    }
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
