//! The token deny list behind [`super::Broker::revoke`]: a kicked
//! participant's token id, refused by every node until the token expires.
//! In memory for one process; in Redis (`<prefix>:revoked:<jti>`, expiring
//! with the token) when relays scale out.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Revoked token ids and their expiry; expired ones are forgotten (the
/// token is refused for its expiry anyway).
#[derive(Debug, Default)]
pub(crate) struct DenyList {
    ids: Mutex<HashMap<String, u64>>,
}

impl DenyList {
    pub(crate) fn insert(&self, jti: &str, exp: u64) {
        let now = now();
        let mut ids = self.ids.lock().unwrap_or_else(|p| p.into_inner());
        ids.retain(|_, e| *e > now);
        ids.insert(jti.to_string(), exp);
    }

    pub(crate) fn contains(&self, jti: &str) -> bool {
        let ids = self.ids.lock().unwrap_or_else(|p| p.into_inner());
        ids.get(jti).is_some_and(|e| *e > now())
    }
}

fn key(prefix: &str, jti: &str) -> String {
    format!("{prefix}:revoked:{jti}")
}

/// Remembers the revocation here at once and writes it to Redis in the
/// background (`SET key 1 EXAT exp`), for the other nodes.
pub(crate) fn redis_revoke(
    client: &redis::Client,
    prefix: &str,
    local: &DenyList,
    jti: &str,
    exp: u64,
) {
    local.insert(jti, exp);
    let client = client.clone();
    let key = key(prefix, jti);
    tokio::spawn(async move {
        let set = async {
            let mut conn = client.get_multiplexed_async_connection().await?;
            redis::cmd("SET")
                .arg(&key)
                .arg(1)
                .arg("EXAT")
                .arg(exp.max(now() + 1))
                .query_async::<()>(&mut conn)
                .await
        };
        if let Err(e) = set.await {
            tracing::warn!(error = %e, "cannot write a revoked token to redis; other nodes may still admit it");
        }
    });
}

/// Revoked here, or on any node through Redis. When Redis cannot be asked,
/// only this node's revocations count (logged): a Redis outage does not
/// lock every participant out.
pub(crate) async fn redis_is_revoked(
    client: &redis::Client,
    prefix: &str,
    local: &DenyList,
    jti: &str,
) -> bool {
    if local.contains(jti) {
        return true;
    }
    let asked = async {
        let mut conn = client.get_multiplexed_async_connection().await?;
        redis::cmd("EXISTS")
            .arg(key(prefix, jti))
            .query_async::<bool>(&mut conn)
            .await
    };
    match asked.await {
        Ok(revoked) => revoked,
        Err(e) => {
            tracing::warn!(error = %e, "cannot ask redis for revoked tokens; checking this node's only");
            false
        }
    }
}
