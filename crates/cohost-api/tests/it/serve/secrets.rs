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

/// A value only the host's sanitizer knows (no shape rule, no secret name,
/// not in this process's environment): the process-wide sanitizer would
/// let it through, so finding it redacted shows the API used the value its
/// host was given.
const PLANTED: &str = "planted-q7Xw2Lm9Rk4Zt8Vn";

fn planted_sanitizer() -> std::sync::Arc<cohost_core::Sanitizer> {
    std::sync::Arc::new(cohost_core::Sanitizer::shapes_only().with_known_values([PLANTED]))
}

/// A JSON answer (an error naming the asked-for provider) and the SSE of a
/// prompt carrying the value both pass the host's sanitizer.
#[tokio::test]
async fn responses_and_sse_use_the_hosts_sanitizer() {
    assert_eq!(
        cohost_core::sanitize::global().sanitize(PLANTED),
        PLANTED,
        "the process-wide sanitizer must not know the planted value, or this test shows nothing"
    );
    let s = Scratch::new();
    let addr = crate::support::serve_mock_with(&s, Some(planted_sanitizer())).await;
    let c = client(&s);
    let r = c
        .post(format!("http://{addr}/api/settings/providers/active"))
        .json(&serde_json::json!({"provider_id": PLANTED}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    let body = r.text().await.unwrap();
    assert!(body.contains("[REDACTED]"), "{body}");
    assert!(!body.contains(PLANTED), "{body}");

    let id = create_session(&c, addr, &s, None).await;
    let events_resp = c
        .get(format!("http://{addr}/api/sessions/{id}/events"))
        .send()
        .await
        .unwrap();
    let r = c
        .post(format!("http://{addr}/api/sessions/{id}/prompt"))
        .json(&serde_json::json!({"text": format!("say {PLANTED} back")}))
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
    assert!(!seen.contains(PLANTED), "{seen}");
}

/// A hook event is sanitized on arrival with the feed's own sanitizer.
#[test]
fn the_hook_feed_uses_the_sanitizer_it_was_given() {
    let feed = cohost_api::HookFeed::new(planted_sanitizer());
    feed.publish(cohost_discovery::hooks::HookEvent {
        agent: format!("claude {PLANTED}"),
        payload: serde_json::json!({"hook_event_name": "PreToolUse", "command": PLANTED}),
    });
    let (past, _rx) = feed.subscribe();
    let shown = serde_json::to_string(&past[0]).unwrap();
    assert!(shown.contains("[REDACTED]"), "{shown}");
    assert!(!shown.contains(PLANTED), "{shown}");
}
