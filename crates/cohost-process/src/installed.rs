//! Finding a driver's binary and checking its version against the driver's
//! spec, the start-up step every CLI driver shares.

use cohost_core::CohostError;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use super::{locate_binary, probe_version, EnvPolicy, Version};
use crate::provider::CliEntry;

/// How long a `--version` or `--help` probe may take (a cold `npx`-style
/// launcher can be slow; a hung one is killed).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// Locate `spec`'s binary (the explicit `binary` when given, else its
/// command on the environment's `PATH`) and, when the spec has an accepted
/// range, probe `--version` and refuse a version outside it. Errors carry
/// the spec's install fix.
pub async fn locate_checked(
    spec: &CliEntry,
    binary: Option<&Path>,
    env: &EnvPolicy,
) -> Result<(PathBuf, Option<Version>), CohostError> {
    let path = env.effective_path();
    let fix = spec.install_fix();
    let found = locate_binary(spec.id, spec.command(), binary, path.as_deref(), &fix)?;
    let Some(range) = spec.accepted else {
        return Ok((found, None));
    };
    let (version, _raw) = probe_version(spec.id, &found, env, PROBE_TIMEOUT).await?;
    range.check(spec.id, version, &fix)?;
    Ok((found, Some(version)))
}

/// Lock `m`, taking the data of a poisoned lock: the state behind every
/// mutex here is bookkeeping that stays usable after a panicking holder.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// `health()` of a long-lived agent process: gone when its stdout closed or
/// it exited (then, after letting the reaper and stderr catch up so the
/// report has its last words and exit status, the crash report), else alive
/// with its recent stderr, if any.
pub async fn session_health(
    child: &super::Supervised,
    stdout_closed: bool,
    binary: &Path,
    version: Option<String>,
) -> cohost_core::Health {
    let gone = stdout_closed || !child.is_alive();
    if gone {
        child.settle(Duration::from_millis(1500)).await;
    }
    let tail = child.stderr_tail(5);
    cohost_core::Health {
        alive: !gone,
        binary: Some(binary.display().to_string()),
        version,
        last_error: if gone {
            Some(child.crash_report())
        } else if tail.is_empty() {
            None
        } else {
            Some(tail)
        },
    }
}
