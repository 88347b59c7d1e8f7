//! Descendants that left the agent's process group. claude-code-acp starts
//! its Claude Code child detached (its own group), so killing the agent's
//! group orphans it; cohost finds such groups through the parent links in
//! `/proc` while the parent still lives, and kills them too.
//!
//! (Candidate for `crate::process`; kept here to stay in the ACP folder.)

use std::collections::{HashMap, HashSet};

use crate::process::{signal_group, GroupSignal};

/// `(pid, ppid, pgid)` of every process, from `/proc/*/stat`.
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
            let _state = f.next()?;
            let ppid = f.next()?.parse().ok()?;
            let pgid = f.next()?.parse().ok()?;
            Some((pid, ppid, pgid))
        })
        .collect()
}

/// Process groups, other than `leader`'s own, holding descendants of `leader`.
pub fn escaped_groups(leader: u32) -> Vec<i32> {
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

/// SIGKILL each group (already-gone groups are fine).
pub fn kill_groups(groups: &[i32]) {
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
}
