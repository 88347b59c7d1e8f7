//! A tiny bounded HTTP/1.1 GET for model-server probes. Probes only talk
//! plain HTTP to a local endpoint and must never hang discovery, so a full
//! client (TLS, pools, redirects) would be weight without use.

use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Cap on what a probe reads; model lists are small.
const MAX_BODY: usize = 1 << 20;

/// Normalize an endpoint as users write it (`OLLAMA_HOST=0.0.0.0:11434`,
/// `localhost`, `http://host:port/`) into `(host, port)`. `https` endpoints
/// are not probed (`None`).
pub(crate) fn host_port(endpoint: &str, default_port: u16) -> Option<(String, u16)> {
    let rest = endpoint.trim();
    if rest.starts_with("https://") {
        return None;
    }
    let rest = rest.strip_prefix("http://").unwrap_or(rest);
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.is_empty() {
        return None;
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(':') && !p.contains(']') => (h, p.parse().ok()?),
        _ => (authority, default_port),
    };
    // A server bound to all interfaces is reached on loopback.
    let host = match host {
        "0.0.0.0" | "" => "127.0.0.1",
        "[::]" => "[::1]",
        h => h,
    };
    Some((host.to_string(), port))
}

/// `GET path` on `host:port` within `timeout`: the status code and body.
pub(crate) async fn get(
    host: &str,
    port: u16,
    path: &str,
    timeout: Duration,
) -> Option<(u16, String)> {
    tokio::time::timeout(timeout, get_inner(host, port, path))
        .await
        .ok()
        .flatten()
}

async fn get_inner(host: &str, port: u16, path: &str) -> Option<(u16, String)> {
    let addr = format!(
        "{}:{port}",
        host.trim_start_matches('[').trim_end_matches(']')
    );
    let mut stream = TcpStream::connect(addr).await.ok()?;
    let req = format!(
        "GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(req.as_bytes()).await.ok()?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 || buf.len() > MAX_BODY {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let text = String::from_utf8_lossy(&buf);
    let status: u16 = text.split_whitespace().nth(1)?.parse().ok()?;
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let chunked = head.lines().any(|l| {
        l.to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked")
    });
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_string()
    };
    Some((status, body))
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(rest.get(..n).unwrap_or_default());
        body = rest.get(n..).unwrap_or_default().trim_start_matches("\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_as_users_write_them() {
        let hp = |s| host_port(s, 11434);
        assert_eq!(hp("0.0.0.0:11434"), Some(("127.0.0.1".into(), 11434)));
        assert_eq!(hp("http://localhost:9/"), Some(("localhost".into(), 9)));
        assert_eq!(hp("127.0.0.1"), Some(("127.0.0.1".into(), 11434)));
        assert_eq!(hp("[::1]:8080"), Some(("[::1]".into(), 8080)));
        assert_eq!(hp("https://remote"), None);
        assert_eq!(hp(""), None);
    }

    #[test]
    fn chunked_bodies() {
        assert_eq!(dechunk("4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n"), "Wikipedia");
    }
}
