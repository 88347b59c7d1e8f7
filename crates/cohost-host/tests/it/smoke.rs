//! Smoke tests through the real session engine on the mock provider, and
//! the fingerprint cache.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use cohost_agents::mock::{MockFactory, MockOptions};
use cohost_core::{ErrorCode, Registry};
use cohost_host::{test_provider, SmokeStatus};
use common::Scratch;
use std::sync::Arc;
use std::time::Duration;

fn setup() -> (Scratch, cohost_discovery::Host, Arc<MockFactory>) {
    let s = Scratch::new();
    let mock = Arc::new(MockFactory::new(MockOptions {
        chunk_delay: Duration::ZERO,
        ..Default::default()
    }));
    let mut reg = Registry::new();
    reg.register(mock.clone()).unwrap();
    let host = s.host_with(reg, |_| {});
    (s, host, mock)
}

#[tokio::test]
async fn cache_hits_then_misses_when_the_fingerprint_changes() {
    let (s, host, mock) = setup();
    let r = test_provider(&host, "mock", false).await.unwrap();
    assert!(r.ok, "{r:?}");
    assert_eq!(r.status, SmokeStatus::Passed);
    assert!(!r.cached);
    assert!(r.output_preview.as_deref().unwrap().contains("OK"));
    assert_eq!(mock.created(), 1);

    let hit = test_provider(&host, "mock", false).await.unwrap();
    assert!(hit.cached && hit.ok);
    assert_eq!(hit.config_fingerprint, r.config_fingerprint);
    assert_eq!(mock.created(), 1, "a cache hit runs nothing");

    // A secret's value is not part of the fingerprint, its presence is.
    s.write_config("[providers.mock.env]\nMY_TOKEN = \"one\"\n");
    let with_token = test_provider(&host, "mock", false).await.unwrap();
    assert!(!with_token.cached);
    assert_eq!(mock.created(), 2);
    s.write_config("[providers.mock.env]\nMY_TOKEN = \"two\"\n");
    assert!(test_provider(&host, "mock", false).await.unwrap().cached);

    // A non-secret value and the model are.
    s.write_config("[providers.mock]\nmodel = \"text\"\n");
    let miss = test_provider(&host, "mock", false).await.unwrap();
    assert!(!miss.cached && miss.ok);
    assert_ne!(miss.config_fingerprint, r.config_fingerprint);
    assert_eq!(mock.created(), 3);

    // force reruns.
    let forced = test_provider(&host, "mock", true).await.unwrap();
    assert!(!forced.cached);
    assert_eq!(mock.created(), 4);

    // The cache survives in the state dir (a new process would hit it).
    let file = s.home.join(".local/state/cohost/smoke-tests.json");
    assert!(std::fs::read_to_string(file)
        .unwrap()
        .contains(&forced.config_fingerprint));
}

#[tokio::test]
async fn failures_and_timeouts_are_results() {
    let (s, mut host, _mock) = setup();
    s.write_config("[providers.mock]\nmodel = \"error:AUTH_REQUIRED\"\n");
    let r = test_provider(&host, "mock", false).await.unwrap();
    assert!(!r.ok);
    assert_eq!(r.status, SmokeStatus::Failed);
    assert_eq!(r.error.unwrap().code, ErrorCode::AuthRequired);

    s.write_config("[providers.mock]\nmodel = \"slow\"\n");
    host.timeouts.smoke = Duration::from_millis(300);
    let t0 = std::time::Instant::now();
    let r = test_provider(&host, "mock", false).await.unwrap();
    assert_eq!(r.status, SmokeStatus::Timeout, "{r:?}");
    assert!(
        t0.elapsed() < Duration::from_secs(4),
        "took {:?}",
        t0.elapsed()
    );

    // A CLI that is not installed fails without running anything.
    let r = test_provider(&host, "claude", false).await.unwrap();
    assert_eq!(r.error.unwrap().code, ErrorCode::ProviderNotFound);
}

/// The smoke test shows the answer, and a failure, through its host's
/// sanitizer: a value only that one knows (no shape, no secret name) is
/// redacted in the preview and in the error.
#[tokio::test]
async fn preview_and_errors_pass_the_hosts_sanitizer() {
    // Part of the mock's answer, and part of its `error:` scenario's message.
    const PLANTED: &str = "built-in mock agent";
    const FAILED: &str = "failed with AUTH_REQUIRED";
    for v in [PLANTED, FAILED] {
        assert_eq!(cohost_core::sanitize::global().sanitize(v), v);
    }
    let (s, host, _mock) = setup();
    let none: [(&str, &str); 0] = [];
    let given = cohost_core::Sanitizer::new(none, None).with_known_values([PLANTED, FAILED]);
    let host = host.with_sanitizer(Arc::new(given));
    let r = test_provider(&host, "mock", true).await.unwrap();
    assert!(r.ok, "{r:?}");
    let preview = r.output_preview.unwrap();
    assert!(preview.contains("[REDACTED]"), "{preview}");
    assert!(!preview.contains(PLANTED), "{preview}");

    s.write_config("[providers.mock]\nmodel = \"error:AUTH_REQUIRED\"\n");
    let failed = test_provider(&host, "mock", true).await.unwrap();
    let shown = serde_json::to_string(&failed).unwrap();
    assert_eq!(
        failed.error.as_ref().map(|e| e.code),
        Some(ErrorCode::AuthRequired)
    );
    assert!(shown.contains("[REDACTED]"), "{shown}");
    assert!(!shown.contains(FAILED), "{shown}");
}
