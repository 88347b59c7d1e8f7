//! The owner's side of a member on another machine (`cohost join --agent
//! AGENT`, `docs/sharing-e2e.md`, "Members on other machines"): the agent
//! runs here, with this machine's credentials, sandbox and approvals; the
//! host's `ai.member.command`s (addressed to this connection, signed by the
//! host) run prompts on it and stop it, and its turns go to the room signed
//! with this participant's key, on streams named for this connection. Only
//! the normalized, sanitized events leave this machine.

use std::collections::HashMap;

use cohost_core::{Decision, DecisionOrigin, Event, EventBody, PromptInput};
use cohost_protocol::Frame;
use cohost_session::RunningSession;
use cohost_share::{MemberCommand, MemberOp, RoomCodec, ShareError, TurnStream};

use super::host_turn::{turn_frames, Started};

/// What a host's command means for the owner.
#[derive(Debug, PartialEq, Eq)]
pub enum Order {
    /// Not for this member, or nothing to say.
    Nothing,
    /// Admitted under this name.
    Admitted(String),
    /// A prompt started (its text, who asked).
    Prompted {
        /// The text.
        text: String,
        /// The host, or the co-driver whose suggestion it is.
        author: String,
    },
    /// A prompt did not start (why).
    NotRun(String),
    /// The running turn is being stopped.
    Interrupted,
    /// The offer was refused, or the member is out of the room (why): the
    /// agent is to stop.
    Out(String),
}

/// A member of the room that runs on this machine.
pub struct GuestAgent {
    session: RunningSession,
    /// Its member name in the room, once admitted.
    name: Option<String>,
    /// The host's texts of the prompts it runs, by correlation id.
    texts: HashMap<String, String>,
    /// Its turns' streams, by prompt id.
    streams: HashMap<String, TurnStream>,
}

impl GuestAgent {
    /// A member of the room running `session` (not offered yet).
    pub fn new(session: RunningSession) -> GuestAgent {
        GuestAgent {
            session,
            name: None,
            texts: HashMap::new(),
            streams: HashMap::new(),
        }
    }

    /// The agent's provider id (what is offered).
    pub fn agent(&self) -> &str {
        &self.session.descriptor().id
    }

    /// Its name in the room, once the host admitted it.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The running session (its events, approvals, end).
    pub fn session(&self) -> &RunningSession {
        &self.session
    }

    /// Act on a host's command to connection `me`.
    pub fn command(&mut self, me: u64, c: &MemberCommand) -> Order {
        if c.to != me {
            return Order::Nothing;
        }
        let mine = self.name.as_deref() == Some(c.agent.as_str());
        match c.op {
            MemberOp::Admitted => {
                self.name = Some(c.agent.clone());
                Order::Admitted(c.agent.clone())
            }
            MemberOp::Refused => {
                Order::Out(c.why.clone().unwrap_or_else(|| "no reason given".into()))
            }
            _ if !mine => Order::Nothing,
            MemberOp::Prompt => {
                let text = c.text.clone().unwrap_or_default();
                let author = c.author.clone().unwrap_or_else(|| "host".into());
                let input = PromptInput {
                    text: text.clone(),
                    correlation_id: c.correlation_id.clone(),
                    ..PromptInput::default()
                };
                match self.session.prompt_by(input, &author) {
                    Ok(turn) => {
                        self.texts
                            .insert(turn.correlation_id().to_owned(), text.clone());
                        Order::Prompted { text, author }
                    }
                    Err(e) => Order::NotRun(e.to_string()),
                }
            }
            MemberOp::Interrupt => {
                self.session.interrupt();
                Order::Interrupted
            }
            MemberOp::Dropped => {
                self.name = None;
                Order::Out(
                    c.why
                        .clone()
                        .unwrap_or_else(|| "the host dropped it".into()),
                )
            }
            _ => Order::Nothing,
        }
    }

    /// The frames one event of the agent makes for the room, on streams
    /// named for connection `me` (none before the host admitted it).
    pub fn frames(
        &mut self,
        codec: &RoomCodec,
        me: u64,
        mut event: Event,
    ) -> Result<Vec<Result<Frame, ShareError>>, String> {
        let Some(name) = self.name.clone() else {
            return Ok(Vec::new());
        };
        if matches!(event.body, EventBody::Queue(_)) {
            // Its queue belongs to no turn (as on the host).
            return Ok(Vec::new());
        }
        event.agent = Some(name);
        let stream = format!(
            "{}{}",
            cohost_protocol::member_stream_prefix(me),
            event.prompt_id
        );
        let text = self
            .texts
            .get(&event.correlation_id)
            .cloned()
            .unwrap_or_default();
        let ended = matches!(event.body, EventBody::StreamEnd { .. });
        let started = Started {
            text: &text,
            provider: &self.session.descriptor().id,
            origin: "host",
        };
        let frames = turn_frames(codec, &mut self.streams, &event, started, &stream);
        if ended {
            self.streams.remove(&event.prompt_id);
            self.texts.remove(&event.correlation_id);
        }
        frames
    }

    /// The owner allows or denies a call of the agent (`None`: the only
    /// one waiting); false when none such waits.
    pub fn decide(&self, tool_id: Option<&str>, allow: bool) -> bool {
        let decision = if allow {
            Decision::allow(DecisionOrigin::User)
        } else {
            Decision::deny(DecisionOrigin::User, "denied by its owner")
        };
        self.session.decide(tool_id, decision)
    }
}
