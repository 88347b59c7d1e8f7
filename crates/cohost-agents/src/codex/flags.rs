//! Codex's flag table: the provider spec's (`mod.rs`), which the `exec`
//! fallback (`exec.rs`) also builds its command line from, so the fallback
//! needs no reach up to the spec.

use crate::catalog::{self, FlagTable};

/// How codex spells each flag cohost uses.
pub(super) const FLAGS: FlagTable = FlagTable {
    non_interactive: &["exec"],
    resume: Some(&["resume", "{id}"]),
    continue_latest: Some(&["resume", "--last"]),
    skip_permissions: Some(&["--dangerously-bypass-approvals-and-sandbox"]),
    // `-m` is what the exec driver passes (proven by codex_e2e).
    model: Some("-m"),
    json_output: Some(&["--json"]),
    stream_json: Some(&["--json"]),
    ..catalog::NO_FLAGS
};
