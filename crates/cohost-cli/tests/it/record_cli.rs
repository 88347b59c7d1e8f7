//! The signed record of real sessions, through the binary: a shared
//! session (mock agent, the host's embedded relay, a `cohost join`
//! co-driver whose suggestion runs) verifies with `cohost record verify`,
//! names who suggested and who decided, exports to HTML, Markdown and JSON
//! that verify too; and one byte changed, an entry dropped or moved, or two
//! signatures swapped, in the record or an export, fails naming the entry.

use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::share_join_cli::{lines_of, Reaper};

const STEP: Duration = Duration::from_secs(30);

fn cohost(home: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohost"));
    c.env_clear()
        .env("PATH", home)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .current_dir(home);
    c
}

fn run(home: &std::path::Path, args: &[&str]) -> Output {
    cohost(home)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `cohost record verify FILE` fails with exit 12 naming entry `entry`.
fn fails_naming(home: &std::path::Path, file: &std::path::Path, entry: u64, what: &str) {
    let o = run(home, &["record", "verify", file.to_str().unwrap()]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(12), "{what}: {said}");
    assert!(
        [" ", ":", ","]
            .iter()
            .any(|end| said.contains(&format!("entry {entry}{end}"))),
        "{what} must name entry {entry}: {said}"
    );
    assert!(said.contains("fix:"), "{what}: a fix is given: {said}");
}

fn lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

fn join(ls: &[Vec<u8>]) -> Vec<u8> {
    ls.iter()
        .flat_map(|l| l.iter().copied().chain([b'\n']))
        .collect()
}

/// Shares the mock with suggestions accepted, has a co-driver named `ana`
/// suggest one prompt and see its turn, quits; returns the session id.
fn shared_session(home: &std::path::Path) -> String {
    let mut host = Reaper(
        cohost(home)
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
    let host_out = lines_of(host.0.stdout.take().unwrap());
    let first: serde_json::Value =
        serde_json::from_str(&host_out.recv_timeout(STEP).expect("invites")).unwrap();
    let invite = first["co_driver"].as_str().unwrap().to_string();
    let join = cohost(home)
        .args([
            "join",
            &invite,
            "--json",
            "--until-end",
            "--name",
            "ana",
            "--suggest",
            "hello <script>alert(1)</script>",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut join = Reaper(join);
    let deadline = std::time::Instant::now() + STEP;
    let status = loop {
        if let Some(s) = join.0.try_wait().unwrap() {
            break s;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "join did not see the turn end"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    use std::io::Write;
    let mut stdin = host.0.stdin.take().unwrap();
    writeln!(stdin, "/quit").unwrap();
    drop(stdin);
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(s) = host.0.try_wait().unwrap() {
            assert_eq!(s.code(), Some(0));
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the host did not quit"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = run(home, &["sessions", "--json"]);
    let list: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    list[0]["id"]
        .as_str()
        .expect("the share is recorded")
        .to_string()
}

#[test]
fn a_shared_session_is_recorded_verifies_and_every_tamper_is_named() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let id = shared_session(h);

    let o = run(h, &["record", "verify", &id, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["complete"], true, "{v}");
    assert_eq!(v["this_host"], true, "{v}");

    let path = run(h, &["record", "path", &id]);
    let path = std::path::PathBuf::from(String::from_utf8(path.stdout).unwrap().trim());
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let key = h.join(".local/state/cohost/host-key");
    assert_eq!(
        std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // Who did what, as the host saw it.
    let record = std::fs::read(&path).unwrap();
    let entries: Vec<serde_json::Value> = lines(&record)
        .iter()
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let find = |kind: &str| {
        entries
            .iter()
            .find(|e| e["kind"] == kind)
            .unwrap_or_else(|| panic!("no {kind} entry in {entries:#?}"))
    };
    let suggestion = find("suggestion");
    assert!(
        suggestion["author"]
            .as_str()
            .unwrap()
            .starts_with("ana (co-driver #"),
        "{suggestion}"
    );
    assert_eq!(find("suggestion_decided")["author"], "policy");
    assert_eq!(find("prompt")["author"], suggestion["author"]);
    assert!(
        entries.iter().any(|e| e["kind"] == "presence"),
        "who came is recorded"
    );
    assert!(
        entries.iter().any(|e| e["kind"] == "text"),
        "the answer is recorded"
    );
    assert_eq!(entries.last().unwrap()["kind"], "end");

    // Exports verify, and carry no live markup from the co-driver.
    for format in ["html", "md", "json"] {
        let out = h.join(format!("t.{format}"));
        let o = run(
            h,
            &[
                "export",
                &id,
                "--format",
                format,
                "-o",
                out.to_str().unwrap(),
            ],
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let o = run(h, &["record", "verify", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{format}: {}", text(&o));
        assert!(
            text(&o).contains(&format!("{format} export")),
            "{}",
            text(&o)
        );
    }
    let page = std::fs::read_to_string(h.join("t.html")).unwrap();
    assert!(!page.contains("<script"), "no script in the page");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));

    // One byte of an entry changed.
    let ls = lines(&record);
    let bad = h.join("bad.jsonl");
    let n = 3usize;
    let mut edited = ls.clone();
    let at = edited[n - 1].len() / 2;
    edited[n - 1][at] ^= 0x01;
    std::fs::write(&bad, join(&edited)).unwrap();
    fails_naming(h, &bad, n as u64, "a changed byte");
    // An entry dropped.
    let mut dropped = ls.clone();
    dropped.remove(n - 1);
    std::fs::write(&bad, join(&dropped)).unwrap();
    fails_naming(h, &bad, n as u64, "a dropped entry");
    // Two entries swapped.
    let mut moved = ls.clone();
    moved.swap(n - 1, n);
    std::fs::write(&bad, join(&moved)).unwrap();
    fails_naming(h, &bad, n as u64, "two swapped entries");
    // Two signatures swapped.
    let mut e2: serde_json::Value = serde_json::from_slice(&ls[n - 1]).unwrap();
    let mut e3: serde_json::Value = serde_json::from_slice(&ls[n]).unwrap();
    let s2 = e2["sig"].take();
    e2["sig"] = e3["sig"].take();
    e3["sig"] = s2;
    let mut swapped = ls.clone();
    swapped[n - 1] = serde_json::to_vec(&e2).unwrap();
    swapped[n] = serde_json::to_vec(&e3).unwrap();
    std::fs::write(&bad, join(&swapped)).unwrap();
    fails_naming(h, &bad, n as u64, "swapped signatures");
    // The last entry cut off mid-write: torn, not tampered.
    let mut torn = join(&ls);
    torn.truncate(torn.len() - 10);
    std::fs::write(&bad, &torn).unwrap();
    let o = run(h, &["record", "verify", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(12));
    assert!(
        text(&o).contains(&format!("entry {} is incomplete", ls.len())),
        "{}",
        text(&o)
    );

    // The readable part of the HTML export changed: named by its entry.
    // The co-driver's text shows first in the suggestion's entry.
    let suggestion_seq = suggestion["seq"].as_u64().unwrap();
    let edited = page.replacen("hello &lt;script&gt;", "HELLO &lt;script&gt;", 1);
    assert_ne!(edited, page);
    let bad_page = h.join("bad.html");
    std::fs::write(&bad_page, edited).unwrap();
    fails_naming(h, &bad_page, suggestion_seq, "an edited transcript");
}

#[test]
fn a_run_is_recorded_and_a_session_without_a_record_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let o = run(h, &["run", "--agent", "mock", "hi"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let list: serde_json::Value =
        serde_json::from_slice(&run(h, &["sessions", "--json"]).stdout).unwrap();
    let id = list[0]["id"].as_str().unwrap();
    let o = run(h, &["record", "verify", id]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("(this machine's)"), "{}", text(&o));
    let o = run(h, &["record", "verify", "s-nothere"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = run(h, &["export", id, "--format", "md", "-o", "-"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("# cohost session "));
}

/// The real pinned Claude Code against the fake model server: a turn that
/// writes a file (a tool call, approved by policy, a checkpointed change)
/// is in the session's record, which verifies; its HTML export shows the
/// diff inline and verifies too. Skips loudly when the CLI is missing,
/// unless `CI` is set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_claude_turn_is_recorded_with_its_tool_call_and_diff() {
    use cohost_testbench::{require_cli, AgentCli, Bench};

    use crate::changes_real::{ok, users_repo};

    if require_cli(AgentCli::Claude).is_none() {
        return;
    }
    let b = Bench::start(AgentCli::Claude).await.unwrap();
    let (home, dir) = (b.home().to_path_buf(), b.cwd().to_path_buf());
    users_repo(&home, &dir);
    let run = [
        "run",
        "--agent",
        "claude",
        "--approve",
        "all",
        "[[scenario:write]] create the file",
    ];
    ok(&b, &run).await;
    let list: serde_json::Value =
        serde_json::from_str(&ok(&b, &["sessions", "--json"]).await).unwrap();
    let id = list[0]["id"].as_str().unwrap().to_owned();
    let verified: serde_json::Value =
        serde_json::from_str(&ok(&b, &["record", "verify", &id, "--json"]).await).unwrap();
    assert_eq!(verified["complete"], true, "{verified}");

    let path = ok(&b, &["record", "path", &id]).await;
    let record = std::fs::read_to_string(path.trim()).unwrap();
    let bodies: Vec<(String, serde_json::Value)> = record
        .lines()
        .map(|l| {
            let e: serde_json::Value = serde_json::from_str(l).unwrap();
            let body = serde_json::from_str(e["body"].as_str().unwrap()).unwrap();
            (e["kind"].as_str().unwrap().to_owned(), body)
        })
        .collect();
    let has = |kind: &str, ty: &str| {
        bodies
            .iter()
            .any(|(k, b)| k == kind && (ty.is_empty() || b["type"] == ty))
    };
    assert!(has("prompt", ""), "{record}");
    assert!(has("event", "tool_call"), "{record}");
    assert!(has("event", "file_changes"), "{record}");
    assert!(has("text", ""), "{record}");
    assert!(has("end", ""), "{record}");

    let page = home.join("claude.html");
    ok(
        &b,
        &[
            "export",
            &id,
            "--format",
            "html",
            "-o",
            page.to_str().unwrap(),
        ],
    )
    .await;
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<span class=\"add\">+cohost-tool-ok</span>"),
        "the diff shows inline"
    );
    ok(&b, &["record", "verify", page.to_str().unwrap()]).await;
    // The independent verifier, written from the book alone, agrees (when
    // the machine has Python with `cryptography`).
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/verify-record.py");
    if let Ok(out) = std::process::Command::new("python3")
        .arg(&script)
        .arg(path.trim())
        .output()
    {
        let said = String::from_utf8_lossy(&out.stdout);
        if !String::from_utf8_lossy(&out.stderr).contains("ModuleNotFoundError") {
            assert_eq!(
                out.status.code(),
                Some(0),
                "{said}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                said.contains(&verified["host_public_key"].as_str().unwrap().to_string()),
                "{said}"
            );
        }
    }
}
