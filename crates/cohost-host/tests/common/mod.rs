//! Scratch environments for tests: a temp HOME, a scratch PATH with stub
//! binaries, XDG dirs inside the temp dir. Nothing touches the real HOME.

use cohost_core::Registry;
use cohost_discovery::{DiscoveryEnv, Host};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

pub struct Scratch {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub bin: PathBuf,
}

impl Scratch {
    pub fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        Scratch { dir, home, bin }
    }

    pub fn env(&self) -> DiscoveryEnv {
        let mut env = DiscoveryEnv {
            path: Some(self.bin.clone().into_os_string()),
            home: Some(self.home.clone()),
            ..Default::default()
        };
        for (k, rel) in [
            ("XDG_CONFIG_HOME", ".config"),
            ("XDG_STATE_HOME", ".local/state"),
            ("XDG_RUNTIME_DIR", "run"),
        ] {
            env.vars
                .insert(k.into(), self.home.join(rel).display().to_string());
        }
        env
    }

    pub fn host_with(&self, registry: Registry, edit: impl FnOnce(&mut DiscoveryEnv)) -> Host {
        let mut env = self.env();
        edit(&mut env);
        let mut host = Host::new(registry, env);
        host.timeouts.version = std::time::Duration::from_secs(10);
        host.timeouts.auth = std::time::Duration::from_secs(10);
        host
    }

    pub fn host(&self) -> Host {
        self.host_with(Registry::new(), |_| {})
    }

    /// A `#!/bin/sh` stub at `dir/name` running `body`.
    pub fn stub(&self, dir: &Path, name: &str, body: &str) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    /// A stub on the scratch PATH.
    pub fn stub_on_path(&self, name: &str, body: &str) -> PathBuf {
        self.stub(&self.bin.clone(), name, body)
    }

    pub fn write_config(&self, text: &str) -> PathBuf {
        let p = self.home.join(".config/cohost/config.toml");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }
}

/// A claude stub: version, and `auth status` exiting `auth_rc`.
pub fn claude_script(version: &str, auth_rc: i32) -> String {
    format!(
        r#"case "$1" in
  --version) echo "{version} (Claude Code)";;
  auth) echo '{{"loggedIn": false}}'; exit {auth_rc};;
  *) echo unexpected "$@" >&2; exit 9;;
esac"#
    )
}
