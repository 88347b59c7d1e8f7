//! The one session-setup service.
//!
//! `cohost run`, `cohost share`, `POST /api/sessions` of `cohost serve` and
//! the smoke test open their sessions here, and so do the coming terminal UI,
//! MCP and ACP front ends: the provider (by id, by capability slot, or the
//! first ready agent, else the mock), resuming a stored or native session, the working
//! directory, the approval policy and who answers approvals, the tools policy
//! (agent CLIs bring their own tools and refuse offered ones), context files
//! (a provider that takes none gets `@path` mentions) and the session record
//! are decided once, in [`prepare`]. Every front end then runs the resulting
//! [`OpenSession`] as a [`cohost_session::RunningSession`]
//! ([`OpenSession::launch`]): commands in, the same engine events out.

pub mod attach;
mod bridge;
mod checkpoints;
mod cwd;
mod default_agent;
mod no_credentials;
mod open;
mod pass_env;
mod room;
mod sandbox;
mod setup_error;

pub use bridge::{BridgeSocketError, BridgeSockets, BRIDGE_SOCKET_VAR};
pub use cwd::{client_working_dir, working_dir, CwdError};
pub use default_agent::DEFAULT_PREFERENCE;
pub use open::OpenSession;
pub use room::{
    prepare_member, prepare_room, remove_unchanged_worktree, tidy_worktrees, worktrees_possible,
    PreparedRoom,
};
pub use setup_error::SetupError;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cohost_core::{
    AdapterConfig, AdapterFactory, ApprovalMode, CohostError, DecisionSource, HostSession, Policy,
    ProviderDescriptor, ProviderKind, SessionOptions, SupportTier, ToolSpec,
};

use crate::store::{SessionRecord, SessionStore, WorktreeRecord};
use cohost_discovery::config::HostConfig;
use cohost_discovery::host::Host;
use cohost_discovery::slots;
use cohost_session::PendingApprovals;

/// Which provider runs the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderChoice {
    /// The first ready agent of [`DEFAULT_PREFERENCE`], else the mock
    /// ([`OpenSession::fell_back`] and [`OpenSession::default_note`] say so).
    Default,
    /// A registered provider id.
    Id(String),
    /// A capability slot's provider, mode and model (`[slots.NAME]`).
    Slot(String),
}

/// The approval mode the agent runs in and who answers its requests.
#[derive(Clone)]
pub struct Approvals {
    mode: ApprovalMode,
    source: Arc<dyn DecisionSource>,
    /// Requests that wait for [`cohost_session::RunningSession::decide`].
    handle: Option<PendingApprovals>,
}

impl Approvals {
    /// The command-line policy: `AutoApprove` and `DenyAll` answer every
    /// request themselves, `Ask` hands requests to `ask`.
    pub fn policy(mode: ApprovalMode, ask: Arc<dyn DecisionSource>) -> Approvals {
        let source: Arc<dyn DecisionSource> = match mode {
            ApprovalMode::AutoApprove => Arc::new(Policy::AllowAll),
            ApprovalMode::DenyAll => Arc::new(Policy::DenyAll),
            ApprovalMode::Ask => ask,
        };
        Approvals {
            mode,
            source,
            handle: None,
        }
    }

    /// Every request goes to `source`, whatever the mode.
    pub fn answered_by(mode: ApprovalMode, source: Arc<dyn DecisionSource>) -> Approvals {
        Approvals {
            mode,
            source,
            handle: None,
        }
    }

    /// The policy of `mode`, and under `Ask` each request waits for an
    /// answer through the running session's handle
    /// ([`cohost_session::RunningSession::decide`]); `abandoned` is the
    /// reason the agent is given for a request the session ends on.
    pub fn through_handle(mode: ApprovalMode, abandoned: &'static str) -> Approvals {
        let pending = PendingApprovals::new(abandoned);
        Approvals {
            handle: Some(pending.clone()),
            ..Approvals::policy(mode, Arc::new(pending))
        }
    }

    /// Every request, whatever the mode, waits for an answer through the
    /// running session's handle (the settings API, MCP and ACP answer for
    /// their clients in every mode).
    pub fn all_through_handle(mode: ApprovalMode, abandoned: &'static str) -> Approvals {
        let pending = PendingApprovals::new(abandoned);
        Approvals {
            handle: Some(pending.clone()),
            ..Approvals::answered_by(mode, Arc::new(pending))
        }
    }

    /// Deny every tool call (smoke tests).
    pub fn deny_all() -> Approvals {
        Approvals::policy(ApprovalMode::DenyAll, Arc::new(Policy::DenyAll))
    }
}

/// Tools offered to an API provider's model.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Tools {
    /// None (the default, and the only choice for agent CLIs).
    #[default]
    None,
    /// A tools file (`cohost run --tools FILE`).
    File(PathBuf),
    /// Tools given as JSON; `origin` names them in errors.
    Json {
        /// Where they came from, e.g. "request body `tools`".
        origin: String,
        /// The JSON array.
        value: serde_json::Value,
    },
}

/// Whether and under which id the session is kept in the session store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Recording {
    /// Not recorded (shared sessions, smoke tests).
    #[default]
    Off,
    /// Recorded under a fresh `s-…` id (or the resumed record's id).
    New,
    /// Recorded under this id.
    WithId(String),
}

/// Everything a front end asks for when it opens a session.
#[derive(Clone)]
pub struct SessionRequest {
    /// The provider.
    pub provider: ProviderChoice,
    /// Model; beats the slot's, the resumed record's and the config's.
    pub model: Option<String>,
    /// Working directory; default: the resumed record's, else the current one.
    pub cwd: Option<PathBuf>,
    /// A stored cohost session id to resume, or else an agent's native id
    /// (which needs a named provider).
    pub resume: Option<String>,
    /// Resume the most recent stored session of this working directory (and
    /// of the named provider, when there is one); `resume` is then unused.
    pub continue_last: bool,
    /// Open the resumed session as a new branch (a new cohost record and a
    /// new agent session); the original is left as it was.
    pub fork: bool,
    /// Approval mode and who answers.
    pub approvals: Approvals,
    /// Tools for an API provider's model.
    pub tools: Tools,
    /// Apply `[providers.ID]` from `config.toml` (binary, env, default model).
    /// The settings API and the smoke test do; `run` and `share` take them
    /// only through `--slot`.
    pub provider_settings: bool,
    /// An explicit binary (the smoke test passes the one discovery found).
    pub binary: Option<PathBuf>,
    /// Engine tunables. Their `sanitizer` is the host's whatever is set
    /// here: [`prepare`] gives every session the one its host was given.
    pub options: SessionOptions,
    /// The session record.
    pub recording: Recording,
    /// Let the first prompt overtake the agent's start-up handshake
    /// ([`AdapterConfig::defer_handshake`]): for one-shot front ends that
    /// prompt right after opening the session.
    pub defer_handshake: bool,
    /// Text appended to the agent's system prompt (`--system-prompt`);
    /// refused for providers whose capabilities do not say `system_prompt`.
    pub system_prompt: Option<String>,
    /// Arguments passed to an agent CLI after its driver's own
    /// (`cohost run PROMPT -- ARGS`); refused for API providers, and a
    /// permission-bypass flag is refused unless approvals are auto-approve.
    pub agent_args: Vec<String>,
    /// Record the working tree around every turn (`file_changes` events,
    /// `cohost diff`, `cohost undo`); `None`: the config's `checkpoints`
    /// (default on). Needs a recorded session (its id names the refs).
    pub checkpoints: Option<bool>,
    /// Run a new session in a git worktree of its own (branch
    /// `cohost/<session>`, from HEAD plus the uncommitted changes); `None`:
    /// the config's `worktree` (default off). A resumed session runs where
    /// it ran. Needs a recorded session in a git repository with a commit.
    pub worktree: Option<bool>,
    /// The agent's OS sandbox; `None`: the config's `sandbox` (default
    /// off; `share` passes on unless told otherwise).
    pub sandbox: Option<cohost_core::SandboxMode>,
    /// The room this session is a member of (kept in its record).
    pub room: Option<crate::store::RoomRecord>,
    /// MCP servers to give the agent (a room's bridge); providers whose
    /// capabilities do not say `mcp_servers` go without.
    pub mcp_servers: Vec<cohost_core::McpServer>,
    /// The budget the session spends from (`--budget-usd`,
    /// `--budget-tokens`, `budget.*`); a room gives each member a seat at
    /// one shared budget.
    pub budget: Option<cohost_session::BudgetSeat>,
}

impl SessionRequest {
    /// A request with defaults: no model, cwd, resume, tools or record.
    pub fn new(provider: ProviderChoice, approvals: Approvals) -> SessionRequest {
        SessionRequest {
            provider,
            model: None,
            cwd: None,
            resume: None,
            continue_last: false,
            fork: false,
            approvals,
            tools: Tools::None,
            provider_settings: false,
            binary: None,
            options: SessionOptions::default(),
            recording: Recording::Off,
            defer_handshake: false,
            system_prompt: None,
            agent_args: Vec::new(),
            checkpoints: None,
            worktree: None,
            sandbox: None,
            mcp_servers: Vec::new(),
            room: None,
            budget: None,
        }
    }
}

/// What the slot and the resumed record decided.
struct Plan {
    provider: ProviderChoice,
    cwd: Option<PathBuf>,
    config: AdapterConfig,
    record_id: Option<String>,
    watermark: u64,
    /// The resumed session's worktree.
    worktree: Option<WorktreeRecord>,
}

fn plan(
    host: &Host,
    cfg: &HostConfig,
    store: &SessionStore,
    req: &SessionRequest,
) -> Result<Plan, SetupError> {
    let mut plan = Plan {
        provider: req.provider.clone(),
        cwd: None,
        config: AdapterConfig::default(),
        record_id: None,
        watermark: 0,
        worktree: None,
    };
    if let ProviderChoice::Slot(name) = &req.provider {
        let resolved = slots::resolve_slot(host, cfg, name)?;
        plan.provider = ProviderChoice::Id(resolved.provider_id);
        plan.config = resolved.config;
    }
    plan.config.defer_handshake = req.defer_handshake;
    let last;
    let id = if req.continue_last {
        last = last_session(store, &plan.provider, req.cwd.clone())?;
        &last
    } else {
        match &req.resume {
            Some(id) => id,
            None => return Ok(plan),
        }
    };
    plan.config.fork = req.fork;
    let found = match store.get(id)? {
        Some(rec) => Some(rec),
        None => store.find_native(id)?,
    };
    match found {
        Some(rec) => {
            if let ProviderChoice::Id(agent) = &plan.provider {
                if *agent != rec.provider {
                    return Err(SetupError::AnotherAgentsSession {
                        id: id.clone(),
                        owner: rec.provider,
                        asked: agent.clone(),
                    });
                }
            }
            plan.provider = ProviderChoice::Id(rec.provider.clone());
            plan.cwd = Some(rec.cwd.clone());
            plan.config.model = plan.config.model.take().or(rec.model.clone());
            plan.config.resume = rec.native_session_id.clone();
            // A fork is a new record; the agent has seen the parent's turns.
            plan.record_id = (!req.fork).then(|| rec.id.clone());
            plan.watermark = rec.watermark;
            plan.worktree = (!req.fork).then(|| rec.worktree.clone()).flatten();
        }
        None => {
            unknown_session(store, id, &plan.provider)?;
            // Not one of ours: hand it to the named agent as its native id.
            plan.config.resume = Some(id.clone());
        }
    }
    Ok(plan)
}

/// The id of the most recent session in the working directory.
fn last_session(
    store: &SessionStore,
    provider: &ProviderChoice,
    cwd: Option<PathBuf>,
) -> Result<String, SetupError> {
    let dir = working_dir(cwd)?;
    let agent = match provider {
        ProviderChoice::Id(a) => Some(a.as_str()),
        ProviderChoice::Default | ProviderChoice::Slot(_) => None,
    };
    let last = store
        .list()?
        .into_iter()
        .find(|r| r.ran_in(&dir) && agent.is_none_or(|a| r.provider == a));
    match last {
        Some(r) => Ok(r.id),
        None => Err(SetupError::NothingToContinue {
            agent: agent.map(str::to_owned),
            dir,
        }),
    }
}

/// An id that is neither a stored session nor any stored session's native
/// id: an error when it has cohost's shape (`s-…`, a typo or a deleted
/// session) or when no provider is named to take it as its own id.
fn unknown_session(
    store: &SessionStore,
    id: &str,
    provider: &ProviderChoice,
) -> Result<(), SetupError> {
    let ours = id.starts_with("s-");
    if !ours && matches!(provider, ProviderChoice::Id(_)) {
        return Ok(());
    }
    let near = store
        .list()?
        .into_iter()
        .map(|r| r.id)
        .filter(|k| strsim::damerau_levenshtein(id, k) <= 2)
        .min_by_key(|k| strsim::damerau_levenshtein(id, k));
    Err(SetupError::UnknownSession {
        id: id.to_owned(),
        near,
        ours,
    })
}

/// The factory for `choice`; `true` when it fell back to the mock.
pub async fn choose(
    host: &Host,
    choice: &ProviderChoice,
) -> Result<(Arc<dyn AdapterFactory>, bool), CohostError> {
    match choice {
        ProviderChoice::Id(id) => Ok((host.registry.get(id)?, false)),
        // Resolved by `plan`; kept total for direct callers.
        ProviderChoice::Slot(name) => {
            let cfg = host.config()?;
            let slot = slots::resolve_slot(host, &cfg, name)?;
            Ok((host.registry.get(&slot.provider_id)?, false))
        }
        ProviderChoice::Default => {
            let cfg = host.config()?;
            match default_agent::pick(host, &cfg).await.id {
                Some(id) => Ok((host.registry.get(&id)?, false)),
                None => Ok((host.registry.get("mock")?, true)),
            }
        }
    }
}

/// The tools policy, in one place: agent CLIs (and the mock) run their own
/// tools and refuse offered ones; API providers get the checked list.
pub fn offered_tools(d: &ProviderDescriptor, tools: &Tools) -> Result<Vec<ToolSpec>, SetupError> {
    if *tools == Tools::None {
        return Ok(Vec::new());
    }
    if d.kind == ProviderKind::AgentCli {
        return Err(SetupError::ToolsForAgentCli(d.id.clone()));
    }
    match tools {
        Tools::None => Ok(Vec::new()),
        Tools::File(path) => Ok(crate::tools::load(path)?),
        Tools::Json { origin, value } => Ok(crate::tools::from_value(origin, value)?),
    }
}

/// Decide everything about a session and build it, not started yet: call
/// [`OpenSession::start`] next (a front end can report the choice first).
/// Async because choosing the default agent may run agents' sign-in status
/// commands (bounded by the auth timeout).
pub async fn prepare(
    host: &Host,
    cfg: &HostConfig,
    req: SessionRequest,
) -> Result<OpenSession, SetupError> {
    let store = SessionStore::of(host);
    let mut plan = plan(host, cfg, &store, &req)?;
    let mut note = None;
    if plan.provider == ProviderChoice::Default {
        let pick = default_agent::pick(host, cfg).await;
        plan.provider = ProviderChoice::Id(pick.id.clone().unwrap_or_else(|| "mock".into()));
        note = Some((pick.note, pick.id.is_none()));
    }
    let (factory, _) = choose(host, &plan.provider).await?;
    let fell_back = note.as_ref().is_some_and(|(_, mock)| *mock);
    let note = note.map(|(n, _)| n);
    let descriptor = factory.descriptor();
    let cwd = working_dir(req.cwd.clone().or(plan.cwd))?;
    let tools = offered_tools(&descriptor, &req.tools)?;
    let mut config = plan.config;
    if config.fork && !descriptor.capabilities.fork {
        return Err(SetupError::CannotFork(descriptor.id.clone()));
    }
    if config.fork && config.resume.is_none() {
        return Err(SetupError::NothingToFork);
    }
    if req.provider_settings {
        let settings = cfg.provider(&descriptor.id);
        config.model = config.model.or(settings.model);
        config.binary = config.binary.or(settings.binary);
        for (k, v) in settings.env {
            config.env.entry(k).or_insert(v);
        }
    }
    config.cwd = cwd.clone();
    let passed_own_vars = pass_env::apply(
        &host.env,
        &descriptor.id,
        &cfg.provider(&descriptor.id).pass_env,
        &mut config,
        cfg.path(),
    )? > 0;
    config.approval = req.approvals.mode;
    check_agent_args(&descriptor, req.approvals.mode, &req.agent_args)?;
    config.extra_args.extend(req.agent_args);
    config.mcp_servers = req.mcp_servers;
    if req.system_prompt.is_some() && !descriptor.capabilities.system_prompt {
        return Err(SetupError::NoSystemPrompt(descriptor.id.clone()));
    }
    config.system_prompt = req.system_prompt;
    config.tools = tools;
    config.model = req.model.or(config.model);
    config.binary = req.binary.or(config.binary);
    let wants_worktree = req.worktree.unwrap_or_else(|| cfg.worktree());
    let record = match req.recording {
        Recording::Off if wants_worktree => return Err(SetupError::WorktreeUnrecorded),
        Recording::Off => None,
        Recording::New => {
            let id = plan
                .record_id
                .unwrap_or_else(|| format!("s-{}", cohost_core::ids::random_tag()));
            Some((id, plan.watermark))
        }
        Recording::WithId(id) => Some((id, plan.watermark)),
    }
    .map(|(id, watermark)| {
        let mut rec = SessionRecord::new(id, descriptor.id.clone(), cwd.clone());
        rec.model = config.model.clone();
        rec.watermark = watermark;
        rec.worktree = plan.worktree.clone();
        rec.room = req.room.clone();
        (store, rec)
    });
    let mut record = record;
    let mut cwd = cwd;
    if let Some((_, rec)) = record
        .as_mut()
        .filter(|(_, r)| wants_worktree && r.worktree.is_none())
    {
        let wt = cohost_git::worktree::create(&cwd, &host.paths.state_dir, &rec.id).await?;
        // The same place inside the tree as the user's cwd.
        let inner = cwd
            .strip_prefix(&wt.origin)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        cwd = wt.path.join(inner);
        rec.cwd = cwd.clone();
        rec.worktree = Some(wt.into());
        config.cwd = cwd.clone();
    }
    // A variable the user's agent config names (a custom provider's key)
    // is a credential cohost cannot judge: no hint then.
    let hint = (!passed_own_vars)
        .then(|| no_credentials::hint(host, cfg, &descriptor.id))
        .flatten();
    let checkpoints = match (&record, req.checkpoints.unwrap_or(cfg.checkpoints())) {
        (Some((_, rec)), true) => Some(checkpoints::open(host, &cwd, &rec.id)),
        _ => None,
    };
    let origin = record
        .as_ref()
        .and_then(|(_, r)| r.worktree.as_ref())
        .map(|w| w.origin.clone());
    let (sandbox, sandbox_note) = sandbox::request(host, cfg, req.sandbox, origin.as_deref())?;
    config.sandbox = sandbox;
    // Said where the choice of agent is said: every front end shows it.
    let note = match (note, sandbox_note) {
        (Some(n), Some(s)) => Some(format!("{n}; {s}")),
        (n, s) => n.or(s),
    };
    // Every event of every session passes its host's sanitizer: the
    // composition root's value, whatever the front end left in `options`.
    let options = SessionOptions {
        sanitizer: host.sanitizer.clone(),
        ..req.options
    };
    let session = HostSession::new(factory, config, req.approvals.source, options);
    Ok(OpenSession::new(session, record, fell_back, cwd)
        .with_signed_record(Some(host.paths.state_dir.clone()), host.sanitizer.clone())
        .with_checkpoints(checkpoints)
        .with_default_note(note)
        .with_credential_hint(hint)
        .with_approvals(req.approvals.handle)
        .with_budget(req.budget))
}

/// Extra arguments go to agent CLIs only, and never switch a CLI's own
/// permission checks off behind the user's approval policy: the flag the
/// driver itself passes for auto-approve (the catalog's `skip_permissions`)
/// is refused unless the policy is auto-approve.
fn check_agent_args(
    d: &ProviderDescriptor,
    mode: ApprovalMode,
    args: &[String],
) -> Result<(), SetupError> {
    if args.is_empty() {
        return Ok(());
    }
    // The mock (tier `builtin`) is an agent with no command line.
    if d.kind != ProviderKind::AgentCli || d.capabilities.tier == SupportTier::Builtin {
        return Err(SetupError::NotAnAgentCli(d.id.clone()));
    }
    let bypass = cohost_agents::catalog::cli_of(&d.id).and_then(|e| e.flags.skip_permissions);
    if let Some(template) = bypass.filter(|t| !t.is_empty()) {
        if mode != ApprovalMode::AutoApprove && passes(args, template) {
            return Err(SetupError::PermissionBypass {
                flag: template.join(" "),
                agent: d.id.clone(),
            });
        }
    }
    Ok(())
}

/// Whether `args` pass the flag `template` (`["--approval-mode", "yolo"]`):
/// its words in a row, or a one-word flag as `FLAG=VALUE`.
fn passes(args: &[String], template: &[&str]) -> bool {
    let in_a_row = args
        .windows(template.len())
        .any(|w| w.iter().zip(template).all(|(a, t)| a == t));
    let joined = template.len() == 2
        && args
            .iter()
            .any(|a| *a == format!("{}={}", template[0], template[1]));
    let one_word = template.len() == 1
        && args
            .iter()
            .any(|a| a.starts_with(&format!("{}=", template[0])));
    in_a_row || joined || one_word
}

/// [`prepare`] then [`OpenSession::start`].
pub async fn open(
    host: &Host,
    cfg: &HostConfig,
    req: SessionRequest,
) -> Result<OpenSession, SetupError> {
    let mut s = prepare(host, cfg, req).await?;
    s.start().await?;
    Ok(s)
}

#[cfg(test)]
mod tests;
