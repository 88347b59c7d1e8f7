//! A scratch world for one test of a CLI installed by
//! `tests/agents/install.sh`: its own HOME/XDG dirs, workspace and fake
//! model server, and a marker in the agent's environment to find every
//! process it started.

use cohost_agents::process::procfs;
use cohost_core::{
    AdapterConfig, AdapterFactory, ApprovalMode, HostSession, Policy, SessionOptions,
};
use cohost_fakellm::{FakeLlm, FakeLlmConfig, FakeLlmHandle};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The variable that carries the per-test marker.
pub const MARKER: &str = "COHOST_TEST_MARKER";

/// One test's world. Dropping it removes the scratch dirs.
pub struct Env {
    /// Holds every scratch dir; removed on drop.
    pub dir: tempfile::TempDir,
    /// The scratch HOME.
    pub home: PathBuf,
    /// The workspace (the agent's cwd).
    pub ws: PathBuf,
    /// This test's value of [`MARKER`].
    pub marker: String,
    /// The fake model server.
    pub server: FakeLlmHandle,
    /// Points the CLI at all of the above; the test adds its own variables.
    pub config: AdapterConfig,
}

static SEQ: AtomicU64 = AtomicU64::new(0);

impl Env {
    /// Start the fake server (100 ms between slow chunks), create HOME and
    /// the workspace, and set HOME, the XDG dirs, TMPDIR and the marker.
    pub async fn start(agent: &str, bin: &Path, approval: ApprovalMode) -> Env {
        let server = FakeLlm::start(FakeLlmConfig {
            slow_delay: Duration::from_millis(100),
            ..FakeLlmConfig::default()
        })
        .await
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (home, ws) = (dir.path().join("home"), dir.path().join("ws"));
        for d in [&home, &ws] {
            std::fs::create_dir_all(d).unwrap();
        }
        let marker = format!(
            "{agent}-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::SeqCst)
        );
        let mut config = AdapterConfig {
            cwd: ws.clone(),
            binary: Some(bin.to_path_buf()),
            approval,
            ..AdapterConfig::default()
        };
        let under = |p: &str| home.join(p).display().to_string();
        for (k, v) in [
            ("HOME", home.display().to_string()),
            ("XDG_CONFIG_HOME", under(".config")),
            ("XDG_DATA_HOME", under(".local/share")),
            ("XDG_CACHE_HOME", under(".cache")),
            ("XDG_STATE_HOME", under(".local/state")),
            ("TMPDIR", dir.path().display().to_string()),
            (MARKER, marker.clone()),
        ] {
            config.env.insert(k.into(), v);
        }
        Env {
            dir,
            home,
            ws,
            marker,
            server,
            config,
        }
    }

    /// Set more variables for the agent.
    pub fn set_env<const N: usize>(&mut self, vars: [(&str, String); N]) {
        for (k, v) in vars {
            self.config.env.insert(k.into(), v);
        }
    }

    /// A (not yet started) session over `factory` with this world's config.
    pub fn session(&self, factory: Arc<dyn AdapterFactory>, policy: Policy) -> HostSession {
        HostSession::new(
            factory,
            self.config.clone(),
            Arc::new(policy),
            SessionOptions::default(),
        )
    }
}

/// No process carrying this test's marker may outlive the session.
pub async fn assert_no_agent_left(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left = procfs::live_with_env(MARKER, marker);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "agent processes left behind: {left:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Terminate the session, check nothing it started is left, stop the server.
pub async fn finish(mut s: HostSession, env: Env) {
    s.terminate().await.unwrap();
    assert_no_agent_left(&env.marker).await;
    env.server.shutdown().await;
}
