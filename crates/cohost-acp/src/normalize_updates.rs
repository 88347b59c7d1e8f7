//! Session updates and permission requests: text, reasoning, tool-call
//! bookkeeping (hold, merge, announce, finish), plans and usage.

use agent_client_protocol_schema::v1 as schema;
use cohost_core::{AgentEvent, ApprovalMode, ApprovalOption, ToolCallInfo, ToolStatus};
use schema::{SessionUpdate, ToolCallStatus, ToolCallUpdate};
use serde_json::Value;

use super::{AcpClient, Output, Phase};
use crate::map;
use crate::permission::{answer_permission, cancelled_permission, OpenPermission};
use crate::read::{self, Skipped};

impl AcpClient {
    pub(super) fn on_permission(
        &mut self,
        id: Value,
        tool_call: &ToolCallUpdate,
        options: &[schema::PermissionOption],
        out: &mut Vec<Output>,
    ) {
        let p = OpenPermission {
            rpc_id: id,
            options: map::option_ids(options),
        };
        if self.phase != Phase::Prompting {
            out.push(Output::Write(cancelled_permission(&p.rpc_id)));
            return;
        }
        let tool_id = tool_call.tool_call_id.0.to_string();
        self.merge_call(tool_call);
        self.held.retain(|h| h != &tool_id);
        self.flush_held(None, out);
        let call = self.call_info(&tool_id);
        self.announced.insert(tool_id.clone());
        match self.cfg.approval {
            ApprovalMode::Ask => {
                let options = ApprovalOption::ALL
                    .into_iter()
                    .filter(|o| p.options.contains_key(o))
                    .collect();
                if let Some(old) = self.permissions.insert(tool_id, p) {
                    out.push(Output::Write(answer_permission(
                        &old,
                        ApprovalOption::RejectOnce,
                    )));
                }
                out.push(Output::Event(AgentEvent::ApprovalRequested {
                    call,
                    options,
                }));
            }
            ApprovalMode::AutoApprove => {
                out.push(Output::Event(AgentEvent::ToolCall(call)));
                out.push(Output::Write(answer_permission(
                    &p,
                    ApprovalOption::AllowOnce,
                )));
            }
            ApprovalMode::DenyAll => {
                self.denied.insert(tool_id);
                out.push(Output::Event(AgentEvent::ToolCall(call)));
                out.push(Output::Write(answer_permission(
                    &p,
                    ApprovalOption::RejectOnce,
                )));
            }
        }
    }

    pub(super) fn on_update(&mut self, params: Value, out: &mut Vec<Output>) {
        let update = match read::session_update(params) {
            Ok(u) => u,
            Err(Skipped::Malformed(e)) => {
                self.stats.malformed += 1;
                tracing::debug!(provider = %self.cfg.provider_id, error = %e, "malformed session/update");
                return;
            }
            Err(Skipped::UnknownKind) => {
                if self.phase == Phase::Prompting {
                    self.stats.unknown_updates += 1;
                }
                return;
            }
        };
        if self.phase != Phase::Prompting {
            return;
        }
        match update {
            SessionUpdate::AgentMessageChunk(chunk) => {
                if let Some(t) = map::text(chunk.content).filter(|t| !t.is_empty()) {
                    if self.text_failed {
                        return; // the rest of the failure message
                    }
                    if !self.text_seen {
                        self.text_seen = true;
                        if let Some(e) =
                            map::text_error(self.cfg.text_errors, &self.cfg.provider_id, &t)
                        {
                            self.text_failed = true;
                            self.flush_held(None, out);
                            out.push(Output::Event(AgentEvent::Error(e)));
                            return;
                        }
                    }
                    self.flush_held(None, out);
                    out.push(Output::Event(AgentEvent::TextDelta(t)));
                }
            }
            SessionUpdate::AgentThoughtChunk(chunk) => {
                if let Some(t) = map::text(chunk.content).filter(|t| !t.is_empty()) {
                    self.flush_held(None, out);
                    out.push(Output::Event(AgentEvent::ReasoningDelta(t)));
                }
            }
            // A new call is an update that sets every field.
            SessionUpdate::ToolCall(tc) => self.on_tool(tc.into(), out),
            SessionUpdate::ToolCallUpdate(tc) => self.on_tool(tc, out),
            SessionUpdate::Plan(plan) => {
                self.flush_held(None, out);
                out.push(Output::Event(AgentEvent::Status {
                    message: map::plan_text(&plan.entries),
                    retry_after_ms: None,
                }));
            }
            SessionUpdate::UsageUpdate(u) => {
                let mut usage = self.usage.unwrap_or_default();
                usage.input_tokens = u.used;
                self.usage = Some(usage);
            }
            SessionUpdate::UserMessageChunk(_) => {}
            // `available_commands_update`, `current_mode_update`,
            // `config_option_update`, `session_info_update`...
            _ => self.stats.unknown_updates += 1,
        }
    }

    fn on_tool(&mut self, tc: ToolCallUpdate, out: &mut Vec<Output>) {
        if tc.tool_call_id.0.is_empty() {
            self.stats.malformed += 1;
            return;
        }
        let id = tc.tool_call_id.0.to_string();
        self.merge_call(&tc);
        let status = tc.fields.status;
        let terminal = matches!(
            status,
            Some(ToolCallStatus::Completed | ToolCallStatus::Failed)
        );
        if !self.announced.contains(&id) {
            if !self.held.contains(&id) {
                self.held.push(id.clone());
            }
            if matches!(status, None | Some(ToolCallStatus::Pending)) {
                // Wait: a permission request for it may follow.
                return;
            }
            self.flush_held(Some(&id), out);
        }
        if terminal && self.finished.insert(id.clone()) {
            let status = if self.denied.contains(&id) {
                ToolStatus::Denied
            } else if status == Some(ToolCallStatus::Failed) {
                ToolStatus::Error
            } else {
                ToolStatus::Ok
            };
            out.push(Output::Event(AgentEvent::ToolExecuted {
                tool_id: id,
                status,
                output: map::tool_output(&tc),
            }));
        }
    }

    fn merge_call(&mut self, tc: &ToolCallUpdate) {
        let id = tc.tool_call_id.0.to_string();
        let entry = self
            .calls
            .entry(id.clone())
            .or_insert_with(|| ToolCallInfo {
                tool_id: id,
                name: String::new(),
                kind: cohost_core::ToolKind::Other,
                input: Value::Null,
            });
        map::merge_call(entry, tc);
    }

    fn call_info(&self, id: &str) -> ToolCallInfo {
        self.calls.get(id).cloned().unwrap_or_else(|| ToolCallInfo {
            tool_id: id.to_string(),
            name: "tool".into(),
            kind: cohost_core::ToolKind::Other,
            input: Value::Null,
        })
    }

    /// Announce held calls as plain `ToolCall`s: all of them, or those up to
    /// and including `upto`.
    pub(super) fn flush_held(&mut self, upto: Option<&str>, out: &mut Vec<Output>) {
        let take = match upto {
            Some(id) => match self.held.iter().position(|h| h == id) {
                Some(i) => i + 1,
                None => return,
            },
            None => self.held.len(),
        };
        let ids: Vec<String> = self.held.drain(..take).collect();
        for id in ids {
            if self.announced.insert(id.clone()) {
                out.push(Output::Event(AgentEvent::ToolCall(self.call_info(&id))));
            }
        }
    }
}
