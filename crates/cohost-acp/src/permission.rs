//! A permission request waiting for the user ([`OpenPermission`]) and the
//! answer lines the client writes for it: the client state machine
//! (`normalize.rs`) answers them and its session updates
//! (`normalize_updates.rs`) open them.

use agent_client_protocol_schema::v1 as schema;
use cohost_core::ApprovalOption;
use serde_json::Value;
use std::collections::HashMap;

use super::rpc;

/// A permission request waiting for the user's decision.
#[derive(Debug, Clone)]
pub(super) struct OpenPermission {
    pub(super) rpc_id: Value,
    pub(super) options: HashMap<ApprovalOption, String>,
}

/// The answer line for a permission request: the agent's option id for the
/// wanted kind, its sibling kind when missing, else `cancelled`.
pub(super) fn answer_permission(p: &OpenPermission, want: ApprovalOption) -> String {
    let sibling = match want {
        ApprovalOption::AllowOnce => ApprovalOption::AllowAlways,
        ApprovalOption::AllowAlways => ApprovalOption::AllowOnce,
        ApprovalOption::RejectOnce => ApprovalOption::RejectAlways,
        ApprovalOption::RejectAlways => ApprovalOption::RejectOnce,
    };
    let outcome = match p.options.get(&want).or_else(|| p.options.get(&sibling)) {
        Some(option_id) => schema::RequestPermissionOutcome::Selected(
            schema::SelectedPermissionOutcome::new(option_id.clone()),
        ),
        None => schema::RequestPermissionOutcome::Cancelled,
    };
    rpc::response(&p.rpc_id, &schema::RequestPermissionResponse::new(outcome))
}

/// The `cancelled` answer to permission request `rpc_id`.
pub(super) fn cancelled_permission(rpc_id: &Value) -> String {
    rpc::response(
        rpc_id,
        &schema::RequestPermissionResponse::new(schema::RequestPermissionOutcome::Cancelled),
    )
}
