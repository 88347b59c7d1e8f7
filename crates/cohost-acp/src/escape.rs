//! Descendants that left the agent's process group. claude-code-acp starts
//! its Claude Code child detached (its own group), so killing the agent's
//! group orphans it; cohost finds such groups through the parent links in
//! `/proc` while the parent still lives, and kills them too.
//!
//! (Candidate for `cohost_process`; kept here to stay in the ACP folder.)

use std::collections::{HashMap, HashSet};

use cohost_process::{signal_group, GroupSignal};

/// `(pid, ppid, pgid)` of every live process (zombies left out: they have
/// finished and only wait to be reaped), from `/proc/*/stat`.
fn table() -> Vec<(u32, u32, i32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // The command name may hold spaces and parentheses: split after the last ')'.
            let rest = stat.get(stat.rfind(')')? + 1..)?;
            let mut f = rest.split_whitespace();
            if matches!(f.next()?, "Z" | "X") {
                return None;
            }
            let ppid = f.next()?.parse().ok()?;
            let pgid = f.next()?.parse().ok()?;
            Some((pid, ppid, pgid))
        })
        .collect()
}

/// Process groups, other than `leader`'s own, holding descendants of `leader`.
pub(crate) fn escaped_groups(leader: u32) -> Vec<i32> {
    let procs = table();
    let mut children: HashMap<u32, Vec<(u32, i32)>> = HashMap::new();
    for (pid, ppid, pgid) in &procs {
        children.entry(*ppid).or_default().push((*pid, *pgid));
    }
    let own = i32::try_from(leader).unwrap_or(0);
    let mut groups = HashSet::new();
    let mut stack = vec![leader];
    let mut seen = HashSet::new();
    while let Some(p) = stack.pop() {
        if !seen.insert(p) {
            continue;
        }
        for (c, g) in children.get(&p).into_iter().flatten() {
            if *g != own && *g > 1 {
                groups.insert(*g);
            }
            stack.push(*c);
        }
    }
    groups.into_iter().collect()
}

/// Send `signal` to each group (already-gone groups are fine).
pub(crate) fn signal_groups(groups: &[i32], signal: GroupSignal) {
    for g in groups {
        if let Err(e) = signal_group(*g, signal) {
            tracing::debug!(group = g, error = %e, "signalling an agent group");
        }
    }
}

/// Whether any live process is still in one of `groups`.
pub(crate) fn any_alive(groups: &[i32]) -> bool {
    table().iter().any(|(_, _, g)| groups.contains(g))
}

/// Wait up to `timeout` for every process in `groups` to exit on its own.
/// Returns whether they all did.
pub(crate) async fn wait_groups_gone(groups: &[i32], timeout: std::time::Duration) -> bool {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if !any_alive(groups) {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}

/// SIGKILL each group (already-gone groups are fine).
pub(crate) fn kill_groups(groups: &[i32]) {
    for g in groups {
        if let Err(e) = signal_group(*g, GroupSignal::Kill) {
            tracing::debug!(group = g, error = %e, "killing an escaped agent group");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn finds_a_detached_grandchild() {
        // sh (own group) starts a child in a new session and group.
        let mut child = tokio::process::Command::new("sh")
            .arg("-c")
            .arg("setsid sleep 30 & wait")
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let pid = child.id().unwrap();
        let mut groups = Vec::new();
        for _ in 0..50 {
            groups = escaped_groups(pid);
            if !groups.is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert_eq!(groups.len(), 1, "sleep runs in its own group");
        kill_groups(&groups);
        let _ = child.kill().await;
    }

    #[tokio::test]
    async fn waits_for_a_group_to_finish_its_cleanup() {
        // A process that takes 300 ms to exit after SIGTERM, like an agent
        // flushing its session file: the wait sees it through, then ends.
        let child = tokio::process::Command::new("sh")
            .arg("-c")
            .arg("trap 'sleep 0.3; exit 0' TERM; while :; do sleep 0.05; done")
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let g = i32::try_from(child.id().unwrap()).unwrap();
        // Let the shell install its trap.
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert!(any_alive(&[g]));
        signal_groups(&[g], GroupSignal::Terminate);
        let t = std::time::Instant::now();
        let reaper = tokio::spawn(async move {
            let mut child = child;
            child.wait().await
        });
        assert!(wait_groups_gone(&[g], std::time::Duration::from_secs(5)).await);
        let took = t.elapsed();
        assert!(took >= std::time::Duration::from_millis(250), "{took:?}");
        assert!(!any_alive(&[g]));
        let _ = reaper.await;
        // An empty or gone group is gone at once.
        assert!(wait_groups_gone(&[g], std::time::Duration::ZERO).await);
    }
}
