//! A generic adapter for CLIs that run one process per turn and print a
//! structured (or plain) stream on stdout: OpenCode `run`, Copilot `-p`,
//! Continue `cn -p`, Aider `--message`, and the fixture-only drivers.
//!
//! Each driver supplies a [`CliDriver`] (command line, environment, a pure
//! normalizer) and gets the whole port for free: binary discovery, version
//! check, per-turn spawn on the shared supervisor (through
//! [`super::OneShot`]), native-session bookkeeping, the signal ladder and
//! crash reports. Approvals are launch-time policy only, because
//! none of these modes can block on a host decision.

use async_trait::async_trait;
use cohost_core::{
    AdapterConfig, AgentAdapter, AgentEvent, AgentEventStream, CohostError, EndReason, ErrorCode,
    Health, InitInfo, InterruptStage, PromptRequest, ProviderDescriptor, ToolDecision,
};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::argv::{build, turn_query};
use super::turn::{lock_state, OneShot, RunState, TurnNormalizer};
use crate::provider::{Catalog, CliEntry, QueryArgs};
use crate::{
    classify_stderr, locate_checked, probe, EnvPolicy, ExitInfo, ProcessSpec, PROBE_TIMEOUT,
};

/// What a one-shot CLI driver must say about itself.
pub trait CliDriver: Send + Sync + 'static {
    /// The pure normalizer of one turn's stdout.
    type Normalizer: TurnNormalizer;
    /// The driver's provider spec: id, command (its first binary, also what
    /// the factory's `is_available` looks for), install hint, accepted
    /// versions (`None` skips the `--version` probe: fixture-only drivers,
    /// whose version output is undocumented), descriptor, flag table.
    const SPEC: &'static CliEntry;
    /// The static descriptor.
    fn descriptor(&self) -> ProviderDescriptor {
        Self::SPEC.descriptor()
    }
    /// Why approvals cannot be answered, and what to do instead.
    const APPROVAL_FIX: &'static str;
    /// Resume only a session one of whose turns completed (a CLI persists a
    /// session only after a full turn); otherwise any session id seen.
    const RESUME_COMPLETED_ONLY: bool = false;
    /// Whether [`CliDriver::check_help`] needs `--help`'s output.
    const PROBE_HELP: bool = false;
    /// Check what the installed binary's `--help` says (`Some` when
    /// [`CliDriver::PROBE_HELP`]) and adjust the descriptor to it.
    fn check_help(
        &self,
        _help: Option<&str>,
        _descriptor: &mut ProviderDescriptor,
    ) -> Result<(), CohostError> {
        Ok(())
    }
    /// The child's environment before `AdapterConfig.env` is applied: the
    /// spec's vendor prefixes, plus what [`CliDriver::fixed_env`] sets.
    fn env(&self) -> EnvPolicy {
        let mut env = EnvPolicy::with_prefixes(Self::SPEC.env_prefixes.iter().copied());
        for (k, v) in self.fixed_env() {
            env.set(*k, *v);
        }
        env
    }
    /// Non-secret variables the driver always sets (`NO_COLOR=1`).
    fn fixed_env(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// Ask the flag table for streaming output rather than one document.
    const STREAM: bool = false;
    /// The prompt goes right after the mode instead of last.
    const PROMPT_FIRST: bool = false;
    /// `--` before a trailing prompt (a prompt starting with `-` stays one).
    const END_OF_OPTIONS: bool = false;
    /// The CLI has no by-id resume: continue its latest session on every
    /// turn after the first, and when cohost resumes.
    const CONTINUE_LATEST: bool = false;
    /// The per-driver hook: change what this CLI needs in the turn's query
    /// (driver-only flags, an extra policy flag). Pure apart from file
    /// checks.
    fn adjust(&self, _q: &mut QueryArgs, _config: &AdapterConfig) {}
    /// The arguments of one turn, built through the spec's flag table;
    /// `follow_up` when an earlier turn ran in this session.
    fn turn_args(
        &self,
        prompt: &str,
        config: &AdapterConfig,
        session: Option<&SessionArg>,
        follow_up: bool,
    ) -> Vec<OsString> {
        let mut q = turn_query(prompt, config, session);
        q.stream = Self::STREAM;
        q.prompt_first = Self::PROMPT_FIRST;
        q.end_of_options = Self::END_OF_OPTIONS;
        if Self::CONTINUE_LATEST {
            q.resume = None;
            q.fresh_session = None;
            q.continue_latest = follow_up || config.resume.is_some();
        }
        self.adjust(&mut q, config);
        build(Self::SPEC, &q)
    }
    /// A fresh normalizer for one turn; `session` is the id the turn runs
    /// under when cohost chose or resumed it.
    fn normalizer(&self, config: &AdapterConfig, session: Option<&str>) -> Self::Normalizer;
    /// An id for a new session, for CLIs that let the caller choose it
    /// (so the id is known before the turn ends).
    fn fresh_session_id(&self) -> Option<String> {
        None
    }
    /// Variables that carry the approval policy (applied before
    /// `AdapterConfig.env`, so the user's explicit values win).
    fn policy_env(&self, _config: &AdapterConfig) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    /// SIGINTs the first ladder step sends (aider treats the first as
    /// "press ^C again to exit" and only stops at the second).
    fn cancel_sigints(&self) -> u32 {
        1
    }
}

/// The session a turn runs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionArg {
    /// Native id.
    pub id: String,
    /// `true`: a new session cohost named; `false`: resume an existing one.
    pub fresh: bool,
}

/// The port over a [`CliDriver`].
pub struct OneShotAdapter<D: CliDriver> {
    driver: D,
    /// The provider list, for the sandbox of each turn's process.
    catalog: Catalog,
    descriptor: ProviderDescriptor,
    config: AdapterConfig,
    binary: Option<PathBuf>,
    version: Option<String>,
    state: Arc<Mutex<RunState>>,
    turn: Option<OneShot>,
    /// Turns started in this session.
    turns: u64,
    terminated: bool,
}

impl<D: CliDriver> OneShotAdapter<D> {
    /// A fresh adapter.
    pub fn new(driver: D, catalog: Catalog) -> Self {
        OneShotAdapter {
            catalog,
            descriptor: driver.descriptor(),
            driver,
            config: AdapterConfig::default(),
            binary: None,
            version: None,
            state: Arc::default(),
            turn: None,
            turns: 0,
            terminated: false,
        }
    }

    fn env(&self) -> EnvPolicy {
        let mut env = self.driver.env();
        for (k, v) in self.driver.policy_env(&self.config) {
            env.set(k, v);
        }
        env.extend(&self.config.env);
        env
    }
}

#[async_trait]
impl<D: CliDriver> AgentAdapter for OneShotAdapter<D> {
    fn descriptor(&self) -> &ProviderDescriptor {
        &self.descriptor
    }

    async fn initialize(&mut self, config: &AdapterConfig) -> Result<InitInfo, CohostError> {
        self.config = config.clone();
        let env = self.env();
        if let Some(check) = D::SPEC.preflight {
            (check.0)(&|n| env.var(n), &config.cwd)?;
        }
        let (binary, version) = locate_checked(D::SPEC, config.binary.as_deref(), &env).await?;
        let help = match D::PROBE_HELP {
            true => Some(probe(D::SPEC.id, &binary, &["--help"], &env, PROBE_TIMEOUT).await?),
            false => None,
        };
        self.driver
            .check_help(help.as_ref().map(|h| h.text.as_str()), &mut self.descriptor)?;
        self.version = version.map(|v| v.to_string());
        self.binary = Some(binary);
        let mut st = lock_state(&self.state);
        st.session_id = config.resume.clone();
        st.resumable = config.resume.clone();
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
        let Some(binary) = self.binary.clone().filter(|_| !self.terminated) else {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                format!("the {} adapter is not initialized", self.descriptor.id),
            )
            .with_fix("initialize the adapter first"));
        };
        // The previous process must be gone so the next one reads a
        // complete session from disk.
        if let Some(prev) = self.turn.take() {
            prev.finish().await;
        }
        let mut text = prompt.text;
        for f in &prompt.context_files {
            // Every CLI here resolves `@path` mentions itself or at least
            // shows the model the path.
            text.push_str(&format!(" @{}", f.path.display()));
        }
        let known = {
            let st = lock_state(&self.state);
            match D::RESUME_COMPLETED_ONLY {
                true => st.resumable.clone(),
                false => st.session_id.clone(),
            }
        };
        let session = match known {
            Some(id) => Some(SessionArg { id, fresh: false }),
            None => self
                .driver
                .fresh_session_id()
                .map(|id| SessionArg { id, fresh: true }),
        };
        let mut spec = ProcessSpec::new(self.descriptor.id.clone(), binary, self.catalog);
        spec.args = self
            .driver
            .turn_args(&text, &self.config, session.as_ref(), self.turns > 0);
        self.turns += 1;
        spec.cwd = Some(self.config.cwd.clone()).filter(|c| !c.as_os_str().is_empty());
        spec.env = self.env();
        spec.for_session(&self.config);
        lock_state(&self.state).last_error = None;
        let norm = self
            .driver
            .normalizer(&self.config, session.as_ref().map(|s| s.id.as_str()));
        let (turn, stream) = OneShot::spawn(spec, norm, self.state.clone())?;
        self.turn = Some(turn);
        Ok(stream)
    }

    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        let Some(t) = &self.turn else {
            return Ok(());
        };
        t.interrupt(stage)?;
        if stage == InterruptStage::Cancel {
            for _ in 1..self.driver.cancel_sigints() {
                tokio::time::sleep(Duration::from_millis(150)).await;
                t.interrupt(stage)?;
            }
        }
        Ok(())
    }

    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError> {
        Err(CohostError::new(
            ErrorCode::UnsupportedMode,
            format!(
                "{} cannot wait for an approval in this mode (tool call `{}`)",
                self.descriptor.id, decision.tool_id
            ),
        )
        .with_fix(D::APPROVAL_FIX))
    }

    async fn health(&mut self) -> Health {
        Health {
            alive: !self.terminated && self.binary.is_some(),
            binary: self.binary.as_ref().map(|b| b.display().to_string()),
            version: self.version.clone(),
            last_error: lock_state(&self.state).last_error.clone(),
        }
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        self.terminated = true;
        if let Some(t) = self.turn.take() {
            t.kill().await;
        }
        Ok(())
    }
}

/// The closing events for a process that exited without the driver's
/// closing event: interrupted → `Ended(Interrupted)`; a non-zero exit whose
/// stderr names a known cause → an error turn; anything else → `None`
/// (a crash: the stream closes without `Ended`, `health()` has the tail).
pub fn exit_events(
    provider: &str,
    login_fix: Option<String>,
    exit: Option<ExitInfo>,
    stderr: &str,
    interrupted: bool,
    fix_for: fn(ErrorCode) -> &'static str,
) -> Option<Vec<AgentEvent>> {
    if interrupted {
        return Some(vec![AgentEvent::Ended {
            reason: EndReason::Interrupted,
            usage: None,
        }]);
    }
    let code = exit.and_then(|e| e.code)?;
    let class = classify_stderr(stderr)?;
    let last = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    // Signed out: say how to sign in to this very tool.
    let fix = match login_fix {
        Some(login) if class == ErrorCode::AuthRequired => login,
        _ => fix_for(class).to_string(),
    };
    Some(error_end(
        CohostError::new(
            class,
            format!("{provider} exited with code {code}: {}", last.trim()),
        )
        .with_fix(fix),
    ))
}

/// An error followed by `Ended(Error)`.
pub fn error_end(err: CohostError) -> Vec<AgentEvent> {
    vec![
        AgentEvent::Error(err),
        AgentEvent::Ended {
            reason: EndReason::Error,
            usage: None,
        },
    ]
}

/// A generic fix per error class for CLIs pointed at an OpenAI-style API.
pub fn generic_fix(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::AuthRequired => "check the API key the agent uses (its own env or config)",
        ErrorCode::AuthBlockedByPolicy => "ask your administrator, or use another account",
        ErrorCode::RateLimited => "wait and retry",
        ErrorCode::ContextWindowExceeded => "start a new session or shorten the prompt",
        ErrorCode::ModelNotAvailable => "pick a model the provider serves (`--model`)",
        _ => "check the agent's base URL / network access and retry",
    }
}

/// A random RFC 4122 version-4 UUID, for CLIs that take a caller-chosen
/// session id. Reads the kernel's CSPRNG; falls back to clock and pid
/// (unique enough for a session name, which is not a secret).
pub fn random_uuid() -> String {
    use std::io::Read;
    let mut b = [0u8; 16];
    let filled = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .is_ok();
    if !filled {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let mixed = nanos ^ (u128::from(std::process::id()) << 64);
        b = mixed.to_le_bytes();
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}
