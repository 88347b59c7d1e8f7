//! The size gate in front of `cohost mcp --http`.
//!
//! The SDK's streamable HTTP service reads a whole request body into memory
//! whatever its size, so one runaway client could fill the machine's memory.
//! The gate allows the same size as the stdio servers' longest line
//! ([`MAX_LINE`]): a request that declares more is refused before a byte
//! of its body is read, and one that streams more (chunked, no length) is
//! refused as soon as it passes the limit. Either way the client gets a
//! JSON-RPC error it can show, with HTTP 413.

use crate::stdio_guard::{error_line, INVALID_REQUEST, MAX_LINE};
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};

/// Refuse request bodies over `MAX_LINE`; pass the others on, read whole.
pub(super) async fn limit_body(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    limit_body_to(MAX_LINE, req, next).await
}

async fn limit_body_to(
    max: usize,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    // GET opens the event stream and DELETE ends a session: no body to judge.
    if req.method() != Method::POST {
        return next.run(req).await;
    }
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return too_large(max);
    }
    let (parts, body) = req.into_parts();
    match axum::body::to_bytes(body, max).await {
        Ok(bytes) => {
            next.run(axum::extract::Request::from_parts(parts, bytes.into()))
                .await
        }
        Err(_) => too_large(max),
    }
}

fn too_large(max: usize) -> Response {
    let message = format!(
        "Request too large: cohost reads at most {} MiB per request; send large files by path, not inline",
        max / (1024 * 1024)
    );
    let mut reply = (
        StatusCode::PAYLOAD_TOO_LARGE,
        [(header::CONTENT_TYPE, "application/json")],
        error_line(INVALID_REQUEST, &message),
    )
        .into_response();
    // The rest of an oversized body is never read: the connection cannot
    // carry another request after it.
    reply.headers_mut().insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    reply
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A server whose one route answers with the length of the body it got,
    /// behind the gate with a 10-byte limit.
    async fn server() -> std::net::SocketAddr {
        let app = axum::Router::new()
            .route(
                "/",
                axum::routing::post(
                    |body: axum::body::Bytes| async move { body.len().to_string() },
                ),
            )
            .layer(axum::middleware::from_fn(|req, next| {
                limit_body_to(10, req, next)
            }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        addr
    }

    async fn exchange(addr: std::net::SocketAddr, request: &[u8]) -> String {
        let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        tcp.write_all(request).await.unwrap();
        let mut reply = Vec::new();
        let read = tokio::time::timeout(std::time::Duration::from_secs(10), async {
            let mut buf = [0u8; 4096];
            loop {
                match tcp.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => reply.extend_from_slice(&buf[..n]),
                }
                if reply.windows(4).any(|w| w == b"\r\n\r\n") && reply.ends_with(b"}") {
                    break;
                }
            }
        });
        let _ = read.await;
        String::from_utf8_lossy(&reply).into_owned()
    }

    #[tokio::test]
    async fn a_body_within_the_limit_passes_whole() {
        let addr = server().await;
        let reply = exchange(
            addr,
            b"POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\nconnection: close\r\n\r\n0123456789",
        )
        .await;
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
        assert!(reply.ends_with("10"), "{reply}");
    }

    #[tokio::test]
    async fn a_declared_length_over_the_limit_is_refused_unread() {
        let addr = server().await;
        // The body is never sent: the refusal must not wait for it.
        let reply = exchange(
            addr,
            b"POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 11\r\n\r\n",
        )
        .await;
        assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
        assert!(reply.contains("connection: close"), "{reply}");
        let body = reply.split("\r\n\r\n").nth(1).unwrap();
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["error"]["code"], INVALID_REQUEST);
        assert!(v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too large"));
    }

    #[tokio::test]
    async fn a_chunked_body_is_refused_once_it_passes_the_limit() {
        let addr = server().await;
        let reply = exchange(
            addr,
            b"POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n6\r\n012345\r\n6\r\n678901\r\n0\r\n\r\n",
        )
        .await;
        assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    }
}
