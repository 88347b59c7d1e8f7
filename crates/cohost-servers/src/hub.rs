//! The sessions one server runs, shared by the MCP and ACP front ends.
//!
//! Every session is opened through cohost-host's one session path
//! ([`cohost_host::session::prepare`]) and runs as a [`RunningSession`]
//! (one task owns the engine, prompts queue, every subscriber gets the
//! events); approvals wait for the client's answer through the handle until
//! the engine's deadline denies them. The hub only adds what a
//! long-lived server needs on top: a bound on how many sessions run at once,
//! lookup by id, and ending them all when the client goes away.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cohost_core::sync::lock;
use cohost_core::{
    ApprovalMode, CohostError, ErrorCode, ProviderDescriptor, Sanitizer, SessionOptions,
};
use cohost_discovery::Host;
use cohost_host::session::{self, Approvals, ProviderChoice, Recording, SessionRequest};
use cohost_session::RunningSession;

/// Limits of one server.
#[derive(Debug, Clone)]
pub struct HubLimits {
    /// Sessions open at once. Opening one more ends the least recently used
    /// idle one (its record stays, so it can be resumed); when every one is
    /// running a turn, opening is refused.
    pub max_sessions: usize,
    /// How long an approval waits for the client before it is denied.
    pub approval_deadline: Duration,
    /// The longest one turn may run before it is interrupted.
    pub turn_timeout: Duration,
}

impl Default for HubLimits {
    fn default() -> Self {
        HubLimits {
            max_sessions: 8,
            approval_deadline: Duration::from_secs(120),
            turn_timeout: Duration::from_secs(30 * 60),
        }
    }
}

/// What a client asks for when it opens a session.
#[derive(Debug, Clone, Default)]
pub struct OpenRequest {
    /// Provider id; `None`: the server's default, else the first installed
    /// agent, else the mock.
    pub provider: Option<String>,
    /// Working directory (must exist).
    pub cwd: Option<PathBuf>,
    /// Model, provider-specific.
    pub model: Option<String>,
    /// Approval mode; `Ask` sends every request to the client.
    pub approval: ApprovalMode,
    /// A stored cohost session id (or an agent's native id) to resume.
    pub resume: Option<String>,
}

/// One open session.
pub struct HubSession {
    /// The running session.
    pub live: RunningSession,
    /// The provider's descriptor.
    pub descriptor: ProviderDescriptor,
    /// The directory the agent runs in.
    pub cwd: PathBuf,
    /// The model asked for, when one was.
    pub model: Option<String>,
    busy: AtomicBool,
    last_used: Mutex<Instant>,
    /// The host's sanitizer, for what a front end says about this session
    /// beyond its events (an elicitation's question).
    pub(crate) sanitizer: Arc<Sanitizer>,
}

impl HubSession {
    /// The cohost session id (also the store's).
    pub fn id(&self) -> &str {
        self.live.record_id().unwrap_or_default()
    }

    /// A front end starts a turn: the session is not evicted until
    /// [`HubSession::end_turn`].
    pub fn begin_turn(&self) {
        self.busy.store(true, Ordering::SeqCst);
        *lock(&self.last_used) = Instant::now();
    }

    /// The turn ended.
    pub fn end_turn(&self) {
        self.busy.store(false, Ordering::SeqCst);
        *lock(&self.last_used) = Instant::now();
    }

    /// Whether a turn runs.
    pub fn busy(&self) -> bool {
        self.busy.load(Ordering::SeqCst)
    }
}

/// The sessions of one server.
pub struct Hub {
    host: Host,
    limits: HubLimits,
    default_provider: Option<String>,
    sessions: Mutex<BTreeMap<String, Arc<HubSession>>>,
}

impl Hub {
    /// A hub opening sessions on `host`; `default_provider` is used when a
    /// request names none (`cohost acp --agent ID`).
    pub fn new(host: Host, limits: HubLimits, default_provider: Option<String>) -> Hub {
        Hub {
            host,
            limits,
            default_provider,
            sessions: Mutex::default(),
        }
    }

    /// The host services (registry, discovery, paths).
    pub fn host(&self) -> &Host {
        &self.host
    }

    /// The limits.
    pub fn limits(&self) -> &HubLimits {
        &self.limits
    }

    /// The provider a request without one gets.
    pub fn default_provider(&self) -> Option<&str> {
        self.default_provider.as_deref()
    }

    /// Open (and start) a session on the one session path; it is recorded
    /// in the session store like any `cohost run`.
    pub async fn open(&self, req: OpenRequest) -> Result<Arc<HubSession>, CohostError> {
        self.make_room_for(1)?;
        let cfg = self.host.config()?;
        let provider = match req
            .provider
            .clone()
            .or_else(|| self.default_provider.clone())
        {
            Some(id) => ProviderChoice::Id(id),
            None => ProviderChoice::Default,
        };
        let sreq = self.session_request(&req, provider);
        let prepared = session::prepare(&self.host, &cfg, sreq)
            .await
            .map_err(CohostError::from)?;
        let descriptor = prepared.descriptor().clone();
        let live = prepared.launch().await?;
        Ok(self.keep(live, descriptor, req.model))
    }

    /// Open a room of `agents` (provider ids; the same one twice is two
    /// members) on the one room path (`cohost_host::session::prepare_room`:
    /// a worktree each inside git, recorded as members of one room), every
    /// member an open session of its own. The room's id and its members'
    /// names and sessions, in order.
    pub async fn open_room(
        &self,
        req: OpenRequest,
        agents: &[String],
    ) -> Result<(String, Vec<(String, Arc<HubSession>)>), CohostError> {
        self.make_room_for(agents.len())?;
        let cfg = self.host.config()?;
        let prepared = session::prepare_room(&self.host, &cfg, agents, |_, id| {
            self.session_request(&req, ProviderChoice::Id(id.to_owned()))
        })
        .await
        .map_err(CohostError::from)?;
        let id = prepared.id.clone();
        let descriptors: Vec<_> = prepared
            .members
            .iter()
            .map(|(_, o)| o.descriptor().clone())
            .collect();
        let room = prepared.launch(&self.host).await?;
        let members = room
            .members()
            .iter()
            .zip(descriptors)
            .map(|(m, d)| {
                (
                    m.name.clone(),
                    self.keep(m.session.clone(), d, req.model.clone()),
                )
            })
            .collect();
        Ok((id, members))
    }

    /// Keep a started session as an open one.
    fn keep(
        &self,
        live: RunningSession,
        descriptor: ProviderDescriptor,
        model: Option<String>,
    ) -> Arc<HubSession> {
        let rec = cohost_host::SessionStore::of(&self.host)
            .get(live.record_id().unwrap_or_default())
            .ok()
            .flatten();
        let s = Arc::new(HubSession {
            cwd: rec.as_ref().map(|r| r.cwd.clone()).unwrap_or_default(),
            model: model.or(rec.and_then(|r| r.model)),
            live,
            descriptor,
            busy: AtomicBool::new(false),
            last_used: Mutex::new(Instant::now()),
            sanitizer: self.host.sanitizer.clone(),
        });
        lock(&self.sessions).insert(s.id().to_string(), s.clone());
        s
    }

    /// The session request of `req` for `provider`.
    fn session_request(&self, req: &OpenRequest, provider: ProviderChoice) -> SessionRequest {
        let mut sreq = SessionRequest::new(
            provider,
            Approvals::all_through_handle(
                req.approval,
                "the approval was abandoned: the session ended",
            ),
        );
        sreq.cwd = req.cwd.clone();
        sreq.model = req.model.clone();
        sreq.resume = req.resume.clone();
        sreq.provider_settings = true;
        sreq.recording = Recording::New;
        sreq.options = SessionOptions {
            approval_deadline: self.limits.approval_deadline,
            turn_limit: Some(self.limits.turn_timeout),
            // Every event passes the host's sanitizer, not the process's.
            sanitizer: self.host.sanitizer.clone(),
            ..SessionOptions::default()
        };
        sreq
    }

    /// Room for `n` more sessions below the limit: the least recently used
    /// idle sessions end, or an error when too many run a turn.
    fn make_room_for(&self, n: usize) -> Result<(), CohostError> {
        if n > self.limits.max_sessions {
            return Err(CohostError::new(
                ErrorCode::RateLimited,
                format!(
                    "{n} sessions at once are more than this server's limit of {}",
                    self.limits.max_sessions
                ),
            )
            .with_fix("start the server with a higher --max-sessions, or ask fewer agents"));
        }
        loop {
            let victim = {
                let sessions = lock(&self.sessions);
                if sessions.len() + n <= self.limits.max_sessions {
                    return Ok(());
                }
                sessions
                    .values()
                    .filter(|s| !s.busy())
                    .min_by_key(|s| *lock(&s.last_used))
                    .map(|s| s.id().to_string())
            };
            match victim {
                Some(id) => {
                    tracing::info!(session = %id, "ending the least recently used idle session to stay within the limit");
                    self.close(&id);
                }
                None => return Err(CohostError::new(
                ErrorCode::RateLimited,
                format!(
                    "all {} open sessions are running a turn (the limit)",
                    self.limits.max_sessions
                ),
            )
            .with_fix("wait for a turn to end or interrupt one, or start the server with a higher --max-sessions")),
            }
        }
    }

    /// The open session `id`.
    pub fn get(&self, id: &str) -> Result<Arc<HubSession>, CohostError> {
        lock(&self.sessions).get(id).cloned().ok_or_else(|| {
            CohostError::new(ErrorCode::ConfigInvalid, format!("no open session `{id}`")).with_fix(
                "open one first (ask_agent / session/new), or resume a stored one (continue_session / session/load)",
            )
        })
    }

    /// Every open session, by id.
    pub fn list(&self) -> Vec<Arc<HubSession>> {
        lock(&self.sessions).values().cloned().collect()
    }

    /// End a session: interrupt its turn, deny what waits; the agent stops
    /// once the last handle is gone and the turn has ended. Its record
    /// stays for resuming.
    pub fn close(&self, id: &str) -> bool {
        let s = lock(&self.sessions).remove(id);
        match s {
            Some(s) => {
                s.live.interrupt();
                if let Some(a) = s.live.approvals() {
                    a.abandon_all();
                }
                true
            }
            None => false,
        }
    }

    /// End every session (the client went away).
    pub fn close_all(&self) {
        let ids: Vec<String> = lock(&self.sessions).keys().cloned().collect();
        for id in ids {
            self.close(&id);
        }
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.close_all();
    }
}

/// A host whose sanitizer knows a planted value the process-wide one does
/// not (no shape, no secret name): finding it redacted shows a server used
/// its host's sanitizer. Its files live under `home` (a test's scratch
/// directory).
#[cfg(test)]
pub(crate) fn planted_host(home: &std::path::Path) -> (Host, &'static str) {
    const PLANTED: &str = "planted-q7Xw2Lm9Rk4Zt8Vn";
    assert_eq!(cohost_core::sanitize::global().sanitize(PLANTED), PLANTED);
    let none: [(&str, &str); 0] = [];
    let sanitizer = Sanitizer::new(none, None).with_known_values([PLANTED]);
    let env = cohost_discovery::DiscoveryEnv {
        home: Some(home.to_path_buf()),
        ..Default::default()
    };
    let host = Host::new(cohost_core::Registry::new(), env).with_sanitizer(Arc::new(sanitizer));
    (host, PLANTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every session the hub opens runs its engine with the host's
    /// sanitizer, so its events (the MCP answers and ACP updates made of
    /// them) pass that one.
    #[test]
    fn sessions_get_the_hosts_sanitizer() {
        let home = tempfile::tempdir().unwrap();
        let (host, _) = planted_host(home.path());
        let given = host.sanitizer.clone();
        let hub = Hub::new(host, HubLimits::default(), None);
        let sreq = hub.session_request(&OpenRequest::default(), ProviderChoice::Default);
        assert!(Arc::ptr_eq(&sreq.options.sanitizer, &given));
    }
}
