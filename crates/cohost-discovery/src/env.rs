//! Everything the host services read from the environment, injectable so
//! tests run against a scratch `PATH`, `HOME` and variables, never the
//! user's real ones.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// The environment discovery, status and hooks look at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiscoveryEnv {
    /// The search path (`$PATH`).
    pub path: Option<OsString>,
    /// The user's home directory.
    pub home: Option<PathBuf>,
    /// Other variables (`OLLAMA_HOST`, `ANTHROPIC_API_KEY`, `XDG_*`...).
    pub vars: BTreeMap<String, String>,
    /// System-wide install directories (Homebrew `/opt/homebrew/bin`,
    /// `/usr/local/bin`); tests set none.
    pub system_dirs: Vec<PathBuf>,
}

impl DiscoveryEnv {
    /// The environment of this process.
    pub fn from_process() -> Self {
        DiscoveryEnv {
            path: std::env::var_os("PATH"),
            home: std::env::var_os("HOME").map(PathBuf::from),
            vars: std::env::vars().collect(),
            system_dirs: vec!["/opt/homebrew/bin".into(), "/usr/local/bin".into()],
        }
    }

    /// A non-empty variable.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// `$HOME/rel`, when HOME is known.
    pub fn home_join(&self, rel: &str) -> Option<PathBuf> {
        self.home.as_ref().map(|h| h.join(rel))
    }

    fn xdg(&self, var: &str, fallback: &str) -> Option<PathBuf> {
        match self.var(var) {
            Some(v) if PathBuf::from(v).is_absolute() => Some(PathBuf::from(v)),
            _ => self.home_join(fallback),
        }
    }

    /// Where cohost's files live, per the XDG base directory spec.
    pub fn paths(&self) -> HostPaths {
        let config_dir = self
            .xdg("XDG_CONFIG_HOME", ".config")
            .unwrap_or_else(|| PathBuf::from(".config"))
            .join("cohost");
        let state_dir = self
            .xdg("XDG_STATE_HOME", ".local/state")
            .unwrap_or_else(|| PathBuf::from(".local/state"))
            .join("cohost");
        // XDG_RUNTIME_DIR is per-user and tmpfs; without it, a per-user dir
        // in the state dir keeps the socket private.
        let runtime_dir = self
            .var("XDG_RUNTIME_DIR")
            .map(|d| PathBuf::from(d).join("cohost"))
            .unwrap_or_else(|| state_dir.join("run"));
        HostPaths {
            config_file: config_dir.join("config.toml"),
            state_dir,
            runtime_dir,
        }
    }

    /// The variables and PATH/HOME as a child environment overlay.
    pub fn child_overlay(&self) -> BTreeMap<String, String> {
        let mut out = self.vars.clone();
        if let Some(p) = self.path.as_ref().and_then(|p| p.to_str()) {
            out.insert("PATH".into(), p.into());
        }
        if let Some(h) = self.home.as_ref().and_then(|h| h.to_str()) {
            out.insert("HOME".into(), h.into());
        }
        out
    }
}

/// The files and directories of cohost's host services.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPaths {
    /// `$XDG_CONFIG_HOME/cohost/config.toml`.
    pub config_file: PathBuf,
    /// `$XDG_STATE_HOME/cohost`: session store, smoke-test cache, hook backups.
    pub state_dir: PathBuf,
    /// `$XDG_RUNTIME_DIR/cohost`: the hook-event socket.
    pub runtime_dir: PathBuf,
}

impl HostPaths {
    /// The Unix socket `serve` listens on for hook events.
    pub fn hook_socket(&self) -> PathBuf {
        self.runtime_dir.join("hooks.sock")
    }
}

/// Time limits of the host services.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// `--version` probes.
    pub version: Duration,
    /// `auth status`-style probes.
    pub auth: Duration,
    /// Model-server endpoint probes.
    pub server: Duration,
    /// A whole smoke test.
    pub smoke: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            // Node CLIs are slow to start: gemini --version took 6-9 s and
            // cn 7 s on a loaded 2-core test machine (claude 0.15 s).
            version: Duration::from_secs(15),
            auth: Duration::from_secs(10),
            server: Duration::from_millis(300),
            smoke: Duration::from_secs(60),
        }
    }
}
