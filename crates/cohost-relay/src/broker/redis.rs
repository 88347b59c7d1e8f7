//! Redis pub/sub broker. Channel per room: `<prefix>:room:<room>`; message body:
//! 8-byte big-endian origin node id followed by the encoded frame. Each node
//! PSUBSCRIBEs `<prefix>:room:*` and re-subscribes with backoff when the
//! connection drops. Publishing goes through one task that pipelines PUBLISH
//! commands in order over an auto-reconnecting connection manager.

use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use tokio::sync::mpsc;

use super::{Broker, BrokerError, BrokerEvent, BrokerSink};

const PUBLISH_QUEUE: usize = 65_536;
const PIPELINE_MAX: usize = 512;

/// Redis pub/sub broker.
pub struct RedisBroker {
    client: redis::Client,
    url: String,
    prefix: String,
    tx: mpsc::Sender<(String, Bytes)>,
    /// This node's own revocations, known before Redis answers.
    denied: super::deny::DenyList,
}

fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}***{}", &url[..s + 3], &url[at..]),
        _ => url.to_string(),
    }
}

impl RedisBroker {
    /// Connects to `url` (e.g. `redis://127.0.0.1:6379/`) and starts the publisher.
    /// `prefix` namespaces channels so several relay clusters can share one Redis.
    pub async fn connect(url: &str, prefix: &str) -> Result<RedisBroker, BrokerError> {
        let err = |e: redis::RedisError| BrokerError::Redis {
            url: redact(url),
            message: e.to_string(),
        };
        let client = redis::Client::open(url).map_err(err)?;
        let mut conn = client.get_connection_manager().await.map_err(err)?;
        let (tx, mut rx) = mpsc::channel::<(String, Bytes)>(PUBLISH_QUEUE);
        tokio::spawn(async move {
            let mut batch = Vec::with_capacity(PIPELINE_MAX);
            while rx.recv_many(&mut batch, PIPELINE_MAX).await > 0 {
                let mut pipe = redis::pipe();
                for (channel, body) in batch.drain(..) {
                    pipe.cmd("PUBLISH").arg(channel).arg(&body[..]).ignore();
                }
                if let Err(e) = pipe.query_async::<()>(&mut conn).await {
                    tracing::warn!(error = %e, "redis publish failed; frames for other nodes were lost");
                }
            }
        });
        Ok(RedisBroker {
            client,
            url: redact(url),
            prefix: prefix.to_string(),
            tx,
            denied: super::deny::DenyList::default(),
        })
    }

    async fn listen(
        client: &redis::Client,
        pattern: &str,
        prefix_len: usize,
        sink: &BrokerSink,
        resubscribed: bool,
    ) -> Result<(), redis::RedisError> {
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.psubscribe(pattern).await?;
        if resubscribed {
            sink(BrokerEvent::Resubscribed);
        }
        let mut stream = pubsub.on_message();
        while let Some(msg) = stream.next().await {
            let body = msg.get_payload_bytes();
            if body.len() < 8 {
                continue;
            }
            let mut o = [0u8; 8];
            o.copy_from_slice(&body[..8]);
            let room = msg
                .get_channel_name()
                .get(prefix_len..)
                .unwrap_or("")
                .to_string();
            sink(BrokerEvent::Frame {
                origin: u64::from_be_bytes(o),
                room,
                frame: Bytes::copy_from_slice(&body[8..]),
            });
        }
        Ok(())
    }
}

impl Broker for RedisBroker {
    fn publish(&self, room: &str, origin: u64, frame: &Bytes) {
        let mut body = Vec::with_capacity(8 + frame.len());
        body.extend_from_slice(&origin.to_be_bytes());
        body.extend_from_slice(frame);
        let channel = format!("{}:room:{room}", self.prefix);
        if self.tx.try_send((channel, Bytes::from(body))).is_err() {
            tracing::warn!(
                room,
                len = frame.len(),
                "redis publish queue full; frame not sent to other nodes"
            );
        }
    }

    fn subscribe(&self, sink: BrokerSink) {
        let client = self.client.clone();
        let url = self.url.clone();
        let pattern = format!("{}:room:*", self.prefix);
        let prefix_len = pattern.len() - 1;
        tokio::spawn(async move {
            let mut backoff = Duration::from_millis(50);
            let mut first = true;
            loop {
                let started = std::time::Instant::now();
                match RedisBroker::listen(&client, &pattern, prefix_len, &sink, !first).await {
                    Ok(()) => tracing::warn!(url = %url, "redis subscription ended; resubscribing"),
                    Err(e) => {
                        tracing::warn!(url = %url, error = %e, "redis subscription failed; retrying")
                    }
                }
                first = false;
                if started.elapsed() > Duration::from_secs(5) {
                    backoff = Duration::from_millis(50);
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(2));
            }
        });
    }

    fn name(&self) -> &'static str {
        "redis"
    }

    fn revoke(&self, jti: &str, exp: u64) {
        super::deny::redis_revoke(&self.client, &self.prefix, &self.denied, jti, exp);
    }

    fn is_revoked<'a>(&'a self, jti: &'a str) -> futures::future::BoxFuture<'a, bool> {
        Box::pin(super::deny::redis_is_revoked(
            &self.client,
            &self.prefix,
            &self.denied,
            jti,
        ))
    }
}
