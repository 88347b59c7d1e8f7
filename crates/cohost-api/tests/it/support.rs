//! What only the API's tests need beside the shared scratch environment.

use std::sync::Arc;

use cohost_core::{Registry, Sanitizer};

use crate::common::Scratch;

/// `cohost serve` on 127.0.0.1:0 with the mock provider (no chunk delay),
/// for this scratch user; returns the bound address.
pub async fn serve_mock(s: &Scratch) -> std::net::SocketAddr {
    serve_mock_with(s, None).await
}

/// [`serve_mock`] on a host given `sanitizer`, when there is one (else the
/// host's own, built from the scratch environment).
pub async fn serve_mock_with(
    s: &Scratch,
    sanitizer: Option<Arc<Sanitizer>>,
) -> std::net::SocketAddr {
    use cohost_agents::mock::{MockFactory, MockOptions};
    let mut reg = Registry::new();
    let mock = MockFactory::new(MockOptions {
        chunk_delay: std::time::Duration::ZERO,
        ..Default::default()
    });
    reg.register(std::sync::Arc::new(mock)).unwrap();
    let mut host = s.host_with(reg, |_| {});
    if let Some(sanitizer) = sanitizer {
        host = host.with_sanitizer(sanitizer);
    }
    let (addr, _task) = cohost_api::serve("127.0.0.1:0".parse().unwrap(), host)
        .await
        .unwrap();
    addr
}
