//! Turns whose working tree is recorded around them: the tree before each
//! turn, the tree after, and a `file_changes` event saying what changed,
//! sent just before the turn's `stream_end`.
//!
//! A turn runs whether or not its tree could be recorded: a recorder that
//! fails says so in a `status` event, and the turn goes on.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use cohost_core::{
    Checkpoints, CohostError, Event, EventBody, EventSink, PromptInput, SessionControl,
    TurnChanges, TurnMark, TurnOutcome,
};

use cohost_core::sanitize::Sanitizer;

use crate::running::Turns;

/// `inner`'s turns, each with its working tree recorded by `checkpoints`.
pub struct Checkpointed<T> {
    inner: T,
    checkpoints: Arc<dyn Checkpoints>,
}

impl<T: Turns> Checkpointed<T> {
    /// Record `inner`'s turns with `checkpoints`.
    pub fn new(inner: T, checkpoints: Arc<dyn Checkpoints>) -> Checkpointed<T> {
        Checkpointed { inner, checkpoints }
    }
}

/// The sink a turn writes into: events pass through, except `stream_end`,
/// held until the changes are known; a note about the recorder goes out
/// right after `stream_start` (the first event carrying the turn's ids).
/// Event ids are `<prompt_id>.<seq>`, numbered by the engine: an event put
/// in between takes the next number and every later one moves up by one.
struct Around<'a> {
    sink: &'a mut dyn EventSink,
    /// What inserted events pass (the session's sanitizer).
    sanitizer: Arc<Sanitizer>,
    note: Option<String>,
    end: Option<Event>,
    /// The last event sent on (the anchor of an inserted one).
    last: Option<Event>,
    /// Events inserted so far.
    shift: u64,
}

impl<'a> Around<'a> {
    fn new(
        sink: &'a mut dyn EventSink,
        note: Option<String>,
        sanitizer: Arc<Sanitizer>,
    ) -> Around<'a> {
        Around {
            sink,
            sanitizer,
            note,
            end: None,
            last: None,
            shift: 0,
        }
    }

    fn renumber(&self, event: &mut Event) {
        if self.shift == 0 {
            return;
        }
        if let Some((p, n)) = split_id(&event.id) {
            event.id = format!("{p}.{}", n + self.shift);
        }
    }

    /// Send `body` as the event after the last one sent.
    fn insert(&mut self, body: EventBody) {
        let Some(anchor) = &self.last else { return };
        let id = match split_id(&anchor.id) {
            Some((p, n)) => format!("{p}.{}", n + 1),
            None => format!("{}.{}", anchor.id, self.shift + 1),
        };
        let event = Event {
            id,
            prompt_id: anchor.prompt_id.clone(),
            correlation_id: anchor.correlation_id.clone(),
            ts: now_ms().max(anchor.ts),
            agent: None,
            body,
        };
        self.shift += 1;
        self.last = Some(event.clone());
        self.sink.emit(event);
    }

    /// The turn is over: its changes (or what went wrong recording them),
    /// then its held `stream_end`.
    fn finish(mut self, changes: Option<Result<TurnChanges, CohostError>>) {
        let body = match changes {
            None => None,
            Some(Ok(c)) if c.is_empty() => None,
            Some(Ok(c)) => Some(EventBody::FileChanges(sanitized(&self.sanitizer, c))),
            Some(Err(e)) => Some(status(
                &self.sanitizer,
                format!("what this turn changed was not recorded: {e}"),
            )),
        };
        if let Some(body) = body {
            self.insert(body);
        }
        if let Some(mut end) = self.end.take() {
            self.renumber(&mut end);
            self.sink.emit(end);
        }
    }
}

impl EventSink for Around<'_> {
    fn emit(&mut self, mut event: Event) {
        if matches!(event.body, EventBody::StreamEnd { .. }) {
            self.end = Some(event);
            return;
        }
        self.renumber(&mut event);
        let started = matches!(event.body, EventBody::StreamStart { .. });
        self.last = Some(event.clone());
        self.sink.emit(event);
        if started {
            if let Some(note) = self.note.take() {
                let body = status(&self.sanitizer, note);
                self.insert(body);
            }
        }
    }
}

fn split_id(id: &str) -> Option<(&str, u64)> {
    let (p, n) = id.rsplit_once('.')?;
    Some((p, n.parse().ok()?))
}

fn status(sanitizer: &Sanitizer, message: String) -> EventBody {
    EventBody::Status {
        message: sanitizer.sanitize(&message).into_owned(),
        retry_after_ms: None,
    }
}

/// Paths and diffs pass the sanitizer like every other string of an event.
fn sanitized(sanitizer: &Sanitizer, mut changes: TurnChanges) -> TurnChanges {
    let clean = |s: &str| sanitizer.sanitize(s).into_owned();
    for f in &mut changes.files {
        f.path = clean(&f.path);
        f.old_path = f.old_path.as_deref().map(clean);
        f.diff = f.diff.as_deref().map(clean);
    }
    changes
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

async fn begin(checkpoints: &dyn Checkpoints) -> (Option<TurnMark>, Option<String>) {
    match checkpoints.before_turn().await {
        Ok(mark) => (mark, None),
        Err(e) => {
            let fix = e
                .suggested_fix
                .as_deref()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default();
            let note = format!("the working tree is not recorded for this turn: {e}{fix}");
            (None, Some(note))
        }
    }
}

async fn end(
    checkpoints: &dyn Checkpoints,
    mark: Option<TurnMark>,
) -> Option<Result<TurnChanges, CohostError>> {
    match mark {
        Some(mark) => Some(checkpoints.after_turn(mark).await),
        None => None,
    }
}

#[async_trait]
impl<T: Turns> Turns for Checkpointed<T> {
    async fn turn(&mut self, input: PromptInput, sink: &mut dyn EventSink) -> TurnOutcome {
        let checkpoints = self.checkpoints.clone();
        let (mark, note) = begin(&*checkpoints).await;
        let mut around = Around::new(sink, note, self.inner.sanitizer());
        let outcome = self.inner.turn(input, &mut around).await;
        around.finish(end(&*checkpoints, mark).await);
        outcome
    }

    async fn last_turn(
        &mut self,
        input: PromptInput,
        sink: &mut dyn EventSink,
    ) -> (TurnOutcome, Result<(), CohostError>) {
        let checkpoints = self.checkpoints.clone();
        let (mark, note) = begin(&*checkpoints).await;
        let mut around = Around::new(sink, note, self.inner.sanitizer());
        // The agent has stopped before the tree is read: nothing of its
        // can still be writing.
        let (outcome, stopped) = self.inner.last_turn(input, &mut around).await;
        around.finish(end(&*checkpoints, mark).await);
        (outcome, stopped)
    }

    async fn set_model(&mut self, model: Option<String>) -> Result<(), CohostError> {
        self.inner.set_model(model).await
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        self.inner.terminate().await
    }

    fn control(&self) -> SessionControl {
        self.inner.control()
    }

    fn native_session_id(&self) -> Option<String> {
        self.inner.native_session_id()
    }

    fn sanitizer(&self) -> Arc<Sanitizer> {
        self.inner.sanitizer()
    }
}

#[cfg(test)]
#[path = "checkpointed_tests.rs"]
mod tests;
