//! Property tests of the lifecycle state machine: any sequence of attempted
//! transitions never panics, exactly the documented edges succeed, and a
//! refused transition leaves the state where it was.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use cohost_core::{CohostError, ErrorCode, Lifecycle, State};
use proptest::prelude::*;
use State::*;

/// The documented diagram (lifecycle.rs docs and design.md) as each state's
/// successors, written here independently of `can_transition_to`.
fn successors(from: State) -> &'static [State] {
    match from {
        Uninitialized => &[Initializing, Terminating],
        Initializing => &[Ready, Failed],
        Ready => &[Streaming, Failed, Terminating],
        // EXECUTING's two sub-states go to each other and share the exits.
        Streaming => &[WaitingForApproval, Ready, Interrupting, Failed, Terminating],
        WaitingForApproval => &[Streaming, Ready, Interrupting, Failed, Terminating],
        Interrupting => &[Ready, Failed, Terminating],
        Failed => &[Ready, Terminating],
        Terminating => &[Terminated],
        Terminated => &[],
    }
}

fn documented(from: State, to: State) -> bool {
    successors(from).contains(&to)
}

fn any_state() -> impl Strategy<Value = State> {
    (0..State::ALL.len()).prop_map(|i| State::ALL[i])
}

/// Attempts biased towards legal moves, so long walks reach every state.
fn walk() -> impl Strategy<Value = Vec<(bool, State)>> {
    prop::collection::vec((any::<bool>(), any_state()), 0..200)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn only_documented_transitions_succeed(steps in walk()) {
        let mut lc = Lifecycle::default();
        prop_assert_eq!(lc.state(), Uninitialized);
        for (prefer_legal, wanted) in steps {
            let from = lc.state();
            // Half the attempts pick a legal successor when there is one.
            let to = if prefer_legal {
                let next = successors(from);
                next.get(wanted as usize % next.len().max(1)).copied().unwrap_or(wanted)
            } else {
                wanted
            };
            let result = lc.transition(to);
            prop_assert_eq!(from.can_transition_to(to), documented(from, to));
            if documented(from, to) {
                prop_assert_eq!(result, Ok(from));
                prop_assert_eq!(lc.state(), to);
            } else {
                let e = result.unwrap_err();
                prop_assert_eq!((e.from, e.to), (from, to));
                prop_assert_eq!(lc.state(), from, "a refused transition moved the state");
                let ce: CohostError = e.into();
                prop_assert_eq!(ce.code, ErrorCode::IllegalTransition);
                prop_assert!(ce.message.contains(&from.to_string()));
            }
            prop_assert_eq!(
                lc.state().is_executing(),
                matches!(lc.state(), Streaming | WaitingForApproval)
            );
        }
    }

    /// `Terminated` is final: nothing leaves it.
    #[test]
    fn terminated_is_final(to in any_state()) {
        let mut lc = Lifecycle::default();
        for s in [Terminating, Terminated] {
            lc.transition(s).unwrap();
        }
        prop_assert!(lc.transition(to).is_err());
        prop_assert_eq!(lc.state(), Terminated);
    }
}
