//! Issue 37: invites per person, made while the room runs. `cohost share
//! --invite-only` makes no open invite; `/invite NAME ROLE` makes one for
//! NAME (its own relay token and ticket), shown to the host alone. The
//! guest who opens it is known by that name, whatever name they give, and
//! `/kick` revokes that invite alone.

use std::io::Write;
use std::process::Stdio;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::knock_room::until;
use crate::room_cli::{cohost, committed_repo, quit};
use crate::share_join_cli::{lines_of, Reaper};

const STEP: Duration = Duration::from_secs(60);

/// The first of the host's JSON notices that `pick` takes.
fn notice<T>(
    rx: &Receiver<String>,
    seen: &mut Vec<String>,
    what: &str,
    mut pick: impl FnMut(&Value) -> Option<T>,
) -> T {
    until(rx, seen, what, |l| {
        pick(&serde_json::from_str(l).unwrap_or_default())
    })
}

#[test]
fn an_invite_only_room_lets_in_the_people_invited_by_name_while_it_runs() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let repo = committed_repo();
    let mut host = Reaper(
        cohost(h, repo.path())
            .args(["share", "-a", "mock", "--invite-only", "--approve", "none"])
            .args(["--json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let out = lines_of(host.0.stdout.take().unwrap());
    let err = lines_of(host.0.stderr.take().unwrap());
    let mut stdin = host.0.stdin.take().unwrap();
    let mut seen = Vec::new();
    let invites = notice(&out, &mut seen, "the invites", |n| {
        (n["notice"] == "invites").then(|| n.clone())
    });
    assert!(
        invites["co_driver"].is_null() && invites["viewer"].is_null(),
        "no open invite: {invites}"
    );

    // A role that is none is refused with the usage; nothing is made.
    writeln!(stdin, "/invite ana pilot").unwrap();
    let usage = loop {
        let line = err
            .recv_timeout(STEP)
            .expect("the host is told what /invite takes");
        if line.contains("/invite") {
            break line;
        }
    };
    assert!(usage.contains("/invite NAME co-driver|viewer"), "{usage}");
    assert!(usage.contains("unknown role"), "{usage}");

    writeln!(stdin, "/invite ana co-driver").unwrap();
    let invite = notice(&out, &mut seen, "ana's invite", |n| {
        (n["notice"] == "invite").then(|| n.clone())
    });
    assert_eq!(invite["name"], "ana");
    assert_eq!(invite["role"], "co-driver");
    let invite = invite["invite"].as_str().unwrap().to_owned();
    assert!(invite.starts_with("cohost://"), "{invite}");

    // She joins under another name: the room knows her as the host named
    // her.
    let mut ana = Reaper(
        cohost(h, h)
            .args(["join", "--json", "--name", "the-boss", "--chat", "hello"])
            .env("COHOST_INVITE", &invite)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let ana_out = lines_of(ana.0.stdout.take().unwrap());
    let said = notice(&out, &mut seen, "ana's chat", |n| {
        (n["notice"] == "chat" && n["chat"]["text"] == "hello").then(|| n["chat"]["from"].clone())
    });
    assert_eq!(said, "ana (co-driver)");
    writeln!(stdin, "[mock:say] wombat").unwrap();
    let mut ana_seen = Vec::new();
    notice(&ana_out, &mut ana_seen, "the host's turn", |f| {
        (f["payload"]["delta"] == "wombat").then_some(())
    });

    // Kicked, her invite is no key any more.
    writeln!(stdin, "/kick ana").unwrap();
    let deadline = Instant::now() + STEP;
    while ana.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "ana is still in the room");
        std::thread::sleep(Duration::from_millis(20));
    }
    let again = cohost(h, h)
        .args(["join", "--json", "--until-end"])
        .env("COHOST_INVITE", &invite)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_ne!(again.status.code(), Some(0));
    let why = String::from_utf8_lossy(&again.stderr);
    assert!(why.contains("revoked"), "{why}");

    let status = quit(&mut host, stdin);
    assert_eq!(status.code(), Some(0), "{seen:#?}");
}
