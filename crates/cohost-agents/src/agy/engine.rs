//! The IO shell: agy's command line and environment, one process spawned
//! through the shared supervisor, its stdout fed to [`AgyCore`] by the
//! shared session actor ([`crate::session`]), and the core's effects
//! recorded where the adapter reads them.

use cohost_core::{AdapterConfig, ApprovalMode, CohostError, ErrorCode, ToolDecision};
use std::ffi::OsString;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::normalize::{AgyCore, Effect, Output};
use super::SPEC;
use crate::process::{lock, EnvPolicy, Frame, ProcessSpec, StdinWriter, Supervised};
use crate::session::{Effects, Session, SessionCore};

/// How long agy may take to go after stdin closed and SIGTERM, before its
/// group is killed.
const STOP_GRACE: Duration = Duration::from_millis(500);

/// The command line (after the binary) of one long-lived process, resuming
/// `conversation` when there is one. The working tree is also passed as
/// `--add-dir`: without it agy works in its own scratch directory (the
/// sources that drive it all pass it).
pub(crate) fn session_args(config: &AdapterConfig, conversation: Option<&str>) -> Vec<OsString> {
    let flags = SPEC.flags;
    let mut args: Vec<OsString> = flags
        .stream_session_args()
        .into_iter()
        .map(OsString::from)
        .collect();
    if !config.cwd.as_os_str().is_empty() {
        args.push("--add-dir".into());
        args.push(config.cwd.clone().into_os_string());
    }
    let mut more = Vec::new();
    if let Some(m) = &config.model {
        more.extend(flags.model_args(m));
    }
    // agy headless cannot ask anyone: its own permission checks fail the
    // tool instead. Only the user's explicit auto-approve lifts them.
    if config.approval == ApprovalMode::AutoApprove {
        more.extend(flags.bypass_args());
    }
    if let Some(id) = conversation {
        more.extend(flags.resume_args(id));
    }
    more.extend(config.extra_args.iter().cloned());
    args.extend(more.into_iter().map(OsString::from));
    args
}

/// The child's environment: agy's own prefixes, then the user's variables
/// (which win).
pub(crate) fn env_policy(config: &AdapterConfig) -> EnvPolicy {
    let mut env = EnvPolicy::with_prefixes(SPEC.env_prefixes.iter().copied());
    env.extend(config.env.iter());
    env
}

/// What the core's effects leave for the adapter: the one piece of state
/// both sides see, written only by the session actor.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    /// The conversation bound so far (outlives a process).
    pub conversation: Option<String>,
    /// The core stopped a turn and the process must go.
    pub stop: bool,
}

impl SessionCore for AgyCore {
    type Ready = ();
    type Effect = Effect;
    type Turn = String;

    fn start(&mut self, _out: &mut Vec<Output>) {
        // agy waits for the first turn before it says anything.
    }

    fn on_frame(&mut self, frame: Frame, out: &mut Vec<Output>) {
        match frame {
            Frame::Line(l) => self.on_line(&l, out),
            Frame::Oversized { bytes } => self.on_oversized(bytes, out),
        }
    }

    fn begin_turn(&mut self, text: String, out: &mut Vec<Output>) -> Result<(), CohostError> {
        AgyCore::begin_turn(self, &text, out)
    }

    fn decide(
        &mut self,
        decision: &ToolDecision,
        _out: &mut Vec<Output>,
    ) -> Result<(), CohostError> {
        Err(super::approval_unsupported(&decision.tool_id))
    }

    fn interrupt(&mut self, out: &mut Vec<Output>) {
        AgyCore::interrupt(self, out);
    }
}

/// Records the core's effects in [`Shared`].
struct Recorder(Arc<Mutex<Shared>>);

impl Effects<Effect> for Recorder {
    async fn perform(&mut self, effect: Effect) -> Option<String> {
        let mut shared = lock(&self.0);
        match effect {
            Effect::Bound(id) => shared.conversation = Some(id),
            Effect::Stop => shared.stop = true,
        }
        None
    }
}

/// One running agy process and the actor that owns its core.
pub(crate) struct Engine {
    pub session: Session<AgyCore>,
    pub child: Supervised,
    stdin: StdinWriter,
}

impl Engine {
    /// Spawn `binary` for `conversation` (`None`: a new one).
    pub(crate) fn spawn(
        binary: &Path,
        config: &AdapterConfig,
        conversation: Option<String>,
        shared: Arc<Mutex<Shared>>,
    ) -> Result<Engine, CohostError> {
        let mut spec = ProcessSpec::new(SPEC.id, binary, crate::catalog::catalog())
            .args(session_args(config, conversation.as_deref()));
        spec.env = env_policy(config);
        spec.for_session(config);
        if !config.cwd.as_os_str().is_empty() {
            spec.cwd = Some(config.cwd.clone());
        }
        let mut child = Supervised::spawn(spec)?;
        let frames = child.take_stdout().ok_or_else(|| {
            CohostError::new(ErrorCode::SpawnFailed, "agy's stdout was not captured")
        })?;
        let stdin = child.stdin();
        let core = AgyCore::new(conversation);
        // No handshake: the outcome receiver is not needed.
        let (session, _ready) =
            Session::spawn(SPEC.id, core, frames, stdin.clone(), Recorder(shared));
        Ok(Engine {
            session,
            child,
            stdin,
        })
    }

    /// Whether the process can take a turn.
    pub(crate) fn alive(&self) -> bool {
        self.child.is_alive() && !self.session.stdout_closed()
    }

    /// End the process: stdin EOF, SIGTERM to its whole group and, if
    /// anything is left after a grace, SIGKILL.
    pub(crate) async fn stop(mut self) {
        self.stdin.close().await;
        self.child.terminate(STOP_GRACE).await;
    }
}
