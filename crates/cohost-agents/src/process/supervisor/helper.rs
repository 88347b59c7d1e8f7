//! The supervisor's own side: what `cohost __supervise PROGRAM ARGS...` runs.
//!
//! It starts the agent as the leader of a new process group with the
//! supervisor's stdio (the pipes cohost made), reports the agent's pid and
//! exit on the control socket (fd 3), and when that socket closes (cohost
//! ended the session, or died, even by SIGKILL) kills the agent's whole
//! tree. As a child subreaper it inherits every orphan the agent leaves,
//! including those that called `setsid`, so "the tree" is everything the
//! agent ever started.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::fd::FromRawFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::Command;

use super::tree::kill_tree;
use super::{CONTROL_FD, KILL_BUDGET};

/// Signals a terminal or a process-group kill may send; the supervisor
/// ignores them (its job is to outlive cohost) and the agent gets them back
/// at their defaults.
const SHIELDED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// Run the supervisor; returns the process exit code. `args` is
/// `PROGRAM ARGS...` (everything after the hidden subcommand).
pub(super) fn run(args: &[OsString]) -> i32 {
    // SAFETY: fcntl(F_GETFD) only inspects the descriptor table.
    if unsafe { libc::fcntl(CONTROL_FD, libc::F_GETFD) } < 0 {
        eprintln!(
            "cohost: the supervisor mode is internal; it needs cohost's control socket on fd 3"
        );
        return 2;
    }
    // SAFETY: fd 3 is open (checked above) and nothing else in this process
    // owns it; the stream takes sole ownership.
    let mut control = unsafe { UnixStream::from_raw_fd(CONTROL_FD) };
    // SAFETY: plain fcntl/prctl/signal calls on our own process.
    unsafe {
        libc::fcntl(CONTROL_FD, libc::F_SETFD, libc::FD_CLOEXEC);
        #[cfg(target_os = "linux")]
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        for s in SHIELDED {
            libc::signal(s, libc::SIG_IGN);
        }
    }
    let Some((program, rest)) = args.split_first() else {
        let _ = control.write_all(b"E no agent program given\n");
        return 2;
    };
    let mut cmd = Command::new(program);
    cmd.args(rest).process_group(0);
    // SAFETY: the closure runs between fork and exec and only calls
    // signal(2), which is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            for s in SHIELDED {
                libc::signal(s, libc::SIG_DFL);
            }
            Ok(())
        });
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
    use std::os::fd::AsRawFd;
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
