//! The participant web page: `GET /join/{room}` and `GET /assets/...`.
//!
//! The page and its pinned, vendored libraries (`web/`, see
//! `web/vendor/vendor.lock`) are compiled into the binary, so building the
//! relay needs no Node.js. The room key travels in the URL fragment, which the
//! browser never sends: the relay serves the same bytes to everyone and still
//! never sees a key.
//!
//! Every response carries a strict Content-Security-Policy (scripts and
//! styles from this origin only, no inline script, WebSocket only to this
//! relay, images only from here or `data:`, HTML sinks only through
//! DOMPurify's Trusted Types policy), `nosniff` and `no-referrer`:
//! agent output rendered by the page is hostile input, and the policy is the
//! second wall behind its sanitizer.

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use cohost_protocol::is_valid_id;

/// One embedded file.
struct Asset {
    path: &'static str,
    mime: &'static str,
    body: &'static [u8],
}

macro_rules! assets {
    ($( $path:literal => $mime:expr ),* $(,)?) => {
        &[$( Asset {
            path: $path,
            mime: $mime,
            body: include_bytes!(concat!("../web/", $path)),
        }, )*]
    };
}

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// Everything under `/assets/`, by path relative to `web/`.
static ASSETS: &[Asset] = assets! {
    "app.js" => JS,
    "wire.js" => JS,
    "e2e.js" => JS,
    "loss.js" => JS,
    "members.js" => JS,
    "render.js" => JS,
    "changes.js" => JS,
    "diff.js" => JS,
    "markdown.js" => JS,
    "stream-md.js" => JS,
    "notify.js" => JS,
    "style.css" => CSS,
    "vendor/marked.esm.js" => JS,
    "vendor/purify.es.mjs" => JS,
    "vendor/hljs/core.min.js" => JS,
    "vendor/hljs/bash.min.js" => JS,
    "vendor/hljs/diff.min.js" => JS,
    "vendor/hljs/go.min.js" => JS,
    "vendor/hljs/javascript.min.js" => JS,
    "vendor/hljs/json.min.js" => JS,
    "vendor/hljs/python.min.js" => JS,
    "vendor/hljs/rust.min.js" => JS,
    "vendor/hljs/typescript.min.js" => JS,
    "vendor/hljs/xml.min.js" => JS,
    "vendor/hljs/yaml.min.js" => JS,
};

static INDEX: &[u8] = include_bytes!("../web/index.html");

/// The page's routes; merged into the relay's router.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/join/{room}", get(join_page))
        .route("/assets/{*path}", get(asset))
}

/// The web link for a terminal invite: `cohost[s]://HOST:PORT/ROOM#FRAGMENT`
/// becomes `http[s]://HOST:PORT/join/ROOM#FRAGMENT` (the same fragment:
/// token, and with end-to-end encryption the room key and the host's public
/// key). `None` when the string is not an invite.
pub fn web_link(invite: &str) -> Option<String> {
    let invite = invite.trim();
    let (scheme, rest) = if let Some(r) = invite.strip_prefix("cohosts://") {
        ("https", r)
    } else {
        ("http", invite.strip_prefix("cohost://")?)
    };
    let (before, fragment) = rest.split_once('#')?;
    let (authority, room) = before.split_once('/')?;
    let room = room.trim_end_matches('/');
    if authority.is_empty() || fragment.is_empty() || !is_valid_id(room) {
        return None;
    }
    Some(format!("{scheme}://{authority}/join/{room}#{fragment}"))
}

/// Is `host` safe to echo into a header (a `Host` value: name or address
/// and port, nothing else)?
fn plain_host(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 255
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'))
}

/// Whether a WebSocket upgrade's `Origin` is this relay itself (the page it
/// served), judged by the request's `Host`. Browsers always send `Origin`;
/// the page's own origin is allowed without configuring it.
pub(crate) fn is_same_origin(origin: &str, headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    plain_host(host) && (origin == format!("http://{host}") || origin == format!("https://{host}"))
}

/// The security headers of every page response.
fn secure(mut resp: Response, headers: &HeaderMap) -> Response {
    // `'self'` covers ws(s) to this origin in CSP 3; the explicit entries
    // keep older engines on the same single origin.
    let ws = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| plain_host(h))
        .map(|h| format!(" ws://{h} wss://{h}"))
        .unwrap_or_default();
    let csp = format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         connect-src 'self'{ws}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; \
         require-trusted-types-for 'script'; trusted-types dompurify"
    );
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&csp) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    resp
}

fn body(
    status: StatusCode,
    mime: &'static str,
    bytes: &'static [u8],
    cache: &'static str,
) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, mime), (header::CACHE_CONTROL, cache)],
        bytes,
    )
        .into_response()
}

/// `GET /join/{room}`: the page (the room id is read by the page from its URL).
async fn join_page(Path(room): Path<String>, headers: HeaderMap) -> Response {
    let resp = if is_valid_id(&room) {
        body(
            StatusCode::OK,
            "text/html; charset=utf-8",
            INDEX,
            "no-store",
        )
    } else {
        body(
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            b"no such room: a room id is 1..=64 characters of [A-Za-z0-9_-]",
            "no-store",
        )
    };
    secure(resp, &headers)
}

/// `GET /assets/{path}`: an embedded file, else 404.
async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    let resp = match ASSETS.iter().find(|a| a.path == path) {
        Some(a) => body(StatusCode::OK, a.mime, a.body, "no-cache"),
        None => body(
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            b"not found",
            "no-store",
        ),
    };
    secure(resp, &headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_links_keep_the_fragment_and_map_the_scheme() {
        assert_eq!(
            web_link("cohost://127.0.0.1:7070/r-1#a.b.c.KEY.PUB").as_deref(),
            Some("http://127.0.0.1:7070/join/r-1#a.b.c.KEY.PUB")
        );
        assert_eq!(
            web_link("cohosts://relay.example:443/r_2#t").as_deref(),
            Some("https://relay.example:443/join/r_2#t")
        );
        assert_eq!(web_link("https://x/r#t"), None);
        assert_eq!(web_link("cohost://x/r%2f#t"), None);
        assert_eq!(web_link("cohost://x/r#"), None);
    }

    #[test]
    fn same_origin_is_judged_by_the_host_header() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:7070"));
        assert!(is_same_origin("http://127.0.0.1:7070", &h));
        assert!(!is_same_origin("http://127.0.0.1:7071", &h));
        assert!(!is_same_origin("http://evil.example", &h));
        h.insert(header::HOST, HeaderValue::from_static("a;b"));
        assert!(!is_same_origin("http://a;b", &h));
    }

    #[test]
    fn every_asset_has_a_module_or_style_type() {
        for a in ASSETS {
            assert!(a.mime == JS || a.mime == CSS, "{}", a.path);
            assert!(!a.body.is_empty(), "{}", a.path);
        }
    }
}
