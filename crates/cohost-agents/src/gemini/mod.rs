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

pub(crate) mod auth;
pub(crate) mod engine;
pub(crate) mod normalize;
pub(crate) mod wire;

pub use engine::GeminiFactory;
pub(crate) use engine::SPEC;
