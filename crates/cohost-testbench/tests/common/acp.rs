//! The smallest ACP client that can run one prompt: a pure JSON-RPC core
//! (lines in, lines out) and a thin stdio shell around a bench command.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cohost_testbench::{spawn_in_group, Bench, GroupGuard};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// JSON-RPC bookkeeping for one ACP connection; no IO.
#[derive(Debug, Default)]
pub struct AcpCore {
    next_id: u64,
    responses: HashMap<u64, Result<Value, Value>>,
    /// Concatenated `agent_message_chunk` text.
    pub text: String,
    /// Every `session/update` kind seen, in order.
    pub update_kinds: Vec<String>,
    /// Requests the agent made of us, by method.
    pub agent_requests: Vec<String>,
    /// Lines that were not JSON-RPC.
    pub junk_lines: usize,
}

impl AcpCore {
    /// A request line and its id.
    pub fn request(&mut self, method: &str, params: Value) -> (u64, String) {
        self.next_id += 1;
        let id = self.next_id;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        (id, format!("{line}\n"))
    }

    /// Takes the answer to request `id`, once it has arrived.
    pub fn take_response(&mut self, id: u64) -> Option<Result<Value, Value>> {
        self.responses.remove(&id)
    }

    /// Digests one line from the agent; returns the lines to write back.
    pub fn on_line(&mut self, line: &str) -> Vec<String> {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            self.junk_lines += 1;
            return Vec::new();
        };
        let method = msg.get("method").and_then(Value::as_str);
        let id = msg.get("id").cloned();
        match (method, id) {
            (Some(method), Some(id)) => {
                self.agent_requests.push(method.to_string());
                // A smoke run grants nothing and never hangs an agent's request.
                let reply = if method == "session/request_permission" {
                    json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": {"outcome": "cancelled"}}})
                } else {
                    json!({"jsonrpc": "2.0", "id": id,
                           "error": {"code": -32601, "message": format!("{method} not supported by the smoke client")}})
                };
                vec![format!("{reply}\n")]
            }
            (Some("session/update"), None) => {
                let update = &msg["params"]["update"];
                let kind = update["sessionUpdate"].as_str().unwrap_or("?").to_string();
                if kind == "agent_message_chunk" {
                    if let Some(t) = update["content"]["text"].as_str() {
                        self.text.push_str(t);
                    }
                }
                self.update_kinds.push(kind);
                Vec::new()
            }
            (Some(_), None) => Vec::new(),
            (None, Some(id)) => {
                if let Some(id) = id.as_u64() {
                    let outcome = match msg.get("error") {
                        Some(err) => Err(err.clone()),
                        None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
                    };
                    self.responses.insert(id, outcome);
                }
                Vec::new()
            }
            (None, None) => {
                self.junk_lines += 1;
                Vec::new()
            }
        }
    }
}

/// A running ACP agent from a bench, with its stderr captured.
pub struct AcpSession {
    pub core: AcpCore,
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    _guard: GroupGuard,
}

impl AcpSession {
    /// Starts the bench's CLI with `args`, stdio piped.
    pub fn start(bench: &Bench, args: &[&str]) -> AcpSession {
        let mut cmd = bench.command(args);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let (mut child, guard) = spawn_in_group(&mut cmd).expect("the ACP agent starts");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        if let Some(mut pipe) = child.stderr.take() {
            let buf = stderr.clone();
            tokio::spawn(async move {
                let mut chunk = [0u8; 4096];
                while let Ok(n) = pipe.read(&mut chunk).await {
                    if n == 0 {
                        break;
                    }
                    buf.lock()
                        .expect("stderr buffer")
                        .extend_from_slice(&chunk[..n]);
                }
            });
        }
        AcpSession {
            core: AcpCore::default(),
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            stderr,
            _guard: guard,
        }
    }

    /// The agent's stderr so far, for failure messages.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().expect("stderr buffer")).into_owned()
    }

    async fn write(&mut self, line: &str) -> Result<(), String> {
        self.stdin
            .write_all(line.as_bytes())
            .await
            .map_err(|e| format!("write to agent: {e}"))?;
        self.stdin.flush().await.map_err(|e| format!("flush: {e}"))
    }

    /// Sends a request and pumps the connection until its answer arrives.
    pub async fn call(
        &mut self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        let (id, line) = self.core.request(method, params);
        self.write(&line).await?;
        let pump = async {
            loop {
                if let Some(outcome) = self.core.take_response(id) {
                    return outcome.map_err(|e| format!("{method} failed: {e}"));
                }
                match self.lines.next_line().await {
                    Ok(Some(line)) => {
                        for reply in self.core.on_line(&line) {
                            self.write(&reply).await?;
                        }
                    }
                    Ok(None) => {
                        let status = self.child.try_wait();
                        return Err(format!(
                            "agent closed stdout before answering {method} (status {status:?})"
                        ));
                    }
                    Err(e) => return Err(format!("read from agent: {e}")),
                }
            }
        };
        tokio::time::timeout(timeout, pump)
            .await
            .map_err(|_| format!("no answer to {method} within {timeout:?}"))?
    }

    /// Closes stdin and waits (bounded) for the agent to exit; the group
    /// guard kills it if it does not (codex-acp ignores EOF).
    pub async fn close(mut self, grace: Duration) -> Option<std::process::ExitStatus> {
        drop(self.stdin);
        tokio::time::timeout(grace, self.child.wait())
            .await
            .ok()
            .and_then(Result::ok)
    }
}

#[test]
fn core_answers_agent_requests_and_collects_text() {
    let mut core = AcpCore::default();
    let (id, line) = core.request("initialize", json!({}));
    assert_eq!(id, 1);
    assert!(line.ends_with('\n') && line.contains("\"method\":\"initialize\""));
    let out = core.on_line(
        r#"{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{}}"#,
    );
    assert!(out[0].contains("\"cancelled\"") && out[0].contains("\"p1\""));
    let out = core.on_line(r#"{"jsonrpc":"2.0","id":9,"method":"craft/drainMidTurnQueue"}"#);
    assert!(out[0].contains("-32601"));
    core.on_line(r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hel"}}}}"#);
    core.on_line(r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"lo"}}}}"#);
    core.on_line("not json");
    core.on_line(r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}"#);
    assert_eq!(core.text, "Hello");
    assert_eq!(core.junk_lines, 1);
    assert_eq!(
        core.take_response(1),
        Some(Ok(json!({"protocolVersion":1})))
    );
    assert_eq!(core.take_response(1), None);
    core.on_line(r#"{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}"#);
    assert!(core.take_response(2).is_some_and(|r| r.is_err()));
}
