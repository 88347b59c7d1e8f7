//! Shared helpers for relay integration tests: a relay on 127.0.0.1:0 and raw
//! WebSocket peers speaking the binary envelope.

use std::collections::BTreeMap;
use std::time::Duration;

use cohost_protocol::{Frame, FrameType, Resume, Role, SUBPROTOCOL, TOKEN_SUBPROTOCOL_PREFIX};
use cohost_relay::{Relay, RelayConfig, RelayHandle};
use futures::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub mod redis_server;

pub const SECRET: &[u8] = b"integration-test-secret-0123456789";
pub const WAIT: Duration = Duration::from_secs(10);

pub fn config() -> RelayConfig {
    RelayConfig {
        jwt_secret: Some(SECRET.to_vec()),
        admin_secret: Some("admin-test-secret-0123456789abcdef".into()),
        ..RelayConfig::default()
    }
}

pub async fn relay_with(f: impl FnOnce(&mut RelayConfig)) -> RelayHandle {
    let mut c = config();
    f(&mut c);
    Relay::bind(c).await.expect("relay binds on loopback")
}

pub async fn relay() -> RelayHandle {
    relay_with(|_| {}).await
}

/// A room and a token per role.
pub fn token(h: &RelayHandle, room: &str, role: Role, name: &str) -> String {
    h.mint_invite(room, role, 3600, name).expect("mint").token
}

pub struct Peer {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub room: String,
}

/// Connects with the token in Sec-WebSocket-Protocol. Err: (HTTP status, body).
pub async fn try_connect_url(
    url: &str,
    token: Option<&str>,
    origin: Option<&str>,
) -> Result<WebSocketStream<MaybeTlsStream<TcpStream>>, (u16, String)> {
    let mut req = url.into_client_request().expect("request");
    let protos = match token {
        Some(t) => format!("{SUBPROTOCOL}, {TOKEN_SUBPROTOCOL_PREFIX}{t}"),
        None => SUBPROTOCOL.to_string(),
    };
    req.headers_mut().insert(
        "sec-websocket-protocol",
        HeaderValue::from_str(&protos).expect("header"),
    );
    if let Some(o) = origin {
        req.headers_mut()
            .insert("origin", HeaderValue::from_str(o).expect("origin"));
    }
    match tokio_tungstenite::connect_async(req).await {
        Ok((ws, resp)) => {
            let proto = resp
                .headers()
                .get("sec-websocket-protocol")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            assert_eq!(proto, SUBPROTOCOL, "relay echoes only cohost.v1");
            Ok(ws)
        }
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err((
            r.status().as_u16(),
            r.body()
                .as_ref()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default(),
        )),
        Err(e) => Err((0, e.to_string())),
    }
}

pub async fn try_connect(h: &RelayHandle, room: &str, token: &str) -> Result<Peer, (u16, String)> {
    let ws = try_connect_url(&h.ws_url(room), Some(token), None).await?;
    Ok(Peer {
        ws,
        room: room.to_string(),
    })
}

/// Connects, waits for the welcome, and sends an empty resume so stream frames flow.
pub async fn join(h: &RelayHandle, room: &str, role: Role, name: &str) -> Peer {
    let t = token(h, room, role, name);
    let mut p = try_connect(h, room, &t).await.expect("connect");
    p.recv_kind(FrameType::RoomWelcome).await;
    p.resume(&BTreeMap::new()).await;
    p
}

impl Peer {
    pub async fn send_frame(&mut self, f: &Frame) {
        self.ws
            .send(Message::Binary(f.bytes().clone()))
            .await
            .expect("send");
    }

    pub async fn send(
        &mut self,
        kind: FrameType,
        stream: Option<&str>,
        chunk: u64,
        payload: &[u8],
    ) {
        let f = Frame::build(kind, &self.room, stream, chunk, payload).expect("build");
        self.send_frame(&f).await;
    }

    pub async fn resume(&mut self, last: &BTreeMap<String, u64>) {
        let f = Frame::control_frame(
            FrameType::RoomResume,
            &self.room,
            None,
            &Resume {
                streams: last.clone(),
            },
        )
        .expect("resume");
        self.send_frame(&f).await;
    }

    /// Next frame, or None on timeout / close.
    pub async fn next_within(&mut self, d: Duration) -> Option<Frame> {
        loop {
            match tokio::time::timeout(d, self.ws.next()).await {
                Ok(Some(Ok(Message::Binary(b)))) => {
                    return Some(Frame::decode(b).expect("relay sends valid frames"))
                }
                Ok(Some(Ok(Message::Close(_)))) | Ok(None) | Ok(Some(Err(_))) | Err(_) => {
                    return None
                }
                Ok(Some(Ok(_))) => continue,
            }
        }
    }

    pub async fn recv(&mut self) -> Frame {
        self.next_within(WAIT)
            .await
            .expect("a frame within the wait")
    }

    /// Skips frames until one of `kind` arrives.
    pub async fn recv_kind(&mut self, kind: FrameType) -> Frame {
        loop {
            let f = self.recv().await;
            if f.kind() == kind {
                return f;
            }
        }
    }

    /// Reads stream `stream` until chunk `last` arrives, the way a client
    /// does: chunks must come in order without holes, and on a `room.gap`
    /// it resumes from the last chunk it holds. Returns the number of gaps.
    pub async fn read_stream_to(&mut self, stream: &str, last: u64) -> usize {
        let mut have: Option<u64> = None;
        let mut gaps = 0;
        while have != Some(last) {
            let f = self.recv().await;
            match f.kind() {
                FrameType::StreamChunk if f.stream() == Some(stream) => {
                    assert_eq!(
                        f.chunk(),
                        have.map_or(0, |l| l + 1),
                        "chunks arrive in order without holes"
                    );
                    have = Some(f.chunk());
                }
                FrameType::RoomGap => {
                    gaps += 1;
                    let from = have.map(|l| BTreeMap::from([(stream.to_string(), l)]));
                    self.resume(&from.unwrap_or_default()).await;
                }
                FrameType::RoomResync => panic!("unexpected resync: {f:?}"),
                _ => {}
            }
        }
        gaps
    }

    /// Asserts no frame of `kind` arrives within `d`.
    pub async fn assert_no(&mut self, kind: FrameType, d: Duration) {
        let end = tokio::time::Instant::now() + d;
        while let Some(left) = end.checked_duration_since(tokio::time::Instant::now()) {
            match self.next_within(left).await {
                Some(f) => assert_ne!(f.kind(), kind, "unexpected {kind} frame: {f:?}"),
                None => return,
            }
        }
    }
}

/// base64url without padding (to forge tokens).
pub fn b64url(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..=c.len() {
            out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Sends one raw HTTP/1.1 request (with `Connection: close`); returns (status, body).
pub async fn http(addr: std::net::SocketAddr, request: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = TcpStream::connect(addr).await.expect("connect");
    s.write_all(request.as_bytes()).await.expect("write");
    let mut out = String::new();
    s.read_to_string(&mut out).await.expect("read");
    let status = out
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = out.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body)
}

/// Minimal HTTP/1.1 GET; returns (status, body).
pub async fn http_get(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
    http(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
    )
    .await
}

/// The value of one sample (`name` with its labels, as printed) in Prometheus text.
pub fn sample(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no sample {name} in:\n{text}"))
}
