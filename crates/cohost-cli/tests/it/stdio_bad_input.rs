//! `cohost acp` and `cohost mcp` on stdio survive what a broken client
//! sends: a line that is not UTF-8 or not JSON gets a JSON-RPC parse error
//! (`-32700`, `id: null`), a line past the size limit an invalid-request
//! error, and the connection goes on; ACP (`session/new`, `session/load`)
//! and MCP's `ask_agent` refuse a relative or missing `cwd`. (Before: `cohost acp` exited on one invalid
//! UTF-8 byte, `cohost mcp` answered nothing.)

use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

const T: Duration = Duration::from_secs(20);

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    _home: tempfile::TempDir,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let home = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cohost"));
        cmd.args(args)
            .env_clear()
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("XDG_STATE_HOME", home.path().join("state"))
            .env("XDG_CACHE_HOME", home.path().join("cache"))
            .env("XDG_DATA_HOME", home.path().join("data"))
            .env("PATH", "/usr/bin:/bin")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Server {
            child,
            stdin,
            stdout,
            _home: home,
        }
    }

    async fn send(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// The next JSON-RPC message that is a response (notifications skipped).
    async fn reply(&mut self) -> Value {
        loop {
            let line = tokio::time::timeout(T, self.stdout.next_line())
                .await
                .expect("no reply in time")
                .unwrap()
                .expect("the server closed its stdout: it died");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v.get("id").is_some() {
                return v;
            }
        }
    }

    async fn request(&mut self, msg: Value) -> Value {
        self.send(format!("{msg}\n").as_bytes()).await;
        self.reply().await
    }

    /// Every malformed kind gets its error, and the server is still there.
    async fn survives_bad_lines(&mut self) {
        self.send(b"{\"jsonrpc\":\"2.0\",\"id\":\xff\xfe}\n").await;
        let r = self.reply().await;
        assert_eq!(r["error"]["code"], -32700, "{r}");
        assert!(r["id"].is_null());
        self.send(b"this is not json\n").await;
        let r = self.reply().await;
        assert_eq!(r["error"]["code"], -32700, "{r}");
        // 40 MiB, past the 32 MiB limit: refused, not held.
        let mut big = vec![b'x'; 40 * 1024 * 1024];
        big.push(b'\n');
        self.send(&big).await;
        let r = self.reply().await;
        assert_eq!(r["error"]["code"], -32600, "{r}");
        assert!(
            self.child.try_wait().unwrap().is_none(),
            "the server exited"
        );
    }
}

#[tokio::test]
async fn cohost_acp_answers_bad_lines_and_refuses_a_relative_cwd() {
    let mut s = Server::start(&["acp", "--agent", "mock"]);
    s.survives_bad_lines().await;
    let init = s
        .request(json!({"jsonrpc":"2.0","id":1,"method":"initialize",
            "params":{"protocolVersion":1,"clientCapabilities":{}}}))
        .await;
    assert_eq!(init["id"], 1);
    assert!(init.get("result").is_some(), "{init}");
    for (id, cwd, says) in [
        (2, "../../..", "absolute"),
        (3, "/definitely/not/here", "not an existing directory"),
    ] {
        let r = s
            .request(json!({"jsonrpc":"2.0","id":id,"method":"session/new",
                "params":{"cwd":cwd,"mcpServers":[]}}))
            .await;
        assert_eq!(r["error"]["code"], -32602, "{r}");
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{message}");
    }
    // session/load too (it took a relative `cwd` as the server's, and a
    // missing one silently as the stored session's).
    for (id, cwd, says) in [
        (5, "../../..", "absolute"),
        (6, "/definitely/not/here", "not an existing directory"),
    ] {
        let r = s
            .request(json!({"jsonrpc":"2.0","id":id,"method":"session/load",
                "params":{"sessionId":"s-00000000","cwd":cwd,"mcpServers":[]}}))
            .await;
        assert_eq!(r["error"]["code"], -32602, "{r}");
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{message}");
    }
    let dir = tempfile::tempdir().unwrap();
    let r = s
        .request(json!({"jsonrpc":"2.0","id":4,"method":"session/new",
            "params":{"cwd":dir.path(),"mcpServers":[]}}))
        .await;
    assert!(r["result"]["sessionId"].is_string(), "{r}");
}

#[tokio::test]
async fn cohost_mcp_answers_bad_lines_and_goes_on() {
    let mut s = Server::start(&["mcp"]);
    s.survives_bad_lines().await;
    let init = s
        .request(json!({"jsonrpc":"2.0","id":1,"method":"initialize",
            "params":{"protocolVersion":"2025-06-18","capabilities":{},
                "clientInfo":{"name":"bad-input-test","version":"1"}}}))
        .await;
    assert_eq!(init["id"], 1);
    assert!(init.get("result").is_some(), "{init}");
    s.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await;
    s.send(b"\xc3\x28\n").await;
    assert_eq!(s.reply().await["error"]["code"], -32700);
    let tools = s
        .request(json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}))
        .await;
    assert!(tools["result"]["tools"].is_array(), "{tools}");
    // ask_agent's `cwd` is the client's: relative (it ran the agent in the
    // server's `../../..` before) or missing is refused, and nothing runs.
    for (id, cwd, says) in [
        (3, "../../..", "must be an absolute path"),
        (4, "/definitely/not/here", "not an existing directory"),
    ] {
        let r = s
            .request(json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
                "params":{"name":"ask_agent","arguments":{"provider":"mock",
                    "prompt":"hello [mock:text]","cwd":cwd}}}))
            .await;
        let text = r.to_string();
        assert!(text.contains(says), "{r}");
        assert!(text.contains("CONFIG_INVALID"), "{r}");
        assert!(!text.contains("You said"), "the agent ran: {r}");
    }
}
