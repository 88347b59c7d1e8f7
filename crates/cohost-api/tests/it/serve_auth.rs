//! The local API is the user's alone: every request needs the bearer token
//! from the owner-only token file; without it (or with a wrong one) the
//! answer is 401 in cohost's error shape and no handler runs.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use common::Scratch;
use std::net::SocketAddr;
use std::os::unix::fs::PermissionsExt;

async fn start(s: &Scratch) -> SocketAddr {
    crate::support::serve_mock(s).await
}

fn http() -> reqwest::Client {
    cohost_agents::http::client_builder().build().unwrap()
}

/// `POST /api/sessions` for an `auto_approve` mock session, with `auth` as
/// the Authorization header when given.
async fn create(addr: SocketAddr, s: &Scratch, auth: Option<&str>) -> reqwest::Response {
    let cwd = s.dir.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let mut req = http()
        .post(format!("http://{addr}/api/sessions"))
        .json(&serde_json::json!({"provider": "mock", "cwd": cwd, "approval": "auto_approve"}));
    if let Some(a) = auth {
        req = req.header("authorization", a);
    }
    req.send().await.unwrap()
}

/// `token_file` is the path as the API shows it: through its host's
/// sanitizer, which shows the scratch home as `~` (as the binary's shows
/// the user's).
async fn assert_401(resp: reqwest::Response, token_file: &str) {
    assert_eq!(resp.status().as_u16(), 401);
    assert!(resp.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .starts_with("Bearer"));
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["code"], "AUTH_REQUIRED", "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("token"),
        "{body}"
    );
    let fix = body["suggested_fix"].as_str().unwrap();
    assert!(
        fix.contains(token_file),
        "the fix names the token file: {fix}"
    );
}

#[tokio::test]
async fn requests_without_the_users_token_get_401_and_run_nothing() {
    let s = Scratch::new();
    let addr = start(&s).await;
    let paths = s.host().paths;
    let file = cohost_api::api_token_file(&paths);
    let shown = s
        .host()
        .sanitizer
        .sanitize(&file.display().to_string())
        .into_owned();
    let token = cohost_api::read_api_token(&paths).unwrap();
    let good = format!("Bearer {}", token.as_str());
    let wrong = format!("Bearer {}", "0".repeat(token.as_str().len()));

    for auth in [
        None,
        Some(wrong.as_str()),
        Some("Bearer "),
        Some(&good[..good.len() - 1]),
        Some(token.as_str()), // the value without the scheme
        Some("Basic dXNlcjpwYXNz"),
    ] {
        assert_401(create(addr, &s, auth).await, &shown).await;
    }
    // Every route is behind the token, reads included.
    for path in [
        "/api/sessions",
        "/api/settings/providers",
        "/api/openapi.json",
        "/api/hooks/events",
    ] {
        let r = http()
            .get(format!("http://{addr}{path}"))
            .send()
            .await
            .unwrap();
        assert_401(r, &shown).await;
    }
    // Nothing ran: no session is live or stored.
    let listed: serde_json::Value = http()
        .get(format!("http://{addr}/api/sessions"))
        .header("authorization", &good)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed, serde_json::json!([]), "nothing was created");

    // With the token the same request works.
    let r = create(addr, &s, Some(&good)).await;
    assert_eq!(r.status().as_u16(), 201);
    let id = r.json::<serde_json::Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = http()
        .post(format!("http://{addr}/api/sessions/{id}/prompt"))
        .header("authorization", &good)
        .json(&serde_json::json!({"text": "hi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
    // The scheme is case-insensitive (RFC 9110).
    let r = http()
        .get(format!("http://{addr}/api/sessions"))
        .header("authorization", format!("bearer {}", token.as_str()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
}

#[tokio::test]
async fn the_token_file_is_owner_only_and_kept_across_restarts() {
    let s = Scratch::new();
    start(&s).await;
    let paths = s.host().paths;
    let file = cohost_api::api_token_file(&paths);
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(file.parent().unwrap()), 0o700);
    let first = cohost_api::read_api_token(&paths).unwrap();
    // A second server of the same user accepts the same token.
    let addr = start(&s).await;
    assert_eq!(cohost_api::read_api_token(&paths).unwrap(), first);
    let r = http()
        .get(format!("http://{addr}/api/sessions"))
        .bearer_auth(first.as_str())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
}

/// As root, a reader running as uid 65534 cannot read the token file even
/// when every directory above cohost's own is open to it.
#[tokio::test]
#[allow(unsafe_code)]
async fn another_user_cannot_read_the_token_file() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: not root, so no other uid to read the token file as");
        return;
    }
    let s = Scratch::new();
    start(&s).await;
    let file = cohost_api::api_token_file(&s.host().paths);
    // Open the scratch dirs above cohost's runtime dir to everyone, so only
    // cohost's own 0700 dir and 0600 file stand in the way.
    let mut dir = file.parent().unwrap().parent();
    while let Some(d) = dir {
        if !d.starts_with(s.dir.path()) {
            break;
        }
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        dir = d.parent();
    }
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg("cat")
        .arg(&file)
        .output()
        .unwrap();
    assert!(!out.status.success(), "uid 65534 read the token file");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Permission denied"), "{err}");
    // The same reader can list the opened scratch dir: the refusal is the
    // token's own permissions, not a broken setup.
    let ls = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg("ls")
        .arg(file.parent().unwrap().parent().unwrap())
        .output()
        .unwrap();
    assert!(
        ls.status.success(),
        "{}",
        String::from_utf8_lossy(&ls.stderr)
    );
}

/// The OpenAPI document declares the bearer scheme for every operation and
/// documents the 401.
#[tokio::test]
async fn openapi_documents_the_bearer_scheme_and_401() {
    let s = Scratch::new();
    let addr = start(&s).await;
    let token = cohost_api::read_api_token(&s.host().paths).unwrap();
    let text = http()
        .get(format!("http://{addr}/api/openapi.json"))
        .bearer_auth(token.as_str())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let doc: openapiv3::OpenAPI = serde_json::from_str(&text).unwrap();
    let schemes = &doc.components.as_ref().unwrap().security_schemes;
    match schemes["bearerAuth"].as_item().unwrap() {
        openapiv3::SecurityScheme::HTTP { scheme, .. } => assert_eq!(scheme, "bearer"),
        other => panic!("not an HTTP bearer scheme: {other:?}"),
    }
    let security = doc.security.as_ref().unwrap();
    assert!(security.iter().any(|r| r.contains_key("bearerAuth")));
    let mut operations = 0;
    for (path, item) in &doc.paths.paths {
        for (method, op) in item.as_item().unwrap().iter() {
            operations += 1;
            assert!(
                op.responses
                    .responses
                    .contains_key(&openapiv3::StatusCode::Code(401)),
                "{method} {path} does not document 401"
            );
        }
    }
    assert!(operations >= 14);
}
