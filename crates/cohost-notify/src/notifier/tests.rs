//! The fan-out with sinks written for the test: a stuck sink delays no
//! one, a failing one is reported once.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::*;
use crate::notice::NoticeKind;

struct Stuck;

#[async_trait]
impl Sink for Stuck {
    fn name(&self) -> &str {
        "stuck"
    }
    async fn deliver(&mut self, _: &Notice) -> Result<(), String> {
        std::future::pending::<()>().await;
        Ok(())
    }
}

struct Failing;

#[async_trait]
impl Sink for Failing {
    fn name(&self) -> &str {
        "failing"
    }
    async fn deliver(&mut self, _: &Notice) -> Result<(), String> {
        Err("connection refused".into())
    }
}

struct Seen(Arc<Mutex<Vec<Notice>>>);

#[async_trait]
impl Sink for Seen {
    fn name(&self) -> &str {
        "seen"
    }
    async fn deliver(&mut self, n: &Notice) -> Result<(), String> {
        self.0.lock().unwrap().push(n.clone());
        Ok(())
    }
}

#[tokio::test]
async fn a_stuck_sink_delays_nobody_and_a_failing_one_is_reported_once() {
    let reports = Arc::new(Mutex::new(Vec::new()));
    let r = reports.clone();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let n = Notifier::new(Arc::new(crate::notice::shapes_only()))
        .on_report(move |m| r.lock().unwrap().push(m))
        .with_sink(Stuck)
        .with_sink(Failing)
        .with_sink(Seen(seen.clone()));
    let notice = Notice::new(
        &crate::notice::shapes_only(),
        NoticeKind::TurnEnded,
        "t",
        "b",
    );
    let started = std::time::Instant::now();
    for _ in 0..100 {
        n.notify(&notice);
    }
    assert!(started.elapsed() < Duration::from_millis(100));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert!(reports[0].contains("failing") && reports[0].contains("connection refused"));
    assert!(!seen.lock().unwrap().is_empty());
}

/// The notifier's own sanitizer, not the process's, makes the notice and
/// the report of a failing sink: a value only it knows is redacted in both.
#[tokio::test]
async fn notices_and_reports_pass_the_notifiers_sanitizer() {
    const PLANTED: &str = "planted-q7Xw2Lm9Rk4Zt8Vn";
    assert_eq!(cohost_core::sanitize::global().sanitize(PLANTED), PLANTED);
    struct Echoing;
    #[async_trait]
    impl Sink for Echoing {
        fn name(&self) -> &str {
            "echoing"
        }
        async fn deliver(&mut self, n: &Notice) -> Result<(), String> {
            Err(format!("refused {PLANTED} for {}", n.kind.as_str()))
        }
    }
    let reports = Arc::new(Mutex::new(Vec::new()));
    let r = reports.clone();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let given = Arc::new(crate::notice::shapes_only().with_known_values([PLANTED]));
    let n = Notifier::new(given)
        .on_report(move |m| r.lock().unwrap().push(m))
        .with_sink(Echoing)
        .with_sink(Seen(seen.clone()));
    let end = cohost_core::Event {
        id: "p.1".into(),
        prompt_id: "p".into(),
        correlation_id: "c".into(),
        ts: 0,
        agent: Some(format!("claude {PLANTED}")),
        body: cohost_core::EventBody::StreamEnd {
            reason: cohost_core::EndReason::Completed,
            usage: None,
        },
    };
    n.event(&end, "x");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].title, "cohost: claude [REDACTED] is done");
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert!(reports[0].contains("refused [REDACTED] for"), "{reports:?}");
    assert!(!reports[0].contains(PLANTED), "{reports:?}");
}
