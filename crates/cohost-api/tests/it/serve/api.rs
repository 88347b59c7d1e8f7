//! The localhost guard, the OpenAPI document and the settings endpoints.

use super::*;

#[tokio::test]
async fn foreign_host_and_origin_are_refused() {
    let s = Scratch::new();
    let addr = start(&s).await;
    let port = addr.port();
    assert_eq!(
        raw_status(&s, addr, &format!("127.0.0.1:{port}"), None).await,
        200
    );
    assert_eq!(
        raw_status(
            &s,
            addr,
            &format!("localhost:{port}"),
            Some(&format!("http://localhost:{port}"))
        )
        .await,
        200
    );
    // DNS rebinding: the page's host name in Host.
    assert_eq!(
        raw_status(&s, addr, &format!("evil.example:{port}"), None).await,
        403
    );
    assert_eq!(
        raw_status(&s, addr, "127.0.0.1", None).await,
        403,
        "port must match"
    );
    // A cross-site page calling localhost.
    assert_eq!(
        raw_status(
            &s,
            addr,
            &format!("127.0.0.1:{port}"),
            Some("http://evil.example")
        )
        .await,
        403
    );
    assert_eq!(
        raw_status(&s, addr, &format!("127.0.0.1:{port}"), Some("null")).await,
        403
    );
    // And binding anything but loopback is refused.
    let e = cohost_api::serve("0.0.0.0:0".parse().unwrap(), s.host())
        .await
        .unwrap_err();
    assert_eq!(e.code, cohost_core::ErrorCode::LocalOnlyRequired);
}

#[tokio::test]
async fn openapi_document_is_valid_and_complete() {
    let s = Scratch::new();
    let addr = start(&s).await;
    let text = client(&s)
        .get(format!("http://{addr}/api/openapi.json"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let doc: openapiv3::OpenAPI = serde_json::from_str(&text).expect("a valid OpenAPI 3 document");
    assert!(doc.openapi.starts_with("3."));
    let mut paths: Vec<&str> = doc.paths.paths.keys().map(String::as_str).collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        [
            "/api/hooks/events",
            "/api/openapi.json",
            "/api/rooms",
            "/api/sessions",
            "/api/sessions/{id}",
            "/api/sessions/{id}/approvals/{tool_id}",
            "/api/sessions/{id}/changes",
            "/api/sessions/{id}/events",
            "/api/sessions/{id}/interrupt",
            "/api/sessions/{id}/prompt",
            "/api/sessions/{id}/queue",
            "/api/sessions/{id}/queue/{item}",
            "/api/sessions/{id}/queue/{item}/move",
            "/api/sessions/{id}/steer",
            "/api/sessions/{id}/undo",
            "/api/settings/providers",
            "/api/settings/providers/active",
            "/api/settings/providers/{id}/login",
            "/api/settings/providers/{id}/status",
            "/api/settings/providers/{id}/test",
        ]
    );
    // Every documented operation is routed (a missing route is 404 with an empty body or 405).
    let client = client(&s);
    for (path, item) in &doc.paths.paths {
        let item = item.as_item().unwrap();
        let url = format!(
            "http://{addr}{}",
            path.replace("{id}", "mock")
                .replace("{tool_id}", "t")
                .replace("{item}", "1")
        );
        for (method, op) in [
            ("GET", &item.get),
            ("POST", &item.post),
            ("DELETE", &item.delete),
        ] {
            if op.is_none() || path.ends_with("/events") {
                continue;
            }
            let resp = client
                .request(method.parse().unwrap(), &url)
                .json(&serde_json::json!({}))
                .send()
                .await
                .unwrap();
            assert_ne!(resp.status().as_u16(), 405, "{method} {path} not routed");
            let body = resp.text().await.unwrap();
            assert!(!body.is_empty(), "{method} {path} answered nothing");
        }
    }
}

#[tokio::test]
async fn settings_endpoints() {
    let s = Scratch::new();
    s.stub_on_path("claude", &claude_script("2.1.332", 1));
    let addr = start(&s).await;
    let c = client(&s);
    let get = |p: &str| c.get(format!("http://{addr}{p}")).send();

    let st: serde_json::Value = get("/api/settings/providers/claude/status")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(st["status"], "needs_auth");
    assert_eq!(st["discovery"]["command_source"], "path");
    let r = get("/api/settings/providers/nope/status").await.unwrap();
    assert_eq!(r.status().as_u16(), 404);
    let e: serde_json::Value = r.json().await.unwrap();
    assert_eq!(e["code"], "PROVIDER_NOT_FOUND");

    let login: serde_json::Value = c
        .post(format!("http://{addr}/api/settings/providers/claude/login"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        login["command"]
            .as_str()
            .unwrap()
            .ends_with("claude auth login"),
        "{login}"
    );

    let t: serde_json::Value = c
        .post(format!("http://{addr}/api/settings/providers/mock/test"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(t["status"], "passed", "{t}");
    let t: serde_json::Value = c
        .post(format!("http://{addr}/api/settings/providers/mock/test"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(t["cached"], true);

    let r = c
        .post(format!("http://{addr}/api/settings/providers/active"))
        .json(&serde_json::json!({"provider_id": "mock"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let list: serde_json::Value = get("/api/settings/providers")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["active_provider"], "mock");
    assert!(list["providers"].as_array().unwrap().len() >= 16);
    let saved = std::fs::read_to_string(s.home.join(".config/cohost/config.toml")).unwrap();
    assert!(saved.contains("active_provider = \"mock\""), "{saved}");
}
