//! Shared by the no-orphan, prompt and share tests: a plugin agent whose
//! children try every way out of cohost's reach, and marker-based checks.
#![allow(
    unsafe_code,
    reason = "kill(2) probes of process ids on the raw libc API"
)]
// Test support, shared with the soak bench: a failed setup may panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Child, ExitStatus};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The marker variable the tree plugin's manifest sets.
pub const MARK_VAR: &str = "COHOST_ORPHAN_MARK";

/// A scratch dir holding `.cohost/agents/tree.toml` and its script.
pub struct TreeRig {
    pub dir: tempfile::TempDir,
    pub marker: String,
}

/// The agent: three background children (same group, ignoring INT/TERM/HUP,
/// `setsid`), then a long foreground sleep; for the prompt `quick` it exits
/// at once, for `bg` it exits leaving one more silent child on stdout. For
/// `signals` it only records its ignored and blocked signal masks (as
/// `/proc` shows them) in `signals`, and its parent's (the supervisor's)
/// executable and name in `parent`, and exits.
const SCRIPT: &str = r#"#!/bin/sh
if [ "$1" = "signals" ]; then
  grep -E '^Sig(Ign|Blk):' /proc/self/status > "$(dirname "$0")/signals"
  { readlink /proc/$PPID/exe; cat /proc/$PPID/comm; } > "$(dirname "$0")/parent"
  exit 0
fi
sleep 300 &
(trap '' INT TERM HUP; exec sleep 301) &
setsid sleep 302 &
echo "working on: $1"
if [ "$1" = "quick" ]; then
  exit 0
fi
if [ "$1" = "bg" ]; then
  sleep 303 &
  date +%s%N > "$(dirname "$0")/exited"
  exit 0
fi
sleep 300
"#;

pub fn tree_plugin() -> TreeRig {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = tempfile::tempdir().unwrap();
    let marker = format!(
        "tree-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    let script = dir.path().join("agent.sh");
    std::fs::write(&script, SCRIPT).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let agents = dir.path().join(".cohost/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("tree.toml"),
        format!(
            "id = \"tree\"\nlabel = \"Tree\"\nbinary = [{:?}]\nprotocol = \"text\"\nenv = {{ {MARK_VAR} = {marker:?} }}\n",
            script.display().to_string()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    TreeRig { dir, marker }
}

/// Poll `cond` every 20 ms for at most `limit`.
pub fn wait_for(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if cond() {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Wait for `child` to exit, at most `limit`; kills it on timeout.
pub fn exit_within(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let mut status = None;
    wait_for(limit, || {
        status = child.try_wait().ok().flatten();
        status.is_some()
    });
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    status
}

/// Send `sig` to `pid`.
pub fn signal(pid: u32, sig: i32) {
    let pid = i32::try_from(pid).unwrap();
    // SAFETY: kill(2) with plain integers; pid > 0 names one process.
    assert_eq!(unsafe { libc::kill(pid, sig) }, 0, "kill({pid}, {sig})");
}
