//! The relay as a service, with real parts: two `cohost relay` processes
//! sharing a real redis-server, behind a real nginx running the config from
//! `deploy/nginx/nginx.conf` (upstreams and paths rewritten to loopback and a
//! temp dir). Host and viewers connect through nginx with the library
//! client, which reconnects and resumes on its own.
//!
//! - A node serving viewers is SIGKILLed mid-stream: every viewer resumes on
//!   the other node with every chunk, in order. A node started afterwards
//!   replays the whole stream from Redis Streams to a late viewer.
//! - A node is sent SIGTERM mid-stream: its clients get 1001, reconnect at
//!   once and lose nothing (the host keeps streaming through the other node).
//! - A room created through one node mints invites through the other.
//! - Nodes log JSON lines (`--log-format json`) that never carry a payload.
//!
//! Without nginx or redis-server: fails when `CI` is set, skips loudly
//! otherwise.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub, dead_code)]

#[path = "../../../cohost-relay/tests/common/nginx_conf.rs"]
mod nginx_conf;
#[path = "../../../cohost-relay/tests/common/redis_server.rs"]
mod redis_server;

use nginx_conf::nginx_conf;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use cohost_protocol::FrameType;
use cohost_relay::{ClientConfig, ClientEvent, RelayClient};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const JWT: &str = "relay-ha-test-jwt-secret-0123456789abcdef";
const ADMIN: &str = "relay-ha-test-admin-secret-0123456789abcd";
const MARK: &str = "PAYLOAD-NEVER-LOGGED";
const WAIT: Duration = Duration::from_secs(30);

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `what` could not be run: the one skip policy (`cohost_testbench::skip`).
fn missing(what: &str, e: &std::io::Error) {
    cohost_testbench::skip_or_fail(&format!(
        "relay_ha: {what} not found ({e}); scripts/test.sh installs it"
    ));
}

/// One `cohost relay` process.
struct Node {
    port: u16,
    child: Child,
    log: PathBuf,
}

impl Drop for Node {
    fn drop(&mut self) {
        let _killed = self.child.kill();
        let _reaped = self.child.wait();
    }
}

impl Node {
    fn start(dir: &Path, port: u16, redis: &str, prefix: &str, public: u16) -> Node {
        let log = dir.join(format!("relay-{port}-{}.log", rand_suffix()));
        let child = Command::new(env!("CARGO_BIN_EXE_cohost"))
            .args(["relay", "--port", &port.to_string(), "--redis", redis])
            .args(["--redis-prefix", prefix, "--public"])
            .arg(format!("127.0.0.1:{public}"))
            .arg("--secrets")
            .arg(dir.join(format!("secrets-{port}.json")))
            .args(["--log-format", "json", "--log", "info"])
            .env("HOME", dir)
            .env("XDG_CONFIG_HOME", dir)
            .env("COHOST_RELAY_JWT_SECRET", JWT)
            .env("COHOST_RELAY_ADMIN_SECRET", ADMIN)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("cohost relay starts");
        Node { port, child, log }
    }

    fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {sig}");
    }

    fn exited_within(&mut self, d: Duration) -> bool {
        let end = std::time::Instant::now() + d;
        while std::time::Instant::now() < end {
            if self.child.try_wait().unwrap().is_some() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// nginx in the foreground with the deploy config pointed at two nodes.
struct Nginx {
    port: u16,
    child: Child,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        nginx_conf::stop(&mut self.child);
    }
}

async fn start_nginx(dir: &Path, a: u16, b: u16) -> Option<Nginx> {
    let port = free_port();
    let conf = dir.join("nginx.conf");
    std::fs::write(&conf, nginx_conf(dir, port, a, b)).unwrap();
    let child = Command::new("nginx")
        .arg("-p")
        .arg(dir)
        .arg("-c")
        .arg(&conf)
        .args(["-g", "daemon off;"])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("nginx.err")).unwrap())
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => {
            missing("nginx", &e);
            return None;
        }
    };
    let n = Nginx { port, child };
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Some(n);
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "nginx did not start: {}",
        std::fs::read_to_string(dir.join("nginx.err")).unwrap_or_default()
    );
}

/// One HTTP/1.1 request; (status, body).
async fn http(port: u16, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {ADMIN}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    let _read = s.read_to_string(&mut out).await;
    let status = out
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (
        status,
        out.split("\r\n\r\n").nth(1).unwrap_or("").to_string(),
    )
}

async fn wait_ready(port: u16) {
    for _ in 0..400 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
            && http(port, "GET", "/readyz", "").await.0 == 200
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("relay on {port} never became ready");
}

/// Open connections of `role` on the node at `port`, from its `/metrics`.
async fn conns(port: u16, role: &str) -> usize {
    let (_, text) = http(port, "GET", "/metrics", "").await;
    let name = format!("cohost_relay_connections{{role=\"{role}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&name)?.trim().parse().ok())
        .unwrap_or(0)
}

/// Mints a token through the relay at `port`.
async fn mint(port: u16, room: &str, role: &str, name: &str) -> String {
    let body = format!(r#"{{"role":"{role}","ttl_secs":600,"name":"{name}"}}"#);
    let (status, text) = http(port, "POST", &format!("/admin/rooms/{room}/invites"), &body).await;
    assert_eq!(status, 201, "invite through {port}: {text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["token"].as_str().unwrap().to_string()
}

async fn client(lb: u16, room: &str, token: String) -> RelayClient {
    RelayClient::connect(ClientConfig {
        url: format!("ws://127.0.0.1:{lb}/v1/rooms/{room}/ws"),
        room: room.to_string(),
        token,
        origin: None,
        reconnect: true,
        initial_backoff: Duration::from_millis(100),
        max_backoff: Duration::from_secs(1),
        ca_file: None,
    })
    .await
    .expect("connects through nginx")
}

/// What one viewer saw.
#[derive(Debug, Default)]
struct Seen {
    chunks: Vec<u64>,
    disconnects: Vec<String>,
    resyncs: usize,
}

/// Collects a viewer's stream until chunk `last` (or the wait runs out).
fn watch(mut c: RelayClient, last: u64) -> tokio::task::JoinHandle<Seen> {
    tokio::spawn(async move {
        let mut seen = Seen::default();
        let end = tokio::time::Instant::now() + WAIT;
        while seen.chunks.last() != Some(&last) {
            let Ok(Some(ev)) = tokio::time::timeout_at(end, c.recv()).await else {
                break;
            };
            match ev {
                ClientEvent::Frame(f) if f.kind() == FrameType::StreamChunk => {
                    seen.chunks.push(f.chunk());
                }
                ClientEvent::Disconnected { reason } => seen.disconnects.push(reason),
                ClientEvent::Resync(_) => seen.resyncs += 1,
                ClientEvent::Closed { .. } => break,
                _ => {}
            }
        }
        c.close().await;
        seen
    })
}

/// A cluster: Redis, two nodes, nginx in front, and a room made through node 0.
struct Cluster {
    dir: tempfile::TempDir,
    redis: redis_server::RedisServer,
    prefix: String,
    nodes: Vec<Node>,
    lb: Nginx,
    room: String,
}

async fn cluster(name: &str) -> Option<Cluster> {
    let redis = redis_server::redis().await?;
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (free_port(), free_port());
    let lb = start_nginx(dir.path(), a, b).await?;
    let prefix = format!("cohost-ha-{}-{name}", std::process::id());
    let nodes = vec![
        Node::start(dir.path(), a, &redis.url, &prefix, lb.port),
        Node::start(dir.path(), b, &redis.url, &prefix, lb.port),
    ];
    wait_ready(a).await;
    wait_ready(b).await;
    // Made through node 0, its invites mint through node 1.
    let body = format!(r#"{{"room":"{name}"}}"#);
    let (status, text) = http(a, "POST", "/admin/rooms", &body).await;
    assert_eq!(status, 201, "{text}");
    let _t = mint(b, name, "VIEWER", "probe").await;
    Some(Cluster {
        dir,
        redis,
        prefix,
        nodes,
        lb,
        room: name.to_string(),
    })
}

impl Cluster {
    /// Index of the node the host landed on.
    async fn host_node(&self) -> usize {
        for _ in 0..100 {
            for (i, n) in self.nodes.iter().enumerate() {
                if conns(n.port, "host").await == 1 {
                    return i;
                }
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the host joined no node");
    }

    /// Connects viewers through nginx until node `on` serves at least
    /// `want` of them (nginx balances round-robin).
    async fn viewers(
        &self,
        on: usize,
        want: usize,
        last: u64,
    ) -> Vec<tokio::task::JoinHandle<Seen>> {
        let mut out = Vec::new();
        for i in 0..(want * 4) {
            // Minted straight from a node (alternating): a mint through nginx
            // would take every other upstream turn.
            let node = self.nodes[i % 2].port;
            let t = mint(node, &self.room, "VIEWER", &format!("v{i}")).await;
            out.push(watch(client(self.lb.port, &self.room, t).await, last));
            tokio::time::sleep(Duration::from_millis(30)).await;
            if out.len() >= 2 * want && conns(self.nodes[on].port, "viewer").await >= want {
                return out;
            }
        }
        panic!("nginx never sent {want} viewers to node {on}");
    }

    /// Every log line of every node is a JSON object without a payload byte.
    fn assert_json_logs_without_payloads(&self) {
        for entry in std::fs::read_dir(self.dir.path()).unwrap() {
            let p = entry.unwrap().path();
            if !p
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("relay-")
            {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            assert!(!text.contains(MARK), "a payload reached {}", p.display());
            let mut lines = 0;
            for l in text.lines().filter(|l| !l.trim().is_empty()) {
                let v: serde_json::Value = serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("not a JSON log line ({e}): {l}"));
                assert!(
                    v.get("level").is_some() && v.get("message").is_some(),
                    "{l}"
                );
                lines += 1;
            }
            assert!(lines > 0, "{} logged nothing", p.display());
        }
    }
}

async fn stream(host: &RelayClient, from: u64, to: u64) {
    for i in from..to {
        let payload = format!("{MARK}-{i:06}-{}", "x".repeat(200));
        host.send_new(FrameType::StreamChunk, Some("s"), i, payload.as_bytes())
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

fn assert_every_chunk(seen: &Seen, n: u64, who: &str) {
    assert_eq!(
        seen.resyncs, 0,
        "{who}: nothing was lost, no resync: {seen:?}"
    );
    assert_eq!(
        seen.chunks,
        (0..n).collect::<Vec<_>>(),
        "{who}: every chunk, in order, once"
    );
}

const N: u64 = 400;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn viewers_of_a_killed_node_resume_on_the_other_through_nginx() {
    let Some(mut c) = cluster("ha-kill").await else {
        return;
    };
    let host = client(
        c.lb.port,
        &c.room,
        mint(c.lb.port, &c.room, "HOST", "hana").await,
    )
    .await;
    let h = c.host_node().await;
    let victim = 1 - h;
    let viewers = c.viewers(victim, 3, N - 1).await;
    let on_victim = conns(c.nodes[victim].port, "viewer").await;
    stream(&host, 0, 150).await;
    c.nodes[victim].signal("-KILL");
    assert!(c.nodes[victim].exited_within(Duration::from_secs(5)));
    stream(&host, 150, N).await;
    let mut dropped = 0;
    for (i, v) in viewers.into_iter().enumerate() {
        let seen = v.await.unwrap();
        dropped += usize::from(!seen.disconnects.is_empty());
        assert_every_chunk(&seen, N, &format!("viewer {i}"));
    }
    assert!(
        dropped >= on_victim,
        "the {on_victim} viewers of the killed node reconnected ({dropped} did)"
    );

    // The killed node comes back empty (a restarted pod): a late viewer
    // joining it directly gets the whole stream from Redis Streams.
    let port = c.nodes[victim].port;
    let back = Node::start(c.dir.path(), port, &c.redis.url, &c.prefix, c.lb.port);
    wait_ready(port).await;
    let t = mint(port, &c.room, "VIEWER", "late").await;
    let late = RelayClient::connect(ClientConfig {
        url: format!("ws://127.0.0.1:{port}/v1/rooms/{}/ws", c.room),
        ..ClientConfig::from_invite(&cohost_protocol::Invite {
            authority: format!("127.0.0.1:{port}"),
            secure: false,
            room: c.room.clone(),
            token: t,
            keys: None,
        })
    })
    .await
    .unwrap();
    assert_every_chunk(&watch(late, N - 1).await.unwrap(), N, "late viewer");
    c.nodes[victim] = back;
    host.close().await;
    c.assert_json_logs_without_payloads();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigterm_drains_with_1001_and_every_client_resumes() {
    let Some(mut c) = cluster("ha-term").await else {
        return;
    };
    let mut host = client(
        c.lb.port,
        &c.room,
        mint(c.lb.port, &c.room, "HOST", "hana").await,
    )
    .await;
    // The host's own node drains: it must move too and keep streaming.
    let h = c.host_node().await;
    let viewers = c.viewers(h, 2, N - 1).await;
    stream(&host, 0, 150).await;
    c.nodes[h].signal("-TERM");
    let host_moved = tokio::spawn(async move {
        let mut reasons = Vec::new();
        while let Ok(Some(ev)) = tokio::time::timeout(Duration::from_millis(300), host.recv()).await
        {
            if let ClientEvent::Disconnected { reason } = ev {
                reasons.push(reason);
            }
        }
        (host, reasons)
    });
    let (host, reasons) = host_moved.await.unwrap();
    assert!(
        reasons.iter().any(|r| r.contains("shutting down")),
        "the host got the drain's 1001 close: {reasons:?}"
    );
    assert!(
        c.nodes[h].exited_within(Duration::from_secs(10)),
        "the node exits after draining"
    );
    stream(&host, 150, N).await;
    let mut drained = 0;
    for (i, v) in viewers.into_iter().enumerate() {
        let seen = v.await.unwrap();
        drained += usize::from(seen.disconnects.iter().any(|r| r.contains("shutting down")));
        assert_every_chunk(&seen, N, &format!("viewer {i}"));
    }
    assert!(
        drained >= 2,
        "the drained node's viewers got 1001 ({drained})"
    );
    host.close().await;
    c.assert_json_logs_without_payloads();
}

fn deploy(path: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../deploy")
        .join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn yaml_docs(path: &str) -> Vec<yaml_rust2::Yaml> {
    yaml_rust2::YamlLoader::load_from_str(&deploy(path))
        .unwrap_or_else(|e| panic!("deploy/{path} is not valid YAML: {e}"))
}

#[test]
fn the_deploy_files_parse_and_nginx_accepts_the_config() {
    // nginx -t on the compose config (upstreams moved to loopback).
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("nginx.conf");
    std::fs::write(&conf, nginx_conf(dir.path(), free_port(), 1, 2)).unwrap();
    match Command::new("nginx")
        .arg("-t")
        .arg("-p")
        .arg(dir.path())
        .arg("-c")
        .arg(&conf)
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "nginx -t refused deploy/nginx/nginx.conf: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => missing("nginx", &e),
    }

    let compose = &yaml_docs("compose.yaml")[0];
    for s in ["redis", "relay1", "relay2", "nginx"] {
        assert!(!compose["services"][s].is_badvalue(), "compose lacks {s}");
    }
    let relay = &compose["x-relay"];
    assert_eq!(
        relay["environment"]["COHOST_RELAY_REDIS_URL"].as_str(),
        Some("redis://redis:6379/")
    );
    assert_eq!(
        compose["services"]["nginx"]["volumes"][0].as_str(),
        Some("./nginx/nginx.conf:/etc/nginx/nginx.conf:ro")
    );

    let docs = yaml_docs("k8s/relay.yaml");
    let kinds: Vec<_> = docs.iter().filter_map(|d| d["kind"].as_str()).collect();
    assert_eq!(kinds, ["Deployment", "Service"]);
    let pod = &docs[0]["spec"]["template"];
    let c = &pod["spec"]["containers"][0];
    assert_eq!(
        c["readinessProbe"]["httpGet"]["path"].as_str(),
        Some("/readyz")
    );
    assert_eq!(
        c["livenessProbe"]["httpGet"]["path"].as_str(),
        Some("/healthz")
    );
    assert_eq!(
        docs[1]["spec"]["selector"], pod["metadata"]["labels"],
        "the Service selects the Deployment's pods"
    );
    let redis = yaml_docs("k8s/redis.yaml");
    assert_eq!(redis[1]["metadata"]["name"].as_str(), Some("cohost-redis"));

    let unit = deploy("systemd/cohost-relay.service");
    for want in [
        "[Service]",
        "ExecStart=/usr/local/bin/cohost relay",
        "KillSignal=SIGTERM",
        "[Install]",
    ] {
        assert!(unit.contains(want), "the systemd unit lacks {want:?}");
    }
    let docker = deploy("Dockerfile");
    assert_eq!(
        docker.lines().filter(|l| l.starts_with("FROM ")).count(),
        2,
        "a multi-stage build"
    );
}
