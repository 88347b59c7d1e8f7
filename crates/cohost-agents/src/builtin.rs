//! Registration of the built-in providers. Each driver family adds its
//! factories here; the binary calls [`register_all`].

use cohost_core::{CohostError, Registry};
use std::sync::Arc;

/// Register every built-in provider (the mock included) into `registry`.
pub fn register_all(registry: &mut Registry) -> Result<(), CohostError> {
    registry.register(Arc::new(cohost_core::mock::MockFactory::default()))?;
    // Driver families register below, one line each.
    crate::http::register(registry)?;
    registry.register(Arc::new(crate::codex::CodexFactory))?;
    registry.register(Arc::new(crate::gemini::GeminiFactory))?;
    registry.register(Arc::new(crate::claude::StreamJsonFactory::claude()))?;
    registry.register(Arc::new(crate::claude::StreamJsonFactory::qwen()))?;
    crate::acp::register(registry)?;
    registry.register(Arc::new(crate::opencode::OpenCodeFactory))?;
    registry.register(Arc::new(crate::copilot::CopilotFactory))?;
    registry.register(Arc::new(crate::aider::AiderFactory))?;
    registry.register(Arc::new(crate::continue_cli::ContinueFactory))?;
    registry.register(Arc::new(crate::cursor::CursorFactory))?;
    registry.register(Arc::new(crate::goose::GooseFactory))?;
    registry.register(Arc::new(crate::agy::AgyFactory))?;
    registry.register(Arc::new(crate::kiro::KiroFactory))?;
    Ok(())
}
