//! A `cohost share --json` host started on a bench, and its notices read
//! line by line as they come (shared by the tests that drive a real shared
//! session).

use std::time::Duration;

use tokio::io::AsyncBufReadExt;

/// The host's `--json` notices, one per line, read as they come.
pub(crate) struct Notices {
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    seen: Vec<String>,
}

impl Notices {
    /// The notices of a host started with `--json` and its stdout piped.
    pub(crate) fn of(stdout: tokio::process::ChildStdout) -> Notices {
        Notices {
            lines: tokio::io::BufReader::new(stdout).lines(),
            seen: Vec::new(),
        }
    }

    /// The first notice from now on that `pick` takes.
    pub(crate) async fn until<T>(
        &mut self,
        what: &str,
        mut pick: impl FnMut(&serde_json::Value) -> Option<T>,
    ) -> T {
        let (lines, seen) = (&mut self.lines, &mut self.seen);
        let wait = async {
            while let Some(line) = lines.next_line().await.unwrap() {
                let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
                seen.push(line);
                if let Some(t) = pick(&v) {
                    return Some(t);
                }
            }
            None
        };
        match tokio::time::timeout(Duration::from_secs(120), wait).await {
            Ok(Some(t)) => t,
            Ok(None) => panic!("the host ended before {what}: {:#?}", self.seen),
            Err(_) => panic!("no {what} in 120 s: {:#?}", self.seen),
        }
    }

    /// The next room message containing `text`.
    pub(crate) async fn room(&mut self, text: &str) -> String {
        self.until(text, |n| {
            let m = n["message"].as_str().unwrap_or_default();
            (n["notice"] == "room" && m.contains(text)).then(|| m.to_owned())
        })
        .await
    }

    /// The next turn's end (and every event of it up to there).
    pub(crate) async fn turn_end(&mut self, what: &str) -> Vec<serde_json::Value> {
        let mut events = Vec::new();
        self.until(what, |n| {
            if n["notice"] != "event" {
                return None;
            }
            events.push(n["event"].clone());
            (n["event"]["type"] == "stream_end").then_some(())
        })
        .await;
        events
    }
}

/// `cohost share ARGS` (`--json` among them) on `b`, its console on stdin
/// and its notices read; it is killed if the test drops it.
pub(crate) fn share<I, S>(
    b: &cohost_testbench::Bench,
    args: I,
) -> (tokio::process::Child, tokio::process::ChildStdin, Notices)
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut child = b
        .command_for(env!("CARGO_BIN_EXE_cohost"), args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let notices = Notices::of(child.stdout.take().unwrap());
    (child, stdin, notices)
}

/// `/quit` on the host's console: it ends within 30 s, with status 0.
pub(crate) async fn quit(mut child: tokio::process::Child, mut stdin: tokio::process::ChildStdin) {
    use tokio::io::AsyncWriteExt;
    stdin.write_all(b"/quit\n").await.unwrap();
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("share quits")
        .unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
}
