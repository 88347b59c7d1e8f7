//! Watching what the bench's processes connect to.
//!
//! The fake server can only prove what *did* reach it. To show nothing went
//! anywhere else, a background thread samples every process carrying the
//! bench marker, maps its socket inodes to `/proc/PID/net/*` rows and records
//! any peer that is neither loopback nor unconnected. Sampling can miss a
//! connection that opens and closes between two samples (every 50 ms), but it
//! catches the usual offenders: a blocked connect, an update check, telemetry
//! batches, DNS over UDP to a non-local resolver.

use std::collections::{BTreeSet, HashMap};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::procfs::{self, MarkerScanner};

// One scan costs ~4 ms of a loaded 2-core box (debug build, 200 processes).
const INTERVAL: Duration = Duration::from_millis(50);
/// The TCP tables are read every this many samples (every 200 ms): each
/// read walks the kernel's whole established hash (see [`sample`]), and a
/// TCP connection to anywhere but loopback cannot complete here, so it sits
/// in SYN_SENT for seconds, far longer than that. UDP (DNS) every sample.
const TCP_EVERY: u32 = 4;

/// A socket with a non-loopback peer, held by a marked process.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Outbound {
    /// The remote end.
    pub remote: SocketAddr,
    /// `tcp`, `tcp6`, `udp` or `udp6`.
    pub proto: &'static str,
    /// Who held it.
    pub pid: u32,
    /// Its command line.
    pub cmdline: String,
}

impl std::fmt::Display for Outbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} from pid {} `{}`",
            self.proto, self.remote, self.pid, self.cmdline
        )
    }
}

/// One sample: non-local peers of every process `scanner` finds.
///
/// The socket tables are read once per network namespace: a read of
/// `/proc/PID/net/tcp` walks the kernel's whole established-connection hash
/// (262,144 buckets on a 24 GiB machine, about 5 ms each for tcp and tcp6),
/// and every bench process shares one namespace. Read per process, the
/// sampler took a fifth of a 2-core machine's CPU from the agents it watched.
pub(crate) fn sample(scanner: &mut MarkerScanner, tcp: bool) -> Vec<Outbound> {
    let protos: &[&'static str] = if tcp {
        &["tcp", "tcp6", "udp", "udp6"]
    } else {
        &["udp", "udp6"]
    };
    let mut found = Vec::new();
    let mut tables: HashMap<Option<PathBuf>, Vec<(&'static str, procfs::SocketRow)>> =
        HashMap::new();
    for pid in scanner.scan() {
        let inodes = procfs::socket_inodes(pid);
        if inodes.is_empty() {
            continue;
        }
        let netns = std::fs::read_link(format!("/proc/{pid}/ns/net")).ok();
        let rows = tables
            .entry(netns)
            .or_insert_with(|| procfs::net_tables_of(pid, protos));
        for (proto, row) in rows.iter() {
            if inodes.contains(&row.inode) && !procfs::is_local_or_unconnected(&row.remote) {
                found.push(Outbound {
                    remote: row.remote,
                    proto,
                    pid,
                    cmdline: procfs::cmdline_of(pid),
                });
            }
        }
    }
    found
}

/// A background sampler; stops when dropped.
#[derive(Debug)]
pub struct NetWatch {
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<BTreeSet<Outbound>>>,
    thread: Option<JoinHandle<()>>,
}

impl NetWatch {
    /// Starts sampling processes that carry `marker`.
    pub fn start(marker: &str) -> NetWatch {
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(BTreeSet::new()));
        let thread = {
            let (stop, seen, marker) = (stop.clone(), seen.clone(), marker.to_string());
            std::thread::Builder::new()
                .name("cohost-netwatch".into())
                .spawn(move || {
                    let mut scanner = MarkerScanner::new(&marker);
                    let mut round = 0u32;
                    while !stop.load(Ordering::Relaxed) {
                        let hits = sample(&mut scanner, round.is_multiple_of(TCP_EVERY));
                        round = round.wrapping_add(1);
                        if !hits.is_empty() {
                            seen.lock().unwrap_or_else(|p| p.into_inner()).extend(hits);
                        }
                        // Its own sampling thread, not a runtime worker.
                        #[allow(clippy::disallowed_methods)]
                        std::thread::sleep(INTERVAL);
                    }
                })
                // Without the thread the bench still works; it just cannot
                // vouch for the network, which `outbound()` cannot show. Say so.
                .map_err(|e| eprintln!("cohost-testbench: network watch not started: {e}"))
                .ok()
        };
        NetWatch { stop, seen, thread }
    }

    /// Whether the sampler is running (false only if its thread could not start).
    pub fn is_running(&self) -> bool {
        self.thread.is_some()
    }

    /// Stops sampling (and waits for the sampler's thread); what it saw so
    /// far stays readable, and [`NetWatch::is_running`] turns false. For
    /// timing benchmarks: each sample reads every process's fds and the
    /// kernel's socket tables, CPU the timed processes would otherwise get,
    /// and more of it for a run with more processes.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            if t.join().is_err() {
                eprintln!("cohost-testbench: network watch thread panicked");
            }
        }
    }

    /// Every non-local peer seen so far, once per process and socket: a
    /// sample taken while the process was still exec'ing read an empty
    /// command line, a later one the whole; the whole one is kept.
    pub fn outbound(&self) -> Vec<Outbound> {
        let seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<Outbound> = Vec::new();
        for o in seen.iter() {
            match out
                .iter_mut()
                .find(|k| k.remote == o.remote && k.proto == o.proto && k.pid == o.pid)
            {
                Some(k) if k.cmdline.is_empty() => k.cmdline = o.cmdline.clone(),
                Some(_) => {}
                None => out.push(o.clone()),
            }
        }
        out
    }
}

impl Drop for NetWatch {
    fn drop(&mut self) {
        self.stop();
    }
}

// Tests poll the processes they start.
#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use std::io::Read;

    /// A marked child holding a connected UDP socket to a documentation
    /// address (no packet needs to leave: `connect` on UDP only sets the peer).
    #[test]
    fn sees_a_non_local_peer_and_ignores_loopback() {
        let marker = format!("netwatch-{}", std::process::id());
        let script = "import socket,sys\n\
            a=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); a.connect(('192.0.2.7',9))\n\
            b=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); b.connect(('127.0.0.1',9))\n\
            print('ready',flush=True); sys.stdin.read()\n";
        let Ok(mut child) = std::process::Command::new("python3")
            .args(["-c", script])
            .env(procfs::MARKER_VAR, &marker)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
        else {
            panic!("python3 is needed for this test (it is on every CI image we use)");
        };
        let mut ready = [0u8; 6];
        child
            .stdout
            .as_mut()
            .expect("piped stdout")
            .read_exact(&mut ready)
            .expect("child ready");
        let watch = NetWatch::start(&marker);
        let mut seen = Vec::new();
        for _ in 0..80 {
            seen = watch.outbound();
            if !seen.is_empty() {
                break;
            }
            std::thread::sleep(INTERVAL);
        }
        drop(child.stdin.take());
        child.wait().expect("reap python");
        assert!(watch.is_running());
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0].remote, "192.0.2.7:9".parse().unwrap());
        assert_eq!(seen[0].proto, "udp");
        assert!(seen[0].cmdline.contains("python3"));
    }
}

#[cfg(test)]
mod cost {
    /// Not an assertion: prints what one sample costs on this machine.
    #[test]
    #[ignore = "measurement; run with --ignored --nocapture"]
    fn sample_cost() {
        let mut scanner = super::MarkerScanner::new("no-such-marker");
        super::sample(&mut scanner, true);
        let start = std::time::Instant::now();
        for _ in 0..50 {
            super::sample(&mut scanner, true);
        }
        let procs = std::fs::read_dir("/proc").map(|d| d.count()).unwrap_or(0);
        eprintln!(
            "one sample: {:?} ({procs} /proc entries)",
            start.elapsed() / 50
        );
    }
}
