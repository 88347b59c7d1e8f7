//! [`Bench`]: one fake server, one scratch user, one marker, for one CLI.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use cohost_core::{CohostError, ErrorCode};
use cohost_fakellm::{FakeLlm, FakeLlmConfig, FakeLlmHandle, LoggedRequest};
use tokio::process::Command;

use crate::cli::AgentCli;
use crate::config::{offline_setup, Layout};
use crate::install::{bin_dir, installed_bin};
use crate::netwatch::{NetWatch, Outbound};
use crate::process::kill_leftovers;
use crate::procfs::MARKER_VAR;

/// Used when the test process itself has no `PATH` (node scripts need `node`).
const FALLBACK_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// A fake model server plus a scratch user configured so `cli` talks only to it.
///
/// Dropping the bench stops the network watch, kills every process still
/// carrying its marker, stops the server and deletes the scratch root.
#[derive(Debug)]
pub struct Bench {
    cli: AgentCli,
    // Field order is drop order: watch first, then the server, the dir last.
    net: NetWatch,
    fake: FakeLlmHandle,
    layout: Layout,
    env: BTreeMap<String, String>,
    marker: String,
    _root: tempfile::TempDir,
}

/// A marker no other bench in any process on this machine uses.
fn fresh_marker() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "cohost-bench-{}-{nanos:x}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> CohostError {
    CohostError::new(
        ErrorCode::ConfigInvalid,
        format!("test bench could not {what} {}: {e}", path.display()),
    )
    .with_fix("check that TMPDIR is writable and has free space")
}

impl Bench {
    /// Starts a default fake server (text replies) and prepares `cli`'s scratch user.
    pub async fn start(cli: AgentCli) -> Result<Bench, CohostError> {
        Bench::start_with(cli, FakeLlmConfig::default()).await
    }

    /// Like [`Bench::start`] with a custom fake-server configuration (scripts, pacing).
    pub async fn start_with(cli: AgentCli, config: FakeLlmConfig) -> Result<Bench, CohostError> {
        Bench::start_many(&[cli], config).await
    }

    /// One scratch user set up for several CLIs at once, all against one
    /// fake server (a room of agents). [`Bench::cli`] is the first.
    pub async fn start_many(
        clis: &[AgentCli],
        config: FakeLlmConfig,
    ) -> Result<Bench, CohostError> {
        let Some(&cli) = clis.first() else {
            return Err(CohostError::new(
                ErrorCode::ConfigInvalid,
                "a test bench needs at least one CLI",
            ));
        };
        let root = tempfile::Builder::new()
            .prefix(&format!("cohost-bench-{}-", cli.name()))
            .tempdir()
            .map_err(|e| io_error("create a scratch dir in", &std::env::temp_dir(), e))?;
        let layout = Layout::under(root.path());
        for dir in layout.dirs() {
            std::fs::create_dir_all(dir).map_err(|e| io_error("create", dir, e))?;
        }
        let fake = FakeLlm::start(config).await.map_err(|e| {
            CohostError::new(ErrorCode::NetworkError, format!("fake model server: {e}"))
                .with_fix(e.suggested_fix())
        })?;
        let mut env = BTreeMap::new();
        for &each in clis {
            let setup = offline_setup(each, &layout, &fake.base_url());
            for (path, contents) in &setup.files {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| io_error("create", parent, e))?;
                }
                std::fs::write(path, contents).map_err(|e| io_error("write", path, e))?;
            }
            env.extend(setup.env);
        }
        let marker = fresh_marker();
        env.insert("PATH".into(), path_env());
        env.insert(MARKER_VAR.into(), marker.clone());
        Ok(Bench {
            cli,
            net: NetWatch::start(&marker),
            fake,
            layout,
            env,
            marker,
            _root: root,
        })
    }

    /// The CLI this bench is configured for.
    pub fn cli(&self) -> AgentCli {
        self.cli
    }

    /// The child's whole environment: what a driver passes in `AdapterConfig.env`
    /// (scratch HOME/XDG/CODEX_HOME, vendor variables, `PATH`, `COHOST_TEST_MARKER`).
    pub fn env(&self) -> BTreeMap<String, String> {
        self.env.clone()
    }

    /// The value of `COHOST_TEST_MARKER` every process of this bench carries.
    pub fn marker(&self) -> &str {
        &self.marker
    }

    /// The agent's working directory (empty at start).
    pub fn cwd(&self) -> &Path {
        &self.layout.work
    }

    /// The scratch `HOME`.
    pub fn home(&self) -> &Path {
        &self.layout.home
    }

    /// All scratch directories.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The fake model server.
    pub fn fake(&self) -> &FakeLlmHandle {
        &self.fake
    }

    /// The installed launcher of `cli`, `None` when it is not installed.
    pub fn bin_path(&self, cli: AgentCli) -> Option<PathBuf> {
        installed_bin(cli)
    }

    /// `PATH` for children: the install dir's `bin/` first, then the test's own `PATH`.
    pub fn path_env(&self) -> String {
        path_env()
    }

    /// A command for this bench's CLI: `env_clear()` plus exactly [`Bench::env`],
    /// cwd [`Bench::cwd`], stdin null, its own process group, killed on drop.
    /// When the CLI is not installed the program is its bare name, so spawning
    /// fails with an error that names it.
    pub fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let program = self
            .bin_path(self.cli)
            .unwrap_or_else(|| PathBuf::from(self.cli.binary()));
        self.command_for(program, args)
    }

    /// Like [`Bench::command`] for any program (a helper tool, the `cohost`
    /// binary under test): same environment, marker, cwd and process group.
    pub fn command_for<P, I, S>(&self, program: P, args: I) -> Command
    where
        P: AsRef<OsStr>,
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .env_clear()
            .envs(&self.env)
            .current_dir(&self.layout.work)
            .stdin(Stdio::null())
            .process_group(0)
            .kill_on_drop(true);
        cmd
    }

    /// The body of the last request to the fake server that contains
    /// `needle` (a prompt's marker), if any.
    pub fn last_request_with(&self, needle: &str) -> Option<String> {
        self.fake
            .requests()
            .iter()
            .rev()
            .map(|r| r.body.to_string())
            .find(|b| b.contains(needle))
    }

    /// Requests that reached the fake server's model endpoint for this CLI's API.
    pub fn model_requests(&self) -> Vec<LoggedRequest> {
        let api = self.cli.model_api();
        self.fake
            .requests()
            .into_iter()
            .filter(|r| r.method == "POST" && api.matches_path(&r.path))
            .collect()
    }

    /// Stops the network watch, for a timing benchmark that should not share
    /// the CPU with it; [`Bench::assert_only_loopback`] fails from then on.
    pub fn stop_network_watch(&mut self) {
        self.net.stop();
    }

    /// Non-loopback peers any of this bench's processes held so far.
    pub fn outbound(&self) -> Vec<Outbound> {
        self.net.outbound()
    }

    /// Panics unless every request the fake server logged was addressed to it
    /// on 127.0.0.1 and no process of this bench held a non-loopback socket.
    pub fn assert_only_loopback(&self) {
        assert!(
            self.net.is_running(),
            "network watch is not running; cannot vouch for loopback-only traffic"
        );
        assert_requests_to(&self.fake.requests(), &self.fake.addr().to_string());
        let outbound = self.outbound();
        assert!(
            outbound.is_empty(),
            "{} contacted non-loopback addresses:\n  {}",
            self.cli,
            outbound
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n  ")
        );
    }
}

impl Drop for Bench {
    fn drop(&mut self) {
        let killed = kill_leftovers(&self.marker);
        if !killed.is_empty() {
            eprintln!(
                "cohost-testbench: killed {} leftover process(es) of {}: {killed:?}",
                killed.len(),
                self.cli
            );
        }
    }
}

/// Panics unless every logged request carried `Host: host` (the fake server's
/// own `127.0.0.1:PORT`): a request relayed through a proxy or addressed to a
/// vendor's hostname would carry another one.
pub fn assert_requests_to(requests: &[LoggedRequest], host: &str) {
    for r in requests {
        let got = r.headers.get("host").map(String::as_str);
        assert!(
            got == Some(host) || got == Some(&format!("localhost:{}", port_of(host))),
            "request #{} {} {} had Host {:?}, expected {host}",
            r.seq,
            r.method,
            r.path,
            got
        );
    }
}

fn port_of(host: &str) -> &str {
    host.rsplit_once(':').map(|(_, p)| p).unwrap_or("")
}

fn path_env() -> String {
    let system = std::env::var("PATH")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| FALLBACK_PATH.to_string());
    format!("{}:{system}", bin_dir().display())
}
