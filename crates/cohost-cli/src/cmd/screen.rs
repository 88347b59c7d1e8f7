//! What the terminal screens (`chat`, the host console, a participant's
//! view) share: whether there is a terminal, signals while the screen owns
//! it, and answering an approval card.

use std::io::IsTerminal;

use cohost_core::{ApprovalOption, Decision, DecisionOrigin};
use cohost_session::RunningSession;
use cohost_tui::app::{Effect, Incoming};
use tokio::sync::mpsc;

/// Whether cohost talks to a person at a terminal (stdin and stdout).
pub fn on_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// SIGTERM, SIGHUP, SIGQUIT: give the terminal back first (the quit budget
/// may end the process before the loop does), then end the session.
/// SIGINT only arrives from `kill` (raw mode turns Ctrl+C into a key).
pub(crate) fn watch_signals(
    effects: mpsc::UnboundedSender<Effect>,
    to_app: mpsc::UnboundedSender<Incoming>,
) {
    crate::signals::set_hook(move |stop| match stop {
        crate::signals::Stop::Interrupt => {
            let _ = effects.send(Effect::Interrupt);
        }
        crate::signals::Stop::Quit(_) => {
            cohost_tui::term::restore();
            let _ = effects.send(Effect::Quit);
            let _ = to_app.send(Incoming::Closed("ending on a signal".into()));
        }
    });
}

/// Answer the approval card of `tool_id` (its event was on screen, so the
/// handle keeps an answer that comes before the engine asks).
pub(crate) fn decide(session: &RunningSession, tool_id: &str, option: ApprovalOption) {
    let decision = Decision {
        option,
        message: (!option.is_allow()).then(|| "denied by the user".to_string()),
        origin: DecisionOrigin::User,
        deciders: Vec::new(),
    };
    if !session.decide_seen(tool_id, decision) {
        tracing::debug!(tool = %tool_id, "this session's approvals are not answered on screen");
    }
}
