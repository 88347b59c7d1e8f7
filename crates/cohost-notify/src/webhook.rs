//! The phone sink: an ntfy-compatible POST (the body is the message, the
//! `Title`, `Tags` and `Priority` headers the rest), to ntfy.sh, a
//! self-hosted ntfy, or any webhook that reads the same. Only the notice's
//! short title and body are sent: never the prompt, never a secret. A
//! failed POST is retried a bounded number of times; the URL (which may
//! hold a secret topic or token) never appears in a report.

use std::time::Duration;

use async_trait::async_trait;
use cohost_core::{CohostError, ErrorCode};

use crate::notice::Notice;
use crate::notifier::Sink;

/// Tries of one notice before it is given up.
pub const WEBHOOK_ATTEMPTS: u32 = 3;

/// How long one try may take.
const TRY_TIMEOUT: Duration = Duration::from_secs(5);

/// POSTs notices to a URL.
pub struct WebhookSink {
    url: reqwest::Url,
    client: reqwest::Client,
    backoff: Duration,
}

impl std::fmt::Debug for WebhookSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a secret: its host only.
        f.debug_struct("WebhookSink")
            .field("host", &self.url.host_str())
            .finish_non_exhaustive()
    }
}

/// Header values are visible ASCII: anything else becomes `?`.
fn header_text(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .collect()
}

impl WebhookSink {
    /// A sink for `url` (`http` or `https`).
    pub fn new(url: &str) -> Result<WebhookSink, CohostError> {
        let bad = |why: &str| {
            CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("the notification webhook URL {why}"),
            )
            .with_fix("give --notify (or notify.webhook) a URL such as https://ntfy.sh/YOUR-TOPIC")
        };
        let url = reqwest::Url::parse(url).map_err(|_| bad("is not a URL"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad("is neither http nor https"));
        }
        // reqwest is built without a bundled crypto provider (as in
        // cohost-agents): ring becomes the process default first; an error
        // only means one is installed already.
        let _already_installed = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(TRY_TIMEOUT)
            .build()
            .map_err(|e| bad(&format!("cannot be used: {}", e.without_url())))?;
        Ok(WebhookSink {
            url,
            client,
            backoff: Duration::from_millis(500),
        })
    }

    /// Wait `backoff`, then twice that, between tries (tests go faster).
    pub fn with_backoff(mut self, backoff: Duration) -> WebhookSink {
        self.backoff = backoff;
        self
    }

    async fn post(&self, n: &Notice) -> Result<(), String> {
        let priority = if n.kind.urgent() { "high" } else { "default" };
        let resp = self
            .client
            .post(self.url.clone())
            .header("Title", header_text(&n.title))
            .header("Tags", n.kind.as_str())
            .header("Priority", priority)
            .header("Content-Type", "text/plain; charset=utf-8")
            .body(n.body.clone())
            .send()
            .await
            .map_err(|e| e.without_url().to_string())?;
        let status = resp.status();
        if status.is_success() {
            Ok(())
        } else {
            Err(format!("the webhook answered {status}"))
        }
    }
}

#[async_trait]
impl Sink for WebhookSink {
    fn name(&self) -> &str {
        "webhook"
    }

    async fn deliver(&mut self, notice: &Notice) -> Result<(), String> {
        let mut wait = self.backoff;
        let mut last = String::new();
        for attempt in 1..=WEBHOOK_ATTEMPTS {
            match self.post(notice).await {
                Ok(()) => return Ok(()),
                Err(e) => last = e,
            }
            if attempt < WEBHOOK_ATTEMPTS {
                tokio::time::sleep(wait).await;
                wait *= 2;
            }
        }
        Err(format!("{last} ({WEBHOOK_ATTEMPTS} tries)"))
    }
}
