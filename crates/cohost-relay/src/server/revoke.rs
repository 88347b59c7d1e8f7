//! Kick: the host (a `room.kick` control frame) or the admin API removes a
//! participant. The relay puts the token that connection joined with on the
//! broker's deny list (every node refuses it from then on) and closes the
//! connection. A connection on another node (relays scaled out behind a
//! load balancer) is kicked there: the kick frame goes out through the
//! broker and the node that holds the connection acts on it.

use std::collections::HashMap;
use std::sync::Mutex;

use super::outbox::CloseReason;
use super::room::Room;
use super::RelayState;

/// The token each live connection of this node joined with.
#[derive(Debug, Default)]
pub(crate) struct Tokens {
    by_conn: Mutex<HashMap<u64, (String, u64)>>,
}

impl Tokens {
    /// Connection `conn` joined with token `jti`, expiring at `exp`.
    pub(crate) fn joined(&self, conn: u64, jti: &str, exp: u64) {
        let mut m = self.by_conn.lock().unwrap_or_else(|p| p.into_inner());
        m.insert(conn, (jti.to_string(), exp));
    }

    pub(crate) fn left(&self, conn: u64) {
        let mut m = self.by_conn.lock().unwrap_or_else(|p| p.into_inner());
        m.remove(&conn);
    }

    fn get(&self, conn: u64) -> Option<(String, u64)> {
        let m = self.by_conn.lock().unwrap_or_else(|p| p.into_inner());
        m.get(&conn).cloned()
    }
}

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

/// [`kick`], or for a connection minted by another node, the kick sent to
/// every node through the broker (`frame` is the host's `room.kick`).
pub(crate) fn kick_anywhere(state: &RelayState, room: &Room, conn_id: u64, frame: &[u8]) -> Kicked {
    if conn_id & NODE_BITS == state.node_id {
        return kick(state, room, conn_id);
    }
    state.broker.publish(
        &room.id,
        state.node_id,
        &bytes::Bytes::copy_from_slice(frame),
    );
    tracing::info!(conn = conn_id, room = %room.id, "kick forwarded to the participant's node");
    Kicked::Forwarded
}

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

/// [`kick`] by room id (the admin API); the revoked token id, or `None`
/// when the room or connection is not on this node.
pub(crate) fn kick_conn(state: &RelayState, room: &str, conn_id: u64) -> Option<String> {
    let room = state.rooms.read().ok()?.get(room).cloned()?;
    match kick(state, &room, conn_id) {
        Kicked::Done { jti } => Some(jti),
        Kicked::Forwarded | Kicked::NotHere => None,
    }
}
