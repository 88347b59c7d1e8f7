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
    Ok(cohost_host::changes::find_session(
        host,
        Some(id),
        session.cwd(),
    )?)
}

/// `/diff [TURN]` or `/undo [TURN]`, as typed on a console.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChangesCommand {
    /// Show what the turns (or one turn) changed.
    Diff(Option<u64>),
    /// Put back the last turn (or this turn and every later one).
    Undo(Option<u64>),
}

impl ChangesCommand {
    /// `None`: not one of these commands; `Some(Err(help))`: one with a
    /// turn that is not a number.
    pub(crate) fn parse(line: &str) -> Option<Result<Self, String>> {
        let line = line.trim();
        let (cmd, arg) = line.split_once(' ').unwrap_or((line, ""));
        let make: fn(Option<u64>) -> Self = match cmd {
            "/diff" => Self::Diff,
            "/undo" => Self::Undo,
            _ => return None,
        };
        Some(match arg.trim() {
            "" => Ok(make(None)),
            n => n
                .parse()
                .map(|t| make(Some(t)))
                .map_err(|_| format!("{cmd} takes a turn number, e.g. {cmd} 2 (or nothing)")),
        })
    }

    /// Run it for the session. The host services are built on first use
    /// and kept in `host` (a console that never asks never builds them).
    pub(crate) async fn run(self, host: &mut Option<Host>, session: &RunningSession) -> Incoming {
        if matches!(self, Self::Undo(_)) && session.busy() {
            return Incoming::Notice(
                "the agent is busy; undo waits for the turn to end (or /interrupt)".into(),
            );
        }
        let built = match host.take() {
            Some(h) => h,
            None => match crate::hostctx::host() {
                Ok(h) => h,
                Err(e) => return failed(e),
            },
        };
        let h = host.insert(built);
        match self {
            Self::Diff(turn) => diff_notice(h, session, turn).await,
            Self::Undo(turn) => undo_notice(h, session, turn).await,
        }
    }
}

fn failed(e: impl Into<CohostError>) -> Incoming {
    let e = e.into();
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
            let mut text = done.headline();
            for f in done.restored.iter().chain(&done.removed) {
                text.push_str("\n  ");
                text.push_str(&cohost_core::sanitize::inert_line(f));
            }
            Incoming::Notice(text)
        }
        Err(e) => failed(e),
    }
}

#[cfg(test)]
mod tests {
    use super::ChangesCommand::{self, Diff, Undo};

    #[test]
    fn console_lines_parse_to_changes_commands() {
        assert_eq!(ChangesCommand::parse("/diff"), Some(Ok(Diff(None))));
        assert_eq!(ChangesCommand::parse(" /undo 3 "), Some(Ok(Undo(Some(3)))));
        assert_eq!(ChangesCommand::parse("/diff 12"), Some(Ok(Diff(Some(12)))));
        let bad = ChangesCommand::parse("/undo last").unwrap().unwrap_err();
        assert!(bad.contains("/undo 2"), "{bad}");
        assert_eq!(ChangesCommand::parse("/different"), None);
        assert_eq!(ChangesCommand::parse("fix the /diff"), None);
    }
}
