//! Running a CLI the way a driver should: in its own process group, with a
//! hard deadline, and nothing left behind whatever happens to the test.

use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cohost_core::{CohostError, ErrorCode};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

use crate::procfs::{self, ProcInfo};

/// How long readers may take to drain the pipes after the group is dead.
const DRAIN: Duration = Duration::from_secs(2);

/// Sends `SIGKILL` to a whole process group.
fn kill_group(pgid: i32) {
    // pgid 0 or 1 would mean "our own group" or "init's": never signal those.
    if pgid <= 1 {
        return;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of ours; a
    // group that is already gone yields ESRCH, which is the outcome we want.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// Kills a spawned child's whole process group when dropped, so a failing
/// assertion or a panic in a test still leaves no agent running.
#[derive(Debug)]
pub struct GroupGuard {
    pgid: i32,
}

impl GroupGuard {
    /// Guards the group led by `child` (spawned with `process_group(0)`).
    /// Errors when the child has already been reaped and has no pid.
    pub fn new(child: &Child) -> Result<GroupGuard, CohostError> {
        let pid = child.id().ok_or_else(|| {
            CohostError::new(
                ErrorCode::SpawnFailed,
                "the child exited before it could be guarded",
            )
            .with_fix("guard the child right after spawning it")
        })?;
        let pgid = i32::try_from(pid).map_err(|_| {
            CohostError::new(
                ErrorCode::SpawnFailed,
                format!("pid {pid} does not fit a pid_t"),
            )
        })?;
        Ok(GroupGuard { pgid })
    }

    /// The process group id (the leader's pid).
    pub fn pgid(&self) -> i32 {
        self.pgid
    }

    /// Live members of the group right now.
    pub fn members(&self) -> Vec<ProcInfo> {
        procfs::group_members(self.pgid)
    }

    /// Kills the group now (also done on drop).
    pub fn kill(&self) {
        kill_group(self.pgid);
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        kill_group(self.pgid);
    }
}

/// Spawns `cmd` as the leader of a new process group and guards that group.
pub fn spawn_in_group(cmd: &mut Command) -> Result<(Child, GroupGuard), CohostError> {
    cmd.process_group(0).kill_on_drop(true);
    let child = cmd.spawn().map_err(|e| {
        CohostError::new(
            ErrorCode::SpawnFailed,
            format!("could not start {:?}: {e}", cmd.as_std().get_program()),
        )
        .with_fix("install the agent CLIs with `bash tests/agents/install.sh` and check the path")
    })?;
    let guard = GroupGuard::new(&child)?;
    Ok((child, guard))
}

/// What a bounded run produced.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// Exit status; `None` when the run timed out and was killed.
    pub status: Option<ExitStatus>,
    /// Everything written to stdout (lossy UTF-8).
    pub stdout: String,
    /// Everything written to stderr (lossy UTF-8).
    pub stderr: String,
    /// Whether the deadline passed first.
    pub timed_out: bool,
    /// Wall time from spawn to exit (or to the kill).
    pub elapsed: Duration,
    /// Group members still alive when the leader exited; killed since.
    pub group_survivors: Vec<ProcInfo>,
}

impl RunOutput {
    /// Exited in time with status 0.
    pub fn success(&self) -> bool {
        !self.timed_out && self.status.is_some_and(|s| s.success())
    }

    /// A multi-line summary for assertion messages: status and both streams' tails.
    pub fn describe(&self) -> String {
        format!(
            "status: {:?}, timed out: {}, elapsed: {:?}, survivors: {:?}\n--- stdout (tail) ---\n{}\n--- stderr (tail) ---\n{}",
            self.status,
            self.timed_out,
            self.elapsed,
            self.group_survivors,
            tail(&self.stdout, 4000),
            tail(&self.stderr, 4000)
        )
    }
}

fn tail(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// Copies a pipe into a shared buffer so partial output survives a timeout.
fn drain<R: AsyncRead + Unpin + Send + 'static>(
    pipe: Option<R>,
    buf: Arc<Mutex<Vec<u8>>>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let Some(mut pipe) = pipe else { return };
        let mut chunk = [0u8; 8192];
        while let Ok(n) = pipe.read(&mut chunk).await {
            if n == 0 {
                break;
            }
            buf.lock()
                .unwrap_or_else(|p| p.into_inner())
                .extend_from_slice(&chunk[..n]);
        }
    })
}

fn take(buf: &Arc<Mutex<Vec<u8>>>) -> String {
    String::from_utf8_lossy(&buf.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
}

/// Runs `cmd` (stdout and stderr captured) in its own process group. On
/// timeout the whole group is killed and `timed_out` is set; when the leader
/// exits, group members still alive are recorded in `group_survivors` and
/// killed. If the returned future is dropped, the group is killed too.
pub async fn run_with_timeout(
    mut cmd: Command,
    timeout: Duration,
) -> Result<RunOutput, CohostError> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let started = Instant::now();
    let (mut child, guard) = spawn_in_group(&mut cmd)?;
    let out_buf = Arc::new(Mutex::new(Vec::new()));
    let err_buf = Arc::new(Mutex::new(Vec::new()));
    let readers = [
        drain(child.stdout.take(), out_buf.clone()),
        drain(child.stderr.take(), err_buf.clone()),
    ];
    let waited = tokio::time::timeout(timeout, child.wait()).await;
    let elapsed = started.elapsed();
    let (status, timed_out, survivors) = match waited {
        Ok(Ok(status)) => (Some(status), false, guard.members()),
        Ok(Err(e)) => {
            return Err(CohostError::new(
                ErrorCode::ProcessCrashed,
                format!("could not wait for {:?}: {e}", cmd.as_std().get_program()),
            ))
        }
        Err(_) => (None, true, Vec::new()),
    };
    guard.kill();
    if timed_out {
        // Reap the leader so it does not linger as a zombie of the test process.
        let _reaped = tokio::time::timeout(DRAIN, child.wait()).await;
    }
    for reader in readers {
        // A pipe held open by a process outside the group must not hang the test.
        let abort = reader.abort_handle();
        if tokio::time::timeout(DRAIN, reader).await.is_err() {
            abort.abort();
        }
    }
    Ok(RunOutput {
        status,
        stdout: take(&out_buf),
        stderr: take(&err_buf),
        timed_out,
        elapsed,
        group_survivors: survivors,
    })
}

/// Live processes carrying the bench marker, as `(pid, cmdline)`.
pub fn leftover_processes(marker: &str) -> Vec<(u32, String)> {
    procfs::leftover_processes(marker)
        .into_iter()
        .map(|p| (p.pid, p.cmdline))
        .collect()
}

/// Kills every live process carrying `marker`; returns what it found.
pub fn kill_leftovers(marker: &str) -> Vec<ProcInfo> {
    let found = procfs::leftover_processes(marker);
    for p in &found {
        // Re-check: the pid may have been reused by an unrelated process.
        if procfs::has_marker(p.pid, marker) {
            if let Ok(pid) = i32::try_from(p.pid) {
                // SAFETY: plain integer syscall, see kill_group.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
    }
    found
}

/// Waits up to two seconds for every process carrying `marker` to be gone,
/// then panics listing the survivors (after killing them, so one failing test
/// does not poison the next).
pub async fn assert_no_leftovers(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let left = procfs::leftover_processes(marker);
        if left.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            kill_leftovers(marker);
            let list: Vec<String> = left.iter().map(ToString::to_string).collect();
            panic!(
                "{} process(es) tagged {marker} outlived the test:\n  {}",
                left.len(),
                list.join("\n  ")
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[cfg(test)]
#[path = "process_tests.rs"]
mod tests;
