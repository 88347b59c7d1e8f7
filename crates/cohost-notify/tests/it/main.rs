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
