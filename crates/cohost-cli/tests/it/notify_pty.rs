//! Terminal notifications end to end (issue 34): the real `cohost chat` in
//! a pseudo-terminal turns focus reporting on (CSI ?1004h); a turn's end
//! writes OSC 9 and OSC 777 notifications and the bell only after the
//! terminal reported the focus lost (CSI O), never before any report nor
//! while it is focused (CSI I); focus reporting is off again at the exit.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::time::{Duration, Instant};

use crate::tui_support::Tty;

const WAIT: Duration = Duration::from_secs(20);
const OSC9: &str = "\x1b]9;cohost: mock is done: the turn is done\x07";
const OSC777: &str = "\x1b]777;notify;cohost: mock is done;the turn is done\x07";

/// How many times `needle` is in what cohost wrote so far.
fn count(t: &Tty, needle: &str) -> usize {
    t.raw().matches(needle).count()
}

#[test]
fn a_turn_end_is_notified_on_the_terminal_only_when_focus_is_reported_lost() {
    let mut t = Tty::spawn(&["chat", "--agent", "mock"], 24, 80);
    t.wait_for("type a prompt", WAIT);
    assert_eq!(count(&t, "\x1b[?1004h"), 1, "focus reporting is on");

    // No focus report yet: nothing.
    t.type_line("first [mock:text]");
    t.wait_for("You said: \"first [mock:text]\"", WAIT);
    // The turn's end (its words showed while it streamed): a line typed
    // while the mock still streams would steer its turn, not start the next.
    t.wait_for("· ready", WAIT);
    // Focused: nothing.
    t.send(b"\x1b[I");
    t.type_line("second [mock:text]");
    t.wait_for("You said: \"second [mock:text]\"", WAIT);
    t.wait_for("· ready", WAIT);
    // The sink runs on its own task: give a wrong notice time to show.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(count(&t, "\x1b]9;"), 0, "{:?}", t.raw());
    assert_eq!(count(&t, "\x1b]777;"), 0);

    // Focus lost: the turn's end is notified, once, with the bell.
    t.send(b"\x1b[O");
    t.type_line("third [mock:text]");
    t.wait_for("You said: \"third [mock:text]\"", WAIT);
    t.wait_for("· ready", WAIT);
    let start = Instant::now();
    while count(&t, OSC777) == 0 && start.elapsed() < WAIT {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(count(&t, OSC9), 1, "{:?}", t.raw());
    assert_eq!(count(&t, OSC777), 1, "{:?}", t.raw());
    assert!(
        t.raw().contains(&format!("{OSC9}{OSC777}\x07")),
        "the bell follows"
    );

    // Focused again: the next end is quiet.
    t.send(b"\x1b[I");
    t.type_line("fourth [mock:text]");
    t.wait_for("You said: \"fourth [mock:text]\"", WAIT);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(count(&t, "\x1b]9;"), 1);

    t.send(b"\x04");
    assert_eq!(t.wait_exit(WAIT), 0);
    assert!(
        t.raw().contains("\x1b[?1004l"),
        "focus reporting is off again"
    );
    t.assert_restored();
}
