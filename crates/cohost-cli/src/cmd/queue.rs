//! `/queue` in chat and in the share host's console: one session's queue
//! shown, reordered or cancelled.

use cohost_session::RunningSession;
use cohost_tui::app::Incoming;
use cohost_tui::queue::QueueCommand;

/// `/queue`: show the session's queue, or reorder or cancel an item (the
/// `queue` event of the change tells every screen).
pub(crate) fn queue_command(session: &RunningSession, command: QueueCommand) -> Option<Incoming> {
    let id = match command {
        QueueCommand::List => {
            return Some(Incoming::Notice(cohost_tui::queue::describe(
                &session.queue(),
            )))
        }
        QueueCommand::Drop(id)
        | QueueCommand::Up(id)
        | QueueCommand::Down(id)
        | QueueCommand::First(id) => id,
    };
    let done = match command {
        QueueCommand::Drop(_) => session.queue_drop(id).map(|_| ()),
        _ => session.queue_position(id).and_then(|pos| {
            let to = command.target(pos, session.queue().len()).unwrap_or(pos);
            session.queue_move(id, to).map(|_| ())
        }),
    };
    // Done, the `queue` event says what changed.
    done.err().map(|e| {
        let e = cohost_core::CohostError::from(e);
        Incoming::Error {
            message: e.message,
            fix: e.suggested_fix,
        }
    })
}
