//! The room's commands in a shared session (`cohost share -a mock -a
//! mock`, a real embedded relay, a participant in `cohost join --json`), as
//! a host types them: `/add` a member (it answers, and the participant's
//! member list grows), `/handoff` the conversation to another member (whose
//! answer holds the earlier prompt), `/drop` one, `/keep` one's change into
//! the checkout; the participant hears each change, its member list from
//! the host's signed chat.

use std::io::Write;
use std::process::Stdio;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::room_cli::{cohost, committed_repo, git, quit, share_in};
use crate::share_join_cli::{lines_of, Reaper};

const STEP: Duration = Duration::from_secs(60);

/// The first JSON line from `rx` that `pick` takes, within [`STEP`].
fn until<T>(
    rx: &Receiver<String>,
    seen: &mut Vec<String>,
    what: &str,
    mut pick: impl FnMut(&Value) -> Option<T>,
) -> T {
    let deadline = Instant::now() + STEP;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = rx.recv_timeout(left) else {
            panic!("no {what} in {STEP:?}: {seen:#?}");
        };
        let v: Value = serde_json::from_str(&line).unwrap_or_default();
        seen.push(line);
        if let Some(t) = pick(&v) {
            return t;
        }
    }
}

/// The host's `room` notice containing `part`.
fn room_notice(rx: &Receiver<String>, seen: &mut Vec<String>, part: &str) -> String {
    until(rx, seen, part, |n| {
        let m = n["message"].as_str().unwrap_or_default();
        (n["notice"] == "room" && m.contains(part)).then(|| m.to_owned())
    })
}

/// The host's `members` notice (it comes just before the `room` notice
/// saying what changed).
fn members_notice(rx: &Receiver<String>, seen: &mut Vec<String>) -> Vec<String> {
    until(rx, seen, "the member list", |n| {
        (n["notice"] == "members").then(|| serde_json::from_value(n["members"].clone()).unwrap())
    })
}

/// What member `agent` streamed in its next turn, once the turn ended.
fn answer_of(rx: &Receiver<String>, seen: &mut Vec<String>, agent: &str) -> String {
    let mut said = String::new();
    until(rx, seen, &format!("{agent}'s turn end"), |n| {
        let e = &n["event"];
        if n["notice"] != "event" || e["agent"] != agent {
            return None;
        }
        if e["type"] == "stream_chunk" {
            said.push_str(e["delta"].as_str().unwrap_or_default());
        }
        (e["type"] == "stream_end").then_some(())
    });
    said
}

/// The participant's next host chat: its text and the member list it
/// carries (`None`: a chat without one).
fn host_chat(
    rx: &Receiver<String>,
    seen: &mut Vec<String>,
    part: &str,
) -> (String, Option<Vec<String>>) {
    until(rx, seen, part, |f| {
        let p = &f["payload"];
        let said = p["text"].as_str().unwrap_or_default();
        (f["frame"] == "chat.message" && f["sender_role"] == "HOST" && said.contains(part)).then(
            || {
                let members = serde_json::from_value(p["members"].clone()).ok();
                (said.to_owned(), members)
            },
        )
    })
}

#[test]
fn the_host_adds_hands_off_drops_and_keeps_members_and_the_room_hears_it() {
    let home = tempfile::tempdir().unwrap();
    let repo = committed_repo();
    let mut host = share_in(home.path(), repo.path(), &["-a", "mock", "-a", "mock"]);
    let out = lines_of(host.0.stdout.take().unwrap());
    let _err = lines_of(host.0.stderr.take().unwrap());
    let mut stdin = host.0.stdin.take().unwrap();
    let mut seen = Vec::new();
    let co = until(&out, &mut seen, "the invites", |n| {
        (n["notice"] == "invites").then(|| n["co_driver"].as_str().unwrap().to_owned())
    });
    let mut ana = Reaper(
        cohost(home.path(), home.path())
            .args(["join", "--json", "--name", "ana"])
            .env("COHOST_INVITE", &co)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let frames = lines_of(ana.0.stdout.take().unwrap());
    let mut heard = Vec::new();
    // Joining a room of several agents, ana hears who its members are.
    let (_, members) = host_chat(&frames, &mut heard, "members: ");
    assert_eq!(
        members.as_deref(),
        Some(&["mock".into(), "mock#2".into()][..])
    );

    // `/add mock`: a third member, in the host's list and ana's.
    writeln!(stdin, "/add mock").unwrap();
    let names = ["mock", "mock#2", "mock#3"].map(String::from);
    assert_eq!(members_notice(&out, &mut seen), names);
    room_notice(&out, &mut seen, "mock#3 joined the room");
    let (_, members) = host_chat(&frames, &mut heard, "mock#3 joined the room");
    assert_eq!(members.as_deref(), Some(&names[..]));
    writeln!(stdin, "@mock#3 [mock:say] the third speaks").unwrap();
    assert_eq!(answer_of(&out, &mut seen, "mock#3"), "the third speaks");

    // `/handoff mock#2 go on`: mock#2 gets mock#3's conversation, its
    // earlier prompt included, and the room is told.
    writeln!(stdin, "/handoff mock#2 go on").unwrap();
    room_notice(&out, &mut seen, "handed mock#3's conversation (1 turn(s)");
    let handed = answer_of(&out, &mut seen, "mock#2");
    assert!(handed.contains("the third speaks"), "{handed}");
    assert!(handed.contains("go on"), "{handed}");
    let (said, members) = host_chat(&frames, &mut heard, "handed mock#3's");
    assert!(said.contains("to mock#2, who has the word now"), "{said}");
    assert_eq!(members, None);
    until(&frames, &mut heard, "mock#2's handed turn", |f| {
        (f["frame"] == "ai.execution.started" && f["payload"]["agent"] == "mock#2").then(|| {
            assert_eq!(f["payload"]["text"], "(the conversation of mock#3) go on");
        })
    });

    // mock#2 "wrote" a file in its worktree (the mock only simulates
    // writes): `/members` says which branch it works on.
    writeln!(stdin, "/members").unwrap();
    let listed = room_notice(&out, &mut seen, "members (plain text goes to");
    let branch = listed
        .lines()
        .find(|l| l.contains(" mock#2 (mock) "))
        .and_then(|l| l.split("worktree ").nth(1))
        .unwrap_or_else(|| panic!("mock#2's worktree: {listed}"))
        .trim()
        .to_owned();
    let porcelain = git(repo.path(), &["worktree", "list", "--porcelain"]);
    let path = porcelain
        .split("\n\n")
        .find(|b| b.contains(&format!("branch refs/heads/{branch}")))
        .and_then(|b| b.lines().next())
        .and_then(|l| l.strip_prefix("worktree "))
        .unwrap_or_else(|| panic!("{branch} in {porcelain}"))
        .to_owned();
    std::fs::write(std::path::Path::new(&path).join("kept.txt"), "kept\n").unwrap();

    // `/drop mock#3`: out of the room, for the host and ana.
    writeln!(stdin, "/drop mock#3").unwrap();
    let two = ["mock", "mock#2"].map(String::from);
    assert_eq!(members_notice(&out, &mut seen), two);
    room_notice(&out, &mut seen, "mock#3 left the room");
    let (_, members) = host_chat(&frames, &mut heard, "mock#3 left the room");
    assert_eq!(members.as_deref(), Some(&two[..]));

    // `/keep mock#2`: its file comes into the checkout, the other stops.
    writeln!(stdin, "/keep mock#2").unwrap();
    assert_eq!(members_notice(&out, &mut seen), ["mock#2".to_string()]);
    let kept = room_notice(&out, &mut seen, "kept mock#2: applied 1 file(s)");
    assert!(kept.contains("kept.txt"), "{kept}");
    let (_, members) = host_chat(&frames, &mut heard, "kept mock#2");
    assert_eq!(members.as_deref(), Some(&["mock#2".to_string()][..]));
    assert_eq!(
        std::fs::read_to_string(repo.path().join("kept.txt")).unwrap(),
        "kept\n"
    );

    let status = quit(&mut host, stdin);
    assert_eq!(status.code(), Some(0), "{seen:#?}");
    // The others' worktrees are gone; the kept member worked on in its
    // own, which still holds the file (now also in the checkout), so it
    // stays for `cohost worktree discard`. No stash, still on main.
    let worktrees = git(repo.path(), &["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 2, "{worktrees}");
    assert!(
        worktrees.contains(&format!("branch refs/heads/{branch}")),
        "{worktrees}"
    );
    assert_eq!(git(repo.path(), &["stash", "list"]), "");
    assert_eq!(
        git(repo.path(), &["branch", "--show-current"]).trim(),
        "main"
    );
}
