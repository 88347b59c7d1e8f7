//! Golden snapshots: one format and one update switch for every snapshot
//! test. Normalized agent events are one event per line in Rust `Debug`
//! form (`<scenario>.events` beside the transcript they come from);
//! `COHOST_UPDATE_SNAPSHOTS=1` rewrites a snapshot instead of comparing it,
//! so a change is reviewed as a `git diff` of the files.

use std::path::Path;

use cohost_core::AgentEvent;

/// The variable that turns every snapshot check into a rewrite.
pub const UPDATE_VAR: &str = "COHOST_UPDATE_SNAPSHOTS";

/// Events in the snapshot format: one `Debug` line each. Nothing is
/// dropped (ids, paths and usage as the CLI sent them are part of the
/// snapshot).
pub fn events_text(events: &[AgentEvent]) -> String {
    events.iter().map(|e| format!("{e:?}\n")).collect()
}

/// Compares `got` with the snapshot at `path`, or rewrites the file when
/// [`UPDATE_VAR`] is set.
///
/// # Panics
///
/// It is a test assertion: it panics when the snapshot is missing or
/// differs, naming the file and the variable that rewrites it.
pub fn check_snapshot(path: &Path, got: &str) {
    if std::env::var_os(UPDATE_VAR).is_some() {
        if let Err(e) = std::fs::write(path, got) {
            panic!("cannot write snapshot {}: {e}", path.display());
        }
        return;
    }
    let want = match std::fs::read_to_string(path) {
        Ok(want) => want,
        Err(e) => panic!(
            "missing snapshot {} ({e}); run with {UPDATE_VAR}=1 and review it",
            path.display()
        ),
    };
    assert_eq!(
        got,
        want,
        "snapshot {} differs; review the change, then {UPDATE_VAR}=1",
        path.display()
    );
}

/// [`check_snapshot`] of [`events_text`].
///
/// # Panics
///
/// As [`check_snapshot`].
pub fn check_events(path: &Path, events: &[AgentEvent]) {
    check_snapshot(path, &events_text(events));
}
