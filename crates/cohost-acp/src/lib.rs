//! The generic Agent Client Protocol (ACP) client driver, which every
//! provider-list entry with an ACP mode (`gemini-acp`, `claude-acp`, ...)
//! runs on. Plugin manifests with `protocol = "acp"` reuse it through
//! [`AcpFactory::new`]. It knows no other driver: the provider list comes
//! in as a value ([`Catalog`]), and `cohost_agents::acp` registers the
//! built-in providers.
//!
//! - [`rpc`]: JSON-RPC 2.0 framing (the shared [`jsonrpc`], which the Codex
//!   app-server driver uses too, in ACP's spelling).
//! - [`mcp_servers`]: the check of the MCP servers cohost gives an agent,
//!   shared with the Claude Code and Codex drivers.
//! - Messages: the SDK's schema crate (`agent-client-protocol-schema`, `v1`),
//!   the one definition the ACP server in cohost-servers uses too; [`read`]
//!   reads agents' messages with it tolerantly.
//! - [`normalize`]: the client state machine (lines in → events and lines out).
//! - [`map`]: kinds, options, stop reasons, usage, errors.
//! - [`fs`]: cwd-confined file requests. `engine`: the IO shell.
//! - [`spec`]: how one agent is launched; each built-in one's spec is the
//!   ACP mode of its entry in the provider list, [`providers`] what they share.
//!
//! Why our own JSON-RPC layer rather than the `agent-client-protocol` crate
//! (only its schema types):
//! that crate owns the byte streams and runs `!Send` futures on a `LocalSet`,
//! which fits neither the shared process supervisor (line frames, bounded
//! lines, process groups) nor a sans-IO core that golden transcripts replay.

mod engine;
pub(crate) mod escape;
pub(crate) mod fs;
pub mod jsonrpc;
pub(crate) mod map;
mod mcp;
pub mod mcp_servers;
pub(crate) mod normalize;
mod permission;
pub mod providers;
pub(crate) mod read;
pub(crate) mod rpc;

use agent_client_protocol_schema::v1 as schema;
use async_trait::async_trait;
use cohost_core::{
    AdapterConfig, AdapterFactory, AgentAdapter, AgentEventStream, ApprovalSupport, Capabilities,
    CohostError, ContextFile, ErrorCode, Health, InitInfo, InterruptStage, InterruptSupport,
    PromptRequest, ProviderDescriptor, ProviderKind, StreamingGranularity, ToolDecision,
};
use std::path::Path;
use std::time::Duration;

pub use cohost_process::provider::acp as spec;
pub use normalize::{AcpClient, ClientConfig, FsOp, FsRequest, Opened, Output, Stats};
pub use spec::{AcpSpec, ApprovalModes};

use cohost_process::provider::Catalog;
use cohost_process::session::not_running;
use cohost_process::{find_on_path, GroupSignal};
use engine::Engine;

/// The descriptor of an ACP provider.
pub fn descriptor(spec: &AcpSpec) -> ProviderDescriptor {
    ProviderDescriptor {
        id: spec.id.clone(),
        label: spec.label.clone(),
        kind: ProviderKind::AgentCli,
        capabilities: Capabilities {
            streaming: StreamingGranularity::TokenDeltas,
            reasoning: spec.reasoning,
            approvals: ApprovalSupport::Blocking,
            interrupt: InterruptSupport::Protocol,
            resume: spec.resume,
            usage: spec.usage,
            context_files: true,
            // Checked per agent against its `promptCapabilities.image`.
            images: true,
            // Sent to every agent; claimed for those seen to use them.
            mcp_servers: providers::MCP_SERVERS.contains(&spec.id.as_str()),
            mcp_approvals: providers::MCP_APPROVALS.contains(&spec.id.as_str()),
            tier: spec.tier,
            ..Capabilities::BASELINE
        },
        install_hint: Some(spec.install_hint.clone()),
    }
}

/// Makes adapters for one ACP provider.
#[derive(Debug, Clone)]
pub struct AcpFactory {
    spec: AcpSpec,
    catalog: Catalog,
}

impl AcpFactory {
    /// A factory for `spec`, launching with the provider list `catalog`
    /// (the sandbox's credential files, the sign-in fix of a wrapper).
    pub fn new(spec: AcpSpec, catalog: Catalog) -> Self {
        AcpFactory { spec, catalog }
    }

    /// The launch spec.
    pub fn spec(&self) -> &AcpSpec {
        &self.spec
    }
}

impl AdapterFactory for AcpFactory {
    fn descriptor(&self) -> ProviderDescriptor {
        descriptor(&self.spec)
    }

    fn create(&self) -> Box<dyn AgentAdapter> {
        Box::new(AcpAdapter::new(self.spec.clone(), self.catalog))
    }

    fn is_available(&self) -> bool {
        let path = std::env::var_os("PATH");
        self.spec
            .binaries
            .iter()
            .any(|b| find_on_path(b, path.as_deref()).is_some())
    }
}

/// The adapter: one agent process, one ACP session, turns one after another.
pub(crate) struct AcpAdapter {
    spec: AcpSpec,
    catalog: Catalog,
    descriptor: ProviderDescriptor,
    engine: Option<Engine>,
    config: AdapterConfig,
    /// A `session/cancel` was sent since the last prompt.
    cancelled: bool,
}

impl AcpAdapter {
    /// An uninitialized adapter.
    pub(crate) fn new(spec: AcpSpec, catalog: Catalog) -> Self {
        AcpAdapter {
            descriptor: descriptor(&spec),
            spec,
            catalog,
            engine: None,
            config: AdapterConfig::default(),
            cancelled: false,
        }
    }

    /// Restart the agent on the same session (see [`AcpSpec::restart_after_cancel`]).
    async fn restart(&mut self) -> Result<(), CohostError> {
        let Some(old) = self.engine.take() else {
            return Ok(());
        };
        let mut config = self.config.clone();
        config.resume = Some(old.opened.session_id.clone());
        // A forked session is reloaded, not forked again.
        config.fork = false;
        stop(old).await;
        self.engine = Some(Engine::start(&self.spec, &config, self.catalog).await?);
        Ok(())
    }

    fn engine(&mut self) -> Result<&mut Engine, CohostError> {
        let id = &self.spec.id;
        self.engine.as_mut().ok_or_else(|| not_running(id))
    }
}

/// Prompt content blocks: the text, then each file as an embedded resource
/// (when the agent accepts them) or a `resource_link` (always accepted).
pub(crate) fn prompt_blocks(
    text: &str,
    files: &[ContextFile],
    cwd: &Path,
    embedded: bool,
) -> Vec<schema::ContentBlock> {
    let mut blocks = vec![schema::ContentBlock::from(text)];
    for f in files {
        let path = if f.path.is_absolute() {
            f.path.clone()
        } else {
            cwd.join(&f.path)
        };
        let uri = format!("file://{}", path.display());
        let name = f
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        blocks.push(match &f.content {
            Some(c) if embedded => schema::ContentBlock::Resource(schema::EmbeddedResource::new(
                schema::EmbeddedResourceResource::TextResourceContents(
                    schema::TextResourceContents::new(c, uri).mime_type("text/plain"),
                ),
            )),
            Some(c) => schema::ContentBlock::from(format!(
                "<file path=\"{}\">\n{c}\n</file>",
                f.path.display()
            )),
            None => schema::ContentBlock::ResourceLink(schema::ResourceLink::new(name, uri)),
        });
    }
    blocks
}

#[async_trait]
impl AgentAdapter for AcpAdapter {
    fn descriptor(&self) -> &ProviderDescriptor {
        &self.descriptor
    }

    async fn initialize(&mut self, config: &AdapterConfig) -> Result<InitInfo, CohostError> {
        self.config = config.clone();
        let engine = Engine::start(&self.spec, config, self.catalog).await?;
        if config.resume.is_some() && !engine.opened.resumed {
            tracing::warn!(
                provider = %self.spec.id,
                "the agent does not support session/load; started a new session instead"
            );
        }
        let info = InitInfo {
            version: engine.opened.agent.as_ref().map(|a| a.version.clone()),
            session_id: Some(engine.opened.session_id.clone()),
        };
        self.engine = Some(engine);
        Ok(info)
    }

    async fn send_prompt(
        &mut self,
        prompt: PromptRequest,
    ) -> Result<AgentEventStream, CohostError> {
        if std::mem::take(&mut self.cancelled) && self.spec.restart_after_cancel {
            self.restart().await?;
        }
        let engine = self.engine()?;
        engine.session.ensure_alive(&engine.child)?;
        let cwd = engine.cwd.clone();
        let embedded = engine
            .opened
            .capabilities
            .prompt_capabilities
            .embedded_context;
        let mut blocks = prompt_blocks(&prompt.text, &prompt.context_files, &cwd, embedded);
        if !prompt.images.is_empty() {
            // Which ACP agents take images is only known from `initialize`.
            if !engine.opened.capabilities.prompt_capabilities.image {
                return Err(CohostError::new(
                    ErrorCode::UnsupportedMode,
                    format!(
                        "agent `{}` takes no images (its ACP promptCapabilities.image is false)",
                        self.spec.id
                    ),
                )
                .with_fix("drop --image, or use an agent that takes them (e.g. claude)"));
            }
            blocks.extend(prompt.images.iter().map(|i| {
                schema::ContentBlock::Image(schema::ImageContent::new(
                    i.data.clone(),
                    i.media_type.clone(),
                ))
            }));
        }
        engine.session.begin_turn(blocks).await
    }

    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        let signal = match stage {
            InterruptStage::Cancel => {
                self.cancelled = true;
                return self.engine()?.session.interrupt().await;
            }
            InterruptStage::Signal => GroupSignal::Interrupt,
            InterruptStage::Terminate => GroupSignal::Terminate,
            InterruptStage::Kill => {
                let engine = self.engine()?;
                escape::kill_groups(&escape::escaped_groups(engine.child.pid()));
                GroupSignal::Kill
            }
        };
        self.engine()?.child.signal(signal).map(|_| ())
    }

    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError> {
        self.engine()?.session.decide(decision).await
    }

    async fn health(&mut self) -> Health {
        let Some(e) = self.engine.as_ref() else {
            return Health::default();
        };
        let version = e.opened.agent.as_ref().map(|a| a.version.clone());
        e.session.health(&e.child, &e.binary, version).await
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        if let Some(engine) = self.engine.take() {
            stop(engine).await;
        }
        Ok(())
    }
}

/// How long an agent's processes may take to save their session and exit
/// after SIGTERM. Claude Code's own shutdown allows its cleanup 2 s.
const STOP_GRACE: Duration = Duration::from_secs(4);

/// Stop an agent and everything it started, letting every process save its
/// session first (`session/load` depends on it).
async fn stop(mut engine: Engine) {
    // Found before the agent dies: afterwards the parent links are gone.
    let escaped = escape::escaped_groups(engine.child.pid());
    let mut groups = escaped.clone();
    if let Ok(own) = i32::try_from(engine.child.pid()) {
        groups.push(own);
    }
    engine.stdin.close().await;
    // Some agents exit on stdin EOF after saving their session.
    engine.child.wait_exit(Duration::from_millis(1000)).await;
    // Others ignore EOF (codex-acp, claude-code-acp 0.16.2). SIGTERM every
    // group, then wait for all their processes, not only the leader:
    // claude-code-acp's node bridge dies at once, while its Claude Code
    // child still drains its session-file write queue (flushed every
    // 100 ms, and on SIGTERM). Killing the group as soon as the bridge
    // exited lost that turn on a busy machine.
    escape::signal_groups(&groups, GroupSignal::Terminate);
    if !escape::wait_groups_gone(&groups, STOP_GRACE).await {
        tracing::debug!(
            pid = engine.child.pid(),
            "agent outlived its stop grace; killing"
        );
    }
    engine.child.terminate(Duration::from_millis(300)).await;
    escape::kill_groups(&escaped);
}

#[cfg(test)]
#[path = "stop_tests.rs"]
mod stop_tests;
