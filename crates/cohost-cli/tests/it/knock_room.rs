//! `cohost share --knock` (issue 34), through the binaries on the host's
//! embedded relay: a co-driver in `cohost join --json` knocks; the host
//! sees her name and key fingerprint; until `/admit` she opens no frame of
//! the room (a turn the host runs meanwhile reaches her relay connection
//! but not her screen) and her suggestion runs nothing; admitted, she sees
//! the next turn. A second guest is refused: his key stays out. Each is
//! told, in words, that they wait (with the fingerprint the host sees),
//! and what the host answered; someone the host never answers is refused
//! at the deadline (`--knock-timeout`); a guest turned away leaves with
//! exit code 13.

use std::io::Write;
use std::process::Stdio;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::room_cli::{cohost, committed_repo, quit};
use crate::share_join_cli::{lines_of, Reaper};

const STEP: Duration = Duration::from_secs(60);

/// The first line from `rx` that `pick` takes, within [`STEP`] (the
/// shared-room tests' reader: record_signed, invite_runtime).
pub(crate) fn until<T>(
    rx: &Receiver<String>,
    seen: &mut Vec<String>,
    what: &str,
    mut pick: impl FnMut(&str) -> Option<T>,
) -> T {
    let deadline = Instant::now() + STEP;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = rx.recv_timeout(left) else {
            panic!("no {what} in {STEP:?}: {seen:#?}");
        };
        let got = pick(&line);
        seen.push(line);
        if let Some(t) = got {
            return t;
        }
    }
}

/// The host's `room` notice containing `part`.
fn room(rx: &Receiver<String>, seen: &mut Vec<String>, part: &str) -> String {
    until(rx, seen, part, |l| {
        let n: Value = serde_json::from_str(l).unwrap_or_default();
        let m = n["message"].as_str().unwrap_or_default();
        (n["notice"] == "room" && m.contains(part)).then(|| m.to_owned())
    })
}

/// The host runs `prompt` and waits for its turn's end.
fn turn(
    stdin: &mut std::process::ChildStdin,
    rx: &Receiver<String>,
    seen: &mut Vec<String>,
    prompt: &str,
) {
    writeln!(stdin, "{prompt}").unwrap();
    until(rx, seen, "the turn's end", |l| {
        let n: Value = serde_json::from_str(l).unwrap_or_default();
        (n["notice"] == "event" && n["event"]["type"] == "stream_end").then_some(())
    });
}

/// The exit code of `p`, which is to end within [`STEP`].
pub(crate) fn exit_code(p: &mut Reaper) -> Option<i32> {
    let deadline = Instant::now() + STEP;
    loop {
        if let Some(status) = p.0.try_wait().unwrap() {
            return status.code();
        }
        assert!(Instant::now() < deadline, "still running after {STEP:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `cohost join`'s exit code when the host did not let it in.
const TURNED_AWAY: i32 = 13;

/// A guest in `cohost join --json`: its frames (stdout) and notices
/// (stderr), read as they come.
fn guest(
    home: &std::path::Path,
    invite: &str,
    name: &str,
    extra: &[&str],
) -> (Reaper, Receiver<String>, Receiver<String>) {
    let mut cmd = cohost(home, home);
    cmd.args(["join", "--json", "--name", name]).args(extra);
    joined(cmd, invite, Stdio::null())
}

/// `cmd` (a `cohost join --json …` command) run with `invite` (in
/// `COHOST_INVITE`) and `stdin`: the process, its frames (stdout) and
/// notices (stderr), read as they come (guest_member too).
pub(crate) fn joined(
    mut cmd: std::process::Command,
    invite: &str,
    stdin: Stdio,
) -> (Reaper, Receiver<String>, Receiver<String>) {
    let mut p = Reaper(
        cmd.env("COHOST_INVITE", invite)
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let out = lines_of(p.0.stdout.take().unwrap());
    let err = lines_of(p.0.stderr.take().unwrap());
    (p, out, err)
}

/// `cohost share ARGS --json` in `repo` with `home` as its home: the host,
/// its notices (stdout, read as they come) and its stdin; stderr dropped.
/// (The shared-room tests' host: record_signed too.)
pub(crate) fn share_json(
    home: &std::path::Path,
    repo: &std::path::Path,
    args: &[&str],
) -> (Reaper, Receiver<String>, std::process::ChildStdin) {
    let mut host = Reaper(
        cohost(home, repo)
            .arg("share")
            .args(args)
            .arg("--json")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let out = lines_of(host.0.stdout.take().unwrap());
    let stdin = host.0.stdin.take().unwrap();
    (host, out, stdin)
}

#[test]
fn a_knocking_guest_sees_nothing_until_admitted_and_a_refused_one_never() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let repo = committed_repo();
    let (mut host, out, mut stdin) = share_json(
        h,
        repo.path(),
        &["-a", "mock", "--knock", "--approve", "none"],
    );
    let mut seen = Vec::new();
    let co = until(&out, &mut seen, "the invites", |l| {
        let n: Value = serde_json::from_str(l).unwrap_or_default();
        (n["notice"] == "invites").then(|| n["co_driver"].as_str().unwrap().to_owned())
    });

    // ana knocks, and suggests at once: nothing of hers counts yet.
    let (_ana, ana_out, ana_err) = guest(h, &co, "ana", &["--suggest", "[mock:say] sneaked in"]);
    let knock = room(&out, &mut seen, "knocks: key fingerprint");
    assert!(knock.starts_with("ana (co-driver) knocks"), "{knock}");
    assert!(
        knock.ends_with("/admit ana or /refuse ana (refused in 5m without an answer)"),
        "{knock}"
    );
    let fingerprint = knock
        .split("fingerprint ")
        .nth(1)
        .unwrap()
        .split(';')
        .next()
        .unwrap();
    assert_eq!(fingerprint.len(), 19, "{knock}");
    // She is told she waits, with the fingerprint the host reads.
    let mut ana_said = Vec::new();
    let waits = until(&ana_err, &mut ana_said, "ana's wait", |l| {
        l.contains("waiting for the host to let you in")
            .then(|| l.to_owned())
    });
    assert!(
        waits.contains(&format!("your key fingerprint is {fingerprint}")),
        "{waits}"
    );
    assert!(
        waits.ends_with("(refused in 5m without an answer)"),
        "{waits}"
    );
    room(&out, &mut seen, "did not let into the room");
    writeln!(stdin, "/who").unwrap();
    let who = room(&out, &mut seen, "at the door: ana (co-driver)");
    assert!(who.contains("/admit NAME"), "{who}");

    // The host's turn while she waits: it reaches her connection, sealed
    // under a key her invite does not carry.
    // (One word per prompt: the mock streams word by word.)
    turn(&mut stdin, &out, &mut seen, "[mock:say] quokka");
    std::thread::sleep(Duration::from_millis(500));
    let mut ana_seen: Vec<String> = ana_out.try_iter().collect();
    ana_said.extend(ana_err.try_iter());
    assert!(
        !ana_seen
            .iter()
            .any(|l| l.contains("quokka") || l.contains("sneaked")),
        "{ana_seen:#?}"
    );
    assert!(
        ana_seen
            .iter()
            .chain(&ana_said)
            .any(|l| l.contains("epoch 1")),
        "the frames came and did not open: {ana_seen:#?} {ana_said:#?}"
    );

    // Let in: she gets the keys and sees the next turn.
    writeln!(stdin, "/admit ana").unwrap();
    room(&out, &mut seen, "let ana (co-driver) in");
    until(&ana_err, &mut ana_said, "ana let in", |l| {
        (l == "the host let you in").then_some(())
    });
    turn(&mut stdin, &out, &mut seen, "[mock:say] pangolin");
    until(&ana_out, &mut ana_seen, "the admitted turn", |l| {
        let f: Value = serde_json::from_str(l).unwrap_or_default();
        (f["payload"]["delta"] == "pangolin").then_some(())
    });
    // Under --json the host's answers are frames too, addressed to her.
    let doors: Vec<Value> = ana_seen
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|f| f["frame"] == "key.door")
        .collect();
    let answers: Vec<&str> = doors
        .iter()
        .filter_map(|f| f["payload"]["answer"].as_str())
        .collect();
    assert_eq!(answers, ["waiting", "admitted"], "{doors:#?}");
    assert_eq!(doors[0]["payload"]["timeout_secs"], 300, "{doors:#?}");

    // bo knocks through the same open invite and is refused: that key
    // stays out, and the invite keeps working for ana.
    let (mut bo, bo_out, bo_err) = guest(h, &co, "bo", &[]);
    room(&out, &mut seen, "bo (co-driver) knocks");
    let mut bo_said = Vec::new();
    until(&bo_err, &mut bo_said, "bo's wait", |l| {
        l.contains("waiting for the host to let you in")
            .then_some(())
    });
    writeln!(stdin, "/refuse bo").unwrap();
    let refused = room(&out, &mut seen, "refused bo (co-driver)");
    assert!(
        refused.contains("that key never opens the room"),
        "{refused}"
    );
    turn(&mut stdin, &out, &mut seen, "[mock:say] axolotl");
    until(&ana_out, &mut ana_seen, "ana's next turn", |l| {
        let f: Value = serde_json::from_str(l).unwrap_or_default();
        (f["payload"]["delta"] == "axolotl").then_some(())
    });
    // bo's answers were not hers: she shows none of them.
    let doors = ana_seen
        .iter()
        .filter(|l| l.contains("\"frame\":\"key.door\""))
        .count();
    assert_eq!(doors, 2, "{ana_seen:#?}");
    assert!(
        !ana_said.iter().any(|l| l.contains("did not let you in")),
        "{ana_said:#?}"
    );
    // He is told, in words, and leaves with his own exit code; he read
    // nothing of the room.
    until(&bo_err, &mut bo_said, "bo turned away", |l| {
        l.contains("cohost: the host did not let you in (your key fingerprint ")
            .then_some(())
    });
    assert_eq!(exit_code(&mut bo), Some(TURNED_AWAY), "{bo_said:#?}");
    let bo_seen: Vec<String> = bo_out.try_iter().chain(bo_err.try_iter()).collect();
    assert!(
        !bo_seen
            .iter()
            .any(|l| l.contains("axolotl") || l.contains("pangolin")),
        "{bo_seen:#?}"
    );
    writeln!(stdin, "/admit bo").unwrap();
    room(&out, &mut seen, "nobody named bo is at the door");

    let status = quit(&mut host, stdin);
    assert_eq!(status.code(), Some(0), "{seen:#?}");

    // The host's answers are in the signed record.
    let answers: Vec<(String, String)> = record_entries(h)
        .iter()
        .filter(|e| e["kind"] == "presence")
        .map(|e| serde_json::from_str::<Value>(e["body"].as_str().unwrap()).unwrap())
        .filter(|b| b["change"] == "admitted" || b["change"] == "refused")
        .map(|b| {
            (
                b["change"].as_str().unwrap().to_owned(),
                b["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        answers,
        [
            ("admitted".to_owned(), "ana".to_owned()),
            ("refused".to_owned(), "bo".to_owned())
        ]
    );
}

/// The entries of the one session's record under `home`, verified first.
fn record_entries(home: &std::path::Path) -> Vec<Value> {
    let list = cohost(home, home)
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&list.stdout).unwrap();
    let id = list[0]["id"].as_str().unwrap().to_owned();
    let o = cohost(home, home)
        .args(["record", "verify", &id])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let path = cohost(home, home)
        .args(["record", "path", &id])
        .output()
        .unwrap();
    let path = String::from_utf8(path.stdout).unwrap();
    std::fs::read_to_string(path.trim())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_refused_personal_invite_is_revoked_at_the_relay() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let repo = committed_repo();
    let (mut host, out, mut stdin) = share_json(
        h,
        repo.path(),
        &[
            "-a",
            "mock",
            "--knock",
            "--invite",
            "cy=co-driver",
            "--approve",
            "none",
        ],
    );
    let mut seen = Vec::new();
    let invite = until(&out, &mut seen, "the invites", |l| {
        let n: Value = serde_json::from_str(l).unwrap_or_default();
        (n["notice"] == "invites").then(|| n["personal"][0]["invite"].as_str().unwrap().to_owned())
    });
    let (mut cy, cy_out, cy_err) = guest(h, &invite, "cy", &[]);
    room(&out, &mut seen, "cy (co-driver) knocks");
    turn(&mut stdin, &out, &mut seen, "[mock:say] wombat");
    writeln!(stdin, "/refuse cy").unwrap();
    let refused = room(&out, &mut seen, "refused cy (co-driver)");
    assert!(
        refused.contains("its personal invite is revoked"),
        "{refused}"
    );
    // The relay lets cy go, and cy never read a word of the room.
    let deadline = Instant::now() + STEP;
    while cy.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "cy is still in the room");
        std::thread::sleep(Duration::from_millis(20));
    }
    let cy_seen: Vec<String> = cy_out.try_iter().chain(cy_err.try_iter()).collect();
    assert!(
        !cy_seen.iter().any(|l| l.contains("wombat")),
        "{cy_seen:#?}"
    );
    assert!(
        cy_seen
            .iter()
            .any(|l| l.contains("the host did not let you in")),
        "cy is told: {cy_seen:#?}"
    );
    assert_eq!(
        cy.0.wait().unwrap().code(),
        Some(TURNED_AWAY),
        "{cy_seen:#?}"
    );
    // The invite is no key any more.
    let again = cohost(h, h)
        .args(["join", "--json", "--name", "cy", "--until-end"])
        .env("COHOST_INVITE", &invite)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_ne!(again.status.code(), Some(0), "{cy_seen:#?}");
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(
        said.contains("revoked") || said.contains("removed"),
        "{said}"
    );
    let status = quit(&mut host, stdin);
    assert_eq!(status.code(), Some(0), "{seen:#?}");
}

/// Nobody answers: at the deadline the knock is refused as if the host
/// said `/refuse`, the host is told, and so is the guest, who leaves with
/// exit code 13 having read nothing of the room.
#[test]
fn a_knock_nobody_answers_is_refused_at_its_deadline() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let repo = committed_repo();
    let (mut host, out, mut stdin) = share_json(
        h,
        repo.path(),
        &[
            "-a",
            "mock",
            "--knock",
            "--knock-timeout",
            "3s",
            "--approve",
            "none",
        ],
    );
    let mut seen = Vec::new();
    let co = until(&out, &mut seen, "the invites", |l| {
        let n: Value = serde_json::from_str(l).unwrap_or_default();
        (n["notice"] == "invites").then(|| n["co_driver"].as_str().unwrap().to_owned())
    });
    let (mut dee, dee_out, dee_err) = guest(h, &co, "dee", &[]);
    let knock = room(&out, &mut seen, "dee (co-driver) knocks");
    assert!(
        knock.ends_with("(refused in 3s without an answer)"),
        "{knock}"
    );
    turn(&mut stdin, &out, &mut seen, "[mock:say] narwhal");
    let mut dee_said = Vec::new();
    let waits = until(&dee_err, &mut dee_said, "dee's wait", |l| {
        l.contains("waiting for the host to let you in")
            .then(|| l.to_owned())
    });
    assert!(
        waits.ends_with("(refused in 3s without an answer)"),
        "{waits}"
    );
    // Nobody answers.
    let timed_out = room(&out, &mut seen, "nobody answered dee (co-driver) within 3s");
    assert!(
        timed_out.contains("that key never opens the room"),
        "{timed_out}"
    );
    until(&dee_err, &mut dee_said, "dee told", |l| {
        l.contains("cohost: the host did not answer in time, so you were not let in (your key fingerprint ")
            .then_some(())
    });
    assert_eq!(exit_code(&mut dee), Some(TURNED_AWAY), "{dee_said:#?}");
    let dee_seen: Vec<String> = dee_out.try_iter().chain(dee_err.try_iter()).collect();
    assert!(
        !dee_seen.iter().any(|l| l.contains("narwhal")),
        "{dee_seen:#?}"
    );
    // Too late to let in.
    writeln!(stdin, "/admit dee").unwrap();
    room(&out, &mut seen, "nobody named dee is at the door");
    let status = quit(&mut host, stdin);
    assert_eq!(status.code(), Some(0), "{seen:#?}");
    let changes: Vec<String> = record_entries(h)
        .iter()
        .filter(|e| e["kind"] == "presence")
        .map(|e| serde_json::from_str::<Value>(e["body"].as_str().unwrap()).unwrap())
        .filter_map(|b| b["change"].as_str().map(str::to_owned))
        .filter(|c| c != "joined" && c != "left")
        .collect();
    assert_eq!(changes, ["timed_out"]);
}

/// A relay that keeps the host's answer back cannot keep anyone at the
/// door forever: told to wait at most 1 s, the guest leaves on its own 30 s
/// later, saying no answer came (not that the host refused), exit 13.
#[test]
fn a_relay_holding_the_answer_back_keeps_nobody_waiting_forever() {
    use crate::mitm_support::Leg;
    use cohost_protocol::FrameType;
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let (mitm, _relay, mut host, out, first) =
        crate::relay_mitm::shared_behind_mitm(h, &["--knock", "--knock-timeout", "1s"]);
    let mut seen = Vec::new();
    // The first answer (waiting) goes through; every later one is held.
    let mut answers = 0;
    mitm.drop_when(move |leg, _, f| {
        if leg == Leg::ToClient && f.kind() == FrameType::KeyDoor {
            answers += 1;
            return answers > 1;
        }
        false
    });
    let co = first["co_driver"].as_str().unwrap().to_owned();
    let (mut eve, _eve_out, eve_err) = guest(h, &co, "eve", &[]);
    let mut eve_said = Vec::new();
    until(&eve_err, &mut eve_said, "eve's wait", |l| {
        l.contains("waiting for the host to let you in")
            .then_some(())
    });
    room(&out, &mut seen, "nobody answered eve (co-driver) within 1s");
    let started = Instant::now();
    until(&eve_err, &mut eve_said, "eve leaving", |l| {
        l.contains("cohost: no answer came from the host in time")
            .then_some(())
    });
    assert!(
        started.elapsed() >= Duration::from_secs(20),
        "{eve_said:#?}"
    );
    assert_eq!(exit_code(&mut eve), Some(TURNED_AWAY), "{eve_said:#?}");
    assert!(
        !eve_said
            .iter()
            .any(|l| l.contains("the host did not answer in time")),
        "{eve_said:#?}"
    );
    let stdin = host.0.stdin.take().unwrap();
    let status = quit(&mut host, stdin);
    assert_eq!(status.code(), Some(0), "{seen:#?}");
}
