//! What the host saw of the people in a shared room, into the signed
//! records of the room's sessions: who suggested a prompt, who decided on
//! it, who came and went. Participants do not sign (sharing format v1), so
//! these entries are the host's word, signed by the host's key.

use cohost_host::record::{recorder, Note};
use cohost_session::Room;

/// Note `n` in the record of `member` (every member's when `None`).
pub(super) fn note(room: &Room, member: Option<&str>, n: &Note) {
    for m in room
        .members()
        .iter()
        .filter(|m| member.is_none_or(|name| m.name == name))
    {
        if let Some(r) = m.session.record_id().and_then(recorder) {
            r.note(n.clone());
        }
    }
}
