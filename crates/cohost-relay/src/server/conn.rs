//! One participant's connection after the upgrade: authentication, the
//! paced writer (write deadline, replay streaming) and the frame reader
//! (permissions, rate limits, refusal limits).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use cohost_protocol::{may_send, route, Claims, ErrorCode, Frame, FrameType, Kick, Resume, Route};
use futures::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;

use super::outbox::{CloseReason, Outbox};
use super::room::{Arriving, Conn, Room};
use super::socket::{first_frame_auth, Socket};
use super::state::RelayState;
use crate::limits::{max_frame, RateLimiter, Refusal, RefusalGuard};
use crate::metrics::add;

/// Longest the relay tries to send a Close frame or waits for the peer's.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// Counts a socket as unauthenticated until dropped.
struct Unauthenticated(Arc<crate::metrics::Metrics>);

impl Drop for Unauthenticated {
    fn drop(&mut self) {
        self.0.conns_unauthenticated.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A frame the relay did not accept, and what to tell the sender.
struct Refused {
    code: ErrorCode,
    message: String,
    kind: Option<FrameType>,
}

fn refused<T>(code: ErrorCode, message: String, kind: Option<FrameType>) -> Result<T, Refused> {
    Err(Refused {
        code,
        message,
        kind,
    })
}

/// How a batch write ended.
enum Wrote {
    Ok,
    /// The socket failed (peer gone).
    Broken,
    /// The reader stopped reading: deadline passed or the outbox overflowed.
    Stalled,
}

async fn write_batch(socket: &mut Socket, frames: std::collections::VecDeque<Bytes>) -> bool {
    for b in frames {
        if socket.feed(Message::Binary(b)).await.is_err() {
            return false;
        }
    }
    socket.flush().await.is_ok()
}

/// Writes a batch within the write deadline, giving up at once if the
/// outbox overflows meanwhile (the reader is not keeping up).
async fn write_bounded(
    socket: &mut Socket,
    outbox: &Outbox,
    frames: std::collections::VecDeque<Bytes>,
    deadline: Duration,
) -> Wrote {
    let write = write_batch(socket, frames);
    tokio::pin!(write);
    // Most batches fit the socket buffer at once: no timer for those.
    if let Some(ok) = futures::FutureExt::now_or_never(write.as_mut()) {
        return if ok { Wrote::Ok } else { Wrote::Broken };
    }
    tokio::select! {
        r = tokio::time::timeout(deadline, write) => match r {
            Ok(true) => Wrote::Ok,
            Ok(false) => Wrote::Broken,
            Err(_) => Wrote::Stalled,
        },
        _ = outbox.overflow.notified() => Wrote::Stalled,
    }
}

async fn send_close(socket: &mut Socket, reason: CloseReason) {
    let (code, text) = reason.code();
    let frame = Message::Close(Some(CloseFrame {
        code: CloseCode::from(code),
        reason: text.into(),
    }));
    let _sent = tokio::time::timeout(CLOSE_GRACE, socket.send(frame)).await;
}

/// Serves one upgraded socket until it closes.
pub(super) async fn run(
    state: Arc<RelayState>,
    arriving: Arriving,
    claims: Option<Claims>,
    mut socket: Socket,
    admitted: super::admission::Admitted,
) {
    let metrics = state.metrics.clone();
    metrics
        .conns_unauthenticated
        .fetch_add(1, Ordering::Relaxed);
    let pending = Unauthenticated(metrics.clone());
    let room: Arc<Room> = Arc::clone(&arriving);
    let claims = match claims {
        Some(c) => c,
        None => match Box::pin(first_frame_auth(&state, &room.id, &mut socket)).await {
            Some(c) => c,
            None => return,
        },
    };
    admitted.ticket.authenticated();
    drop(pending);
    let _counted = metrics.connected(claims.role);
    let (jti, exp) = (claims.jti.clone(), claims.exp);
    let l = &state.config.limits;
    let conn = Arc::new(Conn {
        id: state.next_conn_id(),
        role: claims.role,
        name: claims.sub,
        outbox: Outbox::new(l.outbox_soft_bytes, l.outbox_hard_bytes, metrics.clone()),
        replay: Mutex::new(None),
    });
    let joined = room.join(&conn, l.max_participants_per_room);
    drop(arriving); // a member now (or turned away): either way no longer arriving
    let Some(joined) = joined else {
        conn.error(&room.id, ErrorCode::RoomFull, "room is full".into(), None);
        let _closed = tokio::time::timeout(CLOSE_GRACE, socket.send(Message::Close(None))).await;
        return;
    };
    tracing::info!(conn = conn.id, room = %room.id, role = %conn.role, "joined");
    state.tokens.joined(conn.id, &jti, exp);
    let _ = room.deliver(&joined, Some(conn.id));
    state.publish(&room.id, &joined, None);
    serve(&state, &room, &conn, &mut socket).await;
    state.tokens.left(conn.id);
    if let Some(left) = room.leave(&conn) {
        let _ = room.deliver(&left, Some(conn.id));
        state.publish(&room.id, &left, None);
    }
    tracing::info!(conn = conn.id, room = %room.id, "left");
}

/// The connection loop: writes what is queued (topping a running replay up
/// as the socket drains) and reads frames, until either side closes.
async fn serve(state: &RelayState, room: &Room, conn: &Conn, socket: &mut Socket) {
    let l = &state.config.limits;
    // A replay is pulled from the ring in steps of this size, only when
    // less than it is pending: it moves at the socket's pace and never
    // counts toward the slow-consumer limit.
    let replay_step = l.outbox_soft_bytes.max(1) / 2;
    let mut limiter = RateLimiter::default();
    let mut guard = RefusalGuard::new(l, Instant::now());
    loop {
        if Room::replaying(conn) && conn.outbox.pending() < replay_step.max(1) {
            room.pump_replay(conn, replay_step);
        }
        tokio::select! {
            _ = conn.outbox.notify.notified() => {
                let batch = conn.outbox.take();
                let mut close = batch.close;
                if close != Some(CloseReason::SlowConsumer) {
                    let n = batch.frames.len();
                    match write_bounded(socket, &conn.outbox, batch.frames, l.write_timeout).await {
                        Wrote::Ok => {
                            conn.outbox.written(batch.bytes);
                            add(&state.metrics.deliveries, n);
                        }
                        Wrote::Broken => break,
                        Wrote::Stalled => close = Some(CloseReason::SlowConsumer),
                    }
                }
                if let Some(reason) = close {
                    match reason {
                        CloseReason::SlowConsumer => add(&state.metrics.slow_consumer_disconnects, 1),
                        CloseReason::Abuse => add(&state.metrics.abuse_disconnects, 1),
                        CloseReason::Shutdown => add(&state.metrics.drained, 1),
                        CloseReason::RoomClosed | CloseReason::Kicked => {}
                    }
                    tracing::info!(conn = conn.id, room = %room.id, reason = reason.code().1, "closing connection");
                    send_close(socket, reason).await;
                    // A drained host may have chunks in flight: still take them.
                    let keep = (reason == CloseReason::Shutdown).then_some((state, room, conn, &mut limiter));
                    linger(socket, keep).await;
                    break;
                }
            }
            msg = socket.next() => {
                let verdict = match msg {
                    Some(Ok(Message::Binary(b))) => match on_frame(state, room, conn, &mut limiter, b) {
                        Ok(Some(resume)) => {
                            // On a node that has not seen the whole stream, fill the
                            // ring from the shared history before replaying.
                            let n = room.hydrate(state.broker.as_ref(), l).await;
                            add(&state.metrics.history_frames, n);
                            room.resume(conn, &resume);
                            Ok(())
                        }
                        Ok(None) => Ok(()),
                        Err(r) => Err(r),
                    },
                    Some(Ok(Message::Text(_))) => refused(ErrorCode::Malformed,
                        "text messages are not frames; send binary envelopes (see cohost-protocol::envelope)".into(), None),
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => Ok(()),
                };
                if let Err(r) = verdict {
                    add(&state.metrics.refused_frames, 1);
                    match guard.refused(Instant::now()) {
                        Refusal::Reply => conn.error(&room.id, r.code, r.message, r.kind),
                        Refusal::Silent => {}
                        Refusal::Close => {
                            tracing::info!(conn = conn.id, room = %room.id, "too many refused frames");
                            conn.outbox.close(CloseReason::Abuse);
                        }
                    }
                }
            },
        }
    }
}

/// What a lingering socket still serves: frames that were in flight when a
/// drain closed it.
type Keep<'a> = (&'a RelayState, &'a Room, &'a Conn, &'a mut RateLimiter);

/// After sending Close, reads until the peer's Close or a short timeout, so
/// unread client data does not turn the close into a TCP reset. Frames read
/// meanwhile are discarded, or handled when `keep` says so.
async fn linger(socket: &mut Socket, mut keep: Option<Keep<'_>>) {
    let drain = async {
        while let Some(Ok(m)) = socket.next().await {
            match m {
                Message::Close(_) => break,
                Message::Binary(b) => {
                    if let Some((state, room, conn, limiter)) = keep.as_mut() {
                        let _handled = on_frame(state, room, conn, limiter, b);
                    }
                }
                _ => {}
            }
        }
    };
    let _timed_out = tokio::time::timeout(CLOSE_GRACE, drain).await;
}

fn on_frame(
    state: &RelayState,
    room: &Room,
    conn: &Conn,
    limiter: &mut RateLimiter,
    b: Bytes,
) -> Result<Option<Resume>, Refused> {
    let l = &state.config.limits;
    let len = b.len();
    let limit = max_frame(l, conn.role);
    if len > limit {
        tracing::info!(conn = conn.id, room = %room.id, len, limit, "frame refused: too large");
        return refused(ErrorCode::TooLarge,
            format!("frame of {len} bytes exceeds the {limit}-byte limit for {}; split it into smaller chunks", conn.role), None);
    }
    let frame = match Frame::decode(b) {
        Ok(f) => f,
        Err(e) => {
            tracing::info!(conn = conn.id, room = %room.id, len, "frame refused: malformed envelope");
            return refused(ErrorCode::Malformed, e.to_string(), None);
        }
    };
    let kind = frame.kind();
    if frame.room() != room.id {
        return refused(
            ErrorCode::WrongRoom,
            "frame names another room; a connection only speaks for the room of its token".into(),
            Some(kind),
        );
    }
    if !may_send(kind, conn.role) {
        tracing::info!(conn = conn.id, room = %room.id, kind = %kind, role = %conn.role, "frame refused: forbidden");
        return refused(
            ErrorCode::Forbidden,
            format!("a {} may not send {kind}; it was not delivered", conn.role),
            Some(kind),
        );
    }
    if !cohost_protocol::may_use_stream(conn.role, conn.id, frame.stream()) {
        tracing::info!(conn = conn.id, room = %room.id, kind = %kind, "frame refused: another's stream");
        return refused(
            ErrorCode::Forbidden,
            format!(
                "a {}'s streams are named {}…; it was not delivered",
                conn.role,
                cohost_protocol::member_stream_prefix(conn.id)
            ),
            Some(kind),
        );
    }
    if !limiter.allow(l, kind, Instant::now()) {
        return refused(
            ErrorCode::RateLimited,
            format!("too many {kind} frames; slow down and retry"),
            Some(kind),
        );
    }
    tracing::trace!(conn = conn.id, room = %room.id, kind = %kind, stream = ?frame.stream(), chunk = frame.chunk(), len, "frame");
    match route(kind) {
        Route::Relay => match kind {
            FrameType::RoomResume => match frame.control::<Resume>() {
                Ok(r) => return Ok(Some(r)),
                Err(e) => return refused(ErrorCode::Malformed, e.to_string(), Some(kind)),
            },
            FrameType::RoomKick => match frame.control::<Kick>() {
                Ok(k) if k.conn_id == conn.id => {
                    return refused(
                        ErrorCode::Forbidden,
                        "a host cannot kick itself; close the room instead".into(),
                        Some(kind),
                    )
                }
                Ok(k) => {
                    if super::revoke::kick_conn(state, &room.id, k.conn_id)
                        == super::revoke::Kicked::NotHere
                    {
                        return refused(
                            ErrorCode::Malformed,
                            format!(
                                "no participant #{} in this room on this relay node",
                                k.conn_id
                            ),
                            Some(kind),
                        );
                    }
                }
                Err(e) => return refused(ErrorCode::Malformed, e.to_string(), Some(kind)),
            },
            FrameType::RoomPing => {
                // Echo the payload bytes back untouched (never decoded).
                if let Ok(p) = Frame::build(
                    FrameType::RoomPong,
                    &room.id,
                    None,
                    frame.chunk(),
                    &frame.payload(),
                ) {
                    conn.outbox.push(p.bytes().clone());
                }
            }
            _ => {}
        },
        Route::Room | Route::ToHosts(_) => {
            let out_kind = match route(kind) {
                Route::ToHosts(t) => t,
                _ => kind,
            };
            let stamped = frame.restamp(out_kind, conn.id, conn.role);
            match room.deliver(&stamped, Some(conn.id)) {
                Ok(prev) => state.publish(&room.id, &stamped, prev),
                Err(e) => return refused(ErrorCode::OutOfOrder, e.to_string(), Some(kind)),
            }
        }
    }
    Ok(None)
}
