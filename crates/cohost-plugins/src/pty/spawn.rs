//! The thin IO shell of the PTY tier: open a pseudo-terminal, start the
//! program on its slave side as a session leader with it as controlling
//! terminal (so Ctrl-C on the master reaches the program's foreground job,
//! and the session id doubles as the process group cohost signals), read
//! the master without blocking the runtime, write keystrokes.
//!
//! Built on `libc` (already a dependency of the supervisor) rather than a
//! PTY crate: it is four calls, and the group bookkeeping stays the shared
//! supervisor's ([`cohost_process::register`], [`signal_group`]).

use cohost_core::{CohostError, ErrorCode};
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use tokio::io::unix::AsyncFd;
use tokio::sync::mpsc;

use cohost_process as process;
use cohost_process::{signal_group, EnvPolicy, GroupSignal};

/// A program running on a PTY.
pub struct PtyChild {
    master: std::sync::Arc<AsyncFd<OwnedFd>>,
    pgid: i32,
    child: std::process::Child,
}

/// What the reader task reports.
#[derive(Debug)]
pub enum PtyOutput {
    /// Bytes the program printed.
    Bytes(Vec<u8>),
    /// The terminal closed (the program and everything holding the slave exited).
    Closed,
}

impl PtyChild {
    /// Start `program args` on a new PTY of `cols`x`rows` with `env`, in `cwd`.
    pub fn spawn(
        provider_id: &str,
        program: &PathBuf,
        args: &[OsString],
        env: &EnvPolicy,
        cwd: Option<&PathBuf>,
    ) -> Result<(PtyChild, mpsc::Receiver<PtyOutput>), CohostError> {
        let spawn_err = |what: &str, e: io::Error| {
            CohostError::new(
                ErrorCode::SpawnFailed,
                format!("could not start `{provider_id}` on a terminal ({what}): {e}"),
            )
            .with_fix("check the binary path and that /dev/ptmx is usable")
        };
        let (master, slave) = open_pty().map_err(|e| spawn_err("openpty", e))?;
        set_nonblocking(&master).map_err(|e| spawn_err("O_NONBLOCK", e))?;
        let stdio = |fd: &OwnedFd| -> Result<Stdio, CohostError> {
            Ok(Stdio::from(
                fd.try_clone().map_err(|e| spawn_err("dup", e))?,
            ))
        };
        let mut cmd = Command::new(program);
        cmd.args(args)
            .env_clear()
            .envs(env.build_from_process())
            .stdin(stdio(&slave)?)
            .stdout(stdio(&slave)?)
            .stderr(stdio(&slave)?);
        if let Some(dir) = cwd {
            cmd.current_dir(dir);
        }
        let parent = std::process::id();
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                // The leader dies with cohost, even by SIGKILL (the rest of
                // the session gets SIGHUP when the master closes).
                #[cfg(target_os = "linux")]
                {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                    if u32::try_from(libc::getppid()).ok() != Some(parent) {
                        libc::_exit(1);
                    }
                }
                if libc::setsid() < 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().map_err(|e| spawn_err("spawn", e))?;
        // The secret patterns compile while the program starts (as in
        // `process::Supervised::spawn`).
        cohost_core::sanitize::precompile();
        // Our copies of the slave must close, or the master never sees EOF.
        drop(cmd);
        drop(slave);
        let pgid = i32::try_from(child.id()).unwrap_or(0);
        if pgid > 1 {
            process::register(pgid);
        }
        // SAFETY: the OwnedFd moves into the AsyncFd and is closed only when
        // the AsyncFd drops, so the registered fd stays valid and the same.
        let master = unsafe { AsyncFd::register(master) }
            .map_err(|e| spawn_err("register with the runtime", io::Error::other(e.to_string())))?;
        let master = std::sync::Arc::new(master);
        let (tx, rx) = mpsc::channel(256);
        tokio::spawn(read_loop(master.clone(), tx));
        Ok((
            PtyChild {
                master,
                pgid,
                child,
            },
            rx,
        ))
    }

    /// The session / process group id.
    pub fn pgid(&self) -> i32 {
        self.pgid
    }

    /// Type `bytes` into the terminal.
    pub async fn write(&self, bytes: &[u8]) -> Result<(), CohostError> {
        let mut rest = bytes;
        while !rest.is_empty() {
            let mut guard = self.master.writable().await.map_err(closed)?;
            match guard.try_io(|fd| {
                // SAFETY: writing from a valid slice to an fd we own.
                let n = unsafe { libc::write(fd.as_raw_fd(), rest.as_ptr().cast(), rest.len()) };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            }) {
                Ok(Ok(n)) => rest = &rest[n..],
                Ok(Err(e)) => return Err(closed(e)),
                Err(_would_block) => continue,
            }
        }
        Ok(())
    }

    /// Signal the program's whole session/group.
    pub fn signal(&self, sig: GroupSignal) -> Result<(), CohostError> {
        signal_group(self.pgid, sig).map(|_| ()).map_err(closed)
    }

    /// Whether the leader still runs (reaps it when it exited).
    pub fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The leader's exit status, if it exited.
    pub fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// SIGKILL the group and reap the leader (bounded).
    pub async fn kill(&mut self) {
        if self.pgid > 1 {
            let _ = signal_group(self.pgid, GroupSignal::Kill);
            process::deregister(self.pgid);
        }
        for _ in 0..40 {
            if !self.is_alive() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
    }
}

impl Drop for PtyChild {
    fn drop(&mut self) {
        if self.pgid > 1 {
            let _ = signal_group(self.pgid, GroupSignal::Kill);
            process::deregister(self.pgid);
        }
        let _ = self.child.try_wait();
    }
}

fn closed(e: io::Error) -> CohostError {
    CohostError::new(
        ErrorCode::ProcessCrashed,
        format!("the terminal of the agent closed: {e}"),
    )
    .with_fix("cohost restarts the agent for the next prompt")
}

async fn read_loop(master: std::sync::Arc<AsyncFd<OwnedFd>>, tx: mpsc::Sender<PtyOutput>) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let Ok(mut guard) = master.readable().await else {
            break;
        };
        let res = guard.try_io(|fd| {
            // SAFETY: reading into a buffer we own from an fd we own.
            let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n < 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(n as usize)
            }
        });
        match res {
            // EOF, or EIO once every slave fd closed (Linux).
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => {
                if tx.send(PtyOutput::Bytes(buf[..n].to_vec())).await.is_err() {
                    return;
                }
            }
            Err(_would_block) => continue,
        }
    }
    let _ = tx.send(PtyOutput::Closed).await;
}

fn open_pty() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut master: libc::c_int = -1;
    let mut slave: libc::c_int = -1;
    // A wide terminal so programs do not wrap answers mid-word.
    let size = libc::winsize {
        ws_row: 50,
        ws_col: 200,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: out-pointers to live locals; null name and termios are allowed.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: openpty returned two fresh fds that nothing else owns.
    let fds = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    for fd in [&fds.0, &fds.1] {
        // Not inherited by other children cohost starts.
        // SAFETY: fcntl on an fd we own.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    Ok(fds)
}

fn set_nonblocking(fd: &OwnedFd) -> io::Result<()> {
    // SAFETY: fcntl on an fd we own.
    unsafe {
        let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
