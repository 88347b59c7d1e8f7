//! The adapter cohost runs for agy ([`AgyAdapter`]) and its factory
//! ([`AgyFactory`]): one long-lived process per session, turns one after
//! another, and a new process resuming the bound conversation whenever the
//! old one had to go (an interrupt stopped it, or it died between turns).

use async_trait::async_trait;
use cohost_core::port::inline_context_files;
use cohost_core::{
    AdapterConfig, AdapterFactory, AgentAdapter, AgentEventStream, CohostError, ErrorCode, Health,
    InitInfo, InterruptStage, PromptRequest, ProviderDescriptor, ToolDecision,
};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::engine::{env_policy, Engine, Shared};
use super::SPEC;
use crate::process::{find_on_path, locate_checked, lock, GroupSignal};

/// Makes agy adapters.
#[derive(Debug, Default, Clone, Copy)]
pub struct AgyFactory;

impl AdapterFactory for AgyFactory {
    fn descriptor(&self) -> ProviderDescriptor {
        SPEC.descriptor()
    }

    fn create(&self) -> Box<dyn AgentAdapter> {
        Box::new(AgyAdapter::new())
    }

    fn is_available(&self) -> bool {
        find_on_path(SPEC.command(), std::env::var_os("PATH").as_deref()).is_some()
    }
}

/// The port over agy's long-lived stream-json process.
pub(crate) struct AgyAdapter {
    descriptor: ProviderDescriptor,
    config: AdapterConfig,
    binary: Option<PathBuf>,
    engine: Option<Engine>,
    /// The conversation binding, kept across processes.
    shared: Arc<Mutex<Shared>>,
    terminated: bool,
}

impl AgyAdapter {
    /// An uninitialized adapter.
    pub(crate) fn new() -> Self {
        AgyAdapter {
            descriptor: SPEC.descriptor(),
            config: AdapterConfig::default(),
            binary: None,
            engine: None,
            shared: Arc::default(),
            terminated: false,
        }
    }

    /// The process for the next turn: the running one, or a new one
    /// resuming the bound conversation when there is none or it is gone.
    async fn ready_engine(&mut self) -> Result<&mut Engine, CohostError> {
        let Some(binary) = self.binary.clone().filter(|_| !self.terminated) else {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                "the agy adapter is not initialized",
            )
            .with_fix("initialize the adapter first"));
        };
        if let Some(old) = self.engine.take_if(|e| !e.alive()) {
            // It died, between turns or in a turn that ended as a crash:
            // keep its last words for the log, then resume in a new one.
            tracing::info!(report = %old.child.crash_report(), "agy exited; starting a new process");
            old.stop().await;
        }
        let engine = match self.engine.take() {
            Some(e) => e,
            None => {
                let conversation = {
                    let mut shared = lock(&self.shared);
                    shared.stop = false;
                    shared.conversation.clone()
                };
                Engine::spawn(&binary, &self.config, conversation, self.shared.clone())?
            }
        };
        Ok(self.engine.insert(engine))
    }
}

#[async_trait]
impl AgentAdapter for AgyAdapter {
    fn descriptor(&self) -> &ProviderDescriptor {
        &self.descriptor
    }

    async fn initialize(&mut self, config: &AdapterConfig) -> Result<InitInfo, CohostError> {
        let env = env_policy(config);
        let (binary, _) = locate_checked(&SPEC, config.binary.as_deref(), &env).await?;
        self.config = config.clone();
        lock(&self.shared).conversation = config.resume.clone();
        self.engine = Some(Engine::spawn(
            &binary,
            config,
            config.resume.clone(),
            self.shared.clone(),
        )?);
        self.binary = Some(binary);
        Ok(InitInfo {
            // agy's version output is undocumented: not probed.
            version: None,
            session_id: config.resume.clone(),
        })
    }

    async fn send_prompt(
        &mut self,
        prompt: PromptRequest,
    ) -> Result<AgentEventStream, CohostError> {
        let text = inline_context_files(&prompt.text, &prompt.context_files);
        let engine = self.ready_engine().await?;
        engine.session.begin_turn(text).await
    }

    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        let Some(engine) = self.engine.as_ref() else {
            // Stopped by an earlier stage: nothing left to interrupt.
            return Ok(());
        };
        let signal = match stage {
            InterruptStage::Cancel => {
                engine.session.interrupt().await?;
                let stop = std::mem::take(&mut lock(&self.shared).stop);
                if let Some(e) = self.engine.take_if(|_| stop) {
                    e.stop().await;
                }
                return Ok(());
            }
            InterruptStage::Signal => GroupSignal::Interrupt,
            InterruptStage::Terminate => GroupSignal::Terminate,
            InterruptStage::Kill => GroupSignal::Kill,
        };
        engine.child.signal(signal).map(|_| ())
    }

    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError> {
        Err(super::approval_unsupported(&decision.tool_id))
    }

    async fn health(&mut self) -> Health {
        let binary = self.binary.as_ref().map(|b| b.display().to_string());
        match (&self.engine, &self.binary) {
            (Some(e), Some(b)) => e.session.health(&e.child, b, None).await,
            // Stopped on purpose (an interrupt): the next prompt starts a
            // process resuming the conversation, so the adapter is usable.
            (None, Some(_)) if !self.terminated => Health {
                alive: true,
                binary,
                ..Health::default()
            },
            _ => Health {
                binary,
                ..Health::default()
            },
        }
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        self.terminated = true;
        if let Some(engine) = self.engine.take() {
            engine.stop().await;
        }
        Ok(())
    }
}
