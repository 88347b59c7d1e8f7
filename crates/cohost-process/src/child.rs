//! The supervised child: spawn in its own group, frame stdout, keep a stderr
//! ring, watch for exit, signal and kill the whole group.

use cohost_core::{CohostError, ErrorCode};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::ChildStdin;
use tokio::sync::{mpsc, watch};

use super::framer::{Frame, LineFramer};
use super::group::{self, signal_group, GroupSignal};
use super::launch;
use super::spec::{ExitInfo, ProcessSpec};
use super::stderr::StderrRing;
use super::supervisor;

/// A cloneable handle to the child's stdin. Writes are whole lines, never
/// interleaved, because an agent reading JSON lines cannot resynchronise
/// after a torn write.
#[derive(Clone)]
pub struct StdinWriter {
    inner: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    provider_id: Arc<str>,
}

impl fmt::Debug for StdinWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StdinWriter")
            .field("provider_id", &self.provider_id)
            .finish()
    }
}

impl StdinWriter {
    /// Write `line` plus `\n` and flush. A closed pipe is PROCESS_CRASHED.
    pub async fn write_line(&self, line: &str) -> Result<(), CohostError> {
        let mut guard = self.inner.lock().await;
        let Some(stdin) = guard.as_mut() else {
            return Err(self.closed("stdin is closed"));
        };
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
        let res = async {
            stdin.write_all(&buf).await?;
            stdin.flush().await
        }
        .await;
        if let Err(e) = res {
            *guard = None;
            return Err(self.closed(&format!("writing to stdin failed: {e}")));
        }
        Ok(())
    }

    /// Close stdin (EOF for the agent).
    pub async fn close(&self) {
        if let Some(mut s) = self.inner.lock().await.take() {
            let _ = s.shutdown().await;
        }
    }

    fn closed(&self, what: &str) -> CohostError {
        CohostError::new(
            ErrorCode::ProcessCrashed,
            format!("agent `{}`: {what}", self.provider_id),
        )
        .with_fix("cohost restarts the agent for the next prompt")
    }
}

/// A running agent process, leader of its own process group.
///
/// Dropping it SIGKILLs the whole group (and, under a supervisor, every
/// descendant), so no code path can leak an agent.
pub struct Supervised {
    provider_id: Arc<str>,
    pid: u32,
    pgid: i32,
    stdin: StdinWriter,
    stdout: Option<mpsc::Receiver<Frame>>,
    stderr: Arc<Mutex<StderrRing>>,
    exit: watch::Receiver<Option<ExitInfo>>,
    stderr_done: watch::Receiver<bool>,
    tree_done: watch::Receiver<bool>,
    killed: bool,
    /// The agent's sandbox: its private temp dir lives as long as this.
    _sandbox: Option<Box<super::sandbox::Sandbox>>,
}

impl fmt::Debug for Supervised {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Supervised")
            .field("provider_id", &self.provider_id)
            .field("pid", &self.pid)
            .field("exit", &*self.exit.borrow())
            .finish()
    }
}

impl Supervised {
    /// Spawn the process described by `spec`. Must run inside a tokio runtime.
    ///
    /// Under a supervisor program ([`super::supervisor::use_current_exe`])
    /// the agent runs below its own supervisor, which kills the whole tree
    /// when this handle goes or cohost dies; otherwise it is spawned
    /// directly (see [`super::supervisor`] for what each guarantees).
    pub fn spawn(mut spec: ProcessSpec) -> Result<Supervised, CohostError> {
        let provider_id: Arc<str> = spec.provider_id.as_str().into();
        // Before the launch: it sets the child's TMPDIR.
        let sandbox = super::sandbox::build(
            &spec.provider_id,
            &spec.sandbox,
            spec.cwd.as_deref(),
            &mut spec.env,
            spec.catalog,
        )?;
        let policy = sandbox.as_ref().map(|s| &s.policy);
        let failed = |e: &dyn fmt::Display| {
            CohostError::new(
                ErrorCode::SpawnFailed,
                format!(
                    "could not start agent `{provider_id}` (`{}`): {e}",
                    spec.program.display()
                ),
            )
            .with_fix("check the binary path, its permissions and the working directory")
        };
        // The configured supervisor, then (when that was the small program
        // and it could not run) cohost itself.
        let mut launched = None;
        for sup in [supervisor::program(), supervisor::fallback()]
            .into_iter()
            .flatten()
        {
            match launch::supervised(sup, &spec, policy) {
                Ok(l) => {
                    launched = Some(l);
                    break;
                }
                Err(launch::Failure::Agent(msg)) => return Err(failed(&msg)),
                Err(launch::Failure::Supervisor(e)) => {
                    tracing::warn!(error = %e, program = %sup.path().display(), "agent supervisor unavailable");
                }
            }
        }
        let launched = match launched {
            Some(l) => l,
            // No supervisor configured, or none could run: the agent
            // itself, with `PR_SET_PDEATHSIG`.
            None => launch::direct(&spec, policy).map_err(|e| failed(&e))?,
        };
        // The agent boots for a while before its first output: compile the
        // secret patterns meanwhile (a no-op when they are already under way).
        cohost_core::sanitize::precompile();
        let launch::Launched {
            pid,
            stdin,
            stdout,
            stderr: stderr_pipe,
            exit: exit_rx,
            tree_done,
        } = launched;
        let pgid = i32::try_from(pid).unwrap_or(0);
        if pgid > 1 {
            group::register(pgid);
        }

        let stdin = StdinWriter {
            inner: Arc::new(tokio::sync::Mutex::new(stdin)),
            provider_id: provider_id.clone(),
        };
        let (tx, rx) = mpsc::channel(spec.channel_capacity.max(1));
        if let Some(out) = stdout {
            tokio::spawn(read_stdout(
                out,
                LineFramer::new(spec.max_line_bytes),
                tx,
                exit_rx.clone(),
            ));
        }
        let stderr = Arc::new(Mutex::new(StderrRing::new(
            spec.stderr_bytes,
            spec.sanitizer.clone(),
        )));
        let (stderr_done_tx, stderr_done) = watch::channel(false);
        match stderr_pipe {
            Some(err) => {
                tokio::spawn(read_stderr(
                    err,
                    stderr.clone(),
                    stderr_done_tx,
                    exit_rx.clone(),
                ));
            }
            None => {
                let _ = stderr_done_tx.send(true);
            }
        }

        Ok(Supervised {
            provider_id,
            pid,
            pgid,
            stdin,
            stdout: Some(rx),
            stderr,
            exit: exit_rx,
            stderr_done,
            tree_done,
            killed: false,
            _sandbox: sandbox.map(Box::new),
        })
    }

    /// The leader's pid (= the group id).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The stdout frames. The channel closes at stdout EOF (after a final
    /// truncated line, if any). Can be taken once.
    pub fn take_stdout(&mut self) -> Option<mpsc::Receiver<Frame>> {
        self.stdout.take()
    }

    /// A handle for writing lines to stdin.
    pub fn stdin(&self) -> StdinWriter {
        self.stdin.clone()
    }

    /// How the leader ended, if it did.
    pub fn exit_info(&self) -> Option<ExitInfo> {
        *self.exit.borrow()
    }

    /// Whether the leader is still running.
    pub fn is_alive(&self) -> bool {
        self.exit_info().is_none()
    }

    /// Wait up to `timeout` for the leader to exit.
    pub async fn wait_exit(&self, timeout: Duration) -> Option<ExitInfo> {
        let mut rx = self.exit.clone();
        let wait = async {
            loop {
                if let Some(info) = *rx.borrow_and_update() {
                    return Some(info);
                }
                if rx.changed().await.is_err() {
                    return *rx.borrow();
                }
            }
        };
        tokio::time::timeout(timeout, wait).await.ok().flatten()
    }

    /// Wait up to `timeout` for the leader to exit and its stderr to reach
    /// EOF, so [`Supervised::crash_report`] sees the agent's last words.
    /// Returns the exit info if the leader exited.
    pub async fn settle(&self, timeout: Duration) -> Option<ExitInfo> {
        let mut done = self.stderr_done.clone();
        let deadline = tokio::time::Instant::now() + timeout;
        let info = self.wait_exit(timeout).await;
        let _ = tokio::time::timeout_at(deadline, done.wait_for(|d| *d)).await;
        info
    }

    /// Signal the whole group. Returns whether the group still existed.
    pub fn signal(&self, signal: GroupSignal) -> Result<bool, CohostError> {
        signal_group(self.pgid, signal).map_err(|e| {
            CohostError::new(
                ErrorCode::ProcessCrashed,
                format!("could not signal agent `{}`: {e}", self.provider_id),
            )
        })
    }

    /// SIGKILL the group (and, under a supervisor, every descendant) and
    /// wait (bounded) until the leader is reaped and the tree is gone.
    pub async fn kill(&mut self) -> Option<ExitInfo> {
        self.kill_now();
        let info = self.wait_exit(Duration::from_secs(2)).await;
        let mut tree = self.tree_done.clone();
        let _ = tokio::time::timeout(Duration::from_secs(2), tree.wait_for(|d| *d)).await;
        info
    }

    /// SIGTERM, wait up to `grace`, then SIGKILL the group.
    pub async fn terminate(&mut self, grace: Duration) -> Option<ExitInfo> {
        if !self.killed {
            let _ = signal_group(self.pgid, GroupSignal::Terminate);
            if let Some(info) = self.wait_exit(grace).await {
                // The leader is gone; helpers may not be.
                self.kill_now();
                return Some(info);
            }
        }
        self.kill().await
    }

    fn kill_now(&mut self) {
        self.kill_tree();
        self.killed = true;
    }

    /// SIGKILL what is left of the agent: its group now, and under a
    /// supervisor every descendant (`setsid` ones included) right after.
    /// Does not wait; [`Supervised::kill`] does.
    pub fn kill_tree(&self) {
        if self.pgid > 1 {
            let _ = signal_group(self.pgid, GroupSignal::Kill);
            group::deregister(self.pgid);
        }
        supervisor::release(self.pid);
    }

    /// The sanitized stderr captured so far.
    pub fn stderr_text(&self) -> String {
        self.stderr.lock().map(|r| r.text()).unwrap_or_default()
    }

    /// The last `n` non-blank stderr lines, sanitized.
    pub fn stderr_tail(&self, n: usize) -> String {
        self.stderr
            .lock()
            .map(|r| r.tail_lines(n))
            .unwrap_or_default()
    }

    /// A one-line description of why the process is gone: exit status plus
    /// the stderr tail (for `health().last_error` and PROCESS_CRASHED).
    pub fn crash_report(&self) -> String {
        crash_report(&self.provider_id, self.exit_info(), &self.stderr_tail(5))
    }
}

/// [`Supervised::crash_report`] from its parts: the exit (`None`: still
/// running) and the last stderr lines.
pub fn crash_report(provider_id: &str, exit: Option<ExitInfo>, tail: &str) -> String {
    let status = exit.map_or_else(|| "stopped responding".to_string(), |i| i.to_string());
    if tail.is_empty() {
        format!("agent `{provider_id}` {status}")
    } else {
        format!(
            "agent `{provider_id}` {status}: {}",
            tail.replace('\n', " | ")
        )
    }
}

impl Drop for Supervised {
    fn drop(&mut self) {
        self.kill_now();
    }
}

/// After the leader exits, a descendant may still hold the pipe (a
/// background shell command does): reading goes on while data comes, but
/// a pause this long ends the stream.
const AFTER_EXIT_IDLE: Duration = Duration::from_millis(300);
/// ... and whatever comes, the stream ends this long after the exit.
const AFTER_EXIT_MAX: Duration = Duration::from_secs(3);

/// One read of a pipe whose writer is the agent's tree. `None` ends the
/// stream: EOF, an error, or the leader's exit plus the grace above.
async fn read_some(
    pipe: &mut (impl AsyncRead + Unpin),
    buf: &mut [u8],
    exit: &mut watch::Receiver<Option<ExitInfo>>,
    exited_at: &mut Option<tokio::time::Instant>,
) -> Option<usize> {
    loop {
        let read = match *exited_at {
            Some(at) => {
                let left =
                    (at + AFTER_EXIT_MAX).saturating_duration_since(tokio::time::Instant::now());
                tokio::time::timeout(AFTER_EXIT_IDLE.min(left), pipe.read(buf))
                    .await
                    .ok()?
            }
            None => tokio::select! {
                r = pipe.read(buf) => r,
                _ = exit.wait_for(Option::is_some) => {
                    // Also reached when the watcher is gone: same meaning.
                    *exited_at = Some(tokio::time::Instant::now());
                    continue;
                }
            },
        };
        return match read {
            Ok(0) | Err(_) => None,
            Ok(n) => Some(n),
        };
    }
}

async fn read_stdout(
    mut out: impl AsyncRead + Unpin,
    mut framer: LineFramer,
    tx: mpsc::Sender<Frame>,
    mut exit: watch::Receiver<Option<ExitInfo>>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut frames = Vec::new();
    let mut exited_at = None;
    while let Some(n) = read_some(&mut out, &mut buf, &mut exit, &mut exited_at).await {
        framer.push(&buf[..n], &mut frames);
        for f in frames.drain(..) {
            if tx.send(f).await.is_err() {
                return; // Nobody listens any more.
            }
        }
    }
    framer.finish(&mut frames);
    for f in frames.drain(..) {
        if tx.send(f).await.is_err() {
            return;
        }
    }
}

async fn read_stderr(
    mut err: impl AsyncRead + Unpin,
    ring: Arc<Mutex<StderrRing>>,
    done: watch::Sender<bool>,
    mut exit: watch::Receiver<Option<ExitInfo>>,
) {
    let mut buf = vec![0u8; 8192];
    let mut exited_at = None;
    while let Some(n) = read_some(&mut err, &mut buf, &mut exit, &mut exited_at).await {
        if let Ok(mut r) = ring.lock() {
            r.push(&buf[..n]);
        }
    }
    let _ = done.send(true);
}
