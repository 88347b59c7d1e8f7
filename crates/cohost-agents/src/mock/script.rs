//! One turn of the mock: a script played by a task of its own, which
//! streams events into a channel, honours a gentle cancel, waits for
//! approval decisions, and can "crash" or "hang" as a real process would.

use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};

use cohost_core::error::{CohostError, ErrorCode};
use cohost_core::event::{ApprovalOption, EndReason, ToolKind, ToolStatus, Usage};
use cohost_core::port::{AgentEvent, ApprovalMode, ToolCallInfo, ToolDecision};

use super::options::{MockOptions, Shared};
use super::scenario::Scenario;

/// One turn's script, run as a task.
pub(super) struct Script {
    pub(super) tx: mpsc::Sender<AgentEvent>,
    pub(super) cancel: watch::Receiver<bool>,
    pub(super) approvals: mpsc::UnboundedReceiver<ToolDecision>,
    pub(super) opts: MockOptions,
    pub(super) approval: ApprovalMode,
    pub(super) shared: Arc<Mutex<Shared>>,
    pub(super) session_id: Option<String>,
    pub(super) model: String,
    /// Text steered into this turn, taken at the script's next pause (the
    /// sender hears when), as a protocol with mid-turn input would.
    pub(super) steers: mpsc::UnboundedReceiver<(String, oneshot::Sender<()>)>,
}

/// The script was cancelled or the consumer went away.
struct Stop;

impl Script {
    pub(super) async fn run(mut self, scenario: Scenario, prompt: String) {
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
            while let Ok(steer) = self.steers.try_recv() {
                self.take_steer(steer).await?;
            }
            return Ok(());
        }
        let sleep = tokio::time::sleep(d);
        tokio::pin!(sleep);
        loop {
            let steer = tokio::select! {
                _ = &mut sleep => return Ok(()),
                _ = self.cancel.wait_for(|c| *c) => return Err(Stop),
                Some(steer) = self.steers.recv() => steer,
            };
            self.take_steer(steer).await?;
        }
    }

    /// Steered text shows in the answer, so a person sees where it landed.
    async fn take_steer(
        &mut self,
        (text, taken): (String, oneshot::Sender<()>),
    ) -> Result<(), Stop> {
        self.emit(AgentEvent::TextDelta(format!(
            "[steered: {}] ",
            text.trim()
        )))
        .await?;
        // The adapter may have stopped waiting; the text is in the turn.
        let _ = taken.send(());
        Ok(())
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
                let mut s = cohost_core::sync::lock(&self.shared);
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
