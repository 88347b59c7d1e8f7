//! One policy for a test that needs something this machine may lack (an
//! agent CLI, LiteLLM, a Python package, node, nginx...): on CI it fails,
//! naming what is missing and how to install it; elsewhere it skips with a
//! loud notice, so a developer without the piece still runs the rest.
//!
//! CI is whatever sets `CI` to something other than empty, `0` or `false`
//! (`.ci/run` exports `CI=true`; `scripts/test.sh` installs every piece
//! there and stops when an install fails), so a test never passes on CI
//! without having run.

/// Whether the `CI` variable says we run on CI (`CI=true`, `CI=1`, ...).
pub fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| {
        let v = v.trim().to_ascii_lowercase();
        !v.is_empty() && v != "0" && v != "false"
    })
}

/// `found` when it is there; otherwise [`skip_or_fail`] with `missing()`
/// (what is missing and how to install it) and `None`, on which the test
/// returns.
///
/// # Panics
///
/// On CI, when `found` is `None`.
pub fn require<T>(found: Option<T>, missing: impl FnOnce() -> String) -> Option<T> {
    if found.is_none() {
        skip_or_fail(&missing());
    }
    found
}

/// The test cannot run here because of `why`: on CI a failure, elsewhere a
/// loud notice on stderr. The caller returns after it.
///
/// # Panics
///
/// On CI.
pub fn skip_or_fail(why: &str) {
    assert!(
        !on_ci(),
        "CI is set, so a missing requirement fails the test: {why}"
    );
    eprintln!(
        "\n==================== SKIPPED ====================\n\
         {why}\n\
         (this test passes vacuously here; on CI it fails)\n\
         =================================================\n"
    );
}
