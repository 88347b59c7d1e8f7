//! A process tree as `/proc` shows it: who descends from whom, and killing
//! all of it. Linux only; elsewhere the tree is empty and only the agent's
//! process group is killed.
#![allow(
    unsafe_code,
    reason = "kill(2) and waitpid(2) on the raw libc API; each block says why it is sound"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// How long a tree kill may keep hunting descendants.
pub const KILL_BUDGET: Duration = Duration::from_secs(2);

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
pub fn state_of(pid: u32) -> Option<char> {
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
    let mut nap = Backoff::new();
    loop {
        let left = live_descendants(me, &all_nodes());
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
        nap.sleep();
    }
}

/// Sleeps between looks at processes that were just signalled: a killed
/// process is gone within microseconds to a few milliseconds, so look again
/// soon (0.2 ms), then less often (doubling, at most 5 ms).
#[derive(Debug)]
pub struct Backoff(Duration);

impl Backoff {
    /// The first nap is the shortest.
    pub fn new() -> Backoff {
        Backoff(Duration::from_micros(200))
    }

    /// Sleep this nap, and make the next one longer.
    // The supervisor has no async runtime; cohost naps here only on its
    // way out (`process::kill_all` at exit, on a kernel without pidfds).
    #[allow(clippy::disallowed_methods)]
    pub fn sleep(&mut self) {
        std::thread::sleep(self.0);
        self.0 = (self.0 * 2).min(Duration::from_millis(5));
    }
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff::new()
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
}
