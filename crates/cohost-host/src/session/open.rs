//! A session opened by the setup service: the engine's [`HostSession`] plus
//! its record in the session store, kept up to date after every turn.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use cohost_core::port::inline_context_files;
use cohost_core::{
    Checkpoints, CohostError, EventSink, HostSession, PromptInput, ProviderDescriptor, Sanitizer,
    SessionControl, State, TurnOutcome,
};
use cohost_session::{
    Checkpointed, LogLimits, PendingApprovals, RunningSession, SessionInfo, Turns,
};

use crate::store::{SessionRecord, SessionStore};

/// A prepared (then started) session. Every front end runs it as a
/// [`RunningSession`] ([`OpenSession::launch`]), whose task runs its turns
/// through [`Turns`], so the events, the record bookkeeping and the
/// lifecycle are the same whichever front end drives it.
pub struct OpenSession {
    session: HostSession,
    record: Option<(SessionStore, SessionRecord)>,
    fell_back: bool,
    cwd: PathBuf,
    default_note: Option<String>,
    credential_hint: Option<String>,
    approvals: Option<PendingApprovals>,
    checkpoints: Option<Arc<dyn Checkpoints>>,
    /// Where the signed record goes (the state directory) and what its
    /// strings pass (the host's sanitizer), for a recorded session; its
    /// recorder once the session runs.
    signed: Option<(PathBuf, Arc<Sanitizer>)>,
    recorder: Option<Arc<crate::record::Recorder>>,
    /// The budget the session spends from, when it has one.
    budget: Option<cohost_session::BudgetSeat>,
}

impl From<HostSession> for OpenSession {
    /// An unrecorded session built by hand (tests, embedders).
    fn from(session: HostSession) -> Self {
        let cwd = session.config().cwd.clone();
        OpenSession::new(session, None, false, cwd)
    }
}

impl OpenSession {
    pub(super) fn new(
        session: HostSession,
        record: Option<(SessionStore, SessionRecord)>,
        fell_back: bool,
        cwd: PathBuf,
    ) -> OpenSession {
        OpenSession {
            session,
            record,
            fell_back,
            cwd,
            default_note: None,
            credential_hint: None,
            approvals: None,
            checkpoints: None,
            signed: None,
            recorder: None,
            budget: None,
        }
    }

    /// Keep a signed record of the session in `state_dir` (a recorded
    /// session only: the record is named by its id), its strings passing
    /// `sanitizer`.
    pub(super) fn with_signed_record(
        mut self,
        state_dir: Option<PathBuf>,
        sanitizer: Arc<Sanitizer>,
    ) -> OpenSession {
        self.signed = state_dir
            .filter(|_| self.record.is_some())
            .map(|dir| (dir, sanitizer));
        self
    }

    /// The directory the agent runs in (relative attachments are its).
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// A prompt with attachments, for every front end: `files` are
    /// `PATH[:A-B]` specs, `images` paths; both relative to the session's
    /// cwd. An unreadable file or bad range is CONFIG_INVALID, an image for
    /// a provider that takes none UNSUPPORTED_MODE, each with a fix.
    pub fn input(
        &self,
        text: impl Into<String>,
        files: &[String],
        images: &[PathBuf],
    ) -> Result<PromptInput, super::attach::AttachError> {
        super::attach::prompt_input(self.descriptor(), &self.cwd, text, files, images)
    }

    pub(super) fn with_default_note(mut self, note: Option<String>) -> OpenSession {
        self.default_note = note;
        self
    }

    pub(super) fn with_checkpoints(
        mut self,
        checkpoints: Option<Arc<dyn Checkpoints>>,
    ) -> OpenSession {
        self.checkpoints = checkpoints;
        self
    }

    /// Whether the working tree is recorded around each turn.
    pub fn checkpointed(&self) -> bool {
        self.checkpoints.is_some()
    }

    /// Spend from `seat`'s budget (a room's members share one budget, each
    /// at a seat of its own): the running session enforces it.
    pub fn with_budget(mut self, seat: Option<cohost_session::BudgetSeat>) -> OpenSession {
        self.budget = seat;
        self
    }

    pub(super) fn with_approvals(mut self, approvals: Option<PendingApprovals>) -> OpenSession {
        self.approvals = approvals;
        self
    }

    /// The session's record as it will be stored, when it is recorded.
    pub fn record(&self) -> Option<&SessionRecord> {
        self.record.as_ref().map(|(_, r)| r)
    }

    /// Start the agent (see [`OpenSession::start`]) and run the session in
    /// a task of its own: the handle every front end drives it through.
    pub async fn launch(mut self) -> Result<RunningSession, CohostError> {
        self.start().await?;
        Ok(self.into_running())
    }

    /// Run this started session in a task of its own (see
    /// [`OpenSession::launch`]).
    pub fn into_running(mut self) -> RunningSession {
        let info = SessionInfo {
            record_id: self.record_id().map(String::from),
            descriptor: self.descriptor().clone(),
            cwd: self.cwd.clone(),
            model: self.session.config().model.clone(),
        };
        let approvals = self.approvals.take();
        self.recorder = match (&self.signed, self.record()) {
            (Some((dir, sanitizer)), Some(rec)) => {
                match crate::record::Recorder::open(dir, rec, sanitizer.clone()) {
                    Ok(r) => Some(r),
                    Err(e) => {
                        tracing::warn!(error = %e, "this session has no signed record");
                        None
                    }
                }
            }
            _ => None,
        };
        let recorder = self.recorder.clone();
        let budget = self.budget.take();
        let running = match self.checkpoints.take() {
            Some(cp) => RunningSession::spawn_budgeted(
                Checkpointed::new(self, cp),
                info,
                approvals,
                LogLimits::default(),
                budget,
            ),
            None => {
                RunningSession::spawn_budgeted(self, info, approvals, LogLimits::default(), budget)
            }
        };
        if let Some(r) = recorder {
            r.follow(&running);
        }
        running
    }

    pub(super) fn with_credential_hint(mut self, hint: Option<String>) -> OpenSession {
        self.credential_hint = hint;
        self
    }

    /// When no provider was named: which agent runs and why (the first
    /// ready one, or the mock because none is ready). Front ends print it.
    pub fn default_note(&self) -> Option<&str> {
        self.default_note.as_deref()
    }

    /// Whether no provider was named and none is ready, so the built-in
    /// mock runs (front ends say so, with [`OpenSession::default_note`]).
    pub fn fell_back(&self) -> bool {
        self.fell_back
    }

    /// The cohost session id in the store, when recorded.
    pub fn record_id(&self) -> Option<&str> {
        self.record.as_ref().map(|(_, r)| r.id.as_str())
    }

    /// The provider's descriptor.
    pub fn descriptor(&self) -> &ProviderDescriptor {
        self.session.descriptor()
    }

    /// A handle to interrupt the running turn from elsewhere.
    pub(crate) fn control(&self) -> SessionControl {
        self.session.control()
    }

    /// The lifecycle state.
    pub fn state(&self) -> State {
        self.session.state()
    }

    /// The agent's native session id, once known.
    pub fn native_session_id(&self) -> Option<&str> {
        self.session.native_session_id()
    }

    /// Start the agent, then write the session record (a store that cannot
    /// be written is logged: the session itself is usable).
    pub async fn start(&mut self) -> Result<(), CohostError> {
        self.session.start().await?;
        if let Some((store, rec)) = &mut self.record {
            rec.native_session_id = self.session.native_session_id().map(String::from);
            match store.upsert(rec.clone()) {
                Ok(stored) => *rec = stored,
                Err(e) => tracing::warn!(error = %e, "could not record the session"),
            }
        }
        Ok(())
    }

    /// Run one turn, every engine event into `sink`, then bring the record
    /// up to date (native id, one more turn seen).
    pub(crate) async fn prompt(
        &mut self,
        input: PromptInput,
        sink: &mut dyn EventSink,
    ) -> TurnOutcome {
        let (outcome, native) = self.turn(input, sink).await;
        record_turn(&mut self.record, native);
        outcome
    }

    /// One turn, attachments placed for the provider; with the native id
    /// known after it, for the record.
    async fn turn(
        &mut self,
        input: PromptInput,
        sink: &mut dyn EventSink,
    ) -> (TurnOutcome, Option<String>) {
        if let Some(r) = &self.recorder {
            r.prompt(&input);
        }
        let input = attach(self.session.descriptor(), input);
        let outcome = match &self.credential_hint {
            Some(hint) => {
                let mut hinted = super::no_credentials::Hinted::new(sink, hint);
                let mut outcome = self.session.prompt(input, &mut hinted).await;
                if let Some(e) = outcome.error.as_mut() {
                    super::no_credentials::add_to_fix(e, hint);
                }
                outcome
            }
            None => self.session.prompt(input, sink).await,
        };
        (outcome, self.session.native_session_id().map(String::from))
    }

    /// [`OpenSession::prompt`] then [`OpenSession::terminate`], for a front
    /// end with one prompt (`cohost run`): the agent is told to stop before
    /// the record is written, so its exit and the record's fsyncs overlap
    /// instead of adding up.
    pub(crate) async fn prompt_then_terminate(
        &mut self,
        input: PromptInput,
        sink: &mut dyn EventSink,
    ) -> (TurnOutcome, Result<(), CohostError>) {
        let (outcome, native) = self.turn(input, sink).await;
        let record = &mut self.record;
        // Polled first, so the stop request is out before the record's
        // (blocking) write.
        let (stopped, ()) = tokio::join!(self.session.terminate(), async move {
            record_turn(record, native);
        });
        (outcome, stopped)
    }

    /// Stop the agent. Idempotent.
    pub async fn terminate(&mut self) -> Result<(), CohostError> {
        self.session.terminate().await
    }
}

#[async_trait]
impl Turns for OpenSession {
    async fn turn(&mut self, input: PromptInput, sink: &mut dyn EventSink) -> TurnOutcome {
        self.prompt(input, sink).await
    }

    async fn last_turn(
        &mut self,
        input: PromptInput,
        sink: &mut dyn EventSink,
    ) -> (TurnOutcome, Result<(), CohostError>) {
        self.prompt_then_terminate(input, sink).await
    }

    async fn set_model(&mut self, model: Option<String>) -> Result<(), CohostError> {
        self.session.set_model(model.clone()).await?;
        if let Some((store, rec)) = &mut self.record {
            match store.update(&rec.id, |r| r.model = model) {
                Ok(Some(stored)) => *rec = stored,
                Ok(None) => tracing::warn!(session = %rec.id, "the session record is gone"),
                Err(e) => {
                    tracing::warn!(session = %rec.id, error = %e, "could not record the model");
                }
            }
        }
        Ok(())
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        OpenSession::terminate(self).await
    }

    fn control(&self) -> SessionControl {
        OpenSession::control(self)
    }

    fn native_session_id(&self) -> Option<String> {
        OpenSession::native_session_id(self).map(String::from)
    }

    fn sanitizer(&self) -> Arc<Sanitizer> {
        self.session.sanitizer().clone()
    }
}

/// Context files: a provider that takes no attached files gets them in the
/// prompt's text ([`inline_context_files`]: content tagged with the path,
/// else an `@path` mention) instead of losing them.
fn attach(d: &ProviderDescriptor, mut input: PromptInput) -> PromptInput {
    if !d.capabilities.context_files {
        let files = std::mem::take(&mut input.context_files);
        input.text = inline_context_files(&input.text, &files);
    }
    input
}

/// Bring the record up to date after a turn: the native id (once known) and
/// one more turn seen. A store that cannot be written is logged.
fn record_turn(record: &mut Option<(SessionStore, SessionRecord)>, native: Option<String>) {
    let Some((store, rec)) = record else { return };
    let updated = store.update(&rec.id, |r| {
        r.native_session_id = native.or(r.native_session_id.take());
        r.watermark += 1;
    });
    match updated {
        Ok(Some(stored)) => *rec = stored,
        Ok(None) => tracing::warn!(session = %rec.id, "the session record is gone"),
        Err(e) => {
            tracing::warn!(session = %rec.id, error = %e, "could not update the session record");
        }
    }
}
