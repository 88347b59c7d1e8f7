//! The built-in ACP providers over the generic client (`cohost-acp`): the
//! list of their launch specs, derived from the provider list, and their
//! registration.

pub(crate) use cohost_acp::spec;
pub use cohost_acp::{
    AcpClient, AcpFactory, AcpSpec, ApprovalModes, ClientConfig, FsOp, FsRequest, Opened, Output,
    Stats,
};

use cohost_core::{CohostError, Registry};

/// The built-in ACP providers' launch specs, and what they share.
pub(crate) mod providers {
    pub(crate) use cohost_acp::providers::*;

    use cohost_acp::AcpSpec;

    use crate::catalog;

    /// Every built-in ACP provider's launch spec, in provider-list order: the
    /// [`CliEntry::acp`] mode of each entry of [`catalog::CLIS`].
    pub fn all() -> Vec<AcpSpec> {
        catalog::CLIS
            .iter()
            .filter_map(|cli| cli.acp)
            .map(|mode| (mode.spec)())
            .collect()
    }

    /// The launch spec of the built-in ACP provider `id` (`gemini-acp`).
    pub fn by_id(id: &str) -> Option<AcpSpec> {
        catalog::CLIS
            .iter()
            .filter_map(|cli| cli.acp)
            .find(|mode| mode.id == id)
            .map(|mode| (mode.spec)())
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use cohost_core::ApprovalMode;

        #[test]
        fn a_wrapper_signs_in_through_what_it_wraps() {
            assert_eq!(
                crate::catalog::login_fix("codex-acp").as_deref(),
                Some("run `cohost login codex-acp` (runs `codex login`), or set $OPENAI_API_KEY")
            );
        }

        #[test]
        fn other_agents_get_no_policy_args() {
            for spec in all().iter().filter(|s| s.id != "codex-acp") {
                assert!(policy_args(&spec.id, ApprovalMode::Ask, false).is_empty());
            }
        }

        #[test]
        fn only_the_agents_seen_to_use_them_claim_mcp_servers() {
            use super::all;
            use cohost_acp::providers::MCP_SERVERS;
            let specs = all();
            for id in MCP_SERVERS {
                assert!(specs.iter().any(|s| s.id == *id), "{id} is no ACP provider");
            }
            for spec in &specs {
                let claimed = cohost_acp::descriptor(spec).capabilities.mcp_servers;
                assert_eq!(
                    claimed,
                    MCP_SERVERS.contains(&spec.id.as_str()),
                    "{}",
                    spec.id
                );
                // Asking before an MCP tool is claimed only of those that take them.
                let asks = cohost_acp::descriptor(spec).capabilities.mcp_approvals;
                assert_eq!(
                    asks,
                    cohost_acp::providers::MCP_APPROVALS.contains(&spec.id.as_str()),
                    "{}",
                    spec.id
                );
                assert!(!asks || claimed, "{}", spec.id);
                // An agent driven only over ACP also has a catalog entry: same claims.
                if let Some(entry) = crate::catalog::CLIS.iter().find(|e| e.id == spec.id) {
                    assert_eq!(entry.capabilities.mcp_servers, claimed, "{}", spec.id);
                    assert_eq!(entry.capabilities.mcp_approvals, asks, "{}", spec.id);
                }
            }
        }
    }
}

/// Register the built-in ACP providers: the ACP mode of every entry of the
/// provider list that has one.
pub(crate) fn register(registry: &mut Registry) -> Result<(), CohostError> {
    for spec in providers::all() {
        registry.register(std::sync::Arc::new(AcpFactory::new(
            spec,
            crate::catalog::catalog(),
        )))?;
    }
    Ok(())
}
