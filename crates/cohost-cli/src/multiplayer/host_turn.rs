//! The host bridge's turn helpers: publishing a turn's events to the room
//! and a co-driver's interrupt request under the room's policy.

use std::collections::hash_map::{Entry, HashMap};

use cohost_core::Event;
use cohost_protocol::{Frame, StreamId};
use cohost_relay::RelayClient;
use cohost_share::{ExecutionStarted, Message, RoomCodec, TurnStream};
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
    let turn = match streams.entry(event.prompt_id.clone()) {
        Entry::Occupied(t) => t.into_mut(),
        Entry::Vacant(slot) => match StreamId::new(&event.prompt_id) {
            Ok(id) => slot.insert(codec.turn(id)),
            Err(e) => {
                let _ = notices.send(HostNotice::Room(format!(
                    "turn {} is not shared: {e}",
                    event.prompt_id
                )));
                return;
            }
        },
    };
    if turn.is_new() {
        let msg = Message::ExecutionStarted(ExecutionStarted {
            prompt_id: event.prompt_id.clone(),
            correlation_id: event.correlation_id.clone(),
            text: started.text.to_string(),
            provider: started.provider.to_string(),
            origin: started.origin.to_string(),
            agent: event.agent.clone(),
        });
        deliver(client, notices, turn.frame(&msg)).await;
    }
    deliver(
        client,
        notices,
        turn.frame(&Message::TurnEvent(event.clone())),
    )
    .await;
    if let Some(notice) = Message::approval_notice(event) {
        deliver(client, notices, codec.room_frame(&notice)).await;
    }
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
