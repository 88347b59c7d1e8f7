//! `cohost share --knock` with the terminal UI on both sides (issue 34),
//! on real pseudo-terminals: the host's console shows who knocks with
//! the key's fingerprint and takes `/admit` and `/refuse`; a guest's view
//! says it waits, with the same fingerprint, and that it was let in; a
//! guest turned away has its screen closed, the words left on the
//! terminal, and exit code 13.

use std::time::Duration;

use crate::tui_pty::invite;
use crate::tui_support::Tty;

const WAIT: Duration = Duration::from_secs(30);

/// The fingerprint after `fingerprint ` (or `fingerprint is `) in `text`.
fn fingerprint(text: &str, after: &str) -> String {
    let at = text
        .find(after)
        .unwrap_or_else(|| panic!("{after:?} in {text}"))
        + after.len();
    text[at..].chars().take(19).collect()
}

#[test]
fn the_host_console_admits_and_refuses_and_the_guests_are_told() {
    let mut host = Tty::spawn(&["share", "--agent", "mock", "--knock"], 30, 160);
    host.wait_for("type a prompt to run it", WAIT);
    let co_driver = invite(&host, "co-driver");

    let mut ada = Tty::join(&co_driver, &["--name", "ada"], 30, 160);
    let s = ada.wait_for("waiting for the host to let you in", WAIT);
    let hers = fingerprint(&s, "your key fingerprint is ");
    let s = host.wait_for("ada (co-driver) knocks: key fingerprint", WAIT);
    assert_eq!(fingerprint(&s, "knocks: key fingerprint "), hers, "{s}");
    host.type_line("/admit ada");
    host.wait_for("let ada (co-driver) in", WAIT);
    ada.wait_for("the host let you in", WAIT);
    // Let in, she sees the room.
    host.type_line("hello room");
    ada.wait_for("You said: \"hello room\"", WAIT);
    host.wait_for("· ready", WAIT);

    let mut bo = Tty::join(&co_driver, &["--name", "bo"], 30, 160);
    bo.wait_for("waiting for the host to let you in", WAIT);
    host.wait_for("bo (co-driver) knocks", WAIT);
    host.type_line("/refuse bo");
    host.wait_for("refused bo (co-driver)", WAIT);
    assert_eq!(bo.wait_exit(WAIT), 13, "{}", bo.raw());
    bo.assert_restored();
    assert!(
        bo.screen().contains("cohost: the host did not let you in"),
        "{}",
        bo.screen()
    );
    assert!(!bo.raw().contains("hello room"), "{}", bo.raw());

    host.type_line("/quit");
    assert_eq!(host.wait_exit(WAIT), 0);
    host.assert_restored();
    assert_eq!(ada.wait_exit(WAIT), 0);
}

/// A personal invite refused at the door is revoked at the relay too: the
/// guest's view says it was not let in and exits 13, whichever reaches it
/// first, the host's answer or the relay closing its connection (here the
/// answer does, in practice; the close alone is handled the same way).
#[test]
fn a_refused_personal_invite_closes_the_view_with_the_words() {
    let mut host = Tty::spawn(
        &[
            "share",
            "--agent",
            "mock",
            "--knock",
            "--invite",
            "cy=viewer",
        ],
        30,
        160,
    );
    host.wait_for("type a prompt to run it", WAIT);
    let theirs = invite(&host, "(viewer, personal)");
    let mut cy = Tty::join(&theirs, &[], 30, 160);
    cy.wait_for("waiting for the host to let you in", WAIT);
    host.wait_for("cy (viewer) knocks", WAIT);
    host.type_line("/refuse cy");
    host.wait_for("its personal invite is revoked", WAIT);
    assert_eq!(cy.wait_exit(WAIT), 13, "{}", cy.raw());
    cy.assert_restored();
    assert!(
        cy.screen().contains("cohost: the host did not let you in"),
        "{}",
        cy.screen()
    );
    host.type_line("/quit");
    assert_eq!(host.wait_exit(WAIT), 0);
}
