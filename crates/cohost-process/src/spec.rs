//! What to start ([`ProcessSpec`]) and how it ended ([`ExitInfo`]): the
//! terms the supervised child (`child.rs`) and the launch through a
//! supervisor or directly (`launch.rs`) share.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

use super::env::EnvPolicy;
use super::framer::DEFAULT_MAX_LINE_BYTES;
use super::stderr::DEFAULT_STDERR_BYTES;
use crate::provider::Catalog;

/// How to start an agent process.
#[derive(Debug, Clone)]
pub struct ProcessSpec {
    /// Provider id, for messages (`claude`).
    pub provider_id: String,
    /// The binary.
    pub program: PathBuf,
    /// Arguments.
    pub args: Vec<OsString>,
    /// Working directory (`None` = ours).
    pub cwd: Option<PathBuf>,
    /// Environment policy (allowlist + provider prefixes + explicit vars).
    pub env: EnvPolicy,
    /// Longest stdout line kept.
    pub max_line_bytes: usize,
    /// Bytes of stderr kept.
    pub stderr_bytes: usize,
    /// Frames buffered between the reader task and the consumer; a full
    /// channel pauses reading, so a slow consumer backpressures the agent.
    pub channel_capacity: usize,
    /// The OS sandbox the session asks for (see [`super::sandbox`]).
    pub sandbox: cohost_core::SandboxRequest,
    /// The known CLIs, for the sandbox: which credential files are the
    /// agent's own and which are other agents' (denied).
    pub catalog: Catalog,
    /// What the captured stderr passes before anyone reads it (crash
    /// reports, health): the session's sanitizer ([`ProcessSpec::for_session`]).
    pub sanitizer: std::sync::Arc<cohost_core::Sanitizer>,
}

impl ProcessSpec {
    /// A spec with default limits. `catalog` is every CLI cohost knows (the
    /// sandbox denies an agent the others' credential files); required so
    /// that no launch forgets it.
    pub fn new(
        provider_id: impl Into<String>,
        program: impl Into<PathBuf>,
        catalog: Catalog,
    ) -> Self {
        ProcessSpec {
            provider_id: provider_id.into(),
            program: program.into(),
            args: Vec::new(),
            cwd: None,
            env: EnvPolicy::default(),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            stderr_bytes: DEFAULT_STDERR_BYTES,
            channel_capacity: 256,
            sandbox: cohost_core::SandboxRequest::default(),
            catalog,
            sanitizer: std::sync::Arc::default(),
        }
    }

    /// What the session's adapter config asks of its process: the sandbox
    /// it runs in and the sanitizer its stderr passes.
    pub fn for_session(&mut self, config: &cohost_core::AdapterConfig) {
        self.sandbox = config.sandbox.clone();
        self.sanitizer = config.sanitizer.clone();
    }

    /// Append an argument.
    pub fn arg(mut self, a: impl Into<OsString>) -> Self {
        self.args.push(a.into());
        self
    }

    /// Append arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }
}

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitInfo {
    /// Exit code, when it exited.
    pub code: Option<i32>,
    /// Signal number, when a signal killed it.
    pub signal: Option<i32>,
}

impl ExitInfo {
    /// Exited with code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

impl fmt::Display for ExitInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code, self.signal) {
            (Some(c), _) => write!(f, "exited with code {c}"),
            (None, Some(s)) => {
                let name = match s {
                    libc::SIGINT => " (SIGINT)",
                    libc::SIGTERM => " (SIGTERM)",
                    libc::SIGKILL => " (SIGKILL)",
                    libc::SIGSEGV => " (SIGSEGV)",
                    libc::SIGABRT => " (SIGABRT)",
                    libc::SIGPIPE => " (SIGPIPE)",
                    _ => "",
                };
                write!(f, "killed by signal {s}{name}")
            }
            (None, None) => f.write_str("ended"),
        }
    }
}
