//! Personal invites (`--invite NAME=ROLE`, `/invite NAME ROLE`) and the
//! invites minted by the relay's admin API for a room that is open: what
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
        let http = cohost_http::client_builder()
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
            .map_err(|e| admin_error(&self.base, "create a room", &e))?
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
            .map_err(|e| admin_error(&self.base, "mint an invite", &e))?
            .json()
            .await
            .map_err(|e| self.unexpected(e))?;
        Ok(created.invite)
    }
}

/// One `--invite NAME=ROLE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Personal {
    /// Who (display text; made inert).
    pub name: String,
    /// `co-driver` or `viewer`.
    pub role: Role,
}

/// `NAME=ROLE` (`--invite`, and `/invite NAME ROLE` as `NAME=ROLE`).
pub fn parse_personal(s: &str) -> Result<Personal, String> {
    let (name, role) = s
        .split_once('=')
        .ok_or("expected NAME=ROLE, e.g. ana=co-driver or bo=viewer")?;
    let name = cohost_core::sanitize::inert_line(name.trim());
    if name.is_empty() || name.len() > 64 {
        return Err("the name must be 1 to 64 characters".into());
    }
    let role = match role.trim() {
        "co-driver" | "codriver" | "co_driver" => Role::CoDriver,
        "viewer" => Role::Viewer,
        other => {
            return Err(format!(
                "unknown role {other:?}: a personal invite is for a co-driver or a viewer"
            ))
        }
    };
    Ok(Personal { name, role })
}

/// How a personal invite is shown to the host: whose, and the invite.
pub fn personal_line(p: &PersonalInvite) -> String {
    let role = if p.role == Role::CoDriver {
        "co-driver"
    } else {
        "viewer"
    };
    format!("for {} ({role}, personal): {}", p.name, p.invite)
}

/// A personal invite, made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonalInvite {
    /// Who.
    pub name: String,
    /// Their role.
    pub role: Role,
    /// The invite, keys included.
    pub invite: String,
}

/// The error for a failed admin request: the certificate's own cause and
/// fix when TLS verification failed, else what the relay answered.
fn admin_error(base: &str, what: &str, e: &reqwest::Error) -> CohostError {
    if let Some(problem) = cohost_relay::cert_problem(e) {
        return CohostError::new(
            ErrorCode::NetworkError,
            format!("cannot {what} at {base}: the relay's TLS certificate was refused: {problem}"),
        )
        .with_fix(problem.fix());
    }
    match e.status() {
        Some(s) if s.as_u16() == 401 || s.as_u16() == 403 => CohostError::new(
            ErrorCode::AuthRequired,
            format!("the relay refused to {what}: {s}"),
        )
        .with_fix("check --admin-secret (or COHOST_RELAY_ADMIN_SECRET)"),
        Some(s) => CohostError::new(
            ErrorCode::NetworkError,
            format!("the relay refused to {what}: {s}"),
        ),
        None => CohostError::new(
            ErrorCode::NetworkError,
            format!(
                "cannot reach the relay at {base}: {}",
                cohost_http::errors::error_chain(e)
            ),
        )
        .with_fix("check the address and that the relay is running"),
    }
}
