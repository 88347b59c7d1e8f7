//! What every handler of the local API shares: the server's state, and
//! the error type that answers a request with a `CohostError` body.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use cohost_core::{CohostError, ErrorCode};
use cohost_session::RunningSession;

use crate::hook_feed::HookFeed;
use cohost_discovery::host::Host;
use cohost_host::store::SessionStore;

/// Shared server state.
pub struct AppState {
    pub(super) host: Host,
    pub(super) store: SessionStore,
    pub(super) sessions: Mutex<HashMap<String, RunningSession>>,
    pub(super) hooks: Arc<HookFeed>,
    /// The budget each new session (or room) gets, when `serve` was
    /// given one.
    pub(super) budget: Option<crate::serve_budget::ServeBudget>,
}

/// An API error: a `CohostError` body with a fitting status code.
pub(super) struct ApiError(pub(super) CohostError);

impl From<CohostError> for ApiError {
    fn from(e: CohostError) -> Self {
        ApiError(e)
    }
}

/// A library crate's own error answers as its wire error.
macro_rules! api_error_from_wire {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for ApiError {
            fn from(e: $error) -> Self {
                ApiError(e.into())
            }
        }
    )*};
}

api_error_from_wire!(
    cohost_discovery::DiscoveryError,
    cohost_host::changes::ChangesError,
    cohost_host::session::attach::AttachError,
    cohost_host::session::CwdError,
    cohost_host::StoreError,
    cohost_session::SessionError,
);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = match self.0.code {
            ErrorCode::ProviderNotFound => StatusCode::NOT_FOUND,
            ErrorCode::ConfigInvalid
            | ErrorCode::UnsupportedMode
            | ErrorCode::ModelNotAvailable => StatusCode::BAD_REQUEST,
            ErrorCode::LocalOnlyRequired => StatusCode::FORBIDDEN,
            ErrorCode::AuthRequired | ErrorCode::AuthBlockedByPolicy => StatusCode::UNAUTHORIZED,
            // Spent until the host raises it: the session's state refuses.
            ErrorCode::BudgetExceeded => StatusCode::CONFLICT,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        (status, Json(self.0)).into_response()
    }
}

pub(super) type ApiResult<T> = Result<Json<T>, ApiError>;

/// The running session `id`, or the API's not-found error with its fix.
pub(super) fn live(s: &AppState, id: &str) -> Result<RunningSession, ApiError> {
    cohost_core::sync::lock(&s.sessions)
        .get(id)
        .cloned()
        .ok_or_else(|| {
            ApiError(
                CohostError::new(
                    ErrorCode::ProviderNotFound,
                    format!("no running session `{id}`"),
                )
                .with_fix("create one with POST /api/sessions"),
            )
        })
}
