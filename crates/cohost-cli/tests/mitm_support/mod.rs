//! A relay in the middle (issue 37): a proxy in front of a real `cohost
//! relay` that the host and the participants reach instead of it. Plain
//! HTTP (the admin API) passes through untouched; on a room's WebSocket it
//! decodes and logs every frame both ways, and a test can inject frames of
//! its own (forged, re-stamped, replayed) to any connection: what a
//! malicious relay operator can do, with a participant's keys if the test
//! gives it some, and drop the frames a rule names.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use cohost_protocol::Frame;
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::Role as WsRole;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

/// Which way a frame was going.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leg {
    /// From a client to the relay (not yet stamped).
    ToRelay,
    /// From the relay to a client (stamped by the relay).
    ToClient,
}

/// The test's verdict on one frame: `true` drops it.
pub type DropRule = Box<dyn FnMut(Leg, usize, &Frame) -> bool + Send>;

#[derive(Default)]
struct State {
    /// Frames for which this says `true` are never delivered.
    drop: Option<DropRule>,
    /// Every frame seen, in order.
    log: Vec<(Leg, usize, Frame)>,
    /// A sender towards each client connection, by index.
    to_client: Vec<mpsc::UnboundedSender<Frame>>,
    /// The real relay.
    relay: Option<SocketAddr>,
}

/// The proxy; it stops with the process (tests are short).
pub struct Mitm {
    /// Where clients connect instead of the relay.
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
}

impl Mitm {
    /// A proxy on 127.0.0.1 (port 0), running on a thread of its own
    /// (usable from synchronous tests); it forwards nothing until
    /// [`Mitm::forward_to`] names the relay (which is started knowing the
    /// proxy's address, to write it into its invites).
    pub fn bind() -> Mitm {
        let state = Arc::new(Mutex::new(State::default()));
        let (tx, rx) = std::sync::mpsc::channel();
        let shared = state.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap()).unwrap();
                loop {
                    let Ok((tcp, _)) = listener.accept().await else {
                        return;
                    };
                    tokio::spawn(connection(tcp, shared.clone()));
                }
            });
        });
        let addr = rx.recv().expect("the proxy starts");
        Mitm { addr, state }
    }

    /// Forward to the relay at `relay` (`host:port`).
    pub fn forward_to(&self, relay: &str) {
        self.state.lock().unwrap().relay = Some(relay.parse().expect("the relay's address"));
    }

    /// Drop every frame `rule` says `true` to, from now on.
    pub fn drop_when(&self, rule: impl FnMut(Leg, usize, &Frame) -> bool + Send + 'static) {
        self.state.lock().unwrap().drop = Some(Box::new(rule));
    }

    /// Every frame seen so far.
    pub fn log(&self) -> Vec<(Leg, usize, Frame)> {
        self.state.lock().unwrap().log.clone()
    }

    /// Deliver `frame` to client connection `conn` as if the relay sent it.
    pub fn inject(&self, conn: usize, frame: Frame) {
        let state = self.state.lock().unwrap();
        state.to_client[conn]
            .send(frame)
            .expect("the connection is open");
    }

    /// The index of the first connection the relay welcomed with `role`
    /// (its `room.welcome` names the role), waiting up to `within`.
    pub fn conn_of(&self, role: cohost_protocol::Role, within: std::time::Duration) -> usize {
        let start = std::time::Instant::now();
        loop {
            let found = self.log().into_iter().find_map(|(leg, conn, f)| {
                let w: cohost_protocol::Welcome = (leg == Leg::ToClient
                    && f.kind() == cohost_protocol::FrameType::RoomWelcome)
                    .then(|| f.control().ok())??;
                (w.you.role == role).then_some(conn)
            });
            if let Some(conn) = found {
                return conn;
            }
            assert!(
                start.elapsed() < within,
                "no {role:?} connection came; frames seen: {:?}",
                self.log()
                    .iter()
                    .map(|(leg, conn, f)| (*leg, *conn, f.kind(), f.role()))
                    .collect::<Vec<_>>()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// One client connection: HTTP passes through; a WebSocket upgrade is
/// forwarded as bytes, then both sides are read frame by frame.
async fn connection(mut client: TcpStream, state: Arc<Mutex<State>>) {
    let relay = state.lock().unwrap().relay;
    let Some(relay) = relay else {
        return;
    };
    let Ok(mut upstream) = TcpStream::connect(relay).await else {
        return;
    };
    let Some(head) = read_head(&mut client).await else {
        return;
    };
    let websocket = String::from_utf8_lossy(&head)
        .to_ascii_lowercase()
        .contains("upgrade: websocket");
    if upstream.write_all(&head).await.is_err() {
        return;
    }
    if !websocket {
        let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
        return;
    }
    let Some(answer) = read_head(&mut upstream).await else {
        return;
    };
    if client.write_all(&answer).await.is_err() || !answer.starts_with(b"HTTP/1.1 101") {
        return;
    }
    let client = WebSocketStream::from_raw_socket(client, WsRole::Server, None).await;
    let upstream = WebSocketStream::from_raw_socket(upstream, WsRole::Client, None).await;
    let (mut client_tx, mut client_rx) = client.split();
    let (mut relay_tx, mut relay_rx) = upstream.split();
    let (inject_tx, mut inject_rx) = mpsc::unbounded_channel::<Frame>();
    let conn = {
        let mut s = state.lock().unwrap();
        s.to_client.push(inject_tx.clone());
        s.to_client.len() - 1
    };
    // Towards the client: the relay's frames and injected ones.
    let down = {
        let state = state.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    m = relay_rx.next() => match m {
                        Some(Ok(Message::Binary(b))) => {
                            if let Ok(f) = Frame::decode(b.clone()) {
                                if note(&state, Leg::ToClient, conn, &f) {
                                    let _ = inject_tx.send(f);
                                }
                            } else if client_tx.send(Message::Binary(b)).await.is_err() {
                                return;
                            }
                        }
                        Some(Ok(Message::Close(c))) => {
                            let _ = client_tx.send(Message::Close(c)).await;
                            return;
                        }
                        Some(Ok(other)) => {
                            if client_tx.send(other).await.is_err() {
                                return;
                            }
                        }
                        _ => return,
                    },
                    Some(f) = inject_rx.recv() => {
                        if client_tx.send(Message::Binary(f.bytes().clone())).await.is_err() {
                            return;
                        }
                    }
                }
            }
        })
    };
    // Towards the relay.
    while let Some(Ok(m)) = client_rx.next().await {
        let m = match m {
            Message::Binary(b) => match Frame::decode(b.clone()) {
                Ok(f) if !note(&state, Leg::ToRelay, conn, &f) => continue,
                _ => Message::Binary(b),
            },
            other => other,
        };
        if relay_tx.send(m).await.is_err() {
            break;
        }
    }
    let _ = relay_tx.close().await;
    down.abort();
}

/// Log the frame; whether it goes on.
fn note(state: &Mutex<State>, leg: Leg, conn: usize, f: &Frame) -> bool {
    let mut s = state.lock().unwrap();
    s.log.push((leg, conn, f.clone()));
    !s.drop.as_mut().is_some_and(|rule| rule(leg, conn, f))
}

/// An HTTP head, up to and with its blank line, read a byte at a time so
/// nothing after it is taken from the stream.
async fn read_head(s: &mut TcpStream) -> Option<Vec<u8>> {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > 64 * 1024 {
            return None;
        }
        head.push(s.read_u8().await.ok()?);
    }
    Some(head)
}
