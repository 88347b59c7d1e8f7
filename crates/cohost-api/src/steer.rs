//! Steering and the queue: `POST /api/sessions/{id}/steer` gives text to
//! the running turn where the agent takes input mid-turn, else queues it
//! (with no turn running it runs now); `GET .../queue` lists what waits,
//! `DELETE .../queue/{item}` cancels an item and `POST .../queue/{item}/move`
//! puts it elsewhere. Every change is also a `queue` event on `/events`.

use std::sync::Arc;

use axum::extract::State;
use axum::Json;
use cohost_core::steer::QueueItem;
use cohost_session::SteerOutcome;
use serde::{Deserialize, Serialize};

use crate::body::{ApiJson, ApiPath};
use crate::state::{ApiResult, AppState};

#[derive(Deserialize)]
pub(super) struct SteerBody {
    text: String,
    /// Who sent it, when not the API's user (shown with the steer).
    #[serde(default)]
    by: Option<String>,
}

/// What became of the text.
#[derive(Serialize)]
pub(super) struct Steered {
    /// `steered` (it reached the running turn), `queued` (it waits for a
    /// turn of its own) or `started` (no turn ran: it is one now).
    outcome: &'static str,
    /// The correlation id of its own turn (queued or started).
    #[serde(skip_serializing_if = "Option::is_none")]
    correlation_id: Option<String>,
    /// Its queue item, when queued.
    #[serde(skip_serializing_if = "Option::is_none")]
    item: Option<QueueItem>,
}

#[derive(Serialize)]
pub(super) struct Queue {
    /// Waiting prompts, next first.
    items: Vec<QueueItem>,
}

#[derive(Deserialize)]
pub(super) struct MoveBody {
    /// The place to move to: 0 runs next; past the end is last.
    to: usize,
}

pub(super) async fn steer(
    State(s): State<Arc<AppState>>,
    ApiPath(id): ApiPath<String>,
    ApiJson(b): ApiJson<SteerBody>,
) -> ApiResult<Steered> {
    let live = crate::state::live(&s, &id)?;
    let input = cohost_core::PromptInput::text(b.text);
    let by = b.by.map(|b| s.host.sanitizer.sanitize(&b).into_owned());
    let answer = match live.steer(input, by.as_deref()).await? {
        SteerOutcome::Steered => Steered {
            outcome: "steered",
            correlation_id: None,
            item: None,
        },
        SteerOutcome::Queued { item, turn } => Steered {
            outcome: "queued",
            correlation_id: Some(turn.correlation_id().to_string()),
            item: Some(item),
        },
        SteerOutcome::Started(turn) => Steered {
            outcome: "started",
            correlation_id: Some(turn.correlation_id().to_string()),
            item: None,
        },
    };
    Ok(Json(answer))
}

pub(super) async fn queue(
    State(s): State<Arc<AppState>>,
    ApiPath(id): ApiPath<String>,
) -> ApiResult<Queue> {
    let items = crate::state::live(&s, &id)?.queue();
    Ok(Json(Queue { items }))
}

pub(super) async fn drop_item(
    State(s): State<Arc<AppState>>,
    ApiPath((id, item)): ApiPath<(String, u64)>,
) -> ApiResult<QueueItem> {
    Ok(Json(crate::state::live(&s, &id)?.queue_drop(item)?))
}

pub(super) async fn move_item(
    State(s): State<Arc<AppState>>,
    ApiPath((id, item)): ApiPath<(String, u64)>,
    ApiJson(b): ApiJson<MoveBody>,
) -> ApiResult<Queue> {
    let live = crate::state::live(&s, &id)?;
    live.queue_move(item, b.to)?;
    Ok(Json(Queue {
        items: live.queue(),
    }))
}
