//! A real redis-server for tests: started on a free loopback port in a temp
//! dir (or `COHOST_TEST_REDIS_URL`). Without redis-server: `None` and a loud
//! notice, or a panic when `CI` is set.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub struct RedisServer {
    pub url: String,
    child: Option<Child>,
    _dir: Option<tempfile::TempDir>,
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        if let Some(c) = self.child.as_mut() {
            let _killed = c.kill();
            let _reaped = c.wait();
        }
    }
}

pub async fn redis() -> Option<RedisServer> {
    if let Ok(url) = std::env::var("COHOST_TEST_REDIS_URL") {
        return Some(RedisServer {
            url,
            child: None,
            _dir: None,
        });
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .arg("--dir")
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => {
            if std::env::var_os("CI").is_some() {
                panic!("redis-server is required in CI (apt-get install -y redis-server): {e}");
            }
            eprintln!("\n!!!!!!!! SKIPPING a Redis test: redis-server not found ({e}); install redis-server or set COHOST_TEST_REDIS_URL !!!!!!!!\n");
            return None;
        }
    };
    let url = format!("redis://127.0.0.1:{port}/");
    let server = RedisServer {
        url: url.clone(),
        child: Some(child),
        _dir: Some(dir),
    };
    for _ in 0..100 {
        if ping(port).await {
            return Some(server);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("redis-server did not start on port {port}");
}

/// Whether a Redis answers PING on the loopback `port` (raw RESP, so this
/// helper needs no Redis client crate).
async fn ping(port: u16) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Ok(mut s) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await else {
        return false;
    };
    let mut buf = [0u8; 7];
    s.write_all(b"PING\r\n").await.is_ok()
        && s.read_exact(&mut buf).await.is_ok()
        && &buf == b"+PONG\r\n"
}
