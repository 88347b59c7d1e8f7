//! Starting an agent process: below its supervisor, or directly.

use std::fmt;
use std::io::BufRead;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Stdio;
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

use super::sandbox::SandboxPolicy;
use super::spec::{ExitInfo, ProcessSpec};
use super::supervisor::{self, Program, Started};

/// A started agent: its pipes and how its end is reported.
pub(crate) struct Launched {
    /// The agent leader's pid (also its process group).
    pub pid: u32,
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<ChildStdout>,
    pub stderr: Option<ChildStderr>,
    /// Set once, when the leader exits.
    pub exit: watch::Receiver<Option<ExitInfo>>,
    /// Set once nothing of the agent's tree is left that cohost can still
    /// kill: the supervisor exited, or (direct spawn) the leader was reaped.
    pub tree_done: watch::Receiver<bool>,
}

type Pipes = (Option<ChildStdin>, Option<ChildStdout>, Option<ChildStderr>);

impl Launched {
    fn new(
        pid: u32,
        (stdin, stdout, stderr): Pipes,
        exit: watch::Receiver<Option<ExitInfo>>,
        tree_done: watch::Receiver<bool>,
    ) -> Launched {
        Launched {
            pid,
            stdin,
            stdout,
            stderr,
            exit,
            tree_done,
        }
    }
}

/// Why a supervised launch failed.
pub(crate) enum Failure {
    /// The supervisor ran but the agent could not start (no such binary...).
    Agent(String),
    /// The supervisor itself could not run; a direct spawn may still work.
    Supervisor(std::io::Error),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Agent(m) => f.write_str(m),
            Failure::Supervisor(e) => write!(f, "{e}"),
        }
    }
}

fn base_command(program: &Path, spec: &ProcessSpec) -> Command {
    let mut cmd = Command::new(program);
    cmd.env_clear()
        .envs(spec.env.build_from_process())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    cmd
}

/// Spawn the agent itself, leader of its own group, confined by `sandbox`
/// when there is one. On Linux it also gets `PR_SET_PDEATHSIG`, so the
/// leader (not its helpers) dies with cohost.
pub(crate) fn direct(
    spec: &ProcessSpec,
    sandbox: Option<&SandboxPolicy>,
) -> std::io::Result<Launched> {
    // Built before the fork; the child only enforces it.
    let prepared = sandbox
        .map(cohost_supervisor::sandbox::prepare)
        .transpose()
        .map_err(std::io::Error::other)?;
    let mut cmd = base_command(&spec.program, spec);
    cmd.args(&spec.args)
        // Backstop if the runtime shuts down before our Drop runs.
        .kill_on_drop(true);
    #[cfg(target_os = "linux")]
    {
        let parent = std::process::id();
        // SAFETY: runs between fork and exec; prctl, getppid and _exit are
        // async-signal-safe and touch no memory of the parent.
        unsafe {
            cmd.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                // cohost may have died before prctl took effect.
                if u32::try_from(libc::getppid()).ok() != Some(parent) {
                    libc::_exit(1);
                }
                // Two system calls, no allocation: safe after fork.
                match &prepared {
                    Some(p) => p.enforce(),
                    None => Ok(()),
                }
            });
        }
    }
    let mut child = cmd.spawn()?;
    let pid = child.id().unwrap_or(0);
    let (exit_tx, exit) = watch::channel(None);
    let (tree_tx, tree_done) = watch::channel(false);
    let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    tokio::spawn(async move {
        let info = match child.wait().await {
            Ok(status) => ExitInfo {
                code: status.code(),
                signal: status.signal(),
            },
            Err(_) => ExitInfo {
                code: None,
                signal: None,
            },
        };
        let _ = exit_tx.send(Some(info));
        let _ = tree_tx.send(true);
    });
    Ok(Launched::new(pid, pipes, exit, tree_done))
}

/// Spawn `sup __supervise PROGRAM ARGS...`; the agent inherits the
/// supervisor's pipes, environment and working directory.
pub(crate) fn supervised(
    sup: &Program,
    spec: &ProcessSpec,
    sandbox: Option<&SandboxPolicy>,
) -> Result<Launched, Failure> {
    let (ours, theirs) = supervisor::socket_pair().map_err(Failure::Supervisor)?;
    // The agent's stdin travels over the control socket (which is the
    // supervisor's stdin); both pipe ends are close-on-exec here. The
    // sandbox policy follows it; both wait in the socket's buffer.
    let (agent_in, stdin) = std::io::pipe().map_err(Failure::Supervisor)?;
    supervisor::hand_over_stdin(&ours, agent_in.as_fd()).map_err(Failure::Supervisor)?;
    drop(agent_in);
    cohost_supervisor::send_policy(&ours, sandbox).map_err(Failure::Supervisor)?;
    let stdin = ChildStdin::from_std(std::process::ChildStdin::from(OwnedFd::from(stdin)))
        .map_err(Failure::Supervisor)?;
    let mut cmd = base_command(sup.path(), spec);
    if let Some(name) = sup.arg0() {
        cmd.arg0(name);
    }
    // No kill_on_drop: killing the supervisor is what must never happen
    // before it has killed the tree. No `pre_exec` either, so this spawn
    // takes posix_spawn's vfork path rather than forking all of cohost.
    cmd.stdin(Stdio::from(theirs))
        .args(cohost_supervisor::supervise_args())
        .arg(&spec.program)
        .args(&spec.args);
    let mut child = cmd.spawn().map_err(Failure::Supervisor)?;
    // The command holds the supervisor's end of the socket: were it kept,
    // a supervisor that dies at start would leave the read below waiting
    // for its whole timeout instead of seeing EOF.
    drop(cmd);
    let supervisor_pid = child.id().unwrap_or(0);
    let (started, reader) = match supervisor::read_started(&ours) {
        Ok(x) => x,
        Err(e) => {
            let _ = child.start_kill();
            return Err(Failure::Supervisor(e));
        }
    };
    let pid = match started {
        Started::Agent(pid) => pid,
        Started::Failed(msg) => return Err(Failure::Agent(msg)),
    };
    supervisor::register(pid, &ours, supervisor_pid);
    let (exit_tx, exit) = watch::channel(None);
    let (tree_tx, tree_done) = watch::channel(false);
    let pipes = (Some(stdin), child.stdout.take(), child.stderr.take());
    // Lines are rare (one per agent exit): a plain thread reads them, so
    // bytes the start-up read buffered are not lost.
    let spawned = std::thread::Builder::new()
        .name("cohost-supervisor-link".into())
        .spawn(move || {
            let mut reported = false;
            for line in reader.lines() {
                let Ok(line) = line else { break };
                if let Some((code, signal)) = supervisor::parse_exit(&line) {
                    reported = true;
                    let _ = exit_tx.send(Some(ExitInfo { code, signal }));
                }
            }
            if !reported {
                let _ = exit_tx.send(Some(ExitInfo {
                    code: None,
                    signal: None,
                }));
            }
            let _ = tree_tx.send(true);
        });
    if let Err(e) = spawned {
        supervisor::release(pid);
        return Err(Failure::Supervisor(e));
    }
    // Reap the supervisor when it exits.
    tokio::spawn(async move {
        let _ = child.wait().await;
    });
    Ok(Launched::new(pid, pipes, exit, tree_done))
}
