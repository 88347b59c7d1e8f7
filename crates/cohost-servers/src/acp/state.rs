//! [`AcpState`], what every handler of one ACP connection shares: the
//! connection's entry (`mod.rs`) and the prompt turn (`turn.rs`) both read
//! it.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use cohost_core::sync::lock;
use cohost_core::ApprovalMode;

use crate::hub::Hub;

/// Shared by every handler of one connection.
pub struct AcpState {
    pub(super) hub: Hub,
    /// Who answers each session's approvals (`session/set_mode`).
    pub(super) modes: Mutex<HashMap<String, ApprovalMode>>,
    /// The sessions running a prompt (one at a time each).
    pub(super) running: Mutex<HashSet<String>>,
}

impl AcpState {
    /// Sessions opened on `hub`.
    pub fn new(hub: Hub) -> Arc<AcpState> {
        Arc::new(AcpState {
            hub,
            modes: Mutex::default(),
            running: Mutex::default(),
        })
    }

    pub(super) fn mode(&self, id: &str) -> ApprovalMode {
        lock(&self.modes).get(id).copied().unwrap_or_default()
    }
}
