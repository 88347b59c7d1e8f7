//! The "still waiting" line of `cohost run` on a terminal. Some agents say
//! nothing for a long time before their first output (OpenCode offline:
//! about a minute, then NETWORK_ERROR; a slow model on a large context: tens
//! of seconds), and a silent terminal reads as a hung cohost. After
//! [`FIRST`] with nothing from the agent, and every [`EVERY`] after, one
//! line on stderr says cohost is still waiting and how to stop.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cohost_core::{Event, EventBody};

/// Silence before the first notice.
pub const FIRST: Duration = Duration::from_secs(15);
/// Silence between later notices.
pub const EVERY: Duration = Duration::from_secs(60);

/// Whether `event` is something from the agent a person sees (text,
/// reasoning, tools, notices, errors), as opposed to cohost's own
/// bookkeeping (the turn's start, usage).
pub fn is_output(event: &Event) -> bool {
    !matches!(
        event.body,
        EventBody::StreamStart { .. } | EventBody::Usage(_) | EventBody::Unknown
    )
}

/// Say (through `say`) that cohost still waits for `agent`, after [`FIRST`]
/// and every [`EVERY`] after, until `heard` is set. Runs until then or
/// until it is dropped (abort it when the turn ends).
pub async fn notices(heard: Arc<AtomicBool>, agent: String, mut say: impl FnMut(String)) {
    let start = tokio::time::Instant::now();
    let mut waited = FIRST;
    loop {
        tokio::time::sleep_until(start + waited).await;
        if heard.load(Ordering::Relaxed) {
            return;
        }
        say(format!(
            "still waiting for {agent}: nothing from it after {} s (Ctrl+C stops)",
            waited.as_secs()
        ));
        waited += EVERY;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn watch() -> (Arc<AtomicBool>, Arc<Mutex<Vec<String>>>) {
        let heard = Arc::new(AtomicBool::new(false));
        let said = Arc::new(Mutex::new(Vec::new()));
        let lines = said.clone();
        tokio::spawn(notices(heard.clone(), "opencode".into(), move |l| {
            lines.lock().unwrap().push(l);
        }));
        (heard, said)
    }

    /// Paused time: sleeping lets the clock jump from timer to timer,
    /// running the watcher at each of its own.
    async fn advance(d: Duration) {
        tokio::time::sleep(d).await;
    }

    #[tokio::test(start_paused = true)]
    async fn silence_gets_a_notice_at_15_s_then_every_minute() {
        let (_heard, said) = watch();
        advance(FIRST - Duration::from_millis(1)).await;
        assert!(said.lock().unwrap().is_empty(), "nothing before 15 s");
        // Just past each deadline: at the same instant, which of two timers
        // runs first is not defined.
        advance(Duration::from_millis(2)).await;
        assert_eq!(said.lock().unwrap().len(), 1);
        advance(EVERY).await;
        assert_eq!(
            *said.lock().unwrap(),
            [
                "still waiting for opencode: nothing from it after 15 s (Ctrl+C stops)",
                "still waiting for opencode: nothing from it after 75 s (Ctrl+C stops)",
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn output_stops_the_notices() {
        let (heard, said) = watch();
        advance(FIRST + Duration::from_millis(1)).await;
        heard.store(true, Ordering::Relaxed);
        advance(EVERY * 3).await;
        let said = said.lock().unwrap().clone();
        assert_eq!(said.len(), 1, "{said:?}");
    }

    #[test]
    fn bookkeeping_is_not_output() {
        let ev = |body| Event {
            id: "p.0".into(),
            prompt_id: "p".into(),
            correlation_id: "c".into(),
            ts: 0,
            agent: None,
            body,
        };
        assert!(!is_output(&ev(EventBody::Usage(Default::default()))));
        assert!(is_output(&ev(EventBody::Status {
            message: "retrying".into(),
            retry_after_ms: None,
        })));
    }
}
