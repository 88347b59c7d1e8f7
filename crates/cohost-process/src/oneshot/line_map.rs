//! The line-mapping half of a one-shot normalizer. A driver's normalizer
//! implements [`LineMap`] (map one stdout line to events; say how an exit
//! without a closing event ends the turn, when that differs from the usual
//! mapping); the runner side here, [`TurnNormalizer`] for every
//! [`LineMap`], owns the bookkeeping: no lines after `Ended`, the `ended`
//! flag, an opening `Started` before closing events, and the exit mapping
//! of [`exit_events`].

use cohost_core::{AgentEvent, ErrorCode};

use super::adapter::{exit_events, generic_fix};
use super::turn::TurnNormalizer;
use crate::provider::CliEntry;
use crate::ExitInfo;

/// Whether a turn has opened (`Started` emitted) and closed (`Ended`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnMarks {
    /// `Started` was emitted.
    pub started: bool,
    /// `Ended` was emitted (or the turn is over without one).
    pub ended: bool,
}

impl TurnMarks {
    /// Emit `Started` once, with what is known when the turn opens.
    pub fn start(
        &mut self,
        session_id: Option<String>,
        model: Option<String>,
        out: &mut Vec<AgentEvent>,
    ) {
        if !self.started {
            self.started = true;
            out.push(AgentEvent::Started { session_id, model });
        }
    }
}

/// How the turn ends after [`LineMap::close`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closing {
    /// The events pushed close the turn.
    Closed,
    /// Map the exit the usual way ([`exit_events`]), with `interrupted` as
    /// given (a crash when nothing explains the exit).
    Usual {
        /// Count the exit as an interrupt.
        interrupted: bool,
    },
}

/// How a turn's process ended, as [`LineMap::close`] sees it.
#[derive(Debug, Clone, Copy)]
pub struct TurnExit<'a> {
    /// The exit status (`None`: still running after the grace).
    pub info: Option<ExitInfo>,
    /// Its sanitized stderr.
    pub stderr: &'a str,
    /// cohost signalled it.
    pub interrupted: bool,
}

/// `marks`/`marks_mut` of a [`LineMap`] over the normalizer's
/// [`TurnMarks`] field `$field`.
#[macro_export]
macro_rules! turn_marks {
    ($field:ident) => {
        fn marks(&self) -> &$crate::oneshot::TurnMarks {
            &self.$field
        }
        fn marks_mut(&mut self) -> &mut $crate::oneshot::TurnMarks {
            &mut self.$field
        }
    };
}
pub use crate::turn_marks;

/// What a one-shot driver's normalizer supplies.
pub trait LineMap: Send + 'static {
    /// The name in exit messages (`cursor-agent`).
    const NAME: &'static str;
    /// The provider spec whose login fix an `AUTH_REQUIRED` exit carries;
    /// `None` when [`LineMap::NAME`] names no provider of the list.
    const SPEC: Option<&'static CliEntry>;
    /// The turn's marks.
    fn marks(&self) -> &TurnMarks;
    /// The turn's marks, to change.
    fn marks_mut(&mut self) -> &mut TurnMarks;
    /// Map one stdout line (never called after `Ended`).
    fn map_line(&mut self, line: &str, out: &mut Vec<AgentEvent>);
    /// Emit `Started` if the turn has not opened yet, before the closing
    /// events of an exit.
    fn open(&mut self, out: &mut Vec<AgentEvent>) {
        self.marks_mut().start(None, None, out);
    }
    /// The fix per error class in exit errors.
    const FIX: fn(ErrorCode) -> &'static str = generic_fix;
    /// The process exited before `Ended` (after [`LineMap::open`]): push
    /// the driver's own closing events, or leave it to the usual mapping.
    fn close(&mut self, how: TurnExit<'_>, _out: &mut Vec<AgentEvent>) -> Closing {
        Closing::Usual {
            interrupted: how.interrupted,
        }
    }
}

impl<T: LineMap> TurnNormalizer for T {
    fn on_line(&mut self, line: &str) -> Vec<AgentEvent> {
        let mut out = Vec::new();
        if self.marks().ended {
            return out;
        }
        self.map_line(line, &mut out);
        if out.iter().any(|e| matches!(e, AgentEvent::Ended { .. })) {
            self.marks_mut().ended = true;
        }
        out
    }

    fn ended(&self) -> bool {
        self.marks().ended
    }

    fn on_exit(
        &mut self,
        exit: Option<ExitInfo>,
        stderr: &str,
        interrupted: bool,
    ) -> Option<Vec<AgentEvent>> {
        self.marks_mut().ended = true;
        let mut out = Vec::new();
        self.open(&mut out);
        let how = TurnExit {
            info: exit,
            stderr,
            interrupted,
        };
        match self.close(how, &mut out) {
            Closing::Closed => {}
            Closing::Usual { interrupted } => out.append(&mut exit_events(
                T::NAME,
                T::SPEC.map(CliEntry::login_fix),
                exit,
                stderr,
                interrupted,
                T::FIX,
            )?),
        }
        Some(out)
    }
}
