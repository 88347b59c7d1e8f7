//! No secret of the corpus or the config reaches an API response.

use super::*;

/// A prompt full of secrets: nothing of the corpus reaches an SSE subscriber.
#[tokio::test]
async fn sse_carries_no_secret_of_the_corpus() {
    use cohost_core::sanitize::corpus;
    let s = Scratch::new();
    let addr = start(&s).await;
    let c = client(&s);
    let id = create_session(&c, addr, &s, None).await;
    let events_resp = c
        .get(format!("http://{addr}/api/sessions/{id}/events"))
        .send()
        .await
        .unwrap();
    let r = c
        .post(format!("http://{addr}/api/sessions/{id}/prompt"))
        .json(&serde_json::json!({"text": corpus::text()}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
    let mut seen = String::new();
    read_until(events_resp, 1, |ev| seen.push_str(&ev.to_string())).await;
    assert!(
        seen.contains("[REDACTED]"),
        "the prompt did not come back: {seen}"
    );
    assert_eq!(corpus::leaks(&seen), Vec::<&str>::new());
}

/// Config values full of secrets do not come back from the settings API.
#[tokio::test]
async fn settings_responses_carry_no_secret_of_the_config() {
    let s = Scratch::new();
    s.write_config(
        "[providers.ollama]\nendpoint = \"http://admin:p4ssw0rd-in-config@127.0.0.1:9/\"\n\n\
         [providers.mock]\nmodel = \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"\n",
    );
    let addr = start(&s).await;
    let c = client(&s);
    for path in [
        "/api/settings/providers",
        "/api/settings/providers/mock/status",
    ] {
        let body: String = c
            .get(format!("http://{addr}{path}"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(body.contains("mock"), "{path}: {body}");
        assert!(!body.contains("p4ssw0rd-in-config"), "{path}: {body}");
        assert!(
            !body.contains("abcdefghijklmnopqrstuvwxyz0123"),
            "{path}: {body}"
        );
    }
}
