//! `GET /api/sessions/{id}/changes` and `POST /api/sessions/{id}/undo`:
//! what a recorded session's turns changed, and undoing them (the same
//! service as `cohost diff` and `cohost undo`).

use std::sync::Arc;

use axum::extract::State;
use axum::Json;
use cohost_core::sync::lock;
use cohost_core::{CohostError, ErrorCode};
use serde::Deserialize;

use crate::body::{ApiJson, ApiPath, ApiQuery};
use crate::state::{ApiError, ApiResult, AppState};
use cohost_host::changes::{self, SessionChanges, Undone};
use cohost_host::store::SessionRecord;

#[derive(Deserialize, Default)]
pub(super) struct ChangesQuery {
    /// One turn; default: every turn that changed something.
    #[serde(default)]
    turn: Option<u64>,
    /// Whole diffs instead of the bounds of a `file_changes` event.
    #[serde(default)]
    whole: bool,
}

#[derive(Deserialize, Default)]
pub(super) struct UndoBody {
    /// Undo this turn and every later one; default: the last.
    #[serde(default)]
    turn: Option<u64>,
    /// Put files back even if they changed since the turn.
    #[serde(default)]
    force: bool,
}

fn record(s: &AppState, id: &str) -> Result<SessionRecord, ApiError> {
    s.store.get(id)?.ok_or_else(|| {
        ApiError(
            CohostError::new(ErrorCode::ProviderNotFound, format!("no session `{id}`"))
                .with_fix("GET /api/sessions lists the recorded sessions"),
        )
    })
}

pub(super) async fn changes(
    State(s): State<Arc<AppState>>,
    ApiPath(id): ApiPath<String>,
    ApiQuery(q): ApiQuery<ChangesQuery>,
) -> ApiResult<SessionChanges> {
    let rec = record(&s, &id)?;
    Ok(Json(
        changes::session_changes(&s.host, &rec, q.turn, q.whole).await?,
    ))
}

pub(super) async fn undo(
    State(s): State<Arc<AppState>>,
    ApiPath(id): ApiPath<String>,
    ApiJson(b): ApiJson<UndoBody>,
) -> ApiResult<Undone> {
    let rec = record(&s, &id)?;
    // The agent may be writing: undo waits for its turn to end.
    if lock(&s.sessions).get(&id).is_some_and(|live| live.busy()) {
        return Err(ApiError(
            CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("session `{id}` is running a turn"),
            )
            .with_fix("wait for its stream_end, or POST .../interrupt first"),
        ));
    }
    Ok(Json(changes::undo(&s.host, &rec, b.turn, b.force).await?))
}
