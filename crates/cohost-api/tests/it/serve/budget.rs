//! `cohost serve --budget-tokens`: each session spends from a budget of
//! its own; the turn that spends it ends with reason `budget` after a
//! `budget` event, and the next prompt is answered 409 `BUDGET_EXCEEDED`.

use super::*;

async fn serve_budgeted(s: &Scratch, tokens: u64) -> SocketAddr {
    use cohost_agents::mock::{MockFactory, MockOptions};
    let mut reg = cohost_core::Registry::new();
    let mock = MockFactory::new(MockOptions {
        chunk_delay: Duration::ZERO,
        ..Default::default()
    });
    reg.register(std::sync::Arc::new(mock)).unwrap();
    let host = s.host_with(reg, |_| {});
    let budget = cohost_api::ServeBudget {
        limits: cohost_core::BudgetLimits {
            usd: None,
            tokens: Some(tokens),
        },
        prices: std::sync::Arc::new(cohost_core::budget::NoPrices),
    };
    let (addr, _task) =
        cohost_api::serve_budgeted("127.0.0.1:0".parse().unwrap(), host, Some(budget))
            .await
            .unwrap();
    addr
}

#[tokio::test]
async fn a_session_stops_at_its_budget_and_refuses_the_next_prompt_with_409() {
    let s = Scratch::new();
    let addr = serve_budgeted(&s, 5).await;
    let c = client(&s);
    let id = create_session(&c, addr, &s, None).await;
    let events = c
        .get(format!("http://{addr}/api/sessions/{id}/events"))
        .send()
        .await
        .unwrap();
    let r = c
        .post(format!("http://{addr}/api/sessions/{id}/prompt"))
        .json(&serde_json::json!({"text": "hello there"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
    let events = read_until(events, 1, |_| {}).await;
    let budget = events
        .iter()
        .find(|e| e["type"] == "budget")
        .unwrap_or_else(|| panic!("{events:?}"));
    assert_eq!(budget["level"], "exceeded");
    assert_eq!(events.last().unwrap()["reason"], "budget");

    let r = c
        .post(format!("http://{addr}/api/sessions/{id}/prompt"))
        .json(&serde_json::json!({"text": "again"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 409);
    let err: serde_json::Value = r.json().await.unwrap();
    assert_eq!(err["code"], "BUDGET_EXCEEDED", "{err}");
    assert!(err["suggested_fix"].as_str().unwrap().contains("raise"));

    // Another session has a budget of its own.
    let other = create_session(&c, addr, &s, None).await;
    let r = c
        .post(format!("http://{addr}/api/sessions/{other}/prompt"))
        .json(&serde_json::json!({"text": "hello"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
}
