//! `session_changes` and `undo_turn`: what a session's turns changed in
//! its working tree, and undoing them (the service behind `cohost diff`
//! and `cohost undo`).

use cohost_core::{CohostError, ErrorCode};
use cohost_host::changes;
use serde_json::Value;

use super::params::{SessionChanges, UndoTurn};
use super::state::McpState;

fn record(st: &McpState, id: &str) -> Result<cohost_host::SessionRecord, CohostError> {
    cohost_host::SessionStore::of(st.hub().host())
        .get(id)?
        .ok_or_else(|| {
            CohostError::new(ErrorCode::ConfigInvalid, format!("no session `{id}`"))
                .with_fix("use the session_id that ask_agent returned")
        })
}

fn to_value(st: &McpState, v: impl serde::Serialize) -> Value {
    let mut v = serde_json::to_value(v).unwrap_or_default();
    st.hub().host().sanitizer.sanitize_json(&mut v);
    v
}

/// `session_changes`.
pub(super) async fn session_changes(
    st: &McpState,
    a: SessionChanges,
) -> Result<Value, CohostError> {
    let rec = record(st, &a.session_id)?;
    let found =
        changes::session_changes(st.hub().host(), &rec, a.turn, a.whole.unwrap_or(false)).await?;
    Ok(to_value(st, found))
}

/// `undo_turn`: refused while the session runs a turn (its agent may be
/// writing).
pub(super) async fn undo_turn(st: &McpState, a: UndoTurn) -> Result<Value, CohostError> {
    let rec = record(st, &a.session_id)?;
    if let Ok(s) = st.hub().get(&a.session_id) {
        if st.tracker(&s).report().running {
            return Err(CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("session `{}` is running a turn", a.session_id),
            )
            .with_fix("wait for it (the `wait` tool) or interrupt it, then undo"));
        }
    }
    let done = changes::undo(st.hub().host(), &rec, a.turn, a.force.unwrap_or(false)).await?;
    Ok(to_value(st, done))
}
