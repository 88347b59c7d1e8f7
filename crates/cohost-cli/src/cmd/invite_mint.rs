//! Invites minted by the relay's admin API for a room that is open: what
//! `cohost share` uses at start (for the relay at `--relay`, or the embedded
//! one, which serves the same API on 127.0.0.1) and again for `/invite NAME
//! ROLE` while the room runs. A minted invite carries the relay's token
//! only; the host adds the end-to-end keys (`HostKeys::issue`).

use std::sync::Arc;

use cohost_core::{CohostError, ErrorCode};
use cohost_protocol::Role;

/// What mints invites for one room.
#[derive(Clone)]
pub struct InviteMint {
    http: reqwest::Client,
    base: String,
    room: String,
    secret: Arc<str>,
    ttl: u64,
}

impl std::fmt::Debug for InviteMint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InviteMint")
            .field("base", &self.base)
            .field("room", &self.room)
            .field("secret", &"<redacted>")
            .finish()
    }
}

impl InviteMint {
    /// The relay at `base` (`http(s)://host:port`), trusting what the
    /// room's WebSocket trusts: the system's roots and `ca_file`.
    pub fn new(
        base: String,
        ca_file: Option<&std::path::Path>,
        secret: &str,
        ttl: u64,
    ) -> Result<InviteMint, CohostError> {
        let tls = cohost_relay::tls::client_config(ca_file).map_err(|e| {
            CohostError::new(ErrorCode::ConfigInvalid, e.to_string())
                .with_fix("pass --ca-file a readable PEM file holding the relay's CA certificate")
        })?;
        let http = cohost_agents::http::client_builder()
            .tls_backend_preconfigured(Arc::unwrap_or_clone(tls))
            .build()
            .map_err(|e| {
                CohostError::new(
                    ErrorCode::Unknown,
                    format!("cannot start an HTTP client: {e}"),
                )
            })?;
        Ok(InviteMint {
            http,
            base,
            room: String::new(),
            secret: Arc::from(secret),
            ttl,
        })
    }

    /// The same relay, for `room`.
    pub fn for_room(mut self, room: &str) -> InviteMint {
        self.room = room.to_string();
        self
    }

    fn unexpected(&self, e: reqwest::Error) -> CohostError {
        CohostError::new(
            ErrorCode::InvalidOutput,
            format!("unexpected answer from the relay at {}: {e}", self.base),
        )
        .with_fix("check that --relay points at a cohost relay")
    }

    /// A new room at the relay; the mint then mints for it.
    pub async fn create_room(self) -> Result<InviteMint, CohostError> {
        use cohost_relay::admin::{CreateRoom, RoomCreated};
        let room: RoomCreated = self
            .http
            .post(format!("{}/admin/rooms", self.base))
            .bearer_auth(&*self.secret)
            .json(&CreateRoom { room: None })
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| super::hosting::admin_error(&self.base, "create a room", &e))?
            .json()
            .await
            .map_err(|e| self.unexpected(e))?;
        Ok(self.for_room(&room.room))
    }

    /// An invite to the room for `role`, known to the relay as `name` (its
    /// own token: `/kick` revokes it alone).
    pub async fn mint(&self, role: Role, name: &str) -> Result<String, CohostError> {
        use cohost_relay::admin::{CreateInvite, InviteCreated};
        let created: InviteCreated = self
            .http
            .post(format!("{}/admin/rooms/{}/invites", self.base, self.room))
            .bearer_auth(&*self.secret)
            .json(&CreateInvite {
                role,
                ttl_secs: self.ttl,
                name: name.to_string(),
            })
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| super::hosting::admin_error(&self.base, "mint an invite", &e))?
            .json()
            .await
            .map_err(|e| self.unexpected(e))?;
        Ok(created.invite)
    }
}
