//! A long-lived `cohost serve` before and after N sessions of the tree
//! plugin: open fds, RSS, child processes and marked processes left.

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use cohost_agents::process::procfs::live_with_env;

use crate::orphans_support::{exit_within, signal, wait_for, MARK_VAR};
use crate::rigs::{Agent, Rigs};

fn fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count())
}

/// What the open fds are, by kind (`socket`, `pipe`, `anon_inode:[eventpoll]`, a path).
fn fd_kinds(pid: u32) -> std::collections::BTreeMap<String, usize> {
    let mut kinds = std::collections::BTreeMap::new();
    if let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/fd")) {
        for e in dir.flatten() {
            let target = std::fs::read_link(e.path())
                .map(|t| t.display().to_string())
                .unwrap_or_default();
            let kind = target.split(":[").next().unwrap_or_default().to_string();
            *kinds.entry(kind).or_insert(0) += 1;
        }
    }
    kinds
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Live (non-zombie) children of `pid`.
fn children(pid: u32) -> usize {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                let rest = s.get(s.rfind(')').map_or(0, |i| i + 1)..).unwrap_or("");
                let mut f = rest.split_whitespace();
                let state = f.next().unwrap_or("Z");
                f.next() == Some(pid.to_string().as_str()) && state != "Z"
            })
        })
        .count()
}

/// One session: create, prompt, wait until its turn's processes came and
/// went, delete.
async fn session(http: &reqwest::Client, base: &str, rigs: &Rigs) -> Result<(), String> {
    let marker = &rigs.tree.marker;
    let created: serde_json::Value = http
        .post(format!("{base}/api/sessions"))
        .json(&serde_json::json!({
            "provider": "tree",
            "cwd": rigs.tree.dir.path(),
            "approval": "auto_approve",
        }))
        .send()
        .await
        .map_err(|e| e.to_string())?
        .json()
        .await
        .map_err(|e| e.to_string())?;
    let id = created["id"]
        .as_str()
        .ok_or_else(|| format!("no session id in {created}"))?
        .to_string();
    http.post(format!("{base}/api/sessions/{id}/prompt"))
        .json(&serde_json::json!({ "text": "quick" }))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let came = wait_for(Duration::from_secs(20), || {
        !live_with_env(MARK_VAR, marker).is_empty()
    });
    let went = wait_for(Duration::from_secs(5), || {
        live_with_env(MARK_VAR, marker).is_empty()
    });
    http.delete(format!("{base}/api/sessions/{id}"))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if came && !went {
        return Err("the turn's processes outlived it".into());
    }
    Ok(())
}

/// The server, killed if the soak itself fails half-way.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

pub async fn soak(rigs: &Rigs, n: usize) -> bool {
    let mut server = match rigs.command(Agent::Tree, &["serve", "--port", "0"]).spawn() {
        Ok(c) => Server(c),
        Err(e) => {
            println!("serve: cannot start: {e}");
            return false;
        }
    };
    let child = &mut server.0;
    let pid = child.id();
    // The banner: the address, then the file holding the API's bearer token.
    let (mut line, mut token_line) = (String::new(), String::new());
    if let Some(out) = child.stdout.take() {
        let mut out = BufReader::new(out);
        let _ = out.read_line(&mut line);
        let _ = out.read_line(&mut token_line);
    }
    // cohost shows the home directory as `~`; the tree rig's HOME is known.
    let home = rigs.tree.dir.path().join("home");
    let token = token_line
        .split_whitespace()
        .find_map(|w| match w.strip_prefix("~/") {
            Some(rest) => Some(home.join(rest)),
            None => w.starts_with('/').then(|| std::path::PathBuf::from(w)),
        })
        .and_then(|path| std::fs::read_to_string(path).ok())
        .map(|t| t.trim().to_string());
    let Some(token) = token else {
        println!("serve: no readable token file in {token_line:?}");
        let _ = child.kill();
        return false;
    };
    let Some(addr) = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .map(str::to_string)
    else {
        println!("serve: no address in {line:?}");
        let _ = child.kill();
        return false;
    };
    let client = || {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            reqwest::header::AUTHORIZATION,
            format!("Bearer {token}").parse().ok()?,
        );
        cohost_agents::http::client_builder()
            .default_headers(headers)
            .build()
            .ok()
    };
    let mut errors = Vec::new();
    // One warm-up session so lazily built state is in "before"; each phase
    // has its own client, dropped before measuring, so pooled keep-alive
    // connections are not counted as the server's.
    let Some(http) = client() else {
        println!("serve: no HTTP client");
        return false;
    };
    if let Err(e) = session(&http, &addr, rigs).await {
        errors.push(e);
    }
    drop(http);
    wait_for(Duration::from_secs(3), || children(pid) == 0);
    std::thread::sleep(Duration::from_millis(500));
    let (fd0, rss0) = (fds(pid), rss_kib(pid));
    let start = Instant::now();
    let Some(http) = client() else {
        return false;
    };
    for _ in 0..n {
        if let Err(e) = session(&http, &addr, rigs).await {
            errors.push(e);
        }
    }
    drop(http);
    // Sessions end asynchronously: give them a moment to let go.
    wait_for(Duration::from_secs(3), || {
        children(pid) == 0 && fds(pid) <= fd0
    });
    let (fd1, rss1, kids) = (fds(pid), rss_kib(pid), children(pid));
    if fd1 > fd0 {
        println!("serve: open fds after: {:?}", fd_kinds(pid));
    }
    let left = live_with_env(MARK_VAR, &rigs.tree.marker).len();
    println!(
        "serve: {n} sessions in {:.1} s; fds {fd0} -> {fd1}; RSS {rss0} KiB -> {rss1} KiB; \
         child processes left {kids}; marked processes left {left}; errors {}",
        start.elapsed().as_secs_f64(),
        errors.len()
    );
    for e in errors.iter().take(3) {
        println!("  serve error: {e}");
    }
    signal(pid, libc::SIGTERM);
    let _ = exit_within(child, Duration::from_secs(5));
    errors.is_empty() && kids == 0 && left == 0 && fd1 <= fd0 + 2
}
