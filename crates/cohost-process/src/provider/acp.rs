//! How to launch one ACP agent: the launch spec every ACP provider (built
//! in or from a plugin manifest) is described by. Plain data: it knows no
//! other module of the crate, so the provider list can name it without an
//! import cycle.

use cohost_core::{ApprovalMode, ResumeSupport, SupportTier};

/// How an agent reports provider failures that it does not send as errors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TextErrors {
    /// Failures arrive as errors (or not at all).
    #[default]
    None,
    /// Copilot CLI: the turn's answer text is `Error: … (HTTP 401).` followed
    /// by what to check, and the turn ends `end_turn`.
    Copilot,
}

/// The ACP session modes ([`AcpSpec::approval_modes`]) an agent is switched
/// to for cohost's approval policy, by their ids in the agent's
/// `modes.availableModes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalModes {
    /// The mode that asks (`session/request_permission`) before every tool:
    /// used under Ask and deny-all, so cohost sees, and can refuse, each call.
    pub ask: String,
    /// The mode that runs tools without asking: used under auto-approve.
    pub auto_approve: String,
}

impl ApprovalModes {
    /// The mode for `approval`.
    pub fn for_approval(&self, approval: ApprovalMode) -> &str {
        match approval {
            ApprovalMode::AutoApprove => &self.auto_approve,
            ApprovalMode::Ask | ApprovalMode::DenyAll => &self.ask,
        }
    }
}

/// How to launch one ACP agent. Owned data so plugin manifests can build one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcpSpec {
    /// Provider id (`gemini-acp`).
    pub id: String,
    /// Human label.
    pub label: String,
    /// Executable names to look for on PATH, preferred first.
    pub binaries: Vec<String>,
    /// Arguments that put the binary in ACP mode.
    pub args: Vec<String>,
    /// Arguments that select a model; `{model}` is replaced.
    pub model_args: Vec<String>,
    /// A variable set to the model, for agents that take it only from the
    /// environment (Cline's `CLINE_MODEL`); the user's `env` wins.
    pub model_env: Option<String>,
    /// The vendor's own variable prefixes the child inherits.
    pub env_prefixes: Vec<String>,
    /// Non-secret variables the driver sets (the user's `env` wins).
    pub env: Vec<(String, String)>,
    /// Variables set only when cohost runs as root.
    pub root_env: Vec<(String, String)>,
    /// Variables that make the agent ask before running tools, set unless
    /// the policy is auto-approve or the user set them (so approvals are
    /// enforced even when the agent's own default is to allow).
    pub ask_env: Vec<(String, String)>,
    /// Session modes that put the agent under cohost's approval policy, for
    /// agents whose default mode runs some tools without asking: after
    /// `session/new`, `session/load` or `session/fork` the client switches
    /// the session (`session/set_mode`) to the one for the policy, when the
    /// agent advertises modes. `None`: the agent's own mode stays.
    pub approval_modes: Option<ApprovalModes>,
    /// Restart the agent (and `session/load` the session) before the turn
    /// after a cancel, for agents whose cancelled answer leaks into the next
    /// turn.
    pub restart_after_cancel: bool,
    /// Variables that must be set (non-empty) for the agent to work.
    pub required_env: Vec<String>,
    /// What resume looks like for this agent.
    pub resume: ResumeSupport,
    /// Whether it streams reasoning.
    pub reasoning: bool,
    /// Whether it reports token usage.
    pub usage: bool,
    /// Support tier.
    pub tier: SupportTier,
    /// Install hint for PROVIDER_NOT_FOUND.
    pub install_hint: String,
    /// How it reports provider failures in answer text, if it does.
    pub text_errors: TextErrors,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_auto_approve_gets_the_mode_that_does_not_ask() {
        let modes = ApprovalModes {
            ask: "ask".into(),
            auto_approve: "yolo".into(),
        };
        assert_eq!(modes.for_approval(ApprovalMode::Ask), "ask");
        assert_eq!(modes.for_approval(ApprovalMode::DenyAll), "ask");
        assert_eq!(modes.for_approval(ApprovalMode::AutoApprove), "yolo");
    }
}
