//! The fallback engine: `codex exec --json` (one process per turn), used when
//! the installed codex has no `app-server`. Whole messages, no deltas, no
//! blocking approvals (tools run within the sandbox chosen at launch), and
//! SIGINT ends it without a closing event (the driver closes the turn).

use cohost_core::{
    AdapterConfig, AgentEvent, ApprovalMode, CohostError, EndReason, ErrorCode, ToolCallInfo,
    ToolKind, ToolStatus, Usage,
};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::ffi::OsString;

use super::errors::map_error;
use super::flags::FLAGS;
use crate::catalog::QueryArgs;
use crate::process::oneshot::{interrupted_end, TurnNormalizer};
use crate::process::ExitInfo;

/// Normalizer for one `codex exec --json` run.
#[derive(Debug, Default)]
pub struct ExecNormalizer {
    ended: bool,
    errored: bool,
    announced: HashSet<String>,
    unknown: u64,
}

impl ExecNormalizer {
    /// A fresh normalizer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lines of kinds this driver does not know (skipped).
    pub fn unknown_count(&self) -> u64 {
        self.unknown
    }

    /// Feed one JSONL line.
    pub fn push(&mut self, line: &str) -> Vec<AgentEvent> {
        let v: Value = match serde_json::from_str(line) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) | Err(_) => {
                let shown: String = line.chars().take(120).collect();
                return vec![AgentEvent::Error(
                    CohostError::new(
                        ErrorCode::InvalidOutput,
                        format!("codex exec printed a line that is not a JSON event: {shown}"),
                    )
                    .with_fix("the line was skipped; upgrade cohost if this repeats")
                    .retryable(false),
                )];
            }
        };
        let s = |p: &str| {
            v.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        match s("/type").as_str() {
            "thread.started" => vec![AgentEvent::Started {
                session_id: Some(s("/thread_id")).filter(|t| !t.is_empty()),
                model: None,
            }],
            "turn.started" => Vec::new(),
            "item.started" => self.item(v.get("item").cloned().unwrap_or_default(), false),
            "item.updated" => Vec::new(),
            "item.completed" => self.item(v.get("item").cloned().unwrap_or_default(), true),
            "turn.completed" => {
                self.ended = true;
                let u = v.get("usage").cloned().unwrap_or_default();
                let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
                let usage = Usage {
                    input_tokens: n("input_tokens").saturating_sub(n("cached_input_tokens")),
                    output_tokens: n("output_tokens"),
                    reasoning_tokens: n("reasoning_output_tokens"),
                    cache_read_tokens: n("cached_input_tokens"),
                    cache_write_tokens: n("cache_write_input_tokens"),
                };
                vec![
                    AgentEvent::Usage(usage),
                    AgentEvent::Ended {
                        reason: EndReason::Completed,
                        usage: Some(usage),
                    },
                ]
            }
            "turn.failed" => {
                self.ended = true;
                let mut out = Vec::new();
                if !self.errored {
                    out.push(AgentEvent::Error(map_error(
                        &s("/error/message"),
                        &Value::Null,
                    )));
                }
                out.push(AgentEvent::Ended {
                    reason: EndReason::Error,
                    usage: None,
                });
                out
            }
            "error" => {
                self.errored = true;
                vec![AgentEvent::Error(map_error(&s("/message"), &Value::Null))]
            }
            _ => {
                self.unknown += 1;
                Vec::new()
            }
        }
    }

    fn item(&mut self, item: Value, completed: bool) -> Vec<AgentEvent> {
        let s = |k: &str| {
            item.get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let id = s("id");
        let status = |st: &str| match st {
            "completed" => ToolStatus::Ok,
            "declined" => ToolStatus::Denied,
            _ => ToolStatus::Error,
        };
        let (call, result) = match s("type").as_str() {
            "agent_message" if completed => return vec![AgentEvent::TextDelta(s("text"))],
            "reasoning" if completed => return vec![AgentEvent::ReasoningDelta(s("text"))],
            // Warnings codex reports as items (e.g. missing model metadata).
            "error" if completed => {
                return vec![AgentEvent::Status {
                    message: format!("codex: {}", s("message")),
                    retry_after_ms: None,
                }]
            }
            "command_execution" => {
                let mut st = status(&s("status"));
                if item
                    .get("exit_code")
                    .and_then(Value::as_i64)
                    .is_some_and(|c| c != 0)
                {
                    st = ToolStatus::Error;
                }
                (
                    ToolCallInfo {
                        tool_id: id.clone(),
                        name: "shell".into(),
                        kind: ToolKind::Execute,
                        input: json!({"command": s("command")}),
                    },
                    (st, s("aggregated_output")),
                )
            }
            "file_change" => (
                ToolCallInfo {
                    tool_id: id.clone(),
                    name: "apply_patch".into(),
                    kind: ToolKind::Edit,
                    input: json!({"changes": item.get("changes")}),
                },
                (status(&s("status")), String::new()),
            ),
            "mcp_tool_call" => (
                ToolCallInfo {
                    tool_id: id.clone(),
                    name: format!("{}/{}", s("server"), s("tool")),
                    kind: ToolKind::from_tool_name(&s("tool")),
                    input: item.get("arguments").cloned().unwrap_or_default(),
                },
                (status(&s("status")), String::new()),
            ),
            "web_search" => (
                ToolCallInfo {
                    tool_id: id.clone(),
                    name: "web_search".into(),
                    kind: ToolKind::Fetch,
                    input: json!({"query": s("query")}),
                },
                (ToolStatus::Ok, String::new()),
            ),
            _ => return Vec::new(),
        };
        let mut out = Vec::new();
        if self.announced.insert(id.clone()) {
            out.push(AgentEvent::ToolCall(call));
        }
        if completed {
            out.push(AgentEvent::ToolExecuted {
                tool_id: id,
                status: result.0,
                output: result.1,
            });
        }
        out
    }
}

impl TurnNormalizer for ExecNormalizer {
    fn on_line(&mut self, line: &str) -> Vec<AgentEvent> {
        self.push(line)
    }

    fn ended(&self) -> bool {
        self.ended
    }

    fn on_exit(
        &mut self,
        _exit: Option<ExitInfo>,
        _stderr: &str,
        interrupted: bool,
    ) -> Option<Vec<AgentEvent>> {
        // SIGINT ends `codex exec` without `turn.completed`: close it here.
        interrupted.then(interrupted_end)
    }
}

/// Arguments of one `codex exec --json` turn (pure, for tests).
pub(crate) fn exec_args(
    prompt: &str,
    config: &AdapterConfig,
    thread: Option<&str>,
) -> Vec<OsString> {
    let sandbox = match config.approval {
        // Inside cohost's sandbox codex's own cannot start (it mounts);
        // cohost's confines the consented writes instead.
        ApprovalMode::AutoApprove if cohost_process::sandbox::outer_sandbox(config) => {
            "danger-full-access"
        }
        ApprovalMode::AutoApprove => "workspace-write",
        // No approvals in exec mode: without the user's consent the agent
        // may only read.
        ApprovalMode::Ask | ApprovalMode::DenyAll => "read-only",
    };
    // `initialize` refused the servers codex cannot take, so this drops none.
    let mut leading = super::mcp::overrides(&config.mcp_servers).unwrap_or_default();
    leading.extend(config.extra_args.iter().cloned());
    let q = QueryArgs {
        prompt: prompt.to_string(),
        model: config.model.clone(),
        resume: thread.map(str::to_string),
        // Global options (`-c key=value`: cohost's MCP servers, then the
        // user's own, which win) go before `exec`.
        leading,
        // The sandbox, not the bypass flag: auto-approve still stays inside
        // the workspace in exec mode.
        driver_args: vec!["--skip-git-repo-check".into(), "-s".into(), sandbox.into()],
        end_of_options: true,
        stream: true,
        ..QueryArgs::default()
    };
    FLAGS
        .query_args(&q)
        .into_iter()
        .map(OsString::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replay(lines: &str) -> Vec<AgentEvent> {
        let mut n = ExecNormalizer::new();
        lines.lines().flat_map(|l| n.push(l)).collect()
    }

    fn fixture(scenario: &str) -> Vec<AgentEvent> {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/codex/0.171.0");
        let text = std::fs::read_to_string(dir.join(format!("{scenario}.jsonl"))).unwrap();
        let body: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
        let ev = replay(&body);
        crate::process::oneshot::check_snapshot(dir.join(format!("{scenario}.events")), &ev);
        ev
    }

    #[test]
    fn golden_exec_transcripts() {
        let ev = fixture("exec_text");
        assert!(matches!(
            &ev[0],
            AgentEvent::Started {
                session_id: Some(_),
                ..
            }
        ));
        assert!(ev.contains(&AgentEvent::TextDelta(
            "Hello from fake-llm. You said: hi".into()
        )));
        assert!(matches!(
            ev.last(),
            Some(AgentEvent::Ended {
                reason: EndReason::Completed,
                ..
            })
        ));
        let ev = fixture("exec_tool");
        assert!(ev
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolCall(c) if c.kind == ToolKind::Execute)));
        assert!(ev.iter().any(|e| matches!(
            e,
            AgentEvent::ToolExecuted {
                status: ToolStatus::Ok,
                ..
            }
        )));
        // codex 0.171.0 reports no command_execution item for a command that
        // failed in the read-only sandbox: only the model's reply shows it ran.
        let ev = fixture("exec_tool_readonly");
        assert!(!ev.iter().any(|e| matches!(e, AgentEvent::ToolCall(_))));
        assert!(ev
            .iter()
            .any(|e| matches!(e, AgentEvent::TextDelta(t) if t.contains("Read-only file system"))));
        let ev = fixture("exec_error_401");
        assert!(ev
            .iter()
            .any(|e| matches!(e, AgentEvent::Error(e) if e.code == ErrorCode::AuthRequired)));
        assert!(matches!(
            ev.last(),
            Some(AgentEvent::Ended {
                reason: EndReason::Error,
                ..
            })
        ));
    }

    #[test]
    fn whole_messages_become_one_chunk_each() {
        let ev = replay(concat!(
            "{\"type\":\"thread.started\",\"thread_id\":\"t1\"}\n",
            "{\"type\":\"turn.started\"}\n",
            "{\"type\":\"item.completed\",\"item\":{\"id\":\"i1\",\"type\":\"agent_message\",\"text\":\"Hello\"}}\n",
            "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":10,\"cached_input_tokens\":4,\"output_tokens\":2}}\n",
        ));
        assert_eq!(ev[1], AgentEvent::TextDelta("Hello".into()));
        assert!(
            matches!(ev.last(), Some(AgentEvent::Ended { reason: EndReason::Completed, usage: Some(u) }) if u.input_tokens == 6 && u.cache_read_tokens == 4)
        );
    }

    #[test]
    fn failure_is_reported_once() {
        let ev = replay(concat!(
            "{\"type\":\"error\",\"message\":\"unexpected status 401 Unauthorized\"}\n",
            "{\"type\":\"turn.failed\",\"error\":{\"message\":\"unexpected status 401 Unauthorized\"}}\n",
        ));
        let errors: Vec<_> = ev
            .iter()
            .filter(|e| matches!(e, AgentEvent::Error(_)))
            .collect();
        assert_eq!(errors.len(), 1);
        assert!(matches!(errors[0], AgentEvent::Error(e) if e.code == ErrorCode::AuthRequired));
    }

    #[test]
    fn interrupt_closes_the_turn_and_crash_does_not() {
        let mut n = ExecNormalizer::new();
        assert_eq!(n.on_exit(None, "", true), Some(interrupted_end()));
        assert_eq!(n.on_exit(None, "", false), None);
    }

    fn args(cfg: &AdapterConfig) -> Vec<String> {
        exec_args("-hi", cfg, None)
            .iter()
            .map(|s| s.to_string_lossy().into())
            .collect()
    }

    #[test]
    fn mcp_servers_are_global_overrides_before_exec() {
        use crate::mcp_servers::tests::server;
        let none = args(&AdapterConfig::default());
        assert!(!none.iter().any(|a| a == "-c" || a.contains("mcp_servers")));
        let mut cfg = AdapterConfig {
            mcp_servers: vec![server("cohost_room", "/bin/room", &["x"], &[])],
            extra_args: vec!["-c".into(), "model=\"o3\"".into()],
            ..Default::default()
        };
        let a = args(&cfg);
        assert_eq!(
            a[..5],
            [
                "-c",
                "mcp_servers.cohost_room={command = \"/bin/room\", args = [\"x\"], env = {}}",
                "-c",
                "model=\"o3\"",
                "exec"
            ]
        );
        cfg.mcp_servers
            .push(server("notes", "/bin/notes", &[], &[("K", "V")]));
        let a = args(&cfg);
        let exec = a.iter().position(|x| x == "exec").unwrap();
        assert_eq!(exec, 6, "{a:?}");
        assert!(a[3].starts_with("mcp_servers.notes={command = \"/bin/notes\""));
        assert_eq!(&a[a.len() - 2..], ["--", "-hi"]);
    }

    #[test]
    fn args_never_bypass_and_resume_by_id() {
        let cfg = AdapterConfig::default();
        let a: Vec<String> = exec_args("-hi", &cfg, Some("t9"))
            .iter()
            .map(|s| s.to_string_lossy().into())
            .collect();
        assert!(a.windows(2).any(|w| w == ["-s", "read-only"]));
        assert!(a.windows(2).any(|w| w == ["resume", "t9"]));
        assert_eq!(&a[a.len() - 2..], ["--", "-hi"]);
        assert!(!a.iter().any(|x| x.contains("dangerously")));
    }
}
