//! A scripted, in-memory mock agent: the embedded default of `cohost run`
//! and the domain's test double. It runs no process and touches no file.
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

use async_trait::async_trait;
use futures::StreamExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

use crate::error::{CohostError, ErrorCode};
use crate::event::{ApprovalOption, EndReason, ToolKind, ToolStatus, Usage};
use crate::port::*;
use crate::provider::*;

/// The mock's scenarios.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scenario {
    /// Reasoning then text.
    Echo,
    /// Text only.
    Text,
    /// A tool call that needs approval.
    Tool,
    /// Slow streaming.
    Slow,
    /// Dies mid-turn.
    Crash,
    /// Ignores gentle interrupts.
    Hang,
    /// Says nothing until interrupted (a model that never answers).
    Silent,
    /// Emits unparseable output between good output.
    Garbage,
    /// Fails with an error code.
    Error(ErrorCode),
    /// Answers with the prompt text after the marker.
    Say,
    /// Answers with this many numbered deltas, without pauses.
    Chunks(u32),
}

/// Most deltas `chunks:N` sends.
const MAX_CHUNKS: u32 = 1_000_000;

impl Scenario {
    /// Parse a scenario name (`tool`, `error:RATE_LIMITED`...).
    pub fn parse(name: &str) -> Option<Scenario> {
        let name = name.trim();
        Some(match name {
            "echo" | "mock" | "mock-1" => Scenario::Echo,
            "text" => Scenario::Text,
            "tool" => Scenario::Tool,
            "slow" => Scenario::Slow,
            "crash" => Scenario::Crash,
            "hang" => Scenario::Hang,
            "silent" => Scenario::Silent,
            "garbage" => Scenario::Garbage,
            "say" => Scenario::Say,
            _ => {
                if let Some(n) = name.strip_prefix("chunks:") {
                    let n: u32 = n.parse().ok()?;
                    return Some(Scenario::Chunks(n.min(MAX_CHUNKS)));
                }
                let code = name.strip_prefix("error:")?;
                let code: ErrorCode = serde_json::from_value(code.into()).ok()?;
                Scenario::Error(code)
            }
        })
    }

    fn select(prompt: &str, model: Option<&str>) -> Scenario {
        if let Some(start) = prompt.find("[mock:") {
            let rest = &prompt[start + 6..];
            if let Some(end) = rest.find(']') {
                if let Some(s) = Scenario::parse(&rest[..end]) {
                    return s;
                }
            }
        }
        model.and_then(Scenario::parse).unwrap_or(Scenario::Echo)
    }
}

/// Knobs for tests and demos.
#[derive(Debug, Clone)]
pub struct MockOptions {
    /// Delay between text deltas (human feel in demos; zero in tests).
    pub chunk_delay: Duration,
    /// Delay between deltas of the `slow` scenario.
    pub slow_delay: Duration,
    /// Make `initialize` fail as if the process died at start.
    pub fail_init: bool,
    /// Force a scenario regardless of prompt and model.
    pub force: Option<Scenario>,
    /// Report the session id only in the turn's `Started`, not at
    /// `initialize` (like agents that create their session lazily).
    pub late_session_id: bool,
}

impl Default for MockOptions {
    fn default() -> Self {
        MockOptions {
            chunk_delay: Duration::from_millis(15),
            slow_delay: Duration::from_millis(100),
            fail_init: false,
            force: None,
            late_session_id: false,
        }
    }
}

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
        Box::new(MockAdapter {
            descriptor: descriptor(),
            opts: self.opts.clone(),
            config: AdapterConfig::default(),
            session_id: None,
            shared: Arc::default(),
            turn: None,
        })
    }
}

#[derive(Debug, Default)]
struct Shared {
    dead: bool,
    last_error: Option<String>,
}

struct TurnCtl {
    cancel: watch::Sender<bool>,
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
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
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
                .unwrap_or_else(|| format!("mock-{}", crate::ids::random_tag())),
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
        let script = Script {
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

/// One turn's script, run as a task.
struct Script {
    tx: mpsc::Sender<AgentEvent>,
    cancel: watch::Receiver<bool>,
    approvals: mpsc::UnboundedReceiver<ToolDecision>,
    opts: MockOptions,
    approval: ApprovalMode,
    shared: Arc<Mutex<Shared>>,
    session_id: Option<String>,
    model: String,
}

/// The script was cancelled or the consumer went away.
struct Stop;

impl Script {
    async fn run(mut self, scenario: Scenario, prompt: String) {
        let result = self.play(&scenario, &prompt).await;
        if result.is_err() && *self.cancel.borrow() {
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

    async fn pause(&mut self, d: Duration) -> Result<(), Stop> {
        if d.is_zero() {
            tokio::task::yield_now().await;
            return Ok(());
        }
        tokio::select! {
            _ = tokio::time::sleep(d) => Ok(()),
            _ = self.cancel.wait_for(|c| *c) => Err(Stop),
        }
    }

    async fn words(&mut self, text: &str, delay: Duration) -> Result<u64, Stop> {
        let mut n = 0;
        for w in text.split_inclusive(' ') {
            self.pause(delay).await?;
            self.emit(AgentEvent::TextDelta(w.to_string())).await?;
            n += 1;
        }
        Ok(n)
    }

    async fn play(&mut self, scenario: &Scenario, prompt: &str) -> Result<(), Stop> {
        let delay = self.opts.chunk_delay;
        self.emit(AgentEvent::Started {
            session_id: self.session_id.clone(),
            model: Some(self.model.clone()),
        })
        .await?;
        let input_tokens = prompt.split_whitespace().count() as u64;
        let mut output_tokens = 0;
        let shown = prompt.trim();
        match scenario {
            Scenario::Echo | Scenario::Text => {
                if *scenario == Scenario::Echo {
                    for r in [
                        "The user wrote a prompt; ",
                        "answer briefly and say what I am.",
                    ] {
                        self.pause(delay).await?;
                        self.emit(AgentEvent::ReasoningDelta(r.into())).await?;
                    }
                }
                let reply = format!(
                    "Hello from cohost's built-in mock agent. You said: \"{shown}\". Install a real agent (see `cohost agents`) to do real work."
                );
                output_tokens += self.words(&reply, delay).await?;
            }
            Scenario::Tool => {
                output_tokens += self.words("I will create a file for you. ", delay).await?;
                let call = ToolCallInfo {
                    tool_id: "mock-tool-1".into(),
                    name: "write_file".into(),
                    kind: ToolKind::Edit,
                    input: serde_json::json!({"path": "mock_output.txt", "content": "hello from the mock agent\n"}),
                };
                let allowed = match self.approval {
                    ApprovalMode::AutoApprove => {
                        self.emit(AgentEvent::ToolCall(call)).await?;
                        true
                    }
                    ApprovalMode::Ask | ApprovalMode::DenyAll => {
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
                    }
                };
                let (status, output, reply) = if allowed {
                    (
                        ToolStatus::Ok,
                        "wrote 26 bytes to mock_output.txt (simulated)",
                        "Done: the file is written.",
                    )
                } else {
                    (
                        ToolStatus::Denied,
                        "",
                        "Understood, I did not create the file.",
                    )
                };
                self.emit(AgentEvent::ToolExecuted {
                    tool_id: "mock-tool-1".into(),
                    status,
                    output: output.into(),
                })
                .await?;
                output_tokens += self.words(reply, delay).await?;
            }
            Scenario::Say => {
                let said = prompt
                    .find("[mock:say]")
                    .map_or(prompt, |i| &prompt[i + "[mock:say]".len()..])
                    .trim_start()
                    .replace("\\n", "\n");
                output_tokens += self.words(&said, delay).await?;
            }
            Scenario::Chunks(n) => {
                for i in 0..*n {
                    let sep = if i % 20 == 19 { "\n\n" } else { " " };
                    self.emit(AgentEvent::TextDelta(format!("chunk{i}{sep}")))
                        .await?;
                    output_tokens += 1;
                }
            }
            Scenario::Slow => {
                for i in 0..50 {
                    self.pause(self.opts.slow_delay).await?;
                    self.emit(AgentEvent::TextDelta(format!("tick {i} ")))
                        .await?;
                    output_tokens += 1;
                }
            }
            Scenario::Crash => {
                self.words("About to ", delay).await?;
                let mut s = self.shared.lock().unwrap_or_else(|p| p.into_inner());
                s.dead = true;
                s.last_error =
                    Some("mock agent crashed (scenario `crash`): exit status 101".into());
                // Dropping the sender without `Ended` is what a dying process looks like.
                return Ok(());
            }
            Scenario::Hang => {
                self.emit(AgentEvent::TextDelta("Thinking very hard ".into()))
                    .await?;
                // Ignore everything but a kill, like a wedged process.
                futures::future::pending::<()>().await;
            }
            Scenario::Silent => {
                // Nothing at all; an interrupt ends the turn.
                self.pause(Duration::from_secs(24 * 3600)).await?;
            }
            Scenario::Garbage => {
                output_tokens += self.words("Some good output. ", delay).await?;
                for junk in ["{\"type\":\"assist", "\u{1b}[31m%%%not json%%%"] {
                    self.emit(AgentEvent::Error(
                        CohostError::new(
                            ErrorCode::InvalidOutput,
                            format!("skipped a line the agent's protocol does not allow: {junk:?}"),
                        )
                        .retryable(false),
                    ))
                    .await?;
                }
                output_tokens += self.words("More good output.", delay).await?;
            }
            Scenario::Error(code) => {
                let e =
                    CohostError::new(*code, format!("mock agent failed with {code} (scenario)"))
                        .with_fix("this is the mock's `error:` scenario; pick another scenario");
                self.emit(AgentEvent::Error(e)).await?;
                self.emit(AgentEvent::Ended {
                    reason: EndReason::Error,
                    usage: None,
                })
                .await?;
                return Ok(());
            }
        }
        let usage = Usage {
            input_tokens,
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_selection() {
        assert_eq!(Scenario::select("hi", None), Scenario::Echo);
        assert_eq!(
            Scenario::select("do it [mock:tool] now", None),
            Scenario::Tool
        );
        assert_eq!(Scenario::select("hi", Some("slow")), Scenario::Slow);
        assert_eq!(
            Scenario::select("[mock:bogus]", Some("crash")),
            Scenario::Crash
        );
        assert_eq!(
            Scenario::select("[mock:error:RATE_LIMITED]", None),
            Scenario::Error(ErrorCode::RateLimited)
        );
        assert_eq!(
            Scenario::parse("error:NOPE"),
            Some(Scenario::Error(ErrorCode::Unknown))
        );
        assert_eq!(Scenario::select("[mock:unterminated", None), Scenario::Echo);
        assert_eq!(Scenario::select("[mock:say] hi", None), Scenario::Say);
        assert_eq!(
            Scenario::select("[mock:chunks:10000]", None),
            Scenario::Chunks(10_000)
        );
        assert_eq!(Scenario::select("[mock:chunks:x]", None), Scenario::Echo);
    }
}
