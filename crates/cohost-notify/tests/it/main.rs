//! cohost-notify against real parts: an HTTP receiver on 127.0.0.1 for the
//! webhook, a private D-Bus session bus (dbus-daemon) for the desktop.
#![allow(
    clippy::print_stderr,
    reason = "a test says what it skipped on the terminal"
)]
// A test crate: a failed unwrap is a failed test with its line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod desktop_bus;
mod webhook_receiver;

/// A sanitizer of shapes only (no known value, no home): what these tests
/// hand the notifier (the secrets they plant have a vendor's shape).
fn shapes_only() -> std::sync::Arc<cohost_core::Sanitizer> {
    std::sync::Arc::new(cohost_core::Sanitizer::new(
        Vec::<(String, String)>::new(),
        None,
    ))
}
