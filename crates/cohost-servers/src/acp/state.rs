//! [`AcpState`], what every handler of one ACP connection shares: the
//! connection's entry (`mod.rs`) and the prompt turn (`turn.rs`) both read
//! it.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use cohost_core::sync::lock;
use cohost_core::{ApprovalMode, CohostError, Sanitizer};

use crate::hub::{Hub, HubSession};

/// cohost's error as a JSON-RPC error, through `sanitizer` (the host's):
/// the code's name and the fix ride in `data`.
pub fn rpc_error(sanitizer: &Sanitizer, e: &CohostError) -> agent_client_protocol::Error {
    let mut data = serde_json::to_value(e).unwrap_or_default();
    sanitizer.sanitize_json(&mut data);
    agent_client_protocol::Error::new(
        agent_client_protocol::ErrorCode::INTERNAL_ERROR,
        sanitizer
            .sanitize(&format!("{}: {}", e.code, e.message))
            .into_owned(),
    )
    .data(data)
}

/// Shared by every handler of one connection.
pub struct AcpState {
    pub(super) hub: Hub,
    /// Who answers each session's approvals (`session/set_mode`).
    pub(super) modes: Mutex<HashMap<String, ApprovalMode>>,
    /// The sessions running a prompt (one at a time each).
    pub(super) running: Mutex<HashSet<String>>,
    /// With two or more: every `session/new` opens a room of these agents.
    pub(super) room_agents: Vec<String>,
    /// The rooms, by ACP session id.
    pub(super) rooms: Mutex<HashMap<String, AcpRoom>>,
}

impl AcpState {
    /// Sessions opened on `hub`.
    pub fn new(hub: Hub) -> Arc<AcpState> {
        AcpState::with_room(hub, Vec::new())
    }

    /// Sessions opened on `hub`, each a room of `agents` when they are two
    /// or more (`cohost acp --agent claude --agent codex`).
    pub fn with_room(hub: Hub, agents: Vec<String>) -> Arc<AcpState> {
        Arc::new(AcpState {
            hub,
            modes: Mutex::default(),
            running: Mutex::default(),
            room_agents: if agents.len() > 1 { agents } else { Vec::new() },
            rooms: Mutex::default(),
        })
    }

    /// The open session an ACP session's prompts go to: its own, or its
    /// room's selected member.
    pub(super) fn session(&self, id: &str) -> Result<Arc<HubSession>, CohostError> {
        let member = lock(&self.rooms)
            .get(id)
            .map(|r| r.current_session().to_string());
        self.hub.get(member.as_deref().unwrap_or(id))
    }

    /// `e` as a JSON-RPC error, through the host's sanitizer.
    pub(super) fn rpc_error(&self, e: &CohostError) -> agent_client_protocol::Error {
        rpc_error(&self.hub.host().sanitizer, e)
    }

    pub(super) fn mode(&self, id: &str) -> ApprovalMode {
        lock(&self.modes).get(id).copied().unwrap_or_default()
    }
}

/// One ACP session's room.
#[derive(Debug, Clone)]
pub(crate) struct AcpRoom {
    /// Each member's name and open session id, in order.
    pub(crate) members: Vec<(String, String)>,
    /// The member prompts go to.
    pub(crate) current: usize,
}
