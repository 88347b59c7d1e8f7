//! What only the API's tests need beside the shared scratch environment.

use cohost_core::Registry;

use crate::common::Scratch;

/// `cohost serve` on 127.0.0.1:0 with the mock provider (no chunk delay),
/// for this scratch user; returns the bound address.
pub async fn serve_mock(s: &Scratch) -> std::net::SocketAddr {
    use cohost_agents::mock::{MockFactory, MockOptions};
    let mut reg = Registry::new();
    let mock = MockFactory::new(MockOptions {
        chunk_delay: std::time::Duration::ZERO,
        ..Default::default()
    });
    reg.register(std::sync::Arc::new(mock)).unwrap();
    let host = s.host_with(reg, |_| {});
    let (addr, _task) = cohost_api::serve("127.0.0.1:0".parse().unwrap(), host)
        .await
        .unwrap();
    addr
}
