//! Shared E2E harness for the Claude family: the real pinned CLI, a fake
//! model server, a scratch HOME and cwd, a per-test marker variable, and a
//! leftover-process check.

use cohost_agents::drivers::claude::{Dialect, StreamJsonFactory};
use cohost_agents::process::procfs;
use cohost_core::approval::SharedDecisionSource;
use cohost_core::{
    AdapterConfig, ApprovalMode, EndReason, Event, EventBody, HostSession, PromptInput,
    SessionOptions, TurnOutcome,
};
use cohost_fakellm::{FakeLlm, FakeLlmConfig, FakeLlmHandle};
use cohost_testbench::{require_cli, AgentCli};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub mod scenarios;

/// Name of the marker variable set in every child of a test.
pub const MARKER: &str = "COHOST_TEST_MARKER";

pub struct Rig {
    pub dialect: Dialect,
    pub fake: FakeLlmHandle,
    pub binary: PathBuf,
    pub home: tempfile::TempDir,
    pub cwd: tempfile::TempDir,
    pub marker: String,
}

impl Rig {
    /// `None` (with a loud notice) when the CLI is not installed locally;
    /// a panic when `CI` is set ([`cohost_testbench::require_cli`]).
    pub async fn new(dialect: Dialect) -> Option<Rig> {
        Rig::with_fake(dialect, FakeLlmConfig::default()).await
    }

    pub async fn with_fake(dialect: Dialect, config: FakeLlmConfig) -> Option<Rig> {
        let cli = dialect
            .command
            .parse::<AgentCli>()
            .expect("the bench knows every Claude-family CLI");
        let binary = require_cli(cli)?;
        static N: AtomicU64 = AtomicU64::new(0);
        let marker = format!(
            "{}-{}-{}",
            dialect.id,
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        Some(Rig {
            dialect,
            fake: FakeLlm::start(config).await.expect("fake server starts"),
            binary,
            home: tempfile::tempdir().unwrap(),
            cwd: tempfile::tempdir().unwrap(),
            marker,
        })
    }

    /// A config pointing the CLI at the fake server, everything scratch.
    pub fn config(&self, approval: ApprovalMode) -> AdapterConfig {
        let home = self.home.path().to_string_lossy().into_owned();
        let base = self.fake.base_url();
        let mut env = std::collections::BTreeMap::new();
        let mut set = |k: &str, v: &str| {
            env.insert(k.to_string(), v.to_string());
        };
        set("HOME", &home);
        for (k, sub) in [
            ("XDG_CONFIG_HOME", ".config"),
            ("XDG_DATA_HOME", ".local/share"),
            ("XDG_CACHE_HOME", ".cache"),
            ("XDG_STATE_HOME", ".local/state"),
        ] {
            set(k, &format!("{home}/{sub}"));
        }
        set(MARKER, &self.marker);
        // Both vendors' variables: each CLI only reads its own.
        set("ANTHROPIC_BASE_URL", &base);
        set("ANTHROPIC_API_KEY", "sk-fake-e2e");
        set("OPENAI_BASE_URL", &format!("{base}/v1"));
        set("OPENAI_API_KEY", "sk-fake-e2e");
        set("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        set("DISABLE_AUTOUPDATER", "1");
        set("DISABLE_TELEMETRY", "1");
        set("DISABLE_ERROR_REPORTING", "1");
        AdapterConfig {
            cwd: self.cwd.path().to_path_buf(),
            model: Some("fake-model".into()),
            binary: Some(self.binary.clone()),
            env,
            approval,
            ..Default::default()
        }
    }

    pub fn factory(&self) -> Arc<StreamJsonFactory> {
        Arc::new(match self.dialect.id {
            "qwen" => StreamJsonFactory::qwen(),
            _ => StreamJsonFactory::claude(),
        })
    }

    pub async fn session(
        &self,
        config: AdapterConfig,
        decisions: SharedDecisionSource,
    ) -> HostSession {
        let mut s = HostSession::new(self.factory(), config, decisions, SessionOptions::default());
        s.start().await.expect("session starts");
        s
    }

    /// Processes of this test still alive (helpers included: they inherit
    /// the marker).
    pub fn leftovers(&self) -> Vec<procfs::ProcEntry> {
        procfs::live_with_env(MARKER, &self.marker)
    }

    /// Poll up to 5 s for every process of this test to be gone.
    pub async fn assert_no_leftovers(&self) {
        for _ in 0..100 {
            if self.leftovers().is_empty() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("agent processes outlived the test: {:?}", self.leftovers());
    }
}

/// Run one prompt, collecting its wire events.
pub async fn prompt(session: &mut HostSession, text: &str) -> (Vec<Event>, TurnOutcome) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink_events = events.clone();
    let mut sink = move |e: Event| sink_events.lock().unwrap().push(e);
    let outcome = session.prompt(PromptInput::text(text), &mut sink).await;
    let events = std::mem::take(&mut *events.lock().unwrap());
    (events, outcome)
}

pub fn text(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

pub fn chunk_indexes(events: &[Event]) -> Vec<u64> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { chunk_index, .. } => Some(*chunk_index),
            _ => None,
        })
        .collect()
}

pub fn count(events: &[Event], pred: impl Fn(&EventBody) -> bool) -> usize {
    events.iter().filter(|e| pred(&e.body)).count()
}

pub fn error_code(events: &[Event]) -> Option<cohost_core::ErrorCode> {
    events.iter().find_map(|e| match &e.body {
        EventBody::Error(err) => Some(err.code),
        _ => None,
    })
}
