//! The machine's floor for WebSocket fan-out: the least work any relay must do.
//!
//! A broadcast server with nothing but the unavoidable parts: after the
//! handshake, each incoming client frame is unmasked, re-framed once, and
//! written with one non-blocking `write` per other connection, inline, from
//! the reading task. No auth, no queues, no per-connection tasks, no replay.
//! Whatever latency it shows at a rate is what this machine's loopback TCP
//! stack (and the load client) cost; a relay cannot beat it, only approach it.

use std::cell::RefCell;
use std::rc::Rc;

use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::http::HeaderValue;

type Peers = Rc<RefCell<Vec<(u64, Rc<TcpStream>)>>>;

/// Runs the floor server on the current thread; prints `READY <addr>`.
pub async fn serve() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    println!("READY {}", listener.local_addr().expect("addr"));
    let peers: Peers = Rc::default();
    let local = tokio::task::LocalSet::new();
    local
        .run_until(async move {
            let mut next = 0u64;
            while let Ok((tcp, _)) = listener.accept().await {
                next += 1;
                tokio::task::spawn_local(connection(next, tcp, peers.clone()));
            }
        })
        .await;
}

// The handshake callback's Result type is tungstenite's, not ours.
#[allow(clippy::result_large_err)]
async fn connection(id: u64, tcp: TcpStream, peers: Peers) {
    let _nodelay = tcp.set_nodelay(true);
    let echo_protocol = |req: &Request, mut resp: Response| {
        let first = req
            .headers()
            .get("sec-websocket-protocol")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .map(|p| p.trim().to_string());
        if let Some(p) = first.and_then(|p| HeaderValue::from_str(&p).ok()) {
            resp.headers_mut().insert("sec-websocket-protocol", p);
        }
        Ok(resp)
    };
    let Ok(ws) = tokio_tungstenite::accept_hdr_async(tcp, echo_protocol).await else {
        return;
    };
    // The client sends nothing before it hears from us, so tungstenite holds no
    // buffered bytes: the raw socket can take over from here.
    let tcp = Rc::new(ws.into_inner());
    peers.borrow_mut().push((id, tcp.clone()));
    let mut inbuf: Vec<u8> = Vec::with_capacity(4096);
    let mut out = Vec::with_capacity(4096);
    'read: loop {
        if tcp.readable().await.is_err() {
            break;
        }
        let mut chunk = [0u8; 4096];
        match tcp.try_read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => inbuf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(_) => break,
        }
        while let Some((opcode, payload, used)) = parse_client_frame(&inbuf) {
            if opcode == 0x8 {
                break 'read;
            }
            if opcode == 0x2 {
                out.clear();
                server_frame(&payload, &mut out);
                for (pid, p) in peers.borrow().iter() {
                    // A short or refused write would corrupt that peer's stream;
                    // the bench then counts missing deliveries, which is fair.
                    if *pid != id {
                        let _written = p.try_write(&out);
                    }
                }
            }
            inbuf.drain(..used);
        }
    }
    peers.borrow_mut().retain(|(pid, _)| *pid != id);
}

/// One complete masked client frame at the start of `buf`: (opcode, payload, bytes used).
fn parse_client_frame(buf: &[u8]) -> Option<(u8, Vec<u8>, usize)> {
    if buf.len() < 2 {
        return None;
    }
    let opcode = buf[0] & 0x0f;
    let masked = buf[1] & 0x80 != 0;
    let (len, mut at) = match buf[1] & 0x7f {
        126 => (u16::from_be_bytes([*buf.get(2)?, *buf.get(3)?]) as usize, 4),
        127 => {
            let b: [u8; 8] = buf.get(2..10)?.try_into().ok()?;
            (u64::from_be_bytes(b) as usize, 10)
        }
        n => (n as usize, 2),
    };
    let mask: [u8; 4] = if masked {
        let m = buf.get(at..at + 4)?.try_into().ok()?;
        at += 4;
        m
    } else {
        [0; 4]
    };
    let body = buf.get(at..at + len)?;
    let payload = body
        .iter()
        .enumerate()
        .map(|(i, b)| b ^ mask[i % 4])
        .collect();
    Some((opcode, payload, at + len))
}

/// An unmasked binary server frame.
fn server_frame(payload: &[u8], out: &mut Vec<u8>) {
    out.push(0x82);
    match payload.len() {
        n if n < 126 => out.push(n as u8),
        n if n <= u16::MAX as usize => {
            out.push(126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(payload);
}
