//! Approvals through MCP elicitation: the client shows the person a form
//! (allow / deny) and its answer decides. Where the client declared no
//! elicitation, or the request fails, the approval stays pending for
//! `list_approvals` / `resolve_approval`, and the deadline denies it.

use std::sync::Arc;
use std::time::Duration;

use cohost_core::{Decision, DecisionOrigin};
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema, EnumSchema};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};

use super::turn::PendingView;
use crate::hub::HubSession;

/// Whether the client takes form elicitations.
pub(super) fn supported(peer: &Peer<RoleServer>) -> bool {
    peer.supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
}

/// The question shown to the person.
fn question(s: &HubSession, p: &PendingView) -> String {
    let mut input = p.input.to_string();
    if input.len() > 400 {
        let mut cut = 400;
        while !input.is_char_boundary(cut) {
            cut -= 1;
        }
        input.truncate(cut);
        input.push('…');
    }
    s.sanitizer
        .sanitize(&format!(
            "{} (session {}) wants to run `{}` ({:?}) with {input}. Allow it?",
            s.descriptor.label,
            s.id(),
            p.name,
            p.kind
        ))
        .into_owned()
}

/// Ask the person about `p`; their answer resolves it. Declining or
/// dismissing the form is a deny; a failed request leaves it pending.
pub(super) async fn ask(peer: Peer<RoleServer>, s: Arc<HubSession>, p: PendingView) {
    let decision = EnumSchema::builder(vec!["allow".into(), "deny".into()]).build();
    let schema = ElicitationSchema::builder()
        .required_enum_schema("decision", decision)
        .build_unchecked();
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question(&s, &p),
        requested_schema: schema,
    };
    let timeout = Duration::from_millis(p.expires_in_ms.max(1));
    let answer = match peer
        .create_elicitation_with_timeout(params, Some(timeout))
        .await
    {
        Ok(r) => r,
        Err(e) => {
            tracing::info!(error = %e, tool = %p.tool_id, "elicitation failed; the approval stays pending for resolve_approval");
            return;
        }
    };
    let allowed = answer.action == ElicitationAction::Accept
        && answer
            .content
            .as_ref()
            .and_then(|c| c.get("decision"))
            .and_then(|d| d.as_str())
            == Some("allow");
    let d = if allowed {
        Decision::allow(DecisionOrigin::User)
    } else {
        Decision::deny(
            DecisionOrigin::User,
            "denied by the person (MCP elicitation)",
        )
    };
    // The person may answer before the engine asks its decision source.
    s.live.decide_seen(&p.tool_id, d);
}
