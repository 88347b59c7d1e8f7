//! The token each live connection of a node joined with: what a kick
//! puts on the broker's deny list ([`super::revoke`]).

use std::collections::HashMap;
use std::sync::Mutex;

/// The token each live connection of this node joined with.
#[derive(Debug, Default)]
pub(crate) struct Tokens {
    by_conn: Mutex<HashMap<u64, (String, u64)>>,
}

impl Tokens {
    /// Connection `conn` joined with token `jti`, expiring at `exp`.
    pub(crate) fn joined(&self, conn: u64, jti: &str, exp: u64) {
        let mut m = self.by_conn.lock().unwrap_or_else(|p| p.into_inner());
        m.insert(conn, (jti.to_string(), exp));
    }

    pub(crate) fn left(&self, conn: u64) {
        let mut m = self.by_conn.lock().unwrap_or_else(|p| p.into_inner());
        m.remove(&conn);
    }

    pub(super) fn get(&self, conn: u64) -> Option<(String, u64)> {
        let m = self.by_conn.lock().unwrap_or_else(|p| p.into_inner());
        m.get(&conn).cloned()
    }
}
