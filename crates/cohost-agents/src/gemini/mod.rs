//! Gemini CLI driver (provider id `gemini`): `gemini -p PROMPT
//! --output-format stream-json` per turn, `--resume <session id>` after the
//! first.
//!
//! Headless gemini has no blocking approvals: tools run only when the
//! launch policy lets them (`--approval-mode yolo` under
//! [`cohost_core::ApprovalMode::AutoApprove`], gemini's own default
//! otherwise), so approvals are `advisory`. Blocking approvals come through
//! gemini's ACP mode (`gemini --acp`), the separate `gemini-acp` provider.
//! Interrupts are SIGINT to the process group, then the usual escalation.

pub mod engine;
pub mod normalize;
pub mod wire;

use cohost_core::{
    AdapterFactory, AgentAdapter, ApprovalSupport, Capabilities, InterruptSupport,
    ProviderDescriptor, ProviderKind, ResumeSupport, StreamingGranularity, SupportTier,
};

pub use engine::GeminiAdapter;

use crate::process::{find_on_path, Version, VersionRange};

/// Where to get it.
pub const INSTALL_HINT: &str = "npm install -g @google/gemini-cli@0.61.0";

/// Versions cohost was tested with: 0.61.0 is pinned in
/// `tests/agents/versions.env`; the stream-json format is checked at
/// start-up, so later 0.x releases are accepted.
pub const TESTED: VersionRange = VersionRange {
    min: Version::new(0, 61, 0),
    max_exclusive: Version::new(1, 0, 0),
};

/// The descriptor before probing the installed version.
pub fn descriptor() -> ProviderDescriptor {
    ProviderDescriptor {
        id: "gemini".into(),
        label: "Gemini CLI (headless stream-json)".into(),
        kind: ProviderKind::AgentCli,
        capabilities: Capabilities {
            streaming: StreamingGranularity::TokenDeltas,
            reasoning: false,
            approvals: ApprovalSupport::Advisory,
            interrupt: InterruptSupport::Signal,
            resume: ResumeSupport::NativeId,
            usage: true,
            context_files: true,
            executes_tools: true,
            tier: SupportTier::Structured,
        },
        install_hint: Some(INSTALL_HINT.into()),
    }
}

/// Makes [`GeminiAdapter`]s.
#[derive(Debug, Default, Clone, Copy)]
pub struct GeminiFactory;

impl AdapterFactory for GeminiFactory {
    fn descriptor(&self) -> ProviderDescriptor {
        descriptor()
    }

    fn create(&self) -> Box<dyn AgentAdapter> {
        Box::new(GeminiAdapter::new())
    }

    fn is_available(&self) -> bool {
        find_on_path("gemini", std::env::var_os("PATH").as_deref()).is_some()
    }
}
