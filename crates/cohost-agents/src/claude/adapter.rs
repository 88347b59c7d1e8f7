//! The adapter cohost runs for Claude Code and Qwen Code
//! ([`StreamJsonAdapter`]) and the factory that makes it
//! ([`StreamJsonFactory`]): one CLI process per session through the
//! [`super::engine`], turns one after another.

use async_trait::async_trait;
use cohost_core::port::inline_context_files;
use cohost_core::{
    AdapterConfig, AdapterFactory, AgentAdapter, AgentEventStream, CohostError, Health, InitInfo,
    InterruptStage, PromptRequest, ProviderDescriptor, ToolDecision,
};
use std::time::Duration;

use super::dialect::Dialect;
use super::engine::Engine;
use crate::process::{find_on_path, GroupSignal};
use crate::session::not_running;

/// How long a steer waits for the CLI to say it queued the message.
/// Claude Code 2.1.332 says so within milliseconds, even while an approval
/// is pending; the bound only keeps a silent CLI from holding the engine's
/// turn loop, which also carries interrupts and approvals.
const STEER_ACK: Duration = Duration::from_secs(10);

/// The descriptor of a family member, from its spec.
pub(crate) fn descriptor(dialect: &Dialect) -> ProviderDescriptor {
    dialect.spec.descriptor()
}

/// Makes adapters for one family member.
#[derive(Debug, Clone)]
pub struct StreamJsonFactory {
    dialect: Dialect,
}

impl StreamJsonFactory {
    /// The factory of one family member (`spec.rs` names them:
    /// [`StreamJsonFactory::claude`], [`StreamJsonFactory::qwen`]).
    pub(super) fn new(dialect: Dialect) -> Self {
        StreamJsonFactory { dialect }
    }
}

impl AdapterFactory for StreamJsonFactory {
    fn descriptor(&self) -> ProviderDescriptor {
        descriptor(&self.dialect)
    }

    fn create(&self) -> Box<dyn AgentAdapter> {
        Box::new(StreamJsonAdapter::new(self.dialect.clone()))
    }

    fn is_available(&self) -> bool {
        find_on_path(self.dialect.command, std::env::var_os("PATH").as_deref()).is_some()
    }
}

/// The adapter: one CLI process, turns one after another.
pub(crate) struct StreamJsonAdapter {
    dialect: Dialect,
    descriptor: ProviderDescriptor,
    engine: Option<Engine>,
}

impl StreamJsonAdapter {
    /// An uninitialized adapter.
    pub(crate) fn new(dialect: Dialect) -> Self {
        let descriptor = descriptor(&dialect);
        StreamJsonAdapter {
            dialect,
            descriptor,
            engine: None,
        }
    }

    fn engine(&mut self) -> Result<&mut Engine, CohostError> {
        let id = self.dialect.id;
        self.engine.as_mut().ok_or_else(|| not_running(id))
    }
}

/// The user message's content: the text with the attached files
/// ([`inline_context_files`]: content as tagged blocks, paths as `@path`
/// mentions, which both CLIs read themselves), then each image as a base64
/// `image` block; a plain string when there is no image.
fn prompt_content(prompt: &PromptRequest) -> serde_json::Value {
    let text = inline_context_files(&prompt.text, &prompt.context_files);
    if prompt.images.is_empty() {
        return serde_json::Value::from(text);
    }
    let mut blocks = vec![serde_json::json!({"type": "text", "text": text})];
    blocks.extend(prompt.images.iter().map(|i| {
        serde_json::json!({
            "type": "image",
            "source": {"type": "base64", "media_type": i.media_type, "data": i.data}
        })
    }));
    serde_json::Value::Array(blocks)
}

#[async_trait]
impl AgentAdapter for StreamJsonAdapter {
    fn descriptor(&self) -> &ProviderDescriptor {
        &self.descriptor
    }

    async fn initialize(&mut self, config: &AdapterConfig) -> Result<InitInfo, CohostError> {
        let engine = Engine::start(&self.dialect, config).await?;
        let info = InitInfo {
            version: Some(engine.version.clone()),
            session_id: engine.session_id.clone(),
        };
        self.engine = Some(engine);
        Ok(info)
    }

    async fn send_prompt(
        &mut self,
        prompt: PromptRequest,
    ) -> Result<AgentEventStream, CohostError> {
        let id = self.dialect.id;
        let engine = self.engine()?;
        engine.session.ensure_alive(&engine.child)?;
        let turn = engine.session.begin_turn(prompt_content(&prompt)).await?;
        // A deferred handshake: the prompt is on its way; its failure is
        // this prompt's error.
        engine.finish_handshake(id).await?;
        Ok(turn)
    }

    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        let engine = self.engine()?;
        let signal = match stage {
            InterruptStage::Cancel => return engine.session.interrupt().await,
            InterruptStage::Signal => GroupSignal::Interrupt,
            InterruptStage::Terminate => GroupSignal::Terminate,
            InterruptStage::Kill => GroupSignal::Kill,
        };
        engine.child.signal(signal).map(|_| ())
    }

    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError> {
        self.engine()?.session.decide(decision).await
    }

    /// A user message written to the running CLI (`--input-format
    /// stream-json`): `Ok` once the CLI queued or started it; the turn then
    /// ends only after the CLI answered it (see `normalize::steering`).
    async fn steer(&mut self, text: &str) -> Result<(), CohostError> {
        let id = self.dialect.id;
        let session = &self.engine()?.session;
        match tokio::time::timeout(STEER_ACK, session.steer(text)).await {
            Ok(answer) => answer,
            // Written but not acknowledged: the running turn counts it as
            // waiting and ends only once the CLI answered it (or is
            // interrupted), so it is this turn's whatever the CLI does.
            // Queueing it as well could run the text twice.
            Err(_) => {
                tracing::warn!(
                    provider = id,
                    "the CLI has not acknowledged a steered message within {} s; \
                     it stays with the running turn",
                    STEER_ACK.as_secs()
                );
                Ok(())
            }
        }
    }

    async fn health(&mut self) -> Health {
        match self.engine.as_ref() {
            Some(e) => {
                let version = Some(e.version.clone());
                e.session.health(&e.child, &e.binary, version).await
            }
            None => Health::default(),
        }
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        if let Some(mut engine) = self.engine.take() {
            engine.stdin.close().await;
            engine.child.terminate(Duration::from_millis(500)).await;
        }
        Ok(())
    }
}
