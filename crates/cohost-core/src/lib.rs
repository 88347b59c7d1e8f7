//! cohost's domain: the agent port, the event wire format, the lifecycle
//! state machine, the error taxonomy, provider descriptors and registry, the
//! host session engine and the sanitizer.
//!
//! This crate knows no process, socket, HTTP or vendor format. Adapters
//! (in `cohost-agents`) depend on it; it depends on none of them.

#![forbid(unsafe_code)]

pub mod approval;
pub mod bridge;
pub mod budget;
pub mod changes;
// The scripted agent core's own unit tests drive; the product's mock is an
// adapter, in cohost-agents.
#[cfg(test)]
mod double;
pub mod engine;
pub mod error;
pub mod event;
pub mod handoff;
pub mod ids;
pub mod lifecycle;
pub mod limits;
pub mod port;
pub mod provider;
pub mod registry;
pub mod room;
pub mod sandbox;
// Invariant: the sanitizer's `expect`s compile regex literals, checked by
// its tests on every run (issue 14 owns this module and may replace them).
#[allow(clippy::expect_used)]
pub mod sanitize;
pub mod steer;
pub mod sync;

pub use approval::{ApprovalContext, Decision, DecisionSource, Policy};
pub use budget::{Budget, BudgetLevel, BudgetLimits, BudgetNotice, ModelPrice, Prices, Spend};
pub use changes::{ChangeStatus, Checkpoints, FileChange, TurnChanges, TurnMark};
pub use engine::{
    Control, EventSink, HostSession, PromptInput, SessionControl, SessionOptions, SteerRequest,
    TurnOutcome,
};
pub use error::{CohostError, ErrorCode, IoFailure};
pub use event::{
    ApprovalOption, DecisionOrigin, EndReason, Event, EventBody, ToolKind, ToolStatus, Usage,
};
pub use lifecycle::{IllegalTransition, Lifecycle, State};
pub use port::steer_unsupported;
pub use port::{
    AdapterConfig, AdapterFactory, AgentAdapter, AgentEvent, AgentEventStream, ApprovalMode,
    ContextFile, Health, InitInfo, InterruptStage, McpServer, PromptImage, PromptRequest,
    ToolCallInfo, ToolDecision, ToolSpec,
};
pub use provider::{
    ApprovalSupport, Capabilities, InterruptSupport, ProviderDescriptor, ProviderKind,
    ResumeSupport, StreamingGranularity, SupportTier,
};
pub use registry::Registry;
pub use sandbox::{SandboxMode, SandboxRequest};
pub use sanitize::Sanitizer;
pub use steer::{QueueChange, QueueItem, QueueNotice, SteerNotice};
