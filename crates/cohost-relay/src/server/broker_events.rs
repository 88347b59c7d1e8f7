//! What a node does with its broker's events: frames from other nodes go
//! to the room (a kick to the connection it names), and the subscription's
//! state reaches `/readyz`.

use std::sync::atomic::Ordering;

use cohost_protocol::{Frame, FrameType, Kick};

use super::revoke;
use super::state::RelayState;
use crate::broker::BrokerEvent;

/// Handles one event of the broker's subscription.
pub(super) fn on_broker(state: &RelayState, ev: BrokerEvent) {
    match ev {
        BrokerEvent::Frame {
            origin,
            room,
            frame,
        } => {
            if origin == state.node_id {
                return;
            }
            let Ok(f) = Frame::decode(frame) else {
                tracing::warn!(room, "broker delivered an undecodable frame; dropped");
                return;
            };
            if f.room() != room {
                return;
            }
            // A host's kick for a participant on this node (only nodes
            // publish to the broker, after checking the sender's role);
            // never fanned out to clients.
            if f.kind() == FrameType::RoomKick {
                let here = state.existing_room(&room);
                if let (Some(r), Ok(k)) = (here, f.control::<Kick>()) {
                    revoke::kick(state, &r, k.conn_id);
                }
                return;
            }
            let r = state.room(&room);
            if let Err(e) = r.deliver(&f, None) {
                tracing::debug!(room, error = %e, "broker frame not recorded");
            }
        }
        BrokerEvent::Resubscribed => {
            let shared = state.broker.has_history();
            for r in state.all_rooms() {
                r.lost_frames(shared);
                r.broker_gap();
            }
        }
        BrokerEvent::Subscribed => {
            state.subscribed.store(true, Ordering::SeqCst);
            state.subscribed_notify.notify_waiters();
        }
    }
}
