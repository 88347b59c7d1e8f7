//! What the host saw of the people in a shared room, into the signed
//! records of the room's sessions: who suggested a prompt, who decided on
//! it, who voted on a tool call, who came and went. Since sharing format v2
//! a participant signs every frame: a suggestion's or a vote's entry keeps
//! that signed frame, so it is the participant's word, not only the
//! host's (`cohost record verify` checks it); the rest is the host's word,
//! signed by the host's key.

use cohost_host::record::{recorder, Note};
use cohost_record::AuthorSig;
use cohost_session::Room;
use cohost_share::Sender;

/// What a participant signed, as the codec opened it: the record keeps it
/// (`None` for the host's own frames and a room without keys).
pub(super) fn author_sig(sender: Option<&Sender>) -> Option<AuthorSig> {
    let s = sender?;
    let e = s.evidence.as_ref()?;
    Some(AuthorSig {
        key: s.key,
        signed: e.signed.clone(),
        sig: e.signature,
    })
}

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
