//! Load-generating clients for the relay bench (raw envelope over tokio-tungstenite).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use cohost_protocol::{Frame, FrameType, Resume, SUBPROTOCOL, TOKEN_SUBPROTOCOL_PREFIX};
use futures::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Connects; with a token, waits for the welcome and (if `resume`) sends an empty resume.
pub async fn connect(url: &str, token: Option<&str>, resume_room: Option<&str>) -> Ws {
    let mut req = url.into_client_request().expect("url");
    let protos = match token {
        Some(t) => format!("{SUBPROTOCOL}, {TOKEN_SUBPROTOCOL_PREFIX}{t}"),
        None => SUBPROTOCOL.to_string(),
    };
    req.headers_mut().insert(
        "sec-websocket-protocol",
        HeaderValue::from_str(&protos).expect("hdr"),
    );
    let cfg = WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0);
    let (mut ws, _) = tokio_tungstenite::connect_async_with_config(req, Some(cfg), true)
        .await
        .expect("connect");
    if token.is_some() {
        loop {
            match ws.next().await {
                Some(Ok(Message::Binary(b))) => {
                    if Frame::decode(b).map(|f| f.kind()) == Ok(FrameType::RoomWelcome) {
                        break;
                    }
                }
                Some(Ok(_)) => {}
                other => panic!("no welcome: {other:?}"),
            }
        }
    }
    if let Some(room) = resume_room {
        let f = Frame::control_frame(
            FrameType::RoomResume,
            room,
            None,
            &Resume {
                streams: BTreeMap::new(),
            },
        )
        .expect("resume");
        ws.send(Message::Binary(f.bytes().clone()))
            .await
            .expect("send resume");
    }
    ws
}

/// What one receiver saw.
#[derive(Default)]
pub struct Seen {
    pub latencies_us: Vec<u32>,
    pub gaps: u64,
}

/// Reads stream chunks until `ai.stream.end`, recording latency from the
/// timestamp (µs since `base`) in the first 8 payload bytes.
pub async fn receive(mut ws: Ws, base: Instant, warmup: u64) -> (Ws, Seen) {
    let mut seen = Seen::default();
    while let Some(Ok(m)) = ws.next().await {
        let Message::Binary(b) = m else { continue };
        let Ok(f) = Frame::decode(b) else { continue };
        match f.kind() {
            FrameType::StreamChunk if f.chunk() >= warmup => {
                let p = f.payload();
                if p.len() >= 8 {
                    let mut t = [0u8; 8];
                    t.copy_from_slice(&p[..8]);
                    let sent = u64::from_be_bytes(t);
                    let now = base.elapsed().as_micros() as u64;
                    seen.latencies_us.push(now.saturating_sub(sent) as u32);
                }
            }
            FrameType::RoomGap => seen.gaps += 1,
            FrameType::StreamEnd => break,
            _ => {}
        }
    }
    (ws, seen)
}

/// Open-loop paced sender: frame k is due at start + k/rate, and carries its
/// *scheduled* time (no coordinated omission).
pub async fn send_paced<S>(
    ws: &mut S,
    room: &str,
    stream: &str,
    rate: f64,
    total: u64,
    payload_len: usize,
    base: Instant,
) where
    S: futures::Sink<Message> + Unpin,
    S::Error: std::fmt::Debug,
{
    let start = Instant::now() + Duration::from_millis(20);
    let mut payload = vec![0u8; payload_len.max(8)];
    for k in 0..total {
        let due = start + Duration::from_secs_f64(k as f64 / rate);
        tokio::time::sleep_until(due.into()).await;
        let sched = due.duration_since(base).as_micros() as u64;
        payload[..8].copy_from_slice(&sched.to_be_bytes());
        let f =
            Frame::build(FrameType::StreamChunk, room, Some(stream), k, &payload).expect("frame");
        ws.send(Message::Binary(f.bytes().clone()))
            .await
            .expect("send");
    }
    let end = Frame::build(FrameType::StreamEnd, room, Some(stream), total, b"").expect("end");
    ws.send(Message::Binary(end.bytes().clone()))
        .await
        .expect("send end");
}

/// p-th percentile (0..=100) of sorted values.
pub fn pct(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    f64::from(sorted[i.min(sorted.len() - 1)]) / 1000.0
}
