//! The host side of a shared session: runs the agent locally through the
//! session engine and publishes every event to the room. Co-driver
//! suggestions queue for the host's decision; tool approvals stay with the
//! host.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use cohost_core::{
    ApprovalContext, Decision, DecisionOrigin, DecisionSource, EndReason, Event, EventBody,
    HostSession, PromptInput,
};
use cohost_protocol::{Frame, FrameType};
use cohost_relay::{ClientEvent, RelayClient};
use futures::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};

use super::payload::{Chat, ExecutionStarted, Suggestion, SuggestionDecision};

/// What the host (a person or a test) tells the bridge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostInput {
    /// Run this prompt.
    Prompt(String),
    /// Run a pending suggestion.
    Accept(String),
    /// Reject a pending suggestion.
    Reject(String),
    /// Decide a pending tool approval (`None`: the only pending one).
    Approve {
        /// Which call.
        tool_id: Option<String>,
        /// Allow or deny.
        allow: bool,
    },
    /// Interrupt the running turn.
    Interrupt,
    /// Say something in the room chat.
    Chat(String),
    /// Close the room and stop.
    Quit,
}

/// What the bridge tells the host.
#[derive(Debug, Clone)]
pub enum HostNotice {
    /// A co-driver suggested a prompt (waiting for Accept/Reject under `Ask`).
    Suggested(Suggestion),
    /// A suggestion was decided (by the policy or the host).
    SuggestionDecided(SuggestionDecision),
    /// A local event of the running turn (for rendering).
    Event(Event),
    /// The agent asks to run a tool; answer with `HostInput::Approve`.
    ApprovalNeeded(ApprovalContext),
    /// Chat from the room.
    Chat(Chat),
    /// Someone joined or left, or the connection changed.
    Room(String),
    /// A turn finished.
    TurnDone(EndReason),
}

/// What to do with co-driver suggestions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuggestionPolicy {
    /// Queue them for the host to accept or reject.
    Ask,
    /// Run them in order (trusted rooms, tests).
    Accept,
    /// Reject them all.
    Reject,
}

/// Tool approvals answered by the host through [`HostInput::Approve`].
#[derive(Clone, Default)]
pub struct HostApprovals {
    pending: Arc<Mutex<BTreeMap<String, oneshot::Sender<Decision>>>>,
    notices: Arc<Mutex<Option<mpsc::UnboundedSender<HostNotice>>>>,
}

impl HostApprovals {
    fn lock_pending(
        &self,
    ) -> std::sync::MutexGuard<'_, BTreeMap<String, oneshot::Sender<Decision>>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Resolve one pending approval; false when there is none to resolve.
    pub fn answer(&self, tool_id: Option<&str>, allow: bool) -> bool {
        let mut pending = self.lock_pending();
        let key = match tool_id {
            Some(id) => Some(id.to_string()),
            None if pending.len() == 1 => pending.keys().next().cloned(),
            None => None,
        };
        let Some(tx) = key.and_then(|k| pending.remove(&k)) else {
            return false;
        };
        let d = if allow {
            Decision::allow(DecisionOrigin::User)
        } else {
            Decision::deny(DecisionOrigin::User, "denied by the host")
        };
        tx.send(d).is_ok()
    }
}

impl DecisionSource for HostApprovals {
    fn decide(&self, request: ApprovalContext) -> BoxFuture<'static, Decision> {
        let (tx, rx) = oneshot::channel();
        self.lock_pending().insert(request.tool_id.clone(), tx);
        if let Some(n) = self
            .notices
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            let _ = n.send(HostNotice::ApprovalNeeded(request));
        }
        Box::pin(async move {
            rx.await
                .unwrap_or_else(|_| Decision::deny(DecisionOrigin::Cancelled, "host went away"))
        })
    }
}

/// Publishes one turn as a relay stream.
struct Publisher {
    room: String,
    stream: String,
    next_chunk: u64,
}

impl Publisher {
    fn frame(&mut self, kind: FrameType, payload: &[u8]) -> Option<Frame> {
        let chunk = self.next_chunk;
        self.next_chunk += 1;
        Frame::build(kind, &self.room, Some(&self.stream), chunk, payload).ok()
    }
}

/// A payload for the room: every string in it sanitized before it is
/// encrypted and sent (a prompt full of secrets, an echoed key).
fn json<T: serde::Serialize>(v: &T) -> Vec<u8> {
    let mut value = serde_json::to_value(v).unwrap_or_default();
    cohost_core::sanitize::sanitize_json(&mut value);
    serde_json::to_vec(&value).unwrap_or_default()
}

/// Drives a [`HostSession`] for a room.
pub struct HostBridge {
    session: HostSession,
    client: RelayClient,
    policy: SuggestionPolicy,
    approvals: Option<HostApprovals>,
    notices: mpsc::UnboundedSender<HostNotice>,
    pending: HashMap<String, Suggestion>,
    queue: VecDeque<(String, String, Option<String>)>,
    quit: bool,
}

impl HostBridge {
    /// A bridge for a started session connected as HOST. Pass the
    /// [`HostApprovals`] the session decides with, if any, so approval
    /// requests reach the notices.
    pub fn new(
        session: HostSession,
        client: RelayClient,
        policy: SuggestionPolicy,
        approvals: Option<HostApprovals>,
        notices: mpsc::UnboundedSender<HostNotice>,
    ) -> Self {
        if let Some(a) = &approvals {
            *a.notices.lock().unwrap_or_else(|p| p.into_inner()) = Some(notices.clone());
        }
        HostBridge {
            session,
            client,
            policy,
            approvals,
            notices,
            pending: HashMap::new(),
            queue: VecDeque::new(),
            quit: false,
        }
    }

    fn notify(&self, n: HostNotice) {
        let _ = self.notices.send(n);
    }

    /// Run until `Quit`, the inputs close, or the room closes. Returns the session.
    pub async fn run(mut self, mut inputs: mpsc::UnboundedReceiver<HostInput>) -> HostSession {
        while !self.quit {
            if let Some((text, origin, correlation)) = self.queue.pop_front() {
                self.run_turn(text, origin, correlation, &mut inputs).await;
                continue;
            }
            tokio::select! {
                input = inputs.recv() => match input {
                    Some(i) => self.handle_input(i).await,
                    None => self.quit = true,
                },
                ev = self.client.recv() => match ev {
                    Some(ev) => self.handle_relay(ev).await,
                    None => self.quit = true,
                },
            }
        }
        if let Ok(f) = Frame::build(FrameType::RoomClose, self.client.room(), None, 0, b"") {
            let _ = self.client.send(&f).await;
        }
        self.client.close().await;
        self.session
    }

    async fn handle_input(&mut self, input: HostInput) {
        match input {
            HostInput::Prompt(text) => self.queue.push_back((text, "host".into(), None)),
            HostInput::Accept(id) => self.decide_suggestion(&id, true).await,
            HostInput::Reject(id) => self.decide_suggestion(&id, false).await,
            HostInput::Approve { tool_id, allow } => {
                let answered = self
                    .approvals
                    .as_ref()
                    .is_some_and(|a| a.answer(tool_id.as_deref(), allow));
                if !answered {
                    self.notify(HostNotice::Room("no tool approval is pending".into()));
                }
            }
            HostInput::Interrupt => {
                self.session.control().interrupt();
            }
            HostInput::Chat(text) => {
                let chat = Chat {
                    from: Some("host".into()),
                    text,
                };
                let _ = self
                    .client
                    .send_new(FrameType::ChatMessage, None, 0, &json(&chat))
                    .await;
            }
            HostInput::Quit => self.quit = true,
        }
    }

    async fn decide_suggestion(&mut self, id: &str, accept: bool) {
        let Some(s) = self.pending.remove(id) else {
            self.notify(HostNotice::Room(format!("no pending suggestion {id}")));
            return;
        };
        let decision = SuggestionDecision {
            suggestion_id: s.suggestion_id.clone(),
            accepted: accept,
            prompt_id: None,
        };
        let _ = self
            .client
            .send_new(FrameType::SuggestionDecided, None, 0, &json(&decision))
            .await;
        self.notify(HostNotice::SuggestionDecided(decision));
        if accept {
            self.queue
                .push_back((s.text, s.suggestion_id.clone(), Some(s.suggestion_id)));
        }
    }

    async fn handle_relay(&mut self, ev: ClientEvent) {
        match ev {
            ClientEvent::Frame(f) => match f.kind() {
                FrameType::PromptSuggested => {
                    let Ok(mut s) = serde_json::from_slice::<Suggestion>(&f.payload()) else {
                        return;
                    };
                    // The relay's stamp names the sender, not the payload.
                    s.from = Some(super::participant::stamped_name(&f));
                    self.pending.insert(s.suggestion_id.clone(), s.clone());
                    self.notify(HostNotice::Suggested(s.clone()));
                    match self.policy {
                        SuggestionPolicy::Ask => {}
                        SuggestionPolicy::Accept => {
                            self.decide_suggestion(&s.suggestion_id, true).await
                        }
                        SuggestionPolicy::Reject => {
                            self.decide_suggestion(&s.suggestion_id, false).await
                        }
                    }
                }
                FrameType::ChatMessage => {
                    if let Ok(mut c) = serde_json::from_slice::<Chat>(&f.payload()) {
                        c.from = Some(super::participant::stamped_name(&f));
                        self.notify(HostNotice::Chat(c));
                    }
                }
                FrameType::PresenceJoin | FrameType::PresenceLeave => {
                    self.notify(HostNotice::Room(format!(
                        "{} {}",
                        f.kind().name(),
                        String::from_utf8_lossy(&f.payload())
                    )));
                }
                _ => {}
            },
            ClientEvent::Welcome(w) => {
                self.notify(HostNotice::Room(format!("hosting room {}", w.room)))
            }
            ClientEvent::Resync(_) | ClientEvent::Error(_) => {}
            ClientEvent::Disconnected { reason } => self.notify(HostNotice::Room(format!(
                "relay connection lost ({reason}); reconnecting"
            ))),
            ClientEvent::Closed { reason } => {
                self.notify(HostNotice::Room(format!("room closed: {reason}")));
                self.quit = true;
            }
        }
    }

    async fn run_turn(
        &mut self,
        text: String,
        origin: String,
        correlation: Option<String>,
        inputs: &mut mpsc::UnboundedReceiver<HostInput>,
    ) {
        let (tx, mut rx) = mpsc::unbounded_channel::<Event>();
        let mut sink = move |e: Event| {
            let _ = tx.send(e);
        };
        let provider = self.session.descriptor().id.clone();
        let control = self.session.control();
        let input = PromptInput {
            text: text.clone(),
            correlation_id: correlation,
            ..PromptInput::default()
        };
        let approvals = self.approvals.clone();
        let notices = self.notices.clone();
        let mut deferred: Vec<HostInput> = Vec::new();
        let mut relay_events: Vec<ClientEvent> = Vec::new();
        let mut outcome = None;
        {
            let client = &mut self.client;
            let turn = self.session.prompt(input, &mut sink);
            tokio::pin!(turn);
            let mut publisher: Option<Publisher> = None;
            loop {
                tokio::select! {
                    biased;
                    Some(e) = rx.recv() => {
                        publish(client, &mut publisher, &e, &text, &provider, &origin).await;
                        let _ = notices.send(HostNotice::Event(e));
                    }
                    o = &mut turn, if outcome.is_none() => outcome = Some(o),
                    Some(i) = inputs.recv() => match i {
                        HostInput::Interrupt => { control.interrupt(); }
                        HostInput::Approve { tool_id, allow } => {
                            if !approvals.as_ref().is_some_and(|a| a.answer(tool_id.as_deref(), allow)) {
                                let _ = notices.send(HostNotice::Room("no tool approval is pending".into()));
                            }
                        }
                        other => deferred.push(other),
                    },
                    Some(ev) = client.recv() => relay_events.push(ev),
                    else => {}
                }
                // The turn is over once its future finished and every event is published.
                if outcome.is_some() && rx.is_empty() {
                    break;
                }
            }
        }
        if let Some(o) = outcome {
            self.notify(HostNotice::TurnDone(o.reason));
        }
        for ev in relay_events {
            self.handle_relay(ev).await;
        }
        for i in deferred {
            self.handle_input(i).await;
        }
    }
}

async fn publish(
    client: &RelayClient,
    publisher: &mut Option<Publisher>,
    event: &Event,
    text: &str,
    provider: &str,
    origin: &str,
) {
    let p = publisher.get_or_insert_with(|| Publisher {
        room: client.room().to_string(),
        stream: event.prompt_id.clone(),
        next_chunk: 0,
    });
    if p.next_chunk == 0 {
        let started = ExecutionStarted {
            prompt_id: event.prompt_id.clone(),
            correlation_id: event.correlation_id.clone(),
            text: text.to_string(),
            provider: provider.to_string(),
            origin: origin.to_string(),
        };
        if let Some(f) = p.frame(FrameType::ExecutionStarted, &json(&started)) {
            let _ = client.send(&f).await;
        }
    }
    let body = json(event);
    let kind = match &event.body {
        EventBody::StreamEnd {
            reason: EndReason::Interrupted,
            ..
        } => FrameType::StreamInterrupted,
        EventBody::StreamEnd { .. } => FrameType::StreamEnd,
        _ => FrameType::StreamChunk,
    };
    if let Some(f) = p.frame(kind, &body) {
        let _ = client.send(&f).await;
    }
    // Approvals also go out as their own (non-replayable) frames for UIs that
    // only show pending decisions.
    let side = match &event.body {
        EventBody::ToolApprovalRequested { .. } => Some(FrameType::ToolApprovalRequested),
        EventBody::ToolApprovalDecided { .. } => Some(FrameType::ToolApprovalDecided),
        _ => None,
    };
    if let Some(kind) = side {
        let _ = client.send_new(kind, None, 0, &body).await;
    }
}

/// A fresh suggestion id.
pub fn new_suggestion_id() -> String {
    format!("s-{}", cohost_core::ids::random_tag())
}
