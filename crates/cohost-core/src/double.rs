//! Core's own test double: a scripted agent for the engine's and the
//! registry's unit tests, and nothing more.
//!
//! The product's mock agent (`cohost run --agent mock`, the demo) is an
//! adapter and lives in `cohost-agents`; core cannot use it (it depends on
//! core). This double spawns nothing: each turn's script runs inside the
//! event stream `send_prompt` returns, so it advances only while the engine
//! polls that stream, the way a pipe from a real process would.
//!
//! A turn plays the script named by a `[double:NAME]` marker in its prompt
//! (see [`Script::parse`]), else `echo`, unless [`Options::force`] names one.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures::future::{AbortHandle, Abortable};
use futures::StreamExt;
use tokio::sync::{mpsc, watch};

use crate::error::{CohostError, ErrorCode};
use crate::event::{ApprovalOption, EndReason, ToolKind, ToolStatus, Usage};
use crate::port::*;
use crate::provider::*;

/// The provider id of the double.
pub(crate) const ID: &str = "double";

/// What one turn does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Script {
    /// Two reasoning deltas, then a reply quoting the prompt, word by word.
    Echo,
    /// The reply alone.
    Text,
    /// Asks to run a tool (announces it under auto-approve), then says what
    /// the decision did.
    Tool,
    /// 50 deltas, [`SLOW_DELAY`] apart.
    Slow,
    /// One delta, then the "process" dies: the stream ends without `Ended`.
    Crash,
    /// One delta, then nothing; only a destructive interrupt ends it.
    Hang,
    /// Text, two `INVALID_OUTPUT` errors, more text, a normal end.
    Garbage,
    /// Fails the turn with this code.
    Error(ErrorCode),
}

/// The pause between the deltas of [`Script::Slow`].
pub(crate) const SLOW_DELAY: Duration = Duration::from_millis(100);

impl Script {
    /// The script a `[double:NAME]` marker in `prompt` names: `echo`,
    /// `text`, `tool`, `slow`, `crash`, `hang`, `garbage` or `error:CODE`;
    /// `echo` without a marker.
    ///
    /// # Panics
    ///
    /// On an unknown name: a typo in a test fails it rather than testing
    /// the default script.
    pub(crate) fn parse(prompt: &str) -> Script {
        let Some((_, rest)) = prompt.split_once("[double:") else {
            return Script::Echo;
        };
        let name = rest.split(']').next().unwrap_or_default();
        match name {
            "echo" => Script::Echo,
            "text" => Script::Text,
            "tool" => Script::Tool,
            "slow" => Script::Slow,
            "crash" => Script::Crash,
            "hang" => Script::Hang,
            "garbage" => Script::Garbage,
            _ => match name.strip_prefix("error:") {
                Some(code) => Script::Error(
                    serde_json::from_value(code.into())
                        .unwrap_or_else(|e| panic!("unknown error code {code:?}: {e}")),
                ),
                None => panic!("no script named {name:?}"),
            },
        }
    }
}

/// Knobs of the double.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    /// Make `initialize` fail as if the process died at start.
    pub(crate) fail_init: bool,
    /// Play this script whatever the prompt says.
    pub(crate) force: Option<Script>,
    /// Name the session only in the turn's `Started`, not at `initialize`
    /// (like agents that create their session lazily).
    pub(crate) late_session_id: bool,
    /// Take steered text mid-turn, keeping it here.
    pub(crate) steered: Option<Arc<Mutex<Vec<String>>>>,
}

/// The double's descriptor: an agent CLI with a control protocol.
pub(crate) fn descriptor() -> ProviderDescriptor {
    ProviderDescriptor {
        id: ID.into(),
        label: "Scripted test double".into(),
        kind: ProviderKind::AgentCli,
        capabilities: Capabilities::CONTROL_PROTOCOL,
        install_hint: None,
    }
}

/// Creates doubles and counts them (the respawn tests read the count).
#[derive(Debug, Default)]
pub(crate) struct Factory {
    opts: Options,
    created: AtomicUsize,
}

impl Factory {
    /// A factory whose adapters have `opts`.
    pub(crate) fn new(opts: Options) -> Self {
        Factory {
            opts,
            created: AtomicUsize::new(0),
        }
    }

    /// How many adapters were created so far.
    pub(crate) fn created(&self) -> usize {
        self.created.load(Ordering::SeqCst)
    }
}

impl AdapterFactory for Factory {
    fn descriptor(&self) -> ProviderDescriptor {
        descriptor()
    }

    fn create(&self) -> Box<dyn AgentAdapter> {
        self.created.fetch_add(1, Ordering::SeqCst);
        Box::new(Double {
            descriptor: descriptor(),
            opts: self.opts.clone(),
            config: AdapterConfig::default(),
            session_id: None,
            health: Arc::default(),
            turn: None,
        })
    }
}

/// The "process" state the adapter and its turn's script share.
#[derive(Debug, Default)]
struct Life {
    dead: bool,
    last_error: Option<String>,
}

/// The adapter's handles on the turn being played.
struct Turn {
    cancel: watch::Sender<bool>,
    approvals: mpsc::UnboundedSender<ToolDecision>,
    kill: AbortHandle,
    hang: bool,
}

struct Double {
    descriptor: ProviderDescriptor,
    opts: Options,
    config: AdapterConfig,
    session_id: Option<String>,
    health: Arc<Mutex<Life>>,
    turn: Option<Turn>,
}

impl Double {
    fn die(&mut self, why: Option<String>) {
        if let Some(t) = self.turn.take() {
            t.kill.abort();
        }
        let mut life = crate::sync::lock(&self.health);
        life.dead = true;
        if why.is_some() {
            life.last_error = why;
        }
    }
}

#[async_trait]
impl AgentAdapter for Double {
    fn descriptor(&self) -> &ProviderDescriptor {
        &self.descriptor
    }

    async fn initialize(&mut self, config: &AdapterConfig) -> Result<InitInfo, CohostError> {
        if self.opts.fail_init {
            self.die(None);
            return Err(CohostError::new(
                ErrorCode::ProcessCrashed,
                "the double exited during start-up (fail_init)",
            ));
        }
        self.config = config.clone();
        let id = match &config.resume {
            Some(id) if !config.fork => id.clone(),
            _ => format!("double-{}", crate::ids::random_tag()),
        };
        self.session_id = Some(id);
        Ok(InitInfo {
            version: None,
            session_id: self
                .session_id
                .clone()
                .filter(|_| !self.opts.late_session_id),
        })
    }

    async fn send_prompt(
        &mut self,
        prompt: PromptRequest,
    ) -> Result<AgentEventStream, CohostError> {
        if crate::sync::lock(&self.health).dead {
            return Err(CohostError::new(
                ErrorCode::ProcessCrashed,
                "the double is not running",
            ));
        }
        let script = self
            .opts
            .force
            .unwrap_or_else(|| Script::parse(&prompt.text));
        let (tx, rx) = mpsc::channel(64);
        let (cancel, cancel_rx) = watch::channel(false);
        let (approvals, approvals_rx) = mpsc::unbounded_channel();
        let player = Player {
            tx,
            cancel: cancel_rx,
            approvals: approvals_rx,
            approval: self.config.approval,
            health: self.health.clone(),
            session_id: self.session_id.clone(),
        };
        let (kill, registration) = AbortHandle::new_pair();
        self.turn = Some(Turn {
            cancel,
            approvals,
            kill,
            hang: script == Script::Hang,
        });
        // The script is polled with the stream: no task of its own. Once it
        // finishes (or is killed) it drops its sender, and the stream ends
        // after what it sent.
        let play = Abortable::new(player.run(script, prompt.text), registration);
        let driver = futures::stream::once(play).filter_map(|_| async { None });
        let mut rx = rx;
        let events = futures::stream::poll_fn(move |cx| rx.poll_recv(cx));
        Ok(futures::stream::select(events, driver).boxed())
    }

    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError> {
        if stage.is_destructive() {
            if self.turn.is_some() {
                self.die(Some(format!("killed by interrupt stage {stage:?}")));
            }
        } else if let Some(t) = self.turn.as_ref().filter(|t| !t.hang) {
            // Nobody may be listening any more; that is not an error.
            t.cancel.send_replace(true);
        }
        Ok(())
    }

    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError> {
        match &self.turn {
            Some(t) if t.approvals.send(decision).is_ok() => Ok(()),
            _ => Err(CohostError::new(
                ErrorCode::InvalidOutput,
                "no approval is pending in the double",
            )),
        }
    }

    async fn steer(&mut self, text: &str) -> Result<(), CohostError> {
        match (&self.opts.steered, &self.turn) {
            (Some(kept), Some(_)) => {
                crate::sync::lock(kept).push(text.to_string());
                Ok(())
            }
            (Some(_), None) => Err(CohostError::new(
                ErrorCode::IllegalTransition,
                "the double runs no turn",
            )),
            (None, _) => Err(crate::port::steer_unsupported(ID)),
        }
    }

    async fn health(&mut self) -> Health {
        let life = crate::sync::lock(&self.health);
        Health {
            alive: !life.dead,
            binary: None,
            version: None,
            last_error: life.last_error.clone(),
        }
    }

    async fn terminate(&mut self) -> Result<(), CohostError> {
        self.die(None);
        Ok(())
    }
}

impl Drop for Double {
    fn drop(&mut self) {
        if let Some(t) = self.turn.take() {
            t.kill.abort();
        }
    }
}

/// One turn being played.
struct Player {
    tx: mpsc::Sender<AgentEvent>,
    cancel: watch::Receiver<bool>,
    approvals: mpsc::UnboundedReceiver<ToolDecision>,
    approval: ApprovalMode,
    health: Arc<Mutex<Life>>,
    session_id: Option<String>,
}

/// The turn was cancelled, or nobody reads its events any more.
struct Stop;

impl Player {
    async fn run(mut self, script: Script, prompt: String) {
        let played = self.play(script, &prompt).await;
        if played.is_err() && *self.cancel.borrow() {
            // A cancelled agent ends its turn itself; a consumer that went
            // away hears nothing, and cannot.
            let _ = self
                .tx
                .send(AgentEvent::Ended {
                    reason: EndReason::Interrupted,
                    usage: None,
                })
                .await;
        }
    }

    async fn emit(&mut self, ev: AgentEvent) -> Result<(), Stop> {
        if *self.cancel.borrow() {
            return Err(Stop);
        }
        self.tx.send(ev).await.map_err(|_| Stop)
    }

    /// Text in word deltas; returns how many.
    async fn words(&mut self, text: &str) -> Result<u64, Stop> {
        let mut n = 0;
        for word in text.split_inclusive(' ') {
            self.emit(AgentEvent::TextDelta(word.into())).await?;
            n += 1;
        }
        Ok(n)
    }

    /// Waits `d`, or stops early on a cancel.
    async fn pause(&mut self, d: Duration) -> Result<(), Stop> {
        tokio::select! {
            () = tokio::time::sleep(d) => Ok(()),
            _ = self.cancel.wait_for(|c| *c) => Err(Stop),
        }
    }

    async fn play(&mut self, script: Script, prompt: &str) -> Result<(), Stop> {
        self.emit(AgentEvent::Started {
            session_id: self.session_id.clone(),
            model: Some("double-1".into()),
        })
        .await?;
        let mut output_tokens = 0;
        match script {
            Script::Echo | Script::Text => {
                if script == Script::Echo {
                    for r in ["The user wrote; ", "answer briefly."] {
                        self.emit(AgentEvent::ReasoningDelta(r.into())).await?;
                    }
                }
                let reply = format!("You said: \"{}\". That is all.", prompt.trim());
                output_tokens += self.words(&reply).await?;
            }
            Script::Tool => output_tokens += self.tool().await?,
            Script::Slow => {
                for i in 0..50 {
                    self.pause(SLOW_DELAY).await?;
                    self.emit(AgentEvent::TextDelta(format!("tick {i} ")))
                        .await?;
                    output_tokens += 1;
                }
            }
            Script::Crash => {
                self.words("About to ").await?;
                let mut life = crate::sync::lock(&self.health);
                life.dead = true;
                life.last_error = Some("the double crashed: exit status 101".into());
                // Ending the stream without `Ended` is what a dying process does.
                return Ok(());
            }
            Script::Hang => {
                self.emit(AgentEvent::TextDelta("Thinking very hard ".into()))
                    .await?;
                // Deaf to cancel and SIGINT, like a wedged process.
                futures::future::pending::<()>().await;
            }
            Script::Garbage => {
                output_tokens += self.words("Some good output. ").await?;
                for junk in ["{\"type\":\"assist", "%%%not json%%%"] {
                    let e = CohostError::new(
                        ErrorCode::InvalidOutput,
                        format!("skipped a line the protocol does not allow: {junk:?}"),
                    );
                    self.emit(AgentEvent::Error(e.retryable(false))).await?;
                }
                output_tokens += self.words("More good output.").await?;
            }
            Script::Error(code) => {
                let e = CohostError::new(code, format!("the double failed with {code}"));
                self.emit(AgentEvent::Error(e)).await?;
                return self
                    .emit(AgentEvent::Ended {
                        reason: EndReason::Error,
                        usage: None,
                    })
                    .await;
            }
        }
        let usage = Usage {
            input_tokens: prompt.split_whitespace().count() as u64,
            output_tokens,
            ..Usage::default()
        };
        self.emit(AgentEvent::Usage(usage)).await?;
        self.emit(AgentEvent::Ended {
            reason: EndReason::Completed,
            usage: Some(usage),
        })
        .await
    }

    /// The tool call, its approval as the session's mode has it, and what
    /// came of it; returns the deltas sent.
    async fn tool(&mut self) -> Result<u64, Stop> {
        let mut n = self.words("I will write a file. ").await?;
        let call = ToolCallInfo {
            tool_id: "double-tool-1".into(),
            name: "write_file".into(),
            kind: ToolKind::Edit,
            input: serde_json::json!({"path": "out.txt"}),
        };
        let allowed = if self.approval == ApprovalMode::AutoApprove {
            self.emit(AgentEvent::ToolCall(call)).await?;
            true
        } else {
            self.emit(AgentEvent::ApprovalRequested {
                call,
                options: ApprovalOption::ALL.to_vec(),
            })
            .await?;
            let decision = tokio::select! {
                d = self.approvals.recv() => d,
                _ = self.cancel.wait_for(|c| *c) => return Err(Stop),
            };
            decision.is_some_and(|d| d.option.is_allow())
        };
        let (status, reply) = if allowed {
            (ToolStatus::Ok, "Done.")
        } else {
            (ToolStatus::Denied, "Understood, no file.")
        };
        self.emit(AgentEvent::ToolExecuted {
            tool_id: "double-tool-1".into(),
            status,
            output: String::new(),
        })
        .await?;
        n += self.words(reply).await?;
        Ok(n)
    }
}
