//! A shared room for the multiplayer tests: an embedded relay, a host
//! bridge over the mock agent, a co-driver and a viewer, all connected.

use std::sync::Arc;
use std::time::Duration;

use cohost_cli::multiplayer::host::{HostBridge, HostInput, HostNotice, SuggestionPolicy};
use cohost_core::mock::{MockFactory, MockOptions};
use cohost_core::{AdapterConfig, HostSession, Policy, SessionOptions};
use cohost_host::session::OpenSession;
use cohost_protocol::Role;
use cohost_relay::{Relay, RelayClient, RelayConfig, RelayHandle};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Everything a room test drives.
pub struct Room {
    pub relay: RelayHandle,
    pub host: JoinHandle<OpenSession>,
    pub input: mpsc::UnboundedSender<HostInput>,
    pub notices: mpsc::UnboundedReceiver<HostNotice>,
    pub co: RelayClient,
    pub viewer: RelayClient,
}

/// A room whose mock agent waits `chunk_delay` between deltas.
pub async fn room(chunk_delay: Duration) -> Room {
    let relay = Relay::bind(RelayConfig::default()).await.unwrap();
    let room = relay.create_room(None).unwrap();
    let invite = |role, name| {
        relay
            .mint_invite(&room, role, 600, name)
            .unwrap()
            .to_string()
    };
    let host_client = RelayClient::connect_invite(&invite(Role::Host, "host"))
        .await
        .unwrap();
    let co = RelayClient::connect_invite(&invite(Role::CoDriver, "ana"))
        .await
        .unwrap();
    let viewer = RelayClient::connect_invite(&invite(Role::Viewer, "vic"))
        .await
        .unwrap();
    let factory = Arc::new(MockFactory::new(MockOptions {
        chunk_delay,
        ..MockOptions::default()
    }));
    let mut session = HostSession::new(
        factory,
        AdapterConfig::default(),
        Arc::new(Policy::AllowAll),
        SessionOptions::default(),
    );
    session.start().await.unwrap();
    let (notice_tx, notices) = mpsc::unbounded_channel();
    let (input, input_rx) = mpsc::unbounded_channel();
    let bridge = HostBridge::new(
        session.into(),
        host_client,
        SuggestionPolicy::Ask,
        None,
        notice_tx,
    );
    let host = tokio::spawn(bridge.run(input_rx));
    Room {
        relay,
        host,
        input,
        notices,
        co,
        viewer,
    }
}
