//! `/diff` and `/undo` on the screens (the chat, the host console): what
//! the running session's turns changed, as a notice, and putting a turn's
//! files back. The screens' own changes blocks and diff view come from the
//! `file_changes` events; these read the session's checkpoints.

use cohost_core::CohostError;
use cohost_discovery::Host;
use cohost_session::RunningSession;
use cohost_tui::app::Incoming;

/// The session's record, for `/diff` and `/undo`.
fn record(
    host: &Host,
    session: &RunningSession,
) -> Result<cohost_host::SessionRecord, CohostError> {
    let id = session.record_id().ok_or_else(|| {
        CohostError::new(
            cohost_core::ErrorCode::ConfigInvalid,
            "this session is not recorded, so its changes are not either",
        )
    })?;
    cohost_host::changes::find_session(host, Some(id), session.cwd())
}

fn failed(e: CohostError) -> Incoming {
    Incoming::Error {
        message: e.message,
        fix: e.suggested_fix,
    }
}

/// `/diff [TURN]` (chat and host console): each turn's files, then its
/// whole diff.
pub(crate) async fn diff_notice(
    host: &Host,
    session: &RunningSession,
    turn: Option<u64>,
) -> Incoming {
    let rec = match record(host, session) {
        Ok(r) => r,
        Err(e) => return failed(e),
    };
    let found = match cohost_host::changes::session_changes(host, &rec, turn, true).await {
        Ok(f) => f,
        Err(e) => return failed(e),
    };
    if found.turns.is_empty() {
        return Incoming::Notice("no turn of this session changed any file".into());
    }
    let mut text = String::new();
    for t in &found.turns {
        text.push_str(&t.headline());
        text.push('\n');
        for f in &t.files {
            let diff = f.diff.as_deref().unwrap_or("(no text diff)\n");
            text.push_str(&format!(
                "{}\n{}",
                f.summary(),
                crate::diffview::render_patch(diff, false)
            ));
        }
    }
    Incoming::Notice(text.trim_end().to_owned())
}

/// `/undo [TURN]`.
pub(crate) async fn undo_notice(
    host: &Host,
    session: &RunningSession,
    turn: Option<u64>,
) -> Incoming {
    let rec = match record(host, session) {
        Ok(r) => r,
        Err(e) => return failed(e),
    };
    match cohost_host::changes::undo(host, &rec, turn, false).await {
        Ok(done) => {
            let turns: Vec<String> = done.turns.iter().map(u64::to_string).collect();
            let mut text = format!(
                "undid turn {}: {} file(s) put back, {} removed",
                turns.join(", "),
                done.restored.len(),
                done.removed.len()
            );
            for f in done.restored.iter().chain(&done.removed) {
                text.push_str("\n  ");
                text.push_str(&cohost_core::sanitize::inert_line(f));
            }
            Incoming::Notice(text)
        }
        Err(e) => failed(e),
    }
}
