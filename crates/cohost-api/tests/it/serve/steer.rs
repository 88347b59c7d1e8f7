//! `POST /api/sessions/{id}/steer` and the queue routes on the mock: text
//! reaches the running turn of an agent that takes input mid-turn; for one
//! that does not it waits in the queue, which the API lists, reorders and
//! cancels, each change a `queue` event on `/events`.

use super::*;

async fn serve_steering(s: &Scratch, steer: bool) -> SocketAddr {
    use cohost_agents::mock::{MockFactory, MockOptions};
    let mut reg = cohost_core::Registry::new();
    let mock = MockFactory::new(MockOptions {
        chunk_delay: Duration::ZERO,
        slow_delay: Duration::from_millis(40),
        steer,
        ..Default::default()
    });
    reg.register(std::sync::Arc::new(mock)).unwrap();
    let host = s.host_with(reg, |_| {});
    let (addr, _task) = cohost_api::serve("127.0.0.1:0".parse().unwrap(), host)
        .await
        .unwrap();
    addr
}

async fn post(
    c: &reqwest::Client,
    url: String,
    body: serde_json::Value,
) -> (u16, serde_json::Value) {
    let r = c.post(url).json(&body).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or_default())
}

/// Start a slow turn on a new session; its id, its events' stream and the
/// session's base URL, once the turn streams.
async fn slow_turn(
    c: &reqwest::Client,
    addr: SocketAddr,
    s: &Scratch,
) -> (String, reqwest::Response) {
    let id = create_session(c, addr, s, None).await;
    let base = format!("http://{addr}/api/sessions/{id}");
    let events = c.get(format!("{base}/events")).send().await.unwrap();
    let (status, _) = post(
        c,
        format!("{base}/prompt"),
        serde_json::json!({"text": "[mock:slow]"}),
    )
    .await;
    assert_eq!(status, 202);
    // Steered text needs a streaming turn: wait for its first chunk.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the turn never streamed"
        );
        let q: serde_json::Value = c
            .get(format!("{base}/queue"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if q["items"].as_array().is_some_and(Vec::is_empty) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(150)).await;
    (base, events)
}

#[tokio::test]
async fn steered_text_reaches_the_running_turn_of_an_agent_that_takes_it() {
    let s = Scratch::new();
    let addr = serve_steering(&s, true).await;
    let c = client(&s);
    let (base, events) = slow_turn(&c, addr, &s).await;
    let (status, answer) = post(
        &c,
        format!("{base}/steer"),
        serde_json::json!({"text": "also look at b.rs", "by": "ana"}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["outcome"], "steered", "{answer}");
    let events = read_until(events, 1, |_| {}).await;
    let steered = events
        .iter()
        .find(|e| e["type"] == "steered")
        .unwrap_or_else(|| panic!("{events:#?}"));
    assert_eq!(steered["text"], "also look at b.rs");
    assert_eq!(steered["by"], "ana");
    assert_eq!(
        steered["prompt_id"], events[0]["prompt_id"],
        "in the running turn"
    );
    assert!(!events.iter().any(|e| e["type"] == "queue"));
}

#[tokio::test]
async fn without_mid_turn_input_steered_text_is_queued_listed_moved_and_dropped() {
    let s = Scratch::new();
    let addr = serve_steering(&s, false).await;
    let c = client(&s);
    let (base, events) = slow_turn(&c, addr, &s).await;
    let mut items = Vec::new();
    for text in ["[mock:say] one", "[mock:say] two", "[mock:say] three"] {
        let (status, answer) = post(
            &c,
            format!("{base}/steer"),
            serde_json::json!({"text": text}),
        )
        .await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["outcome"], "queued", "{answer}");
        assert_eq!(answer["item"]["text"], text);
        items.push(answer["item"]["id"].as_u64().unwrap());
    }
    let q: serde_json::Value = c
        .get(format!("{base}/queue"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let listed: Vec<u64> = q["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_u64().unwrap())
        .collect();
    assert_eq!(listed, items);
    // three first, two cancelled.
    let (status, q) = post(
        &c,
        format!("{base}/queue/{}/move", items[2]),
        serde_json::json!({"to": 0}),
    )
    .await;
    assert_eq!(status, 200, "{q}");
    let r = c
        .delete(format!("{base}/queue/{}", items[1]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let r = c
        .delete(format!("{base}/queue/{}", items[1]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400, "a number drops once");
    let err: serde_json::Value = r.json().await.unwrap();
    assert!(
        err["suggested_fix"].as_str().unwrap().contains("queue"),
        "{err}"
    );
    let r = c
        .delete(format!("{base}/queue/not-a-number"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    // The running turn, then three, then one.
    let events = read_until(events, 3, |_| {}).await;
    let answers: Vec<String> = events
        .split(|e| e["type"] == "stream_end")
        .map(|t| {
            t.iter()
                .filter(|e| e["type"] == "stream_chunk")
                .map(|e| e["delta"].as_str().unwrap())
                .collect::<String>()
                .trim()
                .to_string()
        })
        .collect();
    assert_eq!(answers[1..3], ["three", "one"], "{events:#?}");
    let changes: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "queue")
        .map(|e| e["change"].as_str().unwrap())
        .collect();
    assert_eq!(
        changes,
        ["added", "added", "added", "moved", "dropped", "started", "started"]
    );
    let added = events.iter().find(|e| e["type"] == "queue").unwrap();
    assert!(
        added["note"]
            .as_str()
            .unwrap()
            .contains("takes no input while a turn runs"),
        "{added}"
    );
}
