//! The factory and adapter of a `protocol = "wasm"` plugin (see
//! `wasm.rs`): the component chooses the command line and maps stdout on
//! the shared one-shot runner; cohost spawns, supervises, numbers and
//! stops the agent when the component fails.

use async_trait::async_trait;
use cohost_core::{
    AdapterConfig, AdapterFactory, AgentAdapter, AgentEventStream, ApprovalSupport, Capabilities,
    CohostError, ErrorCode, Health, InitInfo, InterruptStage, PromptRequest, ProviderDescriptor,
    ProviderKind, ResumeSupport, StreamingGranularity, SupportTier, ToolDecision,
};
use cohost_wasm::{AdapterComponent, Classify, LoadOptions, Runtime, StartOptions};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::error::PluginError;
use super::manifest::{Manifest, WasmSettings};
use super::wasm::{inspect, limits_of};
use super::wasm_turn::WasmTurn;
use cohost_process::oneshot::{generic_fix, lock_state, random_uuid, OneShot, RunState};
use cohost_process::provider::Catalog;
use cohost_process::{
    classify_stderr, locate_binary, probe, EnvPolicy, ProcessSpec, PROBE_TIMEOUT,
};

/// Factory of a `wasm` plugin.
#[derive(Debug, Clone)]
pub(crate) struct WasmFactory {
    manifest: Manifest,
    settings: WasmSettings,
    catalog: Catalog,
}

impl WasmFactory {
    /// The factory of a parsed `wasm` manifest from `file`, after
    /// inspecting its component.
    pub(crate) fn load(
        m: Manifest,
        file: &Path,
        catalog: Catalog,
    ) -> Result<WasmFactory, PluginError> {
        let Some(settings) = m.wasm.clone() else {
            return Err(PluginError {
                file: file.to_path_buf(),
                field: Some("wasm".into()),
                line: None,
                column: None,
                reason: "protocol = \"wasm\" needs a [wasm] table".into(),
            });
        };
        inspect(&m, &settings, file)?;
        Ok(WasmFactory {
            manifest: m,
            settings,
            catalog,
        })
    }
}

impl AdapterFactory for WasmFactory {
    fn descriptor(&self) -> ProviderDescriptor {
        let m = &self.manifest;
        ProviderDescriptor {
            id: m.id.clone(),
            label: m.label.clone().unwrap_or_else(|| m.id.clone()),
            kind: ProviderKind::AgentCli,
            capabilities: Capabilities {
                streaming: StreamingGranularity::TokenDeltas,
                reasoning: true,
                approvals: ApprovalSupport::None,
                interrupt: cohost_core::InterruptSupport::Signal,
                resume: ResumeSupport::NativeId,
                usage: true,
                context_files: false,
                images: false,
                fork: false,
                system_prompt: false,
                mcp_servers: false,
                mcp_approvals: false,
                steer: false,
                executes_tools: true,
                tier: SupportTier::Structured,
            },
            install_hint: Some(format!(
                "install `{}` (plugin manifest)",
                m.binary.to_vec().join("` or `")
            )),
        }
    }

    fn create(&self) -> Box<dyn AgentAdapter> {
        Box::new(WasmAdapter {
            manifest: self.manifest.clone(),
            settings: self.settings.clone(),
            catalog: self.catalog,
            descriptor: self.descriptor(),
            config: AdapterConfig::default(),
            binary: None,
            version: None,
            component: None,
            state: Arc::default(),
            turn: None,
            turns: 0,
        })
    }

    fn is_available(&self) -> bool {
        let path = std::env::var_os("PATH");
        self.manifest.binary.to_vec().iter().any(|b| {
            cohost_process::find_on_path(b, path.as_deref()).is_some() || Path::new(b).is_file()
        })
    }
}

/// cohost's classifier of agent messages, for error events without a code.
pub const CLASSIFY: Classify = Classify {
    class_of: classify_stderr,
    fix_for: generic_fix,
};

/// The adapter of a `wasm` plugin.
pub(crate) struct WasmAdapter {
    manifest: Manifest,
    settings: WasmSettings,
    catalog: Catalog,
    descriptor: ProviderDescriptor,
    config: AdapterConfig,
    binary: Option<PathBuf>,
    version: Option<String>,
    component: Option<AdapterComponent>,
    state: Arc<Mutex<RunState>>,
    turn: Option<OneShot>,
    turns: u32,
}

impl WasmAdapter {
    fn env(&self) -> EnvPolicy {
        let mut env = EnvPolicy::with_prefixes(self.manifest.env_prefixes.iter().cloned());
        env.extend(self.manifest.env.iter());
        env
    }

    /// The component may set only variables under the manifest's
    /// `env_prefixes`: never `PATH`, `LD_PRELOAD` or anything else that
    /// would let it reach outside its sandbox through the agent.
    fn check_env(&self, vars: &[(String, String)]) -> Result<(), CohostError> {
        let allowed = |k: &str| {
            self.manifest
                .env_prefixes
                .iter()
                .any(|p| !p.is_empty() && k.starts_with(p.as_str()))
        };
        match vars.iter().find(|(k, _)| !allowed(k)) {
            None => Ok(()),
            Some((k, _)) => Err(CohostError::new(
                ErrorCode::ConfigInvalid,
                format!(
                    "wasm plugin `{}`: the adapter sets `{k}`, which is not under the manifest's env_prefixes",
                    self.manifest.id
                ),
            )
            .with_fix("add the prefix to env_prefixes in the manifest if you trust the adapter with it")),
        }
    }
}

#[async_trait]
impl AgentAdapter for WasmAdapter {
    fn descriptor(&self) -> &ProviderDescriptor {
        &self.descriptor
    }

    async fn initialize(&mut self, config: &AdapterConfig) -> Result<InitInfo, CohostError> {
        self.config = config.clone();
        let id = self.manifest.id.clone();
        let mut env = self.env();
        env.extend(config.env.iter());
        if let Some(name) = env.first_missing(&self.manifest.required_env) {
            return Err(CohostError::new(
                ErrorCode::AuthRequired,
                format!("agent `{id}` needs {name}, which is not set"),
            )
            .with_fix(format!("export {name}=... and retry")));
        }
        let hint = format!("install `{id}` or fix `binary` in its plugin manifest");
        let path = env.effective_path();
        let mut found = Err(CohostError::new(ErrorCode::ProviderNotFound, "no binary"));
        for name in self.manifest.binary.to_vec() {
            found = locate_binary(&id, &name, config.binary.as_deref(), path.as_deref(), &hint)
                .map_err(CohostError::from);
            if found.is_ok() || config.binary.is_some() {
                break;
            }
        }
        let binary = found?;
        if !self.manifest.version_args.is_empty() {
            let args: Vec<&str> = self
                .manifest
                .version_args
                .iter()
                .map(String::as_str)
                .collect();
            let out = probe(&id, &binary, &args, &env, PROBE_TIMEOUT).await?;
            self.version = out
                .text
                .lines()
                .find(|l| !l.trim().is_empty())
                .map(|l| l.trim().to_string());
        }
        let options = LoadOptions {
            plugin: id.clone(),
            sha256: self.settings.sha256.clone(),
            limits: limits_of(&self.settings),
            classify: CLASSIFY,
        };
        let file = self.settings.component.clone();
        // Compiling takes a while the first time: off the async workers.
        let loaded = tokio::task::spawn_blocking(move || {
            let runtime = Runtime::shared().map_err(|e| {
                CohostError::new(
                    ErrorCode::UnsupportedMode,
                    format!(
                        "wasm plugin `{}`: no WebAssembly runtime here: {e}",
                        options.plugin
                    ),
                )
            })?;
            AdapterComponent::load_file(&runtime, &file, options).map_err(|e| e.to_cohost())
        })
        .await
        .map_err(|e| {
            CohostError::new(
                ErrorCode::ProcessCrashed,
                format!("wasm plugin `{id}`: loading stopped: {e}"),
            )
        })??;
        self.component = Some(loaded);
        self.binary = Some(binary);
        let mut st = lock_state(&self.state);
        st.session_id = config.resume.clone();
        drop(st);
        Ok(InitInfo {
            version: self.version.clone(),
            session_id: config.resume.clone(),
        })
    }

    async fn send_prompt(
        &mut self,
        prompt: PromptRequest,
    ) -> Result<AgentEventStream, CohostError> {
        let id = self.manifest.id.clone();
        let (Some(binary), Some(component)) = (self.binary.clone(), self.component.clone()) else {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                format!("agent `{id}` is not initialized"),
            )
            .with_fix("start the session first"));
        };
        if let Some(prev) = self.turn.take() {
            prev.finish().await;
        }
        let mut text = prompt.text;
        for f in &prompt.context_files {
            text.push_str(&format!(" @{}", f.path.display()));
        }
        let known = lock_state(&self.state).session_id.clone();
        let (session_id, fresh) = match known {
            Some(s) => (Some(s), false),
            None if self.settings.name_sessions => {
                (Some(format!("cohost-{}", random_uuid())), true)
            }
            None => (None, false),
        };
        let options = StartOptions {
            prompt: text,
            model: self.config.model.clone(),
            session_id,
            fresh_session: fresh,
            turn_index: self.turns,
            approval: self.config.approval,
            extra_args: self.config.extra_args.clone(),
        };
        self.turns += 1;
        let (instance, command) = tokio::task::spawn_blocking(move || {
            let mut instance = component.instantiate()?;
            let command = instance.start(options)?;
            Ok::<_, cohost_wasm::WasmError>((instance, command))
        })
        .await
        .map_err(|e| {
            CohostError::new(
                ErrorCode::ProcessCrashed,
                format!("wasm plugin `{id}`: start stopped: {e}"),
            )
        })?
        .map_err(|e| e.to_cohost())?;
        self.check_env(&command.env)?;
        let mut spec = ProcessSpec::new(id.clone(), &binary, self.catalog).args(command.args);
        let mut env = self.env();
        for (k, v) in &command.env {
            env.set(k.clone(), v.clone());
        }
        // The user's explicit values win over the adapter's.
        env.extend(self.config.env.iter());
        spec.env = env;
        spec.for_session(&self.config);
        if !self.config.cwd.as_os_str().is_empty() {
            spec.cwd = Some(self.config.cwd.clone());
        }
        lock_state(&self.state).last_error = None;
        let turn = WasmTurn::new(id, instance);
        let (turn, stream) =
            OneShot::spawn_with_input(spec, turn, self.state.clone(), command.stdin)?;
        self.turn = Some(turn);
        Ok(stream)
    }

    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        match self.turn.as_ref().filter(|t| t.is_running()) {
            Some(turn) => turn.interrupt(stage),
            None => Ok(()),
        }
    }

    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError> {
        Err(super::error::no_approval_channel(
            &self.manifest.id,
            &decision.tool_id,
            "set the approval policy at launch; a wasm adapter's agent runs one process per turn",
        ))
    }

    async fn health(&mut self) -> Health {
        Health {
            alive: self.binary.is_some(),
            binary: self.binary.as_ref().map(|b| b.display().to_string()),
            version: self.version.clone(),
            last_error: lock_state(&self.state).last_error.clone(),
        }
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        if let Some(turn) = self.turn.take() {
            turn.kill().await;
        }
        Ok(())
    }
}

/// The factory of a parsed `wasm` manifest from `file`, after inspecting
/// its component.
pub(super) fn factory(
    m: Manifest,
    file: &Path,
    catalog: Catalog,
) -> Result<Arc<dyn cohost_core::AdapterFactory>, PluginError> {
    Ok(Arc::new(WasmFactory::load(m, file, catalog)?))
}
