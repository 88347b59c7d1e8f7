//! A process tree as `/proc` shows it: who descends from whom, and killing
//! all of it. Linux only; elsewhere the tree is empty and only the agent's
//! process group is killed.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// One `/proc/PID/stat` line reduced to what a tree walk needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Node {
    pub pid: u32,
    pub ppid: u32,
    pub state: char,
}

impl Node {
    fn is_zombie(&self) -> bool {
        matches!(self.state, 'Z' | 'X')
    }
}

/// Parse `pid (comm) state ppid ...`; comm may hold spaces and parentheses,
/// so fields are counted from the last `)`.
pub(crate) fn parse_stat(stat: &str) -> Option<Node> {
    let open = stat.find('(')?;
    let pid = stat.get(..open)?.trim().parse().ok()?;
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some(Node { pid, ppid, state })
}

/// The state letter of `pid`, `None` once it is gone (or without `/proc`).
pub(crate) fn state_of(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&stat).map(|n| n.state)
}

fn all_nodes() -> Vec<Node> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            parse_stat(&stat)
        })
        .collect()
}

/// Live (non-zombie) descendants of `root` among `nodes`, root excluded.
pub(crate) fn live_descendants(root: u32, nodes: &[Node]) -> Vec<u32> {
    let mut children: BTreeMap<u32, Vec<&Node>> = BTreeMap::new();
    for n in nodes {
        children.entry(n.ppid).or_default().push(n);
    }
    let mut seen = BTreeSet::new();
    let mut stack = vec![root];
    let mut out = Vec::new();
    while let Some(pid) = stack.pop() {
        for c in children.get(&pid).map(Vec::as_slice).unwrap_or_default() {
            // A pid cannot be its own ancestor, but a racy read could make it
            // look so; `seen` keeps the walk finite.
            if c.pid == root || !seen.insert(c.pid) {
                continue;
            }
            if !c.is_zombie() {
                out.push(c.pid);
            }
            stack.push(c.pid);
        }
    }
    out
}

/// Live descendants of `root`, from the kernel's per-thread `children`
/// lists: a walk of `root`'s own tree, where [`all_nodes`] reads the stat of
/// every process on the machine. `None` when the kernel keeps no such lists
/// (`CONFIG_PROC_CHILDREN`) or `/proc` is missing.
pub(crate) fn walk_live_descendants(root: u32) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            if pid == root {
                return None;
            }
            continue; // Gone since its parent listed it.
        };
        for task in tasks.flatten() {
            let list = match std::fs::read_to_string(task.path().join("children")) {
                Ok(list) => list,
                Err(_) if pid == root => return None,
                Err(_) => continue,
            };
            for child in list
                .split_whitespace()
                .filter_map(|c| c.parse::<u32>().ok())
            {
                if child == root || !seen.insert(child) {
                    continue;
                }
                // A zombie's own children were handed on when it died.
                if state_of(child).is_some_and(|s| !matches!(s, 'Z' | 'X')) {
                    out.push(child);
                    stack.push(child);
                }
            }
        }
    }
    Some(out)
}

fn live_descendants_of(root: u32) -> Vec<u32> {
    walk_live_descendants(root).unwrap_or_else(|| live_descendants(root, &all_nodes()))
}

/// SIGKILL `pgid` and then every live descendant of this process, again and
/// again until none is left (a dying parent hands its children to us, the
/// subreaper) or `budget` runs out. Returns how many were still alive then.
pub(crate) fn kill_tree(pgid: i32, budget: Duration) -> usize {
    if pgid > 1 {
        // SAFETY: kill(2) takes plain integers; pgid > 1 never names our
        // own group (0) or every process (-1).
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
    let me = std::process::id();
    let start = Instant::now();
    // A killed process is gone within microseconds to a few milliseconds:
    // look again soon, then less often.
    let mut nap = Duration::from_micros(200);
    loop {
        let left = live_descendants_of(me);
        if left.is_empty() || start.elapsed() >= budget {
            return left.len();
        }
        for pid in left {
            if let Ok(pid) = i32::try_from(pid) {
                // SAFETY: as above; these pids are our own descendants.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(5));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(pid: u32, ppid: u32, state: char) -> Node {
        Node { pid, ppid, state }
    }

    #[test]
    fn parses_stat_with_odd_names() {
        let got = parse_stat("42 (a (b) c) S 7 42 42 0 -1").unwrap();
        assert_eq!(got, n(42, 7, 'S'));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn walks_every_generation_and_skips_zombies() {
        let nodes = [
            n(10, 1, 'S'),
            n(11, 10, 'S'),
            n(12, 11, 'Z'),
            n(13, 12, 'R'), // a live child under a zombie still counts
            n(14, 10, 'S'),
            n(20, 1, 'S'), // unrelated
        ];
        let mut got = live_descendants(10, &nodes);
        got.sort_unstable();
        assert_eq!(got, vec![11, 13, 14]);
        assert!(live_descendants(20, &nodes).is_empty());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_walk_finds_what_the_scan_finds() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let me = std::process::id();
        let walked = walk_live_descendants(me).expect("this kernel lists children");
        let scanned = live_descendants(me, &all_nodes());
        assert!(walked.contains(&child.id()), "{walked:?}");
        assert!(scanned.contains(&child.id()), "{scanned:?}");
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!walk_live_descendants(me).unwrap().contains(&child.id()));
    }
}
