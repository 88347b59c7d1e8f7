//! The supervisor's own side: what `cohost-supervise __supervise PROGRAM
//! ARGS...` (or `cohost __supervise ...`) runs.
//!
//! It starts the agent as the leader of a new process group with the
//! supervisor's stdio (the pipes cohost made), confined by the sandbox
//! policy cohost sent when there is one, reports the agent's pid and
//! exit on the control socket (its stdin at start), and when that socket closes (cohost
//! ended the session, or died, even by SIGKILL) kills the agent's whole
//! tree. As a child subreaper it inherits every orphan the agent leaves,
//! including those that called `setsid`, so "the tree" is everything the
//! agent ever started.
#![allow(
    unsafe_code,
    reason = "signal handlers, prctl, waitpid and fd passing on the raw libc API; each block says why it is sound"
)]
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the supervisor mode says on stderr why it cannot start"
)]

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::Command;

use crate::protocol::{take_policy, take_stdin, PROCESS_NAME, PROTOCOL};
use crate::sandbox::{prepare, Prepared};
use crate::tree::{kill_tree, KILL_BUDGET};

/// Signals a terminal or a process-group kill may send; the supervisor
/// shrugs them off (its job is to outlive cohost) and the agent gets them
/// at their defaults.
const SHIELDED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// The handler for [`SHIELDED`] signals: does nothing. A handler rather than
/// `SIG_IGN` because exec resets handled signals to their defaults but keeps
/// ignored ones ignored: so the agent needs no `pre_exec` reset, and the
/// spawn can take posix_spawn's vfork path instead of forking.
extern "C" fn shrug(_: libc::c_int) {}

/// Install [`shrug`] for every [`SHIELDED`] signal, restarting interrupted
/// calls (the control read, `waitpid`).
fn shield() {
    for s in SHIELDED {
        // SAFETY: a zeroed sigaction is valid (empty mask, no flags); the
        // handler is async-signal-safe (it does nothing).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = shrug as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(s, &action, std::ptr::null_mut());
        }
    }
}

/// Run the supervisor; returns the process exit code. `args` is
/// `PROGRAM ARGS...` (everything after the hidden subcommand).
pub(super) fn run(args: &[OsString]) -> i32 {
    let mut control = match control_socket() {
        Ok(c) => c,
        Err(e) => {
            eprintln!(
                "cohost: the supervisor mode is internal; it needs cohost's control socket on stdin ({e})"
            );
            return 2;
        }
    };
    #[cfg(target_os = "linux")]
    {
        // One name in `ps` whichever binary runs us (spawned as
        // `/proc/self/fd/N`, the kernel would call us `N`).
        let name = std::ffi::CString::new(PROCESS_NAME).unwrap_or_default();
        // SAFETY: prctl on our own process; PR_SET_NAME reads a
        // NUL-terminated string of at most 16 bytes, which `name` is.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
            libc::prctl(libc::PR_SET_NAME, name.as_ptr(), 0, 0, 0);
        }
    }
    shield();
    let Some((program, rest)) = args.split_first() else {
        let _ = control.write_all(b"E no agent program given\n");
        return 2;
    };
    if let Err(e) = agent_stdin(&control) {
        let msg = format!("the agent's stdin: {e}").replace('\n', " ");
        let _ = control.write_all(format!("E {msg}\n").as_bytes());
        return 2;
    }
    // Built here, before the fork: the child only enforces it.
    let sandbox = match take_policy(&control)
        .map_err(|e| e.to_string())
        .and_then(|p| {
            p.as_ref()
                .map(prepare)
                .transpose()
                .map_err(|e| e.to_string())
        }) {
        Ok(s) => s,
        Err(e) => {
            let msg = e.replace('\n', " ");
            let _ = control.write_all(format!("E {msg}\n").as_bytes());
            return 2;
        }
    };
    let mut cmd = Command::new(program);
    cmd.args(rest).process_group(0);
    if let Some(sandbox) = sandbox.filter(Prepared::confines) {
        // SAFETY: runs between fork and exec; `enforce` makes two system
        // calls and touches no lock or allocator (this process has one
        // thread until the agent runs anyway).
        unsafe {
            cmd.pre_exec(move || sandbox.enforce());
        }
    }
    let agent = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let msg = e.to_string().replace('\n', " ");
            let _ = control.write_all(format!("E {msg}\n").as_bytes());
            return 127;
        }
    };
    let pid = agent.id();
    drop(agent); // Reaped below by waitpid(-1), with the orphans.
    if control.write_all(format!("P {pid}\n").as_bytes()).is_err() {
        // cohost is already gone.
        kill_tree(pgid_of(pid), KILL_BUDGET);
        return 0;
    }
    detach_stdio();
    if let Ok(reporter) = control.try_clone() {
        std::thread::spawn(move || reap(pid, reporter));
    }
    // Any byte or EOF means "end the session": cohost only writes to ask.
    let mut byte = [0u8; 1];
    loop {
        match control.read(&mut byte) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            _ => break,
        }
    }
    // Zombies the reaper has not collected yet go to init when we exit.
    kill_tree(pgid_of(pid), KILL_BUDGET);
    0
}

/// Another build's cohost asked: say which protocol we speak (cohost then
/// supervises with itself) and exit.
pub(super) fn refuse_protocol() -> i32 {
    match control_socket() {
        Ok(mut control) => {
            let _ = control.write_all(format!("V {}\n", PROTOCOL).as_bytes());
        }
        Err(_) => eprintln!("cohost-supervise: internal to cohost; run `cohost` instead"),
    }
    2
}

/// Our stdin, which must be cohost's control socket, moved to a
/// close-on-exec descriptor of its own (fd 0 is the agent's stdin next).
fn control_socket() -> std::io::Result<UnixStream> {
    // A close-on-exec duplicate: the agent must not hold the socket.
    let dup = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
    if !dup.metadata()?.file_type().is_socket() {
        return Err(std::io::Error::other("stdin is not a socket"));
    }
    Ok(UnixStream::from(std::os::fd::OwnedFd::from(dup)))
}

/// Receive the agent's stdin from cohost and put it on our fd 0, where the
/// agent inherits it.
fn agent_stdin(control: &UnixStream) -> std::io::Result<()> {
    let fd = take_stdin(control)?;
    // SAFETY: dup2 onto our own fd 0; `fd` stays open for the call. The new
    // fd 0 is inheritable (dup2 clears close-on-exec) and the socket that
    // was there stays open through `control`.
    if unsafe { libc::dup2(fd.as_raw_fd(), 0) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

fn pgid_of(pid: u32) -> i32 {
    i32::try_from(pid).unwrap_or(0)
}

/// Point our own stdio at /dev/null: the agent has the pipes now, and a copy
/// here would keep cohost from ever seeing the agent's EOF.
fn detach_stdio() {
    let Ok(null) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
    else {
        return;
    };
    for fd in 0..=2 {
        // SAFETY: dup2 onto the standard descriptors, which this process
        // owns; `null` stays open for the duration of the call.
        unsafe {
            libc::dup2(null.as_raw_fd(), fd);
        }
    }
}

/// Reap every child (the agent and each orphan handed to us) and report the
/// agent's own end as `X c CODE` or `X s SIGNAL`.
fn reap(agent: u32, mut report: UnixStream) {
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes only into `status`.
        let pid = unsafe { libc::waitpid(-1, &mut status, 0) };
        if pid < 0 {
            if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return; // ECHILD: no child left, so no descendant either.
        }
        if u32::try_from(pid).ok() == Some(agent) {
            let line = if libc::WIFEXITED(status) {
                format!("X c {}\n", libc::WEXITSTATUS(status))
            } else if libc::WIFSIGNALED(status) {
                format!("X s {}\n", libc::WTERMSIG(status))
            } else {
                "X ?\n".to_string()
            };
            let _ = report.write_all(line.as_bytes());
        }
    }
}
