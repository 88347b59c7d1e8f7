//! The session's part of an agent's OS sandbox (issue 36): the mode (the
//! request's, else the config's `sandbox`, else off), cohost's own secrets
//! to deny, and the git directory a worktree's commits go to.

use std::path::{Path, PathBuf};

use cohost_core::{SandboxMode, SandboxRequest};
use cohost_discovery::{Host, HostConfig};

use super::setup_error::SetupError;

/// What cohost keeps that no agent may read: its config (provider keys,
/// relay secrets), its state (every session's record and transcript, the
/// host's signing key, worktrees of other sessions) and its runtime
/// directory (the local API's token).
fn cohost_secrets(host: &Host) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(dir) = host.paths.config_file.parent() {
        out.push(dir.to_path_buf());
    }
    out.push(host.paths.state_dir.clone());
    out.push(host.paths.runtime_dir.clone());
    out
}

/// The sandbox request of a session: `mode` (the front end's choice) or
/// the config's; `worktree_origin` is the user's checkout a worktree came
/// from. With the notice to show when the sandbox cannot confine here.
pub(super) fn request(
    host: &Host,
    cfg: &HostConfig,
    mode: Option<SandboxMode>,
    worktree_origin: Option<&Path>,
) -> Result<(SandboxRequest, Option<String>), SetupError> {
    let mode = match mode {
        Some(m) => m,
        None => cfg.sandbox()?.unwrap_or_default(),
    };
    if !mode.is_on() {
        return Ok((SandboxRequest::default(), None));
    }
    let report = cohost_agents::process::sandbox::report();
    if !report.available && mode == SandboxMode::Required {
        return Err(SetupError::Other(
            cohost_agents::process::sandbox::unavailable_error(),
        ));
    }
    let notice = (!report.available).then(|| {
        "the sandbox is on, but this kernel has no Landlock: the agent runs unconfined \
         (`cohost doctor` says more; --sandbox=required refuses to start instead)"
            .to_string()
    });
    let write = worktree_origin
        .map(|o| o.join(".git"))
        .filter(|g| g.is_dir())
        .into_iter()
        .collect();
    let req = SandboxRequest {
        mode,
        write,
        deny: cohost_secrets(host),
    };
    Ok((req, notice))
}
