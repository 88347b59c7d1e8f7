//! Request extractors whose rejections speak cohost's error shape: axum's
//! own `Json`, `Query` and `Path` answer a bad request in `text/plain`,
//! which no client of the OpenAPI document expects. These keep axum's
//! status (400 malformed, 415 not JSON, 422 wrong shape) and answer with
//! `{code, message, retryable, suggested_fix}`; so does every unknown route
//! and method ([`not_found`], [`method_not_allowed`]).

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use cohost_core::{CohostError, ErrorCode};
use serde::de::DeserializeOwned;

/// A refused request: its status and cohost's error body.
#[derive(Debug)]
pub(super) struct Rejected(pub(super) StatusCode, pub(super) CohostError);

impl IntoResponse for Rejected {
    fn into_response(self) -> Response {
        (self.0, Json(self.1)).into_response()
    }
}

fn rejected(status: StatusCode, what: String, fix: &str) -> Rejected {
    Rejected(
        status,
        CohostError::new(ErrorCode::ConfigInvalid, what).with_fix(fix),
    )
}

/// A JSON request body (`Content-Type: application/json`).
pub(super) struct ApiJson<T>(pub(super) T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Rejected;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(v)) => Ok(ApiJson(v)),
            Err(r) => Err(json_rejection(r)),
        }
    }
}

fn json_rejection(r: JsonRejection) -> Rejected {
    let fix = match &r {
        JsonRejection::MissingJsonContentType(_) => {
            "send the body as JSON with `Content-Type: application/json`"
        }
        _ => "send a JSON body matching this operation's schema in /api/openapi.json",
    };
    rejected(r.status(), r.body_text(), fix)
}

/// Query parameters.
pub(super) struct ApiQuery<T>(pub(super) T);

impl<S, T> FromRequestParts<S> for ApiQuery<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Rejected;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(v)) => Ok(ApiQuery(v)),
            Err(r) => Err(query_rejection(r)),
        }
    }
}

fn query_rejection(r: QueryRejection) -> Rejected {
    rejected(
        StatusCode::BAD_REQUEST,
        r.body_text(),
        "pass the query parameters this operation documents in /api/openapi.json",
    )
}

/// Path parameters.
pub(super) struct ApiPath<T>(pub(super) T);

impl<S, T> FromRequestParts<S> for ApiPath<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = Rejected;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(v)) => Ok(ApiPath(v)),
            Err(r) => Err(path_rejection(r)),
        }
    }
}

fn path_rejection(r: PathRejection) -> Rejected {
    rejected(
        StatusCode::BAD_REQUEST,
        r.body_text(),
        "use the path as /api/openapi.json documents it (UTF-8, percent-encoded)",
    )
}

/// Any path the API does not have.
pub(super) async fn not_found(uri: axum::http::Uri) -> Rejected {
    Rejected(
        StatusCode::NOT_FOUND,
        CohostError::new(
            ErrorCode::ProviderNotFound,
            format!("no such endpoint: {}", uri.path()),
        )
        .with_fix("see /api/openapi.json for every endpoint"),
    )
}

/// A known path with a method it does not take.
pub(super) async fn method_not_allowed(
    method: axum::http::Method,
    uri: axum::http::Uri,
) -> Rejected {
    Rejected(
        StatusCode::METHOD_NOT_ALLOWED,
        CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("{} does not take {method}", uri.path()),
        )
        .with_fix("see /api/openapi.json for the methods of each endpoint"),
    )
}
