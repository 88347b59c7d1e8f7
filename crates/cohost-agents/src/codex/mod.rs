//! Codex CLI driver (provider id `codex`).
//!
//! Primary engine: `codex app-server`, JSON-RPC over stdio, one process per
//! session: token deltas, reasoning, blocking approvals, `turn/interrupt`,
//! resume by thread id. Fallback when the installed codex has no
//! `app-server`: `codex exec --json` per turn (whole messages, advisory
//! approvals, SIGINT). The engine is chosen from `codex --help`.

mod acp;
mod engine;
pub(crate) mod errors;
pub(crate) mod exec;
mod flags;
mod items;
mod mcp;
pub(crate) mod normalize;
pub(crate) mod wire;

use async_trait::async_trait;
use cohost_core::{
    AdapterConfig, AdapterFactory, AgentAdapter, AgentEventStream, ApprovalSupport, Capabilities,
    CohostError, ErrorCode, Health, InitInfo, InterruptStage, InterruptSupport, PromptRequest,
    ProviderDescriptor, StreamingGranularity, SupportTier, ToolDecision,
};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::catalog::{self, AuthSpec, CliEntry, HookKind, HookSpec, MakeFactory};
use crate::process::oneshot::{lock_state, OneShot, RunState};
use crate::process::{
    find_on_path, locate_checked, probe, EnvPolicy, ProcessSpec, Version, VersionRange,
    PROBE_TIMEOUT,
};
pub(crate) use acp::ACP_SPEC;
use cohost_process::sandbox::outer_sandbox;
use engine::AppServer;
use flags::FLAGS;
use normalize::CoreConfig;

/// Codex's credentials, shared with the `codex-acp` wrapper.
pub(crate) const CODEX_AUTH: AuthSpec = AuthSpec {
    env_vars: &["OPENAI_API_KEY", "CODEX_API_KEY"],
    credential_files: &[".codex/auth.json"],
    // "Not logged in" and exit 1 when logged out.
    status_args: Some(&["login", "status"]),
};

/// Codex CLI's provider spec (the app-server engine's descriptor).
pub(crate) const SPEC: CliEntry = CliEntry {
    id: "codex",
    label: "Codex CLI",
    mode: "app-server",
    binaries: &["codex"],
    pin_key: Some("CODEX_VERSION"),
    auth: CODEX_AUTH,
    login_args: Some(&["login"]),
    install_hint: "npm install -g @openai/codex",
    env_prefixes: &["CODEX_", "OPENAI_"],
    relevant_env: &["OPENAI_BASE_URL", "OPENAI_API_KEY", "CODEX_HOME"],
    flags: FLAGS,
    // `codex exec --json` has whole items, no text deltas.
    token_streaming: false,
    api_provider: Some("openai"),
    capabilities: Capabilities {
        // `turn/start` takes `localImage` input items.
        images: true,
        fork: true,
        // `thread/start` takes `developerInstructions`.
        system_prompt: true,
        // `-c mcp_servers.NAME={…}` before the subcommand (both engines).
        mcp_servers: true,
        // No `mcp_approvals`: 0.171.0 asks about an MCP tool call with an
        // `mcpServer/elicitation/request`, not a `requestApproval` the
        // driver routes to cohost; for cohost's own servers the driver says
        // yes and the room bridge asks the room's policy in its stead
        // (`normalize/approvals.rs`; `room_real.rs`,
        // `codex_asks_through_the_room_bridge_only_as_the_host_allows`).
        // `turn/steer {threadId, expectedTurnId, input}` (app-server schema
        // of 0.171.0, tests/agents/schemas/); not `exec`.
        steer: true,
        tier: SupportTier::Structured,
        ..Capabilities::CONTROL_PROTOCOL
    },
    // Tested with 0.171.0 (pinned in `tests/agents/versions.env`); the
    // app-server schema is versioned by method names, and the engine falls
    // back to `exec` when `app-server` is missing, so later 0.x releases are
    // accepted.
    accepted: Some(VersionRange {
        min: Version::new(0, 171, 0),
        max_exclusive: Version::new(1, 0, 0),
    }),
    factory: Some(MakeFactory::of::<CodexFactory>()),
    hooks: Some(HookSpec {
        kind: HookKind::TomlNotify,
        dir_env: Some("CODEX_HOME"),
        home_dir: ".codex",
        file: "config.toml",
    }),
    ..catalog::BASE
};

/// The descriptor for the app-server engine.
pub(crate) fn descriptor() -> ProviderDescriptor {
    SPEC.descriptor()
}

fn exec_descriptor() -> ProviderDescriptor {
    let mut d = descriptor();
    d.label = "Codex CLI (exec --json fallback)".into();
    d.capabilities.streaming = StreamingGranularity::WholeMessages;
    d.capabilities.approvals = ApprovalSupport::Advisory;
    d.capabilities.interrupt = InterruptSupport::Signal;
    d.capabilities.fork = false;
    // cohost's exec fallback passes no `--image` and no instructions.
    d.capabilities.images = false;
    d.capabilities.system_prompt = false;
    d.capabilities.steer = false;
    d
}

/// Makes [`CodexAdapter`]s.
#[derive(Debug, Default, Clone, Copy)]
pub struct CodexFactory;

impl AdapterFactory for CodexFactory {
    fn descriptor(&self) -> ProviderDescriptor {
        descriptor()
    }

    fn create(&self) -> Box<dyn AgentAdapter> {
        Box::new(CodexAdapter::new())
    }

    fn is_available(&self) -> bool {
        find_on_path(SPEC.command(), std::env::var_os("PATH").as_deref()).is_some()
    }
}

enum Engine {
    None,
    AppServer(AppServer),
    Exec {
        binary: PathBuf,
        state: Arc<Mutex<RunState>>,
        turn: Option<OneShot>,
    },
}

/// The codex adapter.
pub(crate) struct CodexAdapter {
    descriptor: ProviderDescriptor,
    config: AdapterConfig,
    engine: Engine,
    binary: Option<String>,
    version: Option<String>,
}

impl CodexAdapter {
    /// A fresh adapter.
    pub(crate) fn new() -> Self {
        CodexAdapter {
            descriptor: descriptor(),
            config: AdapterConfig::default(),
            engine: Engine::None,
            binary: None,
            version: None,
        }
    }

    fn env(&self) -> EnvPolicy {
        let mut env = EnvPolicy::with_prefixes(SPEC.env_prefixes.iter().copied());
        env.extend(&self.config.env);
        env
    }
}

impl Default for CodexAdapter {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether `codex --help` lists the app-server subcommand.
pub(crate) fn has_app_server(help: &str) -> bool {
    help.lines()
        .any(|l| l.split_whitespace().next() == Some("app-server"))
}

/// `codex app-server`'s arguments: global options before the subcommand,
/// cohost's MCP server overrides (`mcp`, from [`mcp::overrides`]) first and
/// the user's extra arguments last, so theirs win.
fn app_server_args(mcp: &[String], config: &AdapterConfig) -> Vec<OsString> {
    mcp.iter()
        .chain(&config.extra_args)
        .map(OsString::from)
        .chain(std::iter::once(OsString::from("app-server")))
        .collect()
}

#[async_trait]
impl AgentAdapter for CodexAdapter {
    fn descriptor(&self) -> &ProviderDescriptor {
        &self.descriptor
    }

    async fn initialize(&mut self, config: &AdapterConfig) -> Result<InitInfo, CohostError> {
        // Refused before anything starts; both engines then pass them on.
        let mcp = mcp::overrides(&config.mcp_servers)?;
        self.config = config.clone();
        let env = self.env();
        let (binary, version) = locate_checked(&SPEC, config.binary.as_deref(), &env).await?;
        self.version = version.map(|v| v.to_string());
        self.binary = Some(binary.display().to_string());
        let help = probe("codex", &binary, &["--help"], &env, PROBE_TIMEOUT).await?;
        if !has_app_server(&help.text) {
            if config.fork {
                return Err(CohostError::new(
                    ErrorCode::UnsupportedMode,
                    "this codex has no app-server, and `codex exec` cannot fork a thread",
                )
                .with_fix("update codex (see `cohost agents`), or resume the thread instead of forking it"));
            }
            self.descriptor = exec_descriptor();
            let state = Arc::new(Mutex::new(RunState {
                session_id: config.resume.clone(),
                resumable: config.resume.clone(),
                last_error: None,
            }));
            self.engine = Engine::Exec {
                binary,
                state,
                turn: None,
            };
            return Ok(InitInfo {
                version: self.version.clone(),
                session_id: config.resume.clone(),
            });
        }
        let mut spec = ProcessSpec::new("codex", binary, crate::catalog::catalog());
        spec.args = app_server_args(&mcp, config);
        spec.cwd = Some(config.cwd.clone()).filter(|c| !c.as_os_str().is_empty());
        spec.env = env;
        spec.for_session(config);
        let cfg = CoreConfig {
            cwd: config.cwd.display().to_string(),
            approval: config.approval,
            model: config.model.clone(),
            resume: config.resume.clone(),
            fork: config.fork,
            system_prompt: config.system_prompt.clone(),
            outer_sandbox: outer_sandbox(config),
            own_mcp_servers: config.mcp_servers.iter().map(|m| m.name.clone()).collect(),
        };
        let server = AppServer::start(spec, cfg).await?;
        let session_id = server.thread_id();
        self.engine = Engine::AppServer(server);
        Ok(InitInfo {
            version: self.version.clone(),
            session_id,
        })
    }

    async fn send_prompt(
        &mut self,
        prompt: PromptRequest,
    ) -> Result<AgentEventStream, CohostError> {
        let env = self.env();
        match &mut self.engine {
            Engine::AppServer(s) => {
                let images = prompt.images.iter().map(|i| i.path.clone()).collect();
                s.send_prompt(&prompt.text, images).await
            }
            Engine::Exec {
                binary,
                state,
                turn,
            } => {
                if !prompt.images.is_empty() {
                    return Err(CohostError::new(
                        ErrorCode::UnsupportedMode,
                        "this codex has no app-server, and cohost's `codex exec` fallback sends no images",
                    )
                    .with_fix("update codex (see `cohost agents`), or send the prompt without --image"));
                }
                if let Some(prev) = turn.take() {
                    prev.finish().await;
                }
                let thread = lock_state(state).resumable.clone();
                let mut spec = ProcessSpec::new("codex", binary.clone(), crate::catalog::catalog());
                spec.args = exec::exec_args(&prompt.text, &self.config, thread.as_deref());
                spec.cwd = Some(self.config.cwd.clone()).filter(|c| !c.as_os_str().is_empty());
                spec.env = env;
                spec.for_session(&self.config);
                lock_state(state).last_error = None;
                let (t, stream) = OneShot::spawn(spec, exec::ExecNormalizer::new(), state.clone())?;
                *turn = Some(t);
                Ok(stream)
            }
            Engine::None => Err(CohostError::new(
                ErrorCode::IllegalTransition,
                "the codex adapter is not initialized",
            )
            .with_fix("initialize the adapter first")),
        }
    }

    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        match &mut self.engine {
            Engine::AppServer(s) => s.interrupt(stage).await,
            Engine::Exec { turn: Some(t), .. } => t.interrupt(stage),
            _ => Ok(()),
        }
    }

    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError> {
        match &self.engine {
            Engine::AppServer(s) => s.decide(decision).await,
            _ => Err(CohostError::new(
                ErrorCode::UnsupportedMode,
                "codex exec cannot wait for approvals",
            )
            .with_fix("install a codex with `app-server` for blocking approvals")),
        }
    }

    async fn steer(&mut self, text: &str) -> Result<(), CohostError> {
        match &self.engine {
            Engine::AppServer(s) => s.steer(text).await,
            _ => Err(cohost_core::steer_unsupported(&self.descriptor.id)),
        }
    }

    async fn health(&mut self) -> Health {
        let (alive, last_error) = match &self.engine {
            Engine::AppServer(s) if s.alive() => (true, None),
            Engine::AppServer(s) => (false, Some(s.crash_report().await)),
            Engine::Exec { state, .. } => (true, lock_state(state).last_error.clone()),
            Engine::None => (false, None),
        };
        Health {
            alive,
            binary: self.binary.clone(),
            version: self.version.clone(),
            last_error,
        }
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        match std::mem::replace(&mut self.engine, Engine::None) {
            Engine::AppServer(mut s) => s.terminate().await,
            Engine::Exec { turn: Some(t), .. } => t.kill().await,
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp_servers::tests::server;

    fn strs(v: Vec<OsString>) -> Vec<String> {
        v.into_iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn app_server_takes_mcp_servers_as_global_overrides() {
        let mut cfg = AdapterConfig::default();
        let none = mcp::overrides(&cfg.mcp_servers).unwrap();
        assert_eq!(strs(app_server_args(&none, &cfg)), ["app-server"]);
        cfg.mcp_servers = vec![server("cohost_room", "/bin/room", &[], &[("K", "V")])];
        cfg.extra_args = vec!["--enable".into(), "x".into()];
        let one = mcp::overrides(&cfg.mcp_servers).unwrap();
        assert_eq!(
            strs(app_server_args(&one, &cfg)),
            [
                "-c",
                "mcp_servers.cohost_room={command = \"/bin/room\", args = [], env = {\"K\" = \"V\"}}",
                "--enable",
                "x",
                "app-server"
            ]
        );
        cfg.mcp_servers
            .push(server("notes", "notes-mcp", &["-v"], &[]));
        let two = mcp::overrides(&cfg.mcp_servers).unwrap();
        let a = strs(app_server_args(&two, &cfg));
        assert_eq!(a.len(), 7, "{a:?}");
        assert_eq!(
            a[3],
            "mcp_servers.notes={command = \"notes-mcp\", args = [\"-v\"], env = {}}"
        );
        assert_eq!(a.last().map(String::as_str), Some("app-server"));
    }

    #[test]
    fn both_engines_say_they_take_mcp_servers() {
        assert!(descriptor().capabilities.mcp_servers);
        assert!(exec_descriptor().capabilities.mcp_servers);
    }
}
