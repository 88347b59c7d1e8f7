//! Checkpointed turns over a scripted turn and a scripted recorder: where
//! the `file_changes` event goes, how ids are renumbered, and what a
//! failing recorder says.

use std::sync::Mutex;

use cohost_core::{ChangeStatus, EndReason, ErrorCode, FileChange, SessionControl};

use super::*;

/// A turn that sends start, one chunk and end, numbered as the engine does.
struct Scripted;

/// A secret only the session's sanitizer knows (no shape gives it away).
const PLANTED: &str = "planted-value-the-session-knows-4Rk9";

fn ev(seq: u64, body: EventBody) -> Event {
    Event {
        id: format!("p-1.{seq}"),
        prompt_id: "p-1".into(),
        correlation_id: "c-1".into(),
        ts: 1,
        agent: None,
        body,
    }
}

#[async_trait]
impl Turns for Scripted {
    async fn turn(&mut self, _input: PromptInput, sink: &mut dyn EventSink) -> TurnOutcome {
        sink.emit(ev(
            0,
            EventBody::StreamStart {
                provider: "scripted".into(),
                session_id: None,
                model: None,
            },
        ));
        sink.emit(ev(
            1,
            EventBody::StreamChunk {
                stream_id: "p-1:text".into(),
                chunk_index: 0,
                delta: "done".into(),
            },
        ));
        sink.emit(ev(
            2,
            EventBody::StreamEnd {
                reason: EndReason::Completed,
                usage: None,
            },
        ));
        TurnOutcome {
            prompt_id: "p-1".into(),
            correlation_id: "c-1".into(),
            reason: EndReason::Completed,
            error: None,
            usage: None,
        }
    }

    async fn set_model(&mut self, _model: Option<String>) -> Result<(), CohostError> {
        Ok(())
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        Ok(())
    }

    fn control(&self) -> SessionControl {
        SessionControl::detached()
    }

    fn native_session_id(&self) -> Option<String> {
        None
    }

    fn sanitizer(&self) -> std::sync::Arc<cohost_core::sanitize::Sanitizer> {
        // The session's own: it knows a value the process-wide one does not.
        Arc::new(cohost_core::sanitize::Sanitizer::shapes_only().with_known_values([PLANTED]))
    }
}

/// A recorder whose answers are set by the test.
struct Recorder {
    before: Result<(), CohostError>,
    after: Mutex<Option<Result<TurnChanges, CohostError>>>,
}

#[async_trait]
impl Checkpoints for Recorder {
    async fn before_turn(&self) -> Result<Option<TurnMark>, CohostError> {
        self.before.clone().map(|()| {
            Some(TurnMark {
                turn: 1,
                before: "t0".into(),
            })
        })
    }

    async fn after_turn(&self, mark: TurnMark) -> Result<TurnChanges, CohostError> {
        assert_eq!(mark.turn, 1);
        self.after
            .lock()
            .unwrap()
            .take()
            .expect("after_turn is asked once")
    }
}

fn one_file(diff: &str) -> TurnChanges {
    TurnChanges {
        turn: 1,
        files: vec![FileChange {
            path: "src/a.rs".into(),
            old_path: None,
            status: ChangeStatus::Modified,
            old_mode: Some("100644".into()),
            new_mode: Some("100644".into()),
            added: 1,
            removed: 0,
            binary: false,
            size: 10,
            hash: Some("abc".into()),
            diff: Some(diff.into()),
            diff_truncated: false,
        }],
    }
}

async fn run(recorder: Recorder) -> Vec<Event> {
    let mut turns = Checkpointed::new(Scripted, Arc::new(recorder));
    let mut events = Vec::new();
    let mut sink = |e: Event| events.push(e);
    turns.turn(PromptInput::text("go"), &mut sink).await;
    events
}

fn kinds(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let v = serde_json::to_value(e).unwrap();
            format!("{} {}", e.id, v["type"].as_str().unwrap())
        })
        .collect()
}

#[tokio::test]
async fn changes_go_just_before_the_end_with_the_next_id() {
    let events = run(Recorder {
        before: Ok(()),
        after: Mutex::new(Some(Ok(one_file("@@ -0,0 +1 @@\n+x\n")))),
    })
    .await;
    assert_eq!(
        kinds(&events),
        [
            "p-1.0 stream_start",
            "p-1.1 stream_chunk",
            "p-1.2 file_changes",
            "p-1.3 stream_end"
        ]
    );
    let EventBody::FileChanges(c) = &events[2].body else {
        panic!("not file_changes: {:?}", events[2]);
    };
    assert_eq!(c.files[0].path, "src/a.rs");
    assert_eq!(events[2].correlation_id, "c-1");
}

#[tokio::test]
async fn a_turn_that_changed_nothing_has_no_changes_event() {
    let events = run(Recorder {
        before: Ok(()),
        after: Mutex::new(Some(Ok(TurnChanges {
            turn: 1,
            files: Vec::new(),
        }))),
    })
    .await;
    assert_eq!(
        kinds(&events),
        [
            "p-1.0 stream_start",
            "p-1.1 stream_chunk",
            "p-1.2 stream_end"
        ]
    );
}

#[tokio::test]
async fn a_recorder_that_cannot_start_is_a_status_after_the_start() {
    let events = run(Recorder {
        before: Err(
            CohostError::new(ErrorCode::ConfigInvalid, "git is not on PATH")
                .with_fix("install git"),
        ),
        after: Mutex::new(None),
    })
    .await;
    assert_eq!(
        kinds(&events),
        [
            "p-1.0 stream_start",
            "p-1.1 status",
            "p-1.2 stream_chunk",
            "p-1.3 stream_end"
        ]
    );
    let EventBody::Status { message, .. } = &events[1].body else {
        panic!("not a status");
    };
    assert!(message.contains("git is not on PATH"), "{message}");
    assert!(message.contains("install git"), "{message}");
}

#[tokio::test]
async fn a_recorder_that_fails_after_says_so_before_the_end() {
    let events = run(Recorder {
        before: Ok(()),
        after: Mutex::new(Some(Err(CohostError::new(
            ErrorCode::Unknown,
            "the working directory is gone",
        )))),
    })
    .await;
    assert_eq!(
        kinds(&events),
        [
            "p-1.0 stream_start",
            "p-1.1 stream_chunk",
            "p-1.2 status",
            "p-1.3 stream_end"
        ]
    );
}

#[tokio::test]
async fn diffs_and_paths_pass_the_sanitizer() {
    let secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
    let events = run(Recorder {
        before: Ok(()),
        after: Mutex::new(Some(Ok(one_file(&format!("+KEY={secret}\n"))))),
    })
    .await;
    let line = events[2].to_json_line();
    assert!(line.contains("file_changes"), "{line}");
    assert!(!line.contains("abcdefghijklmnop"), "{line}");
}

#[tokio::test]
async fn inserted_events_pass_the_sessions_own_sanitizer() {
    assert_eq!(cohost_core::sanitize::global().sanitize(PLANTED), PLANTED);
    let events = run(Recorder {
        before: Ok(()),
        after: Mutex::new(Some(Ok(one_file(&format!("+token {PLANTED}\n"))))),
    })
    .await;
    let line = events[2].to_json_line();
    assert!(line.contains("file_changes"), "{line}");
    assert!(!line.contains(PLANTED), "{line}");
}
