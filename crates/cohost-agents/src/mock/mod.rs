//! A scripted, in-memory mock agent: the embedded default of `cohost run`,
//! the README's first command and the demo's agent, and the test double of
//! every crate above the domain. It runs no process and touches no file;
//! each turn is a script played by a tokio task, which is why it lives with
//! the adapters rather than in `cohost-core`.
//!
//! The scenario comes from a `[mock:NAME]` marker in the prompt, else from
//! the model name (`--model slow`), else `echo`:
//!
//! | scenario | behaviour |
//! |---|---|
//! | `echo` | reasoning, then a reply in word deltas, usage |
//! | `text` | a reply in word deltas, no reasoning |
//! | `tool` | asks to run `write_file`; reports the decision's outcome |
//! | `slow` | 50 deltas, 100 ms apart (for interrupt demos) |
//! | `crash` | two deltas, then the "process" dies |
//! | `hang` | one delta, then ignores cancel and SIGINT until killed |
//! | `garbage` | interleaves `INVALID_OUTPUT` errors with text, then completes |
//! | `error:CODE` | fails the turn with that error code, e.g. `error:AUTH_REQUIRED` |
//! | `say` | answers with the prompt text after the marker (`\n` becomes a newline), in word deltas |
//! | `chunks:N` | answers with N numbered deltas at full speed, a paragraph per 20 |
//!
//! - `options`: the knobs, and what an adapter shares with its turn.
//! - `scenario`: the scenario names and how a turn picks one.
//! - `script`: one turn's script, played as a task.

mod options;
mod scenario;
mod script;

use async_trait::async_trait;
use futures::StreamExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot, watch};

use cohost_core::error::{CohostError, ErrorCode};
use cohost_core::port::*;
use cohost_core::provider::*;

pub use options::MockOptions;
use options::Shared;
pub use scenario::Scenario;
use script::Script;

/// Creates mock adapters and counts them (respawn tests).
#[derive(Debug, Default)]
pub struct MockFactory {
    opts: MockOptions,
    created: Arc<AtomicUsize>,
}

impl MockFactory {
    /// A factory with options.
    pub fn new(opts: MockOptions) -> Self {
        MockFactory {
            opts,
            created: Arc::default(),
        }
    }

    /// How many adapters were created so far.
    pub fn created(&self) -> usize {
        self.created.load(Ordering::SeqCst)
    }
}

/// The mock's descriptor.
pub fn descriptor() -> ProviderDescriptor {
    ProviderDescriptor {
        id: "mock".into(),
        label: "Mock agent (built-in, scripted)".into(),
        kind: ProviderKind::AgentCli,
        capabilities: Capabilities {
            fork: true,
            steer: true,
            executes_tools: false,
            tier: SupportTier::Builtin,
            ..Capabilities::CONTROL_PROTOCOL
        },
        install_hint: None,
    }
}

impl AdapterFactory for MockFactory {
    fn descriptor(&self) -> ProviderDescriptor {
        descriptor()
    }

    fn create(&self) -> Box<dyn AgentAdapter> {
        self.created.fetch_add(1, Ordering::SeqCst);
        let mut descriptor = descriptor();
        descriptor.capabilities.steer = self.opts.steer;
        Box::new(MockAdapter {
            descriptor,
            opts: self.opts.clone(),
            config: AdapterConfig::default(),
            session_id: None,
            shared: Arc::default(),
            turn: None,
        })
    }
}

struct TurnCtl {
    cancel: watch::Sender<bool>,
    steers: mpsc::UnboundedSender<(String, oneshot::Sender<()>)>,
    approvals: mpsc::UnboundedSender<ToolDecision>,
    task: tokio::task::JoinHandle<()>,
    hang: bool,
}

/// The mock adapter.
pub struct MockAdapter {
    descriptor: ProviderDescriptor,
    opts: MockOptions,
    config: AdapterConfig,
    session_id: Option<String>,
    shared: Arc<Mutex<Shared>>,
    turn: Option<TurnCtl>,
}

impl MockAdapter {
    fn shared(&self) -> std::sync::MutexGuard<'_, Shared> {
        cohost_core::sync::lock(&self.shared)
    }
}

#[async_trait]
impl AgentAdapter for MockAdapter {
    fn descriptor(&self) -> &ProviderDescriptor {
        &self.descriptor
    }

    async fn initialize(&mut self, config: &AdapterConfig) -> Result<InitInfo, CohostError> {
        if self.opts.fail_init {
            self.shared().dead = true;
            return Err(CohostError::new(
                ErrorCode::ProcessCrashed,
                "mock agent exited during start-up (fail_init)",
            ));
        }
        self.config = config.clone();
        // A fork is a new session that starts from the resumed one.
        self.session_id = Some(
            config
                .resume
                .clone()
                .filter(|_| !config.fork)
                .unwrap_or_else(|| format!("mock-{}", cohost_core::ids::random_tag())),
        );
        Ok(InitInfo {
            version: Some(env!("CARGO_PKG_VERSION").into()),
            session_id: if self.opts.late_session_id {
                None
            } else {
                self.session_id.clone()
            },
        })
    }

    async fn send_prompt(
        &mut self,
        prompt: PromptRequest,
    ) -> Result<AgentEventStream, CohostError> {
        if self.shared().dead {
            return Err(CohostError::new(
                ErrorCode::ProcessCrashed,
                "mock agent is not running",
            ));
        }
        let scenario = self
            .opts
            .force
            .clone()
            .unwrap_or_else(|| Scenario::select(&prompt.text, self.config.model.as_deref()));
        let (tx, rx) = mpsc::channel(64);
        let (cancel_tx, cancel_rx) = watch::channel(false);
        let (approve_tx, approve_rx) = mpsc::unbounded_channel();
        let (steer_tx, steer_rx) = mpsc::unbounded_channel();
        let script = Script {
            steers: steer_rx,
            tx,
            cancel: cancel_rx,
            approvals: approve_rx,
            opts: self.opts.clone(),
            approval: self.config.approval,
            shared: self.shared.clone(),
            session_id: self.session_id.clone(),
            model: self.config.model.clone().unwrap_or_else(|| "mock-1".into()),
        };
        let hang = scenario == Scenario::Hang;
        let task = tokio::spawn(script.run(scenario, prompt.text));
        self.turn = Some(TurnCtl {
            cancel: cancel_tx,
            steers: steer_tx,
            approvals: approve_tx,
            task,
            hang,
        });
        Ok(tokio_stream_from(rx))
    }

    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        let Some(turn) = &self.turn else {
            return Ok(());
        };
        if stage.is_destructive() {
            // SIGTERM/SIGKILL: the "process" dies; its stream closes.
            turn.task.abort();
            let mut s = self.shared();
            s.dead = true;
            s.last_error = Some(format!("killed by interrupt stage {stage:?}"));
        } else if !turn.hang {
            let _ = turn.cancel.send(true);
        }
        Ok(())
    }

    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError> {
        match &self.turn {
            Some(t) if t.approvals.send(decision).is_ok() => Ok(()),
            _ => Err(CohostError::new(
                ErrorCode::InvalidOutput,
                "no approval is pending in the mock agent",
            )),
        }
    }

    async fn steer(&mut self, text: &str) -> Result<(), CohostError> {
        if !self.opts.steer {
            return Err(steer_unsupported(&self.descriptor.id));
        }
        let over = || {
            CohostError::new(
                ErrorCode::IllegalTransition,
                "the mock agent's turn ended before it took the text",
            )
            .with_fix("the text is queued and sent as the next turn")
        };
        let Some(turn) = &self.turn else {
            return Err(over());
        };
        let (taken, rx) = oneshot::channel();
        turn.steers
            .send((text.to_string(), taken))
            .map_err(|_| over())?;
        rx.await.map_err(|_| over())
    }

    async fn health(&mut self) -> Health {
        let s = self.shared();
        Health {
            alive: !s.dead,
            binary: None,
            version: Some(env!("CARGO_PKG_VERSION").into()),
            last_error: s.last_error.clone(),
        }
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        if let Some(t) = self.turn.take() {
            t.task.abort();
        }
        self.shared().dead = true;
        Ok(())
    }
}

impl Drop for MockAdapter {
    fn drop(&mut self) {
        if let Some(t) = self.turn.take() {
            t.task.abort();
        }
    }
}

fn tokio_stream_from(mut rx: mpsc::Receiver<AgentEvent>) -> AgentEventStream {
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed()
}
