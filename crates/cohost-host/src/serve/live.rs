//! Sessions driven over the API: one task owns each `HostSession`; events
//! go to a replay buffer and a broadcast for SSE subscribers; approvals wait
//! for `POST /api/sessions/{id}/approvals/{tool_id}`.

use cohost_core::sync::lock;
use cohost_core::{CohostError, ErrorCode, Event, PromptInput, ProviderDescriptor, SessionControl};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::{broadcast, mpsc};

use crate::approvals::PendingApprovals;
use crate::session::OpenSession;

/// Events kept for late subscribers.
const REPLAY_LIMIT: usize = 10_000;

/// One session run by the server.
pub struct LiveSession {
    /// cohost session id.
    pub id: String,
    /// Provider id.
    pub provider: String,
    descriptor: ProviderDescriptor,
    cwd: PathBuf,
    prompts: mpsc::Sender<PromptInput>,
    control: SessionControl,
    /// Pending approvals.
    pub decisions: PendingApprovals,
    log: Arc<Mutex<Vec<Event>>>,
    events: broadcast::Sender<Event>,
}

impl LiveSession {
    /// Start a prepared session and the task that runs its prompts one at
    /// a time (the setup service keeps its record).
    pub async fn start(
        mut session: OpenSession,
        decisions: PendingApprovals,
    ) -> Result<Arc<LiveSession>, CohostError> {
        session.start().await?;
        let id = session.record_id().unwrap_or_default().to_string();
        let provider = session.descriptor().id.clone();
        let (prompts, mut rx) = mpsc::channel::<PromptInput>(16);
        let (events, _) = broadcast::channel(1024);
        let live = Arc::new(LiveSession {
            id,
            provider,
            descriptor: session.descriptor().clone(),
            cwd: session.cwd().to_path_buf(),
            prompts,
            control: session.control(),
            decisions,
            log: Arc::default(),
            events,
        });
        let weak = Arc::downgrade(&live);
        tokio::spawn(async move {
            while let Some(input) = rx.recv().await {
                let Some(live) = weak.upgrade() else { break };
                let mut sink = |ev: Event| live.publish(ev);
                session.prompt(input, &mut sink).await;
            }
            // Best effort on shutdown: the process group is killed either way.
            let _ = session.terminate().await;
        });
        Ok(live)
    }

    fn publish(&self, ev: Event) {
        // Append and send under one lock so a subscriber's snapshot plus its
        // receiver see every event exactly once.
        let mut log = lock(&self.log);
        if log.len() >= REPLAY_LIMIT {
            log.remove(0);
        }
        log.push(ev.clone());
        let _ = self.events.send(ev);
    }

    /// Past events and a receiver for the next ones.
    pub fn subscribe(&self) -> (Vec<Event>, broadcast::Receiver<Event>) {
        let log = lock(&self.log);
        (log.clone(), self.events.subscribe())
    }

    /// Queue a text prompt.
    pub async fn prompt(&self, text: String) -> Result<(), CohostError> {
        self.prompt_input(PromptInput::text(text)).await
    }

    /// A prompt with files and images read for this session (see
    /// [`crate::session::OpenSession::input`]).
    pub fn input(
        &self,
        text: String,
        files: &[String],
        images: &[PathBuf],
    ) -> Result<PromptInput, CohostError> {
        crate::session::attach::prompt_input(&self.descriptor, &self.cwd, text, files, images)
    }

    /// The session's working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Queue a prompt with its attachments.
    pub async fn prompt_input(&self, input: PromptInput) -> Result<(), CohostError> {
        self.prompts.send(input).await.map_err(|_| {
            CohostError::new(
                ErrorCode::ProcessCrashed,
                format!("session `{}` has ended", self.id),
            )
            .with_fix("create a new session")
        })
    }

    /// Run the interrupt ladder on the current turn.
    pub fn interrupt(&self) -> bool {
        self.control.interrupt()
    }
}
