//! The terminal UI end to end: the real `cohost` binary in a pseudo-terminal,
//! the screen read through a terminal emulator (`vt100`).

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::tui_support;

use std::time::Duration;
use tui_support::Tty;

const WAIT: Duration = Duration::from_secs(20);

#[test]
fn chat_answers_approves_interrupts_resizes_and_exits_restored() {
    let mut t = Tty::spawn(&["chat", "--agent", "mock"], 24, 80);
    t.wait_for("type a prompt", WAIT);
    t.type_line("hello there");
    t.wait_for("You said: \"hello there\"", WAIT);
    // The answer's last word: a line typed while the mock still streams
    // would steer its turn, not start the next one.
    t.wait_for("work.", WAIT);

    t.type_line("write it [mock:tool]");
    // The end of the card's last line (the deadline counts down from 120
    // s): a screen read mid-frame can show its title before its body (seen
    // under a loaded full run).
    let s = t.wait_for("denied in 1", WAIT);
    assert!(s.contains("approval needed"), "{s}");
    assert!(s.contains("y once  a always  n no  N never"), "{s}");
    t.send(b"y");
    let s = t.wait_for("allowed once by you", WAIT);
    assert!(!s.contains("approval needed"), "the card went away: {s}");
    t.wait_for("✓ write_file", WAIT);
    // The turn's end: a line typed while it streams would steer it.
    t.wait_for("· ready", WAIT);

    t.type_line("go [mock:slow]");
    t.wait_for("tick 2", WAIT);
    t.send(b"\x03");
    t.wait_for("· interrupted", WAIT);
    t.type_line("after the interrupt");
    t.wait_for("You said: \"after the interrupt\"", WAIT);

    // A resize redraws at the new size: the status line moves to the last row.
    t.resize(30, 100);
    let start = std::time::Instant::now();
    loop {
        let s = t.screen();
        if s.lines().count() >= 30 && s.lines().nth(29).is_some_and(|l| l.contains("tokens")) {
            break;
        }
        assert!(start.elapsed() < WAIT, "no redraw at 100x30:\n{s}");
        std::thread::sleep(Duration::from_millis(30));
    }

    t.send(b"\x04");
    assert_eq!(t.wait_exit(WAIT), 0);
    t.assert_restored();
}

#[test]
fn a_line_typed_during_a_turn_steers_it() {
    let mut t = Tty::spawn(&["chat", "--agent", "mock"], 24, 80);
    t.wait_for("type a prompt", WAIT);
    t.type_line("go [mock:slow]");
    t.wait_for("tick 2", WAIT);
    // The mock takes text mid-turn, as Codex's app-server does.
    t.type_line("also-this");
    let s = t.wait_for("[steered: also-this]", WAIT);
    assert!(s.contains("you → this turn"), "{s}");
    assert!(!s.contains("queued"), "{s}");
    t.send(b"\x03");
    t.wait_for("· interrupted", WAIT);
    t.send(b"\x04");
    assert_eq!(t.wait_exit(WAIT), 0);
    t.assert_restored();
}

#[test]
fn quit_command_and_termination_signals_restore_the_terminal() {
    let mut t = Tty::spawn(&["chat", "--agent", "mock"], 24, 80);
    t.wait_for("type a prompt", WAIT);
    t.type_line("/quit");
    assert_eq!(t.wait_exit(WAIT), 0);
    t.assert_restored();

    for (sig, code) in [(libc::SIGTERM, 143), (libc::SIGHUP, 129)] {
        let mut t = Tty::spawn(&["chat", "--agent", "mock"], 24, 80);
        t.wait_for("type a prompt", WAIT);
        t.type_line("go [mock:slow]");
        t.wait_for("tick 1", WAIT);
        t.signal(sig);
        assert_eq!(t.wait_exit(WAIT), code, "signal {sig}");
        t.assert_restored();
    }
}

#[test]
fn cohost_alone_on_a_terminal_opens_the_chat() {
    let mut t = Tty::spawn(&[], 24, 80);
    let s = t.wait_for("type a prompt", WAIT);
    assert!(s.contains("built-in mock agent"), "no agent on PATH: {s}");
    t.send(b"\x03");
    t.wait_for("Ctrl+C again to quit", WAIT);
    t.send(b"\x03");
    assert_eq!(t.wait_exit(WAIT), 0);
    t.assert_restored();
}

/// The invite after `role:` in `text`, whose rows may have been glued
/// together: `cohost[s]://HOST:PORT/ROOM#JWT.KEY.HOSTSIG.HOSTX.TICKET`
/// (format v2), where the JWT is three dot-separated segments and the
/// ticket (the last segment) is 16 bytes in unpadded base64url, 22
/// characters.
fn invite_from(text: &str, role: &str) -> Option<String> {
    let at = text.find(&format!("{role}:"))?;
    let start = at + text[at..].find("cohost")?;
    let rest = &text[start..];
    let hash = rest.find('#')?;
    let mut end = hash;
    for _ in 0..6 {
        end += 1 + rest[end + 1..].find('.')?;
    }
    let end = end + 1 + 22;
    (rest.len() >= end).then(|| rest[..end].to_string())
}

/// The invite for `role` as the host console printed it before the screen
/// switched (a line on the main screen, to copy).
pub(crate) fn invite(host: &Tty, role: &str) -> String {
    let start = std::time::Instant::now();
    loop {
        if let Some(invite) = invite_from(&host.raw(), role) {
            return invite;
        }
        assert!(
            start.elapsed() < WAIT,
            "no {role} invite printed:\n{}",
            host.raw()
        );
        std::thread::sleep(Duration::from_millis(30));
    }
}

#[test]
fn host_console_and_participant_view_over_the_embedded_relay() {
    let mut host = Tty::spawn(&["share", "--agent", "mock"], 30, 110);
    host.wait_for("type a prompt to run it", WAIT);
    let co_driver = invite(&host, "co-driver");
    let viewer_invite = invite(&host, "viewer");

    let mut guest = Tty::join(&co_driver, &["--name", "ada"], 30, 110);
    guest.wait_for("type a prompt to suggest it to the host", WAIT);
    // The viewer pastes its invite at the prompt (issue 37: invites stay off
    // the command line): bracketed, as a terminal pastes, and never shown.
    let mut viewer = Tty::spawn(&["join"], 30, 110);
    viewer.wait_for("Paste the invite", WAIT);
    viewer.send(format!("\x1b[200~{viewer_invite}\x1b[201~\r").as_bytes());
    viewer.wait_for("you are watching", WAIT);
    // The room key and the ticket: the invite's secrets.
    let mut segments = viewer_invite.rsplit('.');
    let ticket = segments.next().unwrap();
    let key = segments.nth(2).unwrap();
    assert!(!viewer.raw().contains(key), "the pasted invite was echoed");
    assert!(
        !viewer.raw().contains(ticket),
        "the pasted invite was echoed"
    );
    // The host is in its own pane, first, and both guests after it.
    let s = host.wait_for("participants (3)", WAIT);
    let pane: Vec<&str> = s.lines().filter_map(|l| l.split('│').nth(1)).collect();
    let first = pane.iter().find(|l| l.contains('●')).map(|l| l.trim());
    assert_eq!(first, Some("● host (you) · host"), "{s}");

    // The participants see the host's turn, rendered the same way.
    host.type_line("hello room");
    host.wait_for("You said: \"hello room\"", WAIT);
    guest.wait_for("host ❯ hello room", WAIT);
    guest.wait_for("You said: \"hello room\"", WAIT);
    viewer.wait_for("You said: \"hello room\"", WAIT);
    // The turn's end: a suggestion accepted while it streams would steer it.
    host.wait_for("· ready", WAIT);

    // The co-driver's typed suggestion queues on the host, runs when accepted.
    guest.type_line("please add tests");
    let s = host.wait_for("suggestions (1)", WAIT);
    assert!(s.contains("please add tests"), "{s}");
    host.send(b"\x01");
    host.wait_for("You said: \"please add tests\"", WAIT);
    guest.wait_for("You said: \"please add tests\"", WAIT);
    guest.wait_for("suggestion s-", WAIT);
    host.wait_for("· ready", WAIT);

    // Approvals: the host decides, the participants see who did.
    host.type_line("write it [mock:tool]");
    host.wait_for("approval needed", WAIT);
    guest.wait_for("waiting for the host's decision", WAIT);
    host.send(b"y");
    host.wait_for("allowed once by you", WAIT);
    guest.wait_for("allowed once by the host", WAIT);

    // Chat goes both ways.
    viewer.type_line("nice work");
    host.wait_for("nice work", WAIT);

    // `/diff` reads the session's checkpoints here as in the chat (these
    // turns wrote no file).
    host.type_line("/diff");
    let s = host.wait_for("no turn of this session changed any file", WAIT);
    assert!(!s.contains("not for a shared session"), "{s}");
    // And `/undo`: the last turn changed nothing, so nothing moves.
    host.type_line("/undo");
    host.wait_for("changed no file: nothing to put back", WAIT);

    // The host quits: the room closes and the participants' screens end.
    host_quits(&mut host, &mut [&mut guest, &mut viewer]);
}

/// `/quit` on the host: it and every guest exit 0, terminals restored.
fn host_quits(host: &mut Tty, guests: &mut [&mut Tty]) {
    host.type_line("/quit");
    assert_eq!(host.wait_exit(WAIT), 0);
    host.assert_restored();
    for g in guests {
        assert_eq!(g.wait_exit(WAIT), 0);
        g.assert_restored();
    }
}

/// The invite for `role` as the chat shows it after `/share`: a notice in
/// the transcript (columns `0..cols`, beside the room pane), wrapped over
/// rows that are put back together.
fn invite_in_transcript(t: &Tty, role: &str, cols: u16) -> String {
    let start = std::time::Instant::now();
    loop {
        let rows: Vec<String> = t
            .rows_within(cols)
            .iter()
            .map(|r| r.trim_end().to_string())
            .collect();
        if let Some(invite) = invite_from(&rows.concat(), role) {
            return invite;
        }
        assert!(
            start.elapsed() < WAIT,
            "no {role} invite on screen:\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(30));
    }
}

#[test]
fn share_in_a_running_chat_opens_a_room_for_the_same_session() {
    let (rows, cols) = (30, 110);
    let mut host = Tty::spawn(&["chat", "--agent", "mock"], rows, cols);
    host.wait_for("type a prompt", WAIT);
    host.type_line("before sharing");
    host.wait_for("You said: \"before sharing\"", WAIT);
    host.wait_for("· ready", WAIT);

    host.type_line("/share");
    let s = host.wait_for("participants (1)", WAIT);
    assert!(s.contains("this session is shared now"), "{s}");
    assert!(
        s.contains("You said: \"before sharing\""),
        "the chat goes on: {s}"
    );
    // The room pane is 32 columns wide on the right, and the transcript
    // keeps one column free before it.
    let co_driver = invite_in_transcript(&host, "co-driver", cols - 33);
    let viewer = invite_in_transcript(&host, "viewer", cols - 33);
    assert!(co_driver.starts_with("cohost://127.0.0.1:"), "{co_driver}");

    // A participant TUI and a plain `cohost join` both get in.
    let mut guest = Tty::join(&co_driver, &["--name", "ada"], rows, cols);
    guest.wait_for("type a prompt to suggest it to the host", WAIT);
    let mut plain = Tty::join(&viewer, &["--plain"], rows, cols);
    host.wait_for("participants (3)", WAIT);

    // The host's next answer reaches both, from the same agent session.
    host.type_line("after sharing");
    host.wait_for("You said: \"after sharing\"", WAIT);
    guest.wait_for("host ❯ after sharing", WAIT);
    guest.wait_for("You said: \"after sharing\"", WAIT);
    plain.wait_for("You said: \"after sharing\"", WAIT);

    // A co-driver's suggestion queues on the host, as in `cohost share`.
    guest.type_line("and a test");
    host.wait_for("suggestions (1)", WAIT);

    host_quits(&mut host, &mut [&mut guest, &mut plain]);
}

/// `cohost run` on a terminal: an agent silent for 15 s gets a "still
/// waiting" line naming it and how to stop, and Ctrl+C then ends the run.
#[test]
fn a_silent_agent_gets_a_still_waiting_line_on_a_terminal() {
    let mut t = Tty::spawn(&["run", "--agent", "mock", "wait [mock:silent]"], 24, 100);
    let s = t.wait_for("still waiting for mock", Duration::from_secs(30));
    assert!(
        s.contains("nothing from it after 15 s (Ctrl+C stops)"),
        "{s}"
    );
    t.send(b"\x03");
    assert_ne!(t.wait_exit(WAIT), 0, "an interrupted run is not a success");
}

/// The chat screen redraws once a second during a silent turn, so the
/// working time moves although nothing arrives; Esc still interrupts.
#[test]
fn a_silent_turn_counts_its_seconds_in_the_chat() {
    let mut t = Tty::spawn(&["chat", "--agent", "mock"], 24, 80);
    t.wait_for("type a prompt", WAIT);
    t.type_line("wait [mock:silent]");
    t.wait_for("the agent is working · 4 s", WAIT);
    t.send(b"\x1b");
    t.wait_for("· interrupted", WAIT);
    t.send(b"\x04");
    assert_eq!(t.wait_exit(WAIT), 0);
    t.assert_restored();
}

/// A turn that changes a file (written here, into the session's scratch
/// working directory, while the mock's slow turn runs: the checkpoints
/// record whoever changed the tree) lists it under the answer; Ctrl+F and
/// Enter open its diff, and a comment on a line becomes the next prompt.
#[test]
fn a_changed_file_opens_in_the_diff_view_and_a_comment_is_the_next_prompt() {
    let work = tempfile::tempdir().unwrap();
    let notes = work.path().join("notes.txt");
    std::fs::write(&notes, "first\nsecond\n").unwrap();
    let cwd = work.path().to_str().unwrap();
    let mut t = Tty::spawn(&["chat", "--agent", "mock", "--cwd", cwd], 30, 120);
    t.wait_for("type a prompt", WAIT);
    t.type_line("take your time [mock:slow]");
    // The tree before the turn is recorded before the agent says anything.
    t.wait_for("tick 1", WAIT);
    std::fs::write(&notes, "first\nsecond, edited\nthird\n").unwrap();
    let s = t.wait_for("± turn 1: 1 file changed, +2 -1 · Ctrl+F to review", WAIT);
    assert!(s.contains("  M notes.txt  +2 -1"), "{s}");

    t.send(b"\x06");
    t.wait_for("▸ M notes.txt", WAIT);
    t.send(b"\r");
    let s = t.wait_for("± turn 1 · file 1 of 1 · M notes.txt (+2 -1)", WAIT);
    assert!(s.contains("@@ -1,2 +1,3 @@"), "{s}");
    assert!(
        s.contains("│▸1 1   first"),
        "the cursor on the first line: {s}"
    );
    assert!(s.contains("│ 2   - second"), "{s}");
    assert!(s.contains("│   2 + second, edited"), "{s}");
    // Down to `+third`, then a comment on it.
    for _ in 0..3 {
        t.send(b"\x1b[B");
    }
    t.wait_for("│▸  3 + third", WAIT);
    t.send(b"c");
    t.wait_for(
        "comment on notes.txt, line 3 · Enter sends it to the agent",
        WAIT,
    );
    t.type_line("why a third line?");
    let s = t.wait_for("You said: \"Review comment on notes.txt, line 3:", WAIT);
    assert!(
        s.contains("you ❯ Review comment on notes.txt, line 3:"),
        "{s}"
    );
    // The hunk is quoted in a fenced diff, the comment after it.
    let s = t.wait_for("why a third line?\". Install a real agent", WAIT);
    assert!(s.contains("▏ +third"), "the hunk in the echo: {s}");
    t.send(b"\x04");
    assert_eq!(t.wait_exit(WAIT), 0);
    t.assert_restored();
}

/// A chat of two agents: plain text goes to the first, `@NAME` to another
/// (who keeps the word), `/compare` asks both, `/members` lists them,
/// `/add` and `/drop` change the room, each answer under its member.
#[test]
fn a_room_of_two_agents_addressed_compared_and_changed() {
    let mut t = Tty::spawn(&["chat", "--agent", "mock", "--agent", "mock"], 30, 100);
    t.wait_for("a room of mock, mock#2", WAIT);
    let s = t.screen();
    assert!(s.contains("mock ready · mock#2 ready"), "{s}");

    t.type_line("[mock:say] first answer");
    t.wait_for("── mock ──", WAIT);
    let s = t.wait_for("mock ready · mock#2 ready", WAIT);
    assert!(
        s.matches("first answer").count() >= 2,
        "prompt and answer: {s}"
    );
    assert!(
        !s.contains("── mock#2 ──"),
        "only the first member was asked: {s}"
    );

    t.type_line("@mock#2 [mock:say] second answer");
    t.wait_for("── mock#2 ──", WAIT);
    let s = t.wait_for("mock ready · mock#2 ready", WAIT);
    assert!(s.matches("second answer").count() >= 2, "{s}");

    t.type_line("/members");
    let s = t.wait_for("plain text goes to the one marked", WAIT);
    assert!(
        s.contains("* mock#2 (mock)"),
        "the last addressed has the word: {s}"
    );

    t.type_line("/compare [mock:say] both of us");
    let start = std::time::Instant::now();
    while t.screen().matches("both of us").count() < 3 {
        assert!(
            start.elapsed() < WAIT,
            "both members answer:\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(30));
    }
    // The README's picture of a room: this screen, when asked for.
    if let Some(path) = std::env::var_os("COHOST_TUI_SCREENSHOT") {
        let s = t.wait_for("mock ready · mock#2 ready", WAIT);
        std::fs::write(path, s).unwrap();
    }

    t.type_line("/add mock");
    t.wait_for("mock#3 joined the room", WAIT);
    t.wait_for("mock ready · mock#2 ready · mock#3 ready", WAIT);
    t.type_line("/drop mock#2");
    t.wait_for("mock#2 left the room", WAIT);
    t.wait_for("mock ready · mock#3 ready", WAIT);
    t.type_line("@nobody hi");
    t.wait_for("no member of this room is named nobody", WAIT);

    // A handoff: mock#3 gets mock's conversation (the mock answers with
    // the text after the first marker in its prompt: the earlier prompt).
    t.type_line("@mock [mock:say] remember the blue door");
    let start = std::time::Instant::now();
    while t.screen().matches("remember the blue door").count() < 2 {
        assert!(start.elapsed() < WAIT, "mock answers:\n{}", t.screen());
        std::thread::sleep(Duration::from_millis(30));
    }
    t.wait_for("mock ready · mock#3 ready", WAIT);
    t.type_line("/handoff mock#3 which door?");
    t.wait_for("handed mock's conversation", WAIT);
    t.wait_for("── mock#3 ──", WAIT);
    let s = t.wait_for("mock ready · mock#3 ready", WAIT);
    assert!(
        s.matches("the blue door").count() >= 3,
        "prompt, answer, mock#3's: {s}"
    );

    t.type_line("/quit");
    assert_eq!(t.wait_exit(WAIT), 0);
    t.assert_restored();
}

/// Waits until the screen holds every one of `needles` at once (one read
/// of the screen, so the states seen belong together).
fn wait_all(t: &Tty, needles: &[&str]) -> String {
    let start = std::time::Instant::now();
    loop {
        let s = t.screen();
        if needles.iter().all(|n| s.contains(n)) {
            return s;
        }
        assert!(start.elapsed() < WAIT, "waiting for {needles:?}:\n{s}");
        std::thread::sleep(Duration::from_millis(30));
    }
}

/// A room's tabs (issue 33): two members' tabs with their states, Alt+2
/// shows and addresses the second, a prompt typed there goes to it alone,
/// Ctrl+C stops it alone while the first streams on, and a quick second
/// Ctrl+C stops both.
#[test]
fn a_rooms_tabs_address_and_interrupt_one_member() {
    let mut t = Tty::spawn(&["chat", "--agent", "mock", "--agent", "mock"], 30, 100);
    t.wait_for("a room of mock, mock#2", WAIT);
    wait_all(&t, &["[all]", "1 mock ○ idle", "2 mock#2 ○ idle"]);

    // Alt+1 (ESC 1): mock's tab; a slow answer there.
    t.send(b"\x1b1");
    t.wait_for("[1 mock ○ idle]", WAIT);
    t.type_line("[mock:slow] first");
    t.wait_for("tick 2", WAIT);
    let s = wait_all(&t, &["[1 mock ● streaming]", "2 mock#2 ○ idle"]);
    assert!(s.contains("you → mock ❯ [mock:slow] first"), "{s}");

    // Alt+2: mock#2's tab shows none of mock's turn; a prompt typed here
    // goes to mock#2 only.
    t.send(b"\x1b2");
    let s = wait_all(&t, &["[2 mock#2 ○ idle]", "1 mock ● streaming"]);
    assert!(!s.contains("tick"), "mock's answer is on mock's tab: {s}");
    t.type_line("[mock:slow] second");
    t.wait_for("tick 2", WAIT);
    let s = wait_all(&t, &["[2 mock#2 ● streaming]", "1 mock ● streaming"]);
    assert!(s.contains("you → mock#2 ❯ [mock:slow] second"), "{s}");
    assert!(
        !s.contains("first"),
        "mock's prompt is not on mock#2's tab: {s}"
    );

    // Ctrl+C on mock#2's tab: mock#2 stops, mock streams on.
    t.send(b"\x03");
    let s = wait_all(
        &t,
        &["[2 mock#2 ○ idle]", "· interrupted", "1 mock ● streaming"],
    );
    assert!(s.contains("Ctrl+C again interrupts every member"), "{s}");
    // Past the two seconds a second press would take, back on mock's tab:
    // it was not interrupted and finishes its answer.
    std::thread::sleep(Duration::from_millis(2200));
    t.send(b"\x1b1");
    let s = t.wait_for("[1 mock ○ idle]", WAIT);
    assert!(!s.contains("interrupted"), "mock finished: {s}");
    assert!(s.contains("tick 49"), "all of mock's answer: {s}");

    // Both stream again; Ctrl+C twice in a row stops both.
    t.type_line("[mock:slow] again");
    t.send(b"\x1b0");
    t.type_line("@mock#2 [mock:slow] again");
    wait_all(&t, &["1 mock ● streaming", "2 mock#2 ● streaming"]);
    t.send(b"\x03");
    t.send(b"\x03");
    let s = wait_all(&t, &["1 mock ○ idle", "2 mock#2 ○ idle"]);
    assert!(s.contains("interrupting every member"), "{s}");
    // The all tab: this turn's two interrupts below the first one's (the
    // second member's notice may be drawn a frame after both go idle).
    let start = std::time::Instant::now();
    loop {
        let s = t.screen();
        if s.matches("· interrupted").count() >= 2 {
            break;
        }
        assert!(
            start.elapsed() < WAIT,
            "both turns say they were interrupted:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(30));
    }

    t.send(b"\x04");
    assert_eq!(t.wait_exit(WAIT), 0);
    t.assert_restored();
}
