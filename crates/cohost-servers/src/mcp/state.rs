//! [`McpState`], what every MCP connection of one server shares: the
//! server's handler (`mod.rs`) and the tool calls (`run.rs`) both read it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use cohost_core::sync::lock;

use super::turn::TurnTracker;
use crate::hub::{Hub, HubSession};

/// A session's tracker, with the session it follows.
type Tracked = (Weak<HubSession>, Arc<TurnTracker>);

/// The state every MCP connection of one server shares.
pub struct McpState {
    pub(super) hub: Hub,
    /// Each open session's tracker, with the session it follows (a session
    /// reopened under the same id gets a new one).
    trackers: Mutex<HashMap<String, Tracked>>,
}

impl McpState {
    /// Sessions opened on `hub`.
    pub fn new(hub: Hub) -> Arc<McpState> {
        Arc::new(McpState {
            hub,
            trackers: Mutex::default(),
        })
    }

    /// The hub.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    pub(super) fn tracker(&self, s: &Arc<HubSession>) -> Arc<TurnTracker> {
        let mut trackers = lock(&self.trackers);
        trackers.retain(|_, (w, _)| w.strong_count() > 0);
        match trackers.get(s.id()) {
            Some((w, t)) if std::ptr::eq(w.as_ptr(), Arc::as_ptr(s)) => t.clone(),
            _ => {
                let t = Arc::new(TurnTracker::follow(s));
                trackers.insert(s.id().to_string(), (Arc::downgrade(s), t.clone()));
                t
            }
        }
    }
}
