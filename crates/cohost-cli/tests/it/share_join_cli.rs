//! `cohost share` and `cohost join` as real processes: the host shares the
//! mock agent through its embedded relay, a co-driver joins with the printed
//! invite, suggests a prompt, and receives the whole turn.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

pub(crate) fn cohost(home: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohost"));
    c.env_clear()
        .env("PATH", home)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .current_dir(home);
    c
}

/// Lines of a child's pipe, read on a thread so the test can wait with a deadline.
pub(crate) fn lines_of(
    r: impl std::io::Read + Send + 'static,
) -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

pub(crate) const STEP: Duration = Duration::from_secs(30);

/// Kills the child on drop so a failed assertion leaves nothing behind.
pub(crate) struct Reaper(pub(crate) std::process::Child);
impl Drop for Reaper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A standalone `cohost relay` keeping its secrets in `secrets`, with `env`
/// set: the child, its stdout lines after the first, and its address.
pub(crate) fn start_relay(
    home: &std::path::Path,
    secrets: &std::path::Path,
    env: &[(&str, &str)],
) -> (Reaper, std::sync::mpsc::Receiver<String>, String) {
    let mut cmd = cohost(home);
    cmd.args(["relay", "--port", "0", "--secrets"])
        .arg(secrets)
        .env_remove("COHOST_RELAY_ADMIN_SECRET")
        .env_remove("COHOST_RELAY_JWT_SECRET")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut relay = Reaper(cmd.spawn().unwrap());
    let out = lines_of(relay.0.stdout.take().unwrap());
    let listening = out.recv_timeout(STEP).expect("relay starts");
    let addr = listening
        .strip_prefix("relay listening on ")
        .expect("first line names the address")
        .to_string();
    (relay, out, addr)
}

/// Runs `cohost join INVITE --json --until-end EXTRA...` to the end of one
/// turn (bounded) and returns the frames it printed. On timeout, panics with
/// what the joiner and the host said.
fn join_one_turn(
    home: &std::path::Path,
    invite: &str,
    extra: &[&str],
    host_out: &std::sync::mpsc::Receiver<String>,
) -> Vec<serde_json::Value> {
    let mut join = Reaper(
        cohost(home)
            .args(["join", "--json", "--until-end"])
            .env("COHOST_INVITE", invite)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let join_out = lines_of(join.0.stdout.take().unwrap());
    let join_err = lines_of(join.0.stderr.take().unwrap());
    let deadline = std::time::Instant::now() + STEP;
    let status = loop {
        if let Some(status) = join.0.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let err: Vec<String> = join_err.try_iter().collect();
            let out: Vec<String> = join_out.try_iter().collect();
            let host: Vec<String> = host_out.try_iter().collect();
            panic!("join did not finish a turn in time.\njoin stderr: {err:?}\njoin stdout: {out:?}\nhost: {host:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr: Vec<String> = join_err.try_iter().collect();
    assert_eq!(status.code(), Some(0), "{stderr:?}");
    join_out
        .iter()
        .map(|l| serde_json::from_str(&l).unwrap())
        .collect()
}

#[test]
fn co_driver_joins_suggests_and_sees_the_turn() {
    let home = tempfile::tempdir().unwrap();
    let mut host = Reaper(
        cohost(home.path())
            .args([
                "share",
                "--agent",
                "mock",
                "--suggestions",
                "accept",
                "--approve",
                "none",
                "--json",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // Keep draining the host's stdout so it never blocks on a full pipe.
    let host_out = lines_of(host.0.stdout.take().unwrap());
    let first = host_out
        .recv_timeout(STEP)
        .expect("the host prints its invites");
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["notice"], "invites");
    let co_invite = first["co_driver"].as_str().unwrap().to_string();
    let viewer_invite = first["viewer"].as_str().unwrap().to_string();
    assert!(co_invite.starts_with("cohost://127.0.0.1:"), "{co_invite}");
    assert!(
        !co_invite.contains('?'),
        "the token never travels in a URL query"
    );

    // A viewer may not suggest: refused before anything is sent, and said so.
    let viewer = cohost(home.path())
        .args(["join", "--suggest", "nope", "--json"])
        .env("COHOST_INVITE", &viewer_invite)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut viewer = Reaper(viewer);
    let verr = lines_of(viewer.0.stderr.take().unwrap());
    let mut seen = Vec::new();
    let refused = loop {
        match verr.recv_timeout(STEP) {
            Ok(l) if l.contains("suggestion refused: viewers cannot suggest") => break true,
            Ok(l) => seen.push(l),
            Err(_) => break false,
        }
    };
    assert!(
        refused,
        "viewer suggestion must be refused; viewer said: {seen:?}"
    );

    let frames = join_one_turn(
        home.path(),
        &co_invite,
        &["--name", "ana", "--suggest", "hello [mock:text]"],
        &host_out,
    );
    let stream: Vec<&serde_json::Value> = frames
        .iter()
        .filter(|f| {
            f["frame"]
                .as_str()
                .is_some_and(|n| n.starts_with("ai.execution") || n.starts_with("ai.stream"))
        })
        .collect();
    assert_eq!(stream.first().unwrap()["frame"], "ai.execution.started");
    assert_eq!(stream.last().unwrap()["frame"], "ai.stream.end");
    for (i, f) in stream.iter().enumerate() {
        assert_eq!(f["chunk"], i as u64, "chunks in order, none missing");
        assert_eq!(f["sender_role"], "HOST");
    }
    let text: String = stream
        .iter()
        .filter(|f| f["payload"]["type"] == "stream_chunk")
        .map(|f| f["payload"]["delta"].as_str().unwrap())
        .collect();
    assert!(text.contains("You said: \"hello [mock:text]\""), "{text}");

    // The host quits cleanly on /quit.
    use std::io::Write;
    let mut stdin = host.0.stdin.take().unwrap();
    writeln!(stdin, "/quit").unwrap();
    drop(stdin);
    exits_with_0_within(
        &mut host,
        Duration::from_secs(10),
        "host did not exit on /quit",
    );
}

/// The child exits with status 0 within `within`.
fn exits_with_0_within(child: &mut Reaper, within: Duration, what: &str) {
    let deadline = std::time::Instant::now() + within;
    loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            assert_eq!(status.code(), Some(0));
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A standalone `cohost relay`, a host sharing through it with the admin
/// secret (rooms and invites over the admin HTTP API), and a co-driver.
#[test]
fn share_through_a_standalone_relay() {
    let home = tempfile::tempdir().unwrap();
    let secrets = home.path().join("relay-secrets.json");
    let (_relay, relay_out, addr) = start_relay(home.path(), &secrets, &[]);
    let secret_line = relay_out
        .recv_timeout(STEP)
        .expect("relay prints its secret");
    assert!(secret_line.contains("generated"), "{secret_line}");
    let stored: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&secrets).unwrap()).unwrap();
    let admin = stored["admin_secret"].as_str().unwrap().to_string();
    assert!(secret_line.ends_with(&admin));

    // A wrong admin secret is refused with a clear error.
    let wrong = cohost(home.path())
        .args([
            "share",
            "--agent",
            "mock",
            "--relay",
            &addr,
            "--admin-secret",
            "nope",
            "--json",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_ne!(wrong.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&wrong.stderr).contains("refused"),
        "{}",
        String::from_utf8_lossy(&wrong.stderr)
    );

    let mut host = Reaper(
        cohost(home.path())
            .args([
                "share",
                "--agent",
                "mock",
                "--suggestions",
                "accept",
                "--approve",
                "none",
                "--json",
                "--relay",
                &addr,
            ])
            .env("COHOST_RELAY_ADMIN_SECRET", &admin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let host_out = lines_of(host.0.stdout.take().unwrap());
    let first: serde_json::Value =
        serde_json::from_str(&host_out.recv_timeout(STEP).expect("invites")).unwrap();
    let co_invite = first["co_driver"].as_str().unwrap().to_string();
    assert!(
        co_invite.starts_with(&format!("cohost://{addr}/")),
        "{co_invite}"
    );

    let frames = join_one_turn(
        home.path(),
        &co_invite,
        &["--suggest", "via the relay [mock:text]"],
        &host_out,
    );
    assert_eq!(
        frames
            .iter()
            .filter(|f| f["frame"] == "ai.stream.end")
            .count(),
        1
    );
    let text: String = frames
        .iter()
        .filter(|f| f["payload"]["type"] == "stream_chunk")
        .map(|f| f["payload"]["delta"].as_str().unwrap())
        .collect();
    assert!(text.contains("via the relay"), "{text}");
}

/// Every command reports a failure once, through the binary's one reporter:
/// as one JSON line under `--json`, with the documented exit code.
#[test]
fn share_join_and_relay_errors_are_reported_once_with_their_exit_code() {
    let home = tempfile::tempdir().unwrap();
    let out = cohost(home.path())
        .args([
            "share",
            "--agent",
            "mock",
            "--relay",
            "127.0.0.1:9",
            "--json",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "CONFIG_INVALID");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one report: {stderr}");
    let err: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(err["type"], "error");
    assert_eq!(err["code"], "CONFIG_INVALID");
    assert!(err["suggested_fix"]
        .as_str()
        .unwrap()
        .contains("--admin-secret"));

    let out = cohost(home.path())
        .args(["join", "not-an-invite"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "a malformed invite is CONFIG_INVALID"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    // An invite on the command line (issue 37) works, with a warning first.
    let (warning, error) = stderr.split_once('\n').unwrap_or_default();
    assert!(
        warning.starts_with("warning: an invite on the command line can be read by every user"),
        "{stderr}"
    );
    assert!(
        error.starts_with("cohost: error CONFIG_INVALID: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("fix: ask the host for a fresh invite"),
        "{stderr}"
    );
    // No invite at all, and no terminal to ask on: said, with every way.
    let out = cohost(home.path())
        .arg("join")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no invite given"), "{stderr}");
    assert!(stderr.contains("--invite-file FILE"), "{stderr}");

    let secrets = home.path().join("secrets.json");
    std::fs::write(&secrets, "not json").unwrap();
    let out = cohost(home.path())
        .args(["relay", "--port", "0", "--secrets"])
        .arg(&secrets)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "CONFIG_INVALID");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("cohost: error CONFIG_INVALID").count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains("delete it to generate new secrets"),
        "{stderr}"
    );
}

/// `COHOST_RELAY_ADMIN_SECRET` alone overrides the secrets file, and a weak
/// JWT secret from the environment stops `cohost relay` with a clear error.
#[test]
fn relay_secrets_from_the_environment_are_honoured_or_refused() {
    let home = tempfile::tempdir().unwrap();
    let secrets = home.path().join("relay-secrets.json");
    let admin = "an-admin-secret-of-at-least-thirty-two-bytes";
    let (relay, _out, addr) = start_relay(
        home.path(),
        &secrets,
        &[("COHOST_RELAY_ADMIN_SECRET", admin)],
    );
    // The file holds a generated admin secret; the environment's one wins.
    let stored: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&secrets).unwrap()).unwrap();
    assert_ne!(stored["admin_secret"].as_str(), Some(admin));
    let host = cohost(home.path())
        .args(["share", "--agent", "mock", "--relay", &addr, "--json"])
        .args(["--admin-secret", admin])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut host = Reaper(host);
    let host_out = lines_of(host.0.stdout.take().unwrap());
    let first: serde_json::Value =
        serde_json::from_str(&host_out.recv_timeout(STEP).expect("invites")).unwrap();
    assert!(first["co_driver"].as_str().is_some(), "{first}");
    drop(host);
    drop(relay);

    let weak = cohost(home.path())
        .args(["relay", "--port", "0", "--secrets"])
        .arg(&secrets)
        .env("COHOST_RELAY_JWT_SECRET", "short")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(weak.status.code(), Some(3), "CONFIG_INVALID");
    let err = String::from_utf8_lossy(&weak.stderr);
    assert!(err.contains("COHOST_RELAY_JWT_SECRET"), "{err}");
}

/// An interactive `cohost join`: a typed line is a suggestion the host
/// sees and runs after `/accept`; `/who`, an unknown command and `/quit`
/// are answered; a viewer's typed line is refused before it is sent.
#[test]
fn interactive_join_suggests_by_typing_and_the_host_accepts() {
    use std::io::Write;
    let home = tempfile::tempdir().unwrap();
    // git on the scratch PATH, for the host's `/diff` and `/undo`.
    let git = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("git"))
        .find(|p| p.is_file())
        .expect("git on PATH");
    std::os::unix::fs::symlink(git, home.path().join("git")).unwrap();
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
    let co_invite = first["co_driver"].as_str().unwrap().to_string();
    let viewer_invite = first["viewer"].as_str().unwrap().to_string();

    let mut join = Reaper(
        cohost(home.path())
            .args(["join", "--name", "ana"])
            .env("COHOST_INVITE", &co_invite)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let join_out = lines_of(join.0.stdout.take().unwrap());
    let join_err = lines_of(join.0.stderr.take().unwrap());
    let wait_for = |rx: &std::sync::mpsc::Receiver<String>, what: &str| -> String {
        let deadline = std::time::Instant::now() + STEP;
        let mut seen = Vec::new();
        while std::time::Instant::now() < deadline {
            if let Ok(l) = rx.recv_timeout(Duration::from_millis(100)) {
                if l.contains(what) {
                    return l;
                }
                seen.push(l);
            }
        }
        panic!("never saw {what:?}; saw {seen:?}");
    };
    wait_for(&join_err, "joined room");
    let mut typed = join.0.stdin.take().unwrap();
    writeln!(typed, "/frobnicate").unwrap();
    assert!(wait_for(&join_err, "unknown command").contains("/interrupt"));
    writeln!(typed, "/who").unwrap();
    wait_for(&join_err, "in the room:");
    writeln!(typed, "typed suggestion [mock:text]").unwrap();
    wait_for(&join_err, "waiting for the host");

    // The host sees it and accepts it by id.
    let suggested = wait_for(&host_out, "\"suggested\"");
    let v: serde_json::Value = serde_json::from_str(&suggested).unwrap();
    assert_eq!(v["suggestion"]["text"], "typed suggestion [mock:text]");
    let id = v["suggestion"]["suggestion_id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut host_in = host.0.stdin.take().unwrap();
    writeln!(host_in, "/accept {id}").unwrap();
    // It runs on the host and the co-driver sees the answer, on its own lines.
    wait_for(&join_out, "▶ mock runs: typed suggestion [mock:text]");
    wait_for(&join_out, "You said: \"typed suggestion [mock:text]\"");
    wait_for(&join_out, "■ done");

    // The host's `/diff` and `/undo` read the session's checkpoints (this
    // turn wrote no file: there is nothing to show or put back).
    writeln!(host_in, "/diff").unwrap();
    let diff = wait_for(&host_out, "\"changes\"");
    assert!(
        diff.contains("no turn of this session changed any file"),
        "{diff}"
    );
    writeln!(host_in, "/undo").unwrap();
    let undo = wait_for(&host_out, "\"changes\"");
    assert!(
        undo.contains("turn 1 of session") && undo.contains("changed no file"),
        "{undo}"
    );

    // A viewer's typed line is refused locally.
    let mut viewer = Reaper(
        cohost(home.path())
            .arg("join")
            .env("COHOST_INVITE", &viewer_invite)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let viewer_err = lines_of(viewer.0.stderr.take().unwrap());
    wait_for(&viewer_err, "joined room");
    let mut vin = viewer.0.stdin.take().unwrap();
    writeln!(vin, "let me drive").unwrap();
    wait_for(&viewer_err, "suggestion refused: viewers cannot suggest");

    // /quit leaves within 2 s.
    writeln!(typed, "/quit").unwrap();
    exits_with_0_within(
        &mut join,
        Duration::from_secs(2),
        "join did not exit on /quit",
    );
    writeln!(host_in, "/quit").unwrap();
}

/// A certificate for the relay, signed by a CA of the test's (or not).
struct Certs {
    dir: tempfile::TempDir,
    ca: std::path::PathBuf,
    cert: std::path::PathBuf,
    key: std::path::PathBuf,
}

/// What is wrong with the relay's certificate.
#[derive(Clone, Copy, Debug)]
enum Bad {
    None,
    /// Signed by another CA than the one the client is given.
    OtherCa,
    /// For another name than 127.0.0.1.
    Name,
    Expired,
    /// A self-signed CA:TRUE certificate served as the relay's own (what
    /// `openssl req -x509` makes by default).
    CaAsLeaf,
}

fn certs(bad: Bad) -> Certs {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let dir = tempfile::tempdir().unwrap();
    // Each CA its own name: two CAs named alike make a signature error,
    // not an unknown issuer.
    let ca_params = |names: Vec<String>, cn: &str| {
        let mut p = CertificateParams::new(names).unwrap();
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        p.distinguished_name
            .push(rcgen::DnType::CommonName, format!("cohost test {cn}"));
        p
    };
    let ca = CertifiedIssuer::self_signed(ca_params(vec![], "CA"), KeyPair::generate().unwrap())
        .unwrap();
    let names = match bad {
        Bad::Name => vec!["relay.invalid".to_string()],
        _ => vec!["127.0.0.1".to_string(), "localhost".to_string()],
    };
    let key = KeyPair::generate().unwrap();
    let key_pem = key.serialize_pem();
    let (served, trusted) = match bad {
        Bad::CaAsLeaf => {
            let own = CertifiedIssuer::self_signed(ca_params(names, "relay"), key).unwrap();
            let pem = own.pem();
            (pem.clone(), pem)
        }
        _ => {
            let mut p = CertificateParams::new(names).unwrap();
            if let Bad::Expired = bad {
                p.not_before = rcgen::date_time_ymd(2001, 1, 1);
                p.not_after = rcgen::date_time_ymd(2002, 1, 1);
            }
            let leaf = p.signed_by(&key, &ca).unwrap();
            let trusted = match bad {
                Bad::OtherCa => {
                    let other = CertifiedIssuer::self_signed(
                        ca_params(vec![], "other CA"),
                        KeyPair::generate().unwrap(),
                    )
                    .unwrap();
                    other.pem()
                }
                _ => ca.pem(),
            };
            (leaf.pem(), trusted)
        }
    };
    let c = Certs {
        ca: dir.path().join("ca.pem"),
        cert: dir.path().join("cert.pem"),
        key: dir.path().join("key.pem"),
        dir,
    };
    std::fs::write(&c.ca, trusted).unwrap();
    std::fs::write(&c.cert, served).unwrap();
    std::fs::write(&c.key, key_pem).unwrap();
    c
}

/// A standalone relay speaking TLS with `c`'s certificate: the child,
/// its address and admin secret.
fn tls_relay(home: &std::path::Path, c: &Certs) -> (Reaper, String, String) {
    let secrets = c.dir.path().join("relay-secrets.json");
    let mut cmd = cohost(home);
    cmd.args(["relay", "--port", "0", "--secrets"])
        .arg(&secrets)
        .arg("--tls-cert")
        .arg(&c.cert)
        .arg("--tls-key")
        .arg(&c.key)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut relay = Reaper(cmd.spawn().unwrap());
    let out = lines_of(relay.0.stdout.take().unwrap());
    let addr = out
        .recv_timeout(STEP)
        .expect("relay starts")
        .strip_prefix("relay listening on ")
        .expect("first line names the address")
        .to_string();
    let stored: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&secrets).unwrap()).unwrap();
    let admin = stored["admin_secret"].as_str().unwrap().to_string();
    (relay, addr, admin)
}

/// A relay with a certificate from the user's own CA: `share --relay
/// cohosts://… --ca-file` creates the room over https (the admin client
/// ignored --ca-file before: UnknownIssuer, reported as "cannot reach the
/// relay") and a co-driver joins over wss with the same file.
#[test]
fn share_over_https_with_a_private_ca_and_join_over_wss() {
    let home = tempfile::tempdir().unwrap();
    let c = certs(Bad::None);
    let (_relay, addr, admin) = tls_relay(home.path(), &c);
    let mut host = Reaper(
        cohost(home.path())
            .args(["share", "--agent", "mock", "--suggestions", "accept"])
            .args(["--approve", "none", "--json"])
            .args(["--relay", &format!("cohosts://{addr}"), "--ca-file"])
            .arg(&c.ca)
            .env("COHOST_RELAY_ADMIN_SECRET", &admin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let host_out = lines_of(host.0.stdout.take().unwrap());
    let host_err = lines_of(host.0.stderr.take().unwrap());
    let Ok(first) = host_out.recv_timeout(STEP) else {
        let err: Vec<String> = host_err.try_iter().collect();
        panic!("no invites; host said {err:?}");
    };
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    let co_invite = first["co_driver"].as_str().unwrap().to_string();
    assert!(
        co_invite.starts_with(&format!("cohosts://{addr}/")),
        "{co_invite}"
    );
    let ca = c.ca.to_string_lossy().to_string();
    let frames = join_one_turn(
        home.path(),
        &co_invite,
        &["--ca-file", &ca, "--suggest", "over wss [mock:text]"],
        &host_out,
    );
    let text: String = frames
        .iter()
        .filter(|f| f["payload"]["type"] == "stream_chunk")
        .map(|f| f["payload"]["delta"].as_str().unwrap())
        .collect();
    assert!(text.contains("over wss"), "{text}");

    // A participant without the CA gets the certificate's cause and fix.
    let out = cohost(home.path())
        .args(["join", "--json"])
        .env("COHOST_INVITE", &co_invite)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stderr).lines().last().unwrap()).unwrap();
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("CA this machine does not trust"),
        "{err}"
    );
    assert!(
        err["suggested_fix"].as_str().unwrap().contains("--ca-file"),
        "{err}"
    );
}

/// Each way a relay's certificate can be refused is told apart, with its
/// own fix, for `share` over https.
#[test]
fn each_certificate_problem_has_its_own_error_and_fix() {
    let home = tempfile::tempdir().unwrap();
    for (bad, cause, fix) in [
        (Bad::OtherCa, "CA this machine does not trust", "--ca-file"),
        (
            Bad::Name,
            "not valid for the relay's host name",
            "subjectAltName",
        ),
        (Bad::Expired, "expired", "renew"),
        (Bad::CaAsLeaf, "CA certificate (CA:TRUE)", "CA:FALSE"),
    ] {
        let c = certs(bad);
        let (_relay, addr, admin) = tls_relay(home.path(), &c);
        let out = cohost(home.path())
            .args(["share", "--agent", "mock", "--json"])
            .args([
                "--relay",
                &format!("https://{addr}"),
                "--admin-secret",
                &admin,
            ])
            .arg("--ca-file")
            .arg(&c.ca)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(7), "{bad:?}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{bad:?}: one report: {stderr}");
        assert!(
            !stderr.contains('\x1b'),
            "{bad:?}: colour in a pipe: {stderr}"
        );
        let err: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(err["code"], "NETWORK_ERROR", "{bad:?}");
        let message = err["message"].as_str().unwrap();
        assert!(
            message.contains("TLS certificate was refused"),
            "{bad:?}: {message}"
        );
        assert!(message.contains(cause), "{bad:?}: {message}");
        let suggested = err["suggested_fix"].as_str().unwrap_or_default();
        assert!(suggested.contains(fix), "{bad:?}: {err}");
    }
}

/// `--relay` takes host:port and http(s)/ws(s)/cohost(s) URLs, and refuses
/// anything else before dialling (`cohosts://h:p` became
/// `http://cohosts://h:p/admin/rooms` before).
#[test]
fn relay_addresses_are_read_in_every_form_or_refused() {
    let home = tempfile::tempdir().unwrap();
    let share = |relay: &str| {
        let out = cohost(home.path())
            .args(["share", "--agent", "mock", "--json", "--relay", relay])
            .args(["--admin-secret", "x"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let err: serde_json::Value =
            serde_json::from_str(stderr.lines().last().unwrap_or("{}")).unwrap();
        (out.status.code(), err)
    };
    // Nothing listens on port 9: the address was read, and dialled as such.
    for (relay, dialled) in [
        ("cohosts://127.0.0.1:9", "https://127.0.0.1:9"),
        ("wss://127.0.0.1:9/", "https://127.0.0.1:9"),
        ("ws://127.0.0.1:9", "http://127.0.0.1:9"),
        ("127.0.0.1:9", "http://127.0.0.1:9"),
    ] {
        let (code, err) = share(relay);
        assert_eq!(code, Some(7), "{relay}: {err}");
        let message = err["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("at {dialled}:")),
            "{relay}: {message}"
        );
    }
    for relay in [
        "ftp://127.0.0.1:9",
        "wss://127.0.0.1:9/v1/rooms/r/ws",
        "relay.example.com",
    ] {
        let (code, err) = share(relay);
        assert_eq!(code, Some(3), "{relay}: CONFIG_INVALID: {err}");
        assert!(
            err["message"]
                .as_str()
                .unwrap()
                .contains("not a relay address"),
            "{err}"
        );
        assert!(
            err["suggested_fix"].as_str().unwrap().contains("--relay"),
            "{err}"
        );
    }
}

/// Logs on a stderr that is not a terminal carry no colour, whichever
/// crate wrote them (no NO_COLOR here: the pipe alone decides).
#[test]
fn logs_in_a_pipe_carry_no_colour() {
    let home = tempfile::tempdir().unwrap();
    let out = cohost(home.path())
        .env_remove("NO_COLOR")
        .env("COHOST_LOG", "trace")
        .args(["run", "--agent", "mock", "--json", "hi"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("DEBUG") || stderr.contains("TRACE"),
        "logged something: {stderr}"
    );
    assert!(!stderr.contains('\x1b'), "{stderr}");
}

/// Every process's command line, as `ps -eo args` shows it to any user.
fn all_command_lines() -> Vec<(u32, String)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let e = e.ok()?;
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let raw = std::fs::read(e.path().join("cmdline")).ok()?;
            Some((pid, String::from_utf8_lossy(&raw).replace('\0', " ")))
        })
        .collect()
}

/// Issue 37: an invite holds the room key, and no process's command line
/// shows it while participants join with `--invite-file` and `-` (stdin).
#[test]
fn joining_never_puts_the_room_key_in_a_command_line() {
    let home = tempfile::tempdir().unwrap();
    let mut host = Reaper(
        cohost(home.path())
            .args(["share", "--agent", "mock", "--suggestions", "accept"])
            .args(["--approve", "none", "--json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let host_out = lines_of(host.0.stdout.take().unwrap());
    let first: serde_json::Value =
        serde_json::from_str(&host_out.recv_timeout(STEP).expect("invites")).unwrap();
    let invite = first["co_driver"].as_str().unwrap().to_string();
    let fragment = invite.split_once('#').unwrap().1;
    let room_key = fragment.split('.').nth(3).unwrap().to_string();
    assert_eq!(room_key.len(), 43, "{fragment}");

    let file = home.path().join("invite.txt");
    std::fs::write(&file, format!("{invite}\n")).unwrap();
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    for how in ["file", "stdin"] {
        let mut cmd = cohost(home.path());
        cmd.arg("join");
        if how == "file" {
            cmd.arg("--invite-file").arg(&file).stdin(Stdio::null());
        } else {
            cmd.arg("-").stdin(Stdio::piped());
        }
        let mut join = Reaper(
            cmd.args(["--json", "--until-end", "--name", how])
                .args(["--suggest", "hello [mock:text]"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        );
        if let Some(mut stdin) = join.0.stdin.take() {
            use std::io::Write;
            writeln!(stdin, "{invite}").unwrap();
        }
        let out = lines_of(join.0.stdout.take().unwrap());
        let err = lines_of(join.0.stderr.take().unwrap());
        let pid = join.0.id();
        let deadline = std::time::Instant::now() + STEP;
        let mut looked = 0;
        let status = loop {
            let lines = all_command_lines();
            // The scan sees the joining process itself: it is not blind (an
            // exited one not yet reaped has an empty command line).
            if let Some((_, line)) = lines.iter().find(|(p, l)| *p == pid && !l.is_empty()) {
                assert!(line.contains("join"), "{line}");
                looked += 1;
            }
            for (p, line) in &lines {
                assert!(
                    !line.contains(&room_key),
                    "the room key is in the command line of process {p}: {line}"
                );
            }
            if let Some(status) = join.0.try_wait().unwrap() {
                break status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{how}: the join did not end; it said {:?}",
                err.try_iter().collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        let said: Vec<String> = err.try_iter().collect();
        assert_eq!(status.code(), Some(0), "{how}: {said:?}");
        assert!(looked > 0, "{how}: the scan never saw the joining process");
        assert!(
            !said.iter().any(|l| l.contains("warning")),
            "{how}: no warning for an invite kept off the command line: {said:?}"
        );
        let frames: Vec<serde_json::Value> = out
            .try_iter()
            .map(|l| serde_json::from_str(&l).unwrap())
            .collect();
        assert!(
            frames.iter().any(|f| f["frame"] == "ai.stream.end"),
            "{how}: the participant saw the whole turn: {frames:?}"
        );
    }
    // A file other users can read still works, with a warning naming it.
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let out = cohost(home.path())
        .arg("join")
        .arg("--invite-file")
        .arg(&file)
        .args(["--json", "--until-end", "--suggest", "again [mock:text]"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("mode 644") && stderr.contains("chmod 600"),
        "{stderr}"
    );
    drop(host);
}
