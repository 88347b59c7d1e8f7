//! Building the host-services context the local subcommands share.

use cohost_core::CohostError;
use cohost_discovery::{DiscoveryEnv, Host, HostConfig};

/// The registry plus the process environment.
pub fn host() -> Result<Host, CohostError> {
    let host = Host::new(crate::providers::registry()?, DiscoveryEnv::from_process())
        .with_sanitizer(crate::secrets::sanitizer());
    // `--version`/`--help` answers survive this process: the next run,
    // share or serve session skips those probes.
    cohost_agents::process::set_probe_cache_file(Some(host.paths.state_dir.join("probes.json")));
    Ok(host)
}

/// The host and its loaded config.
pub fn host_and_config() -> Result<(Host, HostConfig), CohostError> {
    let h = host()?;
    let cfg = h.config()?;
    Ok((h, cfg))
}

/// This executable's path, for hooks that call back into cohost.
pub fn current_exe() -> String {
    std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "cohost".into())
}
