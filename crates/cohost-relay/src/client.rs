//! Library WebSocket client: connects with a room token (in `Sec-WebSocket-Protocol`,
//! never in the URL), sends and receives typed frames, reconnects with backoff and
//! resumes by last chunk index per stream (duplicates from replay are dropped).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use cohost_protocol::{
    ErrorPayload, Frame, FrameType, Invite, Resume, Resync, RoomId, Welcome, SUBPROTOCOL,
    TOKEN_SUBPROTOCOL_PREFIX,
};
use futures::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::order::{Arrival, Step, StreamOrder, GAP_WAIT};

// Beside the relay's own errors, so TLS setup (`tls.rs`) can return it
// without depending on the client.
pub use crate::error::ClientError;

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How to reach a room.
#[derive(Clone)]
pub struct ClientConfig {
    /// `ws://host:port/v1/rooms/<room>/ws` (no query).
    pub url: String,
    /// Room id.
    pub room: String,
    /// Room token (JWT).
    pub token: String,
    /// `Origin` header to send (browsers do; CLIs normally do not).
    pub origin: Option<String>,
    /// Reconnect after a dropped connection.
    pub reconnect: bool,
    /// First reconnect delay; doubles up to `max_backoff`.
    pub initial_backoff: Duration,
    /// Longest reconnect delay.
    pub max_backoff: Duration,
    /// Extra CA certificates (PEM) trusted for `wss://`, besides the system's.
    pub ca_file: Option<std::path::PathBuf>,
}

impl ClientConfig {
    /// Config for an invite string's relay, room and token.
    pub fn from_invite(invite: &Invite) -> ClientConfig {
        ClientConfig {
            url: invite.ws_url(),
            room: invite.room.clone(),
            token: invite.token.clone(),
            origin: None,
            reconnect: true,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
            ca_file: None,
        }
    }
}

impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("url", &self.url)
            .field("room", &self.room)
            .field("token", &"<redacted>")
            .finish()
    }
}

/// What the client hands to the application.
#[derive(Debug)]
pub enum ClientEvent {
    /// Connected (or reconnected) and authenticated.
    Welcome(Welcome),
    /// An application, presence or pong frame (stream frames deduplicated, in order).
    Frame(Frame),
    /// The relay could not replay some streams; ask the host for a snapshot.
    Resync(Resync),
    /// A stream chunk that was reported [`ClientEvent::Missing`] and came
    /// after all: placed by its chunk index, not in order.
    Late(Frame),
    /// Chunks `from..=to` of `stream` never came, though the relay was asked
    /// for them again: the stream goes on without them (said, never silent).
    Missing {
        /// The stream.
        stream: String,
        /// First missing chunk index.
        from: u64,
        /// Last missing chunk index.
        to: u64,
    },
    /// The relay refused something this client sent.
    Error(ErrorPayload),
    /// The connection dropped; the client is reconnecting.
    Disconnected {
        /// What happened.
        reason: String,
    },
    /// The client stopped for good (room closed, auth refused, or `close`).
    Closed {
        /// Why.
        reason: String,
    },
}

enum Cmd {
    Send(Bytes),
    /// Forget what was received of a stream after this chunk and ask the
    /// relay to replay from there.
    Resume(String, Option<u64>),
    DropConnection,
    Close,
}

/// A connection to one room.
pub struct RelayClient {
    cmd: mpsc::Sender<Cmd>,
    events: mpsc::Receiver<ClientEvent>,
    room: RoomId,
    duplicates: Arc<AtomicU64>,
}

async fn dial(cfg: &ClientConfig) -> Result<Ws, ClientError> {
    if cfg.url.contains('?') {
        return Err(ClientError::Url(cfg.url.clone()));
    }
    let mut req = cfg
        .url
        .as_str()
        .into_client_request()
        .map_err(|_| ClientError::Url(cfg.url.clone()))?;
    let protocols = format!("{SUBPROTOCOL}, {TOKEN_SUBPROTOCOL_PREFIX}{}", cfg.token);
    let v = HeaderValue::from_str(&protocols)
        .map_err(|_| ClientError::Url("token has invalid characters".into()))?;
    req.headers_mut().insert("sec-websocket-protocol", v);
    if let Some(o) = &cfg.origin {
        if let Ok(v) = HeaderValue::from_str(o) {
            req.headers_mut().insert("origin", v);
        }
    }
    let connector = if cfg.url.starts_with("wss://") {
        Some(tokio_tungstenite::Connector::Rustls(
            crate::tls::client_config(cfg.ca_file.as_deref())?,
        ))
    } else {
        None
    };
    match tokio_tungstenite::connect_async_tls_with_config(req, None, false, connector).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err(ClientError::Refused {
            status: resp.status().as_u16(),
            body: resp
                .body()
                .as_ref()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default(),
        }),
        Err(e) => Err(match crate::cert_problem(&e) {
            Some(problem) => ClientError::Certificate { problem },
            None => ClientError::Io(e.to_string()),
        }),
    }
}

impl RelayClient {
    /// Connects once (returning the relay's refusal if any), then keeps the
    /// connection alive in a background task.
    pub async fn connect(cfg: ClientConfig) -> Result<RelayClient, ClientError> {
        let room = RoomId::new(&cfg.room)?;
        let ws = dial(&cfg).await?;
        let (cmd_tx, cmd_rx) = mpsc::channel(1024);
        let (ev_tx, ev_rx) = mpsc::channel(4096);
        let duplicates = Arc::new(AtomicU64::new(0));
        tokio::spawn(drive(cfg, ws, cmd_rx, ev_tx, duplicates.clone()));
        Ok(RelayClient {
            cmd: cmd_tx,
            events: ev_rx,
            room,
            duplicates,
        })
    }

    /// Connects using a pasted invite string.
    pub async fn connect_invite(invite: &str) -> Result<RelayClient, ClientError> {
        let inv = Invite::parse(invite).map_err(|e| ClientError::Url(e.to_string()))?;
        RelayClient::connect(ClientConfig::from_invite(&inv)).await
    }

    /// The room id.
    pub fn room(&self) -> &str {
        self.room.as_str()
    }

    /// The room id, validated when the client connected.
    pub fn room_id(&self) -> &RoomId {
        &self.room
    }

    /// Sends an encoded frame (queued while reconnecting).
    pub async fn send(&self, frame: &Frame) -> Result<(), ClientError> {
        self.cmd
            .send(Cmd::Send(frame.bytes().clone()))
            .await
            .map_err(|_| ClientError::Closed)
    }

    /// Builds and sends a frame in this client's room.
    pub async fn send_new(
        &self,
        kind: FrameType,
        stream: Option<&str>,
        chunk: u64,
        payload: &[u8],
    ) -> Result<(), ClientError> {
        let f = Frame::build(kind, self.room.as_str(), stream, chunk, payload)?;
        self.send(&f).await
    }

    /// Stream chunks the relay sent again that were held already, refused
    /// (a gap asked for twice brings some; a relay replaying on its own,
    /// more).
    pub fn duplicates(&self) -> u64 {
        self.duplicates.load(Ordering::Relaxed)
    }

    /// The next event; `None` after `Closed`.
    pub async fn recv(&mut self) -> Option<ClientEvent> {
        self.events.recv().await
    }

    /// Asks the relay to replay `stream` after `last_good` (from its start
    /// for `None`): for a frame the application could not open, so the
    /// replay does not count as a duplicate.
    pub async fn resume_from(&self, stream: &str, last_good: Option<u64>) {
        let _queued = self
            .cmd
            .send(Cmd::Resume(stream.to_string(), last_good))
            .await;
    }

    /// Drops the network connection without closing the client (it reconnects
    /// and resumes). Useful to test resumption.
    pub async fn drop_connection(&self) {
        let _queued = self.cmd.send(Cmd::DropConnection).await;
    }

    /// Closes the connection for good.
    pub async fn close(&self) {
        let _queued = self.cmd.send(Cmd::Close).await;
    }
}

enum Ended {
    Dropped(String),
    /// The relay closed with 1001 (a node draining): reconnect at once,
    /// with jitter only, so the load balancer moves everyone to another node.
    GoingAway(String),
    Stop(String),
}

/// Close code a draining relay node sends.
const GOING_AWAY: u16 = 1001;

async fn session(
    ws: &mut Ws,
    room: &str,
    order: &mut StreamOrder,
    cmd: &mut mpsc::Receiver<Cmd>,
    ev: &mpsc::Sender<ClientEvent>,
    unsent: &mut std::collections::VecDeque<Bytes>,
    duplicates: &AtomicU64,
) -> Ended {
    order.reconnected();
    let resume = |streams: &BTreeMap<String, u64>| {
        Frame::control_frame(
            FrameType::RoomResume,
            room,
            None,
            &Resume {
                streams: streams.clone(),
            },
        )
        .map(|f| Message::Binary(f.bytes().clone()))
    };
    if let Ok(m) = resume(order.held()) {
        if ws.send(m).await.is_err() {
            return Ended::Dropped("send failed".into());
        }
    }
    // Frames a dropped connection could not take go first, in order.
    while let Some(b) = unsent.pop_front() {
        if let Err(e) = ws.send(Message::Binary(b.clone())).await {
            unsent.push_front(b);
            return Ended::Dropped(e.to_string());
        }
    }
    let mut tick = tokio::time::interval(GAP_WAIT / 4);
    loop {
        tokio::select! {
            _ = tick.tick(), if order.waiting() => {
                for step in order.due(tokio::time::Instant::now()) {
                    if let Step::Missing { stream, from, to } = step {
                        let missing = ClientEvent::Missing { stream, from, to };
                        if ev.send(missing).await.is_err() {
                            return Ended::Stop("application dropped the client".into());
                        }
                    }
                    if let Ok(m) = resume(order.held()) {
                        if ws.send(m).await.is_err() {
                            return Ended::Dropped("send failed".into());
                        }
                    }
                }
            }
            c = cmd.recv() => match c {
                Some(Cmd::Send(b)) => {
                    if let Err(e) = ws.send(Message::Binary(b.clone())).await {
                        unsent.push_back(b);
                        return Ended::Dropped(e.to_string());
                    }
                }
                Some(Cmd::Resume(stream, last_good)) => {
                    let named = order.resume_from(&stream, last_good);
                    if let Ok(m) = resume(&named) {
                        if let Err(e) = ws.send(m).await {
                            return Ended::Dropped(e.to_string());
                        }
                    }
                }
                Some(Cmd::DropConnection) => return Ended::Dropped("dropped on request".into()),
                Some(Cmd::Close) | None => {
                    let _closed = ws.close(None).await;
                    return Ended::Stop("closed by client".into());
                }
            },
            m = ws.next() => {
                let b = match m {
                    Some(Ok(Message::Binary(b))) => b,
                    Some(Ok(Message::Close(c))) => {
                        let code = c.as_ref().map(|c| u16::from(c.code));
                        let reason = c.map(|c| c.reason.to_string()).unwrap_or_default();
                        return if reason.contains("room closed") {
                            Ended::Stop(reason)
                        } else if code == Some(GOING_AWAY) {
                            Ended::GoingAway(reason)
                        } else {
                            Ended::Dropped(reason)
                        };
                    }
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => return Ended::Dropped(e.to_string()),
                    None => return Ended::Dropped("connection closed".into()),
                };
                let Ok(f) = Frame::decode(b) else { continue };
                let out = match f.kind() {
                    FrameType::RoomWelcome => f.control().ok().map(ClientEvent::Welcome),
                    FrameType::RoomResync => f.control::<Resync>().ok().map(|r| {
                        // What the relay no longer holds is gone: take the
                        // stream up again at whatever comes next.
                        order.resynced(&r.streams);
                        ClientEvent::Resync(r)
                    }),
                    FrameType::RoomError => f.control().ok().map(ClientEvent::Error),
                    FrameType::RoomGap => {
                        if let Ok(m) = resume(order.held()) {
                            if ws.send(m).await.is_err() {
                                return Ended::Dropped("send failed".into());
                            }
                        }
                        None
                    }
                    k if k.is_replayable() => {
                        let s = f.stream().unwrap_or("");
                        match order.arrive(s, f.chunk(), tokio::time::Instant::now()) {
                            Arrival::Deliver => Some(ClientEvent::Frame(f)),
                            Arrival::Late => Some(ClientEvent::Late(f)),
                            Arrival::Duplicate => {
                                duplicates.store(order.duplicates(), Ordering::Relaxed);
                                None
                            }
                            // A chunk never came (dropped on the way, or a
                            // replay is on its way): what arrives past it
                            // comes again with the relay's replay.
                            Arrival::Held { ask } => {
                                if ask {
                                    if let Ok(m) = resume(order.held()) {
                                        if ws.send(m).await.is_err() {
                                            return Ended::Dropped("send failed".into());
                                        }
                                    }
                                }
                                None
                            }
                        }
                    }
                    FrameType::RoomClose => {
                        let _sent = ev.send(ClientEvent::Frame(f)).await;
                        return Ended::Stop("room closed by host".into());
                    }
                    _ => Some(ClientEvent::Frame(f)),
                };
                if let Some(e) = out {
                    if ev.send(e).await.is_err() {
                        return Ended::Stop("application dropped the client".into());
                    }
                }
            }
        }
    }
}

async fn drive(
    cfg: ClientConfig,
    ws: Ws,
    mut cmd: mpsc::Receiver<Cmd>,
    ev: mpsc::Sender<ClientEvent>,
    duplicates: Arc<AtomicU64>,
) {
    let mut order = StreamOrder::new();
    let mut unsent = std::collections::VecDeque::new();
    let mut ws = Some(ws);
    let mut backoff = cfg.initial_backoff;
    loop {
        let mut at_once = false;
        if let Some(mut s) = ws.take() {
            let (reason, going_away) = match session(
                &mut s,
                &cfg.room,
                &mut order,
                &mut cmd,
                &ev,
                &mut unsent,
                &duplicates,
            )
            .await
            {
                Ended::Stop(reason) => {
                    let _sent = ev.send(ClientEvent::Closed { reason }).await;
                    return;
                }
                Ended::Dropped(reason) => (reason, false),
                Ended::GoingAway(reason) => (reason, true),
            };
            if !cfg.reconnect {
                let _sent = ev.send(ClientEvent::Closed { reason }).await;
                return;
            }
            let _sent = ev.send(ClientEvent::Disconnected { reason }).await;
            backoff = cfg.initial_backoff;
            at_once = going_away;
        }
        let mut j = [0u8; 2];
        let _ = getrandom::fill(&mut j);
        let jitter = u32::from(u16::from_be_bytes(j));
        // After a 1001 only a random spread in [0, initial backoff), so a
        // drained node's clients do not all land on the next one at once.
        let wait = if at_once {
            cfg.initial_backoff * jitter / 65_536
        } else {
            backoff + backoff * jitter / 262_144
        };
        tokio::time::sleep(wait).await;
        if !at_once {
            backoff = (backoff * 2).min(cfg.max_backoff);
        }
        match dial(&cfg).await {
            Ok(s) => ws = Some(s),
            Err(ClientError::Refused { status, body }) if status == 401 || status == 403 => {
                let _sent = ev
                    .send(ClientEvent::Closed {
                        reason: format!("relay refused ({status}): {body}"),
                    })
                    .await;
                return;
            }
            Err(e) => tracing::debug!(error = %e, "reconnect failed; retrying"),
        }
    }
}
