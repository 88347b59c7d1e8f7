//! Whether codex runs inside cohost's OS sandbox, which decides its own
//! sandbox mode (the app-server, `codex exec` and codex-acp all ask).

use cohost_core::AdapterConfig;

/// Whether cohost's OS sandbox will confine codex (asked for, and this
/// kernel has Landlock): codex's own sandbox then stands down.
pub(crate) fn outer_sandbox(config: &AdapterConfig) -> bool {
    config.sandbox.mode.is_on() && crate::process::sandbox::Support::probe().available()
}
