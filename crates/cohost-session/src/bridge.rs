//! The room bridge's runtime: what a bridge call from one member does to
//! the room. `ask_member` runs a turn on another member and answers with
//! what it said; `list_members` names the members; `post_to_room` hands a
//! note to the front end, which shows it to the room's people. Every call
//! is told to the front end as a [`BridgeNote`], so what one member asks
//! another is visible; the chain rules of [`BridgeRules`] keep asking
//! bounded (no loops, so deep, so long); and every call passes the room's
//! approval policy first (`approval`: the bridge asks for the calls of
//! agents that run MCP tools without asking cohost).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use cohost_core::bridge::{asked_prompt, BridgeCall, BridgeRules, MAX_ANSWER_BYTES};
use cohost_core::{EndReason, EventBody, PromptInput};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::room::Room;

mod approval;
mod error;

pub use error::BridgeError;

/// What the bridge tells the front end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BridgeNote {
    /// `from` asked `to`; the turn on `to` carries `correlation_id`.
    Asked {
        /// The asking member.
        from: String,
        /// The asked member.
        to: String,
        /// The prompt as `from` wrote it.
        prompt: String,
        /// The asked turn's correlation id.
        correlation_id: String,
    },
    /// A call was refused (a loop, too deep, no such member, no answer in
    /// time); the caller's model gets the same error as its tool result.
    Refused {
        /// The calling member.
        from: String,
        /// Why.
        why: String,
    },
    /// A member's note for the room.
    Posted {
        /// The member.
        from: String,
        /// The note.
        text: String,
    },
}

/// A room's bridge: answers the calls of its members' agents.
pub struct RoomBridge {
    room: RwLock<Room>,
    /// For each member running an asked turn: the chain it runs under.
    chains: Mutex<HashMap<String, Vec<String>>>,
    rules: BridgeRules,
    notes: mpsc::UnboundedSender<BridgeNote>,
    /// "Always" answers to calls the bridge asked about.
    remembered: approval::Remembered,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl RoomBridge {
    /// A bridge for a room not started yet ([`RoomBridge::set_room`] once
    /// it is; a call before that finds no member).
    pub fn new(rules: BridgeRules, notes: mpsc::UnboundedSender<BridgeNote>) -> Arc<RoomBridge> {
        Arc::new(RoomBridge {
            room: RwLock::new(Room::default()),
            chains: Mutex::new(HashMap::new()),
            rules,
            notes,
            remembered: approval::Remembered::default(),
        })
    }

    /// The room's members from now on (it started, or gained or lost one).
    pub fn set_room(&self, room: Room) {
        *self
            .room
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = room;
    }

    fn room(&self) -> Room {
        self.room
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn note(&self, n: BridgeNote) {
        let _ = self.notes.send(n);
    }

    /// Answer `from`'s call: the tool's result, or why it was refused
    /// (the room's approval policy, or its chain rules).
    pub async fn handle(&self, from: &str, call: BridgeCall) -> Result<Value, BridgeError> {
        let out = match self.approve(from, &call).await {
            Err(e) => Err(e),
            Ok(()) => match call {
                BridgeCall::AskMember { name, prompt } => self.ask(from, &name, &prompt).await,
                BridgeCall::ListMembers => Ok(self.list(from)),
                BridgeCall::PostToRoom { text } => {
                    self.note(BridgeNote::Posted {
                        from: from.to_owned(),
                        text,
                    });
                    Ok(json!({ "posted": true }))
                }
            },
        };
        if let Err(e) = &out {
            self.note(BridgeNote::Refused {
                from: from.to_owned(),
                why: cohost_core::CohostError::from(e.clone()).message,
            });
        }
        out
    }

    /// May `from` make `call`? Its own session is asked when its agent
    /// did not ask already.
    async fn approve(&self, from: &str, call: &BridgeCall) -> Result<(), BridgeError> {
        let room = self.room();
        let Some(caller) = room.members().iter().find(|m| m.name == from) else {
            // No session to ask in (the room is not started, or it left).
            return Err(BridgeError::NotAMember {
                member: from.to_owned(),
                tool: approval::tool_name(call),
            });
        };
        self.remembered.approve(from, &caller.session, call).await
    }

    fn list(&self, from: &str) -> Value {
        let room = self.room();
        let members: Vec<Value> = room
            .members()
            .iter()
            .map(|m| {
                json!({
                    "name": m.name,
                    "agent": m.session.descriptor().id,
                    "busy": m.session.busy(),
                    "you": m.name == from,
                })
            })
            .collect();
        json!({ "members": members })
    }

    async fn ask(&self, from: &str, to: &str, prompt: &str) -> Result<Value, BridgeError> {
        let room = self.room();
        let names: Vec<&str> = room.members().iter().map(|m| m.name.as_str()).collect();
        let chain = lock(&self.chains)
            .get(from)
            .cloned()
            .unwrap_or_else(|| vec![from.to_owned()]);
        let next = self.rules.may_ask(&chain, to, &names)?;
        let session = room.named(to)?.session.clone();
        let correlation = format!("b-{}", cohost_core::ids::random_tag());
        // Subscribed before the prompt: the answer's first words are not missed.
        let mut events = session.subscribe_new();
        self.note(BridgeNote::Asked {
            from: from.to_owned(),
            to: to.to_owned(),
            prompt: prompt.to_owned(),
            correlation_id: correlation.clone(),
        });
        let input = PromptInput {
            correlation_id: Some(correlation.clone()),
            ..PromptInput::text(asked_prompt(from, prompt))
        };
        session.prompt(input)?;
        lock(&self.chains).insert(to.to_owned(), next);
        let mut answer = String::new();
        let mut started = false;
        let wait = self.rules.answer_time;
        let ended = tokio::time::timeout(wait, async {
            while let Some(next) = events.recv().await.transpose() {
                let Ok(e) = next else {
                    // Cut off for lagging: the answer is incomplete.
                    return Err(BridgeError::FellBehind(to.to_owned()));
                };
                if e.correlation_id != correlation {
                    continue;
                }
                match e.body {
                    EventBody::StreamStart { .. } => started = true,
                    EventBody::StreamChunk { delta, .. } => answer.push_str(&delta),
                    EventBody::StreamEnd { reason, .. } => return Ok(reason),
                    _ => {}
                }
            }
            Err(BridgeError::EndedFirst(to.to_owned()))
        })
        .await;
        lock(&self.chains).remove(to);
        let reason = match ended {
            Ok(r) => r?,
            Err(_) => {
                if started {
                    // Never leave an asked turn running past its time.
                    session.interrupt();
                }
                return Err(BridgeError::NoAnswer {
                    member: to.to_owned(),
                    wait: self.rules.answer_time,
                });
            }
        };
        let truncated = answer.len() > MAX_ANSWER_BYTES;
        if truncated {
            let mut cut = MAX_ANSWER_BYTES;
            while !answer.is_char_boundary(cut) {
                cut -= 1;
            }
            answer.truncate(cut);
        }
        Ok(json!({
            "member": to,
            "answer": answer,
            "end": reason,
            "truncated": truncated,
            "completed": reason == EndReason::Completed,
        }))
    }
}

#[cfg(test)]
#[path = "bridge_tests.rs"]
mod tests;
