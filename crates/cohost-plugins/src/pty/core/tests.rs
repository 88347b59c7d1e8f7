//! The PTY core on recorded terminal bytes (no process).

use super::*;

fn text(ev: &[AgentEvent]) -> String {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn ended(ev: &[AgentEvent]) -> Option<EndReason> {
    ev.iter().find_map(|e| match e {
        AgentEvent::Ended { reason, .. } => Some(*reason),
        _ => None,
    })
}

#[test]
fn banner_then_prompt_makes_it_ready() {
    let mut c = PtyCore::new("> ");
    assert!(c.on_output(b"\x1b[1mWelcome\x1b[0m v1\r\n").is_empty());
    assert!(!c.is_ready());
    c.on_output(b"> ");
    assert!(c.is_ready());
    assert_eq!(c.banner_tail(), "Welcome v1 | > ");
}

#[test]
fn a_turn_drops_the_echo_streams_text_and_ends_at_the_prompt() {
    let mut c = PtyCore::new("> ");
    c.on_output(b"> ");
    let typed = c.begin_turn("say\nhi");
    assert_eq!(typed, b"say hi\r");
    let mut ev = c.on_output(b"say hi\r\n");
    assert!(text(&ev).is_empty(), "echo dropped: {ev:?}");
    ev.extend(c.on_output(b"\x1b[32mHello\x1b[0m, "));
    ev.extend(c.on_output(b"world\r\n>"));
    assert_eq!(text(&ev), "Hello, world\n", "the `>` is held back");
    assert!(ended(&ev).is_none());
    ev.extend(c.on_output(b" "));
    assert_eq!(ended(&ev), Some(EndReason::Completed));
    assert_eq!(text(&ev), "Hello, world\n");
    assert!(c.is_ready());
}

#[test]
fn a_marker_prefix_that_is_not_the_marker_is_released() {
    let mut c = PtyCore::new(">>> ");
    c.on_output(b">>> ");
    c.begin_turn("x");
    let mut ev = c.on_output(b"x\r\na >");
    assert_eq!(text(&ev), "a ");
    ev.extend(c.on_output(b"b\n>>> "));
    assert_eq!(text(&ev), "a >b\n");
    assert_eq!(ended(&ev), Some(EndReason::Completed));
}

#[test]
fn ctrl_c_then_prompt_is_interrupted() {
    let mut c = PtyCore::new("$ ");
    c.on_output(b"$ ");
    c.begin_turn("long");
    c.on_output(b"long\r\ntick 1\n");
    assert_eq!(c.interrupt(), CTRL_C);
    let ev = c.on_output(b"^C\r\nKeyboardInterrupt\r\n$ ");
    assert_eq!(ended(&ev), Some(EndReason::Interrupted));
}

#[test]
fn exit_mid_turn_is_a_crash_unless_interrupted() {
    let mut c = PtyCore::new("> ");
    c.on_output(b"> ");
    c.begin_turn("q");
    c.on_output(b"q\r\npartial");
    assert!(c.on_exit().is_none());
    let mut c = PtyCore::new("> ");
    c.on_output(b"> ");
    c.begin_turn("q");
    c.interrupt();
    let ev = c.on_exit().unwrap();
    assert_eq!(ended(&ev), Some(EndReason::Interrupted));
    // Exit while idle is not a turn event at all.
    assert_eq!(PtyCore::new("> ").on_exit(), Some(Vec::new()));
}

#[test]
fn no_echo_and_multibyte_markers_are_fine() {
    let mut c = PtyCore::new("λ ");
    c.on_output("λ ".as_bytes());
    c.begin_turn("hi");
    let ev = c.on_output("answer ñ\nλ ".as_bytes());
    assert_eq!(text(&ev), "answer ñ\n");
    assert_eq!(ended(&ev), Some(EndReason::Completed));
}
