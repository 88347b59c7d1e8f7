//! Cross-node latency through Redis, and the Node.js `ws` broadcast baseline.

use std::process::Command;
use std::time::{Duration, Instant};

use cohost_protocol::Role;
use cohost_relay::auth::TokenAuthority;
use futures::StreamExt;

use crate::{fanout, load, tok, url, Server};

pub async fn redis_latency(auth: &TokenAuthority) {
    let Some(redis) = crate::redis_server::redis().await else {
        return;
    };
    let srv = Server::relay(&["redis", &redis.url]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let room = "x";
    let mut viewers = Vec::new();
    for _ in 0..10 {
        viewers.push(
            load::connect(
                &url(&srv.addrs[1], room),
                Some(&tok(auth, room, Role::Viewer)),
                Some(room),
            )
            .await,
        );
    }
    let host = load::connect(
        &url(&srv.addrs[0], room),
        Some(&tok(auth, room, Role::Host)),
        None,
    )
    .await;
    let (mut htx, mut hrx) = host.split();
    tokio::spawn(async move { while let Some(Ok(_)) = hrx.next().await {} });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let base = Instant::now();
    let tasks: Vec<_> = viewers
        .into_iter()
        .map(|v| tokio::spawn(load::receive(v, base, 200)))
        .collect();
    load::send_paced(&mut htx, room, "x", 1000.0, 3000, 64, base).await;
    let mut lat = Vec::new();
    for t in tasks {
        lat.extend(t.await.expect("recv").1.latencies_us);
    }
    lat.sort_unstable();
    println!(
        "redis cross-node: host on node A, 10 viewers on node B, 1000 frames/s: {} deliveries, p50 {:.2} ms, p99 {:.2} ms, p99.9 {:.2} ms (target p99 <= 10 ms)",
        lat.len(),
        load::pct(&lat, 50.0),
        load::pct(&lat, 99.0),
        load::pct(&lat, 99.9)
    );
    drop(srv);
    drop(redis);
}

pub async fn baseline(relay_results: &[(f64, f64, f64)]) {
    let dir = tempfile::tempdir().expect("tmp");
    let ok = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
        .arg(dir.path())
        .arg("ws@8")
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        println!("baseline: SKIPPED (npm install ws failed or node missing)");
        return;
    }
    let js = dir.path().join("server.js");
    std::fs::write(
        &js,
        "const { WebSocketServer } = require('ws');\n\
         const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });\n\
         wss.on('listening', () => console.log('READY 127.0.0.1:' + wss.address().port));\n\
         wss.on('connection', (ws) => { ws.on('message', (data, isBinary) => {\n\
           for (const c of wss.clients) if (c !== ws && c.readyState === 1) c.send(data, { binary: isBinary });\n\
         }); });\n",
    )
    .expect("write js");
    let mut cmd = Command::new("taskset");
    cmd.arg("-c")
        .arg("0")
        .arg("node")
        .arg(&js)
        .env("NODE_PATH", dir.path().join("node_modules"));
    let srv = Server::start(&mut cmd);
    let node = fanout(
        &srv.addrs[0],
        &srv.addrs[0],
        None,
        "node ws",
        srv.child.id(),
    )
    .await;
    drop(srv);
    let raw = Server::relay(&["raw"]);
    let floor = fanout(
        &raw.addrs[0],
        &raw.addrs[0],
        None,
        "machine floor",
        raw.child.id(),
    )
    .await;
    drop(raw);
    for (((r, rp99, rns), (n, np99, nns)), (f, fp99, fns)) in
        relay_results.iter().zip(node.iter()).zip(floor.iter())
    {
        println!(
            "baseline ratio: delivered relay/node {:.2}x ({r:.0}/s vs {n:.0}/s), relay/floor {:.2}x ({f:.0}/s); server CPU per delivery node/relay {:.2}x, relay/floor {:.2}x ({rns:.0} ns vs node {nns:.0} ns, floor {fns:.0} ns); p99 relay {rp99:.2} ms, node {np99:.2} ms, floor {fp99:.2} ms",
            r / n,
            r / f,
            nns / rns,
            rns / fns,
        );
    }
    // Throughput at equal latency: the most each delivered with p99 within a
    // budget both can meet: 25 ms, or Node's best p99 when it never got there.
    let node_best_p99 = node.iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
    let budget = node_best_p99.max(25.0);
    let best = |v: &[(f64, f64, f64)]| {
        v.iter()
            .filter(|x| x.1 <= budget)
            .map(|x| x.0)
            .fold(0.0f64, f64::max)
    };
    let node_max = node.iter().map(|x| x.0).fold(0.0f64, f64::max);
    println!(
        "baseline at equal p99 (<= {budget:.1} ms): relay {:.0}/s, node {:.0}/s = {:.2}x; relay vs node's best at any latency ({node_max:.0}/s) = {:.2}x",
        best(relay_results),
        best(&node),
        best(relay_results) / best(&node).max(1.0),
        best(relay_results) / node_max.max(1.0),
    );
}
