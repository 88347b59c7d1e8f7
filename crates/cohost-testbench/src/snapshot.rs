//! Golden files whose format is not insta's, under insta's update switch.
//!
//! Test output that is only a snapshot (the terminal UI's screens) is kept
//! by `insta`. Two kinds of golden file stay plain text, checked here:
//!
//! - normalized agent events, `<scenario>.events` beside the transcript
//!   they come from (one event per line in Rust `Debug` form). A fixture
//!   folder is one `.jsonl` + `.events` pair per scenario, and the README's
//!   "Adding an agent CLI" and drift workflow compare two versions' folders
//!   whole (`git diff --no-index`); insta would rename every file and put
//!   its own header on each;
//! - a generated part of a real document (the README's config key table),
//!   which readers see as it is.
//!
//! Both honour the same switch as insta: `INSTA_UPDATE=always` (or `1`,
//! or `force`) rewrites the file instead of comparing it, so one run
//! updates every snapshot of the workspace and the change is reviewed as a
//! `git diff`. Other values compare, as insta does when it would only
//! leave a `.snap.new` (`cargo insta review` does not know these files).

use std::path::Path;

use cohost_core::AgentEvent;

/// The variable that turns every snapshot check into a rewrite (insta's).
pub const UPDATE_VAR: &str = "INSTA_UPDATE";

/// Whether [`UPDATE_VAR`] asks for snapshots to be rewritten in place: the
/// values for which insta itself overwrites its `.snap` files.
pub fn update_requested() -> bool {
    matches!(
        std::env::var(UPDATE_VAR).as_deref(),
        Ok("always" | "1" | "force")
    )
}

/// Events in the snapshot format: one `Debug` line each. Nothing is
/// dropped (ids, paths and usage as the CLI sent them are part of the
/// snapshot).
pub fn events_text(events: &[AgentEvent]) -> String {
    events.iter().map(|e| format!("{e:?}\n")).collect()
}

/// Compares `got` with the snapshot at `path`, or rewrites the file when
/// [`update_requested`].
///
/// # Panics
///
/// It is a test assertion: it panics when the snapshot is missing or
/// differs, naming the file and the switch that rewrites it.
pub fn check_snapshot(path: &Path, got: &str) {
    if update_requested() {
        write(path, got);
        return;
    }
    let want = match std::fs::read_to_string(path) {
        Ok(want) => want,
        Err(e) => panic!(
            "missing snapshot {} ({e}); run with {UPDATE_VAR}=always and review it",
            path.display()
        ),
    };
    assert_eq!(
        got,
        want,
        "snapshot {} differs; review the change, then {UPDATE_VAR}=always",
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

/// Compares `got` with the part of the document at `path` between the
/// lines `start` and `end` (markers such as `<!-- table:start -->`), or
/// puts `got` there when [`update_requested`]. The rest of the document is
/// never touched.
///
/// # Panics
///
/// When a marker is missing, or the part differs (naming the switch).
pub fn check_section(path: &Path, start: &str, end: &str, got: &str) {
    let doc = match std::fs::read_to_string(path) {
        Ok(doc) => doc,
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    };
    let Some(a) = doc.find(start).map(|a| a + start.len()) else {
        panic!("{} has no {start:?} marker", path.display());
    };
    let Some(b) = doc[a..].find(end).map(|b| b + a) else {
        panic!("{} has no {end:?} after {start:?}", path.display());
    };
    if update_requested() {
        write(path, &format!("{}{got}{}", &doc[..a], &doc[b..]));
        return;
    }
    assert_eq!(
        &doc[a..b],
        got,
        "the generated part of {} between {start:?} and {end:?} is stale: {UPDATE_VAR}=always rewrites it",
        path.display()
    );
}

fn write(path: &Path, text: &str) {
    if let Err(e) = std::fs::write(path, text) {
        panic!("cannot write snapshot {}: {e}", path.display());
    }
}
