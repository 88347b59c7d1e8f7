//! The host bridge's turn helpers: publishing a turn's events to the room
//! and a co-driver's interrupt request under the room's policy.

use std::collections::hash_map::{Entry, HashMap};

use cohost_core::Event;
use cohost_protocol::{Frame, StreamId};
use cohost_relay::RelayClient;
use cohost_share::{ExecutionStarted, Message, RoomCodec, ShareError, TurnStream};
use tokio::sync::mpsc;

use super::host_io::{deliver, HostNotice, SuggestionPolicy};

/// What `ai.execution.started` says about a turn besides its ids.
pub(super) struct Started<'a> {
    pub(super) text: &'a str,
    pub(super) provider: &'a str,
    pub(super) origin: &'a str,
}

/// Publish one event of a turn on its own stream (members' turns run at
/// once, each its stream): the stream opens with
/// `ai.execution.started` at its first event; approval events also go out as
/// notices outside the stream.
pub(super) async fn publish(
    client: &RelayClient,
    codec: &RoomCodec,
    notices: &mpsc::UnboundedSender<HostNotice>,
    streams: &mut HashMap<String, TurnStream>,
    event: &Event,
    started: Started<'_>,
) {
    match turn_frames(codec, streams, event, started, &event.prompt_id) {
        Ok(frames) => {
            for frame in frames {
                deliver(client, notices, frame).await;
            }
        }
        Err(why) => {
            let _ = notices.send(HostNotice::Room(why));
        }
    }
}

/// The frames of one event of a turn, on stream `stream` (the host's is
/// the prompt id; a member on a participant's machine prefixes it with its
/// connection's): `ai.execution.started` first when the stream is new, the
/// event, and for an approval event its notice outside the stream. `Err`:
/// the stream cannot be named, so the turn is not shared (said once).
pub(super) fn turn_frames(
    codec: &RoomCodec,
    streams: &mut HashMap<String, TurnStream>,
    event: &Event,
    started: Started<'_>,
    stream: &str,
) -> Result<Vec<Result<Frame, ShareError>>, String> {
    let turn = match streams.entry(event.prompt_id.clone()) {
        Entry::Occupied(t) => t.into_mut(),
        Entry::Vacant(slot) => match StreamId::new(stream) {
            Ok(id) => slot.insert(codec.turn(id)),
            Err(e) => return Err(format!("turn {} is not shared: {e}", event.prompt_id)),
        },
    };
    let mut frames = Vec::with_capacity(2);
    if turn.is_new() {
        let msg = Message::ExecutionStarted(ExecutionStarted {
            prompt_id: event.prompt_id.clone(),
            correlation_id: event.correlation_id.clone(),
            text: started.text.to_string(),
            provider: started.provider.to_string(),
            origin: started.origin.to_string(),
            agent: event.agent.clone(),
        });
        frames.push(turn.frame(&msg));
    }
    frames.push(turn.frame(&Message::TurnEvent(event.clone())));
    if let Some(notice) = Message::approval_notice(event) {
        frames.push(codec.room_frame(&notice));
    }
    Ok(frames)
}

/// A co-driver's interrupt request under `policy`, told to the host; true
/// when the turn is to stop now.
pub(super) fn interrupt_policy(
    policy: SuggestionPolicy,
    notices: &mpsc::UnboundedSender<HostNotice>,
    f: &Frame,
) -> bool {
    let from = super::participant::stamped_name(f);
    let (stop, notice) = match policy {
        SuggestionPolicy::Accept => (
            true,
            HostNotice::Room(format!("{from} interrupted the turn")),
        ),
        SuggestionPolicy::Ask => (false, HostNotice::InterruptRequested { from }),
        SuggestionPolicy::Reject => (
            false,
            HostNotice::Room(format!(
                "{from} asked to interrupt; refused by the room's policy"
            )),
        ),
    };
    let _ = notices.send(notice);
    stop
}
