//! The local API keeps its OpenAPI document's word (issue 18): every
//! rejection (not JSON, malformed JSON, the wrong shape, a bad query, an
//! unknown id, route or method) is cohost's JSON error with a code and a
//! fix, under a status the document lists for that operation; responses
//! match their schemas. The schemathesis run is `cohost-cli/tests/it/serve_schemathesis.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use common::Scratch;
use serde_json::Value;

struct Api {
    addr: std::net::SocketAddr,
    client: reqwest::Client,
    token: String,
    doc: Value,
}

impl Api {
    async fn start(s: &Scratch) -> Api {
        let addr = crate::support::serve_mock(s).await;
        let token = cohost_api::read_api_token(&s.host().paths)
            .unwrap()
            .as_str()
            .to_string();
        let client = cohost_agents::http::client_builder().build().unwrap();
        let doc = cohost_api::openapi_document();
        Api {
            addr,
            client,
            token,
            doc,
        }
    }

    fn req(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.client
            .request(method, format!("http://{}{path}", self.addr))
            .bearer_auth(&self.token)
    }

    /// Sends, then checks the answer is cohost's error JSON under a status
    /// the document lists for `(template, method)`; returns status and body.
    async fn refused(
        &self,
        rb: reqwest::RequestBuilder,
        template: Option<(&str, &str)>,
    ) -> (u16, Value) {
        let r = rb.send().await.unwrap();
        let status = r.status().as_u16();
        let ct = r
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        let text = r.text().await.unwrap();
        assert!(ct.starts_with("application/json"), "{status} {ct}: {text}");
        let body: Value = serde_json::from_str(&text).unwrap();
        for field in ["code", "message", "suggested_fix"] {
            assert!(body[field].is_string(), "{field} missing: {body}");
        }
        assert_eq!(body["retryable"], false, "{body}");
        if let Some((path, method)) = template {
            let documented = &self.doc["paths"][path][method]["responses"][status.to_string()];
            assert!(
                documented.is_object(),
                "{method} {path} answered {status}, which the document does not list"
            );
        }
        (status, body)
    }
}

#[tokio::test]
async fn body_rejections_are_json_errors_with_documented_statuses() {
    let s = Scratch::new();
    let api = Api::start(&s).await;
    let op = Some(("/api/sessions", "post"));
    let post = || api.req(reqwest::Method::POST, "/api/sessions");

    let (status, body) = api
        .refused(post().header("content-type", "text/plain").body("{}"), op)
        .await;
    assert_eq!(status, 415);
    assert!(body["suggested_fix"]
        .as_str()
        .unwrap()
        .contains("application/json"));

    let (status, _) = api
        .refused(
            post()
                .header("content-type", "application/json")
                .body("{not json"),
            op,
        )
        .await;
    assert_eq!(status, 400);

    let (status, body) = api
        .refused(
            post().json(&serde_json::json!({"provider": "mock", "cwd": ["a"]})),
            op,
        )
        .await;
    assert_eq!(status, 422);
    assert!(body["message"].as_str().unwrap().contains("cwd"), "{body}");

    let (status, _) = api
        .refused(
            api.req(reqwest::Method::POST, "/api/settings/providers/active")
                .json(&serde_json::json!({"model": "x"})),
            Some(("/api/settings/providers/active", "post")),
        )
        .await;
    assert_eq!(status, 422);

    let (status, _) = api
        .refused(
            api.req(
                reqwest::Method::POST,
                "/api/settings/providers/mock/test?force=maybe",
            ),
            Some(("/api/settings/providers/{id}/test", "post")),
        )
        .await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn unknown_ids_routes_and_methods_are_json_errors() {
    let s = Scratch::new();
    let api = Api::start(&s).await;
    let (status, body) = api
        .refused(
            api.req(reqwest::Method::POST, "/api/sessions/s-nope/prompt")
                .json(&serde_json::json!({"text": "hi"})),
            Some(("/api/sessions/{id}/prompt", "post")),
        )
        .await;
    assert_eq!(status, 404);
    assert!(body["message"].as_str().unwrap().contains("s-nope"));
    let (status, _) = api
        .refused(
            api.req(
                reqwest::Method::GET,
                "/api/settings/providers/nosuch/status",
            ),
            Some(("/api/settings/providers/{id}/status", "get")),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = api
        .refused(api.req(reqwest::Method::GET, "/api/nothing/here"), None)
        .await;
    assert_eq!(status, 404);
    let (status, _) = api
        .refused(
            api.req(reqwest::Method::PUT, "/api/sessions"),
            Some(("/api/sessions", "post")),
        )
        .await;
    assert_eq!(status, 405);
}

#[tokio::test]
async fn responses_match_their_schemas() {
    let s = Scratch::new();
    let api = Api::start(&s).await;
    // `POST /api/settings/providers/active` answers an ActiveProvider.
    let r = api
        .req(reqwest::Method::POST, "/api/settings/providers/active")
        .json(&serde_json::json!({"provider_id": "mock", "model": "m1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    let schema = &api.doc["components"]["schemas"]["ActiveProvider"];
    let props = schema["properties"].as_object().unwrap();
    for k in v.as_object().unwrap().keys() {
        assert!(props.contains_key(k), "`{k}` is not in the schema: {v}");
    }
    for k in schema["required"].as_array().unwrap() {
        assert!(v.get(k.as_str().unwrap()).is_some(), "{k} missing: {v}");
    }
    assert_eq!(v, serde_json::json!({"provider_id": "mock", "model": "m1"}));

    // A provider with no login answers a LoginCommand with no command.
    let r = api
        .req(reqwest::Method::POST, "/api/settings/providers/mock/login")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["command"], Value::Null, "{v}");
    assert!(v["note"].as_str().is_some_and(|n| !n.is_empty()), "{v}");
}

#[tokio::test]
async fn prompts_take_files_and_refuse_images_the_provider_cannot_take() {
    let s = Scratch::new();
    let api = Api::start(&s).await;
    let cwd = s.dir.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::write(cwd.join("a.txt"), "alpha\nbeta\n").unwrap();
    std::fs::write(cwd.join("p.png"), b"\x89PNG\r\n\x1a\n0000").unwrap();
    let created: Value = api
        .req(reqwest::Method::POST, "/api/sessions")
        .json(&serde_json::json!({"provider": "mock", "cwd": cwd}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap();
    let path = format!("/api/sessions/{id}/prompt");
    let op = Some(("/api/sessions/{id}/prompt", "post"));
    let r = api
        .req(reqwest::Method::POST, &path)
        .json(&serde_json::json!({"text": "hi", "files": ["a.txt:2"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let (status, body) = api
        .refused(
            api.req(reqwest::Method::POST, &path)
                .json(&serde_json::json!({"text": "hi", "images": ["p.png"]})),
            op,
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["code"], "UNSUPPORTED_MODE");
    let (status, body) = api
        .refused(
            api.req(reqwest::Method::POST, &path)
                .json(&serde_json::json!({"text": "hi", "files": ["missing.txt"]})),
            op,
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["code"], "CONFIG_INVALID");
}
