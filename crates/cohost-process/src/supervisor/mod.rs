//! cohost's side of process supervision (the supervisor's own side and the
//! control protocol are the `cohost-supervisor` crate).
//!
//! With a supervisor program configured ([`use_current_exe`], done by the
//! `cohost` binary), every agent runs under its own small supervisor:
//! `cohost-supervise` from cohost's own directory, else cohost itself in
//! the hidden mode [`SUPERVISE_ARG`]. The supervisor holds one end of a
//! socket pair whose other end only cohost holds; it is a child subreaper
//! (Linux), so every process the agent starts stays its descendant even
//! after `setsid` or a double fork; and when the socket closes, because
//! cohost ended the session or died (SIGKILL included), it SIGKILLs the
//! agent's group and then every descendant until none is left.
//!
//! Without a supervisor program (a library user, a test binary) the agent is
//! spawned directly with `PR_SET_PDEATHSIG` (Linux): its leader dies with
//! cohost, and its process group dies on every path cohost controls.
//!
//! The control socket is the supervisor's stdin, so cohost can start it with
//! posix_spawn (no `pre_exec`, no fork of cohost's whole address space) and
//! no descriptor is ever inheritable in cohost, where other threads spawn
//! processes of their own.

mod program;

pub use cohost_supervisor::SUPERVISE_ARG;
pub use cohost_supervisor::{hand_over_stdin, parse_exit, tree};
pub use program::{fallback, program, use_current_exe, Program, SUPERVISOR_BINARY};

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader};
use std::net::Shutdown;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long cohost waits for a supervisor to report the agent's pid.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// If this process was started as a supervisor (`argv[1]` is
/// [`SUPERVISE_ARG`]), run it and return its exit code. A binary that
/// calls [`use_current_exe`] must call this first, before anything else.
pub fn run_helper_if_requested() -> Option<i32> {
    cohost_supervisor::run_if_requested()
}

/// What the supervisor said at start.
pub enum Started {
    /// The agent runs with this pid (also its process group).
    Agent(u32),
    /// The agent could not be started; the supervisor's message.
    Failed(String),
}

/// Make the socket pair; returns (cohost's end, the supervisor's end).
pub fn socket_pair() -> io::Result<(UnixStream, OwnedFd)> {
    let (ours, theirs) = UnixStream::pair()?;
    Ok((ours, OwnedFd::from(theirs)))
}

/// Read the supervisor's first line (blocking, bounded).
pub fn read_started(control: &UnixStream) -> io::Result<(Started, BufReader<UnixStream>)> {
    let stream = control.try_clone()?;
    stream.set_read_timeout(Some(START_TIMEOUT))?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    reader.get_ref().set_read_timeout(None)?;
    let line = line.trim_end();
    let started = match line.split_once(' ') {
        Some(("P", pid)) => pid
            .parse()
            .map(Started::Agent)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, line.to_string()))?,
        Some(("E", msg)) => Started::Failed(msg.to_string()),
        Some(("V", theirs)) => {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "the supervisor program speaks protocol {theirs}, this cohost {}",
                    cohost_supervisor::PROTOCOL
                ),
            ))
        }
        _ => {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the supervisor ended before starting the agent",
            ))
        }
    };
    Ok((started, reader))
}

/// A live supervisor, as the registry keeps it.
struct Link {
    control: UnixStream,
    supervisor_pid: u32,
}

static LINKS: Mutex<BTreeMap<u32, Link>> = Mutex::new(BTreeMap::new());

fn links() -> std::sync::MutexGuard<'static, BTreeMap<u32, Link>> {
    // A panic while holding the lock cannot leave the map inconsistent.
    LINKS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Remember the supervisor of agent `agent_pid`.
pub fn register(agent_pid: u32, control: &UnixStream, supervisor_pid: u32) {
    if let Ok(control) = control.try_clone() {
        links().insert(
            agent_pid,
            Link {
                control,
                supervisor_pid,
            },
        );
    }
}

/// Ask the supervisor of `agent_pid` to kill its tree (and exit). Returns
/// the supervisor's pid when there was one.
pub fn release(agent_pid: u32) -> Option<u32> {
    let link = links().remove(&agent_pid)?;
    Some(shut(link))
}

fn shut(link: Link) -> u32 {
    // Shutdown acts on the socket itself, so it reaches the supervisor even
    // while other handles of our end are still open. Only our writing side:
    // the status reader still gets the agent's `X` line, and EOF once the
    // supervisor has killed the tree and exited.
    let _ = link.control.shutdown(Shutdown::Write);
    link.supervisor_pid
}

/// Release every supervisor and wait (at most `wait`) until each has
/// exited, i.e. finished killing its tree. Returns how many supervisors
/// were released.
pub fn release_all(wait: Duration) -> usize {
    // Collected first so the registry's lock is released before `shut`
    // runs (a temporary guard would live through the whole chain).
    #[allow(clippy::needless_collect)]
    let all: Vec<Link> = std::mem::take(&mut *links()).into_values().collect();
    let pids: Vec<u32> = all.into_iter().map(shut).collect();
    wait_gone(&pids, wait);
    pids.len()
}

/// Wait until none of `pids` runs (gone or a zombie), at most `wait`.
fn wait_gone(pids: &[u32], wait: Duration) {
    let deadline = Instant::now() + wait;
    for &pid in pids {
        wait_one_gone(pid, deadline);
    }
}

/// Wait for one pid's exit. A pidfd (Linux 5.3+) wakes us the moment the
/// process exits, where polling its state would add up to a poll interval
/// to every cohost exit; without one, poll.
fn wait_one_gone(pid: u32, deadline: Instant) {
    #[cfg(target_os = "linux")]
    if let Some(fd) = pidfd::open(pid) {
        pidfd::wait_exit(&fd, deadline);
        return;
    }
    let mut nap = tree::Backoff::new();
    while tree::state_of(pid).is_some_and(|s| !matches!(s, 'Z' | 'X')) && Instant::now() < deadline
    {
        nap.sleep();
    }
}

#[cfg(target_os = "linux")]
mod pidfd {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::time::Instant;

    /// A pidfd for `pid`; `None` when it is already gone (reaped) or the
    /// kernel has no pidfds.
    pub(super) fn open(pid: u32) -> Option<OwnedFd> {
        let pid = libc::pid_t::try_from(pid).ok()?;
        // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let fd = i32::try_from(fd).ok().filter(|fd| *fd >= 0)?;
        // SAFETY: the kernel just returned this descriptor; nothing else owns it.
        Some(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// Block until the process behind `fd` exits or `deadline` passes.
    pub(super) fn wait_exit(fd: &OwnedFd, deadline: Instant) {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let ms = libc::c_int::try_from(left.as_millis()).unwrap_or(libc::c_int::MAX);
            let mut p = libc::pollfd {
                fd: fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd, for the length given.
            let n = unsafe { libc::poll(&mut p, 1, ms) };
            let interrupted =
                n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted;
            if !interrupted || ms == 0 {
                return;
            }
        }
    }
}
