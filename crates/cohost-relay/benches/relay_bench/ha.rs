//! Scaled out (issue 17): two nodes over a real Redis. Cross-node fan-out,
//! replay from Redis Streams on a node that never saw the stream (against
//! the same node's own ring in the same run), and failover time from a
//! node's SIGKILL until every participant resumed through nginx.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cohost_protocol::{FrameType, Role};
use cohost_relay::auth::TokenAuthority;
use cohost_relay::{ClientConfig, ClientEvent, RelayClient};
use futures::SinkExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

use crate::redis_server::redis;
use crate::{env_num, fanout, fill_room, load, time_replay, tok, url, Server};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("port")
        .local_addr()
        .expect("addr")
        .port()
}

/// Host on node A, `COHOST_BENCH_FANOUT` viewers on node B (one process,
/// one core for both nodes), frames crossing through Redis pub/sub.
pub async fn cross_fanout(auth: &TokenAuthority) {
    let Some(redis) = redis().await else {
        return;
    };
    let srv = Server::relay(&["redis", &redis.url]);
    let (a, b) = (srv.addrs[0].clone(), srv.addrs[1].clone());
    fanout(&b, &a, Some(auth), "2 nodes + redis", srv.child.id()).await;
}

/// 1,000 chunks per room streamed on node A; node C, started afterwards,
/// replays them from Redis Streams (first resume) and then from its own
/// ring (second resume, the baseline).
pub async fn redis_replay(auth: &TokenAuthority) {
    let Some(redis) = redis().await else {
        return;
    };
    let a = Server::relay(&["node", &redis.url, &free_port().to_string()]);
    let rooms: Vec<String> = (0..20).map(|i| format!("xreplay{i}")).collect();
    let mut hosts = Vec::new();
    for r in &rooms {
        hosts.push(fill_room(&a.addrs[0], auth, r).await);
    }
    // The pong says node A took every chunk; its XADDs follow within ms.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let c = Server::relay(&["node", &redis.url, &free_port().to_string()]);
    let (mut from_redis, mut from_ring) = (Vec::new(), Vec::new());
    for r in &rooms {
        from_redis.push(time_replay(&c.addrs[0], auth, r).await);
        from_ring.push(time_replay(&c.addrs[0], auth, r).await);
    }
    from_redis.sort_unstable();
    from_ring.sort_unstable();
    let (p_redis, p_ring) = (load::pct(&from_redis, 50.0), load::pct(&from_ring, 50.0));
    println!(
        "xreplay: 1000 chunks x 256 B on a node that never saw them, from Redis Streams: p50 {p_redis:.2} ms, max {:.2} ms; \
         again from its own ring: p50 {p_ring:.2} ms, max {:.2} ms; Redis/ring {:.1}x (20 rooms)",
        load::pct(&from_redis, 100.0),
        load::pct(&from_ring, 100.0),
        p_redis / p_ring.max(1e-9)
    );
}

async fn viewers_on(port: u16) -> usize {
    let Ok(mut s) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await else {
        return 0;
    };
    let req = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    let _sent = s.write_all(req).await;
    let mut out = String::new();
    let _read = s.read_to_string(&mut out).await;
    out.lines()
        .find_map(|l| {
            l.strip_prefix("cohost_relay_connections{role=\"viewer\"} ")?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// nginx running deploy/nginx/nginx.conf in front of two loopback ports.
fn nginx(dir: &std::path::Path, lb: u16, a: u16, b: u16) -> Option<Proxy> {
    let conf = crate::nginx_conf::nginx_conf(dir, lb, a, b);
    let path = dir.join("nginx.conf");
    std::fs::write(&path, conf).expect("write nginx.conf");
    Command::new("nginx")
        .arg("-p")
        .arg(dir)
        .arg("-c")
        .arg(&path)
        .args(["-g", "daemon off;"])
        .stderr(
            std::fs::File::create(dir.join("nginx.err"))
                .map_or_else(|_| Stdio::null(), Stdio::from),
        )
        .spawn()
        .ok()
        .map(Proxy)
}

/// A viewer through nginx; reports when it got its first chunk after a drop.
fn watch(
    mut c: RelayClient,
    resumed: tokio::sync::mpsc::UnboundedSender<Instant>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut dropped = false;
        while let Some(ev) = c.recv().await {
            match ev {
                ClientEvent::Disconnected { .. } => dropped = true,
                ClientEvent::Frame(f) if dropped && f.kind() == FrameType::StreamChunk => {
                    let _sent = resumed.send(Instant::now());
                    dropped = false;
                }
                ClientEvent::Closed { .. } => break,
                _ => {}
            }
        }
    })
}

/// Repeated SIGKILLs of the node serving half the viewers; each time, how
/// long until every viewer of the killed node got a chunk again.
pub async fn failover(auth: &TokenAuthority) {
    if Command::new("nginx")
        .arg("-v")
        .stderr(Stdio::null())
        .status()
        .is_err()
    {
        println!("failover: SKIPPED (nginx not installed)");
        return;
    }
    let Some(redis) = redis().await else {
        return;
    };
    let kills = env_num("COHOST_BENCH_KILLS", 10) as usize;
    let per_round = env_num("COHOST_BENCH_FAILOVER_VIEWERS", 20) as usize;
    let dir = tempfile::tempdir().expect("tmp");
    let ports = [free_port(), free_port()];
    let mut nodes: Vec<Server> = ports
        .iter()
        .map(|p| Server::relay(&["node", &redis.url, &p.to_string()]))
        .collect();
    let lb = free_port();
    let Some(proxy) = nginx(dir.path(), lb, ports[0], ports[1]) else {
        println!("failover: SKIPPED (nginx did not start)");
        return;
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (mut rounds, mut each) = (Vec::new(), Vec::new());
    for round in 0..kills {
        let (victim, survivor) = (round % 2, 1 - round % 2);
        let room = format!("failover{round}");
        let mut host = load::connect(
            &url(&nodes[survivor].addrs[0], &room),
            Some(&tok(auth, &room, Role::Host)),
            None,
        )
        .await;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut clients = Vec::new();
        for _ in 0..per_round {
            let c = RelayClient::connect(ClientConfig {
                url: url(&format!("127.0.0.1:{lb}"), &room),
                room: room.clone(),
                token: tok(auth, &room, Role::Viewer),
                origin: None,
                reconnect: true,
                initial_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(1),
                ca_file: None,
            })
            .await
            .expect("viewer through nginx");
            clients.push(c);
        }
        let on_victim = viewers_on(ports[victim]).await;
        let watchers: Vec<_> = clients.into_iter().map(|c| watch(c, tx.clone())).collect();
        let stream_room = room.clone();
        let sender = tokio::spawn(async move {
            for k in 0.. {
                let f = cohost_protocol::Frame::build(
                    FrameType::StreamChunk,
                    &stream_room,
                    Some("s"),
                    k,
                    &[7u8; 64],
                )
                .expect("f");
                if host.send(Message::Binary(f.bytes().clone())).await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        let killed_at = Instant::now();
        let _killed = nodes[victim].child.kill();
        let _reaped = nodes[victim].child.wait();
        eprintln!("failover round {round}: killed the node of {on_victim} viewers");
        let mut worst = Duration::ZERO;
        for _ in 0..on_victim {
            match tokio::time::timeout(Duration::from_secs(10), rx.recv()).await {
                Ok(Some(t)) => {
                    let d = t - killed_at;
                    worst = worst.max(d);
                    each.push(d.as_micros() as u32);
                }
                _ => panic!("failover round {round}: a viewer never resumed"),
            }
        }
        rounds.push(worst.as_micros() as u32);
        sender.abort();
        // Dropping the clients closes them: the next round starts empty.
        for w in watchers {
            w.abort();
        }
        nodes[victim] = Server::relay(&["node", &redis.url, &ports[victim].to_string()]);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    rounds.sort_unstable();
    each.sort_unstable();
    println!(
        "failover: SIGKILL of the node serving ~half of {per_round} viewers, through nginx, {kills} kills: \
         every viewer resumed after p50 {:.1} ms, p99 {:.1} ms (per viewer p50 {:.1} ms, p99 {:.1} ms; client reconnect delay 100-125 ms)",
        load::pct(&rounds, 50.0),
        load::pct(&rounds, 99.0),
        load::pct(&each, 50.0),
        load::pct(&each, 99.0)
    );
    drop(proxy);
}

/// nginx, stopped (workers included) when dropped, on a panic too.
struct Proxy(std::process::Child);

impl Drop for Proxy {
    fn drop(&mut self) {
        crate::nginx_conf::stop(&mut self.0);
    }
}
