//! Read-only views of `/proc` (Linux): which processes are in a group, and
//! which carry a marker variable. Used by tests and `cohost doctor` to prove
//! that no agent outlived its session.

use std::fs;

/// A process seen in `/proc`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcEntry {
    /// Pid.
    pub pid: u32,
    /// State letter (`R`, `S`, `Z` for zombie...).
    pub state: char,
    /// Process group.
    pub pgid: i32,
    /// Command name.
    pub comm: String,
}

impl ProcEntry {
    /// A zombie has exited and only waits to be reaped: it runs nothing.
    pub fn is_zombie(&self) -> bool {
        matches!(self.state, 'Z' | 'X')
    }
}

/// Every process visible in `/proc` (empty where `/proc` is absent).
pub fn processes() -> Vec<ProcEntry> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(read_stat)
        .collect()
}

fn read_stat(pid: u32) -> Option<ProcEntry> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp ...`; comm may contain spaces and parens.
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?.to_string();
    let mut rest = stat.get(close + 1..)?.split_whitespace();
    let state = rest.next()?.chars().next()?;
    let _ppid = rest.next()?;
    let pgid = rest.next()?.parse().ok()?;
    Some(ProcEntry {
        pid,
        state,
        pgid,
        comm,
    })
}

/// Live (non-zombie) members of group `pgid`.
pub fn live_group_members(pgid: i32) -> Vec<ProcEntry> {
    processes()
        .into_iter()
        .filter(|p| p.pgid == pgid && !p.is_zombie())
        .collect()
}

/// Live processes whose environment holds `name=value`. Set a unique marker
/// through `AdapterConfig.env` and this finds every process of that agent,
/// including helpers that left its group.
pub fn live_with_env(name: &str, value: &str) -> Vec<ProcEntry> {
    let needle = format!("{name}={value}");
    processes()
        .into_iter()
        .filter(|p| !p.is_zombie())
        .filter(|p| {
            fs::read(format!("/proc/{}/environ", p.pid))
                .map(|env| env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()))
                .unwrap_or(false)
        })
        .collect()
}
