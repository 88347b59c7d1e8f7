//! The IO shell: find and check the binary, spawn it through the shared
//! supervisor, pump stdout through the [`Normalizer`], route events to the
//! running turn, write what the normalizer asks to stdin.

use cohost_core::{AdapterConfig, ApprovalMode, CohostError, ErrorCode, ToolDecision};
use std::convert::Infallible;
use std::path::PathBuf;
use std::time::Duration;

use super::dialect::Dialect;
use super::normalize::{Normalizer, NormalizerConfig, Output};
use crate::process::{
    locate_checked, probe, EnvPolicy, Frame, ProcessSpec, StdinWriter, Supervised, PROBE_TIMEOUT,
};
use crate::session::{NoEffects, Session, SessionCore};
use tokio::sync::oneshot;

/// How long the CLI may take to answer `initialize`.
const INIT_TIMEOUT: Duration = Duration::from_secs(60);

/// The stream-json normalizer as the session actor's core.
pub(crate) struct ClaudeCore {
    pub(super) normalizer: Normalizer,
    pub(super) id: &'static str,
}

impl SessionCore for ClaudeCore {
    type Ready = Option<String>;
    type Effect = Infallible;
    type Turn = serde_json::Value;

    fn start(&mut self, out: &mut Vec<Output>) {
        out.push(Output::Write(self.normalizer.initialize()));
    }

    fn on_frame(&mut self, frame: Frame, out: &mut Vec<Output>) {
        match frame {
            Frame::Line(l) => self.normalizer.on_line(&l, out),
            Frame::Oversized { bytes } => self.normalizer.on_oversized(bytes, out),
        }
    }

    fn begin_turn(
        &mut self,
        content: serde_json::Value,
        out: &mut Vec<Output>,
    ) -> Result<(), CohostError> {
        if self.normalizer.in_turn() {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                format!("agent `{}` is already running a turn", self.id),
            )
            .with_fix("wait for the turn to end or interrupt it"));
        }
        out.push(Output::Write(self.normalizer.begin_turn_content(content)));
        Ok(())
    }

    fn decide(
        &mut self,
        decision: &ToolDecision,
        out: &mut Vec<Output>,
    ) -> Result<(), CohostError> {
        out.push(Output::Write(self.normalizer.decide(decision)?));
        Ok(())
    }

    fn interrupt(&mut self, out: &mut Vec<Output>) {
        out.push(Output::Write(self.normalizer.interrupt()));
    }

    fn steer(&mut self, text: &str, out: &mut Vec<Output>) -> Result<u64, CohostError> {
        let (line, ticket) = self.normalizer.steer(text, &message_uuid())?;
        out.push(Output::Write(line));
        Ok(ticket)
    }
}

/// A fresh random UUID (version 4 layout) for a steered message. Random,
/// not counted: the CLI stores message uuids in the session's transcript,
/// and a resumed session must never see one again.
fn message_uuid() -> String {
    let t = || cohost_core::ids::random_tag();
    let (a, b, c, d) = (t(), t(), t(), t());
    // Each tag is eight hex digits.
    format!("{a}-{}-4{}-8{}-{}{d}", &b[..4], &b[4..7], &c[..3], &c[3..7])
}

/// A running CLI session.
pub(crate) struct Engine {
    pub session: Session<ClaudeCore>,
    pub child: Supervised,
    pub stdin: StdinWriter,
    pub binary: PathBuf,
    pub version: String,
    pub session_id: Option<String>,
    /// The answer to `initialize`, until it has been awaited.
    handshake: Option<oneshot::Receiver<Result<Option<String>, CohostError>>>,
}

/// The environment policy for a session: vendor prefixes, driver variables,
/// then the user's `AdapterConfig.env` (which wins).
pub(crate) fn env_policy(dialect: &Dialect, config: &AdapterConfig) -> EnvPolicy {
    let mut env = EnvPolicy::with_prefixes(dialect.spec.env_prefixes.iter().copied());
    let root = crate::process::running_as_root();
    for (k, v) in dialect.driver_env(config, root) {
        env.set(k, v);
    }
    env.extend(config.env.iter());
    env
}

/// Locate, version-check and capability-check the CLI.
pub(crate) async fn check_binary(
    dialect: &Dialect,
    config: &AdapterConfig,
    env: &EnvPolicy,
) -> Result<(PathBuf, String), CohostError> {
    let (binary, version) = locate_checked(dialect.spec, config.binary.as_deref(), env).await?;
    let version = version.map(|v| v.to_string()).unwrap_or_default();
    let help = probe(dialect.id, &binary, &["--help"], env, PROBE_TIMEOUT).await?;
    let missing: Vec<&str> = dialect
        .required_help
        .iter()
        .copied()
        .filter(|f| !help.text.contains(f))
        .collect();
    if !missing.is_empty() {
        return Err(CohostError::new(
            ErrorCode::VersionUnsupported,
            format!(
                "agent `{}` {version} lacks what cohost needs: {}",
                dialect.id,
                missing.join(", ")
            ),
        )
        .with_fix(format!(
            "install a version in {} ({})",
            dialect
                .spec
                .accepted
                .map(|r| r.to_string())
                .unwrap_or_default(),
            dialect.spec.install_fix()
        )));
    }
    Ok((binary, version))
}

impl Engine {
    /// Spawn the CLI and send `initialize`; wait for its answer unless
    /// `config.defer_handshake` (then [`Engine::finish_handshake`] does).
    pub(crate) async fn start(
        dialect: &Dialect,
        config: &AdapterConfig,
    ) -> Result<Engine, CohostError> {
        crate::mcp_servers::check(dialect.id, &config.mcp_servers)?;
        let env = env_policy(dialect, config);
        let (binary, version) = check_binary(dialect, config, &env).await?;
        let mut spec = ProcessSpec::new(dialect.id, &binary, crate::catalog::catalog())
            .args(dialect.args(config));
        spec.env = env;
        spec.for_session(config);
        if !config.cwd.as_os_str().is_empty() {
            spec.cwd = Some(config.cwd.clone());
        }
        let mut child = Supervised::spawn(spec)?;
        let frames = child.take_stdout().ok_or_else(|| {
            CohostError::new(ErrorCode::SpawnFailed, "agent stdout was not captured")
        })?;
        let normalizer = Normalizer::new(NormalizerConfig {
            dialect: dialect.clone(),
            deny_all: config.approval == ApprovalMode::DenyAll,
            no_approvals: config.approval == ApprovalMode::AutoApprove,
        });
        let core = ClaudeCore {
            normalizer,
            id: dialect.id,
        };
        let stdin = child.stdin();
        let (session, init_rx) = Session::spawn(dialect.id, core, frames, stdin.clone(), NoEffects);
        let mut engine = Engine {
            session,
            child,
            stdin,
            binary,
            version,
            session_id: config.resume.clone(),
            handshake: Some(init_rx),
        };
        if !config.defer_handshake {
            engine.finish_handshake(dialect.id).await?;
        }
        Ok(engine)
    }

    /// Wait for the answer to `initialize` if it is still outstanding (a
    /// deferred handshake waits here, after the first prompt went out).
    pub(crate) async fn finish_handshake(&mut self, id: &str) -> Result<(), CohostError> {
        let Some(init_rx) = self.handshake.take() else {
            return Ok(());
        };
        match tokio::time::timeout(INIT_TIMEOUT, init_rx).await {
            Ok(Ok(Ok(session_id))) => {
                if session_id.is_some() {
                    self.session_id = session_id;
                }
                Ok(())
            }
            Ok(Ok(Err(e))) => Err(e),
            Ok(Err(_)) => {
                self.child.settle(Duration::from_secs(2)).await;
                Err(CohostError::new(
                    ErrorCode::SpawnFailed,
                    format!(
                        "{} before answering `initialize`",
                        self.child.crash_report()
                    ),
                )
                .with_fix(format!(
                    "run `{} --version` yourself to see the problem",
                    self.binary.display()
                )))
            }
            Err(_) => Err(CohostError::new(
                ErrorCode::Timeout,
                format!(
                    "agent `{id}` did not answer `initialize` within {} s",
                    INIT_TIMEOUT.as_secs()
                ),
            )
            .with_fix("check that the agent starts on its own (login prompts, updates)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::message_uuid;

    #[test]
    fn steered_messages_get_fresh_uuid_shaped_ids() {
        let (a, b) = (message_uuid(), message_uuid());
        assert_ne!(a, b);
        let groups: Vec<usize> = a.split('-').map(str::len).collect();
        assert_eq!(groups, [8, 4, 4, 4, 12], "{a}");
        assert!(a.chars().all(|c| c == '-' || c.is_ascii_hexdigit()), "{a}");
        assert_eq!(&a[14..15], "4", "version 4 layout: {a}");
    }
}
