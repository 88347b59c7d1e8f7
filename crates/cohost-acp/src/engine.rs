//! The IO shell: locate the agent, spawn it through the shared supervisor,
//! hand stdout to the session actor, whose core is the [`AcpClient`] and
//! whose effects are the confined file requests.

use agent_client_protocol_schema::v1::ContentBlock;
use cohost_core::{AdapterConfig, ApprovalMode, CohostError, ErrorCode, ToolDecision};
use std::path::PathBuf;
use std::time::Duration;

use super::fs::FsRoot;
use super::normalize::{AcpClient, ClientConfig, FsRequest, Opened, Output};
use super::providers;
use cohost_process::provider::acp::AcpSpec;
use cohost_process::provider::Catalog;
use cohost_process::session::{Effects, Session, SessionCore};
use cohost_process::{
    classify_stderr, locate_binary, EnvPolicy, Frame, ProcessSpec, StdinWriter, Supervised,
};

/// How long the handshake (initialize + session/new or load) may take; a
/// cold node agent on a busy machine needs many seconds.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(90);

/// The ACP client as the session actor's core.
pub(crate) struct AcpCore(AcpClient);

impl SessionCore for AcpCore {
    type Ready = Opened;
    type Effect = FsRequest;
    type Turn = Vec<ContentBlock>;

    fn start(&mut self, out: &mut Vec<Output>) {
        out.push(Output::Write(self.0.initialize()));
    }

    fn on_frame(&mut self, frame: Frame, out: &mut Vec<Output>) {
        match frame {
            Frame::Line(l) => self.0.on_line(&l, out),
            Frame::Oversized { bytes } => self.0.on_oversized(bytes, out),
        }
    }

    fn begin_turn(
        &mut self,
        blocks: Vec<ContentBlock>,
        out: &mut Vec<Output>,
    ) -> Result<(), CohostError> {
        self.0.begin_turn(blocks, out)
    }

    fn decide(
        &mut self,
        decision: &ToolDecision,
        out: &mut Vec<Output>,
    ) -> Result<(), CohostError> {
        out.push(Output::Write(self.0.decide(decision)?));
        Ok(())
    }

    fn interrupt(&mut self, out: &mut Vec<Output>) {
        self.0.cancel(out);
    }
}

/// File requests are confined to the session's directory.
impl Effects<FsRequest> for FsRoot {
    async fn perform(&mut self, request: FsRequest) -> Option<String> {
        Some(self.answer(&request.id, request.op).await)
    }
}

/// A running ACP agent with an open session.
pub(crate) struct Engine {
    pub session: Session<AcpCore>,
    pub child: Supervised,
    pub stdin: StdinWriter,
    pub binary: PathBuf,
    pub cwd: PathBuf,
    pub opened: Opened,
}

/// Vendor prefixes, driver variables, then the user's `AdapterConfig.env`.
pub(crate) fn env_policy(spec: &AcpSpec, config: &AdapterConfig) -> EnvPolicy {
    let mut env = EnvPolicy::with_prefixes(spec.env_prefixes.iter().cloned());
    for (k, v) in &spec.env {
        env.set(k, v);
    }
    if cohost_process::running_as_root() {
        for (k, v) in &spec.root_env {
            env.set(k, v);
        }
    }
    if let (Some(var), Some(model)) = (&spec.model_env, &config.model) {
        env.set(var, model);
    }
    if config.approval != ApprovalMode::AutoApprove {
        for (k, v) in &spec.ask_env {
            if !config.env.contains_key(k) && std::env::var_os(k).is_none() {
                env.set(k, v);
            }
        }
    }
    env.extend(config.env.iter());
    env
}

/// The command line: ACP args, approval-policy args, model args, then the
/// user's extra args (last, so they win).
pub(crate) fn args(spec: &AcpSpec, config: &AdapterConfig, sandbox_bwrap: bool) -> Vec<String> {
    let mut args = spec.args.clone();
    args.extend(providers::policy_args(
        &spec.id,
        config.approval,
        sandbox_bwrap,
    ));
    if let Some(model) = &config.model {
        args.extend(spec.model_args.iter().map(|a| a.replace("{model}", model)));
    }
    args.extend(config.extra_args.iter().cloned());
    args
}

fn missing_env(spec: &AcpSpec, env: &EnvPolicy) -> Option<String> {
    spec.required_env
        .iter()
        .find(|name| {
            env.explicit.get(*name).is_none_or(String::is_empty)
                && std::env::var(name).map_or(true, |v| v.is_empty() || !env.allows(name.as_ref()))
        })
        .cloned()
}

impl Engine {
    /// Spawn the agent and open a session.
    pub(crate) async fn start(
        spec: &AcpSpec,
        config: &AdapterConfig,
        catalog: Catalog,
    ) -> Result<Engine, CohostError> {
        crate::mcp_servers::check(&spec.id, &config.mcp_servers)?;
        let env = env_policy(spec, config);
        if let Some(name) = missing_env(spec, &env) {
            return Err(CohostError::new(
                ErrorCode::AuthRequired,
                format!("agent `{}` needs {name}, which is not set", spec.id),
            )
            .with_fix(format!("export {name}=... and retry")));
        }
        let path = env.effective_path();
        let binary = locate(spec, config, path.as_deref())?;
        let cwd = if config.cwd.as_os_str().is_empty() {
            std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))
        } else {
            config.cwd.clone()
        };
        let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
        // Under cohost's OS sandbox bwrap cannot run (it mounts, which
        // Landlock forbids), so an agent that would use it must not.
        let bwrap = providers::bwrap_available(&binary, path.as_deref())
            && !cohost_process::sandbox::outer_sandbox(config);
        let mut pspec =
            ProcessSpec::new(spec.id.clone(), &binary, catalog).args(args(spec, config, bwrap));
        pspec.env = env;
        pspec.cwd = Some(cwd.clone());
        pspec.for_session(config);
        let mut child = Supervised::spawn(pspec)?;
        let frames = child.take_stdout().ok_or_else(|| {
            CohostError::new(ErrorCode::SpawnFailed, "agent stdout was not captured")
        })?;
        let client = AcpClient::new(ClientConfig {
            provider_id: spec.id.clone(),
            cwd: cwd.display().to_string(),
            approval: config.approval,
            resume: config.resume.clone(),
            fork: config.fork && config.resume.is_some(),
            model: config.model.clone(),
            text_errors: spec.text_errors,
            mode: spec
                .approval_modes
                .as_ref()
                .map(|m| m.for_approval(config.approval).to_string()),
            mcp_servers: super::mcp::absolute_commands(&config.mcp_servers, &cwd, path.as_deref()),
            login_fix: catalog.login_fix(&spec.id),
        });
        let stdin = child.stdin();
        let root = FsRoot::new(&cwd);
        let (session, open_rx) =
            Session::spawn(&spec.id, AcpCore(client), frames, stdin.clone(), root);
        match tokio::time::timeout(HANDSHAKE_TIMEOUT, open_rx).await {
            Ok(Ok(Ok(opened))) => Ok(Engine {
                session,
                child,
                stdin,
                binary,
                cwd,
                opened,
            }),
            Ok(Ok(Err(e))) => {
                child.terminate(Duration::from_millis(300)).await;
                Err(e)
            }
            Ok(Err(_)) => {
                child.settle(Duration::from_secs(2)).await;
                let report = child.crash_report();
                let code =
                    classify_stderr(&child.stderr_tail(20)).unwrap_or(ErrorCode::SpawnFailed);
                Err(
                    CohostError::new(code, format!("{report} before opening an ACP session"))
                        .with_fix(format!(
                            "run `{} {}` yourself to see the problem",
                            binary.display(),
                            spec.args.join(" ")
                        )),
                )
            }
            Err(_) => {
                child.kill().await;
                Err(CohostError::new(
                    ErrorCode::Timeout,
                    format!(
                        "agent `{}` did not open an ACP session within {} s",
                        spec.id,
                        HANDSHAKE_TIMEOUT.as_secs()
                    ),
                )
                .with_fix("check that the agent starts on its own (login prompts, updates)"))
            }
        }
    }
}

fn locate(
    spec: &AcpSpec,
    config: &AdapterConfig,
    path: Option<&std::ffi::OsStr>,
) -> Result<PathBuf, CohostError> {
    let mut first_err = None;
    for name in &spec.binaries {
        match locate_binary(
            &spec.id,
            name,
            config.binary.as_deref(),
            path,
            &spec.install_hint,
        ) {
            Ok(p) => return Ok(p),
            Err(e) => {
                first_err.get_or_insert(CohostError::from(e));
            }
        }
        if config.binary.is_some() {
            break;
        }
    }
    Err(first_err.unwrap_or_else(|| {
        CohostError::new(
            ErrorCode::ProviderNotFound,
            format!("agent `{}` names no binary", spec.id),
        )
        .with_fix(spec.install_hint.clone())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_env_carries_the_model_and_the_user_env_wins() {
        let mut spec = providers::spec(
            "t",
            "t",
            &cohost_process::provider::BASE,
            &[],
            &[],
            &[],
            cohost_core::ResumeSupport::NativeId,
        );
        spec.model_env = Some("T_MODEL".into());
        let mut config = AdapterConfig::default();
        assert_eq!(env_policy(&spec, &config).explicit.get("T_MODEL"), None);
        config.model = Some("m1".into());
        let env = env_policy(&spec, &config);
        assert_eq!(env.explicit.get("T_MODEL").map(String::as_str), Some("m1"));
        assert!(args(&spec, &config, false).is_empty(), "no model arguments");
        config.env.insert("T_MODEL".into(), "mine".into());
        let env = env_policy(&spec, &config);
        assert_eq!(
            env.explicit.get("T_MODEL").map(String::as_str),
            Some("mine")
        );
    }
}
