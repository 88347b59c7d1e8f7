//! How cohost ends on a signal: every agent it owns ends first.
//!
//! - First SIGINT (Ctrl+C): [`Stop::Interrupt`], the command stops the
//!   current turn and keeps running (`run` then exits 130 with the turn).
//! - SIGTERM, SIGHUP, SIGQUIT, or a second SIGINT: [`Stop::Quit`]. The
//!   command ends its agents through the interrupt ladder; whatever is left
//!   after [`QUIT_BUDGET`] is killed and cohost exits with 128 + the signal
//!   (130, 143, 129, 131), as shells expect.
//! - Any signal while quitting: kill everything and exit now.
//!
//! SIGKILL cannot be caught: there the per-agent supervisors
//! (`cohost_agents::process::supervisor`) kill the agents' trees.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use tokio::signal::unix::{signal, SignalKind};

/// What a signal asks of the running command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Stop the current turn; cohost keeps running.
    Interrupt,
    /// End cohost: stop the turn, end the session, return. Carries the
    /// signal number (SIGINT for a second Ctrl+C).
    Quit(i32),
}

/// How long a [`Stop::Quit`] may take before cohost kills its agents and
/// exits anyway. The ladder has reached SIGTERM by then (cancel 1 s, SIGINT
/// 0.3 s, SIGTERM 0.3 s, SIGKILL 0.2 s); what is left is killed, so cohost
/// and its agents are gone about 2 s after the signal even on a busy machine.
pub const QUIT_BUDGET: Duration = Duration::from_millis(1500);

/// The signal that is ending cohost, 0 while none.
static ENDED_BY: AtomicI32 = AtomicI32::new(0);

type Hook = Box<dyn Fn(Stop) + Send + Sync>;
static HOOK: Mutex<Option<Hook>> = Mutex::new(None);

/// Let the running command react to signals (replaces an earlier hook).
pub fn set_hook(hook: impl Fn(Stop) + Send + Sync + 'static) {
    *HOOK.lock().unwrap_or_else(|p| p.into_inner()) = Some(Box::new(hook));
}

/// Call the hook; `false` when there is none.
fn call_hook(stop: Stop) -> bool {
    match HOOK.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
        Some(h) => {
            h(stop);
            true
        }
        None => false,
    }
}

/// SIGINT's number, for hooks that treat a second Ctrl+C specially.
pub fn sigint() -> i32 {
    SignalKind::interrupt().as_raw_value()
}

/// The exit code for `signal`: 128 + its number.
pub fn code_for(signal: i32) -> u8 {
    u8::try_from(128 + signal).unwrap_or(1)
}

/// `code`, unless a signal is ending cohost: then 128 + that signal.
pub fn exit_code(code: u8) -> u8 {
    match ENDED_BY.load(Ordering::SeqCst) {
        0 => code,
        s => code_for(s),
    }
}

/// Kill every agent (their supervisors finish the trees) and exit.
pub fn force_exit(code: u8) -> ! {
    cohost_agents::process::kill_all();
    std::process::exit(i32::from(code))
}

/// Make sure cohost exits with `code` within `budget` from now, whatever
/// still runs then (agents are killed first). For quits that do not come
/// from a signal, like `share`'s `/quit`.
// The watchdog sleeps on a thread of its own, never a runtime worker, and
// force-exits after the budget.
#[allow(clippy::disallowed_methods)]
pub fn exit_within(budget: Duration, code: u8) {
    let _ = std::thread::Builder::new()
        .name("cohost-quit-watchdog".into())
        .spawn(move || {
            std::thread::sleep(budget);
            force_exit(exit_code(code));
        });
}

/// Handle SIGINT, SIGTERM, SIGHUP and SIGQUIT for the rest of the process
/// (call inside the runtime, before the agent starts). Without a hook every
/// one of them ends cohost at once, agents first.
pub fn listen() -> std::io::Result<()> {
    spawn_listener(true)
}

/// Like [`listen`] but leaves SIGINT to the command (servers that stop
/// cleanly on Ctrl+C).
pub fn listen_terminations() -> std::io::Result<()> {
    spawn_listener(false)
}

fn spawn_listener(with_int: bool) -> std::io::Result<()> {
    let mut int = if with_int {
        Some(signal(SignalKind::interrupt())?)
    } else {
        None
    };
    let mut term = signal(SignalKind::terminate())?;
    let mut hup = signal(SignalKind::hangup())?;
    let mut quit = signal(SignalKind::quit())?;
    tokio::spawn(async move {
        let mut presses = 0;
        loop {
            let int_recv = async {
                match int.as_mut() {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            let sig = tokio::select! {
                Some(()) = int_recv => SignalKind::interrupt(),
                Some(()) = term.recv() => SignalKind::terminate(),
                Some(()) = hup.recv() => SignalKind::hangup(),
                Some(()) = quit.recv() => SignalKind::quit(),
                else => return,
            };
            let num = sig.as_raw_value();
            if ENDED_BY.load(Ordering::SeqCst) != 0 {
                force_exit(exit_code(1));
            }
            if sig == SignalKind::interrupt() {
                presses += 1;
                if presses == 1 && call_hook(Stop::Interrupt) {
                    continue;
                }
            }
            ENDED_BY.store(num, Ordering::SeqCst);
            if !call_hook(Stop::Quit(num)) {
                force_exit(code_for(num));
            }
            exit_within(QUIT_BUDGET, code_for(num));
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventional_codes() {
        assert_eq!(code_for(2), 130);
        assert_eq!(code_for(15), 143);
        assert_eq!(code_for(1), 129);
        assert_eq!(code_for(3), 131);
    }
}
