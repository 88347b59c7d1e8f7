//! The signed record of every recorded session (issue 34; format and
//! guarantees in `docs/book/src/record-and-export.md`): a [`Recorder`] per
//! session, fed by the session's event stream (it subscribes like any
//! front end), by the setup service (each prompt) and by the front ends
//! that know who did what (a shared room's suggestions and decisions,
//! [`Recorder::note`]). Entries are signed by the host's long-term key
//! ([`HostKey`]) and appended to `records/ID.jsonl` in the state directory.

mod error;
mod file;
mod key;
mod recorder;

use std::path::Path;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use cohost_core::sync::lock;
use cohost_core::{Event, PromptInput, Sanitizer};
use cohost_record::{kind, Draft};
use cohost_session::RunningSession;
use serde_json::json;

pub use error::RecordError;
pub use file::{path_of, DIR};
pub use key::{HostKey, FILE as KEY_FILE};
pub use recorder::Note;

use crate::store::SessionRecord;
use recorder::Entries;

/// One session's recorder. Shared: the session's task, its event follower
/// and the front end all write to it, one entry at a time.
pub struct Recorder {
    id: String,
    entries: Mutex<Entries>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// The recorders of this process's sessions, by session id, and the tasks
/// following their events. Global because a session's recorder is made
/// deep in the setup service while the front end that knows the people
/// (the shared room's host) holds only the running session; and so that
/// the binary can wait for every record's last entry before it exits.
struct Registry {
    live: Vec<(String, Weak<Recorder>)>,
    followers: Vec<tokio::task::JoinHandle<()>>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: Vec::new(),
    followers: Vec::new(),
});

impl Recorder {
    /// Open the record of `rec` in `state_dir` (going on after what it
    /// holds, for a resumed session) and write the session entry. Every
    /// string it writes passes `sanitizer` (the host's).
    pub fn open(
        state_dir: &Path,
        rec: &SessionRecord,
        sanitizer: Arc<Sanitizer>,
    ) -> Result<Arc<Recorder>, RecordError> {
        let key = HostKey::load_or_create(state_dir)?;
        let path =
            path_of(state_dir, &rec.id).ok_or_else(|| RecordError::BadSessionId(rec.id.clone()))?;
        let opened = file::RecordFile::open(&path, key.seed())?;
        let resumed = opened.file.resumed();
        let cwd = sanitizer
            .sanitize(&rec.cwd.display().to_string())
            .into_owned();
        let model = rec
            .model
            .as_deref()
            .map(|m| sanitizer.sanitize(m).into_owned());
        let mut entries = Entries::new(opened.file, sanitizer);
        let host_key = entries
            .public_key()
            .map(|k| cohost_record::b64(&k))
            .unwrap_or_default();
        let mut body = json!({
            "session": rec.id,
            "host_public_key": host_key,
            "provider": rec.provider,
            "cwd": cwd,
            "resumed": resumed,
        });
        if let Some(m) = model {
            body["model"] = json!(m);
        }
        entries.write(Draft {
            kind: kind::SESSION.into(),
            body: body.to_string(),
            ..Draft::default()
        });
        if opened.torn {
            entries.remark(
                "the previous run stopped mid-entry (a crash?): its cut-off last entry was dropped",
            );
        }
        if let Some((aside, why)) = opened.replaced {
            entries.remark(&format!(
                "the previous record did not verify ({why}); it was moved to {} and this one started anew",
                aside.display()
            ));
        }
        let r = Arc::new(Recorder {
            id: rec.id.clone(),
            entries: Mutex::new(entries),
        });
        let mut reg = lock(&REGISTRY);
        reg.live.retain(|(_, w)| w.strong_count() > 0);
        reg.live.push((rec.id.clone(), Arc::downgrade(&r)));
        Ok(r)
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// A prompt was queued; it is written before its turn's first event.
    pub fn prompt(&self, input: &PromptInput) {
        lock(&self.entries).prompt(input);
    }

    /// An event the session published.
    pub fn event(&self, ev: &Event) {
        lock(&self.entries).event(ev);
    }

    /// Something a front end saw of the people in the session.
    pub fn note(&self, n: Note) {
        lock(&self.entries).note(n);
    }

    /// The session ended: the end entry; nothing is written after it.
    pub fn end(&self, reason: &str) {
        lock(&self.entries).end(reason);
    }

    /// Record every event of `session` from now on, in a task that writes
    /// the end entry when the session's events end.
    pub fn follow(self: &Arc<Self>, session: &RunningSession) {
        let mut events = session.subscribe();
        let me = self.clone();
        let task = tokio::spawn(async move {
            let reason = loop {
                match events.recv().await {
                    Ok(Some(ev)) => me.event(&ev),
                    Ok(None) => break "closed".to_owned(),
                    Err(lagged) => break format!("the recorder {lagged}"),
                }
            };
            me.end(&reason);
        });
        let mut reg = lock(&REGISTRY);
        reg.followers.retain(|t| !t.is_finished());
        reg.followers.push(task);
    }
}

/// The live recorder of session `id` in this process, if any.
pub fn recorder(id: &str) -> Option<Arc<Recorder>> {
    lock(&REGISTRY)
        .live
        .iter()
        .find(|(i, _)| i == id)
        .and_then(|(_, w)| w.upgrade())
}

/// Wait, up to `limit`, for every followed session's record to be closed
/// (the binary calls this before it exits, after its sessions ended).
pub async fn finish(limit: Duration) {
    let tasks: Vec<_> = std::mem::take(&mut lock(&REGISTRY).followers);
    let all = futures::future::join_all(tasks);
    if tokio::time::timeout(limit, all).await.is_err() {
        tracing::warn!("a session's record was not closed in time; it verifies with --partial");
    }
}

#[cfg(test)]
mod tests;
