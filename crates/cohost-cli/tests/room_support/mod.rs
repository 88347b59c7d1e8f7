//! A shared room for the multiplayer tests: an embedded relay, a host
//! bridge over the mock agent, a co-driver and a viewer, all connected.

// Each test crate uses a part of it.

use std::sync::Arc;
use std::time::Duration;

use cohost_agents::mock::{MockFactory, MockOptions};
use cohost_core::{AdapterConfig, HostSession, Policy, SessionOptions};
use cohost_host::session::OpenSession;
use cohost_protocol::Frame;
use cohost_protocol::Role;
use cohost_relay::{Relay, RelayClient, RelayConfig, RelayHandle};
use cohost_share::Message;
use cohost_sharing::host::{HostBridge, HostInput, HostNotice, SuggestionPolicy};
use cohost_sharing::keys::HostKeys;
use cohost_sharing::session::{JoinOptions, ParticipantEvent, ParticipantSession};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Everything a room test drives.
pub struct Room {
    pub relay: RelayHandle,
    pub host: JoinHandle<cohost_session::Room>,
    pub input: mpsc::UnboundedSender<HostInput>,
    pub notices: mpsc::UnboundedReceiver<HostNotice>,
    pub co: ParticipantSession,
    pub viewer: ParticipantSession,
    /// The invite the viewer joined with (keys included).
    pub viewer_invite: String,
}

/// Joining options for a test participant: no name, the system's roots,
/// a fresh identity, and a sanitizer built from this process's environment.
pub fn join_options() -> JoinOptions {
    JoinOptions::new(Arc::new(
        cohost_core::sanitize::Sanitizer::from_process_env(),
    ))
}

/// The next frame a participant opened (and its message), skipping other events.
pub async fn next_frame(p: &mut ParticipantSession) -> (Frame, Option<Message>) {
    loop {
        match tokio::time::timeout(Duration::from_secs(20), p.next())
            .await
            .expect("a frame in time")
        {
            Some(ParticipantEvent::Frame { frame, message, .. }) => {
                return (frame, message.map(|m| *m))
            }
            Some(_) => continue,
            None => panic!("participant closed"),
        }
    }
}

/// A received frame's payload as the host wrote it (opened).
pub fn payload_json(p: &ParticipantSession, f: &Frame) -> serde_json::Value {
    serde_json::from_slice(&p.codec().open(f).unwrap().body).unwrap()
}

/// How a room test's relay and host are set up.
pub struct Setup {
    /// The host's policy for co-driver interrupts.
    pub interrupts: SuggestionPolicy,
    /// The relay's settings (a TLS proxy in front: `public_tls`, `public_authority`).
    pub config: RelayConfig,
    /// The CA everyone trusts for `cohosts://`.
    pub ca_file: Option<std::path::PathBuf>,
    /// Told the relay's address once it is bound (a proxy in front of it).
    pub upstream: Option<Arc<std::sync::OnceLock<std::net::SocketAddr>>>,
    /// A room of several mock agents under these member names (empty: one
    /// agent, a session as `cohost share` without a room of several).
    pub members: Vec<&'static str>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            interrupts: SuggestionPolicy::Ask,
            config: RelayConfig::default(),
            ca_file: None,
            upstream: None,
            members: Vec::new(),
        }
    }
}

/// A room on a default relay whose host asks about co-driver interrupts.
/// A secret value only the host's sanitizer knows (as the binary's knows
/// the values of its environment): nothing the host says to the room may
/// carry it.
pub const HOST_SECRET: &str = "host-only-secret-value-9Vt3";

pub async fn room(chunk_delay: Duration) -> Room {
    room_with(chunk_delay, Setup::default()).await
}

/// A room whose mock agent waits `chunk_delay` between deltas, set up by `setup`.
pub async fn room_with(chunk_delay: Duration, setup: Setup) -> Room {
    let Setup {
        interrupts,
        config,
        ca_file,
        upstream,
        members,
    } = setup;
    let relay = Relay::bind(config).await.unwrap();
    if let Some(u) = upstream {
        u.set(relay.local_addr()).unwrap();
    }
    let room = relay.create_room(None).unwrap();
    let invite = |role, name| {
        relay
            .mint_invite(&room, role, 600, name)
            .unwrap()
            .to_string()
    };
    let host_invite = cohost_protocol::Invite::parse(&invite(Role::Host, "host")).unwrap();
    let mut host_cfg = cohost_relay::ClientConfig::from_invite(&host_invite);
    host_cfg.ca_file = ca_file.clone();
    let host_client = RelayClient::connect(host_cfg).await.unwrap();
    let mut keys = HostKeys::generate(cohost_protocol::RoomId::new(&room).unwrap()).unwrap();
    let mut keyed = |role, name| {
        cohost_protocol::Invite::parse(&invite(role, name))
            .unwrap()
            .with_keys(keys.issue(role, None).unwrap())
            .to_string()
    };
    let (co_invite, viewer_invite) = (keyed(Role::CoDriver, "ana"), keyed(Role::Viewer, "vic"));
    let mock = || async {
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
        OpenSession::from(session).into_running()
    };
    let (notice_tx, notices) = mpsc::unbounded_channel();
    let (input, input_rx) = mpsc::unbounded_channel();
    let bridge = if members.is_empty() {
        HostBridge::new(mock().await, host_client, SuggestionPolicy::Ask, notice_tx)
    } else {
        let mut room = Vec::new();
        for name in members {
            room.push(cohost_session::Member {
                name: name.into(),
                session: mock().await,
            });
        }
        let room = cohost_session::Room::new(room).unwrap();
        HostBridge::for_room(room, host_client, SuggestionPolicy::Ask, notice_tx)
    };
    let bridge = bridge
        .with_keys(keys)
        .with_interrupt_policy(interrupts)
        .with_sanitizer(std::sync::Arc::new(
            cohost_core::sanitize::Sanitizer::shapes_only().with_known_values([HOST_SECRET]),
        ));
    let host = tokio::spawn(bridge.run(input_rx));
    let join = |invite: String, name: &str| {
        let opts = JoinOptions {
            name: Some(name.to_string()),
            ca_file: ca_file.clone(),
            ..join_options()
        };
        async move { ParticipantSession::join(&invite, opts).await.unwrap() }
    };
    let co = join(co_invite.clone(), "ana").await;
    let viewer = join(viewer_invite.clone(), "vic").await;
    Room {
        relay,
        host,
        input,
        notices,
        co,
        viewer,
        viewer_invite,
    }
}
