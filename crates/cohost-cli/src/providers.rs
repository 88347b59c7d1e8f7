//! The provider registry this binary ships (which provider a session runs
//! is the setup service's choice, `cohost_host::session`).

use cohost_core::{CohostError, Registry};

/// Every built-in provider, plus the plugins declared in the user's and the
/// project's manifest directories. A bad manifest is reported on stderr
/// (file, field, reason) and skipped; it never stops cohost.
pub fn registry() -> Result<Registry, CohostError> {
    let mut r = Registry::new();
    cohost_agents::builtin::register_all(&mut r)?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let (plugins, problems) = cohost_agents::drivers::plugin::load_plugins(
        &cohost_agents::drivers::plugin::default_plugin_dirs(&cwd),
    );
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
