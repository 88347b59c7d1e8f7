//! Kick: the host (a `room.kick` control frame) or the admin API removes a
//! participant. The relay puts the token that connection joined with on the
//! broker's deny list (every node refuses it from then on) and closes the
//! connection. A connection on another node (relays scaled out behind a
//! load balancer) is kicked there: the kick frame goes out through the
//! broker and the node that holds the connection acts on it.

use super::outbox::CloseReason;
use super::room::Room;
use super::state::RelayState;

/// What a kick did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kicked {
    /// The token `jti` is revoked and the connection is closing.
    Done {
        /// The revoked token id.
        jti: String,
    },
    /// The connection belongs to another node: the kick was sent there
    /// through the broker.
    Forwarded,
    /// No connection with that id in the room on this node.
    NotHere,
}

/// Connection ids carry the node that minted them in their top 16 bits
/// (see `RelayState::next_conn_id`).
const NODE_BITS: u64 = !0xffff_ffff_ffff;

/// Revokes `conn_id`'s token and disconnects it, if it is in `room` on this
/// node. A host cannot kick itself out this way (the caller checks roles).
pub(crate) fn kick(state: &RelayState, room: &Room, conn_id: u64) -> Kicked {
    let Some(conn) = room.members().into_iter().find(|c| c.id == conn_id) else {
        return Kicked::NotHere;
    };
    let Some((jti, exp)) = state.tokens.get(conn_id) else {
        return Kicked::NotHere;
    };
    state.broker.revoke(&jti, exp);
    conn.outbox.close(CloseReason::Kicked);
    tracing::info!(conn = conn_id, room = %room.id, "participant removed: token revoked");
    Kicked::Done { jti }
}

/// [`kick`] by room id (the host's `room.kick` and the admin API); a
/// connection minted by another node is kicked there: a `room.kick` for it
/// goes to every node through the broker and the one holding it acts.
pub(crate) fn kick_conn(state: &RelayState, room: &str, conn_id: u64) -> Kicked {
    if conn_id & NODE_BITS != state.node_id {
        let kick = cohost_protocol::Kick { conn_id };
        let Ok(frame) = cohost_protocol::Frame::control_frame(
            cohost_protocol::FrameType::RoomKick,
            room,
            None,
            &kick,
        ) else {
            // Only a room id too long for a frame; no such room exists.
            return Kicked::NotHere;
        };
        state.broker.publish(room, state.node_id, frame.bytes());
        tracing::info!(
            conn = conn_id,
            room,
            "kick forwarded to the participant's node"
        );
        return Kicked::Forwarded;
    }
    let Some(room) = state.existing_room(room) else {
        return Kicked::NotHere;
    };
    kick(state, &room, conn_id)
}
