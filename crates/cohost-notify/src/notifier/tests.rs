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
    let n = Notifier::new()
        .on_report(move |m| r.lock().unwrap().push(m))
        .with_sink(Stuck)
        .with_sink(Failing)
        .with_sink(Seen(seen.clone()));
    let notice = Notice::new(NoticeKind::TurnEnded, "t", "b");
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
