//! Process groups: signals to a whole group, and the process-wide registry
//! of live groups so no agent outlives cohost.
//!
//! Agents spawn helpers (shells, language servers, ripgrep); signalling only
//! the direct child orphans them. Every child is therefore started as the
//! leader of its own group and every signal goes to `-pgid`.

use std::collections::BTreeSet;
use std::io;
use std::sync::Mutex;

/// Signals of the interrupt ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupSignal {
    /// SIGINT: "stop what you are doing" (Ctrl+C).
    Interrupt,
    /// SIGTERM: "exit now, cleanly".
    Terminate,
    /// SIGKILL: cannot be caught.
    Kill,
}

impl GroupSignal {
    /// The libc signal number.
    pub fn number(self) -> i32 {
        match self {
            GroupSignal::Interrupt => libc::SIGINT,
            GroupSignal::Terminate => libc::SIGTERM,
            GroupSignal::Kill => libc::SIGKILL,
        }
    }
}

/// Send `signal` to every process of group `pgid`. Returns `Ok(false)` when
/// the group no longer exists.
///
/// Refuses pgid ≤ 1: `kill(0, …)` would hit our own group and `kill(-1, …)`
/// every process we may signal.
pub fn signal_group(pgid: i32, signal: GroupSignal) -> io::Result<bool> {
    if pgid <= 1 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("refusing to signal process group {pgid}"),
        ));
    }
    // SAFETY: kill(2) has no memory-safety preconditions; the pid argument is
    // a negative group id checked above.
    let rc = unsafe { libc::kill(-pgid, signal.number()) };
    if rc == 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::ESRCH) {
        Ok(false)
    } else {
        Err(err)
    }
}

/// A set of live process groups. The process-wide one is behind
/// [`register`], [`deregister`] and [`kill_all`]; separate instances exist so
/// tests can exercise `kill_all` without touching other tests' children.
#[derive(Debug, Default)]
pub struct GroupRegistry {
    groups: Mutex<BTreeSet<i32>>,
}

impl GroupRegistry {
    /// An empty registry.
    pub const fn new() -> Self {
        GroupRegistry {
            groups: Mutex::new(BTreeSet::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<i32>> {
        // A panic while holding this lock cannot leave the set inconsistent.
        self.groups.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Record a live group.
    pub fn register(&self, pgid: i32) {
        self.lock().insert(pgid);
    }

    /// Forget a group.
    pub fn deregister(&self, pgid: i32) {
        self.lock().remove(&pgid);
    }

    /// Groups recorded and not yet killed.
    pub fn groups(&self) -> Vec<i32> {
        self.lock().iter().copied().collect()
    }

    /// SIGKILL every recorded group and forget them. Returns how many still
    /// existed.
    pub fn kill_all(&self) -> usize {
        let groups = std::mem::take(&mut *self.lock());
        groups
            .into_iter()
            .filter(|&g| matches!(signal_group(g, GroupSignal::Kill), Ok(true)))
            .count()
    }
}

static LIVE: GroupRegistry = GroupRegistry::new();

/// Record a group as live in the process-wide registry (done at spawn).
pub fn register(pgid: i32) {
    LIVE.register(pgid);
}

/// Forget a group (done once the supervisor killed it).
pub fn deregister(pgid: i32) {
    LIVE.deregister(pgid);
}

/// Groups spawned by this process and not yet killed.
pub fn live_groups() -> Vec<i32> {
    LIVE.groups()
}

/// SIGKILL every live group, then release every agent supervisor and wait
/// (at most a second) until each has killed its tree. The binary calls this
/// on exit (normal, error or signal) so no agent outlives cohost. Returns
/// how many groups still existed.
pub fn kill_all() -> usize {
    let n = LIVE.kill_all();
    super::supervisor::release_all(std::time::Duration::from_secs(1));
    n
}

/// Whether cohost runs as root (some CLIs refuse their permission bypass
/// as root unless told they are sandboxed).
pub fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_dangerous_group_ids() {
        for pgid in [-5, 0, 1] {
            assert!(signal_group(pgid, GroupSignal::Kill).is_err(), "{pgid}");
        }
    }

    #[test]
    fn missing_group_is_not_an_error() {
        // Pids are below pid_max (≤ 2^22), so this group cannot exist.
        assert!(!signal_group(i32::MAX - 7, GroupSignal::Terminate).unwrap());
    }
}
