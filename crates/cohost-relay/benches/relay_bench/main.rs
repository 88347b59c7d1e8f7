//! Relay benchmark, loopback only, bounded in count and time.
//!
//! `cargo bench -p cohost-relay --bench relay_bench [-- idle fanout replay redis baseline e2e xfanout xreplay failover]`
//!
//! `xfanout`, `xreplay` and `failover` (issue 17) run two nodes over a real
//! redis-server: cross-node fan-out, replay of 1,000 chunks from Redis Streams
//! on a node that never saw them, and the time from a node's SIGKILL until
//! every participant resumed through nginx (`COHOST_BENCH_KILLS`, default 10).
//!
//! The relay runs in a child process pinned to core 0 (`taskset -c 0`, one
//! current-thread runtime); the load client runs pinned to core 1 (also one
//! current-thread runtime). Sizes: `COHOST_BENCH_IDLE` (default 10000 sockets),
//! `COHOST_BENCH_FANOUT` (default 1000 participants), `COHOST_BENCH_SECS` (3 per rate),
//! `COHOST_BENCH_RATES` (host frames/s, default `100,400,700,1000`),
//! `COHOST_BENCH_LOG` (a tracing filter for the relay child, e.g. `cohost_relay=debug`),
//! `COHOST_BENCH_WRITE_BATCH` (relay write batch bytes, default 65536; 1 = a write per frame).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench prints its results"
)]
// A bench crate: a failed unwrap is a failed bench with its line, nothing
// here is API, and it may sleep while it waits for a process it started.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    unreachable_pub
)]

mod extra;
mod floor;
mod ha;
mod load;
#[path = "../../tests/common/nginx_conf.rs"]
mod nginx_conf;
#[path = "../../tests/common/redis_server.rs"]
mod redis_server;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cohost_protocol::{FrameType, Role};
use cohost_relay::auth::TokenAuthority;
use cohost_relay::{Rate, RedisBroker, Relay, RelayConfig};
use futures::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

const SECRET: &[u8] = b"bench-secret-not-for-production-0123";

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn bench_config() -> RelayConfig {
    let mut c = RelayConfig {
        jwt_secret: Some(SECRET.to_vec()),
        ..RelayConfig::default()
    };
    c.limits.max_participants_per_room = 20_000;
    // Every bench socket comes from 127.0.0.1: lift the per-IP and total caps.
    c.limits.max_connections_per_ip = 1_000_000;
    c.limits.max_connections = 1_000_000;
    c.limits.rate_stream = Rate {
        per_sec: 1e6,
        burst: 1e6,
    };
    c.limits.rate_other = Rate {
        per_sec: 1e6,
        burst: 1e6,
    };
    c.limits.write_batch_bytes = env_num("COHOST_BENCH_WRITE_BATCH", 64 * 1024) as usize;
    c
}

/// Child mode: `--serve relay` or `--serve redis <url>`; prints `READY <addr>...`, exits on stdin EOF.
fn serve(args: &[String]) {
    if let Ok(filter) = std::env::var("COHOST_BENCH_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .init();
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    if args.first().map(String::as_str) == Some("raw") {
        return rt.block_on(floor::serve());
    }
    rt.block_on(async {
        let mut addrs = Vec::new();
        let mut handles = Vec::new();
        if args.first().map(String::as_str) == Some("node") {
            // One node of a cluster: `node <redis url> <port>` (a fixed port,
            // so a killed node comes back where the load balancer expects it).
            let b = RedisBroker::connect(&args[1], "bench")
                .await
                .expect("redis");
            let mut c = bench_config();
            c.broker = Some(Arc::new(b));
            c.bind.set_port(args[2].parse().expect("port"));
            handles.push(Relay::bind(c).await.expect("bind"));
        } else if args.first().map(String::as_str) == Some("redis") {
            for _ in 0..2 {
                let b = RedisBroker::connect(&args[1], "bench")
                    .await
                    .expect("redis");
                let mut c = bench_config();
                c.broker = Some(Arc::new(b));
                handles.push(Relay::bind(c).await.expect("bind"));
            }
        } else {
            handles.push(Relay::bind(bench_config()).await.expect("bind"));
        }
        for h in &handles {
            addrs.push(h.local_addr().to_string());
        }
        println!("READY {}", addrs.join(" "));
        tokio::task::spawn_blocking(|| {
            let mut s = String::new();
            while std::io::stdin()
                .read_line(&mut s)
                .map(|n| n > 0)
                .unwrap_or(false)
            {}
        })
        .await
        .ok();
    });
}

struct Server {
    child: Child,
    addrs: Vec<String>,
}

impl Server {
    fn start(cmd: &mut Command) -> Server {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn server");
        let mut line = String::new();
        let out = child.stdout.take().expect("stdout");
        let mut r = BufReader::new(out);
        while !line.starts_with("READY") {
            line.clear();
            if r.read_line(&mut line).expect("read") == 0 {
                panic!("server exited before READY");
            }
        }
        let addrs = line
            .split_whitespace()
            .skip(1)
            .map(str::to_string)
            .collect();
        Server { child, addrs }
    }

    fn relay(args: &[&str]) -> Server {
        let exe = std::env::current_exe().expect("exe");
        let mut cmd = Command::new("taskset");
        cmd.arg("-c").arg("0").arg(exe).arg("--serve").args(args);
        Server::start(&mut cmd)
    }

    fn rss_kib(&self) -> u64 {
        let s = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        s.lines()
            .find(|l| l.starts_with("VmRSS:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _killed = self.child.kill();
        let _reaped = self.child.wait();
    }
}

/// User+system CPU seconds consumed so far by process `pid`.
fn cpu_secs(pid: u32) -> f64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the ")" of the command name: state is field 3; utime 14, stime 15.
    let rest = s.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn url(addr: &str, room: &str) -> String {
    format!("ws://{addr}/v1/rooms/{room}/ws")
}

fn tok(auth: &TokenAuthority, room: &str, role: Role) -> String {
    auth.mint(room, role, 3600, "bench").expect("mint").0
}

async fn idle(auth: &TokenAuthority) {
    let n = env_num("COHOST_BENCH_IDLE", 10_000);
    let srv = Server::relay(&["relay"]);
    let addr = srv.addrs[0].clone();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = srv.rss_kib();
    let t0 = Instant::now();
    let socks: Vec<load::Ws> = futures::stream::iter(0..n)
        .map(|i| {
            let room = format!("idle{}", i / 100);
            let t = tok(auth, &room, Role::Viewer);
            let u = url(&addr, &room);
            async move { load::connect(&u, Some(&t), Some(&room)).await }
        })
        .buffer_unordered(200)
        .collect()
        .await;
    let took = t0.elapsed();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = srv.rss_kib();
    let per = (after.saturating_sub(before)) as f64 * 1024.0 / n as f64;
    println!(
        "idle: {n} authenticated sockets (100/room) in {:.2}s; relay RSS {before} KiB -> {after} KiB = {per:.0} B/socket (target <= 8192)",
        took.as_secs_f64()
    );
    drop(socks);
}

/// Fan-out: 1 room x `n` participants; open-loop host at several rates.
async fn fanout(
    addr: &str,
    host_addr: &str,
    auth: Option<&TokenAuthority>,
    label: &str,
    server_pid: u32,
) -> Vec<(f64, f64, f64)> {
    fanout_sized(addr, host_addr, auth, label, server_pid, 64).await
}

/// [`fanout`] with host payloads of `payload_len` bytes.
async fn fanout_sized(
    addr: &str,
    host_addr: &str,
    auth: Option<&TokenAuthority>,
    label: &str,
    server_pid: u32,
    payload_len: usize,
) -> Vec<(f64, f64, f64)> {
    let n = env_num("COHOST_BENCH_FANOUT", 1000);
    let secs = env_num("COHOST_BENCH_SECS", 3) as f64;
    let room = "fan";
    let mut viewers: Vec<load::Ws> = futures::stream::iter(0..n)
        .map(|_| {
            let t = auth.map(|a| tok(a, room, Role::Viewer));
            let u = url(addr, room);
            async move { load::connect(&u, t.as_deref(), t.as_ref().map(|_| room)).await }
        })
        .buffer_unordered(100)
        .collect()
        .await;
    let t = auth.map(|a| tok(a, room, Role::Host));
    let host = load::connect(&url(host_addr, room), t.as_deref(), None).await;
    let (mut htx, mut hrx) = host.split();
    tokio::spawn(async move { while let Some(Ok(_)) = hrx.next().await {} });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let base = Instant::now();
    let mut results = Vec::new();
    let rates: Vec<f64> = std::env::var("COHOST_BENCH_RATES")
        .unwrap_or_else(|_| "100,400,700,1000".into())
        .split(',')
        .filter_map(|r| r.trim().parse().ok())
        .collect();
    for (run, fps) in rates.into_iter().enumerate() {
        let total = (fps * secs) as u64;
        let warmup = (fps / 2.0) as u64;
        let tasks: Vec<_> = viewers
            .drain(..)
            .map(|v| tokio::spawn(load::receive(v, base, warmup)))
            .collect();
        let stream = format!("bench{run}");
        let t0 = Instant::now();
        let (srv_cpu0, cli_cpu0) = (cpu_secs(server_pid), cpu_secs(std::process::id()));
        load::send_paced(&mut htx, room, &stream, fps, total, payload_len, base).await;
        let mut lat = Vec::new();
        let mut gaps = 0;
        for t in tasks {
            let (ws, seen) = t.await.expect("receiver");
            lat.extend(seen.latencies_us);
            gaps += seen.gaps;
            viewers.push(ws);
        }
        let wall = t0.elapsed().as_secs_f64();
        let srv_cpu = cpu_secs(server_pid) - srv_cpu0;
        let cli_cpu = cpu_secs(std::process::id()) - cli_cpu0;
        let all = (total * n) as f64;
        println!(
            "  cpu[{label}] relay {:.2} s CPU over {wall:.2} s wall = {:.0} ns/delivery (=> ~{:.0} deliveries/s on one dedicated core); load client {:.2} s CPU",
            srv_cpu,
            srv_cpu * 1e9 / all,
            all / srv_cpu.max(1e-9),
            cli_cpu
        );
        lat.sort_unstable();
        let delivered = lat.len() as f64 / (wall * (total - warmup) as f64 / total as f64);
        let p99 = load::pct(&lat, 99.0);
        println!(
            "fanout[{label}] {n} participants, host {fps:.0} frames/s (offered {:.0} deliveries/s): delivered {:.0}/s, p50 {:.2} ms, p99 {p99:.2} ms, p99.9 {:.2} ms, max {:.2} ms, missing {}, gaps {gaps}",
            fps * n as f64,
            delivered,
            load::pct(&lat, 50.0),
            load::pct(&lat, 99.9),
            load::pct(&lat, 100.0),
            (total - warmup) * n - lat.len() as u64,
        );
        results.push((delivered, p99, srv_cpu * 1e9 / all));
    }
    drop(htx);
    results
}

/// Streams 1,000 chunks of 256 B into `room` on `addr` as its host and
/// waits until the relay has taken them all (a ping answered after them).
async fn fill_room(addr: &str, auth: &TokenAuthority, room: &str) -> load::Ws {
    let mut host = load::connect(&url(addr, room), Some(&tok(auth, room, Role::Host)), None).await;
    for k in 0..1000u64 {
        let f =
            cohost_protocol::Frame::build(FrameType::StreamChunk, room, Some("r"), k, &[1u8; 256])
                .expect("f");
        host.feed(Message::Binary(f.bytes().clone()))
            .await
            .expect("send");
    }
    let ping =
        cohost_protocol::Frame::build(FrameType::RoomPing, room, None, 0, b"").expect("ping");
    host.send(Message::Binary(ping.bytes().clone()))
        .await
        .expect("ping");
    loop {
        match tokio::time::timeout(Duration::from_secs(10), host.next()).await {
            Ok(Some(Ok(Message::Binary(b)))) => {
                if cohost_protocol::Frame::decode(b).map(|f| f.kind()) == Ok(FrameType::RoomPong) {
                    return host;
                }
            }
            Ok(Some(Ok(_))) => {}
            end => panic!("{room}: no pong after 1000 chunks: {end:?}"),
        }
    }
}

/// Microseconds from a viewer's resume on `addr` until it holds the 1,000 chunks.
async fn time_replay(addr: &str, auth: &TokenAuthority, room: &str) -> u32 {
    let mut v = load::connect(&url(addr, room), Some(&tok(auth, room, Role::Viewer)), None).await;
    let t0 = Instant::now();
    let resume = cohost_protocol::Frame::control_frame(
        FrameType::RoomResume,
        room,
        None,
        &cohost_protocol::Resume::default(),
    )
    .expect("r");
    v.send(Message::Binary(resume.bytes().clone()))
        .await
        .expect("resume");
    let mut got = 0;
    let mut other = Vec::new();
    while got < 1000 {
        match tokio::time::timeout(Duration::from_secs(10), v.next()).await {
            Ok(Some(Ok(Message::Binary(b)))) => match cohost_protocol::Frame::decode(b) {
                Ok(f) if f.kind() == FrameType::StreamChunk => got += 1,
                Ok(f) => other.push(f.kind().name().to_string()),
                Err(e) => other.push(format!("undecodable: {e}")),
            },
            Ok(Some(Ok(m))) => other.push(format!("{m:?}")),
            end => {
                panic!("{room}: got {got} of 1000 chunks, then {end:?}; other frames: {other:?}")
            }
        }
    }
    t0.elapsed().as_micros() as u32
}

async fn replay(auth: &TokenAuthority) {
    let srv = Server::relay(&["relay"]);
    let addr = srv.addrs[0].clone();
    let mut times = Vec::new();
    for i in 0..20 {
        let room = format!("replay{i}");
        let _host = fill_room(&addr, auth, &room).await;
        times.push(time_replay(&addr, auth, &room).await);
    }
    times.sort_unstable();
    println!(
        "replay: 1000 chunks x 256 B after resume: p50 {:.2} ms, max {:.2} ms over 20 runs (target < 50 ms)",
        load::pct(&times, 50.0),
        load::pct(&times, 100.0)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--serve") {
        return serve(&args[1..]);
    }
    let picked: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let on = |name: &str| picked.is_empty() || picked.contains(&"all") || picked.contains(&name);
    // Pin the load client (all its threads: only main exists yet) to core 1.
    let _pinned = Command::new("taskset")
        .args(["-a", "-p", "-c", "1", &std::process::id().to_string()])
        .stdout(Stdio::null())
        .status();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let auth = TokenAuthority::new(SECRET);
        if on("idle") {
            idle(&auth).await;
        }
        let mut relay_results = Vec::new();
        if on("fanout") || on("baseline") {
            let srv = Server::relay(&["relay"]);
            relay_results = fanout(
                &srv.addrs[0].clone(),
                &srv.addrs[0].clone(),
                Some(&auth),
                "cohost relay",
                srv.child.id(),
            )
            .await;
        }
        if on("replay") {
            replay(&auth).await;
        }
        if on("redis") {
            extra::redis_latency(&auth).await;
        }
        if on("baseline") {
            extra::baseline(&relay_results).await;
        }
        if on("e2e") {
            // The relay never decrypts: an end-to-end sealed chunk is only
            // larger (a typical 177-byte chunk seals to 275 bytes, see
            // cohost-share's e2e_codec bench). Same rates, fresh relays.
            let mut runs = Vec::new();
            for (label, len) in [("plaintext 177 B", 177), ("sealed 275 B", 275)] {
                let srv = Server::relay(&["relay"]);
                let addr = srv.addrs[0].clone();
                runs.push(
                    fanout_sized(&addr, &addr, Some(&auth), label, srv.child.id(), len).await,
                );
            }
            for (p, e) in runs[0].iter().zip(&runs[1]) {
                println!(
                    "e2e vs plaintext: delivered {:.2}x, p99 {:.2}x, relay ns/delivery {:.2}x",
                    e.0 / p.0.max(1e-9),
                    e.1 / p.1.max(1e-9),
                    e.2 / p.2.max(1e-9)
                );
            }
        }
        if on("xfanout") {
            ha::cross_fanout(&auth).await;
        }
        if on("xreplay") {
            ha::redis_replay(&auth).await;
        }
        if on("failover") {
            ha::failover(&auth).await;
        }
    });
}
