//! Localhost-only guard (seed 002): loopback peers only, and a `Host` and
//! `Origin` naming this server on loopback, so a web page cannot reach the
//! API through DNS rebinding or a cross-site request. Then the user's
//! credential ([`require_token`]): every local user is a loopback peer, so
//! only the bearer token from the owner-only token file lets a request in.

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use cohost_core::{CohostError, ErrorCode};
use std::net::SocketAddr;
use std::sync::Arc;

use crate::token::{bearer, ApiToken};

/// What [`require_token`] accepts, and where the user finds it.
#[derive(Debug)]
pub struct Credential {
    /// The accepted token.
    pub token: ApiToken,
    /// The owner-only file holding it (named in the 401's fix).
    pub file: std::path::PathBuf,
}

/// The `Host` values accepted for a server on `port`.
pub fn allowed_hosts(port: u16) -> [String; 3] {
    [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ]
}

/// Why a request is refused, if it is.
pub fn check(
    peer: Option<SocketAddr>,
    host: Option<&str>,
    origin: Option<&str>,
    port: u16,
) -> Result<(), &'static str> {
    match peer {
        Some(p) if p.ip().is_loopback() => {}
        _ => return Err("the request does not come from this machine"),
    }
    let allowed = allowed_hosts(port);
    match host {
        Some(h) if allowed.iter().any(|a| a.eq_ignore_ascii_case(h)) => {}
        _ => return Err("the Host header does not name this server on loopback"),
    }
    if let Some(o) = origin {
        let ok = allowed
            .iter()
            .any(|a| o.eq_ignore_ascii_case(&format!("http://{a}")));
        if !ok {
            return Err("the Origin is not this server");
        }
    }
    Ok(())
}

/// The axum middleware; `port` is the bound port.
pub async fn localhost_only(State(port): State<u16>, req: Request, next: Next) -> Response {
    // Decide before awaiting: a borrow of the request must not live across
    // the await (the body is not Sync).
    let verdict = {
        let peer = req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0);
        let header_str = |name| req.headers().get(name).and_then(|v| v.to_str().ok());
        check(
            peer,
            header_str(header::HOST),
            header_str(header::ORIGIN),
            port,
        )
    };
    match verdict {
        Ok(()) => next.run(req).await,
        Err(why) => {
            let e = CohostError::new(ErrorCode::LocalOnlyRequired, format!("refused: {why}"))
                .with_fix(format!(
                    "call the API from this machine at http://127.0.0.1:{port}/"
                ));
            (StatusCode::FORBIDDEN, axum::Json(e)).into_response()
        }
    }
}

/// The axum middleware refusing, with 401 and before any handler runs, a
/// request without `Authorization: Bearer <the user's token>`.
pub async fn require_token(
    State(cred): State<Arc<Credential>>,
    req: Request,
    next: Next,
) -> Response {
    let ok = {
        let header = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        bearer(header).is_some_and(|t| cred.token.matches(t))
    };
    if ok {
        return next.run(req).await;
    }
    let e = CohostError::new(
        ErrorCode::AuthRequired,
        "the local API needs your token, and the request has no valid one",
    )
    .with_fix(format!(
        "send the token in `{}` (owner-only; `cohost serve` prints its path) as a bearer token in the Authorization header",
        cred.file.display()
    ));
    let mut resp = (StatusCode::UNAUTHORIZED, axum::Json(e)).into_response();
    resp.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        header::HeaderValue::from_static("Bearer realm=\"cohost\""),
    );
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        let local: SocketAddr = "127.0.0.1:5555".parse().unwrap();
        let remote: SocketAddr = "192.168.1.5:5555".parse().unwrap();
        assert!(check(Some(local), Some("127.0.0.1:4317"), None, 4317).is_ok());
        assert!(check(
            Some(local),
            Some("localhost:4317"),
            Some("http://localhost:4317"),
            4317
        )
        .is_ok());
        assert!(check(
            Some("[::1]:9".parse().unwrap()),
            Some("[::1]:4317"),
            None,
            4317
        )
        .is_ok());
        assert!(check(Some(remote), Some("127.0.0.1:4317"), None, 4317).is_err());
        assert!(check(None, Some("127.0.0.1:4317"), None, 4317).is_err());
        assert!(check(Some(local), Some("evil.example:4317"), None, 4317).is_err());
        assert!(check(Some(local), Some("127.0.0.1:80"), None, 4317).is_err());
        assert!(check(Some(local), None, None, 4317).is_err());
        assert!(check(
            Some(local),
            Some("127.0.0.1:4317"),
            Some("http://evil.example"),
            4317
        )
        .is_err());
        assert!(check(Some(local), Some("127.0.0.1:4317"), Some("null"), 4317).is_err());
    }
}
