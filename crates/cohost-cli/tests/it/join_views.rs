//! What a `cohost join` participant sees of the room besides answers
//! (issue 34): text that steers the running turn, in line mode, named by
//! who sent it.

use std::io::Write;
use std::process::Stdio;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use crate::share_join_cli::{cohost, lines_of, Reaper, STEP};

/// How long a decided call's card may stay after its decision is drawn
/// (a frame or two; its deadline is two minutes away).
const CARD_GOES: Duration = Duration::from_secs(3);

/// The first line of `rx` containing `what`, within [`STEP`].
fn wait_for(rx: &Receiver<String>, what: &str) -> String {
    let deadline = Instant::now() + STEP;
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(100)) {
            if l.contains(what) {
                return l;
            }
            seen.push(l);
        }
    }
    panic!("never saw {what:?}; saw {seen:#?}");
}

/// A host line typed while the mock's slow turn runs steers it: the
/// participant's line mode shows it inside the turn, on a line of its
/// own, as the host's, and the turn goes on to its end (no second turn).
#[test]
fn join_line_mode_shows_a_steered_text_inside_the_turn() {
    let home = tempfile::tempdir().unwrap();
    let mut host = Reaper(
        cohost(home.path())
            .args(["share", "--agent", "mock", "--approve", "none", "--json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let host_out = lines_of(host.0.stdout.take().unwrap());
    let first: serde_json::Value =
        serde_json::from_str(&host_out.recv_timeout(STEP).unwrap()).unwrap();
    let invite = first["viewer"].as_str().unwrap().to_string();
    let mut join = Reaper(
        cohost(home.path())
            .args(["join", "--name", "ana"])
            .env("COHOST_INVITE", &invite)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let join_out = lines_of(join.0.stdout.take().unwrap());
    let join_err = lines_of(join.0.stderr.take().unwrap());
    wait_for(&join_err, "joined room");
    let mut host_in = host.0.stdin.take().unwrap();
    writeln!(host_in, "[mock:slow]").unwrap();
    // The answer's ticks run on one line, which the participant ends only
    // with the turn: the host's events say when the turn is under way.
    wait_for(&host_out, "tick 3");
    // A control sequence in the steered text reaches no terminal.
    writeln!(host_in, "also the changelog \x1b[31mred").unwrap();
    let line = wait_for(&join_out, "→ this turn");
    assert!(
        line.starts_with("↪ host → this turn: also the changelog") && !line.contains('\x1b'),
        "{line:?}"
    );
    wait_for(&join_out, "[steered: also the changelog");
    wait_for(&join_out, "■ done");
    writeln!(host_in, "/quit").unwrap();
    let _ = join.0.stdin.take();
}

/// Issue 34: `cohost join`'s terminal UI, on a real pseudo-terminal, gives
/// a participant the host granted approval of edits an approval card with
/// allow and deny keys. With `--quorum edit=2` its `y` is one approval of
/// two: the card stays, saying so, until the host's `/allow` decides the
/// call; then the card goes and the call names both deciders. A second
/// call denied with `n` is decided at once (one deny settles it).
#[test]
fn join_tui_approval_card_for_a_granted_participant() {
    use crate::tui_support::Tty;
    let home = tempfile::tempdir().unwrap();
    let mut host = Reaper(
        cohost(home.path())
            .args(["share", "--agent", "mock", "--json"])
            .args(["--approve", "ask", "--quorum", "edit=2"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let host_out = lines_of(host.0.stdout.take().unwrap());
    let first: serde_json::Value =
        serde_json::from_str(&host_out.recv_timeout(STEP).unwrap()).unwrap();
    let invite = first["co_driver"].as_str().unwrap().to_string();
    let mut host_in = host.0.stdin.take().unwrap();

    let mut guest = Tty::join(&invite, &["--name", "ada"], 30, 110);
    guest.wait_for("type a prompt to suggest it to the host", STEP);
    let joined: serde_json::Value =
        serde_json::from_str(&wait_for(&host_out, "CO_DRIVER")).unwrap();
    let id = joined["presence"]["who"]["conn_id"].as_u64().unwrap();
    writeln!(host_in, "/grant #{id} approve edit").unwrap();
    guest.wait_for("the host lets you approve tool calls (edit)", STEP);

    writeln!(host_in, "write it [mock:tool]").unwrap();
    let asked: serde_json::Value =
        serde_json::from_str(&wait_for(&host_out, "\"approval_needed\"")).unwrap();
    let s = guest.wait_for("(2 approvals needed)", STEP);
    assert!(s.contains("approval needed"), "{s}");
    assert!(s.contains("y allow  n deny"), "{s}");
    guest.send(b"y");
    wait_for(&host_out, "1 of 2 approvals");
    guest.wait_for("you allowed it · 2 approvals needed", STEP);
    writeln!(host_in, "/allow {}", asked["tool_id"].as_str().unwrap()).unwrap();
    let s = guest.wait_for("allowed once by", STEP);
    let line = s.lines().find(|l| l.contains("allowed once by")).unwrap();
    assert!(line.contains("co-driver") && line.contains("host"), "{s}");
    // The decision is in the turn a frame before its notice closes the
    // card: waited for, not read at once.
    guest.wait_for("✓ write_file", STEP);
    guest.wait_until("the allowed call without its card", CARD_GOES, |s| {
        s.contains("✓ write_file") && !s.contains("approval needed")
    });
    wait_for(&host_out, "\"turn_done\"");

    writeln!(host_in, "again [mock:tool]").unwrap();
    wait_for(&host_out, "\"approval_needed\"");
    guest.wait_for("y allow  n deny", STEP);
    guest.send(b"n");
    guest.wait_until("the denied call without its card", CARD_GOES, |s| {
        s.contains("denied by") && !s.contains("approval needed")
    });
    wait_for(&host_out, "\"turn_done\"");

    writeln!(host_in, "/quit").unwrap();
    assert_eq!(guest.wait_exit(STEP), 0);
    guest.assert_restored();
}
