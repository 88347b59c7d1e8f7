//! Supervision that does not depend on cohost staying alive.
//!
//! With a supervisor program configured ([`use_current_exe`], done by the
//! `cohost` binary), every agent runs under its own small supervisor: cohost
//! re-executed in the hidden mode [`SUPERVISE_ARG`]. The supervisor holds
//! one end of a socket pair whose other end only cohost holds; it is a
//! child subreaper (Linux), so every process the agent starts stays its
//! descendant even after `setsid` or a double fork; and when the socket
//! closes, because cohost ended the session or died (SIGKILL included), it
//! SIGKILLs the agent's group and then every descendant until none is left.
//!
//! Without a supervisor program (a library user, a test binary) the agent is
//! spawned directly with `PR_SET_PDEATHSIG` (Linux): its leader dies with
//! cohost, and its process group dies on every path cohost controls.
//!
//! The control socket is the supervisor's stdin, so cohost can start it with
//! posix_spawn (no `pre_exec`, no fork of cohost's whole address space) and
//! no descriptor is ever inheritable in cohost, where other threads spawn
//! processes of their own. cohost first sends one byte carrying the agent's
//! stdin (`SCM_RIGHTS`); the supervisor's stdout and stderr are the agent's.
//! Then the supervisor writes lines: `P PID` (agent started) or `E MESSAGE`
//! (it could not start), then `X c CODE` or `X s SIGNAL` when the agent
//! leader exits; cohost writes nothing more but a byte to ask for the tree
//! kill, or closes its end.

mod helper;
pub(crate) mod tree;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader};
use std::io::{IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::net::Shutdown;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The hidden subcommand the binary dispatches to [`run_helper`].
pub const SUPERVISE_ARG: &str = "__supervise";
/// The byte that carries the agent's stdin to the supervisor.
const STDIN_TAG: u8 = b'I';
/// How long a tree kill may keep hunting descendants.
pub(crate) const KILL_BUDGET: Duration = Duration::from_secs(2);
/// How long cohost waits for a supervisor to report the agent's pid.
const START_TIMEOUT: Duration = Duration::from_secs(10);

static PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Use this executable as the supervisor. Call it once at startup from a
/// binary that dispatches [`SUPERVISE_ARG`] to [`run_helper`] before
/// anything else. On Linux `/proc/self/exe` is used, which still works when
/// the installed binary is replaced while cohost runs.
pub fn use_current_exe() {
    let exe = if cfg!(target_os = "linux") && std::path::Path::new("/proc/self/exe").exists() {
        Some(PathBuf::from("/proc/self/exe"))
    } else {
        std::env::current_exe().ok()
    };
    if let Some(exe) = exe {
        let _ = PROGRAM.set(exe);
    }
}

/// The configured supervisor program, if any.
pub fn program() -> Option<&'static PathBuf> {
    PROGRAM.get()
}

/// If this process was started as a supervisor (`argv[1]` is
/// [`SUPERVISE_ARG`]), run it and return its exit code.
pub fn run_helper_if_requested() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != SUPERVISE_ARG {
        return None;
    }
    let rest: Vec<OsString> = args.collect();
    Some(helper::run(&rest))
}

/// What the supervisor said at start.
pub(crate) enum Started {
    /// The agent runs with this pid (also its process group).
    Agent(u32),
    /// The agent could not be started; the supervisor's message.
    Failed(String),
}

/// Make the socket pair; returns (cohost's end, the supervisor's end).
pub(crate) fn socket_pair() -> io::Result<(UnixStream, OwnedFd)> {
    let (ours, theirs) = UnixStream::pair()?;
    Ok((ours, OwnedFd::from(theirs)))
}

/// Send the agent's stdin (the read end of its pipe) to the supervisor.
/// Sent before the supervisor starts: it waits in the socket's buffer.
pub(crate) fn hand_over_stdin(control: &UnixStream, stdin: BorrowedFd<'_>) -> io::Result<()> {
    let fds = [stdin];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut ancillary = rustix::net::SendAncillaryBuffer::new(&mut space);
    if !ancillary.push(rustix::net::SendAncillaryMessage::ScmRights(&fds)) {
        return Err(io::Error::other("no room for the agent's stdin"));
    }
    let sent = rustix::net::sendmsg(
        control,
        &[IoSlice::new(&[STDIN_TAG])],
        &mut ancillary,
        rustix::net::SendFlags::NOSIGNAL,
    )?;
    if sent != 1 {
        return Err(io::Error::new(
            io::ErrorKind::WriteZero,
            "the agent's stdin was not handed over",
        ));
    }
    Ok(())
}

/// The supervisor's side of [`hand_over_stdin`]: the agent's stdin
/// (close-on-exec until it is moved onto fd 0).
pub(crate) fn take_stdin(control: &UnixStream) -> io::Result<OwnedFd> {
    let mut byte = [0u8; 1];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut ancillary = rustix::net::RecvAncillaryBuffer::new(&mut space);
    let got = loop {
        match rustix::net::recvmsg(
            control.as_fd(),
            &mut [IoSliceMut::new(&mut byte)],
            &mut ancillary,
            rustix::net::RecvFlags::CMSG_CLOEXEC,
        ) {
            Err(rustix::io::Errno::INTR) => continue,
            other => break other?,
        }
    };
    let mut fds = Vec::new();
    for message in ancillary.drain() {
        if let rustix::net::RecvAncillaryMessage::ScmRights(rights) = message {
            fds.extend(rights);
        }
    }
    match (got.bytes, byte[0], fds.len()) {
        (1, STDIN_TAG, 1) => Ok(fds.remove(0)),
        (0, _, _) => Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "cohost closed the control socket before sending the agent's stdin",
        )),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the control socket's first message is not the agent's stdin",
        )),
    }
}

/// Read the supervisor's first line (blocking, bounded).
pub(crate) fn read_started(control: &UnixStream) -> io::Result<(Started, BufReader<UnixStream>)> {
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
        _ => {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the supervisor ended before starting the agent",
            ))
        }
    };
    Ok((started, reader))
}

/// How the agent leader ended, from an `X` line.
pub(crate) fn parse_exit(line: &str) -> Option<(Option<i32>, Option<i32>)> {
    let mut f = line.split_whitespace();
    if f.next()? != "X" {
        return None;
    }
    match (f.next()?, f.next().and_then(|n| n.parse().ok())) {
        ("c", Some(code)) => Some((Some(code), None)),
        ("s", Some(sig)) => Some((None, Some(sig))),
        _ => Some((None, None)),
    }
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
pub(crate) fn register(agent_pid: u32, control: &UnixStream, supervisor_pid: u32) {
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
pub(crate) fn release(agent_pid: u32) -> Option<u32> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agents_stdin_crosses_the_control_socket() {
        use std::io::{Read, Write};
        let (ours, theirs) = socket_pair().unwrap();
        let theirs = UnixStream::from(theirs);
        let (reader, mut writer) = std::io::pipe().unwrap();
        hand_over_stdin(&ours, reader.as_fd()).unwrap();
        drop(reader);
        let got = take_stdin(&theirs).unwrap();
        writer.write_all(b"prompt").unwrap();
        drop(writer);
        let mut text = String::new();
        std::fs::File::from(got).read_to_string(&mut text).unwrap();
        assert_eq!(text, "prompt");
    }

    #[test]
    fn a_control_socket_without_the_stdin_is_refused() {
        use std::io::Write;
        let (mut ours, theirs) = socket_pair().unwrap();
        let theirs = UnixStream::from(theirs);
        ours.write_all(b"I").unwrap();
        let err = take_stdin(&theirs).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
        drop(ours);
        let err = take_stdin(&theirs).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof, "{err}");
    }

    #[test]
    fn exit_lines() {
        assert_eq!(parse_exit("X c 3"), Some((Some(3), None)));
        assert_eq!(parse_exit("X s 9\n"), Some((None, Some(9))));
        assert_eq!(parse_exit("X ?"), Some((None, None)));
        assert_eq!(parse_exit("P 12"), None);
    }
}
